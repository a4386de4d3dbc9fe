// The local backend's apply_batch: many files changed at once, journaled so
// that a killed editd leaves all of them changed or none (journal.h).

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/resource.h>
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
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "backends/local/internal.h"
#include "backends/local/sync.h"

namespace editd::local_backend_detail {

namespace {

// The descriptors that batches hold at once, all of this process's together:
// at most half of the descriptor limit in force (RLIMIT_NOFILE's soft limit,
// read at each batch), so that the connections, other requests' files, the
// checks and `editd probe` always have the other half. A batch holds each
// staged file open (its flock tells a recovery elsewhere that it is a live
// writer's) and each directory it changes, until it is applied, so it
// reserves them all before it begins: one that needs more than the whole
// share is refused (too_large) before anything changes, one that fits waits
// until the batches before it give theirs back. They never wait for anything
// but the disk, so the wait ends.
class BatchDescriptors {
 public:
  static std::size_t share() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
      return kUnlimitedShare;
    return std::max<std::size_t>(kMinShare, static_cast<std::size_t>(limit.rlim_cur / 2));
  }

  class Hold {
   public:
    explicit Hold(std::size_t n) : n_(n) {}
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() {
      {
        std::lock_guard lock(mutex_);
        held_ -= n_;
      }
      released_.notify_all();
    }

   private:
    std::size_t n_;
  };

  // `n` descriptors, at most share(): waits until they fit beside those held.
  static Hold take(std::size_t n, std::size_t share) {
    std::unique_lock lock(mutex_);
    released_.wait(lock, [&] { return held_ == 0 || held_ + n <= share; });
    held_ += n;
    return Hold(n);
  }

 private:
  static constexpr std::size_t kMinShare = 16;
  static constexpr std::size_t kUnlimitedShare = 1 << 20;
  static inline std::mutex mutex_;
  static inline std::condition_variable released_;
  static inline std::size_t held_ = 0;
};

// What a batch holds open at once: a staged file per write, each directory of
// a target (and each that may be made for one, its ancestors), those again
// while the fsyncs run, and a few for the journal.
std::size_t descriptors_needed(std::size_t writes, const std::set<std::string>& dirs) {
  std::set<std::string> with_ancestors;
  for (std::string d : dirs) {
    while (with_ancestors.insert(d).second && !d.empty()) {
      std::size_t slash = d.rfind('/');
      d = slash == std::string::npos ? std::string() : d.substr(0, slash);
    }
  }
  return writes + dirs.size() + with_ancestors.size() + 8;
}

Error too_many_descriptors(const std::string& shown, std::size_t files, std::size_t needed,
                           std::size_t share) {
  return Error(ErrorKind::kTooLarge,
               "a change of " + std::to_string(files) + " files (" + shown + " and others) needs " +
                   std::to_string(needed) + " descriptors at once, over the " +
                   std::to_string(share) +
                   " that changes may hold (half of the descriptor limit, ulimit -n): "
                   "split it, or raise the limit",
               {{"path", shown}, {"files", files}, {"descriptors", needed}, {"limit", share}});
}

}  // namespace

Error LocalBackend::journal_error(int err, bool in_place) const {
  const std::string path = join(options_.root, ".editd/journal");
  std::string why = err == ENOKEY ? "no journal key (" + state_error_ + ")" : std::strerror(err);
  return Error(ErrorKind::kIo,
               std::string("cannot journal this change ") +
                   (in_place ? "in place of a hard-linked file" : "of several files") + " in " +
                   path + ": " + why +
                   "; nothing was changed. Such a change is made only with its journal, so that a "
                   "crash leaves all of it or none of it" +
                   (err == ENOKEY ? std::string()
                                  : " (is .editd at the top of the root a file, a link, or not "
                                    "writable? editd keeps it for itself)") +
                   (in_place ? "" : "; --durability none makes it without one"),
               {{"errno", errno_name(err)}, {"path", path}});
}

Result<void> LocalBackend::batch_sync(std::vector<FileChange>& ops,
                                      std::vector<std::size_t>& applied) {
  struct Item {
    const FileChange* op = nullptr;
    Target t;
    bool write = false;
    bool exists = false;
    struct stat st {};
    Staged temp;  // the new content; for a change in place, the bytes before
    bool renamed = false;
    bool in_place = false;  // a hard-linked file, overwritten rather than replaced
    bool overwritten = false;
  };
  std::vector<Item> items;
  for (const FileChange& op : ops) {
    auto t = target_of(op.canonical);
    if (!t) return t.error();
    Item& it = items.emplace_back();
    it.op = &op;
    it.t = std::move(*t);
    it.write = op.kind == FileChange::Kind::kWrite;
  }
  if (items.empty()) return {};
  if (options_.read_only)
    return read_only_error(items[0].write ? "writing" : "deleting", items[0].t.shown);

  // Every descriptor the batch will hold, before it opens any.
  std::size_t writes = 0;
  std::set<std::string> target_dirs;
  for (const Item& it : items) {
    writes += it.write ? 1 : 0;
    target_dirs.insert(it.t.dir);
  }
  const std::size_t needed = descriptors_needed(writes, target_dirs);
  const std::size_t share = BatchDescriptors::share();
  if (needed > share) return too_many_descriptors(items[0].t.shown, items.size(), needed, share);
  BatchDescriptors::Hold descriptors = BatchDescriptors::take(needed, share);

  // 1. Every check, before anything changes.
  std::map<std::string, Fd> dirs;  // relative directory -> descriptor
  bool in_place = false;
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
    // A rename would split a hard-linked file: its other names keep the old bytes.
    if (it.write && it.exists && it.st.st_nlink > 1) {
      // Its bytes before are copied first: bounded as any content.
      if (static_cast<std::uint64_t>(it.st.st_size) > options_.max_file_bytes)
        return too_large(shown, static_cast<std::uint64_t>(it.st.st_size));
      it.in_place = in_place = true;
    }
  }
  // Every name of each, inside the root: one search for them all.
  if (in_place) {
    std::vector<struct stat> linked;
    for (const Item& it : items)
      if (it.in_place) linked.push_back(it.st);
    const std::vector<std::size_t> found = names_inside(root_, linked, journal::kScanLimit);
    std::size_t k = 0;
    for (const Item& it : items) {
      if (!it.in_place) continue;
      if (found[k] < it.st.st_nlink) return links_outside(it.t, it.st, found[k]);
      ++k;
    }
  }

  // 2. Stage every write in a temporary file beside its target.
  // A change of many files is made with its journal or not at all: a tree
  // (or an unusable state directory) must not turn crash safety off. One
  // rename needs none; --durability none is the operator's choice. A change in
  // place is never made without one: nothing else could put its bytes back.
  journal::Journal j;
  if (int err = journals_.begin(j)) {
    if (in_place || (options_.durable && items.size() > 1)) return journal_error(err, in_place);
    spdlog::debug("apply_batch without a journal: {}/.editd: {}", options_.root,
                  std::strerror(err));
  }
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
    if (it.in_place) {
      if (Failure f = back_up(d->second.get(), it.t, it.st, it.temp, &j); f.err) {
        unstage();
        return write_error(f, it.t.shown);
      }
      continue;
    }
    Fd source;
    if (it.exists &&
        !(source = open_same_file(d->second.get(), it.t.name, it.st, O_RDONLY)).valid()) {
      const int err = errno;
      unstage();
      return err == ESTALE ? changed(it.t.shown) : posix_error("open", it.t.shown, err);
    }
    if (!it.exists && !it.op->metadata_from.empty()) {
      auto from = open_metadata_source(it.op->metadata_from);
      if (!from) {
        unstage();
        return from.error();
      }
      source = std::move(*from);
    }
    const bool fresh = !it.exists && !it.op->attributes;
    Failure f = create_temp(d->second.get(), it.t, it.temp, &j, fresh ? 0666 : 0600);
    const std::string_view bytes = it.op->bytes;
    if (!f.err)
      f = fill_temp(it.temp, std::span(&bytes, 1), it.exists ? &it.st : nullptr, source.get(),
                    it.op->attributes, it.op->executable);
    if (f.err) {
      unstage();
      return write_error(f, it.t.shown);
    }
    // Start the writeback now; the fsyncs below then mostly wait for it.
    if (options_.durable) start_writeback(it.temp.fd.get());
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

  // 2b. Hard-linked files, in place, once their bytes before are journaled: a
  // crash from here to the commit puts them back (journal.h, old records).
  auto put_back = [&] {
    bool all = true;
    for (Item& it : items)
      if (it.overwritten)
        all = restore_in_place(dirs.at(it.t.dir).get(), it.t, it.st, it.temp) == 0 && all;
    return all;
  };
  // The error of a step that failed after some file was overwritten.
  auto failed_in_place = [&](Error e) -> Error {
    if (put_back()) {
      unstage();
      return e;
    }
    journals_.abandon(j);  // its recovery puts back what this process could not
    e.message += "; the hard-linked files changed in place could not all be put back: the next "
                 "start of editd on this root puts them back from its journal";
    return e;
  };
  if (in_place) {
    std::string records;
    for (const Item& it : items)
      if (it.in_place)
        records += journal::old_record(it.t.dir, it.temp.name, it.t.name, it.st.st_ino,
                                       static_cast<std::uint64_t>(it.st.st_size)) +
                   "\n";
    int err = injected(LocalSyscall::kJournal, "old");
    if (!err) err = j.log(records);
    if (err) {
      unstage();
      return posix_error("write the journal entry for", items[0].t.shown, err);
    }
    for (Item& it : items) {
      if (!it.in_place) continue;
      it.overwritten = true;  // perhaps in part
      Failure f = write_in_place(dirs.at(it.t.dir).get(), it.t, it.st, *it.op);
      if (f.err) return failed_in_place(write_error(f, it.t.shown));
    }
  }

  // 3. Commit: from here on, a crash means the change is rolled forward.
  if (j.open()) {
    // The records and the commit in one write: none counts before the commit.
    std::string records;
    for (Item& it : items) {
      if (it.in_place) continue;  // done, and journaled by its old record
      std::string rec =
          it.write ? "mv " + journal::dir_field(it.t.dir) + " " + journal::escape(it.temp.name) +
                         " " + journal::escape(it.t.name) + " " + std::to_string(it.temp.ino) +
                         " " + (it.exists ? std::to_string(it.st.st_ino) : std::string("-"))
                   : "rm " + journal::dir_field(it.t.dir) + " " + journal::escape(it.t.name) + " " +
                         std::to_string(it.st.st_ino);
      if (int err = injected(LocalSyscall::kJournal, rec))
        return failed_in_place(posix_error("write the journal entry for", it.t.shown, err));
      records += rec;
      records += '\n';
    }
    int err = injected(LocalSyscall::kJournal, "commit");
    if (!err) err = j.commit(records);
    if (err)
      return failed_in_place(
          posix_error("commit the journal of the change to", items[0].t.shown, err));
  }

  // 4. Apply, in order (the changes in place took effect already).
  Retired replaced;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    if (it.in_place)
      applied.push_back(i);
    else if (!it.write || it.exists)
      replaced.hold(dirs.at(it.t.dir).get(), it.t.name);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& it = items[i];
    if (it.in_place) continue;
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
  for (Item& it : items)
    if (it.in_place) ::unlinkat(dirs.at(it.t.dir).get(), it.temp.name.c_str(), 0);
  sync_dirs(dirs);
  if (j.open()) journals_.end(j);
  replaced.release(pool_);
  return {};
}

}  // namespace editd::local_backend_detail
