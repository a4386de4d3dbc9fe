#include "backends/local_backend.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "backends/offload.h"

namespace editd {
namespace {

Error posix_error(std::string_view op, const std::string& path, int err) {
  return Error(ErrorKind::kIo,
               std::string(op) + " " + path + ": " + std::strerror(err),
               {{"errno", errno_name(err)}, {"path", path}});
}

std::vector<std::string> split_components(std::string_view p) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    if (j > i) out.emplace_back(p.substr(i, j - i));
    i = j + 1;
  }
  return out;
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

// Syncs a directory so that a rename or unlink in it is durable.
void sync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

class LocalBackend final : public FsBackend {
 public:
  LocalBackend(LocalBackendOptions options, boost::asio::thread_pool& pool)
      : options_(std::move(options)), pool_(pool) {}

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

  boost::asio::awaitable<Result<FileStat>> stat(std::string canonical) override {
    return offload(pool_, [canonical = std::move(canonical)]() -> Result<FileStat> {
      struct stat st;
      if (::stat(canonical.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return FileStat{};
        return posix_error("stat", canonical, errno);
      }
      FileStat out;
      out.size = static_cast<std::uint64_t>(st.st_size);
      out.type = S_ISREG(st.st_mode)   ? FileStat::Type::kFile
                 : S_ISDIR(st.st_mode) ? FileStat::Type::kDirectory
                                       : FileStat::Type::kOther;
      return out;
    });
  }

  boost::asio::awaitable<Result<std::string>> read(std::string canonical) override {
    return offload(pool_, [this, canonical = std::move(canonical)] { return read_sync(canonical); });
  }

  boost::asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) override {
    return offload(pool_, [this, canonical = std::move(canonical), bytes = std::move(bytes)] {
      return write_sync(canonical, bytes);
    });
  }

  boost::asio::awaitable<Result<void>> remove(std::string canonical) override {
    return offload(pool_, [this, canonical = std::move(canonical)] { return remove_sync(canonical); });
  }

  std::vector<std::string> missing_directories(const std::string& canonical) const override {
    std::vector<std::string> missing;
    struct stat st;
    for (std::string dir = parent_of(canonical); dir != "/" && dir != options_.root;
         dir = parent_of(dir)) {
      if (::stat(dir.c_str(), &st) == 0 || errno != ENOENT) break;
      missing.insert(missing.begin(), dir);
    }
    return missing;
  }

  boost::asio::awaitable<Result<void>> remove_directory(std::string canonical) override {
    return offload(pool_, [this, canonical = std::move(canonical)]() -> Result<void> {
      const std::string shown = display_path(canonical);
      if (options_.read_only)
        return Error(ErrorKind::kDenied,
                     "the server is read-only (--read-only): not removing " + shown,
                     {{"path", shown}});
      if (::rmdir(canonical.c_str()) != 0) {
        if (errno == ENOENT) return Error(ErrorKind::kNotFound, "not found: " + shown, {{"path", shown}});
        return posix_error("rmdir", shown, errno);
      }
      sync_dir(parent_of(canonical));
      return {};
    });
  }

 private:
  Result<std::string> resolve_sync(const std::string& path) const {
    std::string start = path.front() == '/' ? path : join(options_.root, path);
    std::deque<std::string> pending;
    for (auto& c : split_components(start)) pending.push_back(std::move(c));
    std::string out = "/";
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
      struct stat st;
      if (::lstat(next.c_str(), &st) != 0) {
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
        ssize_t n = ::readlink(next.c_str(), buf.data(), buf.size() - 1);
        if (n < 0) return posix_error("readlink", path, errno);
        std::string target(buf.data(), static_cast<std::size_t>(n));
        if (!target.empty() && target.front() == '/') out = "/";
        auto parts = split_components(target);
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

  bool inside_root(const std::string& p) const {
    const std::string& root = options_.root;
    if (root == "/" || p == root) return true;
    return p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/';
  }

  Result<std::string> read_sync(const std::string& canonical) const {
    const std::string shown = display_path(canonical);
    struct stat st;
    if (::stat(canonical.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        return Error(ErrorKind::kNotFound, "not found: " + shown, {{"path", shown}});
      return posix_error("stat", shown, errno);
    }
    if (S_ISDIR(st.st_mode))
      return Error(ErrorKind::kIsDirectory, shown + " is a directory", {{"path", shown}});
    if (!S_ISREG(st.st_mode))
      return Error(ErrorKind::kNotText, shown + " is not a regular file (FIFO, socket or device)",
                   {{"path", shown}, {"reason", "special"}});
    if (static_cast<std::uint64_t>(st.st_size) > options_.max_file_bytes)
      return too_large(shown, st.st_size);
    int fd = ::open(canonical.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return posix_error("open", shown, errno);
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &st) != 0) return posix_error("fstat", shown, errno);
    if (!S_ISREG(st.st_mode))
      return Error(ErrorKind::kNotText, shown + " is not a regular file", {{"path", shown}});
    std::string out;
    out.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (true) {
      if (got == out.size()) {
        // The file may have grown since fstat.
        if (out.size() >= options_.max_file_bytes + 1) break;
        out.resize(std::min<std::uint64_t>(out.size() + 65536, options_.max_file_bytes + 1));
      }
      ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0) {
        if (errno == EINTR) continue;
        return posix_error("read", shown, errno);
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    if (got > options_.max_file_bytes) return too_large(shown, got);
    return out;
  }

  Error too_large(const std::string& shown, std::uint64_t size) const {
    return Error(ErrorKind::kTooLarge,
                 shown + " is " + std::to_string(size) + " bytes, over the limit of " +
                     std::to_string(options_.max_file_bytes) + " (--max-file-bytes)",
                 {{"path", shown}, {"size", size}, {"limit", options_.max_file_bytes}});
  }

  Result<void> make_parents(const std::string& dir) const {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return {};
      return Error(ErrorKind::kNotFound, display_path(dir) + " is not a directory",
                   {{"path", display_path(dir)}});
    }
    if (errno != ENOENT) return posix_error("stat", display_path(dir), errno);
    if (auto r = make_parents(parent_of(dir)); !r) return r;
    if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
      return posix_error("mkdir", display_path(dir), errno);
    return {};
  }

  Result<void> write_sync(const std::string& canonical, const std::string& bytes) const {
    const std::string shown = display_path(canonical);
    if (options_.read_only)
      return Error(ErrorKind::kDenied, "the server is read-only (--read-only): not writing " + shown,
                   {{"path", shown}});
    if (bytes.size() > options_.max_file_bytes) return too_large(shown, bytes.size());
    const std::string dir = parent_of(canonical);
    if (auto r = make_parents(dir); !r) return r;

    struct stat st;
    bool exists = ::stat(canonical.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
      return Error(ErrorKind::kIsDirectory, shown + " is a directory", {{"path", shown}});
    if (exists && !S_ISREG(st.st_mode))
      return Error(ErrorKind::kNotText, shown + " is not a regular file", {{"path", shown}});

    std::string name = canonical.substr(canonical.rfind('/') + 1);
    std::string tmp = join(dir, "." + name.substr(0, 200) + ".editd-XXXXXX");
    int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0) return posix_error("create temporary file in", display_path(dir), errno);
    auto fail = [&](std::string_view op) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return posix_error(op, shown, err);
    };
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return fail("write");
      }
      done += static_cast<std::size_t>(n);
    }
    mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
    if (::fchmod(fd, mode) != 0) return fail("chmod");
    if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid()))
      (void)::fchown(fd, st.st_uid, st.st_gid);  // best effort: keep the owner when allowed
    if (::fsync(fd) != 0) return fail("fsync");
    if (::close(fd) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return posix_error("close", shown, err);
    }
    if (::rename(tmp.c_str(), canonical.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return posix_error("rename", shown, err);
    }
    sync_dir(dir);
    return {};
  }

  Result<void> remove_sync(const std::string& canonical) const {
    const std::string shown = display_path(canonical);
    if (options_.read_only)
      return Error(ErrorKind::kDenied, "the server is read-only (--read-only): not deleting " + shown,
                   {{"path", shown}});
    struct stat st;
    if (::lstat(canonical.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        return Error(ErrorKind::kNotFound, "not found: " + shown, {{"path", shown}});
      return posix_error("stat", shown, errno);
    }
    if (S_ISDIR(st.st_mode))
      return Error(ErrorKind::kIsDirectory, shown + " is a directory", {{"path", shown}});
    if (::unlink(canonical.c_str()) != 0) return posix_error("unlink", shown, errno);
    sync_dir(parent_of(canonical));
    return {};
  }

  LocalBackendOptions options_;
  boost::asio::thread_pool& pool_;
};

}  // namespace

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
  struct stat st;
  if (::stat(options.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Error(ErrorKind::kNotFound, "root " + options.root + " is not a directory");
  return std::unique_ptr<FsBackend>(new LocalBackend(std::move(options), pool));
}

}  // namespace editd
