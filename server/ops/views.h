// The views editd served: what each connection read of each file, for
// edit_lines to map hashline anchors from (edit/anchors/hashline.h).
//
// For every read_text (any format, any slice) a connection makes, the store
// keeps the file's hashline::Snapshot as it was read (a full-width hash and a
// tag per line, never the text) and the lines shown, under the connection,
// the backend scope, the canonical path and the fingerprint read; reads of one
// version add their lines to one view. Views are the connection's own: another
// client's read of a newer version must not vouch for anchors this one took
// from an older one. A connection's views go when it closes.
//
// One byte budget for the whole server (--view-memory) bounds them all, each
// view counted with its keys (scope, path and fingerprint: a long path costs
// what it holds) and its nodes: least recently used views go first, a view larger than the budget is not
// kept, a connection keeps at most kVersionsPerFile versions of one file, and
// a view at most kRangesPerView separate runs of lines read.
// An evicted view only makes its anchors stale, never wrong.
//
// Thread-safe: connections on every I/O thread use one store; the mutex is
// held only to find, link or unlink entries (snapshots are built outside it
// and shared, immutable, with the edits that use them).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "edit/anchors/hashline.h"

namespace editd {

class Views {
 public:
  // Versions of one file one connection keeps; older ones go first.
  static constexpr std::size_t kVersionsPerFile = 16;
  // Separate runs of lines one view keeps (reads one at a time, far apart):
  // past it the oldest go, so that a read's work under the mutex stays small.
  static constexpr std::size_t kRangesPerView = 64;
  // What an entry costs beyond its snapshot's lines, its ranges and the bytes
  // of its keys (scope, path, fingerprint): the map and LRU nodes, the
  // strings' and the snapshot's headers, the snapshot's control block.
  static constexpr std::size_t kEntryOverhead = 384;

  struct Where {
    std::uint64_t reader = 0;  // the connection (open_reader())
    std::string scope;         // RequestContext::scope
    std::string path;          // canonical
  };

  // One remembered view, as edit_lines uses it.
  struct Found {
    std::string fingerprint;
    std::shared_ptr<const hashline::Snapshot> file;
    std::vector<hashline::LineRange> shown;
  };

  explicit Views(std::uint64_t budget_bytes) : budget_(budget_bytes) {}

  // A new connection's id (never 0, never reused).
  std::uint64_t open_reader();
  // Forgets every view of `reader`.
  void close_reader(std::uint64_t reader);

  // Records that lines `shown` of version `fingerprint` were read at `where`
  // when that version is already remembered there (and makes it the newest);
  // false when it is not: build its snapshot and remember() it.
  bool add_lines(const Where& where, const std::string& fingerprint, hashline::LineRange shown);
  void remember(const Where& where, const std::string& fingerprint, hashline::LineRange shown,
                std::shared_ptr<const hashline::Snapshot> file);

  // The views remembered at `where`, newest first.
  std::vector<Found> find(const Where& where) const;

  std::uint64_t bytes() const;
  std::uint64_t budget() const { return budget_; }

 private:
  using Key = std::tuple<std::uint64_t, std::string, std::string, std::string>;
  struct Entry;
  using Entries = std::map<Key, Entry>;
  struct Entry {
    std::shared_ptr<const hashline::Snapshot> file;
    std::vector<hashline::LineRange> shown;
    std::uint64_t stamp = 0;  // last use; larger is newer
    std::size_t bytes = 0;
    std::list<Entries::iterator>::iterator lru;
  };

  static std::size_t cost(const Key& key, const Entry& e);
  void touch(Entries::iterator it);
  void erase(Entries::iterator it);
  void evict();

  const std::uint64_t budget_;
  mutable std::mutex mutex_;
  Entries entries_;
  std::list<Entries::iterator> lru_;  // front: most recently used
  std::uint64_t bytes_ = 0;
  std::uint64_t stamp_ = 0;
  std::uint64_t next_reader_ = 1;
};

}  // namespace editd
