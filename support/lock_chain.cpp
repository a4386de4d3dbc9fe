#include "support/lock_chain.h"

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

Arrivals::Place& Arrivals::Place::operator=(Place&& o) noexcept {
  if (this != &o) {
    end();
    arrivals_ = std::move(o.arrivals_);
    number_ = o.number_;
    passed_ = o.passed_;
  }
  return *this;
}

void Arrivals::Place::pass() {
  if (passed_ || !arrivals_) return;
  passed_ = true;
  arrivals_->pass(number_);
}

void Arrivals::Place::end() {
  pass();
  if (auto arrivals = std::move(arrivals_)) arrivals->end(number_);
}

std::optional<std::uint64_t> Arrivals::Frontier::mark(std::uint64_t number) {
  const bool was_first = first(number);
  open.erase(number);
  if (!was_first || open.empty()) return std::nullopt;
  return *open.begin();
}

namespace {

// The waiter for the new first open place, if any, out of `waiting`.
template <class Map>
std::optional<typename Map::mapped_type> take_waiter(Map& waiting, std::uint64_t first) {
  auto it = waiting.find(first);
  if (it == waiting.end()) return std::nullopt;
  auto w = std::move(it->second);
  waiting.erase(it);
  return w;
}

// Not a coroutine (see LockChains::wait_turn): completes, by a post to
// `executor`, once `ready` holds; else leaves its handler in `waiting`.
template <class Ready, class Map>
boost::asio::awaitable<void> wait_until(std::mutex& mutex, Ready ready, Map& waiting,
                                        std::uint64_t number,
                                        boost::asio::any_io_executor executor) {
  struct Initiation {
    std::mutex* mutex;
    Ready ready;
    Map* waiting;
    std::uint64_t number;
    boost::asio::any_io_executor executor;
    void operator()(boost::asio::any_completion_handler<void()> handler) const {
      {
        std::lock_guard lock(*mutex);
        if (!ready()) {
          waiting->emplace(number, typename Map::mapped_type{executor, std::move(handler)});
          return;
        }
      }
      boost::asio::post(executor, std::move(handler));
    }
  };
  return boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
      Initiation{&mutex, std::move(ready), &waiting, number, std::move(executor)},
      boost::asio::use_awaitable);
}

}  // namespace

Arrivals::Place Arrivals::take() {
  std::lock_guard lock(mutex_);
  const std::uint64_t number = taken_++;
  passed_.open.insert(passed_.open.end(), number);
  ended_.open.insert(ended_.open.end(), number);
  return Place(shared_from_this(), number);
}

void Arrivals::pass(std::uint64_t number) {
  std::optional<Waiting> next;
  {
    std::lock_guard lock(mutex_);
    // At most one waits for the new first place: its own request.
    if (auto first = passed_.mark(number)) next = take_waiter(waiting_, *first);
  }
  if (next) boost::asio::post(next->executor, std::move(next->handler));
}

void Arrivals::end(std::uint64_t number) {
  std::optional<Waiting> next;
  {
    std::lock_guard lock(mutex_);
    if (auto first = ended_.mark(number)) next = take_waiter(waiting_ended_, *first);
  }
  if (next) boost::asio::post(next->executor, std::move(next->handler));
}

bool Arrivals::first(std::uint64_t number) {
  std::lock_guard lock(mutex_);
  return passed_.first(number);
}

boost::asio::awaitable<void> Arrivals::turn(std::uint64_t number,
                                            boost::asio::any_io_executor executor) {
  return wait_until(
      mutex_, [this, number] { return passed_.first(number); }, waiting_, number,
      std::move(executor));
}

boost::asio::awaitable<void> Arrivals::Place::after_earlier() {
  if (!arrivals_) co_return;
  Arrivals& a = *arrivals_;
  const std::uint64_t number = number_;
  {
    std::lock_guard lock(a.mutex_);
    if (a.ended_.first(number)) co_return;
  }
  auto executor = co_await boost::asio::this_coro::executor;
  // Named, not a temporary in the co_await expression (GCC 12 coroutines).
  auto ready = [&a, number] { return a.ended_.first(number); };
  auto wait = wait_until(a.mutex_, ready, a.waiting_ended_, number, std::move(executor));
  co_await std::move(wait);
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

boost::asio::awaitable<LockChains::Guard> LockChains::lock(std::vector<std::string> keys, Mode mode,
                                                           Arrivals::Place* place) {
  auto waiter = std::make_shared<Waiter>();
  waiter->executor = co_await boost::asio::this_coro::executor;
  if (place && !place->passed() && !place->arrivals_->first(place->number_))
    co_await place->arrivals_->turn(place->number_, waiter->executor);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
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
  // In the chains now: the requests after this one may join them.
  if (place) place->pass();
  if (wait) co_await wait_turn(waiter.get());
  co_return Guard(this, std::move(keys), mode);
}

void LockChains::Guard::downgrade() {
  if (chains_ && mode_ == Mode::kExclusive) {
    chains_->downgrade(keys_);
    mode_ = Mode::kShared;
  }
}

void LockChains::hand_on(Chain& chain, Ready& ready) {
  // In arrival order: the next exclusive waiter alone, or every shared waiter
  // up to the next exclusive one. Each runs once it holds all its keys.
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
  }
}

void LockChains::release(const std::vector<std::string>& keys, Mode mode) {
  // Posted after the mutex is released; one handler per waiter that now holds
  // all its keys.
  Ready ready;
  std::unique_lock lock(mutex_);
  for (const std::string& key : keys) {
    auto it = chains_.find(key);
    if (it == chains_.end()) continue;
    Chain& chain = it->second;
    if (mode == Mode::kShared)
      --chain.shared_holders;
    else
      chain.exclusive_held = false;
    hand_on(chain, ready);
    if (chain.queue.empty() && chain.shared_holders == 0 && !chain.exclusive_held)
      chains_.erase(it);
  }
  lock.unlock();
  // Each to its own coroutine's executor: the waiter's connection may be
  // served by another thread.
  for (auto& [executor, handler] : ready) boost::asio::post(executor, std::move(handler));
}

void LockChains::downgrade(const std::vector<std::string>& keys) {
  Ready ready;
  std::unique_lock lock(mutex_);
  for (const std::string& key : keys) {
    auto it = chains_.find(key);
    if (it == chains_.end()) continue;
    it->second.exclusive_held = false;
    ++it->second.shared_holders;
    hand_on(it->second, ready);
  }
  lock.unlock();
  for (auto& [executor, handler] : ready) boost::asio::post(executor, std::move(handler));
}

}  // namespace editd
