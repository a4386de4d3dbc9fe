// Holding a thread pool's threads, to tell work that ran without the pool.
#pragma once

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <future>
#include <memory>

namespace editd::test {

// Each of `threads` jobs posted to the pool waits (for at most 30 s) until
// release(): work that completes meanwhile did not need the pool. Released at
// destruction too, so a failed check does not keep the threads.
class PoolHold {
 public:
  PoolHold(boost::asio::thread_pool& pool, int threads) {
    std::shared_future<void> released = release_.get_future().share();
    for (int i = 0; i < threads; ++i)
      boost::asio::post(pool, [released, finished = finished_] {
        released.wait_for(std::chrono::seconds(30));
        ++*finished;
      });
  }
  PoolHold(const PoolHold&) = delete;
  PoolHold& operator=(const PoolHold&) = delete;
  ~PoolHold() { release(); }

  void release() {
    if (!done_) release_.set_value();
    done_ = true;
  }
  // How many of the holding jobs have ended (0 while the pool is held).
  int finished() const { return finished_->load(); }

 private:
  std::promise<void> release_;
  std::shared_ptr<std::atomic<int>> finished_ = std::make_shared<std::atomic<int>>(0);
  bool done_ = false;
};

}  // namespace editd::test
