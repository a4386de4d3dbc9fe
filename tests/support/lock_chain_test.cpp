#include "support/lock_chain.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace editd;
namespace asio = boost::asio;

namespace {

// Takes the keys, records `name` on entry, yields a few times, records on exit.
asio::awaitable<void> hold(LockChains& locks, std::vector<std::string> keys, std::string name,
                           std::vector<std::string>& log, int yields,
                           LockChains::Mode mode = LockChains::Mode::kExclusive) {
  LockChains::Guard g = co_await locks.lock(std::move(keys), mode);
  log.push_back("+" + name);
  for (int i = 0; i < yields; ++i) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  log.push_back("-" + name);
}

}  // namespace

TEST_CASE("operations on one key run one at a time in arrival order") {
  asio::io_context io;
  LockChains locks;
  std::vector<std::string> log;
  for (const char* n : {"a", "b", "c"})
    asio::co_spawn(io, hold(locks, {"/f"}, n, log, 3), asio::detached);
  io.run();
  CHECK(log == std::vector<std::string>{"+a", "-a", "+b", "-b", "+c", "-c"});
  CHECK(locks.size() == 0);
}

TEST_CASE("reads of one key run together; a mutation runs alone, and what came after waits") {
  asio::io_context io;
  LockChains locks;
  std::vector<std::string> log;
  constexpr auto kShared = LockChains::Mode::kShared;
  asio::co_spawn(io, hold(locks, {"/f"}, "r1", log, 3, kShared), asio::detached);
  asio::co_spawn(io, hold(locks, {"/f"}, "r2", log, 1, kShared), asio::detached);
  asio::co_spawn(io, hold(locks, {"/f"}, "w", log, 1), asio::detached);
  // r3 could share with r1 and r2, but w arrived first.
  asio::co_spawn(io, hold(locks, {"/f"}, "r3", log, 1, kShared), asio::detached);
  asio::co_spawn(io, hold(locks, {"/f"}, "r4", log, 2, kShared), asio::detached);
  asio::co_spawn(io, hold(locks, {"/f", "/g"}, "w2", log, 1), asio::detached);
  io.run();
  CHECK(log == std::vector<std::string>{"+r1", "+r2", "-r2", "-r1", "+w", "-w", "+r3", "+r4", "-r3",
                                        "-r4", "+w2", "-w2"});
  CHECK(locks.size() == 0);
}

TEST_CASE("operations on different keys overlap") {
  asio::io_context io;
  LockChains locks;
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
  LockChains locks;
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
  LockChains locks;
  std::vector<std::string> log;
  for (int i = 0; i < 1000; ++i)
    asio::co_spawn(io, hold(locks, {"/file" + std::to_string(i)}, "n", log, 0), asio::detached);
  io.run();
  CHECK(log.size() == 2000);
  CHECK(locks.size() == 0);
}

TEST_CASE("a repeated key in one request is taken once") {
  asio::io_context io;
  LockChains locks;
  std::vector<std::string> log;
  asio::co_spawn(io, hold(locks, {"/a", "/a"}, "dup", log, 1), asio::detached);
  io.run();
  CHECK(log == std::vector<std::string>{"+dup", "-dup"});
  CHECK(locks.size() == 0);
}

namespace {

// Like hold(), in a place among its connection's, after `delay` yields
// before it locks (apply_patch parsing a big patch on the pool).
asio::awaitable<void> hold_in_place(LockChains& locks, Arrivals::Place place, int delay,
                                    std::vector<std::string> keys, std::string name,
                                    std::vector<std::string>& log, LockChains::Mode mode) {
  for (int i = 0; i < delay; ++i)
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  LockChains::Guard g = co_await locks.lock(std::move(keys), mode, &place);
  log.push_back("+" + name);
  co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  log.push_back("-" + name);
}

}  // namespace

TEST_CASE(
    "a connection's requests join the chains in the order they arrived, even when the first waits "
    "before it locks") {
  asio::io_context io;
  LockChains locks;
  auto arrivals = Arrivals::make();
  std::vector<std::string> log;
  constexpr auto kShared = LockChains::Mode::kShared;
  constexpr auto kExclusive = LockChains::Mode::kExclusive;
  // The patch waits five turns before it locks; the read and the edit after
  // it would lock at once.
  asio::co_spawn(io,
                 hold_in_place(locks, arrivals->take(), 5, {"/f", "/g"}, "patch", log, kExclusive),
                 asio::detached);
  asio::co_spawn(io, hold_in_place(locks, arrivals->take(), 0, {"/f"}, "read", log, kShared),
                 asio::detached);
  asio::co_spawn(io, hold_in_place(locks, arrivals->take(), 0, {"/g"}, "edit", log, kExclusive),
                 asio::detached);
  io.run();
  // The read and the edit then run together: they share no key.
  REQUIRE(log.size() == 6);
  CHECK(std::vector<std::string>(log.begin(), log.begin() + 2) ==
        std::vector<std::string>{"+patch", "-patch"});
  std::vector<std::string> rest(log.begin() + 2, log.end());
  std::sort(rest.begin(), rest.end());
  CHECK(rest == std::vector<std::string>{"+edit", "+read", "-edit", "-read"});
  CHECK(locks.size() == 0);
}

TEST_CASE("a place passed without locking lets the next request go on, in any order of passing") {
  asio::io_context io;
  LockChains locks;
  auto arrivals = Arrivals::make();
  std::vector<std::string> log;
  Arrivals::Place first = arrivals->take(), second = arrivals->take();
  asio::co_spawn(
      io,
      hold_in_place(locks, arrivals->take(), 0, {"/f"}, "third", log, LockChains::Mode::kExclusive),
      asio::detached);
  io.poll();
  CHECK(log.empty());  // two places before it are not passed
  second.pass();
  io.poll();
  CHECK(log.empty());
  first.pass();  // both passed now
  io.run();
  CHECK(log == std::vector<std::string>{"+third", "-third"});
  // Places taken later, and passing twice, change nothing.
  Arrivals::Place fourth = arrivals->take();
  fourth.pass();
  fourth.pass();
  CHECK(fourth.passed());
}

TEST_CASE("after_earlier waits until every earlier request has ended, not only joined") {
  asio::io_context io;
  auto arrivals = Arrivals::make();
  auto first = std::make_unique<Arrivals::Place>(arrivals->take());
  auto second = std::make_unique<Arrivals::Place>(arrivals->take());
  Arrivals::Place third = arrivals->take();
  bool done = false;
  asio::co_spawn(
      io,
      [](Arrivals::Place& place, bool& done) -> asio::awaitable<void> {
        co_await place.after_earlier();
        done = true;
      }(third, done),
      asio::detached);
  first->pass();
  second->pass();
  io.poll();
  CHECK_FALSE(done);  // both joined, neither ended
  second.reset();
  io.poll();
  CHECK_FALSE(done);
  first.reset();  // both ended now
  io.run();
  CHECK(done);
}

TEST_CASE("a request that never ends keeps only itself tracked, however many end after it") {
  auto arrivals = Arrivals::make();
  Arrivals::Place pending = arrivals->take();  // e.g. waiting for an approval
  pending.pass();
  for (int i = 0; i < 1000; ++i) arrivals->take();  // taken, passed and ended at once
  CHECK(arrivals->tracked() == 1);                  // `pending`, not yet ended
}

namespace {

// Several threads, each running its own io_context, take overlapping sets of
// keys: no two holders of one key at once, and each waiter resumes on its own
// context's thread.
struct Shared {
  // Holders of /0, /1, /2: readers, and writers (exclusive).
  std::array<std::atomic<int>, 3> readers{}, writers{};
  std::atomic<int> overlaps{0}, foreign{0}, done{0};
};

asio::awaitable<void> contend(LockChains& locks, Shared& shared, std::thread::id home, int seed) {
  for (int round = 0; round < 200; ++round) {
    int pick = (seed * 7 + round * 3) % 7 + 1;  // a non-empty subset of three keys
    std::vector<std::string> keys;
    for (int k = 0; k < 3; ++k)
      if (pick & (1 << k)) keys.push_back("/" + std::to_string(k));
    const bool write = (seed + round) % 3 == 0;
    LockChains::Guard g =
        co_await locks.lock(keys, write ? LockChains::Mode::kExclusive : LockChains::Mode::kShared);
    if (std::this_thread::get_id() != home) ++shared.foreign;
    for (int k = 0; k < 3; ++k) {
      if (!(pick & (1 << k))) continue;
      if (write ? shared.writers[k]++ != 0 || shared.readers[k] != 0
                : (++shared.readers[k], shared.writers[k] != 0))
        ++shared.overlaps;
    }
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
    for (int k = 0; k < 3; ++k)
      if (pick & (1 << k)) --(write ? shared.writers[k] : shared.readers[k]);
  }
  ++shared.done;
}

}  // namespace

TEST_CASE("holders on several threads: writers alone, readers together, each on its own thread") {
  LockChains locks;
  Shared shared;
  constexpr int kThreads = 4, kPerThread = 3;
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) contexts.push_back(std::make_unique<asio::io_context>(1));
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i)
        asio::co_spawn(*contexts[t],
                       contend(locks, shared, std::this_thread::get_id(), t * kPerThread + i),
                       asio::detached);
      contexts[t]->run_for(std::chrono::seconds(60));  // a lost wake fails, not hangs
    });
  for (auto& th : threads) th.join();
  CHECK(shared.done == kThreads * kPerThread);
  CHECK(shared.overlaps == 0);
  CHECK(shared.foreign == 0);
  CHECK(locks.size() == 0);
}
