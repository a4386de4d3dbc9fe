// Per-path async lock chains: operations on one file run in the order they
// arrived, a mutation alone, reads of the file together; operations on
// different files run in parallel.
//
// lock() takes a set of keys (canonical paths) at once: the caller joins the
// queue of every key in the same instant, so a multi-file operation keeps its
// arrival order on each file and two multi-file operations cannot deadlock.
// A shared holder (a read) runs beside the shared holders before and after it
// on a key, but never beside an exclusive one (a mutation), nor before one
// that arrived earlier: a read sent after an edit sees the edit. A chain
// exists only while someone holds or waits for it: idle chains are dropped, so
// memory does not grow with the number of files ever touched.
//
// Threading: lock() and Guard destructions may come from any thread (each I/O
// thread serves its own connections); one mutex guards the chains, held only
// to queue or hand over. A waiter is resumed by a post to its own coroutine's
// executor, never inside the release that woke it.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace editd {

class LockChains {
 public:
  enum class Mode { kExclusive, kShared };

  LockChains() = default;

  class Guard {
   public:
    Guard() = default;
    Guard(Guard&& o) noexcept : chains_(o.chains_), keys_(std::move(o.keys_)), mode_(o.mode_) {
      o.chains_ = nullptr;
    }
    Guard& operator=(Guard&& o) noexcept;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { release(); }
    void release();

   private:
    friend class LockChains;
    Guard(LockChains* chains, std::vector<std::string> keys, Mode mode)
        : chains_(chains), keys_(std::move(keys)), mode_(mode) {}
    LockChains* chains_ = nullptr;
    std::vector<std::string> keys_;
    Mode mode_ = Mode::kExclusive;
  };

  // Completes when every key is held by the caller in `mode`. Keys may repeat.
  boost::asio::awaitable<Guard> lock(std::vector<std::string> keys, Mode mode = Mode::kExclusive);

  // Number of chains alive (held or waited for).
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return chains_.size();
  }

 private:
  struct Waiter;
  struct Chain {
    std::vector<std::shared_ptr<Waiter>> queue;  // FIFO; front (at head) is next
    std::size_t head = 0;
    std::size_t shared_holders = 0;
    bool exclusive_held = false;
  };
  void release(const std::vector<std::string>& keys, Mode mode);
  // Completes (by a post to the caller's executor) once `waiter` holds every
  // key it queued for.
  boost::asio::awaitable<void> wait_turn(Waiter* waiter);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Chain> chains_;
};

}  // namespace editd
