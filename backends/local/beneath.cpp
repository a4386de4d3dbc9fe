#include "backends/local/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <utility>
#include <vector>

namespace editd {
namespace {

constexpr std::uint64_t kResolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

long call_openat2(int dir, const char* path, std::uint64_t flags) {
  open_how how{};
  how.flags = flags | O_CLOEXEC;
  how.resolve = kResolve;
  long fd;
  // EAGAIN: a rename raced with the lookup; the kernel asks for a retry.
  do {
    fd = ::syscall(SYS_openat2, dir, path, &how, sizeof how);
  } while (fd < 0 && (errno == EINTR || errno == EAGAIN));
  return fd;
}

}  // namespace

std::vector<std::string> split_relative(std::string_view rel) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < rel.size()) {
    std::size_t j = rel.find('/', i);
    if (j == std::string_view::npos) j = rel.size();
    if (j > i) out.emplace_back(rel.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string parent_relative(std::string_view rel) {
  std::size_t slash = rel.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(rel.substr(0, slash));
}

std::string leaf_of(std::string_view rel) {
  std::size_t slash = rel.rfind('/');
  return std::string(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

int Beneath::open(const std::string& root, bool allow_openat2, Beneath& out) {
  Fd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return errno;
  out.root_ = std::move(fd);
  out.openat2_ = false;
  if (allow_openat2) {
    // ENOSYS before Linux 5.6; EPERM (or ENOSYS) from seccomp filters that do
    // not know the call. Any failure means the walk.
    long probe = call_openat2(out.root_.get(), ".", O_PATH | O_DIRECTORY);
    if (probe >= 0) {
      ::close(static_cast<int>(probe));
      out.openat2_ = true;
    }
  }
  return 0;
}

int Beneath::openat2_dir(int dir, const char* path, Fd& out) const {
  long fd = call_openat2(dir, path, O_PATH | O_DIRECTORY);
  if (fd < 0) return errno == EXDEV ? ELOOP : errno;
  out.reset(static_cast<int>(fd));
  return 0;
}

int Beneath::open_child_dir(int dir, const std::string& name, Fd& out) const {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    return EINVAL;
  if (openat2_) return openat2_dir(dir, name.c_str(), out);
  Fd fd(::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return errno;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return errno;
  if (S_ISLNK(st.st_mode)) return ELOOP;
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  out = std::move(fd);
  return 0;
}

int Beneath::open_dir(std::string_view rel, Fd& out) const {
  std::vector<std::string> parts = split_relative(rel);
  for (const std::string& p : parts)
    if (p == "." || p == "..") return EINVAL;
  if (parts.empty()) {
    out = Fd::borrowed(root_.get());
    return 0;
  }
  if (openat2_) {
    std::string joined;
    for (const std::string& p : parts) joined += (joined.empty() ? "" : "/") + p;
    return openat2_dir(root_.get(), joined.c_str(), out);
  }
  Fd cur;
  int at = root_.get();
  for (const std::string& p : parts) {
    Fd next;
    if (int err = open_child_dir(at, p, next)) return err;
    cur = std::move(next);
    at = cur.get();
  }
  out = std::move(cur);
  return 0;
}

std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace editd
