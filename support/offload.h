// Running blocking work on another thread from a coroutine.
//
// `co_await offload(pool, fn)` runs fn() on the pool and resumes the caller on
// its own executor with fn's result. fn returns a Result<T>; an exception
// thrown by fn becomes an internal Error rather than killing a pool thread.
//
// Until the result is posted back, the work counts as outstanding work of the
// caller's executor: its io_context's run() cannot return, and the context be
// destroyed, while the other thread is still inside that post.
#pragma once

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <type_traits>

#include "edit/error.h"

namespace editd {

// `co_await run_elsewhere(launch, fn)`: launch(task) must run task() once, on
// some thread other than the caller's (a pool, a thread of its own). The
// building block of offload.
//
// Not a coroutine on purpose: GCC 12 mishandles coroutine parameters of
// lambda type, so fn travels as an initiation argument instead.
template <class Launch, class F>
auto run_elsewhere(Launch launch, F fn) {
  using R = std::invoke_result_t<F&>;
  namespace asio = boost::asio;
  return asio::async_initiate<const asio::use_awaitable_t<>, void(R)>(
      [launch = std::move(launch)](auto handler, F fn) mutable {
        auto home = asio::prefer(asio::get_associated_executor(handler),
                                 asio::execution::outstanding_work.tracked);
        launch([fn = std::move(fn), handler = std::move(handler),
                home = std::move(home)]() mutable {
          auto run = [&]() -> R {
            try {
              return fn();
            } catch (const std::exception& e) {
              return Error(ErrorKind::kInternal, std::string("internal error: ") + e.what());
            }
          };
          R result = run();
          asio::post(home, [handler = std::move(handler), result = std::move(result)]() mutable {
            std::move(handler)(std::move(result));
          });
          // `home`, and with it the outstanding work, goes when this task is
          // destroyed: after the post has returned.
        });
      },
      asio::use_awaitable, std::move(fn));
}

template <class F>
auto offload(boost::asio::thread_pool& pool, F fn) {
  return run_elsewhere([&pool](auto task) { boost::asio::post(pool, std::move(task)); },
                       std::move(fn));
}

}  // namespace editd
