#include "server/session/socket_stream.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace editd {
namespace {

namespace asio = boost::asio;

// How often a closing connection checks whether its peer has taken in every byte.
constexpr std::chrono::milliseconds kLingerTick{20};

template <class Socket>
class SocketStream final : public Stream {
 public:
  SocketStream(Socket socket, std::string peer) : socket_(std::move(socket)), peer_(std::move(peer)) {}

  asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                         boost::system::error_code& ec) override {
    co_return co_await socket_.async_read_some(
        asio::buffer(buf.data(), buf.size()),
        asio::bind_cancellation_slot(read_cancel_.slot(),
                                     asio::redirect_error(asio::use_awaitable, ec)));
  }

  asio::awaitable<void> write_all(std::string_view data, boost::system::error_code& ec) override {
    co_await asio::async_write(socket_, asio::buffer(data.data(), data.size()),
                               asio::redirect_error(asio::use_awaitable, ec));
  }

  void cancel_read() override { read_cancel_.emit(asio::cancellation_type::terminal); }

  void abort() override {
    boost::system::error_code ignored;
    socket_.cancel(ignored);
    socket_.shutdown(Socket::shutdown_both, ignored);
  }

  asio::awaitable<void> finish(std::chrono::steady_clock::duration linger) override {
    using namespace asio::experimental::awaitable_operators;
    boost::system::error_code ec;
    socket_.shutdown(Socket::shutdown_send, ec);
    if (ec) co_return;
    const auto deadline = std::chrono::steady_clock::now() + linger;
    asio::steady_timer tick(socket_.get_executor());
    std::array<char, 16384> sink;
    while (true) {
      const auto now = std::chrono::steady_clock::now();
      if (unsent() == 0 || now >= deadline) co_return;
      tick.expires_after(std::min<std::chrono::steady_clock::duration>(kLingerTick, deadline - now));
      // Input is dropped; its end means the peer has read all it wants.
      auto r = co_await (socket_.async_read_some(asio::buffer(sink), asio::as_tuple(asio::use_awaitable)) ||
                         tick.async_wait(asio::as_tuple(asio::use_awaitable)));
      if (r.index() == 0 && std::get<0>(std::get<0>(r))) co_return;
    }
  }

  std::string peer() const override { return peer_; }

 private:
  // Bytes written that the peer has not taken in yet: not acknowledged (TCP),
  // not read (Unix).
  int unsent() const {
    int n = 0;
    return ::ioctl(const_cast<Socket&>(socket_).native_handle(), SIOCOUTQ, &n) == 0 ? n : 0;
  }

  Socket socket_;
  std::string peer_;
  asio::cancellation_signal read_cancel_;
};

}  // namespace

std::unique_ptr<Stream> make_socket_stream(boost::asio::local::stream_protocol::socket socket,
                                           std::string peer) {
  return std::make_unique<SocketStream<boost::asio::local::stream_protocol::socket>>(
      std::move(socket), std::move(peer));
}

std::unique_ptr<Stream> make_socket_stream(boost::asio::ip::tcp::socket socket, std::string peer) {
  return std::make_unique<SocketStream<boost::asio::ip::tcp::socket>>(std::move(socket),
                                                                       std::move(peer));
}

}  // namespace editd
