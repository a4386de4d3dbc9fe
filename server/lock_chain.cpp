#include "server/lock_chain.h"

#include <algorithm>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <optional>

namespace editd {

struct LockChains::Waiter {
  boost::asio::any_io_executor executor;  // the waiting coroutine's
  Mode mode = Mode::kExclusive;
  std::size_t missing = 0;
  std::optional<boost::asio::any_completion_handler<void()>> handler;
};

// Not a coroutine, and no lambda inside a co_await expression: GCC 12
// mis-destroys such captures. The waiter outlives the wait (the queue and the
// caller's frame hold it).
boost::asio::awaitable<void> LockChains::wait_turn(Waiter* waiter) {
  struct Initiation {
    LockChains* chains;
    Waiter* waiter;
    void operator()(boost::asio::any_completion_handler<void()> handler) const {
      {
        std::lock_guard lock(chains->mutex_);
        // Still missing a key: the release that hands over the last one posts it.
        if (waiter->missing > 0) {
          waiter->handler.emplace(std::move(handler));
          return;
        }
      }
      // Every key was handed over between lock() and this wait.
      boost::asio::post(waiter->executor, std::move(handler));
    }
  };
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
      Initiation{this, waiter}, boost::asio::use_awaitable);
}

LockChains::Guard& LockChains::Guard::operator=(Guard&& o) noexcept {
  if (this != &o) {
    release();
    chains_ = o.chains_;
    keys_ = std::move(o.keys_);
    mode_ = o.mode_;
    o.chains_ = nullptr;
  }
  return *this;
}

void LockChains::Guard::release() {
  if (chains_) {
    chains_->release(keys_, mode_);
    chains_ = nullptr;
  }
}

namespace {

// Whether a waiter in `mode` may hold `chain` now, with nobody queued before it.
template <class Chain, class Mode>
bool compatible(const Chain& chain, Mode mode) {
  if (chain.exclusive_held) return false;
  return mode == Mode::kShared || chain.shared_holders == 0;
}

template <class Chain, class Mode>
void take(Chain& chain, Mode mode) {
  if (mode == Mode::kShared)
    ++chain.shared_holders;
  else
    chain.exclusive_held = true;
}

}  // namespace

boost::asio::awaitable<LockChains::Guard> LockChains::lock(std::vector<std::string> keys,
                                                           Mode mode) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  auto waiter = std::make_shared<Waiter>();
  waiter->executor = co_await boost::asio::this_coro::executor;
  waiter->mode = mode;
  bool wait = false;
  {
    std::lock_guard lock(mutex_);
    for (const std::string& key : keys) {
      Chain& chain = chains_[key];
      // Held at once when nobody waits and the holders allow it; otherwise
      // queued behind those who came first.
      if (chain.head == chain.queue.size() && compatible(chain, mode)) {
        take(chain, mode);
      } else {
        chain.queue.push_back(waiter);
        ++waiter->missing;
      }
    }
    wait = waiter->missing > 0;
  }
  if (wait) co_await wait_turn(waiter.get());
  co_return Guard(this, std::move(keys), mode);
}

void LockChains::release(const std::vector<std::string>& keys, Mode mode) {
  // Posted after the mutex is released; one handler per waiter that now holds
  // all its keys.
  std::vector<std::pair<boost::asio::any_io_executor, boost::asio::any_completion_handler<void()>>>
      ready;
  std::unique_lock lock(mutex_);
  for (const std::string& key : keys) {
    auto it = chains_.find(key);
    if (it == chains_.end()) continue;
    Chain& chain = it->second;
    if (mode == Mode::kShared)
      --chain.shared_holders;
    else
      chain.exclusive_held = false;
    // Hand the chain on in arrival order: the next exclusive waiter alone, or
    // every shared waiter up to the next exclusive one. Each runs once it
    // holds all its keys.
    while (chain.head < chain.queue.size()) {
      Waiter& next = *chain.queue[chain.head];
      if (!compatible(chain, next.mode)) break;
      take(chain, next.mode);
      if (--next.missing == 0 && next.handler) {
        ready.emplace_back(next.executor, std::move(*next.handler));
        next.handler.reset();
      }
      chain.queue[chain.head++].reset();
    }
    if (chain.head == chain.queue.size()) {
      chain.queue.clear();
      chain.head = 0;
      if (chain.shared_holders == 0 && !chain.exclusive_held) chains_.erase(it);
    }
  }
  lock.unlock();
  // Each to its own coroutine's executor: the waiter's connection may be
  // served by another thread.
  for (auto& [executor, handler] : ready) boost::asio::post(executor, std::move(handler));
}

}  // namespace editd
