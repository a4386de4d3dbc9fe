// Internals of the local backend (local_backend.h), shared by the files of
// backends/local/ it is split into, one concern a file:
// - local_backend.cpp: the backend's face: start and recovery, which work
//   runs inline and which on the pool, and the cross-process locks;
// - confinement.cpp: paths taken apart against the root, walked without
//   following a symbolic link out of it (with beneath.*);
// - read.cpp: stat and read;
// - walk.cpp: directory listings;
// - durable_write.cpp: how one file's write becomes durable: a temporary
//   file filled, fsynced and renamed over the target, its directory fsynced;
//   removals and the directories a write makes;
// - batch.cpp: apply_batch, many files changed at once under a journal
//   (journal.*, its key journal_key.*), durable as one group of fsyncs;
// - in_place.cpp: a hard-linked file changed in place, under that journal;
// - file_metadata.*: extended attributes and ACLs carried to a new inode,
//   and the search for a hard-linked file's names.
// Not part of the public API.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "backends/local/beneath.h"
#include "backends/local/file_metadata.h"
#include "backends/local/journal.h"
#include "backends/local/local_backend.h"
#include "backends/local/runtime_dir.h"
#include "backends/local/runtime_dir.h"
#include "backends/local/stripe_lock.h"
#include "support/offload.h"

namespace editd::local_backend_detail {

namespace asio = boost::asio;

Error posix_error(std::string_view op, const std::string& path, int err);

std::string parent_of(const std::string& p);

std::string join(const std::string& dir, std::string_view name);

Error not_found(const std::string& shown);

Error is_directory(const std::string& shown);

Error not_regular(const std::string& shown);

// A component of the path became a symbolic link after resolve(): the
// request would now lead somewhere else, perhaps outside the root.
Error changed(const std::string& shown);

Error read_only_error(std::string_view verb, const std::string& shown);

Error not_writable(const std::string& shown, mode_t mode);

// Whether the OS user may replace or delete the file `name` of `dir`, as the
// kernel would judge a write to it (root passes for any mode).
bool may_write(int dir, const std::string& name);

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
  Failure() = default;
  Failure(int err, const char* op, std::string attribute = {})
      : err(err), op(op), attribute(std::move(attribute)) {}
  int err = 0;
  const char* op = "";
  std::string attribute;  // the extended attribute that could not be copied, if any
};

class LocalBackend final : public FsBackend {
 public:
  LocalBackend(LocalBackendOptions options, asio::thread_pool& pool, Beneath root)
      : options_(std::move(options)),
        pool_(pool),
        root_(std::move(root)),
        journals_(root_, options_.durable) {}

  // Opens the per-user state and recovers what killed writers left; an
  // error, and nothing done, when the lock directory is not this user's own
  // (editd never serves without its cross-process locks).
  Result<void> start();

  Result<std::string> resolve(const std::string& path) const override { return resolve_sync(path); }

  std::string display_path(const std::string& canonical) const override;

  std::optional<std::uint64_t> size_hint(const std::string& canonical) const override;

  bool has_modes() const override { return true; }

  asio::awaitable<Result<FileStat>> stat(std::string canonical) override;

  asio::awaitable<Result<Listing>> list(std::string canonical, unsigned depth,
                                        std::size_t limit) override;

  asio::awaitable<Result<std::string>> read(std::string canonical) override;

  asio::awaitable<Result<void>> write(std::string canonical, std::string bytes) override;

  asio::awaitable<Result<void>> write_pieces(std::string canonical,
                                             std::vector<std::string_view> pieces) override;

  asio::awaitable<Result<void>> remove(std::string canonical) override;

  std::vector<std::string> missing_directories(const std::string& canonical) const override;

  asio::awaitable<Result<void>> remove_directory(std::string canonical) override;

  asio::awaitable<Result<std::unique_ptr<Lock>>> lock(std::vector<std::string> canonicals) override;

  asio::awaitable<Result<void>> apply_batch(std::vector<FileChange> ops,
                                            std::vector<std::size_t>& applied) override;

  asio::awaitable<Result<Tree>> tree(std::string canonical, std::size_t limit,
                                     std::uint64_t max_bytes) override;

 private:
  Result<std::string> resolve_sync(const std::string& path) const;

  // Adds `dir` (a directory editd keeps for itself) to the paths that
  // resolve() refuses, when it lies inside the root (or holds it).
  void own(const std::string& dir);
  void load_journal_key(const RuntimeDir& runtime);
  // apply_batch's refusal when its journal cannot be begun (errno `err`), for
  // a change of several files or one `in_place`.
  Error journal_error(int err, bool in_place = false) const;

  // The part of absolute path `p` below the root ("a/b" of ROOT/a/b), or
  // nullptr when `p` is the root or not under it.
  const char* below_root(const std::string& p) const;

  bool inside_root(const std::string& p) const;

  // `canonical` relative to the root. Anything but a canonical path inside the
  // root (resolve()'s output) is outside_root.
  Result<Target> target_of(const std::string& canonical) const;
  Result<Fd> open_directory(const std::string& canonical, std::string& root) const override;

  // The error of a failed open or lookup on the way to `t`.
  static Error path_error(const Target& t, int err, std::string_view op);

  Error too_large(const std::string& shown, std::uint64_t size) const;

  InjectedFault fault(LocalSyscall call, const std::string& name) const;
  int injected(LocalSyscall call, const std::string& name) const { return fault(call, name).err; }

  int record(journal::Journal* j, const std::string& line) const;

  Result<FileStat> stat_sync(const std::string& canonical) const;

  Result<Listing> list_sync(const std::string& canonical, unsigned depth, std::size_t limit) const;
  Result<Tree> tree_sync(const std::string& canonical, std::size_t limit,
                         std::uint64_t max_bytes) const;

  // The file's bytes. With `deferred`: a regular file larger than `limit`, by
  // its size or by what reading it finds, is not read, and *deferred says so.
  Result<std::string> read_sync(const std::string& canonical,
                                std::uint64_t limit = std::numeric_limits<std::uint64_t>::max(),
                                bool* deferred = nullptr) const;

  // Opens directory `rel`, making the missing ones (each recorded in `j` first,
  // then appended to `made`, outermost first). 0 or errno.
  int make_dirs(const std::string& rel, Fd& out, std::vector<std::string>& made,
                journal::Journal* j) const;

  // Removes the directories of `made` that are empty, innermost first.
  void remove_dirs(const std::vector<std::string>& made) const;

  // Makes the entries of `made` durable in their parents.
  void sync_made(const std::vector<std::string>& made) const;

  // What write() and apply_batch() check of an existing target: `exists` and
  // `st` say what is there.
  Result<void> check_write_target(int dir, const Target& t, struct stat& st, bool& exists) const;

  Result<void> check_removal(int dir, const Target& t, struct stat& st) const;

  // Creates a temporary file beside `t` (recorded in `j` first) with `mode`
  // (0600 for content whose mode fill_temp sets; 0666 for a new file, which
  // the kernel then gives the mode of the directory's default ACL, or of the
  // umask) and locks it.
  Failure create_temp(int dir, const Target& t, Staged& out, journal::Journal* j,
                      mode_t mode = 0600) const;

  // The file whose extended attributes a new file takes (FileChange::
  // metadata_from), open for fill_temp.
  Result<Fd> open_metadata_source(const std::string& canonical) const;

  // The error of a write that failed at `f` (naming the attribute, if any).
  static Error write_error(const Failure& f, const std::string& shown);

  // Writes the pieces' concatenation into the temporary file (writev, up to
  // IOV_MAX pieces a call), with the mode and owner of `want` when given, else
  // of `existing`, else the mode it was created with (a new file). The owner
  // is kept where allowed (the superuser, or a group of ours); when it cannot
  // be, the set-user-ID and set-group-ID bits are dropped rather than given to
  // editd's user. Every extended attribute of `source` (the file replaced,
  // open; -1: none) is copied (copy_xattrs); without a source, a file whose
  // mode is set drops the ACL its directory gave it. `executable`, when
  // given, then sets or clears the execute bits.
  Failure fill_temp(Staged& s, std::span<const std::string_view> pieces,
                    const struct stat* existing, int source = -1,
                    const std::optional<FileAttributes>& want = std::nullopt,
                    std::optional<bool> executable = std::nullopt) const;

  // The refusal (denied) of a change in place of the hard-linked file `st`,
  // of whose names only `found` are inside the root: the others would see it.
  static Error links_outside(const Target& t, const struct stat& st, std::size_t found);

  // A temporary file beside `t` (recorded in `j` first) holding the bytes of
  // the file `st` now: what a change in place of it puts back.
  Failure back_up(int dir, const Target& t, const struct stat& st, Staged& out,
                  journal::Journal* j) const;

  // Overwrites the file `st` with op's bytes, in place (its inode, and so
  // every name of it, kept), with op's mode where it asks for one, and
  // fsyncs it.
  Failure write_in_place(int dir, const Target& t, const struct stat& st,
                         const FileChange& op) const;

  // Puts back the bytes and mode that back_up saved in `backup`. 0 or errno.
  int restore_in_place(int dir, const Target& t, const struct stat& st,
                       const Staged& backup) const;

  // fsync of a directory, unless durability is off.
  void sync_dir(int fd) const;

  // sync_dir of each directory, all at once.
  void sync_dirs(const std::map<std::string, Fd>& dirs) const;

  Failure sync_temp(Staged& s) const;

  Result<void> write_sync(const std::string& canonical, const std::string& bytes);

  // A file with several hard links goes to batch_sync, which writes it in place.
  Result<void> write_sync(const std::string& canonical, std::span<const std::string_view> pieces);

  Result<void> remove_sync(const std::string& canonical) const;

  Result<void> remove_directory_sync(const std::string& canonical) const;

  // apply_batch: check everything, stage every write, journal, commit, apply
  // (see backends/local/journal.h for what a crash at each point leaves).
  Result<void> batch_sync(std::vector<FileChange>& ops, std::vector<std::size_t>& applied);

  void recover();

  LocalBackendOptions options_;
  const uid_t euid_ = ::geteuid();  // editd never changes its identity
  const gid_t egid_ = ::getegid();
  asio::thread_pool& pool_;
  Beneath root_;
  journal::Journals journals_;
  // Set by start(), read-only after it.
  std::vector<std::string> own_dirs_;  // editd's directories inside the root
  std::string state_dir_;              // where the journal key is
  std::string state_error_;            // why there is no journal key, if there is none
  std::shared_ptr<StripeLocks> locks_;
  std::unique_ptr<TempRegistry> registry_;
};

}  // namespace editd::local_backend_detail
