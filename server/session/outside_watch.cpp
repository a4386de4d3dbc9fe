#include "server/session/outside_watch.h"

#include <errno.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace editd {

namespace asio = boost::asio;

namespace {

// What changes a file's bytes, or whether it is there: written (in place, or
// closed after writing), moved in or out, created, deleted. The directory's
// own end (deleted, moved) is told too.
constexpr std::uint32_t kMask = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
                                IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF |
                                IN_ONLYDIR | IN_EXCL_UNLINK;

std::string dir_of(const std::string& canonical) {
  const std::size_t slash = canonical.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return canonical.substr(0, slash);
}

}  // namespace

OutsideWatch::OutsideWatch(asio::io_context& io, bool enabled, std::size_t max_watches)
    : max_watches_(max_watches) {
  if (!enabled) return;
  fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd_ < 0) {
    spdlog::info("inotify is not available ({}): changes made outside are found by stat",
                 ::strerror(errno));
    return;
  }
  wait_.emplace(io, fd_);  // owns fd_ from here
}

OutsideWatch::~OutsideWatch() {
  stop();
  std::lock_guard lock(mutex_);
  for (Inbox* inbox : inboxes_) inbox->watch = nullptr;
}

void OutsideWatch::start() {
  if (wait_) arm();
}

void OutsideWatch::stop() {
  if (!wait_) return;
  boost::system::error_code ignored;
  wait_->cancel(ignored);
}

void OutsideWatch::arm() {
  wait_->async_wait(asio::posix::descriptor_base::wait_read,
                    [this](boost::system::error_code ec) {
                      if (ec) return;
                      drain();
                      arm();
                    });
}

std::shared_ptr<OutsideWatch::Inbox> OutsideWatch::subscribe() {
  auto inbox = std::make_shared<Inbox>();
  inbox->watch = this;
  std::lock_guard lock(mutex_);
  inboxes_.insert(inbox.get());
  return inbox;
}

bool OutsideWatch::watch(Inbox& inbox, const std::string& canonical) {
  if (fd_ < 0) return false;
  std::string dir = dir_of(canonical);
  std::lock_guard lock(mutex_);
  if (inbox.dirs.count(dir)) return true;
  if (inbox.dirs.size() >= kMaxDirsPerInbox) return false;
  auto it = dirs_.find(dir);
  if (it == dirs_.end()) {
    if (dirs_.size() >= max_watches_) return false;
    const int wd = ::inotify_add_watch(fd_, dir.c_str(), kMask);
    if (wd < 0) {
      if (errno == ENOSPC)
        spdlog::debug("inotify watch limit reached (fs.inotify.max_user_watches): {} by stat", dir);
      return false;
    }
    // The same directory by another name (a bind mount) shares the watch.
    if (auto same = by_wd_.find(wd); same != by_wd_.end()) {
      it = dirs_.find(same->second);
    } else {
      it = dirs_.emplace(dir, Dir{wd, {}}).first;
      by_wd_.emplace(wd, dir);
    }
  }
  it->second.inboxes.insert(&inbox);
  inbox.dirs.insert(it->first);
  return true;
}

bool OutsideWatch::watched(const Inbox& inbox, const std::string& canonical) const {
  if (fd_ < 0) return false;
  std::lock_guard lock(mutex_);
  return inbox.dirs.count(dir_of(canonical)) > 0;
}

void OutsideWatch::forget(Inbox& inbox) {
  std::lock_guard lock(mutex_);
  for (const std::string& dir : inbox.dirs) {
    auto it = dirs_.find(dir);
    if (it == dirs_.end()) continue;
    it->second.inboxes.erase(&inbox);
    if (it->second.inboxes.empty()) drop_dir_locked(it, true);
  }
  inbox.dirs.clear();
  inbox.watch = nullptr;
  inboxes_.erase(&inbox);
}

void OutsideWatch::drop_dir_locked(std::map<std::string, Dir>::iterator it, bool remove_watch) {
  if (remove_watch && fd_ >= 0) ::inotify_rm_watch(fd_, it->second.wd);
  by_wd_.erase(it->second.wd);
  dirs_.erase(it);
}

void OutsideWatch::mark_locked(Inbox& inbox, const std::string& path) {
  if (inbox.dirty.size() >= kMaxDirty && !inbox.dirty.count(path)) {
    inbox.overflowed = true;
    return;
  }
  inbox.dirty.insert(path);
}

void OutsideWatch::mark(Inbox& inbox, const std::vector<std::string>& paths) {
  std::lock_guard lock(mutex_);
  for (const std::string& p : paths) mark_locked(inbox, p);
}

void OutsideWatch::drain() {
  if (fd_ < 0) return;
  alignas(inotify_event) char buffer[16 * 1024];
  std::lock_guard lock(mutex_);
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EAGAIN: nothing more queued
    handle(buffer, static_cast<std::size_t>(n));
  }
}

void OutsideWatch::handle(const char* buffer, std::size_t size) {
  for (std::size_t at = 0; at + sizeof(inotify_event) <= size;) {
    const auto* e = reinterpret_cast<const inotify_event*>(buffer + at);
    at += sizeof(inotify_event) + e->len;
    if (e->mask & IN_Q_OVERFLOW) {
      // Events were lost: every connection looks by stat.
      for (Inbox* inbox : inboxes_) inbox->overflowed = true;
      continue;
    }
    auto w = by_wd_.find(e->wd);
    if (w == by_wd_.end()) continue;
    auto it = dirs_.find(w->second);
    if (it == dirs_.end()) continue;
    if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
      // The directory went (or moved): its files are looked at by stat, and
      // watched again if a connection learns one of them anew.
      for (Inbox* inbox : it->second.inboxes) {
        inbox->overflowed = true;
        inbox->dirs.erase(it->first);
      }
      drop_dir_locked(it, !(e->mask & IN_IGNORED));
      continue;
    }
    if (e->len == 0) continue;
    const std::string path =
        (it->first == "/" ? std::string() : it->first) + "/" + std::string(e->name);
    for (Inbox* inbox : it->second.inboxes) mark_locked(*inbox, path);
  }
}

OutsideWatch::Taken OutsideWatch::take(Inbox& inbox) {
  Taken out;
  std::lock_guard lock(mutex_);
  out.dirty.assign(inbox.dirty.begin(), inbox.dirty.end());
  inbox.dirty.clear();
  out.overflowed = std::exchange(inbox.overflowed, false);
  return out;
}

}  // namespace editd
