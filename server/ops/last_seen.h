// What editd last saw of each local file, for every connection at once: a
// few versions of its bytes by fingerprint, so that a change made outside a
// connection is told with its diff against the bytes the connection knew
// (server/ops/outside.cpp); and the stat stamp under which the file was last
// found to have a fingerprint, so that a file whose stamp has not moved is
// not read again to be sure.
//
// Fed where reads and commits record what a connection knows (read.cpp,
// commit.cpp) and by the outside checks themselves. Bounded: files over
// kMaxFileBytes keep no bytes; every version's bytes count against one
// budget (32 MiB by default), and past it the least recently kept go; at most
// kMaxVersions versions a file and kMaxFiles files (stamps included).
//
// A stamp is trusted only when its mtime is older than kRacyNs at the moment
// it was taken: a file written twice within a file system's clock tick (a
// few ms on ext4) can keep size, inode and mtime, as git's "racily clean"
// index entries can; such a file is read again.
//
// Thread-safe: one mutex; connections on every I/O thread use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "backends/fs_backend.h"

namespace editd {

class LastSeen {
 public:
  static constexpr std::size_t kDefaultBudget = std::size_t{32} << 20;
  static constexpr std::size_t kMaxFileBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxVersions = 4;
  static constexpr std::size_t kMaxFiles = 16384;
  static constexpr std::int64_t kRacyNs = 2'000'000'000;

  explicit LastSeen(std::size_t budget_bytes = kDefaultBudget) : budget_(budget_bytes) {}
  LastSeen(const LastSeen&) = delete;
  LastSeen& operator=(const LastSeen&) = delete;

  // `canonical` had `bytes`, whose fingerprint is `fingerprint`: kept as its
  // newest version (a version already kept only becomes the newest).
  void keep(const std::string& canonical, const std::string& fingerprint, std::string_view bytes);
  // The bytes of `canonical` that had `fingerprint`, if still kept.
  std::optional<std::string> bytes_of(const std::string& canonical,
                                      const std::string& fingerprint);

  // The file had `fingerprint` when its stat gave `stamp`, taken before it
  // was read at `now_ns` (CLOCK_REALTIME); a racy stamp is not kept.
  void stamp(const std::string& canonical, const FileStat::Stamp& stamp,
             const std::string& fingerprint, std::int64_t now_ns);
  // The fingerprint the file had under `stamp`, when that is the stamp kept.
  std::optional<std::string> fingerprint_at(const std::string& canonical,
                                            const FileStat::Stamp& stamp);

  std::size_t bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
  }

 private:
  struct Version {
    std::string fingerprint;
    std::string bytes;
  };
  struct File {
    std::list<Version> versions;  // newest first
    std::optional<FileStat::Stamp> stamp;
    std::string stamped;  // the fingerprint under `stamp`
    std::list<const std::string*>::iterator lru;
  };
  using Files = std::unordered_map<std::string, File>;

  File& touch(const std::string& canonical);
  void drop_oldest_version();
  void trim();

  const std::size_t budget_;
  mutable std::mutex mutex_;
  Files files_;
  std::list<const std::string*> lru_;  // front: most recently kept
  std::size_t bytes_ = 0;
};

}  // namespace editd
