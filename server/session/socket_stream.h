// A connection's stream (stream.h) over an accepted Unix or TCP socket.
#pragma once

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <memory>

#include "server/session/stream.h"

namespace editd {

std::unique_ptr<Stream> make_socket_stream(boost::asio::local::stream_protocol::socket socket,
                                           std::string peer);
std::unique_ptr<Stream> make_socket_stream(boost::asio::ip::tcp::socket socket, std::string peer);

}  // namespace editd
