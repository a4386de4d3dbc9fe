// ByteBudget: one server-wide bound on the file bytes that requests in flight
// hold, whatever the number of connections and of requests each pipelines.
//
// A request that reads files asks for a hold on what it will keep of them (a
// small multiple of their sizes, operations.cpp) before it reads them; holds
// are granted in the order asked, and one that does not fit beside those
// granted waits until enough are released. A request asking for more than the
// whole budget could never run and is refused at once.
//
// Deadlock-free as used: a request asks once, when it holds every lock chain
// it needs and before it takes the cross-process lock (FsBackend::lock), so a
// holder never waits for a chain that a waiter holds, and every holder of a
// cross-process lock already holds its bytes.
//
// Threading: acquire() and releases may come from any thread; one mutex,
// held only to count and hand over. A waiter resumes by a post to its own
// coroutine's executor.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace editd {

class ByteBudget {
 public:
  explicit ByteBudget(std::uint64_t limit) : limit_(limit) {}
  ByteBudget(const ByteBudget&) = delete;
  ByteBudget& operator=(const ByteBudget&) = delete;

  // Bytes granted to one request, given back when it is destroyed.
  class Hold {
   public:
    Hold() = default;
    Hold(Hold&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) { o.budget_ = nullptr; }
    Hold& operator=(Hold&& o) noexcept;
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() { release(); }
    void release();
    std::uint64_t bytes() const { return bytes_; }
    // Holds `bytes` in all, when that is more than now, without waiting, even
    // past the limit: for a request whose files turned out larger than their
    // sizes said before it read them (a medium that cannot tell; a file that
    // grew), or whose result is larger than its input. What it takes counts,
    // so those after it wait the longer.
    void grow_to(std::uint64_t bytes);
    // Holds `bytes` in all, when that is less than now: the rest goes back.
    void shrink_to(std::uint64_t bytes);

   private:
    friend class ByteBudget;
    Hold(ByteBudget* budget, std::uint64_t bytes) : budget_(budget), bytes_(bytes) {}
    ByteBudget* budget_ = nullptr;
    std::uint64_t bytes_ = 0;
  };

  // A hold on `bytes` now, without waiting, even past the limit: for bytes
  // that must be taken in for anything to go on (an answer a request waits
  // for). What it takes counts, so those after it wait the longer.
  Hold take(std::uint64_t bytes);
  // A hold on `bytes` if it fits now beside those granted and nobody waits
  // before it; nullopt otherwise (the caller may wait with when_room()).
  std::optional<Hold> try_acquire(std::uint64_t bytes);
  // A hold on `bytes`, once it fits beside the holds granted before it (in
  // the order asked); nullopt at once when `bytes` exceeds the whole budget.
  boost::asio::awaitable<std::optional<Hold>> acquire(std::uint64_t bytes);

  // Posts `wake` to `executor` once, at the first give-back after this call
  // that leaves the budget at or under its limit, unless the returned token is
  // dropped first: for a caller of try_acquire() or used() that waits for room,
  // in place of a timer. Register before the look, so that room made between
  // the look and the wait is not missed. One registration per token; dropped
  // tokens are forgotten within a few registrations, so what is kept is bounded
  // by the tokens held. A wake posted just before its token is dropped still
  // runs: it must look whether its caller is still there.
  std::shared_ptr<void> when_room(boost::asio::any_io_executor executor,
                                  std::function<void()> wake);

  // The when_room() registrations kept now, dropped ones not yet forgotten
  // included.
  std::size_t room_waiters() const {
    std::lock_guard lock(mutex_);
    return room_waiters_.size();
  }

  std::uint64_t limit() const { return limit_; }
  // Bytes granted now.
  std::uint64_t used() const {
    std::lock_guard lock(mutex_);
    return used_;
  }

 private:
  struct Waiter {
    std::uint64_t bytes = 0;
    boost::asio::any_io_executor executor;
    std::optional<boost::asio::any_completion_handler<void()>> handler;
    bool granted = false;
  };
  void give_back(std::uint64_t bytes);
  void take_more(std::uint64_t bytes);
  boost::asio::awaitable<void> wait_grant(std::shared_ptr<Waiter> waiter);

  struct RoomWaiter {
    boost::asio::any_io_executor executor;
    std::function<void()> wake;
  };

  const std::uint64_t limit_;
  mutable std::mutex mutex_;
  std::uint64_t used_ = 0;
  std::deque<std::shared_ptr<Waiter>> waiting_;  // in the order asked
  // when_room()'s, in the order asked
  std::vector<std::weak_ptr<RoomWaiter>> room_waiters_;
  std::size_t room_live_ = 0;  // room_waiters_.size() after the last pruning
};

}  // namespace editd
