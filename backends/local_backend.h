// The local POSIX backend: files on disk, confined to a root directory.
#pragma once

#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "backends/fs_backend.h"

namespace editd {

struct LocalBackendOptions {
  std::string root;  // an existing directory; canonicalised by make_local_backend
  bool read_only = false;
  std::uint64_t max_file_bytes = 64ull << 20;
};

// Blocking work runs on `pool`, which must outlive the backend. Fails with
// not_found / io when the root does not exist or is not a directory.
Result<std::unique_ptr<FsBackend>> make_local_backend(LocalBackendOptions options,
                                                      boost::asio::thread_pool& pool);

// errno as its symbolic name ("ENOENT"), for data.errno.
std::string errno_name(int err);

}  // namespace editd
