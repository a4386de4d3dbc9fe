// The local backend's reads: stat and the bytes of a file.

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

Error LocalBackend::too_large(const std::string& shown, std::uint64_t size) const {
  return Error(ErrorKind::kTooLarge,
               shown + " is " + std::to_string(size) + " bytes, over the limit of " +
                   std::to_string(options_.max_file_bytes) + " (--max-file-bytes)",
               {{"path", shown}, {"size", size}, {"limit", options_.max_file_bytes}});
}

Result<FileStat> LocalBackend::stat_sync(const std::string& canonical) const {
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
  if (out.type == FileStat::Type::kFile) {
    auto ns = [](const timespec& t) {
      return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    };
    out.stamp = FileStat::Stamp{static_cast<std::uint64_t>(st.st_dev),
                                static_cast<std::uint64_t>(st.st_ino),
                                static_cast<std::uint64_t>(st.st_size), ns(st.st_mtim),
                                ns(st.st_ctim)};
  }
  return out;
}

Result<std::string> LocalBackend::read_sync(const std::string& canonical, std::uint64_t limit,
                                            bool* deferred) const {
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

}  // namespace editd::local_backend_detail
