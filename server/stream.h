// A connection's byte stream, whatever carries it: stdio, a Unix socket or TCP.
//
// Contract: one reader and one writer at a time (a connection has exactly one
// reader coroutine and one writer coroutine), so read_some calls never overlap
// each other, nor do write_all calls; a read and a write may overlap.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/system/error_code.hpp>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace editd {

class Stream {
 public:
  virtual ~Stream() = default;
  // Some bytes into buf; 0 with ec == eof at end of input.
  virtual boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                        boost::system::error_code& ec) = 0;
  // All of data, or an error.
  virtual boost::asio::awaitable<void> write_all(std::string_view data,
                                                 boost::system::error_code& ec) = 0;
  // Stops further I/O; pending operations complete with an error where the
  // medium allows.
  virtual void close() = 0;
  // For logs: "stdio", "unix:/path", "tcp:1.2.3.4:5".
  virtual std::string peer() const = 0;
};

// stdin/stdout. Pipes and sockets are driven by the I/O thread directly; any
// other fd (a file, a terminal) through blocking calls on two threads of their
// own, so that it works whatever fd 0 and 1 are.
std::unique_ptr<Stream> make_stdio_stream(boost::asio::any_io_executor ex);

}  // namespace editd
