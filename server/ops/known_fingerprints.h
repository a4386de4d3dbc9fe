// What one connection knows of each file it read or wrote: the fingerprint it
// last saw, for --require-read (a mutation of a file not read, or changed
// since, is stale), for the hint that a file changed since, and for the
// notices of changes made outside the connection (server/ops/outside.cpp);
// with the fingerprints its own last few mutations of the file replaced, so
// that an outside change that puts one back is told as the revert it is.
//
// Bounded: each record is counted with its key (the canonical path), its
// fingerprint and its nodes against a byte budget per connection, and past it
// the least recently used records go. A forgotten record is a file this
// connection has not read: under --require-read its next mutation is stale
// until the file is read again (or the call names the version it expects with
// expectedFingerprint), never a write over a version the client did not see.
//
// Not thread-safe: a connection's requests use it from the connection's own
// thread.
#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace editd {

class KnownFingerprints {
 public:
  // 1 MiB a connection: about 4,000 files at paths of 100 bytes, 240 at
  // PATH_MAX (4,096 bytes).
  static constexpr std::size_t kDefaultBudget = std::size_t{1} << 20;
  // What a record costs beyond its path's and fingerprint's bytes: the hash
  // node, the strings' headers, the LRU node.
  static constexpr std::size_t kEntryOverhead = 160;

  explicit KnownFingerprints(std::size_t budget_bytes = kDefaultBudget) : budget_(budget_bytes) {}
  KnownFingerprints(const KnownFingerprints&) = delete;
  KnownFingerprints& operator=(const KnownFingerprints&) = delete;

  // The fingerprint last recorded for `canonical` (it becomes the most
  // recently used), or null when none is (never recorded, erased, forgotten).
  const std::string* find(const std::string& canonical);
  // Records `fingerprint` for `canonical` (keeping what its own mutations
  // replaced), then forgets the least recently used records past the budget
  // (a record larger than the budget is not kept).
  void set(const std::string& canonical, std::string fingerprint);
  void erase(const std::string& canonical);
  // Whether `canonical` has a record (its use unchanged).
  bool knows(const std::string& canonical) const { return records_.count(canonical) > 0; }

  // What the connection was last told of a file changed outside it
  // (server/ops/outside.cpp): its fingerprint then, or kGone; null when
  // nothing was told since it last read or wrote the file (set() forgets it).
  // The record itself stays what the connection read or wrote: being told
  // is not reading (--require-read).
  static constexpr const char* kGone = "";
  const std::string* told(const std::string& canonical) const;
  void set_told(const std::string& canonical, std::string fingerprint);

  // How many of a file's own mutations are remembered by what they replaced.
  static constexpr std::size_t kOwnChanges = 8;
  // This connection changed `canonical`, which had `before`: remembered
  // with the record (set first), the oldest of kOwnChanges going.
  void note_own_change(const std::string& canonical, std::string before);
  // Whether one of the last kOwnChanges own mutations of `canonical`
  // replaced a file with `fingerprint`.
  bool replaced_by_own_change(const std::string& canonical, const std::string& fingerprint) const;

  // The `n` most recently used records' paths, most recent first.
  std::vector<std::string> recent(std::size_t n) const;
  // The paths recorded since the last call that had no record before, at
  // most kFresh of them (past it, fresh_overflowed() says some are missing
  // until the next call).
  static constexpr std::size_t kFresh = 256;
  std::vector<std::string> take_fresh();
  bool fresh_overflowed() const { return fresh_overflowed_; }

  // Whether a record was ever forgotten for the budget.
  bool forgot() const { return forgot_; }
  std::size_t size() const { return records_.size(); }
  std::size_t bytes() const { return bytes_; }
  std::size_t budget() const { return budget_; }

 private:
  struct Record {
    std::string fingerprint;
    std::vector<std::string> own_befores;  // oldest first, at most kOwnChanges
    std::optional<std::string> told;
    std::size_t bytes = 0;
    std::list<const std::string*>::iterator lru;
  };
  using Records = std::unordered_map<std::string, Record>;

  void drop(Records::iterator it);
  // Forgets the least recently used records until within the budget.
  void trim();

  const std::size_t budget_;
  Records records_;
  std::list<const std::string*> lru_;  // front: most recently used; keys of records_
  std::size_t bytes_ = 0;
  bool forgot_ = false;
  std::vector<std::string> fresh_;
  bool fresh_overflowed_ = false;
};

}  // namespace editd
