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
// "Arrived" means: for requests of one connection, the order the connection
// received them (Arrivals), even when one must wait before it knows its files
// (apply_patch parses a big patch on the pool first); across connections, the
// order they reach lock().
//
// Threading: lock(), Guard destructions and Arrivals may be used from any
// thread (each I/O thread serves its own connections); one mutex guards the
// chains, held only to queue or hand over. A waiter is resumed by a post to
// its own coroutine's executor, never inside the release that woke it.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace editd {

// The order in which one connection's requests join the lock chains. Each
// request takes a Place as it starts, in the order the requests arrived;
// LockChains::lock() with a place first waits until every place taken before
// it has been passed: its request has joined its chains, or ended without.
// So a request that waits before it locks (or runs on another thread) keeps
// its turn, and those after it wait for it rather than pass it. A request
// that reads no file through the chains (a directory listing) waits instead
// until every request before it has ended (Place::after_earlier()): what
// they changed is then on disk.
class Arrivals : public std::enable_shared_from_this<Arrivals> {
 public:
  class Place {
   public:
    Place() = default;
    Place(Place&& o) noexcept
        : arrivals_(std::move(o.arrivals_)), number_(o.number_), passed_(o.passed_) {}
    Place& operator=(Place&& o) noexcept;
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;
    // Ends the request's turn: passed, and ended.
    ~Place() { end(); }

    // Lets the places after this one go on; once is enough.
    void pass();
    bool passed() const { return passed_; }
    // Completes once every request that took a place before this one has
    // ended (its place destroyed).
    boost::asio::awaitable<void> after_earlier();

   private:
    friend class Arrivals;
    friend class LockChains;
    Place(std::shared_ptr<Arrivals> arrivals, std::uint64_t number)
        : arrivals_(std::move(arrivals)), number_(number) {}
    void end();
    std::shared_ptr<Arrivals> arrivals_;  // null once ended
    std::uint64_t number_ = 0;
    bool passed_ = false;
  };

  static std::shared_ptr<Arrivals> make() { return std::shared_ptr<Arrivals>(new Arrivals); }
  // The next place, after every place taken so far.
  Place take();
  // Places tracked: those not yet passed and those not yet ended.
  std::size_t tracked() {
    std::lock_guard lock(mutex_);
    return passed_.open.size() + ended_.open.size();
  }

 private:
  friend class LockChains;
  Arrivals() = default;
  bool first(std::uint64_t number);
  // Completes (by a post to `executor`, the caller's) once every place before
  // `number` has been passed.
  boost::asio::awaitable<void> turn(std::uint64_t number, boost::asio::any_io_executor executor);
  void pass(std::uint64_t number);
  void end(std::uint64_t number);

  // The places not yet passed (or not yet ended): no more than the requests
  // in flight, however long one of them takes.
  struct Frontier {
    std::set<std::uint64_t> open;
    // Whether every place before `number`, which is open, is there.
    bool first(std::uint64_t number) const { return !open.empty() && *open.begin() == number; }
    // Marks `number` there: the new first open place, if `number` was the first.
    std::optional<std::uint64_t> mark(std::uint64_t number);
  };

  struct Waiting {
    boost::asio::any_io_executor executor;
    boost::asio::any_completion_handler<void()> handler;
  };
  std::mutex mutex_;
  std::uint64_t taken_ = 0;
  Frontier passed_;
  Frontier ended_;
  std::map<std::uint64_t, Waiting> waiting_;        // for their turn to join
  std::map<std::uint64_t, Waiting> waiting_ended_;  // for the places before them to end
};

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
    // An exclusive hold becomes a shared one: the reads queued behind it run
    // now, beside it, while a mutation queued behind it still waits. For a
    // mutation whose write is done and whose remaining work (the checks after
    // the write) only reads the file.
    void downgrade();

   private:
    friend class LockChains;
    Guard(LockChains* chains, std::vector<std::string> keys, Mode mode)
        : chains_(chains), keys_(std::move(keys)), mode_(mode) {}
    LockChains* chains_ = nullptr;
    std::vector<std::string> keys_;
    Mode mode_ = Mode::kExclusive;
  };

  // Completes when every key is held by the caller in `mode`. Keys may repeat.
  // With a place not yet passed: joins the chains in its turn (Arrivals), and
  // passes it.
  boost::asio::awaitable<Guard> lock(std::vector<std::string> keys, Mode mode = Mode::kExclusive,
                                     Arrivals::Place* place = nullptr);

  // Whether `key` is held exclusive now (a mutation is under way on it).
  // A glance, stale as soon as it returns: for a caller that must not wait
  // for the chain and can come back later (server/ops/outside.cpp).
  bool held_exclusive(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto it = chains_.find(key);
    return it != chains_.end() && it->second.exclusive_held;
  }

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
  // Holds `keys` shared instead of exclusive, and hands them on as release() does.
  void downgrade(const std::vector<std::string>& keys);
  // With the mutex held: hands `chain` on to the waiters that may hold it now,
  // adding those that then hold all their keys to `ready`.
  using Ready = std::vector<
      std::pair<boost::asio::any_io_executor, boost::asio::any_completion_handler<void()>>>;
  void hand_on(Chain& chain, Ready& ready);
  // Completes (by a post to the caller's executor) once `waiter` holds every
  // key it queued for.
  boost::asio::awaitable<void> wait_turn(Waiter* waiter);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Chain> chains_;
};

}  // namespace editd
