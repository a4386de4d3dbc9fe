// What list and search take and give (server/methods/list.cpp, search.cpp;
// server/ops/search.cpp), beside requests.h: the core's own types, no JSON.
// docs/protocol.md ("list", "search") says what each field means on the wire.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace editd::ops {

// The bounds a client may lower but never raise (docs/protocol.md).
inline constexpr std::uint64_t kListMaxDepth = 16;
inline constexpr std::uint64_t kListMaxLimit = 2000;
inline constexpr std::uint64_t kListDefaultLimit = 200;
// Entries a listing looks at before it stops (truncated "entries").
inline constexpr std::uint64_t kListMaxVisited = 100000;
// The prefix of a file read to tell text from binary.
inline constexpr std::size_t kTextProbeBytes = 8192;

inline constexpr std::uint64_t kSearchMaxLimit = 1000;
inline constexpr std::uint64_t kSearchDefaultLimit = 100;
inline constexpr std::uint64_t kSearchMaxContext = 10;
inline constexpr std::uint64_t kSearchMaxFiles = 1000000;
inline constexpr std::uint64_t kSearchDefaultFiles = 200000;
inline constexpr std::uint64_t kSearchMaxTimeoutMs = 60000;
inline constexpr std::uint64_t kSearchDefaultTimeoutMs = 10000;
inline constexpr std::size_t kSearchMaxReplyBytes = 1 << 20;
inline constexpr std::size_t kSearchMaxLineBytes = 400;
inline constexpr std::size_t kSearchMaxPattern = 4096;
inline constexpr std::size_t kSearchMaxGlobs = 32;
// Directory levels a walk goes down (each holds a descriptor while below).
inline constexpr unsigned kWalkMaxDepth = 64;

// Which entries a walk passes over, for list and search alike.
struct WalkFilter {
  std::vector<std::string> include;  // globs; empty: every file
  std::vector<std::string> exclude;  // globs; a matching directory is not entered
  bool include_ignored = false;      // .gitignore and .git/info/exclude not honoured
  bool include_hidden = false;       // names starting with '.'
};

struct ListRequest {
  std::string path = ".";
  std::uint64_t depth = 1;
  std::uint64_t limit = kListDefaultLimit;
  std::optional<std::string> cursor;  // the last path of the previous page
  WalkFilter filter;
};
struct ListEntry {
  enum class Kind { kFile, kDirectory, kSymlink, kOther };
  std::string path;  // relative to the root, '/'-separated
  Kind kind = Kind::kFile;
  std::uint64_t size = 0;
  std::optional<bool> text;  // files only: UTF-8 without NUL in the first kTextProbeBytes
};
struct Listed {
  std::string path;  // the directory listed, as shown
  std::vector<ListEntry> entries;
  std::optional<std::string> next_cursor;
  std::optional<std::string> truncated_by;  // "entries": kListMaxVisited looked at
};

struct SearchRequest {
  std::string path = ".";
  std::string pattern;
  bool regex = false;
  bool case_sensitive = true;
  std::uint64_t before = 0, after = 0;  // context lines
  std::uint64_t limit = kSearchDefaultLimit;
  std::uint64_t max_files = kSearchDefaultFiles;
  std::uint64_t timeout_ms = kSearchDefaultTimeoutMs;
  std::optional<std::string> cursor;
  WalkFilter filter;
};
struct SearchLine {
  std::uint64_t line = 0;
  std::string anchor;  // LINE~TAG, as edit_lines takes it
  std::string text;    // without its line break, cut at kSearchMaxLineBytes
  bool cut = false;
};
struct SearchHit {
  std::string path;  // relative to the root
  SearchLine line;
  std::vector<SearchLine> before, after;
};
struct Searched {
  std::vector<SearchHit> hits;
  std::optional<std::string> next_cursor;
  // Why the search stopped before the end: "limit" (the page is full),
  // "bytes" (the reply's bound), "files" (max_files scanned), "time".
  std::optional<std::string> stopped_by;
  std::uint64_t files_scanned = 0;
  std::uint64_t files_with_hits = 0;
  std::uint64_t skipped_binary = 0;     // NUL bytes or not UTF-8
  std::uint64_t skipped_too_large = 0;  // over --max-file-bytes
  std::uint64_t skipped_unreadable = 0;
};

}  // namespace editd::ops
