#include "server/lock_chain.h"

#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string>
#include <vector>

using namespace editd;
namespace asio = boost::asio;

namespace {

// Takes the keys, records `name` on entry, yields a few times, records on exit.
asio::awaitable<void> hold(LockChains& locks, std::vector<std::string> keys, std::string name,
                           std::vector<std::string>& log, int yields) {
  LockChains::Guard g = co_await locks.lock(std::move(keys));
  log.push_back("+" + name);
  for (int i = 0; i < yields; ++i) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  log.push_back("-" + name);
}

}  // namespace

TEST_CASE("operations on one key run one at a time in arrival order") {
  asio::io_context io;
  LockChains locks(io.get_executor());
  std::vector<std::string> log;
  for (const char* n : {"a", "b", "c"})
    asio::co_spawn(io, hold(locks, {"/f"}, n, log, 3), asio::detached);
  io.run();
  CHECK(log == std::vector<std::string>{"+a", "-a", "+b", "-b", "+c", "-c"});
  CHECK(locks.size() == 0);
}

TEST_CASE("operations on different keys overlap") {
  asio::io_context io;
  LockChains locks(io.get_executor());
  std::vector<std::string> log;
  asio::co_spawn(io, hold(locks, {"/x"}, "x", log, 5), asio::detached);
  asio::co_spawn(io, hold(locks, {"/y"}, "y", log, 1), asio::detached);
  io.run();
  // y starts before x ends and ends first.
  REQUIRE(log.size() == 4);
  CHECK(log[0] == "+x");
  CHECK(log[1] == "+y");
  CHECK(log[2] == "-y");
  CHECK(log[3] == "-x");
}

TEST_CASE("multi-key holders keep arrival order on every key and never deadlock") {
  asio::io_context io;
  LockChains locks(io.get_executor());
  std::vector<std::string> log;
  asio::co_spawn(io, hold(locks, {"/a"}, "first", log, 3), asio::detached);
  asio::co_spawn(io, hold(locks, {"/b", "/a"}, "both", log, 1), asio::detached);
  asio::co_spawn(io, hold(locks, {"/b"}, "later", log, 1), asio::detached);
  asio::co_spawn(io, hold(locks, {"/a", "/b"}, "both2", log, 1), asio::detached);
  io.run();
  // "later" arrived after "both" on /b, so it waits for it even though /b was free.
  CHECK(log == std::vector<std::string>{"+first", "-first", "+both", "-both", "+later", "-later",
                                        "+both2", "-both2"});
  CHECK(locks.size() == 0);
}

TEST_CASE("idle chains are dropped") {
  asio::io_context io;
  LockChains locks(io.get_executor());
  std::vector<std::string> log;
  for (int i = 0; i < 1000; ++i)
    asio::co_spawn(io, hold(locks, {"/file" + std::to_string(i)}, "n", log, 0), asio::detached);
  io.run();
  CHECK(log.size() == 2000);
  CHECK(locks.size() == 0);
}

TEST_CASE("a repeated key in one request is taken once") {
  asio::io_context io;
  LockChains locks(io.get_executor());
  std::vector<std::string> log;
  asio::co_spawn(io, hold(locks, {"/a", "/a"}, "dup", log, 1), asio::detached);
  io.run();
  CHECK(log == std::vector<std::string>{"+dup", "-dup"});
  CHECK(locks.size() == 0);
}
