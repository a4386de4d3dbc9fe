#include "backends/local/file_metadata.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <string_view>
#include <vector>

#include "backends/local/sync.h"

namespace editd::local_backend_detail {
namespace {

constexpr const char* kAccessAcl = "system.posix_acl_access";
constexpr const char* kCapability = "security.capability";
// The kernel's own bounds on one listxattr and one value (XATTR_LIST_MAX,
// XATTR_SIZE_MAX).
constexpr std::size_t kListMax = 65536;
constexpr std::size_t kValueMax = 65536;

// The f*xattr calls refuse an O_PATH descriptor (a file editd may write but
// not read); its /proc/self/fd link names the same inode.
class XattrSource {
 public:
  explicit XattrSource(int fd) : fd_(fd) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_PATH)) path_ = "/proc/self/fd/" + std::to_string(fd);
  }
  ssize_t list(char* out, std::size_t size) const {
    return path_.empty() ? ::flistxattr(fd_, out, size) : ::listxattr(path_.c_str(), out, size);
  }
  ssize_t get(const char* name, void* out, std::size_t size) const {
    return path_.empty() ? ::fgetxattr(fd_, name, out, size)
                         : ::getxattr(path_.c_str(), name, out, size);
  }

 private:
  int fd_;
  std::string path_;
};

// Whether `fd` has the attribute `name` with `value` already.
bool has_already(int fd, const std::string& name, std::string_view value) {
  std::string now(value.size() + 1, '\0');
  ssize_t n = ::fgetxattr(fd, name.c_str(), now.data(), now.size());
  return n >= 0 && std::string_view(now.data(), static_cast<std::size_t>(n)) == value;
}

}  // namespace

Fd open_same_file(int dir, const std::string& name, const struct stat& st, int flags) {
  Fd fd(::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid() && errno == EACCES && (flags & O_ACCMODE) == O_RDONLY)
    fd.reset(::openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return fd;
  struct stat now;
  if (::fstat(fd.get(), &now) != 0) return Fd();
  if (!S_ISREG(now.st_mode) || now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
    errno = ESTALE;
    return Fd();
  }
  return fd;
}

int copy_xattrs(int from_fd, int to, std::string& failed) {
  const XattrSource from(from_fd);
  std::vector<char> list(kListMax);
  ssize_t n = from.list(list.data(), list.size());
  if (n < 0) {
    if (errno == ENOTSUP) return drop_inherited_acl(to);  // a filesystem without them
    return errno == ERANGE ? E2BIG : errno;
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n);) {
    std::string name(list.data() + i);
    i += name.size() + 1;
    if (!name.empty()) names.push_back(std::move(name));
  }
  if (names.size() > kMaxXattrs) return E2BIG;
  bool has_acl = false;
  std::size_t total = 0;
  std::vector<char> value(kValueMax);
  for (const std::string& name : names) {
    ssize_t size = from.get(name.c_str(), value.data(), value.size());
    if (size < 0) {
      if (errno == ENODATA) continue;  // removed since the list
      failed = name;
      return errno == ERANGE ? E2BIG : errno;
    }
    total += name.size() + static_cast<std::size_t>(size);
    if (total > kMaxXattrBytes) return E2BIG;
    if (::fsetxattr(to, name.c_str(), value.data(), static_cast<std::size_t>(size), 0) != 0) {
      const int err = errno;
      if (err == EPERM && name == kCapability) continue;
      if (has_already(to, name, std::string_view(value.data(), static_cast<std::size_t>(size))))
        continue;  // a label the new file was given as it was made
      failed = name;
      return err;
    }
    has_acl = has_acl || name == kAccessAcl;
  }
  return has_acl ? 0 : drop_inherited_acl(to);
}

int drop_inherited_acl(int fd) {
  if (::fremovexattr(fd, kAccessAcl) == 0 || errno == ENODATA || errno == ENOTSUP) return 0;
  return errno;
}

std::vector<std::size_t> names_inside(const Beneath& root, const std::vector<struct stat>& files,
                                      std::size_t limit) {
  std::vector<std::size_t> found(files.size(), 0);
  std::size_t missing = files.size();  // files with fewer names found than they have
  std::size_t seen = 0;
  std::deque<std::string> dirs{""};
  while (!dirs.empty() && missing > 0 && seen <= limit) {
    const std::string rel = std::move(dirs.front());
    dirs.pop_front();
    Fd path;
    if (root.open_dir(rel, path) != 0) continue;
    int fd = ::openat(path.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
    if (!d) {
      if (fd >= 0) ::close(fd);
      continue;
    }
    while (dirent* e = ::readdir(d)) {
      const std::string_view name = e->d_name;
      if (name == "." || name == "..") continue;
      if (++seen > limit) break;
      const std::string child = rel.empty() ? std::string(name) : rel + "/" + std::string(name);
      if (e->d_type == DT_DIR) {
        dirs.push_back(child);
        continue;
      }
      if (e->d_type != DT_REG && e->d_type != DT_UNKNOWN) continue;
      struct stat est;
      if (::fstatat(::dirfd(d), e->d_name, &est, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (S_ISDIR(est.st_mode)) dirs.push_back(child);
      for (std::size_t i = 0; i < files.size(); ++i) {
        if (est.st_ino != files[i].st_ino || est.st_dev != files[i].st_dev) continue;
        if (++found[i] == files[i].st_nlink) --missing;
      }
    }
    ::closedir(d);
  }
  return found;
}

int replace_contents(int to, int from, bool durable) {
  std::vector<char> buf(1 << 16);
  off_t at = 0;
  for (;;) {
    ssize_t n = ::pread(from, buf.data(), buf.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) break;
    if (int err = write_all_at(to, std::string_view(buf.data(), static_cast<std::size_t>(n)), at))
      return err;
    at += n;
  }
  if (::ftruncate(to, at) != 0) return errno;
  return durable ? sync_file(to) : 0;
}

int write_all_at(int fd, std::string_view bytes, off_t at) {
  while (!bytes.empty()) {
    ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    bytes.remove_prefix(static_cast<std::size_t>(n));
    at += n;
  }
  return 0;
}

}  // namespace editd::local_backend_detail
