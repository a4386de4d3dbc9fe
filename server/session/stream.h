// A connection's byte stream, whatever carries it: stdio, a Unix socket or TCP.
//
// Contract: one reader and one writer at a time (a connection has exactly one
// reader coroutine and one writer coroutine), so read_some calls never overlap
// each other, nor do write_all calls; a read and a write may overlap. Every
// call is made on the I/O thread of the stream's connection.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace editd {

class Stream {
 public:
  virtual ~Stream() = default;
  // Some bytes into buf; 0 with ec == eof at end of input, 0 with
  // ec == operation_aborted after cancel_read() or abort().
  virtual boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                        boost::system::error_code& ec) = 0;
  // All of data, or an error.
  virtual boost::asio::awaitable<void> write_all(std::string_view data,
                                                 boost::system::error_code& ec) = 0;
  // Ends the read_some under way, if any, with operation_aborted and no bytes
  // consumed; later reads are unaffected. A write under way is unaffected.
  virtual void cancel_read() = 0;
  // Ends the stream at once: pending reads and writes end with an error and
  // bytes not yet written are lost (a blocking stdout, a file or a terminal,
  // completes the write under way first).
  virtual void abort() = 0;
  // After the last write: ends the output, so that the peer reads EOF after
  // every byte written, then discards input until the peer has taken in every
  // byte written, closes, or `linger` passes. A socket closed with unread input
  // is reset (TCP), which can drop bytes written but not yet delivered; waiting
  // for them and discarding the input meanwhile avoids that.
  virtual boost::asio::awaitable<void> finish(std::chrono::steady_clock::duration linger) = 0;
  // For logs: "stdio", "unix:/path", "tcp:1.2.3.4:5".
  virtual std::string peer() const = 0;
};

// stdin/stdout. Pipes and sockets are driven by the I/O thread directly; any
// other fd (a file, a terminal) through blocking calls on two threads of their
// own, so that it works whatever fd 0 and 1 are.
std::unique_ptr<Stream> make_stdio_stream(boost::asio::any_io_executor ex);

}  // namespace editd
