// The review page's web server (`editd review`, `editd --review`): the page
// and its API (server/review/api.h) over HTTP/1.1 (Boost.Beast), on a thread
// of its own, for a person at a browser on this machine.
//
// A local server that can write files is an attack surface, and every
// request is treated as hostile:
// - loopback unless told otherwise (a warning then);
// - a random token (256 bits, printed once in the page's URL) on every
//   request, the live channel too: `?token=` or the X-Editd-Token header;
// - the Host header must name this server as loopback or its listen address
//   (no DNS rebinding);
// - a state change is a POST with the token in its X-Editd-Token header, a
//   JSON body, and no other origin (Origin, Sec-Fetch-Site): a form or an
//   image on another site cannot make one;
// - every response has a strict Content-Security-Policy (no inline script,
//   nothing from elsewhere), nosniff, no referrer, no framing, no caching;
// - bounded: headers 16 KiB, bodies 1 MiB, kMaxConnections connections,
//   kMaxStreams live channels, an idle connection closed after 30 s;
// - --read-only: the page without its buttons, and every POST refused.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"

namespace editd {

class Operations;
class FsBackend;

namespace review {

inline constexpr std::size_t kMaxConnections = 64;
inline constexpr std::size_t kMaxStreams = 16;
inline constexpr std::size_t kMaxBody = 1 << 20;

struct ReviewOptions {
  std::string listen = "127.0.0.1:0";  // HOST:PORT; port 0 picks one
  bool read_only = false;
};

// The checks every request passes before it is served, apart from the
// server for the unit tests.
struct Gate {
  std::string token;               // 64 hex digits
  std::vector<std::string> hosts;  // Host values that name this server
  bool read_only = false;

  struct Request {
    std::string_view method;        // "GET", "POST"...
    std::string_view path;          // "/api/runs"
    std::optional<std::string> query_token;
    std::optional<std::string_view> header_token;
    std::optional<std::string_view> host;
    std::optional<std::string_view> origin;
    std::optional<std::string_view> fetch_site;  // Sec-Fetch-Site
    std::optional<std::string_view> content_type;
  };
  struct Refusal {
    unsigned status;  // 403, 405, 415
    std::string message;
  };
  std::optional<Refusal> check(const Request& r) const;
};

// The root as the ledger knows it: its real path (the path itself when it
// has none).
std::string canonical_root(const std::string& root);

class ReviewServer {
 public:
  // Binds options.listen and serves the ledger of `root` (ops' ledger;
  // reverts run through ops on `backend`) until destroyed. invalid_params
  // for a bad address, io when it cannot bind or the ledger cannot be
  // opened, unsupported under --ledger off.
  static Result<std::unique_ptr<ReviewServer>> start(const ReviewOptions& options,
                                                     Operations& ops, FsBackend& backend,
                                                     std::string root);
  ~ReviewServer();

  // http://127.0.0.1:PORT/?token=TOKEN
  const std::string& url() const;

 private:
  struct Impl;
  explicit ReviewServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace review
}  // namespace editd
