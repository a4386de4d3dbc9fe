#include "support/byte_budget.h"

#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string>
#include <vector>

using namespace editd;
namespace asio = boost::asio;

namespace {

// Holds `bytes` for `yields` turns of the loop, logging "+name" once granted
// and "-name" as it gives them back ("!name" when refused).
asio::awaitable<void> hold(ByteBudget& budget, std::uint64_t bytes, std::string name,
                           std::vector<std::string>& log, int yields) {
  std::optional<ByteBudget::Hold> h = co_await budget.acquire(bytes);
  if (!h) {
    log.push_back("!" + name);
    co_return;
  }
  log.push_back("+" + name);
  for (int i = 0; i < yields; ++i)
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  log.push_back("-" + name);
}

}  // namespace

TEST_CASE("byte budget: holds beyond the limit wait, in the order asked; a big one is not passed") {
  asio::io_context io;
  ByteBudget budget(10);
  std::vector<std::string> log;
  asio::co_spawn(io, hold(budget, 6, "a", log, 3), asio::detached);
  asio::co_spawn(io, hold(budget, 8, "big", log, 1), asio::detached);  // waits for a
  asio::co_spawn(io, hold(budget, 1, "small", log, 1), asio::detached);  // fits, but after big
  asio::co_spawn(io, hold(budget, 11, "never", log, 1), asio::detached);  // refused at once
  io.run();
  CHECK(log == std::vector<std::string>{"+a", "!never", "-a", "+big", "+small", "-big", "-small"});
  CHECK(budget.used() == 0);
}

TEST_CASE("byte budget: a hold grows without waiting, and what it grew by counts") {
  asio::io_context io;
  ByteBudget budget(10);
  std::vector<std::string> log;
  auto grower = [&]() -> asio::awaitable<void> {
    std::optional<ByteBudget::Hold> h = co_await budget.acquire(2);
    REQUIRE(h.has_value());
    h->grow_to(12);  // past the limit: a file larger than its size said
    CHECK(budget.used() == 12);
    h->grow_to(5);  // never shrinks
    CHECK(h->bytes() == 12);
    for (int i = 0; i < 3; ++i)
      co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    log.push_back("-grower");
  };
  asio::co_spawn(io, grower(), asio::detached);
  asio::co_spawn(io, hold(budget, 1, "next", log, 0), asio::detached);
  io.run();
  CHECK(log == std::vector<std::string>{"-grower", "+next", "-next"});
  CHECK(budget.used() == 0);
}

TEST_CASE("byte budget: when_room wakes once, at the first give-back that leaves room") {
  asio::io_context io;
  ByteBudget budget(10);
  ByteBudget::Hold a = budget.take(8), b = budget.take(6);  // 14 of 10
  std::vector<std::string> log;
  auto first = budget.when_room(io.get_executor(), [&] { log.push_back("first"); });
  auto dropped = budget.when_room(io.get_executor(), [&] { log.push_back("dropped"); });
  dropped.reset();
  b.shrink_to(5);  // 13: still over, nobody woken
  io.poll();
  io.restart();
  CHECK(log.empty());
  auto second = budget.when_room(io.get_executor(), [&] { log.push_back("second"); });
  b.release();  // 8: room, in the order asked
  io.poll();
  io.restart();
  CHECK(log == std::vector<std::string>{"first", "second"});
  // Once: a later give-back wakes only those registered since.
  auto third = budget.when_room(io.get_executor(), [&] { log.push_back("third"); });
  a.shrink_to(1);
  io.poll();
  CHECK(log == std::vector<std::string>{"first", "second", "third"});
}

TEST_CASE("byte budget: dropped when_room tokens are not kept, however many come and go") {
  asio::io_context io;
  ByteBudget budget(10);
  ByteBudget::Hold full = budget.take(10);
  int woken = 0;
  auto kept = budget.when_room(io.get_executor(), [&] { ++woken; });
  for (int i = 0; i < 100000; ++i) budget.when_room(io.get_executor(), [&] { woken += 1000; });
  CHECK(budget.room_waiters() <= 2 * 1 + 16);
  full.release();
  io.poll();
  CHECK(woken == 1);
}
