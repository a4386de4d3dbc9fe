// The undo history: what each mutation changed, so that `undo` can put it back.
//
// One history per server, shared by its connections and kept in memory only (a
// restart forgets it). Each entry holds, for every file a mutation changed, its
// bytes before (nullopt: it did not exist) and the fingerprint of its bytes
// after (nullopt: the mutation removed it). The bytes after are not kept: an
// undo reads the file anyway, and puts it back only while that read has the
// fingerprint the mutation left. The history is bounded by a count of entries
// and by the bytes before they hold (--undo-history-entries,
// --undo-history-bytes): the oldest entries go first, and a change larger than
// the byte bound is not kept. Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace editd {

struct UndoFile {
  std::string canonical;
  std::string shown;                  // display path when recorded
  std::optional<std::string> before;  // nullopt: the file did not exist
  // fingerprint() of the bytes the mutation left; nullopt: it removed the file.
  std::optional<std::string> after_fingerprint;
  // fingerprint() of `before` when the caller has it at hand ("": record()
  // computes it if it needs it).
  std::string before_fingerprint;
};

struct UndoEntry {
  std::string id;
  // Where the files live: "local", or the delegated connection that wrote them.
  std::string scope;
  std::vector<UndoFile> files;
  // Directories made for files it created, outermost first: an undo removes
  // them again when they are empty.
  std::vector<std::string> made_directories;
};

class UndoHistory {
 public:
  UndoHistory(std::uint64_t max_entries, std::uint64_t max_bytes);

  // Keeps `files` (a file listed twice is merged: first before, last after;
  // a file whose before and after are the same content is left out) and
  // returns the entry's id ("undo-XXXXXXXX-N": a random prefix per process, so
  // that an id from before a restart is never mistaken for a new one); nullopt
  // when nothing changed or the history keeps nothing that large.
  std::optional<std::string> record(std::string scope, std::vector<UndoFile> files,
                                    std::vector<std::string> made_directories = {});
  // The entry with `id`, or nullptr (never issued, or forgotten).
  std::shared_ptr<const UndoEntry> find(const std::string& id) const;

 private:
  const std::uint64_t max_entries_;
  const std::uint64_t max_bytes_;
  std::string prefix_;
  mutable std::mutex mutex_;
  std::deque<std::shared_ptr<const UndoEntry>> entries_;
  std::uint64_t bytes_ = 0;
  std::uint64_t next_ = 1;
};

}  // namespace editd
