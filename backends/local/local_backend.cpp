#include "backends/local/local_backend.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "backends/local/internal.h"

namespace editd::local_backend_detail {

Error posix_error(std::string_view op, const std::string& path, int err) {
  return Error(ErrorKind::kIo, std::string(op) + " " + path + ": " + std::strerror(err),
               {{"errno", errno_name(err)}, {"path", path}});
}

std::string parent_of(const std::string& p) {
  std::size_t slash = p.rfind('/');
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string join(const std::string& dir, std::string_view name) {
  return dir == "/" ? "/" + std::string(name) : dir + "/" + std::string(name);
}

Error not_found(const std::string& shown) {
  return Error(ErrorKind::kNotFound, "not found: " + shown, {{"path", shown}});
}

Error is_directory(const std::string& shown) {
  return Error(ErrorKind::kIsDirectory, shown + " is a directory", {{"path", shown}});
}

Error not_regular(const std::string& shown) {
  return Error(ErrorKind::kNotText, shown + " is not a regular file (FIFO, socket or device)",
               {{"path", shown}, {"reason", "special"}});
}

Error changed(const std::string& shown) {
  return Error(ErrorKind::kIo,
               shown +
                   " changed while editd was using it (a symbolic link appeared on its way); "
                   "nothing was read or written: send the request again",
               {{"errno", "ELOOP"}, {"path", shown}});
}

Error read_only_error(std::string_view verb, const std::string& shown) {
  return Error(ErrorKind::kDenied,
               "the server is read-only (--read-only): not " + std::string(verb) + " " + shown,
               {{"path", shown}});
}

Error not_writable(const std::string& shown, mode_t mode) {
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return Error(ErrorKind::kDenied,
               shown + " may not be written by the OS user editd runs as (mode " + octal +
                   "): editd changes only files that this user may write; make it writable "
                   "first if it is meant to change",
               {{"path", shown}, {"errno", "EACCES"}, {"mode", octal}});
}

bool may_write(int dir, const std::string& name) {
  if (::faccessat(dir, name.c_str(), W_OK, AT_EACCESS) == 0) return true;
  // EROFS and the like: the write itself reports them.
  return errno != EACCES && errno != EPERM;
}

Result<void> LocalBackend::start() {
  if (options_.read_only) {
    locks_ = std::make_shared<StripeLocks>(Fd(), "");
    registry_ = std::make_unique<TempRegistry>();
    return {};
  }
  struct stat st;
  if (::fstat(root_.root_fd(), &st) != 0) return posix_error("stat root", options_.root, errno);
  RuntimeDir runtime;
  Fd lock_file;
  std::string why;
  int err = RuntimeDir::open(options_.runtime_dir, runtime, &why);
  if (!err && (err = runtime.open_lock_file(lock_file)))
    why = runtime.path() + "/locks cannot be opened: " + std::strerror(err);
  if (err)
    return Error(ErrorKind::kIo,
                 "editd does not start: " + why +
                     ". It holds the locks that keep editd processes of this user off each "
                     "other's files, and editd never serves without them: remove it (or make it "
                     "a directory of this user, mode 0700) and start again",
                 {{"errno", errno_name(err)},
                  {"path", options_.runtime_dir.empty() ? RuntimeDir::default_path()
                                                        : options_.runtime_dir}});
  locks_ = std::make_shared<StripeLocks>(std::move(lock_file), runtime.path() + "/locks");
  registry_ = std::make_unique<TempRegistry>(runtime, options_.root, st.st_dev, st.st_ino);
  own(runtime.path());
  load_journal_key(runtime);
  recover();
  return {};
}

void LocalBackend::own(const std::string& dir) {
  char* real = ::realpath(dir.c_str(), nullptr);
  if (!real) return;
  std::string path = real;
  std::free(real);
  if (path != options_.root && editd::inside_root(options_.root, path))
    own_dirs_.push_back(std::move(path));
}

// The key that makes journals editd's own (backends/local/journal_key.h): from
// --state-dir, else the durable default, else the runtime directory.
void LocalBackend::load_journal_key(const RuntimeDir& runtime) {
  std::vector<std::string> places;
  if (!options_.state_dir.empty()) {
    places.push_back(options_.state_dir);
  } else {
    if (std::string d = journal::default_state_dir(); !d.empty()) places.push_back(d);
    if (!runtime.path().empty()) places.push_back(runtime.path());
  }
  std::string tried;
  for (const std::string& place : places) {
    Fd dir;
    journal::Key key;
    int err = journal::open_state_dir(place, dir);
    if (!err) err = journal::Key::load(dir.get(), key);
    if (!err) {
      journals_.set_key(key);
      state_dir_ = place;
      own(place);
      if (options_.state_dir.empty() && place == runtime.path() && options_.durable)
        spdlog::warn(
            "editd: the journal key is in {} ({}), which a reboot may empty: a multi-file "
            "change cut by a power loss is then left half made (--state-dir names a durable "
            "directory)",
            place, tried.empty() ? "no home directory" : tried);
      return;
    }
    tried += (tried.empty() ? "" : "; ") + place + ": " + std::strerror(err);
  }
  state_error_ = tried.empty() ? "no state directory" : tried;
  spdlog::warn(
      "editd: no journal key ({}): multi-file changes are refused{}, and no journal found in "
      "{}/.editd is acted on",
      state_error_, options_.durable ? " (unless --durability none)" : "", options_.root);
}

asio::awaitable<Result<FileStat>> LocalBackend::stat(std::string canonical) {
  return offload(pool_, [this, canonical = std::move(canonical)] { return stat_sync(canonical); });
}

asio::awaitable<Result<FsBackend::Listing>> LocalBackend::list(std::string canonical,
                                                               unsigned depth, std::size_t limit) {
  return offload(pool_, [this, canonical = std::move(canonical), depth, limit] {
    return list_sync(canonical, depth, limit);
  });
}

asio::awaitable<Result<std::string>> LocalBackend::read(std::string canonical) {
  // A small file is read here; a larger one is left unopened for the pool.
  if (options_.inline_bytes > 0) {
    bool deferred = false;
    Result<std::string> small = read_sync(canonical, options_.inline_bytes, &deferred);
    if (!deferred) return ready(std::move(small));
  }
  return offload(pool_, [this, canonical = std::move(canonical)] { return read_sync(canonical); });
}

asio::awaitable<Result<void>> LocalBackend::write(std::string canonical, std::string bytes) {
  if (!options_.durable && bytes.size() <= options_.inline_bytes)
    return ready(write_sync(canonical, bytes));
  return offload(pool_, [this, canonical = std::move(canonical), bytes = std::move(bytes)] {
    return write_sync(canonical, bytes);
  });
}

asio::awaitable<Result<void>> LocalBackend::write_pieces(std::string canonical,
                                                         std::vector<std::string_view> pieces) {
  std::size_t size = 0;
  for (std::string_view p : pieces) size += p.size();
  if (!options_.durable && size <= options_.inline_bytes)
    return ready(write_sync(canonical, pieces));
  return offload(pool_, [this, canonical = std::move(canonical), pieces = std::move(pieces)] {
    return write_sync(canonical, pieces);
  });
}

asio::awaitable<Result<void>> LocalBackend::remove(std::string canonical) {
  return offload(pool_,
                 [this, canonical = std::move(canonical)] { return remove_sync(canonical); });
}

asio::awaitable<Result<void>> LocalBackend::remove_directory(std::string canonical) {
  return offload(
      pool_, [this, canonical = std::move(canonical)] { return remove_directory_sync(canonical); });
}

asio::awaitable<Result<std::unique_ptr<FsBackend::Lock>>> LocalBackend::lock(
    std::vector<std::string> canonicals) {
  std::vector<std::uint32_t> want;
  for (const std::string& c : canonicals) want.push_back(StripeLocks::stripe_of(c));
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  auto held = std::make_unique<StripeLock>(locks_);
  std::size_t i = 0;
  for (; i < want.size(); ++i) {
    Result<bool> got = locks_->try_acquire(want[i]);
    if (!got) co_return got.error();
    if (!*got) break;
    held->add(want[i]);
  }
  if (i < want.size()) {
    AcquireStripes rest{locks_, std::vector<std::uint32_t>(want.begin() + i, want.end())};
    Result<std::vector<std::uint32_t>> got = co_await on_own_thread(std::move(rest));
    if (!got) co_return got.error();
    for (std::uint32_t s : *got) held->add(s);
  }
  std::unique_ptr<Lock> out = std::move(held);
  co_return out;
}

asio::awaitable<Result<void>> LocalBackend::apply_batch(std::vector<FileChange> ops,
                                                        std::vector<std::size_t>& applied) {
  return offload(
      pool_, [this, ops = std::move(ops), &applied]() mutable { return batch_sync(ops, applied); });
}

void LocalBackend::recover() {
  journal::Journals::Stats stats = journals_.recover(*locks_, options_.root);
  int temps = stats.temps_removed;
  registry_->recover([&](const std::string& rel) {
    Fd dir;
    if (root_.open_dir(rel, dir) == 0)
      temps += journal::remove_stale_temps(dir.get(), rel, stats.named);
  });
  if (stats.rolled_forward || stats.rolled_back || temps)
    spdlog::info(
        "recovered {}: {} interrupted change(s) completed, {} undone, {} temporary file(s) "
        "removed",
        options_.root, stats.rolled_forward, stats.rolled_back, temps);
  if (stats.left)
    spdlog::info("{}/.editd/journal: {} journal(s) of running editd processes left alone",
                 options_.root, stats.left);
  for (const std::string& name : stats.untrusted)
    spdlog::warn(
        "{}/.editd/journal/{}: not a journal this user's editd wrote (no tag of its key, or a "
        "record naming a path it would not write): left in place, not acted on",
        options_.root, journal::escape(name));
}

}  // namespace editd::local_backend_detail

namespace editd {

using local_backend_detail::LocalBackend;
using local_backend_detail::posix_error;

std::string errno_name(int err) {
  const char* name = ::strerrorname_np(err);
  return name ? name : "E" + std::to_string(err);
}

Result<std::unique_ptr<FsBackend>> make_local_backend(LocalBackendOptions options,
                                                      boost::asio::thread_pool& pool) {
  char* real = ::realpath(options.root.c_str(), nullptr);
  if (!real) {
    int err = errno;
    if (err == ENOENT)
      return Error(ErrorKind::kNotFound, "root " + options.root + " does not exist");
    return posix_error("resolve root", options.root, err);
  }
  options.root = real;
  std::free(real);
  Beneath root;
  if (int err = Beneath::open(options.root, options.use_openat2, root)) {
    if (err == ENOTDIR)
      return Error(ErrorKind::kNotFound, "root " + options.root + " is not a directory");
    return posix_error("open root", options.root, err);
  }
  auto backend = std::make_unique<LocalBackend>(std::move(options), pool, std::move(root));
  if (Result<void> started = backend->start(); !started) return started.error();
  return std::unique_ptr<FsBackend>(std::move(backend));
}

}  // namespace editd
