// The operations over the memory backend, in this process: a call made on a
// fresh RequestContext and run to its end.
#pragma once

#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <memory>
#include <optional>

#include "backends/memory/memory_backend.h"
#include "server/ops/operations.h"

namespace editd::test {

struct InProcess {
  boost::asio::io_context io;
  boost::asio::thread_pool pool{1};
  OpsOptions options;
  LockChains locks;
  Operations ops{options, locks, pool};
  MemoryBackend backend;

  // `call(ctx)`'s awaitable, run to its end: what it gave.
  template <class Call>
  auto run(Call call) {
    RequestContext ctx{backend, std::make_shared<CancelState>(), nullptr, nullptr};
    using T = typename decltype(call(ctx))::value_type;
    std::optional<T> out;
    boost::asio::co_spawn(io, call(ctx), [&out](std::exception_ptr e, T value) {
      if (e) std::rethrow_exception(e);
      out.emplace(std::move(value));
    });
    io.restart();
    io.run();
    REQUIRE(out.has_value());
    return std::move(*out);
  }
};

}  // namespace editd::test
