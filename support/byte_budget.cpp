#include "support/byte_budget.h"

#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>
#include <vector>

namespace editd {

ByteBudget::Hold& ByteBudget::Hold::operator=(Hold&& o) noexcept {
  if (this != &o) {
    release();
    budget_ = std::exchange(o.budget_, nullptr);
    bytes_ = o.bytes_;
  }
  return *this;
}

void ByteBudget::Hold::release() {
  if (budget_) std::exchange(budget_, nullptr)->give_back(bytes_);
}

void ByteBudget::Hold::grow_to(std::uint64_t bytes) {
  if (!budget_ || bytes <= bytes_) return;
  budget_->take_more(bytes - bytes_);
  bytes_ = bytes;
}

void ByteBudget::Hold::shrink_to(std::uint64_t bytes) {
  if (!budget_ || bytes >= bytes_) return;
  budget_->give_back(bytes_ - bytes);
  bytes_ = bytes;
}

void ByteBudget::take_more(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  used_ += bytes;
}

ByteBudget::Hold ByteBudget::take(std::uint64_t bytes) {
  take_more(bytes);
  return Hold(this, bytes);
}

std::optional<ByteBudget::Hold> ByteBudget::try_acquire(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (!waiting_.empty() || used_ + bytes > limit_) return std::nullopt;
  used_ += bytes;
  return Hold(this, bytes);
}

boost::asio::awaitable<std::optional<ByteBudget::Hold>> ByteBudget::acquire(std::uint64_t bytes) {
  if (bytes > limit_) co_return std::nullopt;
  auto waiter = std::make_shared<Waiter>();
  waiter->bytes = bytes;
  waiter->executor = co_await boost::asio::this_coro::executor;
  {
    std::lock_guard lock(mutex_);
    if (waiting_.empty() && used_ + bytes <= limit_) {
      used_ += bytes;
      co_return Hold(this, bytes);
    }
    waiting_.push_back(waiter);
  }
  co_await wait_grant(waiter);
  co_return Hold(this, bytes);
}

// Not a coroutine, and no lambda inside a co_await expression (GCC 12): see
// LockChains::wait_turn.
boost::asio::awaitable<void> ByteBudget::wait_grant(std::shared_ptr<Waiter> waiter) {
  struct Initiation {
    ByteBudget* budget;
    std::shared_ptr<Waiter> waiter;
    void operator()(boost::asio::any_completion_handler<void()> handler) const {
      {
        std::lock_guard lock(budget->mutex_);
        if (!waiter->granted) {
          waiter->handler.emplace(std::move(handler));
          return;
        }
      }
      boost::asio::post(waiter->executor, std::move(handler));
    }
  };
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
      Initiation{this, std::move(waiter)}, boost::asio::use_awaitable);
}

std::shared_ptr<void> ByteBudget::when_room(boost::asio::any_io_executor executor,
                                            std::function<void()> wake) {
  auto waiter = std::make_shared<RoomWaiter>(RoomWaiter{std::move(executor), std::move(wake)});
  std::lock_guard lock(mutex_);
  // Tokens dropped without a give-back in between: pruned once they could
  // be half of what is kept.
  if (room_waiters_.size() >= 2 * room_live_ + 16) {
    std::erase_if(room_waiters_, [](const std::weak_ptr<RoomWaiter>& w) { return w.expired(); });
    room_live_ = room_waiters_.size();
  }
  room_waiters_.push_back(waiter);
  return waiter;
}

void ByteBudget::give_back(std::uint64_t bytes) {
  std::vector<std::pair<boost::asio::any_io_executor, boost::asio::any_completion_handler<void()>>>
      ready;
  std::vector<std::weak_ptr<RoomWaiter>> room;
  {
    std::lock_guard lock(mutex_);
    used_ -= bytes;
    if (used_ <= limit_ && !room_waiters_.empty()) {
      room.swap(room_waiters_);
      room_live_ = 0;
    }
    // In the order asked: a large request at the head is not passed by small
    // ones, so it cannot starve.
    while (!waiting_.empty() && used_ + waiting_.front()->bytes <= limit_) {
      Waiter& w = *waiting_.front();
      used_ += w.bytes;
      w.granted = true;
      if (w.handler) {
        ready.emplace_back(w.executor, std::move(*w.handler));
        w.handler.reset();
      }
      waiting_.pop_front();
    }
  }
  for (auto& [executor, handler] : ready) boost::asio::post(executor, std::move(handler));
  for (const std::weak_ptr<RoomWaiter>& w : room)
    if (std::shared_ptr<RoomWaiter> waiter = w.lock())
      boost::asio::post(waiter->executor, waiter->wake);
}

}  // namespace editd
