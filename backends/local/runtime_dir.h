// The local backend's state outside every root, one directory per OS user:
// /tmp/editd-UID, mode 0700. It holds
//
//   locks                      the lock file of StripeLocks, one for all roots;
//   writers/DEV-INO/PID-RAND   one registry per live backend over the root with
//                              that device and inode number: "root PATH", then
//                              the directories (relative to the root, "." for
//                              the root) in which it makes temporary files, one
//                              a line, escaped as in journals.
//
// Every editd of a user, whatever its root and its environment, must find the
// same lock file, so the place is fixed rather than taken from TMPDIR or
// XDG_RUNTIME_DIR. When it is not usable (another user made it first, it is
// open to others, it cannot be made) editd refuses to start, naming it: a
// second place, taken only then, would let two editd of one user lock in two
// files (one started before the path was taken or freed, one after), and
// serving without the cross-process locks loses updates. Registries are here
// rather than in the root because a single-file write must not leave anything
// in a tree between requests; they only serve to clean up, so a reboot that
// empties /tmp loses nothing else. A backend holds an flock on its registry for
// its whole life: the next backend over that root treats a registry whose flock
// it can take as the record of a dead editd, removes the stale temporary files
// of the directories it names (journal::remove_stale_temps, sparing those a
// journal names), and deletes it.
// Registries of dead editd over roots that no longer exist (or are now another
// directory) are deleted by whichever backend starts next, whatever its root.
#pragma once

#include <sys/types.h>

#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

#include "backends/local/beneath.h"

namespace editd {

class RuntimeDir {
 public:
  // /tmp/editd-EUID.
  static std::string default_path();
  // Opens `path` (default_path() when empty), making it if missing, and checks
  // that it is a directory of this user that no one else may enter. 0 or errno
  // (EPERM when the check fails); then `why`, if given, names the path and
  // what is wrong with it.
  static int open(std::string path, RuntimeDir& out, std::string* why = nullptr);

  const std::string& path() const { return path_; }
  int fd() const { return dir_.get(); }

  // Opens the lock file, making it if missing. 0 or errno.
  int open_lock_file(Fd& out) const;

 private:
  Fd dir_;
  std::string path_;
};

class TempRegistry {
 public:
  // Records nothing.
  TempRegistry() = default;
  // The registry of this backend over `root`, the directory (`dev`, `ino`).
  TempRegistry(const RuntimeDir& runtime, const std::string& root, dev_t dev, ino_t ino);
  // Deletes this backend's registry: every temporary file it made is gone.
  ~TempRegistry();

  // Records directory `rel` before a temporary file is made in it (a write to
  // the registry the first time only). Best effort: a registry that cannot be
  // written only means less to clean after a crash. Thread-safe.
  void add(const std::string& rel);

  // Calls clean(rel) for each directory named by the registry of a dead editd
  // over this root, then deletes that registry; deletes the registries of dead
  // editd whose root is gone.
  void recover(const std::function<void(const std::string& rel)>& clean);

 private:
  int open_file();  // mu_ held

  Fd runtime_;
  std::string root_;
  std::string sub_;  // "DEV-INO"
  std::mutex mu_;
  Fd sub_dir_, file_;
  std::string name_;
  std::unordered_set<std::string> known_;
};

}  // namespace editd
