// Per-path async lock chains: operations on one file run one at a time, in the
// order they arrived; operations on different files run in parallel.
//
// lock() takes a set of keys (canonical paths) at once: the caller joins the
// queue of every key in the same instant, so a multi-file operation keeps its
// arrival order on each file and two multi-file operations cannot deadlock.
// A chain exists only while someone holds or waits for it: idle chains are
// dropped, so memory does not grow with the number of files ever touched.
//
// Threading: LockChains lives on one single-threaded executor; all calls and
// Guard destructions happen there. Waiters are resumed through that executor.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace editd {

class LockChains {
 public:
  explicit LockChains(boost::asio::any_io_executor executor) : executor_(std::move(executor)) {}

  class Guard {
   public:
    Guard() = default;
    Guard(Guard&& o) noexcept : chains_(o.chains_), keys_(std::move(o.keys_)) { o.chains_ = nullptr; }
    Guard& operator=(Guard&& o) noexcept;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { release(); }
    void release();

   private:
    friend class LockChains;
    Guard(LockChains* chains, std::vector<std::string> keys)
        : chains_(chains), keys_(std::move(keys)) {}
    LockChains* chains_ = nullptr;
    std::vector<std::string> keys_;
  };

  // Completes when every key is held by the caller. Keys may repeat.
  boost::asio::awaitable<Guard> lock(std::vector<std::string> keys);

  // Number of chains alive (held or waited for).
  std::size_t size() const { return chains_.size(); }

 private:
  struct Waiter;
  struct Chain {
    std::vector<std::shared_ptr<Waiter>> queue;  // FIFO; front is next
    std::size_t head = 0;
  };
  void release(const std::vector<std::string>& keys);

  boost::asio::any_io_executor executor_;
  std::unordered_map<std::string, Chain> chains_;
};

}  // namespace editd
