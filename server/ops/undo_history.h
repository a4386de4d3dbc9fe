// The undo history: what each mutation changed, so that `undo` can put it back.
//
// One history per server, shared by its connections; a restart forgets it.
// Each entry holds, for every file a mutation changed, its bytes before
// (none: it did not exist) and the fingerprint of its bytes after (nullopt: the
// mutation removed it). The bytes after are not kept: an undo reads the file
// anyway, and puts it back only while that read has the fingerprint the
// mutation left. An edit of a few regions keeps only what those regions held
// (restores of the bytes after, which the undo has read). Otherwise the bytes
// before stay in memory when small; larger ones (UndoSpill::min_bytes) are
// copied by the caller, while it writes the file, to an unlinked file of the
// spill directory (spill()), which the history keeps instead of them: the
// history of a large file does not hold its size in memory. The history is
// bounded by a count of entries and by the bytes it holds
// (--undo-history-entries, --undo-history-bytes), in memory and on disk alike:
// the oldest entries go first, and a change larger than the byte bound is not
// kept. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/fs_backend.h"
#include "edit/change/restore.h"
#include "protocol/error.h"
#include "support/fd.h"

namespace editd {

struct UndoFile {
  std::string canonical;
  std::string shown;                  // display path when recorded
  std::optional<std::string> before;  // nullopt: the file did not exist (or `restores`)
  // The bytes before as restores of the bytes after (ascending, apart),
  // `before_size` bytes in all, kept instead of `before`: the file existed.
  // Kept only with `before_fingerprint`, which the rebuilt bytes must have.
  std::optional<std::vector<restore::Restore>> restores;
  std::uint64_t before_size = 0;
  // `before` already in a file (UndoHistory::spill()), kept instead of it.
  Fd spilled;
  // fingerprint() of the bytes the mutation left; nullopt: it removed the file.
  std::optional<std::string> after_fingerprint;
  // fingerprint() of `before` when the caller has it at hand ("": record()
  // computes it if it needs it).
  std::string before_fingerprint;
  // The mode and owner the file had, where the mutation may have cost them
  // (it removed the file, or set its mode): an undo that writes the file back
  // gives them back. nullopt: the file keeps whatever it has.
  std::optional<FileAttributes> before_attributes;
  // The mutation changed the mode: kept even when the bytes are the same.
  bool attributes_changed = false;
};

// A file's bytes as a mutation found them: in memory, in an unlinked file
// (gone with its descriptor, so with editd), or as restores of the bytes the
// mutation left. Immutable, so thread-safe.
class KeptBytes {
 public:
  explicit KeptBytes(std::string bytes);
  // `size` bytes in `file`, which it takes.
  KeptBytes(Fd file, std::uint64_t size);
  // `size` bytes: the bytes after with `restores` (ascending, apart) put back,
  // which must have `fingerprint` (fingerprint()).
  KeptBytes(std::vector<restore::Restore> restores, std::uint64_t size, std::string fingerprint);

  // The bytes before.
  std::uint64_t size() const { return size_; }
  // What it holds, in memory or in its file: what the history's bound counts.
  std::uint64_t held() const { return held_; }
  bool spilled() const { return file_.valid(); }
  // The bytes. `after` is the file as the mutation left it, which restores
  // need (the caller has checked its fingerprint). An error when a file cannot
  // be read back, or the restores do not give bytes of their fingerprint back:
  // never other bytes.
  Result<std::string> load(std::string_view after = {}) const;

 private:
  const std::uint64_t size_;
  const std::string bytes_;  // when neither spilled nor restores
  const Fd file_;
  const std::vector<restore::Restore> restores_;
  const std::string fingerprint_;  // of the bytes the restores give back
  const bool restoring_ = false;
  const std::uint64_t held_;
};

// Where large bytes before go: unnamed files (O_TMPFILE) of a directory. They
// have no name in it, so any directory editd may write serves; not one on a
// tmpfs, where the copies would be memory still, outside editd's RSS (and
// could fill a small /tmp).
struct UndoSpill {
  // The first of `paths` that is a directory editd can use and not on a
  // tmpfs, or none, with `why` each was passed over. "" is /tmp/editd-EUID
  // (RuntimeDir::open: made if missing, this user's alone).
  static UndoSpill first_of(const std::vector<std::string>& paths, std::string& why);

  // O_PATH; null: all stay in memory. A copy that would leave its filesystem
  // less than 64 MiB free is not made.
  std::shared_ptr<const Fd> dir;
  std::string where;  // its path, for messages
  // Below it the copy's cost (a new inode, a pool thread) shows in an edit's
  // time (+25% on a 100 KB file, +12% on 1 MB, measured) for little memory.
  std::uint64_t min_bytes = 1 << 20;
};

struct KeptFile {
  std::string canonical;
  std::string shown;
  std::shared_ptr<const KeptBytes> before;  // null: the file did not exist
  std::optional<std::string> after_fingerprint;
  std::optional<FileAttributes> before_attributes;  // as UndoFile's
};

struct UndoEntry {
  std::string id;
  // Where the files live: "local", or the delegated connection that wrote them.
  std::string scope;
  std::vector<KeptFile> files;
  // Directories made for files it created, outermost first: an undo removes
  // them again when they are empty.
  std::vector<std::string> made_directories;
};

class UndoHistory {
 public:
  UndoHistory(std::uint64_t max_entries, std::uint64_t max_bytes, UndoSpill spill = {});

  // Keeps `files` (a file listed twice is merged: first before, last after,
  // unless either has restores, which keeps nothing; a file whose before and
  // after are the same content and the same mode is left out) and
  // returns the entry's id: `id` (the ledger's change id), or when "" one of
  // its own ("undo-XXXXXXXX-N": a random prefix per process, so that an id
  // from before a restart is never mistaken for a new one); nullopt when
  // nothing changed or the history keeps nothing that large.
  std::optional<std::string> record(std::string id, std::string scope,
                                    std::vector<UndoFile> files,
                                    std::vector<std::string> made_directories = {});
  // The entry with `id`, or nullptr (never issued, or forgotten).
  std::shared_ptr<const UndoEntry> find(const std::string& id) const;

  // Whether bytes before of `size` go to a file: the history keeps that much,
  // has a spill directory, and they reach min_bytes.
  bool spills(std::uint64_t size) const;
  // A new unlinked file of the spill directory holding `bytes`, for
  // UndoFile::spilled; invalid when it cannot be made (the bytes then stay in
  // memory). Blocking: for a pool.
  Fd spill(std::string_view bytes) const;

 private:
  const std::uint64_t max_entries_;
  const std::uint64_t max_bytes_;
  const UndoSpill spill_;
  std::string prefix_;
  mutable std::mutex mutex_;
  std::deque<std::shared_ptr<const UndoEntry>> entries_;
  std::uint64_t bytes_ = 0;
  std::uint64_t next_ = 1;
};

}  // namespace editd
