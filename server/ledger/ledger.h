// The ledger: every change made to the files of one root, on the record.
//
// One SQLite database (WAL) per root, in editd's state directory (outside
// every root, this user's alone: STATE/ledger/ROOTID.sqlite, mode 0600),
// shared by every editd process serving that root and by `editd changes` /
// `editd revert`. Each entry says when, who (the client's name and version,
// its door, ACP session, socket peer), which method and request id, and for
// each file the fingerprints before and after and its hunks
// (edit/change/hunks.h): what a revert needs, never a copy of the file; and,
// where a formatter ran, which of those lines were the formatter's.
//
// Appends from every request are grouped: one writer thread takes all that
// are waiting in one transaction (one sync of the WAL under --durability
// full), so pipelined edits share their commits. An entry is durable when
// append() returns (synchronous=FULL; OFF under --durability none).
//
// Nothing in the database is trusted because of where it lies: each entry is
// tagged with this user's key (backends/local/journal_key.h) and an entry
// whose tag does not match is shown as untrusted and never reverted. The file
// must be a regular file of this user that no one else may read; a database
// that is not (another user's file put in its place) is refused, and every
// mutation with it (io) until it is fixed. A corrupt database is moved aside
// (one log line) and a new one started.
//
// Bounded: entries' bytes past --ledger-bytes drop the oldest first; an id
// below the oldest kept is answered as forgotten.
//
// Thread-safe: appends from any thread or coroutine; reads on the caller's
// thread (a connection of their own, one at a time).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "edit/change/hunks.h"
#include "protocol/error.h"

namespace editd::ledger {

// Who made a change.
struct Actor {
  std::string client;          // initialize's clientInfo.name
  std::string client_version;  // clientInfo.version
  std::string door;            // "jsonrpc", "mcp", "acp", "cli", "outside"
  std::string session;         // the ACP session, when there is one
  std::string peer;            // the socket peer ("stdio", "unix", "tcp:1.2.3.4:5")
  std::string method;          // the method or tool called
  std::string request_id;      // the request's id, as JSON text
};

enum class Origin { kEdit, kUndo, kRevert, kOutside };
const char* origin_name(Origin o);
std::optional<Origin> origin_from(std::string_view name);

struct FileRecord {
  std::string path;  // root-relative, as shown to clients
  std::optional<std::string> before_fingerprint;  // nullopt: it did not exist
  std::optional<std::string> after_fingerprint;   // nullopt: removed
  std::optional<std::uint32_t> before_mode;       // when it changed
  std::optional<std::uint32_t> after_mode;
  std::vector<hunks::Hunk> hunks;
  // The hunks were larger than the ledger keeps for one entry: the entry
  // says what changed, but cannot be reverted.
  bool hunks_dropped = false;
  // What a formatter (--format) changed of the text the call made, as hunks
  // from that text (old) to the bytes as written (new). `hunks` already
  // include them (before -> as written), so a revert takes both back; these
  // only say which of the lines were the formatter's, and are not revertible
  // on their own. Empty when no formatter ran or it changed nothing. Read
  // back with the same page bound as `hunks` (their texts left out past it:
  // texts_omitted); on an entry past the ledger's bound for one entry they
  // are the first to go (before `hunks`), without a mark.
  std::vector<hunks::Hunk> formatted;
  // Read back only: the lines of some of `hunks` or `formatted` were left
  // out (a page's bound).
  bool texts_omitted = false;
};

struct Entry {
  std::int64_t id = 0;       // set by append(): "c" + id on the wire
  std::int64_t time_ms = 0;  // Unix time; set by append() when 0
  Origin origin = Origin::kEdit;
  Actor actor;
  std::string scope;  // "local", or "delegated:..." (RequestContext's scope)
  std::int64_t pid = 0;
  // The entries and hunks a revert or an undo took back ("c12", "c12:3").
  std::vector<std::string> reverts;
  std::vector<FileRecord> files;
  // Read back only: the entry's tag did not match this user's key.
  bool untrusted = false;
  // Read back only: the hunks a reviewer kept (keep()), by their number in
  // the entry (1-based, across its files; 0: the entry as a whole).
  std::vector<std::size_t> kept;
};

// A hunk of an entry: n is its 1-based number across the entry's files, as
// in "c12:3"; 0 names the entry as a whole (one that has no hunks).
struct HunkRef {
  std::int64_t entry = 0;
  std::size_t n = 0;
};

// What a list of runs needs of an entry: no hunks, no texts.
struct Summary {
  std::int64_t id = 0;
  std::int64_t time_ms = 0;
  Origin origin = Origin::kEdit;
  Actor actor;  // without method and request id
  std::int64_t pid = 0;
  std::vector<std::string> paths;
  std::size_t hunks = 0;
  std::size_t kept = 0;  // of them, marked kept
  std::vector<std::string> reverts;
};

struct Options {
  bool enabled = true;
  // STATE: "" is journal::default_state_dir() (backends/local/journal_key.h).
  std::string state_dir;
  std::string root;  // the canonical root this ledger is of
  std::uint64_t max_bytes = 256ull << 20;
  bool durable = true;  // --durability full
};

struct Filter {
  std::optional<std::string> path;     // entries touching this file
  std::optional<std::string> client;   // Actor::client
  std::optional<std::string> session;  // Actor::session
  std::optional<Origin> origin;
  std::optional<std::int64_t> since_ms, until_ms;
  std::optional<std::int64_t> before_id;  // paging: entries older than this
  std::size_t limit = 50;                 // at most 1000
};

// A page carries at most this much of its hunks' lines (formatted hunks
// counted too, after the entry's own hunks); past it, files come with
// texts_omitted.
inline constexpr std::size_t kPageTextBytes = 1 << 20;

struct Page {
  std::vector<Entry> entries;  // newest first
  std::optional<std::int64_t> next_before;  // more: ask again with before_id
  std::int64_t oldest_kept = 0;             // ids below were forgotten
};

class Ledger {
 public:
  // Opens (making it if missing) the ledger of options.root. An error (io)
  // when it cannot: the state directory cannot be made, the file is not
  // this user's alone, SQLite fails. A corrupt file is moved aside first.
  static Result<std::shared_ptr<Ledger>> open(const Options& options);
  ~Ledger();

  const std::string& path() const;

  // Records `entry` (its id and time set), grouped with whatever else is
  // waiting; durable when it returns. io when it could not be recorded
  // (locked past the busy timeout, disk full, corrupt: moved aside for the
  // next one), and the caller must then undo what the entry describes.
  boost::asio::awaitable<Result<std::int64_t>> append(Entry entry);
  // The same, blocking (the CLI; tests).
  Result<std::int64_t> append_now(Entry entry);

  // Takes entry `id` back off the record: the change it describes did not
  // happen after all (its write failed). Blocking.
  Result<void> retract(std::int64_t id);

  // Records an outside change of `file.path` unless the newest entry of that
  // path already ends at file.after_fingerprint (another process or
  // connection noticed it first, or editd made it): the entry's id, or
  // nullopt when it was already on the record.
  Result<std::optional<std::int64_t>> append_outside(Entry entry);

  // The newest entry touching `path`, if any is kept.
  Result<std::optional<Entry>> newest_of(const std::string& path);
  // The entry `id`; nullopt when there is none (never made, or forgotten:
  // compare with oldest_kept()).
  Result<std::optional<Entry>> get(std::int64_t id);
  // The entries after `id` that touch `path`, oldest first.
  Result<std::vector<Entry>> later_on(const std::string& path, std::int64_t id);
  Result<Page> list(const Filter& filter);
  std::int64_t oldest_kept();

  // The entries `ids` that are kept, in that order, with their hunks' texts
  // while they fit in `text_budget` bytes (then texts_omitted).
  Result<std::vector<Entry>> entries(const std::vector<std::int64_t>& ids,
                                     std::size_t text_budget = kPageTextBytes);
  // The newest `count` entries (at most 100,000), newest first, as summaries.
  Result<std::vector<Summary>> summaries(std::size_t count);

  // Marks hunks as reviewed and kept (the review page's "keep"), or clears
  // the marks; durable when it returns. Marks of entries no longer kept are
  // passed over, and go with their entries.
  Result<void> keep(const std::vector<HunkRef>& refs, bool kept);

  // A number that changes whenever any process (this one's writer too) has
  // committed to the database since the last call (SQLite's data_version): a
  // cheap way to notice new entries and marks.
  std::int64_t version();

 private:
  struct State;
  explicit Ledger(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// "c42" -> 42; nullopt when not an entry id.
std::optional<std::int64_t> parse_entry_id(std::string_view id);
// "c42:3" -> {42, 3} (3: the 1-based hunk of the entry, across its files).
std::optional<std::pair<std::int64_t, std::size_t>> parse_hunk_id(std::string_view id);
std::string entry_id(std::int64_t id);
// A time on record as the wire shows it: "2026-12-06T10:00:00.123Z" (UTC).
std::string iso_time(std::int64_t ms);
std::string hunk_id(std::int64_t id, std::size_t n);

}  // namespace editd::ledger
