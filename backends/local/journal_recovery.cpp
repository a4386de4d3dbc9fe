// Recovery at start (journal.h, Journals::recover): each journal of a dead
// editd acted on, forward or back, and the temporary files of dead writers
// swept from the directories it names, sparing what any journal names.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "backends/local/file_metadata.h"
#include "backends/local/journal.h"
#include "backends/local/stripe_lock.h"
#include "backends/local/sync.h"
#include "backends/root_path.h"

namespace editd::journal {
namespace {

std::string join_root(const std::string& root, const std::string& dir, const std::string& name) {
  std::string rel = dir.empty() ? name : dir + "/" + name;
  return root == "/" ? "/" + rel : root + "/" + rel;
}

// Takes the cross-process locks of the files `records` name, in order; the
// ones taken.
template <class Records>
std::vector<std::uint32_t> lock_targets(const Records& records, StripeLocks& locks,
                                        const std::string& root_path) {
  std::vector<std::uint32_t> stripes;
  for (const auto& r : records)
    stripes.push_back(StripeLocks::stripe_of(join_root(root_path, r.dir, r.name)));
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::uint32_t> held;
  for (std::uint32_t s : stripes)
    if (locks.acquire(s)) held.push_back(s);
  return held;
}

}  // namespace

void Journals::roll_forward(const Parsed& j, StripeLocks& locks, const std::string& root_path) {
  std::vector<std::uint32_t> held = lock_targets(j.plan, locks, root_path);
  for (const Record& r : j.plan) {
    Fd d;
    if (root_.open_dir(r.dir, d) != 0) continue;
    struct stat t, o;
    bool target = ::fstatat(d.get(), r.name.c_str(), &o, AT_SYMLINK_NOFOLLOW) == 0;
    if (r.kind == Record::Kind::kMove) {
      if (::fstatat(d.get(), r.temp.c_str(), &t, AT_SYMLINK_NOFOLLOW) != 0 ||
          t.st_ino != *r.temp_ino)
        continue;  // renamed before the crash
      bool unchanged = r.old_ino ? target && o.st_ino == *r.old_ino : !target;
      if (unchanged)
        ::renameat(d.get(), r.temp.c_str(), d.get(), r.name.c_str());
      else
        ::unlinkat(d.get(), r.temp.c_str(), 0);  // changed since the crash: that change stays
    } else if (target && o.st_ino == r.ino && !S_ISDIR(o.st_mode)) {
      ::unlinkat(d.get(), r.name.c_str(), 0);
    }
  }
  for (std::uint32_t s : held) locks.release(s);
}

void Journals::restore_saved(const Parsed& j, StripeLocks& locks, const std::string& root_path) {
  std::vector<std::uint32_t> held = lock_targets(j.saved, locks, root_path);
  for (auto r = j.saved.rbegin(); r != j.saved.rend(); ++r) {
    Fd d;
    if (root_.open_dir(r->dir, d) != 0) continue;
    Fd file(::openat(d.get(), r->name.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    Fd saved(::openat(d.get(), r->temp.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat f, t;
    if (!file.valid() || !saved.valid() || ::fstat(file.get(), &f) != 0 ||
        ::fstat(saved.get(), &t) != 0 || !S_ISREG(f.st_mode) || f.st_ino != r->ino ||
        !S_ISREG(t.st_mode) || static_cast<std::uint64_t>(t.st_size) != r->size ||
        ::flock(saved.get(), LOCK_EX | LOCK_NB) != 0)
      continue;  // gone, replaced since, or a live writer's
    local_backend_detail::replace_contents(file.get(), saved.get(), durable_);
  }
  for (std::uint32_t s : held) locks.release(s);
}

Journals::Stats Journals::recover(StripeLocks& locks, const std::string& root_path) {
  Stats stats;
  std::lock_guard<std::mutex> lk(mu_);
  Fd dir;
  if (int err = root_.open_dir(".editd/journal", dir)) {
    // None there (editd never journals through a link), or none readable:
    // those may name temporary files.
    stats.named.complete = err == ENOENT || err == ENOTDIR || err == ELOOP;
    if (in_flight_ == 0) tidy_locked();
    return stats;
  }
  std::vector<std::string> names;
  bool listed = false;
  if (int fd = ::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    if (DIR* d = ::fdopendir(fd)) {
      while (dirent* e = ::readdir(d))
        if (std::string_view(e->d_name).substr(0, 2) == "b-") names.emplace_back(e->d_name);
      ::closedir(d);
      listed = true;
    } else {
      ::close(fd);
    }
  }
  std::sort(names.begin(), names.end());
  stats.named = named_temps(dir.get(), names);
  if (!listed) stats.named.complete = false;

  for (const std::string& name : names) {
    // Never a FIFO's open or read that waits, nor a link followed.
    Fd file(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st;
    if (!file.valid() || ::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid() || static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes) {
      stats.untrusted.push_back(name);
      continue;
    }
    if (::flock(file.get(), LOCK_EX | LOCK_NB) != 0) {
      ++stats.left;  // its writer is alive
      continue;
    }
    std::string text = read_all(file.get());
    if (text.empty()) {  // killed before its first record
      ::unlinkat(dir.get(), name.c_str(), 0);
      continue;
    }
    std::optional<Parsed> j = parse(text, key_, name);
    if (!j) {
      stats.untrusted.push_back(name);
      continue;
    }
    std::set<std::string> dirs;  // every directory the journal names
    for (const auto& [d, t] : j->temps) dirs.insert(d);
    for (const Record& r : j->plan) dirs.insert(r.dir);
    for (const Saved& s : j->saved) dirs.insert(s.dir);
    for (const std::string& d : j->dirs) dirs.insert(parent_relative(d));
    // Once this journal is acted on, what it staged is needed no more: the
    // sweep below takes it, unless another journal names it too.
    NamedTemps& named = stats.named;
    for (const auto& [d, t] : j->temps) named.temps.erase({d, t});
    for (const Record& r : j->plan) named.temps.erase({r.dir, r.temp});
    for (const Saved& s : j->saved) named.temps.erase({s.dir, s.temp});

    const bool forward = j->committed && !j->aborted;
    if (forward) {
      roll_forward(*j, locks, root_path);
      ++stats.rolled_forward;
    } else {
      restore_saved(*j, locks, root_path);
      for (const auto& [d, t] : j->temps) {
        Fd fd;
        if (root_.open_dir(d, fd) == 0 && remove_stale_temp(fd.get(), t)) ++stats.temps_removed;
      }
      ++stats.rolled_back;
    }
    for (const std::string& d : dirs) {
      Fd fd;
      if (root_.open_dir(d, fd) == 0)
        stats.temps_removed += remove_stale_temps(fd.get(), d, stats.named);
    }
    if (!forward) {
      for (auto d = j->dirs.rbegin(); d != j->dirs.rend(); ++d) {
        Fd parent;
        if (root_.open_dir(parent_relative(*d), parent) == 0)
          ::unlinkat(parent.get(), leaf_of(*d).c_str(), AT_REMOVEDIR);
      }
    }
    for (const std::string& d : dirs) {
      Fd fd;
      if (root_.open_dir(d, fd) == 0) sync_directory(fd.get());
    }
    ::unlinkat(dir.get(), name.c_str(), 0);
  }
  if (in_flight_ == 0) tidy_locked();
  return stats;
}

}  // namespace editd::journal
