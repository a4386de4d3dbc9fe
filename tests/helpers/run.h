// Test support: runs a coroutine to completion on a fresh io_context.
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <utility>

namespace editd::test {

template <class T>
T run(boost::asio::io_context& io, boost::asio::awaitable<T> task) {
  auto future = boost::asio::co_spawn(io, std::move(task), boost::asio::use_future);
  io.restart();
  io.run();
  return future.get();
}

}  // namespace editd::test
