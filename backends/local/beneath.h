// Opening paths beneath a root directory descriptor, so that no access can
// leave the root whatever is renamed or swapped meanwhile.
//
// The local backend opens its root once and derives every other descriptor
// from that one: with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
// RESOLVE_NO_MAGICLINKS) where the kernel has it (Linux 5.6 and later, unless a
// seccomp filter refuses it), else by a walk of openat(O_NOFOLLOW) that holds a
// descriptor of each directory on the way. Either way no symbolic link is
// followed: the canonical paths the backend is given have every link resolved
// already (FsBackend::resolve), so a link found now is one that appeared since,
// and the open fails with ELOOP instead of following it.
//
// Functions here report failures as errno values; the backend turns them into
// errors that name the client's path.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/fd.h"

namespace editd {

// What `fd` reads until its end or an error, again after EINTR.
std::string read_all(int fd);

// The components of a relative path ("a/b/c" -> a, b, c; "" -> none).
std::vector<std::string> split_relative(std::string_view rel);

// "a/b/c" -> "a/b"; "c" -> "".
std::string parent_relative(std::string_view rel);

// "a/b/c" -> "c".
std::string leaf_of(std::string_view rel);

class Beneath {
 public:
  Beneath() = default;
  Beneath(Beneath&&) = default;
  Beneath& operator=(Beneath&&) = default;

  // Opens `root`, an absolute path, as the directory every later open stays
  // beneath. `allow_openat2` false forces the component walk (tests). 0 or
  // errno (ENOTDIR when `root` is not a directory).
  static int open(const std::string& root, bool allow_openat2, Beneath& out);

  int root_fd() const { return root_.get(); }
  bool uses_openat2() const { return openat2_; }

  // Opens directory `rel` (a relative path without ".", ".." or empty
  // components; "" is the root itself) as an O_PATH descriptor. 0, or ENOENT
  // (a component is missing), ENOTDIR (one is not a directory), ELOOP (one is
  // a symbolic link), EACCES, ... For "" `out` borrows the root's own
  // descriptor (no system call): it must not outlive this Beneath.
  int open_dir(std::string_view rel, Fd& out) const;

  // Opens the subdirectory `name` of `dir` as above, one component.
  int open_child_dir(int dir, const std::string& name, Fd& out) const;

 private:
  int openat2_dir(int dir, const char* path, Fd& out) const;

  Fd root_;
  bool openat2_ = false;
};

}  // namespace editd
