#include "server/lock_chain.h"

#include <algorithm>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <optional>

namespace editd {

struct LockChains::Waiter {
  std::size_t missing = 0;
  std::optional<boost::asio::any_completion_handler<void()>> handler;
};

namespace {

// Not a coroutine, and no lambda inside a co_await expression: GCC 12
// mis-destroys such captures. The waiter outlives the wait (the queue and the
// caller's frame hold it).
template <class Waiter>
boost::asio::awaitable<void> wait_turn(Waiter* waiter) {
  struct Initiation {
    Waiter* waiter;
    void operator()(boost::asio::any_completion_handler<void()> handler) const {
      waiter->handler.emplace(std::move(handler));
    }
  };
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
      Initiation{waiter}, boost::asio::use_awaitable);
}

}  // namespace

LockChains::Guard& LockChains::Guard::operator=(Guard&& o) noexcept {
  if (this != &o) {
    release();
    chains_ = o.chains_;
    keys_ = std::move(o.keys_);
    o.chains_ = nullptr;
  }
  return *this;
}

void LockChains::Guard::release() {
  if (chains_) {
    chains_->release(keys_);
    chains_ = nullptr;
  }
}

boost::asio::awaitable<LockChains::Guard> LockChains::lock(std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  auto waiter = std::make_shared<Waiter>();
  for (const std::string& key : keys) {
    auto [it, fresh] = chains_.try_emplace(key);
    // A fresh chain is held at once; otherwise queue behind its holder.
    if (!fresh) {
      it->second.queue.push_back(waiter);
      ++waiter->missing;
    }
  }
  if (waiter->missing > 0) co_await wait_turn(waiter.get());
  co_return Guard(this, std::move(keys));
}

void LockChains::release(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    auto it = chains_.find(key);
    if (it == chains_.end()) continue;
    Chain& chain = it->second;
    if (chain.head == chain.queue.size()) {
      chains_.erase(it);
      continue;
    }
    // Hand the chain to the next waiter; it runs once it holds all its keys.
    std::shared_ptr<Waiter> next = std::move(chain.queue[chain.head++]);
    if (chain.head == chain.queue.size()) {
      chain.queue.clear();
      chain.head = 0;
    }
    if (--next->missing == 0 && next->handler) {
      auto handler = std::move(*next->handler);
      next->handler.reset();
      boost::asio::post(executor_, std::move(handler));
    }
  }
}

}  // namespace editd
