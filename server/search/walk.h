// The walk under a directory of the root that list and search share: depth
// first, each directory's entries in byte order of their names, so a page's
// place is a path (a cursor) and the next page goes on from there.
//
// Confinement: the walk starts from a directory descriptor the backend opened
// beneath the root (FsBackend::open_directory) and goes on with openat(
// O_NOFOLLOW | O_DIRECTORY) alone; it never follows a symbolic link, in or
// out of the root: links are entries (list shows them), never entered or
// read. Each directory on the way holds a descriptor (at most kWalkMaxDepth).
//
// Passed over: .git everywhere, editd's own state (.editd at the top of the
// root, the temporary files of writes under way, .NAME.editd-XXXXXX), hidden
// names unless asked, ignored entries (server/search/git_ignore.h) unless
// asked, and what the filter's globs exclude.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/search/requests.h"
#include "server/search/git_ignore.h"
#include "support/fd.h"

namespace editd::search {

// Order of paths in the walk: component by component, bytes within one.
bool path_less(std::string_view a, std::string_view b);

// Whether `glob` matches `rel`: a glob without '/' matches the last component
// alone, one with '/' the whole path relative to the root ('*' then matches
// across '/' too; fnmatch(3) otherwise: *, ?, [...]).
bool glob_matches(const std::string& glob, std::string_view rel);

// Whether `bytes` is UTF-8 without a NUL byte. `prefix`: they are the first
// bytes of something longer, so a sequence cut at their end is allowed.
bool is_text(std::string_view bytes, bool prefix = false);

// The last path component of each rule of an ignore file's text that could
// make a file ignored (negations and directory-only rules left out; "*" for
// a rule this reading cannot be sure of): a prefilter, so that libgit2 is
// asked only about files whose name one of them matches. Appended to `out`.
void file_rule_leaves(std::string_view rules, std::vector<std::string>& out);

struct WalkEntry {
  std::shared_ptr<Fd> dir;  // the entry's directory, open while anyone holds it
  std::string name;
  std::string rel;  // relative to the root
  ops::ListEntry::Kind kind = ops::ListEntry::Kind::kFile;
  unsigned level = 1;  // 1: an entry of the start directory
  // A file the walk did not ask the ignore rules about (defer_files): the
  // caller must, when this is true.
  bool ask_ignore = false;
};

class Walk {
 public:
  // From directory `start` (its path relative to the root in `start_rel`, ""
  // for the root), down to `max_depth` levels (1: its own entries). With
  // `after`, entries at or before that path are passed over (its ancestors
  // are still entered); an entry equal to it is given when `include_after`.
  // `ignore` may be null (nothing ignored); `ignore_safe`: whether the
  // .gitignore files of the start's ancestors are all regular files (else
  // the rules are not asked about anything under it).
  Walk(Fd start, std::string start_rel, const ops::WalkFilter& filter, GitIgnore* ignore,
       bool ignore_safe, unsigned max_depth, std::optional<std::string> after,
       bool include_after);

  // Files are given without asking the ignore rules about them, each with
  // ask_ignore set where they apply: the caller asks on threads of its own
  // (search: libgit2's answer costs more than a file's scan).
  void defer_files() { defer_files_ = true; }

  // The next entry, or nullopt at the end. Directories are given before
  // their contents (they are entered unless excluded, ignored or at the
  // depth), files that the include globs do not match are not given.
  std::optional<WalkEntry> next();
  // Entries looked at so far (given or passed over).
  std::uint64_t visited() const { return visited_; }
  // A directory held more than kMaxDirEntries entries (the rest not seen).
  bool clipped() const { return clipped_; }

  static constexpr std::size_t kMaxDirEntries = 1 << 18;

 private:
  struct Child {
    std::string name;
    unsigned char type;  // d_type
  };
  struct Frame {
    std::shared_ptr<Fd> dir;
    std::string prefix;  // "" or "a/b/"
    std::vector<Child> children;
    std::size_t next = 0;
    unsigned level = 1;
    bool ignore_safe = true;
    // file_rule_leaves of the ignore files in effect here; null: unknown
    // (every file is asked about).
    std::shared_ptr<const std::vector<std::string>> leaves;
  };
  void push(Fd dir, std::string prefix, unsigned level, bool ignore_safe,
            std::shared_ptr<const std::vector<std::string>> leaves);

  const ops::WalkFilter& filter_;
  GitIgnore* ignore_;
  unsigned max_depth_;
  std::optional<std::string> after_;
  bool include_after_;
  std::vector<Frame> stack_;
  std::uint64_t visited_ = 0;
  bool clipped_ = false;
  bool defer_files_ = false;
};

}  // namespace editd::search
