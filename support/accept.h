// Listening and accepting without leaking descriptors to the children editd
// starts (checkers, language servers): every listening and accepted socket
// is close-on-exec from its first instant. For every listener (server/
// server.cpp, server/review/server.cpp).
#pragma once

#include <fcntl.h>
#include <sys/socket.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <optional>
#include <spdlog/spdlog.h>
#include <tuple>

namespace editd {

// Waits for a connection on `acceptor` and takes it with accept4(SOCK_CLOEXEC):
// Asio's own accept leaves the descriptor inheritable by the checkers and
// language servers editd starts, which would then hold client connections
// open after editd closed them. The error is the accept's
// (connection_aborted included); the descriptor is -1 then.
template <class Acceptor>
boost::asio::awaitable<std::tuple<boost::system::error_code, int>> accept_cloexec(Acceptor& acceptor) {
  for (;;) {
    auto [ec] =
        co_await acceptor.async_wait(Acceptor::wait_read, boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) co_return std::tuple{ec, -1};
    const int fd = ::accept4(acceptor.native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) co_return std::tuple{boost::system::error_code(), fd};
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      co_return std::tuple{boost::system::error_code(errno, boost::system::system_category()), -1};
  }
}

// An accepted descriptor as a socket of `io`, the context of the I/O thread
// chosen for its connection (chosen once accepted, when the server knows
// which connections are still open). nullopt, with a log line, if it cannot
// be: the connection is dropped.
template <class Socket>
std::optional<Socket> adopt(int fd, boost::asio::io_context& io, typename Socket::protocol_type protocol) {
  boost::system::error_code ec;
  try {
    Socket socket(io);
    socket.assign(protocol, fd, ec);
    if (!ec) return socket;
  } catch (const boost::system::system_error& e) {
    ec = e.code();
  }
  ::close(fd);
  spdlog::warn("accepting a connection: {}", ec.message());
  return std::nullopt;
}

// A listening socket is not inherited by editd's children either.
template <class Acceptor>
void close_on_exec(Acceptor& acceptor, boost::system::error_code& ec) {
  if (ec) return;
  acceptor.non_blocking(true, ec);
  if (!ec && ::fcntl(acceptor.native_handle(), F_SETFD, FD_CLOEXEC) != 0)
    ec.assign(errno, boost::system::system_category());
}

}  // namespace editd
