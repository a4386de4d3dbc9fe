// Test support: editd serving a fresh root on a Unix socket of its own, for
// the integration tests that connect several clients.
#pragma once

#include <string>
#include <vector>

#include "helpers/process.h"
#include "helpers/socket_client.h"

namespace editd::test {

struct UnixServer {
  TempDir root;
  TempDir run_dir;
  std::string socket = (run_dir.path() / "editd.sock").string();
  Process process;
  explicit UnixServer(std::vector<std::string> extra = {}) : process(EDITD_BINARY, args(extra)) {
    REQUIRE_MESSAGE(wait_for_path(socket), "no socket; stderr: " << process.stderr_text());
  }
  std::vector<std::string> args(std::vector<std::string> extra) {
    std::vector<std::string> a{"--root", root.str(), "--listen", "unix:" + socket};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  SocketClient client() {
    auto c = SocketClient::unix_socket(socket);
    REQUIRE(c.has_value());
    return std::move(*c);
  }
};

// How many times `needle` occurs in `haystack` (overlapping ones too).
inline std::size_t count_of(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace editd::test
