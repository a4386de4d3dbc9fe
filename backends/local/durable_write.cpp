// How one file's write becomes durable: a temporary file beside the target,
// filled, fsynced and renamed over it, then its directory fsynced (under
// --durability full); removals, and the directories a write makes. Many files
// at once: batch.cpp, under a journal.

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
#include "backends/local/sync.h"

namespace editd::local_backend_detail {

InjectedFault LocalBackend::fault(LocalSyscall call, const std::string& name) const {
  return options_.inject ? options_.inject(call, name) : InjectedFault{};
}

int LocalBackend::record(journal::Journal* j, const std::string& line) const {
  if (!j || !j->open()) return 0;
  if (int err = injected(LocalSyscall::kJournal, line)) return err;
  return j->append(line);
}

int LocalBackend::make_dirs(const std::string& rel, Fd& out, std::vector<std::string>& made,
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

void LocalBackend::remove_dirs(const std::vector<std::string>& made) const {
  for (auto d = made.rbegin(); d != made.rend(); ++d) {
    Fd parent;
    if (root_.open_dir(parent_relative(*d), parent) == 0)
      ::unlinkat(parent.get(), leaf_of(*d).c_str(), AT_REMOVEDIR);
  }
}

void LocalBackend::sync_made(const std::vector<std::string>& made) const {
  for (const std::string& d : made) {
    Fd parent;
    if (root_.open_dir(parent_relative(d), parent) == 0) sync_dir(parent.get());
  }
}

Result<void> LocalBackend::check_write_target(int dir, const Target& t, struct stat& st,
                                              bool& exists) const {
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

Result<void> LocalBackend::check_removal(int dir, const Target& t, struct stat& st) const {
  if (::fstatat(dir, t.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return path_error(t, errno, "stat");
  if (S_ISDIR(st.st_mode)) return is_directory(t.shown);
  if (S_ISLNK(st.st_mode)) return changed(t.shown);
  if (!may_write(dir, t.name)) return not_writable(t.shown, st.st_mode);
  return {};
}

Failure LocalBackend::create_temp(int dir, const Target& t, Staged& out, journal::Journal* j,
                                  mode_t mode) const {
  static constexpr const char* kCreate = "create a temporary file for";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = journal::temp_name(t.name);
    if (int err = record(j, "tmp " + journal::dir_field(t.dir) + " " + journal::escape(name)))
      return {err, "write the journal entry for"};
    if (int err = injected(LocalSyscall::kCreateTemp, name)) return {err, kCreate};
    Fd fd(::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
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

Error LocalBackend::write_error(const Failure& f, const std::string& shown) {
  if (f.attribute.empty() && f.err != E2BIG) return posix_error(f.op, shown, f.err);
  Error e = posix_error(f.op, shown, f.err);
  e.message = "cannot write " + shown + ": its extended attribute " +
              (f.attribute.empty() ? std::string("list") : "'" + f.attribute + "'") +
              " cannot be copied to its new content (" +
              (f.err == E2BIG ? "over the " + std::to_string(kMaxXattrs) + " attributes or " +
                                    std::to_string(kMaxXattrBytes) + " bytes editd copies"
                              : std::string(std::strerror(f.err))) +
              "); nothing was changed. editd keeps what a file carries besides its bytes (ACLs, "
              "user.* and security.* attributes) or does not write it";
  if (!f.attribute.empty()) e.data["attribute"] = f.attribute;
  return e;
}

Result<Fd> LocalBackend::open_metadata_source(const std::string& canonical) const {
  auto t = target_of(canonical);
  if (!t) return t.error();
  Fd dir;
  if (int err = root_.open_dir(t->dir, dir)) return path_error(*t, err, "open");
  struct stat st;
  if (::fstatat(dir.get(), t->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return path_error(*t, errno, "stat");
  if (!S_ISREG(st.st_mode)) return changed(t->shown);
  Fd fd = open_same_file(dir.get(), t->name, st, O_RDONLY);
  if (!fd.valid()) return errno == ESTALE ? changed(t->shown) : posix_error("open", t->shown, errno);
  return fd;
}

Failure LocalBackend::fill_temp(Staged& s, std::span<const std::string_view> pieces,
                                const struct stat* existing,
                                int source, const std::optional<FileAttributes>& want,
                                std::optional<bool> executable) const {
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
  if (!keep) {
    // A new file: created with the mode the kernel gives (the directory's
    // default ACL, else the umask), as `touch` would make it.
    if (!executable) return {};
    struct stat st;
    if (::fstat(s.fd.get(), &st) != 0) return {errno, "stat the temporary file of"};
    if (::fchmod(s.fd.get(), with_executable(st.st_mode & 07777, *executable)) != 0)
      return {errno, "chmod"};
    return {};
  }
  mode_t mode = keep->mode & 07777;
  if (executable) mode = with_executable(mode, *executable);
  // The owner first: a change of owner clears the set-ID bits (and
  // security.capability), which the attributes and the chmod after it give
  // back where the owner was kept.
  if ((keep->uid != euid_ || keep->gid != egid_) &&
      ::fchown(s.fd.get(), keep->uid, keep->gid) != 0) {
    mode &= ~static_cast<mode_t>(S_ISUID | S_ISGID);  // best effort: the owner is ours
  }
  // The attributes before the mode: the chmod then sets an ACL's mask from the
  // group bits, as the original's are.
  Failure f{0, "copy the extended attributes (ACL, user.*, security.*) of"};
  f.err = source >= 0 ? copy_xattrs(source, s.fd.get(), f.attribute)
                      : drop_inherited_acl(s.fd.get());
  if (f.err) return f;
  if (::fchmod(s.fd.get(), mode) != 0) return {errno, "chmod"};
  return {};
}

void LocalBackend::sync_dir(int fd) const {
  if (options_.durable) sync_directory(fd);
}

void LocalBackend::sync_dirs(const std::map<std::string, Fd>& dirs) const {
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

Failure LocalBackend::sync_temp(Staged& s) const {
  if (!options_.durable) return {};
  if (int err = injected(LocalSyscall::kFsync, s.name)) return {err, "fsync"};
  if (int err = sync_file(s.fd.get())) return {err, "fsync"};
  return {};
}

Result<void> LocalBackend::write_sync(const std::string& canonical, const std::string& bytes) {
  const std::string_view whole = bytes;
  return write_sync(canonical, std::span(&whole, 1));
}

Result<void> LocalBackend::write_sync(const std::string& canonical,
                                      std::span<const std::string_view> pieces) {
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
  if (exists && st.st_nlink > 1) {
    std::vector<FileChange> one(1);
    one[0].canonical = canonical;
    for (std::string_view p : pieces) one[0].bytes += p;
    std::vector<std::size_t> applied;
    return batch_sync(one, applied);
  }
  registry_->add(t->dir);
  Fd source;
  if (exists && !(source = open_same_file(dir.get(), t->name, st, O_RDONLY)).valid())
    return errno == ESTALE ? changed(shown) : posix_error("open", shown, errno);
  Staged tmp;
  Failure f = create_temp(dir.get(), *t, tmp, nullptr, exists ? 0600 : 0666);
  if (!f.err) f = fill_temp(tmp, pieces, exists ? &st : nullptr, source.get());
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
    return write_error(f, shown);
  }
  sync_dir(dir.get());
  sync_made(made);
  replaced.release(pool_);
  return {};
}

Result<void> LocalBackend::remove_sync(const std::string& canonical) const {
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

Result<void> LocalBackend::remove_directory_sync(const std::string& canonical) const {
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

}  // namespace editd::local_backend_detail
