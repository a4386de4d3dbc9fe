#include "server/socket_stream.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

namespace editd {
namespace {

template <class Socket>
class SocketStream final : public Stream {
 public:
  SocketStream(Socket socket, std::string peer) : socket_(std::move(socket)), peer_(std::move(peer)) {}

  boost::asio::awaitable<std::size_t> read_some(std::span<char> buf,
                                                boost::system::error_code& ec) override {
    co_return co_await socket_.async_read_some(
        boost::asio::buffer(buf.data(), buf.size()),
        boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }

  boost::asio::awaitable<void> write_all(std::string_view data,
                                         boost::system::error_code& ec) override {
    co_await boost::asio::async_write(socket_, boost::asio::buffer(data.data(), data.size()),
                                      boost::asio::redirect_error(boost::asio::use_awaitable, ec));
  }

  void close() override {
    boost::system::error_code ignored;
    // Ends the pending read with EOF; replies still in the queue go out.
    socket_.shutdown(Socket::shutdown_receive, ignored);
  }

  std::string peer() const override { return peer_; }

 private:
  Socket socket_;
  std::string peer_;
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
