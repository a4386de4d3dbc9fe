#include "backends/local_backend.h"

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

#include "backends/beneath.h"
#include "backends/journal.h"
#include "backends/offload.h"
#include "backends/runtime_dir.h"
#include "backends/stripe_lock.h"

namespace editd {
namespace {

namespace asio = boost::asio;
using BatchOp = FsBackend::BatchOp;

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

mode_t current_umask() {
  static const mode_t mask = [] {
    mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
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

// A component of the path became a symbolic link after resolve(): the
// request would now lead somewhere else, perhaps outside the root.
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

// Whether the OS user may replace or delete the file `name` of `dir`, as the
// kernel would judge a write to it (root passes for any mode).
bool may_write(int dir, const std::string& name) {
  if (::faccessat(dir, name.c_str(), W_OK, AT_EACCESS) == 0) return true;
  // EROFS and the like: the write itself reports them.
  return errno != EACCES && errno != EPERM;
}

// Runs fn() on a thread of its own and resumes the caller on its executor
// with fn's result: for a wait that lasts as long as another process holds a
// lock, which must not occupy a thread of the shared pool (see stripe_lock.h).
template <class F>
auto on_own_thread(F fn) {
  return run_elsewhere([](auto task) { std::thread(std::move(task)).detach(); }, std::move(fn));
}

// An awaitable that is ready with `value`: for work done on the caller's thread.
template <class T>
asio::awaitable<T> ready(T value) {
  co_return value;
}

// Takes stripes in order, waiting for other processes; gives back what it took
// when one fails.
struct AcquireStripes {
  std::shared_ptr<StripeLocks> locks;
  std::vector<std::uint32_t> stripes;

  Result<std::vector<std::uint32_t>> operator()() {
    std::vector<std::uint32_t> held;
    for (std::uint32_t s : stripes) {
      Result<void> r = locks->acquire(s);
      if (!r) {
        for (std::uint32_t h : held) locks->release(h);
        return r.error();
      }
      held.push_back(s);
    }
    return held;
  }
};

class StripeLock final : public FsBackend::Lock {
 public:
  explicit StripeLock(std::shared_ptr<StripeLocks> locks) : locks_(std::move(locks)) {}
  ~StripeLock() override {
    for (std::uint32_t s : held_) locks_->release(s);
  }
  void add(std::uint32_t s) { held_.push_back(s); }

 private:
  std::shared_ptr<StripeLocks> locks_;
  std::vector<std::uint32_t> held_;
};

// A canonical path taken apart relative to the root.
struct Target {
  std::string rel;   // "" for the root itself
  std::string dir;   // the parent, relative ("" for the root)
  std::string name;  // the last component ("" for the root itself)
  std::string shown;
};

// A temporary file being written, held (flock) by this process.
struct Staged {
  Fd fd;
  std::string name;
  ino_t ino = 0;
};

// The inodes that renames and unlinks take the last name of. Dropping the
// last name of a file nobody has open frees its blocks inside that call: on
// ext4 about 200 us a file, more than the rest of a small edit and half of a
// 100-file apply_patch. An O_PATH descriptor held across the call leaves that
// work to its close, which release() hands to the pool: it runs beside the
// reply instead of before it. After a crash in between, the filesystem frees
// the orphan inode itself (ext4's orphan list). At most kMaxHeld descriptors
// are held in the whole process, so that closes still queued never take the
// descriptors other requests need.
class Retired {
 public:
  static constexpr int kMaxHeld = 256;

  // Holds what `name` of `dir` names now. Best effort: without a descriptor
  // (over kMaxHeld, EMFILE, gone already) the call frees the inode itself.
  void hold(int dir, const std::string& name) {
    if (held_.fetch_add(1) >= kMaxHeld) {
      held_.fetch_sub(1);
      return;
    }
    Fd fd(::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
      held_.fetch_sub(1);
      return;
    }
    batch_.fds.push_back(std::move(fd));
  }
  // Closes them on `pool`, after the current work (or as the pool drops it
  // at shutdown). Unreleased, they close with this object.
  void release(asio::thread_pool& pool) {
    if (!batch_.fds.empty()) asio::post(pool, [batch = std::move(batch_)] {});
  }

 private:
  // Descriptors, counted in held_ until they close.
  struct Batch {
    Batch() = default;
    Batch(Batch&& other) noexcept : fds(std::move(other.fds)) { other.fds.clear(); }
    Batch& operator=(Batch&&) = delete;
    ~Batch() { held_.fetch_sub(static_cast<int>(fds.size())); }
    std::vector<Fd> fds;
  };

  static inline std::atomic<int> held_{0};
  Batch batch_;
};

// A failed system call: errno and what was being done, for the message.
struct Failure {
  int err = 0;
  const char* op = "";
};

class LocalBackend final : public FsBackend {
 public:
  LocalBackend(LocalBackendOptions options, asio::thread_pool& pool, Beneath root)
      : options_(std::move(options)),
        pool_(pool),
        root_(std::move(root)),
        journals_(root_, options_.durable) {}

  // Opens the per-user state and recovers what killed writers left.
  void start() {
    if (options_.read_only) {
      locks_ = std::make_shared<StripeLocks>(Fd(), "");
      registry_ = std::make_unique<TempRegistry>();
      return;
    }
    RuntimeDir runtime;
    Fd lock_file;
    int err = RuntimeDir::open(options_.runtime_dir, runtime);
    if (!err) err = runtime.open_lock_file(lock_file);
    struct stat st;
    if (err || ::fstat(root_.root_fd(), &st) != 0) {
      spdlog::warn(
          "editd: the state directory {} is unusable ({}): other editd processes are not kept "
          "off the files this one edits, and temporary files of killed writes are not cleaned",
          runtime.path().empty() ? options_.runtime_dir : runtime.path(), std::strerror(err));
      locks_ = std::make_shared<StripeLocks>(Fd(), "");
      registry_ = std::make_unique<TempRegistry>();
    } else {
      locks_ = std::make_shared<StripeLocks>(std::move(lock_file), runtime.path() + "/locks");
      registry_ = std::make_unique<TempRegistry>(runtime, options_.root, st.st_dev, st.st_ino);
    }
    recover();
  }

  Result<std::string> resolve(const std::string& path) const override { return resolve_sync(path); }

  std::string display_path(const std::string& canonical) const override {
    const std::string& root = options_.root;
    if (canonical == root) return ".";
    if (root == "/") return canonical.substr(1);
    if (canonical.size() > root.size() && canonical.compare(0, root.size(), root) == 0 &&
        canonical[root.size()] == '/')
      return canonical.substr(root.size() + 1);
    return canonical;
  }

  std::optional<std::uint64_t> size_hint(const std::string& canonical) const override {
    const std::string rel = display_path(canonical);
    if (rel == "." || rel.starts_with('/')) return std::nullopt;
    struct stat st;
    if (::fstatat(root_.root_fd(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
    return S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  }

  bool has_modes() const override { return true; }

  asio::awaitable<Result<FileStat>> stat(std::string canonical) override {
    return offload(pool_,
                   [this, canonical = std::move(canonical)] { return stat_sync(canonical); });
  }

  asio::awaitable<Result<Listing>> list(std::string canonical, unsigned depth,
                                        std::size_t limit) override {
    return offload(pool_, [this, canonical = std::move(canonical), depth, limit] {
      return list_sync(canonical, depth, limit);
    });
  }

  asio::awaitable<Result<std::string>> read(std::string canonical) override {
    // A small file is read here; a larger one is left unopened for the pool.
    if (options_.inline_bytes > 0) {
      bool deferred = false;
      Result<std::string> small = read_sync(canonical, options_.inline_bytes, &deferred);
      if (!deferred) return ready(std::move(small));
    }
    return offload(pool_,
                   [this, canonical = std::move(canonical)] { return read_sync(canonical); });
  }

  asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) override {
    if (!options_.durable && bytes.size() <= options_.inline_bytes)
      return ready(write_sync(canonical, bytes));
    return offload(pool_, [this, canonical = std::move(canonical), bytes = std::move(bytes)] {
      return write_sync(canonical, bytes);
    });
  }

  asio::awaitable<Result<void>> write_pieces(std::string canonical,
                                             std::vector<std::string_view> pieces) override {
    std::size_t size = 0;
    for (std::string_view p : pieces) size += p.size();
    if (!options_.durable && size <= options_.inline_bytes)
      return ready(write_sync(canonical, pieces));
    return offload(pool_, [this, canonical = std::move(canonical), pieces = std::move(pieces)] {
      return write_sync(canonical, pieces);
    });
  }

  asio::awaitable<Result<void>> remove(std::string canonical) override {
    return offload(pool_,
                   [this, canonical = std::move(canonical)] { return remove_sync(canonical); });
  }

  std::vector<std::string> missing_directories(const std::string& canonical) const override {
    auto t = target_of(canonical);
    if (!t || t->name.empty()) return {};
    Fd cur;
    if (root_.open_dir("", cur) != 0) return {};
    std::vector<std::string> missing;
    std::string abs = options_.root;
    for (const std::string& part : split_relative(t->dir)) {
      abs = join(abs, part);
      if (!missing.empty()) {
        missing.push_back(abs);
        continue;
      }
      Fd child;
      int err = root_.open_child_dir(cur.get(), part, child);
      if (err == ENOENT) {
        missing.push_back(abs);
      } else if (err) {
        return {};
      } else {
        cur = std::move(child);
      }
    }
    return missing;
  }

  asio::awaitable<Result<void>> remove_directory(std::string canonical) override {
    return offload(pool_, [this, canonical = std::move(canonical)] {
      return remove_directory_sync(canonical);
    });
  }

  asio::awaitable<Result<std::unique_ptr<Lock>>> lock(
      std::vector<std::string> canonicals) override {
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

  asio::awaitable<Result<void>> apply_batch(std::vector<BatchOp> ops,
                                            std::vector<std::size_t>& applied) override {
    return offload(pool_, [this, ops = std::move(ops), &applied]() mutable {
      return batch_sync(ops, applied);
    });
  }

 private:
  Result<std::string> resolve_sync(const std::string& path) const {
    // The root is canonical (realpath at start): a path under it is walked
    // from it, one fstatat on the root's descriptor per component below the
    // root, rather than one lstat per component from "/" (a root ten levels
    // deep cost ten more per request) or of the whole path each time.
    const std::string& root = options_.root;
    std::string out = "/";
    std::string_view below = path;
    if (path.front() != '/') {
      out = root;
    } else if (root != "/" && path.compare(0, root.size(), root) == 0 &&
               (path.size() == root.size() || path[root.size()] == '/')) {
      out = root;
      below.remove_prefix(root.size());
    }
    std::deque<std::string> pending;
    for (auto& c : split_relative(below)) pending.push_back(std::move(c));
    int hops = 0;
    while (!pending.empty()) {
      std::string c = std::move(pending.front());
      pending.pop_front();
      if (c == ".") continue;
      if (c == "..") {
        out = parent_of(out);
        continue;
      }
      std::string next = join(out, c);
      // Below the root, from the root's descriptor: the directory the opens
      // use, even if its path has been moved since.
      const char* rel = below_root(next);
      struct stat st;
      if ((rel ? ::fstatat(root_.root_fd(), rel, &st, AT_SYMLINK_NOFOLLOW)
               : ::lstat(next.c_str(), &st)) != 0) {
        int err = errno;
        if (err == ENOENT) {
          // The rest does not exist: finish lexically.
          out = next;
          while (!pending.empty()) {
            std::string rest = std::move(pending.front());
            pending.pop_front();
            if (rest == ".") continue;
            out = rest == ".." ? parent_of(out) : join(out, rest);
          }
          break;
        }
        if (err == ENOTDIR)
          return Error(ErrorKind::kNotFound,
                       "not found: " + path + " (a parent, " + display_path(out) + ", is a file)",
                       {{"path", path}});
        return posix_error("resolve", path, err);
      }
      if (S_ISLNK(st.st_mode)) {
        if (++hops > 40) return posix_error("resolve", path, ELOOP);
        std::vector<char> buf(PATH_MAX + 1);
        ssize_t n = rel ? ::readlinkat(root_.root_fd(), rel, buf.data(), buf.size() - 1)
                        : ::readlink(next.c_str(), buf.data(), buf.size() - 1);
        if (n < 0) return posix_error("readlink", path, errno);
        std::string target(buf.data(), static_cast<std::size_t>(n));
        if (!target.empty() && target.front() == '/') out = "/";
        auto parts = split_relative(target);
        pending.insert(pending.begin(), parts.begin(), parts.end());
        continue;
      }
      if (!S_ISDIR(st.st_mode) && !pending.empty()) {
        // A file used as a directory.
        return Error(ErrorKind::kNotFound,
                     "not found: " + path + " (" + display_path(next) + " is not a directory)",
                     {{"path", path}});
      }
      out = next;
    }
    if (!inside_root(out))
      return Error(ErrorKind::kOutsideRoot,
                   "path " + path + " is outside the root " + options_.root +
                       " (paths are judged after resolving links and ..)",
                   {{"path", path}, {"root", options_.root}});
    return out;
  }

  // The part of absolute path `p` below the root ("a/b" of ROOT/a/b), or
  // nullptr when `p` is the root or not under it.
  const char* below_root(const std::string& p) const {
    const std::string& root = options_.root;
    if (root == "/") return p.size() > 1 ? p.c_str() + 1 : nullptr;
    if (p.size() > root.size() + 1 && p.compare(0, root.size(), root) == 0 &&
        p[root.size()] == '/')
      return p.c_str() + root.size() + 1;
    return nullptr;
  }

  bool inside_root(const std::string& p) const {
    const std::string& root = options_.root;
    if (root == "/" || p == root) return true;
    return p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/';
  }

  // `canonical` relative to the root. Anything but a canonical path inside the
  // root (resolve()'s output) is outside_root.
  Result<Target> target_of(const std::string& canonical) const {
    Target t;
    t.shown = display_path(canonical);
    const std::string& root = options_.root;
    if (canonical == root) return t;
    std::string_view rel;
    if (root == "/" && canonical.size() > 1 && canonical[0] == '/')
      rel = std::string_view(canonical).substr(1);
    else if (canonical.size() > root.size() + 1 && canonical.compare(0, root.size(), root) == 0 &&
             canonical[root.size()] == '/')
      rel = std::string_view(canonical).substr(root.size() + 1);
    std::vector<std::string> parts = split_relative(rel);
    bool canonical_form =
        !rel.empty() && rel.back() != '/' && rel.find("//") == std::string_view::npos;
    for (const std::string& p : parts) canonical_form = canonical_form && p != "." && p != "..";
    if (!canonical_form)
      return Error(ErrorKind::kOutsideRoot,
                   "path " + canonical + " is not a canonical path inside the root " + root,
                   {{"path", canonical}, {"root", root}});
    t.rel = std::string(rel);
    t.dir = parent_relative(rel);
    t.name = leaf_of(rel);
    return t;
  }

  // The error of a failed open or lookup on the way to `t`.
  static Error path_error(const Target& t, int err, std::string_view op) {
    if (err == ENOENT) return not_found(t.shown);
    if (err == ENOTDIR)
      return Error(ErrorKind::kNotFound, "not found: " + t.shown + " (a parent is not a directory)",
                   {{"path", t.shown}});
    if (err == ELOOP) return changed(t.shown);
    return posix_error(op, t.shown, err);
  }

  Error too_large(const std::string& shown, std::uint64_t size) const {
    return Error(ErrorKind::kTooLarge,
                 shown + " is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(options_.max_file_bytes) + " (--max-file-bytes)",
                 {{"path", shown}, {"size", size}, {"limit", options_.max_file_bytes}});
  }

  InjectedFault fault(LocalSyscall call, const std::string& name) const {
    return options_.inject ? options_.inject(call, name) : InjectedFault{};
  }
  int injected(LocalSyscall call, const std::string& name) const { return fault(call, name).err; }

  int record(journal::Journal* j, const std::string& line) const {
    if (!j || !j->open()) return 0;
    if (int err = injected(LocalSyscall::kJournal, line)) return err;
    return j->append(line);
  }

  Result<FileStat> stat_sync(const std::string& canonical) const {
    auto t = target_of(canonical);
    if (!t) return t.error();
    struct stat st;
    if (t->name.empty()) {
      if (::fstat(root_.root_fd(), &st) != 0) return posix_error("stat", t->shown, errno);
    } else {
      Fd dir;
      int err = root_.open_dir(t->dir, dir);
      if (err == ENOENT || err == ENOTDIR) return FileStat{};
      if (err) return path_error(*t, err, "stat");
      if (::fstatat(dir.get(), t->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return FileStat{};
        return posix_error("stat", t->shown, errno);
      }
    }
    FileStat out;
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.type = S_ISREG(st.st_mode)   ? FileStat::Type::kFile
               : S_ISDIR(st.st_mode) ? FileStat::Type::kDirectory
                                     : FileStat::Type::kOther;
    if (out.type == FileStat::Type::kFile)
      out.attributes = FileAttributes{static_cast<std::uint32_t>(st.st_mode & 07777),
                                      static_cast<std::uint32_t>(st.st_uid),
                                      static_cast<std::uint32_t>(st.st_gid)};
    return out;
  }

  Result<Listing> list_sync(const std::string& canonical, unsigned depth, std::size_t limit) const {
    auto t = target_of(canonical);
    if (!t) return t.error();
    Fd at;
    if (int err = root_.open_dir(t->rel, at)) return path_error(*t, err, "list");
    Listing out;
    // Breadth first, so that a limit keeps the upper levels whole.
    struct Pending {
      Fd dir;  // O_PATH
      std::string prefix;
      unsigned level;
    };
    std::deque<Pending> pending;
    pending.push_back({std::move(at), "", 1});
    while (!pending.empty()) {
      Pending p = std::move(pending.front());
      pending.pop_front();
      Fd readable(::openat(p.dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      if (!readable.valid()) {
        if (p.prefix.empty()) return path_error(*t, errno, "list");
        continue;  // a subdirectory that went away or may not be read
      }
      DIR* d = ::fdopendir(readable.release());
      if (!d) return path_error(*t, errno, "list");
      std::vector<DirEntry> here;
      while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name.empty() || name.front() == '.') continue;
        bool is_dir = e->d_type == DT_DIR;
        if (e->d_type == DT_UNKNOWN) {
          struct stat st;
          is_dir = ::fstatat(::dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISDIR(st.st_mode);
        }
        here.push_back({p.prefix + name, is_dir});
      }
      ::closedir(d);
      std::sort(here.begin(), here.end(),
                [](const DirEntry& a, const DirEntry& b) { return a.path < b.path; });
      for (DirEntry& e : here) {
        if (out.entries.size() >= limit) {
          out.truncated = true;
          break;
        }
        if (e.directory && p.level < depth) {
          Fd child;
          const std::string name = e.path.substr(p.prefix.size());
          if (root_.open_child_dir(p.dir.get(), name, child) == 0)
            pending.push_back({std::move(child), e.path + "/", p.level + 1});
        }
        out.entries.push_back(std::move(e));
      }
      if (out.truncated) break;
    }
    std::sort(out.entries.begin(), out.entries.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.path < b.path; });
    return out;
  }

  // The file's bytes. With `deferred`: a regular file larger than `limit`, by
  // its size or by what reading it finds, is not read, and *deferred says so.
  Result<std::string> read_sync(const std::string& canonical,
                                std::uint64_t limit = std::numeric_limits<std::uint64_t>::max(),
                                bool* deferred = nullptr) const {
    auto t = target_of(canonical);
    if (!t) return t.error();
    const std::string& shown = t->shown;
    if (t->name.empty()) return is_directory(shown);
    Fd dir;
    if (int err = root_.open_dir(t->dir, dir)) return path_error(*t, err, "open");
    struct stat st;
    if (::fstatat(dir.get(), t->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return path_error(*t, errno, "stat");
    if (S_ISDIR(st.st_mode)) return is_directory(shown);
    if (S_ISLNK(st.st_mode)) return changed(shown);
    // Never opened: a FIFO would block, a device may act on open.
    if (!S_ISREG(st.st_mode)) return not_regular(shown);
    if (static_cast<std::uint64_t>(st.st_size) > options_.max_file_bytes)
      return too_large(shown, st.st_size);
    if (deferred && static_cast<std::uint64_t>(st.st_size) > limit) {
      *deferred = true;
      return std::string();
    }
    Fd fd(::openat(dir.get(), t->name.c_str(),
                   O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW));
    if (!fd.valid()) return path_error(*t, errno, "open");
    if (::fstat(fd.get(), &st) != 0) return posix_error("fstat", shown, errno);
    if (!S_ISREG(st.st_mode)) return not_regular(shown);
    if (static_cast<std::uint64_t>(st.st_size) > options_.max_file_bytes)
      return too_large(shown, st.st_size);
    if (deferred && static_cast<std::uint64_t>(st.st_size) > limit) {
      *deferred = true;  // it grew since fstatat
      return std::string();
    }
    // fstat's size is where the reading starts, not where it stops: the file
    // is read until read() says it has ended, one call more than its size
    // needs. A file that grew since the fstat, or whose size its file system
    // does not know (procfs and some FUSE mounts say 0), is read whole, up to
    // --max-file-bytes (on the pool, past `limit`).
    const std::uint64_t cap = options_.max_file_bytes + 1;  // a byte past it: too large
    std::string out(static_cast<std::size_t>(st.st_size) + 1, '\0');
    std::size_t got = 0;
    for (;;) {
      if (got == out.size()) {
        if (got >= cap) return too_large(shown, got);
        if (deferred && got > limit) {
          *deferred = true;
          return std::string();
        }
        out.resize(static_cast<std::size_t>(std::min<std::uint64_t>(2 * got + 4096, cap)));
      }
      ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
      if (n < 0) {
        if (errno == EINTR) continue;
        return posix_error("read", shown, errno);
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    return out;
  }

  // Opens directory `rel`, making the missing ones (each recorded in `j` first,
  // then appended to `made`, outermost first). 0 or errno.
  int make_dirs(const std::string& rel, Fd& out, std::vector<std::string>& made,
                journal::Journal* j) const {
    int err = root_.open_dir(rel, out);
    if (err != ENOENT) return err;
    Fd cur;
    if ((err = root_.open_dir("", cur))) return err;
    std::string sofar;
    for (const std::string& part : split_relative(rel)) {
      std::string next = sofar.empty() ? part : sofar + "/" + part;
      Fd child;
      err = root_.open_child_dir(cur.get(), part, child);
      if (err == ENOENT) {
        if ((err = record(j, "dir " + journal::escape(next)))) return err;
        if ((err = injected(LocalSyscall::kMkdir, next))) return err;
        if (::mkdirat(cur.get(), part.c_str(), 0777) == 0)
          made.push_back(next);
        else if (errno != EEXIST)
          return errno;
        err = root_.open_child_dir(cur.get(), part, child);
      }
      if (err) return err;
      cur = std::move(child);
      sofar = std::move(next);
    }
    out = std::move(cur);
    return 0;
  }

  // Removes the directories of `made` that are empty, innermost first.
  void remove_dirs(const std::vector<std::string>& made) const {
    for (auto d = made.rbegin(); d != made.rend(); ++d) {
      Fd parent;
      if (root_.open_dir(parent_relative(*d), parent) == 0)
        ::unlinkat(parent.get(), leaf_of(*d).c_str(), AT_REMOVEDIR);
    }
  }

  // Makes the entries of `made` durable in their parents.
  void sync_made(const std::vector<std::string>& made) const {
    for (const std::string& d : made) {
      Fd parent;
      if (root_.open_dir(parent_relative(d), parent) == 0) sync_dir(parent.get());
    }
  }

  // What write() and apply_batch() check of an existing target: `exists` and
  // `st` say what is there.
  Result<void> check_write_target(int dir, const Target& t, struct stat& st, bool& exists) const {
    exists = ::fstatat(dir, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists) {
      if (errno == ENOENT) return {};
      return posix_error("stat", t.shown, errno);
    }
    if (S_ISDIR(st.st_mode)) return is_directory(t.shown);
    if (S_ISLNK(st.st_mode)) return changed(t.shown);
    if (!S_ISREG(st.st_mode))
      return Error(ErrorKind::kNotText, t.shown + " is not a regular file", {{"path", t.shown}});
    if (!may_write(dir, t.name)) return not_writable(t.shown, st.st_mode);
    return {};
  }

  Result<void> check_removal(int dir, const Target& t, struct stat& st) const {
    if (::fstatat(dir, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return path_error(t, errno, "stat");
    if (S_ISDIR(st.st_mode)) return is_directory(t.shown);
    if (S_ISLNK(st.st_mode)) return changed(t.shown);
    if (!may_write(dir, t.name)) return not_writable(t.shown, st.st_mode);
    return {};
  }

  // Creates a temporary file beside `t` (recorded in `j` first) and locks it.
  Failure create_temp(int dir, const Target& t, Staged& out, journal::Journal* j) const {
    static constexpr const char* kCreate = "create a temporary file for";
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string name = journal::temp_name(t.name);
      if (int err = record(j, "tmp " + journal::dir_field(t.dir) + " " + journal::escape(name)))
        return {err, "write the journal entry for"};
      if (int err = injected(LocalSyscall::kCreateTemp, name)) return {err, kCreate};
      Fd fd(::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (!fd.valid()) {
        if (errno == EEXIST) continue;
        return {errno, kCreate};
      }
      // Held until the rename: recovery leaves the temporary files of live writers alone.
      while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::unlinkat(dir, name.c_str(), 0);
        return {err, "lock the temporary file of"};
      }
      struct stat st;
      if (::fstat(fd.get(), &st) != 0) {
        int err = errno;
        ::unlinkat(dir, name.c_str(), 0);
        return {err, "stat the temporary file of"};
      }
      if (st.st_nlink == 0) continue;  // a recovery took it for a dead writer's
      out.fd = std::move(fd);
      out.name = std::move(name);
      out.ino = st.st_ino;
      return {};
    }
    return {EEXIST, kCreate};
  }

  // Writes the pieces' concatenation into the temporary file (writev, up to
  // IOV_MAX pieces a call), with the mode and owner of `want` when given, else
  // of `existing`, else the umask's mode. The owner is kept where allowed (the
  // superuser, or a group of ours); when it cannot be, the set-user-ID and
  // set-group-ID bits are dropped rather than given to editd's user.
  // `executable`, when given, then sets or clears the execute bits.
  Failure fill_temp(Staged& s, std::span<const std::string_view> pieces,
                    const struct stat* existing,
                    const std::optional<FileAttributes>& want = std::nullopt,
                    std::optional<bool> executable = std::nullopt) const {
    std::size_t piece = 0, offset = 0;  // the next byte to write
    while (piece < pieces.size()) {
      if (offset == pieces[piece].size()) {
        ++piece;
        offset = 0;
        continue;
      }
      InjectedFault f = fault(LocalSyscall::kWrite, s.name);
      if (f.err) return {f.err, "write"};
      std::array<iovec, IOV_MAX> iov;
      int count = 0;
      std::size_t room = std::max<std::size_t>(1, f.max_bytes);
      for (std::size_t i = piece; i < pieces.size() && count < IOV_MAX && room > 0; ++i) {
        const std::string_view p = pieces[i].substr(i == piece ? offset : 0);
        const std::size_t take = std::min(p.size(), room);
        if (take == 0) continue;
        iov[count++] = {const_cast<char*>(p.data()), take};
        room -= take;
      }
      ssize_t n = ::writev(s.fd.get(), iov.data(), count);
      if (n < 0) {
        if (errno == EINTR) continue;
        return {errno, "write"};
      }
      // Past what was written, whole pieces first.
      auto left = static_cast<std::size_t>(n);
      while (left > 0) {
        const std::size_t rest = pieces[piece].size() - offset;
        if (left < rest) {
          offset += left;
          break;
        }
        left -= rest;
        ++piece;
        offset = 0;
      }
    }
    std::optional<FileAttributes> keep = want;
    if (!keep && existing)
      keep = FileAttributes{static_cast<std::uint32_t>(existing->st_mode & 07777),
                            static_cast<std::uint32_t>(existing->st_uid),
                            static_cast<std::uint32_t>(existing->st_gid)};
    mode_t mode = keep ? (keep->mode & 07777) : (0666 & ~current_umask());
    if (executable) mode = with_executable(mode, *executable);
    // The owner first: a change of owner clears the set-ID bits, which the
    // chmod after it gives back where the owner was kept.
    if (keep && (keep->uid != euid_ || keep->gid != egid_) &&
        ::fchown(s.fd.get(), keep->uid, keep->gid) != 0) {
      mode &= ~static_cast<mode_t>(S_ISUID | S_ISGID);  // best effort: the owner is ours
    }
    if (::fchmod(s.fd.get(), mode) != 0) return {errno, "chmod"};
    return {};
  }

  // fsync of a directory, unless durability is off.
  void sync_dir(int fd) const {
    if (options_.durable) sync_directory(fd);
  }

  // sync_dir of each directory, all at once.
  void sync_dirs(const std::map<std::string, Fd>& dirs) const {
    if (!options_.durable) return;
    std::vector<Fd> readable;
    std::vector<int> fds;
    for (const auto& [rel, fd] : dirs) {
      Fd r = syncable_directory(fd.get());
      if (!r.valid()) continue;
      fds.push_back(r.get());
      readable.push_back(std::move(r));
    }
    sync_all(fds);
  }

  Failure sync_temp(Staged& s) const {
    if (!options_.durable) return {};
    if (int err = injected(LocalSyscall::kFsync, s.name)) return {err, "fsync"};
    while (::fsync(s.fd.get()) != 0)
      if (errno != EINTR) return {errno, "fsync"};
    return {};
  }

  Result<void> write_sync(const std::string& canonical, const std::string& bytes) const {
    const std::string_view whole = bytes;
    return write_sync(canonical, std::span(&whole, 1));
  }

  Result<void> write_sync(const std::string& canonical,
                          std::span<const std::string_view> pieces) const {
    std::size_t size = 0;
    for (std::string_view p : pieces) size += p.size();
    auto t = target_of(canonical);
    if (!t) return t.error();
    const std::string& shown = t->shown;
    if (options_.read_only) return read_only_error("writing", shown);
    if (size > options_.max_file_bytes) return too_large(shown, size);
    if (t->name.empty()) return is_directory(shown);

    Fd dir;
    std::vector<std::string> made;
    if (int err = make_dirs(t->dir, dir, made, nullptr)) {
      remove_dirs(made);
      return path_error(*t, err, "create the directories of");
    }
    struct stat st;
    bool exists = false;
    if (auto r = check_write_target(dir.get(), *t, st, exists); !r) {
      remove_dirs(made);
      return r;
    }
    registry_->add(t->dir);
    Staged tmp;
    Failure f = create_temp(dir.get(), *t, tmp, nullptr);
    if (!f.err) f = fill_temp(tmp, pieces, exists ? &st : nullptr);
    if (!f.err) f = sync_temp(tmp);
    Retired replaced;
    if (!f.err) {
      f.op = "rename";
      f.err = injected(LocalSyscall::kRename, t->name);
      if (!f.err && exists) replaced.hold(dir.get(), t->name);
      if (!f.err && ::renameat(dir.get(), tmp.name.c_str(), dir.get(), t->name.c_str()) != 0)
        f.err = errno;
    }
    if (f.err) {
      if (!tmp.name.empty()) ::unlinkat(dir.get(), tmp.name.c_str(), 0);
      remove_dirs(made);
      return posix_error(f.op, shown, f.err);
    }
    sync_dir(dir.get());
    sync_made(made);
    replaced.release(pool_);
    return {};
  }

  Result<void> remove_sync(const std::string& canonical) const {
    auto t = target_of(canonical);
    if (!t) return t.error();
    const std::string& shown = t->shown;
    if (options_.read_only) return read_only_error("deleting", shown);
    if (t->name.empty()) return is_directory(shown);
    Fd dir;
    if (int err = root_.open_dir(t->dir, dir)) return path_error(*t, err, "unlink");
    struct stat st;
    if (auto r = check_removal(dir.get(), *t, st); !r) return r;
    Retired removed;
    int err = injected(LocalSyscall::kUnlink, t->name);
    if (!err) removed.hold(dir.get(), t->name);
    if (!err && ::unlinkat(dir.get(), t->name.c_str(), 0) != 0) err = errno;
    if (err) return posix_error("unlink", shown, err);
    sync_dir(dir.get());
    removed.release(pool_);
    return {};
  }

  Result<void> remove_directory_sync(const std::string& canonical) const {
    auto t = target_of(canonical);
    if (!t) return t.error();
    const std::string& shown = t->shown;
    if (options_.read_only) return read_only_error("removing", shown);
    if (t->name.empty()) return posix_error("rmdir", shown, EBUSY);
    Fd dir;
    if (int err = root_.open_dir(t->dir, dir)) return path_error(*t, err, "rmdir");
    if (::unlinkat(dir.get(), t->name.c_str(), AT_REMOVEDIR) != 0) {
      int err = errno;
      if (err == ENOENT) return not_found(shown);
      return posix_error("rmdir", shown, err == EEXIST ? ENOTEMPTY : err);
    }
    sync_dir(dir.get());
    return {};
  }

  // apply_batch: check everything, stage every write, journal, commit, apply
  // (see backends/journal.h for what a crash at each point leaves).
  Result<void> batch_sync(std::vector<BatchOp>& ops, std::vector<std::size_t>& applied) {
    struct Item {
      const BatchOp* op = nullptr;
      Target t;
      bool write = false;
      bool exists = false;
      struct stat st {};
      Staged temp;
      bool renamed = false;
    };
    std::vector<Item> items;
    for (const BatchOp& op : ops) {
      auto t = target_of(op.canonical);
      if (!t) return t.error();
      Item& it = items.emplace_back();
      it.op = &op;
      it.t = std::move(*t);
      it.write = op.kind == BatchOp::Kind::kWrite;
    }
    if (items.empty()) return {};
    if (options_.read_only)
      return read_only_error(items[0].write ? "writing" : "deleting", items[0].t.shown);

    // 1. Every check, before anything changes.
    std::map<std::string, Fd> dirs;  // relative directory -> descriptor
    for (Item& it : items) {
      const std::string& shown = it.t.shown;
      if (it.write && it.op->bytes.size() > options_.max_file_bytes)
        return too_large(shown, it.op->bytes.size());
      if (it.t.name.empty()) return is_directory(shown);
      auto d = dirs.find(it.t.dir);
      if (d == dirs.end()) {
        Fd fd;
        int err = root_.open_dir(it.t.dir, fd);
        if (err == ENOENT && it.write) continue;  // made while staging
        if (err) return path_error(it.t, err, it.write ? "open the directory of" : "unlink");
        d = dirs.emplace(it.t.dir, std::move(fd)).first;
      }
      Result<void> ok = it.write ? check_write_target(d->second.get(), it.t, it.st, it.exists)
                                 : check_removal(d->second.get(), it.t, it.st);
      if (!ok) return ok;
    }

    // 2. Stage every write in a temporary file beside its target.
    journal::Journal j;
    if (int err = journals_.begin(j))
      spdlog::debug("apply_batch without a journal: {}/.editd: {}", options_.root,
                    std::strerror(err));
    std::vector<std::string> made;
    auto unstage = [&] {
      for (Item& it : items) {
        if (it.temp.name.empty() || it.renamed) continue;
        if (auto d = dirs.find(it.t.dir); d != dirs.end())
          ::unlinkat(d->second.get(), it.temp.name.c_str(), 0);
        it.temp.fd.reset();
      }
      remove_dirs(made);
      if (j.open()) journals_.end(j);
    };
    for (Item& it : items) {
      if (!it.write) continue;
      auto d = dirs.find(it.t.dir);
      if (d == dirs.end()) {
        Fd fd;
        if (int err = make_dirs(it.t.dir, fd, made, &j)) {
          unstage();
          return path_error(it.t, err, "create the directories of");
        }
        d = dirs.emplace(it.t.dir, std::move(fd)).first;
      }
      registry_->add(it.t.dir);
      Failure f = create_temp(d->second.get(), it.t, it.temp, &j);
      const std::string_view bytes = it.op->bytes;
      if (!f.err)
        f = fill_temp(it.temp, std::span(&bytes, 1), it.exists ? &it.st : nullptr,
                      it.op->attributes, it.op->executable);
      if (f.err) {
        unstage();
        return posix_error(f.op, it.t.shown, f.err);
      }
      // Start the writeback now; the fsyncs below then mostly wait for it.
      if (options_.durable) ::sync_file_range(it.temp.fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    // Everything the commit stands on is made durable in one group of fsyncs
    // run at once: the temporary files, the directories that hold the journal,
    // and those that hold the temporary files and the directories made for
    // them. Nothing is renamed before the commit, so their order is free.
    if (options_.durable) {
      // The injected failures first, in order, as the fsyncs run at once.
      std::vector<int> fds;
      std::vector<const Item*> synced;
      for (const Item& it : items) {
        if (!it.write) continue;
        if (int err = injected(LocalSyscall::kFsync, it.temp.name)) {
          unstage();
          return posix_error("fsync", it.t.shown, err);
        }
        fds.push_back(it.temp.fd.get());
        synced.push_back(&it);
      }
      std::vector<Fd> readable;
      if (j.open()) {
        if (int err = j.take_directories(readable)) {
          unstage();
          return posix_error("commit the journal of the change to", items[0].t.shown, err);
        }
      }
      const std::size_t journal_end = fds.size() + readable.size();
      std::set<std::string> holding;
      for (Item& it : items)
        if (it.write) holding.insert(it.t.dir);
      for (const std::string& m : made) holding.insert(parent_relative(m));
      for (const std::string& d : holding) {
        Fd fd;
        if (root_.open_dir(d, fd) != 0) continue;
        if (Fd r = syncable_directory(fd.get()); r.valid()) readable.push_back(std::move(r));
      }
      for (const Fd& d : readable) fds.push_back(d.get());
      // The first failure counts. One of the files' directories (the last
      // ones) is ignored, as sync_dir ignores it for every write.
      if (auto [at, err] = sync_all(fds); err && at < journal_end) {
        unstage();
        if (at < synced.size()) return posix_error("fsync", synced[at]->t.shown, err);
        return posix_error("commit the journal of the change to", items[0].t.shown, err);
      }
    }

    // 3. Commit: from here on, a crash means the change is rolled forward.
    if (j.open()) {
      // The records and the commit in one write: none counts before the commit.
      std::string records;
      for (Item& it : items) {
        std::string rec =
            it.write ? "mv " + journal::dir_field(it.t.dir) + " " + journal::escape(it.temp.name) +
                           " " + journal::escape(it.t.name) + " " + std::to_string(it.temp.ino) +
                           " " + (it.exists ? std::to_string(it.st.st_ino) : std::string("-"))
                     : "rm " + journal::dir_field(it.t.dir) + " " + journal::escape(it.t.name) +
                           " " + std::to_string(it.st.st_ino);
        if (int err = injected(LocalSyscall::kJournal, rec)) {
          unstage();
          return posix_error("write the journal entry for", it.t.shown, err);
        }
        records += rec;
        records += '\n';
      }
      int err = injected(LocalSyscall::kJournal, "commit");
      if (!err) err = j.commit(records);
      if (err) {
        unstage();
        return posix_error("commit the journal of the change to", items[0].t.shown, err);
      }
    }

    // 4. Apply, in order.
    Retired replaced;
    for (Item& it : items)
      if (!it.write || it.exists) replaced.hold(dirs.at(it.t.dir).get(), it.t.name);
    for (std::size_t i = 0; i < items.size(); ++i) {
      Item& it = items[i];
      int dir = dirs.at(it.t.dir).get();
      Failure f;
      if (it.write) {
        f.op = "rename";
        f.err = injected(LocalSyscall::kRename, it.t.name);
        if (!f.err && ::renameat(dir, it.temp.name.c_str(), dir, it.t.name.c_str()) != 0)
          f.err = errno;
        it.renamed = f.err == 0;
      } else {
        f.op = "unlink";
        f.err = injected(LocalSyscall::kUnlink, it.t.name);
        if (!f.err && ::unlinkat(dir, it.t.name.c_str(), 0) != 0) f.err = errno;
      }
      if (f.err) {
        // The caller undoes what took effect; recovery must not redo the rest.
        if (j.open()) j.abort();
        for (Item& rest : items) {
          if (rest.temp.name.empty() || rest.renamed) continue;
          ::unlinkat(dirs.at(rest.t.dir).get(), rest.temp.name.c_str(), 0);
          rest.temp.fd.reset();
        }
        sync_dirs(dirs);
        if (j.open()) journals_.end(j);
        return posix_error(f.op, it.t.shown, f.err);
      }
      applied.push_back(i);
    }

    // 5. Durable, then the journal goes.
    sync_dirs(dirs);
    if (j.open()) journals_.end(j);
    replaced.release(pool_);
    return {};
  }

  void recover() {
    journal::Journals::Stats stats = journals_.recover(*locks_, options_.root);
    int temps = stats.temps_removed;
    registry_->recover([&](const std::string& rel) {
      Fd dir;
      if (root_.open_dir(rel, dir) == 0) temps += journal::remove_stale_temps(dir.get());
    });
    if (stats.rolled_forward || stats.rolled_back || temps)
      spdlog::info(
          "recovered {}: {} interrupted change(s) completed, {} undone, {} temporary file(s) "
          "removed",
          options_.root, stats.rolled_forward, stats.rolled_back, temps);
    if (stats.left)
      spdlog::info(
          "{}/.editd/journal: {} journal(s) of running editd processes (or of another version) "
          "left alone",
          options_.root, stats.left);
  }

  LocalBackendOptions options_;
  const uid_t euid_ = ::geteuid();  // editd never changes its identity
  const gid_t egid_ = ::getegid();
  asio::thread_pool& pool_;
  Beneath root_;
  journal::Journals journals_;
  std::shared_ptr<StripeLocks> locks_;
  std::unique_ptr<TempRegistry> registry_;
};

}  // namespace

std::string errno_name(int err) {
  const char* name = ::strerrorname_np(err);
  return name ? name : "E" + std::to_string(err);
}

Result<std::unique_ptr<FsBackend>> make_local_backend(LocalBackendOptions options,
                                                      asio::thread_pool& pool) {
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
  backend->start();
  return std::unique_ptr<FsBackend>(std::move(backend));
}

}  // namespace editd
