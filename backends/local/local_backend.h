// The local POSIX backend: files on disk, confined to a root directory.
//
// Confinement holds under races: the backend opens its root once and reaches
// every file through descriptors derived from that one, never following a
// symbolic link (backends/local/beneath.h), so a directory swapped for a link to
// elsewhere between resolve() and the I/O makes the request fail instead of
// leaving the root. lock() excludes other editd processes of the same OS user
// (backends/local/stripe_lock.h); apply_batch() journals multi-file changes, and
// make_local_backend() recovers what a killed editd left before the backend
// serves (backends/local/journal.h, backends/local/runtime_dir.h).
#pragma once

#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "backends/fs_backend.h"

namespace editd {

// The system calls a test can make fail (LocalBackendOptions::inject).
enum class LocalSyscall {
  kMkdir,       // a parent directory of a write
  kCreateTemp,  // the temporary file of a write
  kWrite,       // bytes into the temporary file
  kFsync,       // the temporary file
  kRename,      // the temporary file over its target
  kUnlink,      // a removal
  kJournal,     // a record of apply_batch's journal
};

struct InjectedFault {
  int err = 0;  // non-zero: the call fails with this errno
  // kWrite: the call writes at most this many bytes (a short write).
  std::size_t max_bytes = std::numeric_limits<std::size_t>::max();
};

struct LocalBackendOptions {
  std::string root;  // an existing directory; canonicalised by make_local_backend
  bool read_only = false;
  std::uint64_t max_file_bytes = 64ull << 20;
  // The per-user state directory (lock stripes, registries of temporary
  // files); empty: /tmp/editd-EUID. See backends/local/runtime_dir.h.
  std::string runtime_dir;
  // The durable per-user directory of the journal key; empty: the default
  // (backends/local/journal_key.h).
  std::string state_dir;
  // False (--durability none): no fsync of files, directories or journals. A
  // write is still atomic (a temporary file renamed over the target) and a
  // multi-file patch still whole against a killed process, but a power loss or
  // a kernel crash may lose recent changes (docs/deployment.md).
  bool durable = true;
  // False: walk paths one component at a time even where openat2 exists.
  bool use_openat2 = true;
  // Files up to this size are read, and (without durability) written, on the
  // caller's thread: a few system calls on a local disk cost less than the two
  // thread hops to the pool and back. Larger files and every fsync go to the
  // pool. 0: everything goes to the pool (a root on a network file system).
  std::size_t inline_bytes = 64 * 1024;
  // Tests: asked before each system call that changes the disk, with the call
  // and the file or directory name it is about; the answer can fail it.
  std::function<InjectedFault(LocalSyscall, const std::string& name)> inject;
};

// Blocking work runs on `pool`, which must outlive the backend (small reads
// and writes excepted, see inline_bytes). Fails with
// not_found / io when the root does not exist or is not a directory. Unless
// read-only, recovers the root first: journals of changes that a killed editd
// left are rolled forward or back, and temporary files of dead writers are
// removed (this takes the cross-process locks of the files a journal names, so
// it may wait for another editd's request to finish).
Result<std::unique_ptr<FsBackend>> make_local_backend(LocalBackendOptions options,
                                                      boost::asio::thread_pool& pool);

// errno as its symbolic name ("ENOENT"), for data.errno.
std::string errno_name(int err);

}  // namespace editd
