// Which files connections know may have changed, by any hand: one inotify
// descriptor for the server, with a watch on each directory that holds a
// file some connection knows, shared and counted by the connections.
//
// Each connection has an Inbox. watch() adds the directory of a file it
// learned; every event in a watched directory marks the path dirty in the
// inbox of each connection that watches it, and take() hands a connection
// its dirty paths (server/session/connection.cpp then asks
// Operations::outside_changes which of them hold other bytes than it knows).
// Events are read as they come, on the main I/O thread, and also by drain()
// at the start of each check: an event for a write that ended before a
// request was sent is in the kernel's queue by then, so the request sees it
// whatever the timing.
//
// Bounded: at most `max_watches` directories for the server and
// kMaxDirsPerInbox for one connection; at most kMaxDirty paths in an inbox.
// Past any bound, or when the kernel's queue overflowed or a watched
// directory went, the inbox is marked `overflowed`, and so is a file whose
// directory could not be watched: the connection falls back to a stat of
// its most recently used files (server/ops/outside.cpp compares stamps
// before reading). Without inotify (disabled, or inotify_init1 failing)
// nothing is watched and every connection falls back.
//
// Thread-safe: one mutex; connections on every I/O thread use it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace editd {

class OutsideWatch {
 public:
  static constexpr std::size_t kDefaultMaxWatches = 4096;
  static constexpr std::size_t kMaxDirsPerInbox = 1024;
  static constexpr std::size_t kMaxDirty = 1024;

  struct Inbox;

  // `enabled` false: no inotify at all (every connection falls back to
  // stats). Events are read on `io`.
  OutsideWatch(boost::asio::io_context& io, bool enabled,
               std::size_t max_watches = kDefaultMaxWatches);
  ~OutsideWatch();
  OutsideWatch(const OutsideWatch&) = delete;
  OutsideWatch& operator=(const OutsideWatch&) = delete;

  // Whether inotify is in use.
  bool active() const { return fd_ >= 0; }
  // Starts reading events as they come (main I/O thread); stop() ends it.
  void start();
  void stop();

  // A connection's inbox; its directories are let go when it is destroyed.
  std::shared_ptr<Inbox> subscribe();
  // Watches the directory of `canonical` for `inbox`: whether it is watched.
  bool watch(Inbox& inbox, const std::string& canonical);
  // Whether the directory of `canonical` is watched for `inbox`.
  bool watched(const Inbox& inbox, const std::string& canonical) const;
  // Reads the events queued in the kernel now and marks their paths.
  void drain();

  struct Taken {
    std::vector<std::string> dirty;
    // Some changes may not be among `dirty`: check the connection's files
    // by stat.
    bool overflowed = false;
  };
  // `inbox`'s dirty paths and overflow, which it no longer holds.
  Taken take(Inbox& inbox);
  // Marks `paths` dirty again (deferred by a check).
  void mark(Inbox& inbox, const std::vector<std::string>& paths);

  std::size_t watches() const {
    std::lock_guard lock(mutex_);
    return dirs_.size();
  }

 private:
  struct Dir {
    int wd = -1;
    std::set<Inbox*> inboxes;
  };
  void forget(Inbox& inbox);
  void handle(const char* buffer, std::size_t size);
  void arm();
  // With the mutex held.
  void mark_locked(Inbox& inbox, const std::string& path);
  void drop_dir_locked(std::map<std::string, Dir>::iterator it, bool remove_watch);

  int fd_ = -1;
  std::size_t max_watches_;
  std::optional<boost::asio::posix::stream_descriptor> wait_;
  mutable std::mutex mutex_;
  std::map<std::string, Dir> dirs_;
  std::map<int, std::string> by_wd_;
  std::set<Inbox*> inboxes_;
};

struct OutsideWatch::Inbox {
  ~Inbox() {
    if (watch) watch->forget(*this);
  }
  OutsideWatch* watch = nullptr;
  // Guarded by the watch's mutex.
  std::set<std::string> dirs;
  std::unordered_set<std::string> dirty;
  bool overflowed = false;
};

}  // namespace editd
