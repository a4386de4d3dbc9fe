// The delegated backend: files live in an ACP client's buffers.
//
// An editor that connects as an ACP client and offers fs/read_text_file and
// fs/write_text_file keeps its own view of the files, unsaved changes included.
// This backend reads and writes through those two requests, sent on the
// client's own connection, so that editd's edits land in the editor's buffers
// and never on a disk the editor does not watch. Nothing touches the local
// disk, not even to create a parent directory.
//
// What ACP offers is narrower than a file system, and the backend says so:
// - resolve() is lexical: the path is normalised against the root and refused
//   with outside_root when it leaves it; links are not followed (the client
//   owns the files) and a parent that is a file is the client's to report.
// - There are no directories: stat() reads the file through the client and
//   answers kFile or kMissing, never kDirectory, and is_directory is never
//   reported. A client that fails to read a directory answers with an error,
//   which becomes delegate_failed.
// - remove() has no ACP request: it is refused with denied (not_found when the
//   file does not exist), and can_remove() says so up front. There are no
//   directories to create or remove either.
//
// Threading: runs on the connection's I/O thread, like the connection itself.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/fs_backend.h"

namespace editd {

// The one thing the backend needs from the connection: a request to the client.
class ClientChannel {
 public:
  virtual ~ClientChannel() = default;

  // Sends `method` with `params` to the client and waits for its answer: the
  // result (any JSON, null included) on success. Failures:
  // - the client answered with an error: an Error whose message is the
  //   client's message and whose data holds `code` (and `data` when the client
  //   sent some);
  // - no answer within `timeout`: timeout;
  // - the connection closed first: delegate_failed (no data.code).
  // Other requests and notifications on the connection go on while it waits.
  virtual boost::asio::awaitable<Result<nlohmann::json>> call(
      std::string method, nlohmann::json params, std::chrono::milliseconds timeout) = 0;
};

struct DelegatedBackendOptions {
  std::string root;        // canonical absolute path; every path must lie inside it
  std::string session_id;  // sent in every fs/* request
  std::chrono::milliseconds timeout{30'000};  // --delegate-timeout, per request
  std::uint64_t max_file_bytes = 64ull << 20;
  bool read_only = false;
};

// A backend that calls `client`, which must outlive it. Cheap to make: a
// connection makes one per request, carrying that request's session id.
std::unique_ptr<FsBackend> make_delegated_backend(DelegatedBackendOptions options,
                                                  ClientChannel& client);

}  // namespace editd
