#include "backends/local/runtime_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "backends/local/journal.h"

namespace editd {
namespace {

// Opens (making it if `make`) the subdirectory `name` of `dir`, a directory of
// ours: no symbolic link is followed.
int open_subdir(int dir, const std::string& name, bool make, Fd& out) {
  if (make && ::mkdirat(dir, name.c_str(), 0700) != 0 && errno != EEXIST) return errno;
  Fd fd(::openat(dir, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return errno;
  out = std::move(fd);
  return 0;
}

std::string id_of(dev_t dev, ino_t ino) { return std::to_string(dev) + "-" + std::to_string(ino); }

std::vector<std::string> entries(int dir, std::size_t limit) {
  std::vector<std::string> names;
  int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return names;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return names;
  }
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (names.size() >= limit) break;
    names.emplace_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

// The registries of dead writers in `sub` (the flock of each is taken and
// kept until the registry is deleted), with their text.
std::vector<std::pair<std::string, std::string>> dead_registries(int sub, std::vector<Fd>& held) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& name : entries(sub, 10000)) {
    Fd file(::openat(sub, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!file.valid() || ::flock(file.get(), LOCK_EX | LOCK_NB) != 0) continue;
    out.emplace_back(name, read_all(file.get()));
    held.push_back(std::move(file));
  }
  return out;
}

}  // namespace

std::string RuntimeDir::default_path() { return "/tmp/editd-" + std::to_string(::geteuid()); }

int RuntimeDir::open(std::string path, RuntimeDir& out, std::string* why) {
  if (path.empty()) path = default_path();
  auto fail = [&](int err, const std::string& what) {
    if (why) *why = path + " " + what;
    return err;
  };
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return fail(errno, std::string("cannot be made: ") + std::strerror(errno));
  Fd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == ENOTDIR || err == ELOOP)
      return fail(EPERM, "is not a directory (a file or a symbolic link someone made)");
    return fail(err, std::string("cannot be opened: ") + std::strerror(err));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return fail(errno, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return fail(EPERM, "is not a directory");
  if (st.st_uid != ::geteuid())
    return fail(EPERM, "belongs to uid " + std::to_string(st.st_uid) + ", not to this user (uid " +
                           std::to_string(::geteuid()) + ")");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return fail(EPERM, std::string("is open to other users (mode ") + mode + ", not 0700)");
  }
  out.dir_ = std::move(fd);
  out.path_ = std::move(path);
  return 0;
}

int RuntimeDir::open_lock_file(Fd& out) const {
  Fd fd(::openat(dir_.get(), "locks", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return errno;
  out = std::move(fd);
  return 0;
}

TempRegistry::TempRegistry(const RuntimeDir& runtime, const std::string& root, dev_t dev, ino_t ino)
    : runtime_(::fcntl(runtime.fd(), F_DUPFD_CLOEXEC, 0)), root_(root), sub_(id_of(dev, ino)) {}

TempRegistry::~TempRegistry() {
  if (!file_.valid()) return;
  ::unlinkat(sub_dir_.get(), name_.c_str(), 0);
  file_.reset();
  Fd writers;
  if (open_subdir(runtime_.get(), "writers", false, writers) == 0)
    ::unlinkat(writers.get(), sub_.c_str(), AT_REMOVEDIR);
}

int TempRegistry::open_file() {
  int err = ENOENT;
  // Another backend removing an empty DEV-INO may race with us: then again.
  for (int attempt = 0; attempt < 8; ++attempt) {
    Fd writers, sub;
    if ((err = open_subdir(runtime_.get(), "writers", true, writers))) return err;
    if ((err = open_subdir(writers.get(), sub_, true, sub))) {
      if (err == ENOENT) continue;
      return err;
    }
    std::string name = std::to_string(::getpid()) + "-" + journal::random_suffix(8);
    Fd file(::openat(sub.get(), name.c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid()) {
      err = errno;
      if (err == ENOENT || err == EEXIST) continue;
      return err;
    }
    if (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
      err = errno;
      ::unlinkat(sub.get(), name.c_str(), 0);
      continue;
    }
    // A recovery elsewhere may have taken the new, empty file for a dead one's.
    struct stat st;
    if (::fstat(file.get(), &st) != 0 || st.st_nlink == 0) continue;
    std::string header = "root " + journal::escape(root_) + "\n";
    if (::write(file.get(), header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
      err = errno;
      ::unlinkat(sub.get(), name.c_str(), 0);
      return err;
    }
    sub_dir_ = std::move(sub);
    file_ = std::move(file);
    name_ = std::move(name);
    return 0;
  }
  return err;
}

void TempRegistry::add(const std::string& rel) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!runtime_.valid() || known_.count(rel)) return;
  if (!file_.valid() && open_file() != 0) return;
  std::string line = journal::escape(rel.empty() ? std::string(".") : rel) + "\n";
  // No fsync: a kill -9 keeps what was written; only a power loss can lose it.
  if (::write(file_.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size()))
    known_.insert(rel);
}

void TempRegistry::recover(const std::function<void(const std::string& rel)>& clean) {
  std::lock_guard<std::mutex> lk(mu_);
  Fd writers;
  if (!runtime_.valid() || open_subdir(runtime_.get(), "writers", false, writers) != 0) return;
  for (const std::string& sub_name : entries(writers.get(), 10000)) {
    Fd sub;
    if (open_subdir(writers.get(), sub_name, false, sub) != 0) continue;
    std::vector<Fd> held;
    for (const auto& [name, text] : dead_registries(sub.get(), held)) {
      std::vector<std::string> lines;
      std::size_t i = 0, nl;
      while ((nl = text.find('\n', i)) != std::string::npos) {
        lines.push_back(text.substr(i, nl - i));
        i = nl + 1;
      }
      if (sub_name == sub_) {
        for (const std::string& line : lines) {
          if (line.rfind("root ", 0) == 0) continue;
          if (line == ".")
            clean("");
          else if (auto rel = journal::unescape(line))
            clean(*rel);
        }
      } else {
        // Another root's: only when that root is gone, since its temporary
        // files are then gone too (or out of any editd's reach).
        if (text.empty()) continue;  // perhaps being made right now
        std::optional<std::string> root;
        if (!lines.empty() && lines[0].rfind("root ", 0) == 0)
          root = journal::unescape(lines[0].substr(5));
        struct stat st;
        if (root && ::stat(root->c_str(), &st) == 0 && id_of(st.st_dev, st.st_ino) == sub_name)
          continue;
      }
      ::unlinkat(sub.get(), name.c_str(), 0);
    }
    ::unlinkat(writers.get(), sub_name.c_str(), AT_REMOVEDIR);
  }
}

}  // namespace editd
