#include "server/ops/undo_history.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "backends/local/runtime_dir.h"
#include "edit/text/fingerprint.h"

namespace editd {

namespace {

// Free space a copy leaves on the spill directory's filesystem at least.
constexpr std::uint64_t kSpillReserve = 64ull << 20;

std::uint64_t size_of(const UndoEntry& e) {
  std::uint64_t n = 0;
  for (const KeptFile& f : e.files) n += f.before ? f.before->held() : 0;
  return n;
}

// Whether the mutation left `f` as it found it.
bool unchanged(const UndoFile& f) {
  if (f.attributes_changed) return false;
  const bool existed = f.before || f.restores;
  if (!existed || !f.after_fingerprint) return !existed && !f.after_fingerprint;
  if (f.restores && f.before_fingerprint.empty()) return false;  // record() keeps nothing
  const std::string& before =
      f.before_fingerprint.empty() ? fingerprint(*f.before) : f.before_fingerprint;
  return before == *f.after_fingerprint;
}

}  // namespace

KeptBytes::KeptBytes(std::string bytes)
    : size_(bytes.size()), bytes_(std::move(bytes)), held_(size_) {}

KeptBytes::KeptBytes(Fd file, std::uint64_t size)
    : size_(size), file_(std::move(file)), held_(size) {}

KeptBytes::KeptBytes(std::vector<restore::Restore> restores, std::uint64_t size,
                     std::string fingerprint)
    : size_(size),
      restores_(std::move(restores)),
      fingerprint_(std::move(fingerprint)),
      restoring_(true),
      held_(restore::held_by(restores_)) {}

Result<std::string> KeptBytes::load(std::string_view after) const {
  if (restoring_) {
    std::optional<std::string> before = restore::apply(after, restores_);
    if (!before || before->size() != size_ || fingerprint(*before) != fingerprint_)
      return Error(ErrorKind::kIo,
                   "the undo history's record of the change does not give the file as it was "
                   "back; nothing was written");
    return std::move(*before);
  }
  if (!file_.valid()) return bytes_;
  std::string out(size_, '\0');
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n =
        ::pread(file_.get(), out.data() + done, out.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      return Error(
          ErrorKind::kIo,
          std::string("the undo history's copy could not be read back: ") + std::strerror(err),
          {{"errno", err}});
    }
    done += static_cast<std::size_t>(n);
  }
  return out;
}

UndoHistory::UndoHistory(std::uint64_t max_entries, std::uint64_t max_bytes, UndoSpill spill)
    : max_entries_(max_entries), max_bytes_(max_bytes), spill_(std::move(spill)) {
  std::random_device rd;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rd()));
  prefix_ = buf;
}

std::optional<std::string> UndoHistory::record(std::string id, std::string scope,
                                               std::vector<UndoFile> files,
                                               std::vector<std::string> made_directories) {
  std::vector<UndoFile> merged;
  for (UndoFile& f : files) {
    auto same = std::find_if(merged.begin(), merged.end(),
                             [&](const UndoFile& g) { return g.canonical == f.canonical; });
    if (same == merged.end()) {
      merged.push_back(std::move(f));
    } else {
      // Restores are of one change: two of them do not compose into one.
      if (same->restores || f.restores) return std::nullopt;
      same->after_fingerprint = std::move(f.after_fingerprint);
      if (!same->before_attributes) same->before_attributes = f.before_attributes;
      same->attributes_changed = same->attributes_changed || f.attributes_changed;
    }
  }
  std::erase_if(merged, unchanged);
  if (merged.empty() || max_entries_ == 0) return std::nullopt;
  auto entry = std::make_shared<UndoEntry>();
  entry->scope = std::move(scope);
  entry->made_directories = std::move(made_directories);
  for (UndoFile& f : merged) {
    KeptFile& k = entry->files.emplace_back();
    k.canonical = std::move(f.canonical);
    k.shown = std::move(f.shown);
    // Restores, or a copy in a file, are kept instead of the bytes, which are
    // freed here.
    if (f.restores && f.before_fingerprint.empty()) return std::nullopt;  // nothing to check by
    if (f.restores)
      k.before = std::make_shared<KeptBytes>(std::move(*f.restores), f.before_size,
                                             std::move(f.before_fingerprint));
    else if (f.before && f.spilled.valid())
      k.before = std::make_shared<KeptBytes>(std::move(f.spilled), f.before->size());
    else if (f.before)
      k.before = std::make_shared<KeptBytes>(std::move(*f.before));
    k.after_fingerprint = std::move(f.after_fingerprint);
    k.before_attributes = f.before_attributes;
  }
  merged.clear();
  const std::uint64_t size = size_of(*entry);
  if (size > max_bytes_) return std::nullopt;
  std::lock_guard lock(mutex_);
  entry->id = id.empty() ? "undo-" + prefix_ + "-" + std::to_string(next_++) : std::move(id);
  id = entry->id;
  entries_.push_back(std::move(entry));
  bytes_ += size;
  while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
    bytes_ -= size_of(*entries_.front());
    entries_.pop_front();
  }
  return id;
}

UndoSpill UndoSpill::first_of(const std::vector<std::string>& paths, std::string& why) {
  auto passed_over = [&why](const std::string& reason) {
    why += (why.empty() ? "" : "; ") + reason;
  };
  UndoSpill spill;
  for (const std::string& path : paths) {
    std::string shown = path;
    Fd fd;
    if (path.empty()) {
      RuntimeDir runtime;
      std::string unusable;
      if (RuntimeDir::open("", runtime, &unusable)) {
        passed_over(unusable);
        continue;
      }
      shown = runtime.path();
      fd = Fd(::fcntl(runtime.fd(), F_DUPFD_CLOEXEC, 0));
    } else {
      fd = Fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    }
    struct statfs fs;
    if (!fd.valid() || ::fstatfs(fd.get(), &fs) != 0) {
      passed_over(shown + ": " + std::strerror(errno));
      continue;
    }
    if (fs.f_type == TMPFS_MAGIC || fs.f_type == static_cast<decltype(fs.f_type)>(RAMFS_MAGIC)) {
      passed_over(shown + " is on a tmpfs");
      continue;
    }
    spill.dir = std::make_shared<const Fd>(std::move(fd));
    spill.where = std::move(shown);
    return spill;
  }
  return spill;
}

bool UndoHistory::spills(std::uint64_t size) const {
  return spill_.dir && max_entries_ > 0 && size >= spill_.min_bytes && size <= max_bytes_;
}

Fd UndoHistory::spill(std::string_view bytes) const {
  if (!spill_.dir) return Fd();
  // Never the last of the disk: what else needs /tmp comes first.
  struct statvfs vfs;
  if (::fstatvfs(spill_.dir->get(), &vfs) != 0 ||
      static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize < bytes.size() + kSpillReserve)
    return Fd();
  // Unnamed: nothing to clean after a crash, nothing another process can open.
  Fd file(::openat(spill_.dir->get(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!file.valid()) return Fd();
  // Mode 0600 only: not the ACL a default ACL of the directory gave it.
  if (::fremovexattr(file.get(), "system.posix_acl_access") != 0 && errno != ENODATA &&
      errno != ENOTSUP)
    return Fd();
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::pwrite(file.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Fd();
    done += static_cast<std::size_t>(n);
  }
  return file;
}

std::shared_ptr<const UndoEntry> UndoHistory::find(const std::string& id) const {
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_)
    if (e->id == id) return e;
  return nullptr;
}

}  // namespace editd
