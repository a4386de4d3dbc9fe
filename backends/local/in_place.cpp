// A hard-linked file changed in place, so that every name of it sees the new
// bytes: apply_batch's steps for it (batch.cpp). Its old bytes are copied to a
// temporary file beside it and journaled ("old" records, journal.h) before it
// is overwritten, so that a crash before the change commits puts them back.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "backends/local/internal.h"
#include "backends/local/sync.h"

namespace editd::local_backend_detail {

Error LocalBackend::links_outside(const Target& t, const struct stat& st, std::size_t found) {
  return Error(ErrorKind::kDenied,
               "cannot write " + t.shown + ": it has " + std::to_string(st.st_nlink) +
                   " hard links and only " + std::to_string(found) +
                   " of them were found inside the root. editd changes a hard-linked file in "
                   "place, which would change the bytes its other names outside the root see, "
                   "and it never writes outside its root; nothing was changed (write it "
                   "through a root that holds every name of it)",
               {{"path", t.shown},
                {"reason", "hard_links_outside_root"},
                {"links", st.st_nlink},
                {"linksInRoot", found}});
}

Failure LocalBackend::back_up(int dir, const Target& t, const struct stat& st, Staged& out,
                              journal::Journal* j) const {
  if (Failure f = create_temp(dir, t, out, j); f.err) return f;
  Fd file = open_same_file(dir, t.name, st, O_RDONLY);
  if (!file.valid()) return {errno, "open"};
  if (int err = replace_contents(out.fd.get(), file.get(), false))
    return {err, "save the bytes before of"};
  return {};
}

Failure LocalBackend::write_in_place(int dir, const Target& t, const struct stat& st,
                                     const FileChange& op) const {
  Fd file = open_same_file(dir, t.name, st, O_RDWR);
  if (!file.valid()) return {errno, "open"};
  struct stat now;
  if (::fstat(file.get(), &now) != 0) return {errno, "stat"};
  // A name made since the check (perhaps outside the root) would see the change.
  if (now.st_nlink != st.st_nlink) return {ESTALE, "write in place (its hard links changed)"};
  std::string_view rest = op.bytes;
  off_t at = 0;
  while (!rest.empty()) {
    InjectedFault f = fault(LocalSyscall::kWrite, t.name);
    if (f.err) return {f.err, "write"};
    const std::string_view part = rest.substr(0, std::max<std::size_t>(1, f.max_bytes));
    if (int err = write_all_at(file.get(), part, at)) return {err, "write"};
    rest.remove_prefix(part.size());
    at += static_cast<off_t>(part.size());
  }
  if (::ftruncate(file.get(), at) != 0) return {errno, "truncate"};
  mode_t mode = op.attributes ? op.attributes->mode & 07777 : st.st_mode & 07777;
  if (op.executable) mode = with_executable(mode, *op.executable);
  // A write by an unprivileged process clears the set-ID bits: given back.
  if (::fstat(file.get(), &now) != 0) return {errno, "stat"};
  if (mode != (now.st_mode & 07777) && ::fchmod(file.get(), mode) != 0) return {errno, "chmod"};
  if (!options_.durable) return {};
  if (int err = injected(LocalSyscall::kFsync, t.name)) return {err, "fsync"};
  if (int err = sync_file(file.get())) return {err, "fsync"};
  return {};
}

int LocalBackend::restore_in_place(int dir, const Target& t, const struct stat& st,
                                   const Staged& backup) const {
  Fd file = open_same_file(dir, t.name, st, O_RDWR);
  if (!file.valid()) return errno;
  if (int err = replace_contents(file.get(), backup.fd.get(), false)) return err;
  // The mode after the bytes (a write clears the set-ID bits), and the sync
  // after both, so that the mode put back is as durable as the bytes.
  if (::fchmod(file.get(), st.st_mode & 07777) != 0) return errno;
  return options_.durable ? sync_file(file.get()) : 0;
}

}  // namespace editd::local_backend_detail
