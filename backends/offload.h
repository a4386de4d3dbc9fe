// Running blocking work on a thread pool from a coroutine.
//
// `co_await offload(pool, fn)` runs fn() on the pool and resumes the caller on
// its own executor with fn's result. fn returns a Result<T>; an exception
// thrown by fn becomes an internal Error rather than killing a pool thread.
#pragma once

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <type_traits>

#include "protocol/error.h"

namespace editd {

// Not a coroutine on purpose: GCC 12 mishandles coroutine parameters of
// lambda type, so fn travels as an initiation argument instead.
template <class F>
auto offload(boost::asio::thread_pool& pool, F fn) {
  using R = std::invoke_result_t<F&>;
  namespace asio = boost::asio;
  return asio::async_initiate<const asio::use_awaitable_t<>, void(R)>(
      [&pool](auto handler, F fn) {
        asio::post(pool, [fn = std::move(fn), handler = std::move(handler)]() mutable {
          auto run = [&]() -> R {
            try {
              return fn();
            } catch (const std::exception& e) {
              return Error(ErrorKind::kInternal, std::string("internal error: ") + e.what());
            }
          };
          R result = run();
          auto ex = asio::get_associated_executor(handler);
          asio::post(ex, [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
          });
        });
      },
      asio::use_awaitable, std::move(fn));
}

}  // namespace editd
