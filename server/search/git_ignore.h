// Ignore rules as git applies them by default (.gitignore in each directory,
// .git/info/exclude), asked of libgit2 (git_ignore_path_is_ignored) for the
// walks of list and search.
//
// Why libgit2: its ignore matching is git's own semantics (negations, "**",
// directory-only patterns, nested files' precedence), kept by git's people;
// writing that by hand is how tools get it subtly wrong.
//
// The tree is hostile, so libgit2 never opens the tree's repository: rules
// are honoured only when the root holds a real .git directory (a link or a
// gitfile is not honoured: no repository above or beside the root is ever
// looked at), and libgit2 is handed a private, empty repository made in a
// temporary directory, with the root as its work tree and no configuration
// at all. So nothing in the tree's .git/config (core.excludesFile,
// core.worktree, include.path...) is read; the system, global and XDG
// configuration and ignore files are not searched either (editd serves one
// root, not its user's git setup). .git/info/exclude is copied into the
// private repository through the root's descriptor, never following a link,
// bounded in size. libgit2 reads each directory's .gitignore by path: the
// walk (server/search/walk.h) asks nothing about the entries of a directory
// whose own or an ancestor's .gitignore is not a regular file (a link out of
// the root is never read), as git itself no longer follows a linked
// .gitignore.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "edit/error.h"

namespace editd::search {

class GitIgnore {
 public:
  // The rules of the tree at `root` (its canonical path; `root_fd` a
  // descriptor of it), or null when the root holds no .git directory (or the
  // private repository cannot be made: then nothing is ignored, and the log
  // says why).
  static std::unique_ptr<GitIgnore> open(int root_fd, const std::string& root);
  ~GitIgnore();
  GitIgnore(const GitIgnore&) = delete;
  GitIgnore& operator=(const GitIgnore&) = delete;

  // Whether `rel` (relative to the root, '/'-separated) is ignored; a
  // directory's whole contents are then (git never looks inside). Not
  // thread-safe: one walk asks at a time.
  bool ignored(std::string_view rel, bool directory);
  // The text of .git/info/exclude as copied ("" when none).
  const std::string& exclude() const { return exclude_; }

 private:
  GitIgnore() = default;
  struct Repo;
  std::unique_ptr<Repo> repo_;
  std::string scratch_;  // the private repository's directory, removed with this
  std::string path_;     // reused buffer
  std::string exclude_;
};

}  // namespace editd::search
