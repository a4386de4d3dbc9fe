// Cross-process locks on names, behind the local backend's FsBackend::lock().
//
// A name (a canonical absolute path) hashes to one of 65,536 stripes: one byte
// of a lock file that every editd of the OS user opens, locked with Linux
// open-file-description locks (fcntl F_OFD_SETLK). The kernel drops the locks
// of a process that dies, so a killed editd never leaves a lock behind. Two
// names that share a stripe only wait for each other a little longer.
//
// Within one process the lock chains already keep apart the operations on one
// file, so the holders of a stripe in this process share it: the first takes
// the byte from the kernel, the last gives it back. A wait is only ever for
// another process, which makes progress on its own: waits must still not
// occupy a thread that a holder in this process needs (see acquire()).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backends/local/beneath.h"
#include "protocol/error.h"

namespace editd {

class StripeLocks {
 public:
  static constexpr std::uint32_t kStripes = 65536;

  // The stripe of `name`: FNV-1a, so that every build and every process agree.
  static std::uint32_t stripe_of(std::string_view name);

  // `file` is the lock file, open for reading and writing, named `path` in
  // errors. An invalid `file` makes the locks hold within this process only.
  StripeLocks(Fd file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}

  bool cross_process() const { return file_.valid(); }

  // Takes `stripe` when no other process holds it (true), or reports that one
  // does (false). Never waits. io on an OS failure.
  Result<bool> try_acquire(std::uint32_t stripe);

  // Takes `stripe`, waiting for as long as another process holds it. Blocks the
  // calling thread: never call it on the I/O thread, nor on a thread of a
  // bounded pool that a holder in this process may need to finish (a deadlock
  // across processes when every pool thread waits). io on an OS failure.
  Result<void> acquire(std::uint32_t stripe);

  // Gives back one hold of `stripe`; the last one in this process unlocks it.
  void release(std::uint32_t stripe);

 private:
  Result<bool> try_locked(std::uint32_t stripe);  // mu_ held

  Fd file_;
  std::string path_;
  std::mutex mu_;
  std::unordered_map<std::uint32_t, int> holders_;
};

}  // namespace editd
