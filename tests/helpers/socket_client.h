// Test support: a line-oriented JSON-RPC client over a Unix or TCP socket.
#pragma once

#include <arpa/inet.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <thread>

#include "helpers/process.h"

namespace editd::test {

class SocketClient {
 public:
  static std::optional<SocketClient> unix_socket(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      return std::nullopt;
    }
    return SocketClient(fd);
  }
  static std::optional<SocketClient> tcp(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      return std::nullopt;
    }
    return SocketClient(fd);
  }
  SocketClient(SocketClient&& o) noexcept : fd_(o.fd_), buf_(std::move(o.buf_)), next_id_(o.next_id_) { o.fd_ = -1; }
  ~SocketClient() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool send_raw(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool send(const json& m) { return send_raw(m.dump() + "\n"); }
  // Bytes sent that the server has not read yet (SIOCOUTQ: on a Unix socket,
  // what is still queued for the peer); -1 on error.
  int unread_by_peer() const {
    int n = 0;
    return ::ioctl(fd_, SIOCOUTQ, &n) == 0 ? n : -1;
  }
  void close() {
    ::close(fd_);
    fd_ = -1;
  }

  // The next line, or nullopt at EOF or after the deadline.
  std::optional<std::string> read_line(std::chrono::milliseconds deadline = kDeadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    while (true) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      char chunk[65536];
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // Whether bytes (or the end of the connection) are there to read within
  // `deadline`: the first byte of a reply, however long the reply.
  bool readable(std::chrono::milliseconds deadline) {
    if (!buf_.empty()) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(deadline.count())) > 0;
  }
  // A response to a fresh request; nullopt if the connection ended first.
  std::optional<json> call(const std::string& method, json params) {
    json id = next_id_++;
    if (!send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}))
      return std::nullopt;
    while (true) {
      auto line = read_line();
      if (!line) return std::nullopt;
      json m = json::parse(*line);
      if (m.contains("id") && m["id"] == id) return m;
    }
  }

 private:
  explicit SocketClient(int fd) : fd_(fd) {}
  int fd_;
  std::string buf_;
  std::int64_t next_id_ = 1;
};

// Waits for a path to appear (a server creating its socket).
inline bool wait_for_path(const std::string& path) {
  for (int i = 0; i < 2000; ++i) {
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace editd::test
