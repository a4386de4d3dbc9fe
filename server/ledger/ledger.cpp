// The ledger (ledger.h): one SQLite database per root, appends grouped by one
// writer thread.
#include "server/ledger/ledger.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <ctime>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "backends/local/journal_key.h"
#include "support/fd.h"

namespace editd::ledger {

namespace {

constexpr int kSchemaVersion = 1;
constexpr int kBusyMillis = 5000;

const char* const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time_ms INTEGER NOT NULL, origin TEXT NOT NULL,
  client TEXT, client_version TEXT, door TEXT, session TEXT, peer TEXT,
  method TEXT, request_id TEXT, scope TEXT, pid INTEGER, reverts TEXT,
  bytes INTEGER NOT NULL, tag TEXT);
CREATE TABLE IF NOT EXISTS files(
  entry INTEGER NOT NULL, idx INTEGER NOT NULL, path TEXT NOT NULL,
  before_fp TEXT, after_fp TEXT, before_mode INTEGER, after_mode INTEGER,
  dropped INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(entry, idx)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_path ON files(path, entry);
CREATE TABLE IF NOT EXISTS hunks(
  entry INTEGER NOT NULL, idx INTEGER NOT NULL, n INTEGER NOT NULL,
  old_start INTEGER, old_count INTEGER, new_start INTEGER, new_count INTEGER,
  old_text BLOB, new_text BLOB, context_before BLOB, context_after BLOB,
  PRIMARY KEY(entry, idx, n)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entries_client ON entries(client, id);
CREATE INDEX IF NOT EXISTS entries_session ON entries(session, id);
CREATE TABLE IF NOT EXISTS kept(
  entry INTEGER NOT NULL, n INTEGER NOT NULL, time_ms INTEGER NOT NULL,
  PRIMARY KEY(entry, n)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS formatted(
  entry INTEGER NOT NULL, idx INTEGER NOT NULL, n INTEGER NOT NULL,
  old_start INTEGER, old_count INTEGER, new_start INTEGER, new_count INTEGER,
  old_text BLOB, new_text BLOB, context_before BLOB, context_after BLOB,
  PRIMARY KEY(entry, idx, n)) WITHOUT ROWID;
)sql";
// `formatted` (FileRecord::formatted) came after schema 1 without a new
// version: this schema runs on every open, so a ledger made before gets the
// table, and an older editd still opens a newer ledger (another version
// would be refused as corrupt and moved aside). What an older editd cannot
// do with it: vouch for an entry with formatted hunks (the tag covers them,
// and it does not read them: it lists the entry as untrusted), or delete
// them with their entry (left behind by its retract or trim, they belong to
// no entry, since ids are never reused, and a trim here past them deletes
// them).

Error io_error(std::string message) {
  return Error(ErrorKind::kIo, std::move(message), {{"reason", "ledger"}});
}

std::string hex32(std::uint64_t hi, std::uint64_t lo) {
  static const char* hex = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    const unsigned b =
        static_cast<unsigned>((i < 8 ? hi >> (56 - 8 * i) : lo >> (56 - 8 * (i - 8))) & 0xff);
    out[2 * i] = hex[b >> 4];
    out[2 * i + 1] = hex[b & 15];
  }
  return out;
}

// A statement, finalized when it goes.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() { return stmt_; }

  void bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_blob(int i, std::string_view v) {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_null(int i) { sqlite3_bind_null(stmt_, i); }
  template <class T>
  void bind(int i, const std::optional<T>& v) {
    if (v)
      bind(i, *v);
    else
      bind_null(i);
  }
  void bind(int i, const std::optional<std::uint32_t>& v) {
    if (v)
      bind(i, static_cast<std::int64_t>(*v));
    else
      bind_null(i);
  }
  int step() { return sqlite3_step(stmt_); }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  std::int64_t integer(int i) { return sqlite3_column_int64(stmt_, i); }
  bool null(int i) { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  std::string text(int i) {
    const void* p = sqlite3_column_blob(stmt_, i);
    const int n = sqlite3_column_bytes(stmt_, i);
    return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(n)) : "";
  }
  std::optional<std::string> optional_text(int i) {
    if (null(i)) return std::nullopt;
    return text(i);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

bool is_corrupt(int rc) {
  rc &= 0xff;
  return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

std::string sqlite_message(sqlite3* db, int rc) {
  std::string m = sqlite3_errstr(rc);
  if (db && sqlite3_errmsg(db)) m = sqlite3_errmsg(db);
  return m;
}

// The entry's content, as its tag covers it (ids and hunks included).
std::string digest_of(const Entry& e) {
  XXH3_state_t* st = XXH3_createState();
  XXH3_128bits_reset(st);
  auto add = [&](std::string_view s) {
    const std::uint64_t n = s.size();
    XXH3_128bits_update(st, &n, sizeof n);
    XXH3_128bits_update(st, s.data(), s.size());
  };
  auto add_int = [&](std::int64_t v) { XXH3_128bits_update(st, &v, sizeof v); };
  auto add_opt = [&](const std::optional<std::string>& s) {
    add_int(s ? 1 : 0);
    if (s) add(*s);
  };
  add_int(e.id);
  add_int(e.time_ms);
  add(origin_name(e.origin));
  for (const std::string* s : {&e.actor.client, &e.actor.client_version, &e.actor.door,
                               &e.actor.session, &e.actor.peer, &e.actor.method,
                               &e.actor.request_id, &e.scope})
    add(*s);
  add_int(e.pid);
  for (const std::string& r : e.reverts) add(r);
  for (const FileRecord& f : e.files) {
    add(f.path);
    add_opt(f.before_fingerprint);
    add_opt(f.after_fingerprint);
    add_int(f.before_mode ? static_cast<std::int64_t>(*f.before_mode) : -1);
    add_int(f.after_mode ? static_cast<std::int64_t>(*f.after_mode) : -1);
    add_int(f.hunks_dropped);
    auto add_hunk = [&](const hunks::Hunk& h) {
      add_int(static_cast<std::int64_t>(h.old_start));
      add_int(static_cast<std::int64_t>(h.old_count));
      add_int(static_cast<std::int64_t>(h.new_start));
      add_int(static_cast<std::int64_t>(h.new_count));
      add(h.old_text);
      add(h.new_text);
      add(h.context_before);
      add(h.context_after);
    };
    for (const hunks::Hunk& h : f.hunks) add_hunk(h);
    // Only when there are some: the tags of entries made before the
    // formatter's hunks were recorded stay what they were.
    if (!f.formatted.empty()) {
      add("formatted");
      add_int(static_cast<std::int64_t>(f.formatted.size()));
      for (const hunks::Hunk& h : f.formatted) add_hunk(h);
    }
  }
  const XXH128_hash_t h = XXH3_128bits_digest(st);
  XXH3_freeState(st);
  return hex32(h.high64, h.low64);
}

// The columns every read of entries starts with: id, time_ms, origin, client,
// client_version, door, session, peer.
void read_head(Statement& q, std::int64_t& id, std::int64_t& time_ms, Origin& origin,
               Actor& actor) {
  id = q.integer(0);
  time_ms = q.integer(1);
  origin = origin_from(q.text(2)).value_or(Origin::kEdit);
  actor.client = q.text(3);
  actor.client_version = q.text(4);
  actor.door = q.text(5);
  actor.session = q.text(6);
  actor.peer = q.text(7);
}

std::string join_reverts(const std::vector<std::string>& r) {
  std::string out;
  for (const std::string& s : r) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::vector<std::string> split_reverts(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    std::size_t comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

// What an entry holds, every string a client chose counted: the bound is
// of what the database keeps.
std::uint64_t entry_bytes(const Entry& e) {
  std::uint64_t n = 256 + e.scope.size();
  for (const std::string* s : {&e.actor.client, &e.actor.client_version, &e.actor.door,
                               &e.actor.session, &e.actor.peer, &e.actor.method,
                               &e.actor.request_id})
    n += s->size();
  for (const std::string& r : e.reverts) n += 1 + r.size();
  for (const FileRecord& f : e.files)
    n += 128 + f.path.size() + hunks::held_by(f.hunks) + hunks::held_by(f.formatted);
  return n;
}

// Who made a change, each field at most kActorBytes: a request id or a
// client's name is the client's to choose, and goes into every entry.
constexpr std::size_t kActorBytes = 256;
void clamp_actor(Actor& a) {
  for (std::string* s : {&a.client, &a.client_version, &a.door, &a.session, &a.peer, &a.method,
                         &a.request_id})
    if (s->size() > kActorBytes) s->resize(kActorBytes);
}

}  // namespace

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::kEdit: return "edit";
    case Origin::kUndo: return "undo";
    case Origin::kRevert: return "revert";
    case Origin::kOutside: return "outside";
  }
  return "edit";
}

std::optional<Origin> origin_from(std::string_view name) {
  for (Origin o : {Origin::kEdit, Origin::kUndo, Origin::kRevert, Origin::kOutside})
    if (name == origin_name(o)) return o;
  return std::nullopt;
}

std::string entry_id(std::int64_t id) { return "c" + std::to_string(id); }

std::string iso_time(std::int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}
std::string hunk_id(std::int64_t id, std::size_t n) {
  return entry_id(id) + ":" + std::to_string(n);
}

std::optional<std::int64_t> parse_entry_id(std::string_view id) {
  if (id.size() < 2 || id.front() != 'c') return std::nullopt;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(id.data() + 1, id.data() + id.size(), v);
  if (ec != std::errc() || end != id.data() + id.size() || v <= 0) return std::nullopt;
  return v;
}

std::optional<std::pair<std::int64_t, std::size_t>> parse_hunk_id(std::string_view id) {
  const std::size_t colon = id.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto entry = parse_entry_id(id.substr(0, colon));
  if (!entry) return std::nullopt;
  std::size_t n = 0;
  std::string_view rest = id.substr(colon + 1);
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  if (ec != std::errc() || end != rest.data() + rest.size() || n == 0) return std::nullopt;
  return std::pair(*entry, n);
}

// One append waiting for the writer: its entry and what to call with the id.
struct Pending {
  Entry entry;
  bool outside = false;  // append_outside: skipped when already on the record
  std::int64_t retract = 0;  // retract(): the entry to take off, instead of appending
  // keep(): marks to set (or clear) instead of appending.
  std::optional<std::vector<HunkRef>> keep;
  bool kept = true;
  std::function<void(Result<std::optional<std::int64_t>>)> done;
};

struct Ledger::State {
  Options options;
  std::string dir;   // STATE/ledger
  std::string file;  // dir/ROOTID.sqlite
  journal::Key key;
  sqlite3* writer = nullptr;
  sqlite3* reader = nullptr;
  std::mutex read_mutex;

  bool moved_aside = false;  // a corrupt database was moved aside: ids start past its

  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Pending> queue;
  bool stopping = false;
  std::thread thread;

  ~State() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    if (thread.joinable()) thread.join();
    sqlite3_close_v2(writer);
    sqlite3_close_v2(reader);
  }

  // --- opening ---------------------------------------------------------

  // The file at `file` may be used: absent (made now, 0600), or a regular
  // file of this user with one link that no one else may read or write.
  Result<void> check_file() {
    Fd fd(::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
    if (!fd.valid())
      return io_error("the ledger " + file + " cannot be opened: " + std::strerror(errno) +
                      " (a link, or not this user's; --ledger off serves without it)");
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return io_error("the ledger " + file + ": fstat failed");
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0 ||
        st.st_nlink != 1)
      return io_error("the ledger " + file +
                      " is not a file of this user's alone (mode 0600, one link): it was "
                      "not made by editd; move it away, or serve with --ledger off");
    return {};
  }

  Result<sqlite3*> open_connection() {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(file.c_str(), &db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                                 SQLITE_OPEN_NOFOLLOW,
                             nullptr);
    if (rc != SQLITE_OK) {
      std::string m = sqlite_message(db, rc);
      sqlite3_close_v2(db);
      return Error(ErrorKind::kIo, "the ledger " + file + " cannot be opened: " + m,
                   {{"reason", "ledger"}, {"sqlite", rc}});
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_busy_timeout(db, kBusyMillis);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 256 << 20);
    return db;
  }

  int exec(sqlite3* db, const char* sql) {
    return sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  }

  // The schema, made or checked; the corrupt file's code when it is one.
  int prepare_schema(sqlite3* db) {
    int rc = exec(db, "PRAGMA journal_mode=WAL");
    if (rc != SQLITE_OK) return rc;
    rc = exec(db, options.durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF");
    if (rc != SQLITE_OK) return rc;
    // The WAL is checkpointed at 1 MiB and cut back to it after: what the
    // ledger takes on disk stays near its entries.
    exec(db, "PRAGMA wal_autocheckpoint=256");
    exec(db, "PRAGMA journal_size_limit=1048576");
    rc = exec(db, "BEGIN IMMEDIATE");
    if (rc != SQLITE_OK) return rc;
    rc = exec(db, kSchema);
    if (rc == SQLITE_OK) {
      Statement v(db, "SELECT value FROM meta WHERE key='schema'");
      int s = v.ok() ? v.step() : SQLITE_ERROR;
      if (s == SQLITE_DONE) {
        // A ledger started again after a corrupt one was moved aside numbers
        // its entries past any the old one can have issued (ids from the time),
        // so that an old id is answered as forgotten, never as another change.
        std::int64_t first = 1;
        if (moved_aside)
          first = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
        rc = exec(db, ("INSERT INTO meta VALUES('schema'," + std::to_string(kSchemaVersion) +
                       "),('bytes',0),('oldest'," + std::to_string(first) + ")")
                          .c_str());
        if (rc == SQLITE_OK && first > 1)
          rc = exec(db, ("INSERT INTO sqlite_sequence(name,seq) VALUES('entries'," +
                         std::to_string(first - 1) + ")")
                            .c_str());
      } else if (s == SQLITE_ROW) {
        if (v.integer(0) != kSchemaVersion) rc = SQLITE_NOTADB;
      } else {
        rc = sqlite3_errcode(db);
      }
    }
    if (rc == SQLITE_OK) rc = exec(db, "COMMIT");
    if (rc != SQLITE_OK) exec(db, "ROLLBACK");
    return rc;
  }

  // Moves the corrupt database (and its WAL) aside, with one log line.
  void move_aside() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const std::string aside =
        file + ".corrupt-" +
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now).count());
    ::rename(file.c_str(), aside.c_str());
    moved_aside = true;
    ::unlink((file + "-wal").c_str());
    ::unlink((file + "-shm").c_str());
    spdlog::error("the ledger {} was corrupt: moved aside to {}; a new one is started", file,
                  aside);
  }

  Result<void> open_all() {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (auto ok = check_file(); !ok) return ok;
      auto w = open_connection();
      if (!w) return w.error();
      int rc = prepare_schema(*w);
      if (rc == SQLITE_OK) {
        writer = *w;
        auto r = open_connection();
        if (!r) return r.error();
        reader = *r;
        return {};
      }
      std::string m = sqlite_message(*w, rc);
      sqlite3_close_v2(*w);
      if (!is_corrupt(rc) || attempt == 1)
        return Error(ErrorKind::kIo, "the ledger " + file + " cannot be used: " + m,
                     {{"reason", "ledger"}, {"sqlite", rc}});
      move_aside();
    }
    return io_error("the ledger cannot be opened");
  }

  // --- the writer ------------------------------------------------------

  void run() {
    for (;;) {
      std::deque<Pending> batch;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        batch.swap(queue);
      }
      write_batch(batch);
    }
  }

  void write_batch(std::deque<Pending>& batch) {
    std::vector<Result<std::optional<std::int64_t>>> out;
    int rc = exec(writer, "BEGIN IMMEDIATE");
    if (rc == SQLITE_OK) {
      for (Pending& p : batch) out.push_back(insert_one(p));
      rc = trim();
      if (rc == SQLITE_OK) rc = exec(writer, "COMMIT");
    }
    if (rc != SQLITE_OK) {
      Error e = io_error("the ledger could not record the change: " + sqlite_message(writer, rc) +
                         " (" + file + ")");
      e.data["sqlite"] = rc;
      exec(writer, "ROLLBACK");
      if (is_corrupt(rc)) recover_from_corruption();
      for (Pending& p : batch) p.done(e);
      return;
    }
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(out[i]));
  }

  void recover_from_corruption() {
    sqlite3_close_v2(writer);
    writer = nullptr;
    {
      std::lock_guard lock(read_mutex);
      sqlite3_close_v2(reader);
      reader = nullptr;
    }
    move_aside();
    if (auto ok = open_all(); !ok) spdlog::error("{}", ok.error().message);
  }

  // One entry in a savepoint of the batch's transaction: its id, or nullopt
  // for an outside change already on the record.
  Result<std::optional<std::int64_t>> insert_one(Pending& p) {
    if (p.retract) return remove_one(p.retract);
    if (p.keep) return mark_kept(*p.keep, p.kept);
    Entry& e = p.entry;
    if (p.outside && !e.files.empty()) {
      Statement q(writer,
                  "SELECT f.after_fp FROM files f WHERE f.path=?1 ORDER BY f.entry DESC LIMIT 1");
      q.bind(1, e.files[0].path);
      if (q.ok() && q.step() == SQLITE_ROW && q.optional_text(0) == e.files[0].after_fingerprint)
        return std::optional<std::int64_t>();
    }
    exec(writer, "SAVEPOINT one");
    auto id = insert_rows(e);
    if (!id) {
      exec(writer, "ROLLBACK TO one");
      exec(writer, "RELEASE one");
      return id.error();
    }
    exec(writer, "RELEASE one");
    return std::optional<std::int64_t>(*id);
  }

  Result<std::int64_t> insert_rows(Entry& e) {
    auto fail = [&](const char* what) {
      return io_error(std::string("the ledger could not record the change (") + what +
                      "): " + sqlite3_errmsg(writer));
    };
    const std::uint64_t bytes = entry_bytes(e);
    Statement ins(writer,
                  "INSERT INTO entries(time_ms,origin,client,client_version,door,session,peer,"
                  "method,request_id,scope,pid,reverts,bytes) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,"
                  "?10,?11,?12,?13)");
    if (!ins.ok()) return fail("entry");
    ins.bind(1, e.time_ms);
    ins.bind(2, std::string_view(origin_name(e.origin)));
    ins.bind(3, e.actor.client);
    ins.bind(4, e.actor.client_version);
    ins.bind(5, e.actor.door);
    ins.bind(6, e.actor.session);
    ins.bind(7, e.actor.peer);
    ins.bind(8, e.actor.method);
    ins.bind(9, e.actor.request_id);
    ins.bind(10, e.scope);
    ins.bind(11, e.pid);
    ins.bind(12, join_reverts(e.reverts));
    ins.bind(13, static_cast<std::int64_t>(bytes));
    if (ins.step() != SQLITE_DONE) return fail("entry");
    e.id = sqlite3_last_insert_rowid(writer);

    Statement file_row(writer,
                       "INSERT INTO files VALUES(?1,?2,?3,?4,?5,?6,?7,?8)");
    Statement hunk_row(writer, "INSERT INTO hunks VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
    Statement formatted_row(writer,
                            "INSERT INTO formatted VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
    if (!file_row.ok() || !hunk_row.ok() || !formatted_row.ok()) return fail("files");
    auto insert_hunk = [&](Statement& row, std::size_t i, std::size_t n, const hunks::Hunk& h) {
      row.reset();
      row.bind(1, e.id);
      row.bind(2, static_cast<std::int64_t>(i));
      row.bind(3, static_cast<std::int64_t>(n));
      row.bind(4, static_cast<std::int64_t>(h.old_start));
      row.bind(5, static_cast<std::int64_t>(h.old_count));
      row.bind(6, static_cast<std::int64_t>(h.new_start));
      row.bind(7, static_cast<std::int64_t>(h.new_count));
      row.bind_blob(8, h.old_text);
      row.bind_blob(9, h.new_text);
      row.bind_blob(10, h.context_before);
      row.bind_blob(11, h.context_after);
      return row.step() == SQLITE_DONE;
    };
    for (std::size_t i = 0; i < e.files.size(); ++i) {
      const FileRecord& f = e.files[i];
      file_row.reset();
      file_row.bind(1, e.id);
      file_row.bind(2, static_cast<std::int64_t>(i));
      file_row.bind(3, f.path);
      file_row.bind(4, f.before_fingerprint);
      file_row.bind(5, f.after_fingerprint);
      file_row.bind(6, f.before_mode);
      file_row.bind(7, f.after_mode);
      file_row.bind(8, static_cast<std::int64_t>(f.hunks_dropped));
      if (file_row.step() != SQLITE_DONE) return fail("file");
      for (std::size_t n = 0; n < f.hunks.size(); ++n)
        if (!insert_hunk(hunk_row, i, n, f.hunks[n])) return fail("hunk");
      for (std::size_t n = 0; n < f.formatted.size(); ++n)
        if (!insert_hunk(formatted_row, i, n, f.formatted[n])) return fail("formatted hunk");
    }
    Statement tag(writer, "UPDATE entries SET tag=?1 WHERE id=?2");
    tag.bind(1, key.tag("ledger", static_cast<std::size_t>(e.id), digest_of(e)));
    tag.bind(2, e.id);
    if (!tag.ok() || tag.step() != SQLITE_DONE) return fail("tag");
    Statement total(writer, "UPDATE meta SET value=value+?1 WHERE key='bytes'");
    total.bind(1, static_cast<std::int64_t>(bytes));
    if (!total.ok() || total.step() != SQLITE_DONE) return fail("bound");
    return e.id;
  }

  Result<std::optional<std::int64_t>> remove_one(std::int64_t id) {
    const std::string n = std::to_string(id);
    for (const std::string& sql :
         {"UPDATE meta SET value=value-(SELECT COALESCE(SUM(bytes),0) FROM entries WHERE id=" + n +
              ") WHERE key='bytes'",
          "DELETE FROM hunks WHERE entry=" + n, "DELETE FROM formatted WHERE entry=" + n,
          "DELETE FROM files WHERE entry=" + n,
          "DELETE FROM kept WHERE entry=" + n,
          "DELETE FROM entries WHERE id=" + n})
      if (exec(writer, sql.c_str()) != SQLITE_OK)
        return io_error(std::string("the ledger could not retract an entry: ") +
                        sqlite3_errmsg(writer));
    return std::optional<std::int64_t>(id);
  }

  // Sets (or clears) the review marks of `refs`; an entry no longer kept is
  // passed over. Each mark is a row of 24 bytes at most per hunk on record.
  Result<std::optional<std::int64_t>> mark_kept(const std::vector<HunkRef>& refs, bool kept) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    Statement set(writer,
                  kept ? "INSERT OR REPLACE INTO kept SELECT ?1,?2,?3 WHERE EXISTS "
                         "(SELECT 1 FROM entries WHERE id=?1)"
                       : "DELETE FROM kept WHERE entry=?1 AND n=?2");
    if (!set.ok())
      return io_error(std::string("the ledger could not mark a change: ") +
                      sqlite3_errmsg(writer));
    for (const HunkRef& r : refs) {
      set.reset();
      set.bind(1, r.entry);
      set.bind(2, static_cast<std::int64_t>(r.n));
      if (kept) set.bind(3, now);
      if (set.step() != SQLITE_DONE)
        return io_error(std::string("the ledger could not mark a change: ") +
                        sqlite3_errmsg(writer));
    }
    return std::optional<std::int64_t>(0);
  }

  // Drops the oldest entries while the entries' bytes pass the bound, down
  // to nine tenths of it.
  int trim() {
    Statement total(writer, "SELECT value FROM meta WHERE key='bytes'");
    if (!total.ok() || total.step() != SQLITE_ROW) return sqlite3_errcode(writer);
    std::int64_t bytes = total.integer(0);
    const auto bound = static_cast<std::int64_t>(options.max_bytes);
    if (bytes <= bound) return SQLITE_OK;
    const std::int64_t goal = bound / 10 * 9;
    Statement oldest(writer, "SELECT id, bytes FROM entries ORDER BY id");
    if (!oldest.ok()) return sqlite3_errcode(writer);
    std::int64_t last = 0;
    while (bytes > goal && oldest.step() == SQLITE_ROW) {
      last = oldest.integer(0);
      bytes -= oldest.integer(1);
    }
    if (last == 0) return SQLITE_OK;
    const std::string upto = std::to_string(last);
    for (const std::string& sql :
         {"DELETE FROM hunks WHERE entry<=" + upto, "DELETE FROM formatted WHERE entry<=" + upto,
          "DELETE FROM files WHERE entry<=" + upto,
          "DELETE FROM kept WHERE entry<=" + upto,
          "DELETE FROM entries WHERE id<=" + upto,
          "UPDATE meta SET value=" + std::to_string(bytes) + " WHERE key='bytes'",
          "UPDATE meta SET value=" + std::to_string(last + 1) + " WHERE key='oldest'"}) {
      if (int rc = exec(writer, sql.c_str()); rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
  }

  void submit(Pending p) {
    Entry& e = p.entry;
    clamp_actor(e.actor);
    if (e.time_ms == 0)
      e.time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    if (e.pid == 0) e.pid = ::getpid();
    // One entry keeps at most a quarter of the bound: past it, the
    // formatter's hunks go first (they only say whose lines are whose), then,
    // still past it, the hunks: what changed is said, but cannot be reverted.
    if (entry_bytes(e) > options.max_bytes / 4)
      for (FileRecord& f : e.files) {
        f.formatted.clear();
        f.formatted.shrink_to_fit();
      }
    if (entry_bytes(e) > options.max_bytes / 4)
      for (FileRecord& f : e.files) {
        if (f.hunks.empty()) continue;
        f.hunks.clear();
        f.hunks.shrink_to_fit();
        f.hunks_dropped = true;
      }
    {
      std::lock_guard lock(mutex);
      queue.push_back(std::move(p));
    }
    wake.notify_one();
  }

  // submit(), and the writer's answer, blocking.
  Result<std::optional<std::int64_t>> submit_and_wait(Pending p) {
    std::promise<Result<std::optional<std::int64_t>>> promise;
    auto future = promise.get_future();
    p.done = [&promise](Result<std::optional<std::int64_t>> r) { promise.set_value(std::move(r)); };
    submit(std::move(p));
    return future.get();
  }

  // --- reading ---------------------------------------------------------

  // The entries the query's first column names (ids), with their files and,
  // when `texts`, their hunks' texts. The reader's mutex held.
  // `budget`: the bytes of lines the entries may carry in all; files past it
  // come without them (texts_omitted).
  Result<std::vector<Entry>> load(const std::vector<std::int64_t>& ids, bool texts,
                                  std::size_t budget = SIZE_MAX) {
    std::vector<Entry> out;
    Statement e(reader,
                "SELECT id,time_ms,origin,client,client_version,door,session,peer,method,"
                "request_id,scope,pid,reverts,tag FROM entries WHERE id=?1");
    Statement f(reader,
                "SELECT idx,path,before_fp,after_fp,before_mode,after_mode,dropped FROM files "
                "WHERE entry=?1 ORDER BY idx");
    auto hunks_of = [&](const char* table) {
      return "SELECT idx,old_start,old_count,new_start,new_count,old_text,new_text,"
             "context_before,context_after,length(old_text)+length(new_text)+"
             "length(context_before)+length(context_after) FROM " +
             std::string(table) + " WHERE entry=?1 ORDER BY idx,n";
    };
    Statement h(reader, hunks_of("hunks").c_str());
    Statement fh(reader, hunks_of("formatted").c_str());
    Statement k_rows(reader, "SELECT n FROM kept WHERE entry=?1 ORDER BY n");
    if (!e.ok() || !f.ok() || !h.ok() || !fh.ok() || !k_rows.ok())
      return io_error(std::string("the ledger cannot be read: ") + sqlite3_errmsg(reader));
    for (std::int64_t id : ids) {
      e.reset();
      e.bind(1, id);
      if (e.step() != SQLITE_ROW) continue;
      Entry x;
      read_head(e, x.id, x.time_ms, x.origin, x.actor);
      x.actor.method = e.text(8);
      x.actor.request_id = e.text(9);
      x.scope = e.text(10);
      x.pid = e.integer(11);
      x.reverts = split_reverts(e.text(12));
      const std::string stored_tag = e.text(13);
      f.reset();
      f.bind(1, id);
      while (f.step() == SQLITE_ROW) {
        FileRecord r;
        r.path = f.text(1);
        r.before_fingerprint = f.optional_text(2);
        r.after_fingerprint = f.optional_text(3);
        if (!f.null(4)) r.before_mode = static_cast<std::uint32_t>(f.integer(4));
        if (!f.null(5)) r.after_mode = static_cast<std::uint32_t>(f.integer(5));
        r.hunks_dropped = f.integer(6) != 0;
        x.files.push_back(std::move(r));
      }
      // The tag covers the lines: an entry whose lines are left out is
      // checked as it streams by, its digest made from every row.
      bool whole = true;
      Entry digested;
      // The rows of `q` (hunks or formatted) into `member` of their files.
      auto read_hunks = [&](Statement& q, std::vector<hunks::Hunk> FileRecord::*member) {
        q.reset();
        q.bind(1, id);
        while (q.step() == SQLITE_ROW) {
          const auto idx = static_cast<std::size_t>(q.integer(0));
          if (idx >= x.files.size()) {
            x.untrusted = true;
            continue;
          }
          hunks::Hunk k;
          k.old_start = static_cast<std::uint64_t>(q.integer(1));
          k.old_count = static_cast<std::uint64_t>(q.integer(2));
          k.new_start = static_cast<std::uint64_t>(q.integer(3));
          k.new_count = static_cast<std::uint64_t>(q.integer(4));
          const auto size = static_cast<std::size_t>(q.integer(9));
          const bool keep = texts && size <= budget;
          if (whole && !keep) {
            whole = false;
            digested = x;  // the lines so far; those after are added to it alone
          }
          hunks::Hunk full = k;
          full.old_text = q.text(5);
          full.new_text = q.text(6);
          full.context_before = q.text(7);
          full.context_after = q.text(8);
          if (!whole) (digested.files[idx].*member).push_back(full);
          if (keep) {
            budget -= size;
            k = std::move(full);
          } else {
            x.files[idx].texts_omitted = texts;
          }
          (x.files[idx].*member).push_back(std::move(k));
        }
      };
      // The entry's own hunks first: a revert needs their lines, the
      // formatter's only say whose lines were whose.
      read_hunks(h, &FileRecord::hunks);
      read_hunks(fh, &FileRecord::formatted);
      k_rows.reset();
      k_rows.bind(1, id);
      while (k_rows.step() == SQLITE_ROW)
        x.kept.push_back(static_cast<std::size_t>(k_rows.integer(0)));
      const Entry& checked = whole ? x : digested;
      if (key.tag("ledger", static_cast<std::size_t>(x.id), digest_of(checked)) != stored_tag)
        x.untrusted = true;
      out.push_back(std::move(x));
    }
    return out;
  }

  Result<std::vector<std::int64_t>> ids(Statement& q) {
    std::vector<std::int64_t> out;
    int rc;
    while ((rc = q.step()) == SQLITE_ROW) out.push_back(q.integer(0));
    if (rc != SQLITE_DONE)
      return io_error(std::string("the ledger cannot be read: ") + sqlite3_errmsg(reader));
    return out;
  }

  std::int64_t oldest() {
    Statement q(reader, "SELECT value FROM meta WHERE key='oldest'");
    if (q.ok() && q.step() == SQLITE_ROW) return q.integer(0);
    return 1;
  }
};

Ledger::Ledger(std::unique_ptr<State> state) : state_(std::move(state)) {}
Ledger::~Ledger() = default;

const std::string& Ledger::path() const { return state_->file; }

Result<std::shared_ptr<Ledger>> Ledger::open(const Options& options) {
  auto state = std::make_unique<State>();
  state->options = options;
  std::string place = options.state_dir.empty() ? journal::default_state_dir() : options.state_dir;
  if (place.empty())
    return io_error("the ledger has no state directory: set --state-dir (or HOME), or serve "
                    "with --ledger off");
  Fd dir;
  if (int err = journal::open_state_dir(place, dir); err != 0)
    return io_error("the ledger's state directory " + place + " cannot be used: " +
                    std::strerror(err) + " (it must be this user's alone)");
  if (int err = journal::Key::load(dir.get(), state->key); err != 0)
    return io_error("the ledger's key in " + place + " cannot be used: " + std::strerror(err));
  state->dir = place + "/ledger";
  Fd sub;
  if (int err = journal::open_state_dir(state->dir, sub); err != 0)
    return io_error("the ledger's directory " + state->dir + " cannot be used: " +
                    std::strerror(err) + " (it must be this user's alone)");
  const XXH128_hash_t id = XXH3_128bits(options.root.data(), options.root.size());
  state->file = state->dir + "/" + hex32(id.high64, id.low64).substr(0, 24) + ".sqlite";
  if (auto ok = state->open_all(); !ok) return ok.error();
  State* s = state.get();
  s->thread = std::thread([s] { s->run(); });
  return std::shared_ptr<Ledger>(new Ledger(std::move(state)));
}

boost::asio::awaitable<Result<std::int64_t>> Ledger::append(Entry entry) {
  namespace asio = boost::asio;
  State* s = state_.get();
  return asio::async_initiate<const asio::use_awaitable_t<>, void(Result<std::int64_t>)>(
      [s](auto handler, Entry entry) {
        auto home = asio::prefer(asio::get_associated_executor(handler),
                                 asio::execution::outstanding_work.tracked);
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        Pending p;
        p.entry = std::move(entry);
        p.done = [shared, home](Result<std::optional<std::int64_t>> r) mutable {
          Result<std::int64_t> id = r ? Result<std::int64_t>(r->value_or(0))
                                      : Result<std::int64_t>(r.error());
          asio::post(home, [shared, id = std::move(id)]() mutable {
            std::move (*shared)(std::move(id));
          });
        };
        s->submit(std::move(p));
      },
      asio::use_awaitable, std::move(entry));
}

Result<std::int64_t> Ledger::append_now(Entry entry) {
  Pending p;
  p.entry = std::move(entry);
  auto r = state_->submit_and_wait(std::move(p));
  if (!r) return r.error();
  return r->value_or(0);
}

Result<void> Ledger::retract(std::int64_t id) {
  Pending p;
  p.retract = id;
  auto r = state_->submit_and_wait(std::move(p));
  if (!r) return r.error();
  return {};
}

Result<std::optional<std::int64_t>> Ledger::append_outside(Entry entry) {
  Pending p;
  p.entry = std::move(entry);
  p.outside = true;
  return state_->submit_and_wait(std::move(p));
}

Result<std::optional<Entry>> Ledger::newest_of(const std::string& path) {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return io_error("the ledger is not open");
  Statement q(state_->reader, "SELECT entry FROM files WHERE path=?1 ORDER BY entry DESC LIMIT 1");
  q.bind(1, path);
  auto ids = state_->ids(q);
  if (!ids) return ids.error();
  if (ids->empty()) return std::optional<Entry>();
  auto loaded = state_->load(*ids, false);
  if (!loaded) return loaded.error();
  if (loaded->empty()) return std::optional<Entry>();
  return std::optional<Entry>(std::move(loaded->front()));
}

Result<std::optional<Entry>> Ledger::get(std::int64_t id) {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return io_error("the ledger is not open");
  auto loaded = state_->load({id}, true);
  if (!loaded) return loaded.error();
  if (loaded->empty()) return std::optional<Entry>();
  return std::optional<Entry>(std::move(loaded->front()));
}

Result<std::vector<Entry>> Ledger::later_on(const std::string& path, std::int64_t id) {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return io_error("the ledger is not open");
  Statement q(state_->reader, "SELECT entry FROM files WHERE path=?1 AND entry>?2 ORDER BY entry");
  q.bind(1, path);
  q.bind(2, id);
  auto ids = state_->ids(q);
  if (!ids) return ids.error();
  return state_->load(*ids, false);
}

Result<Page> Ledger::list(const Filter& filter) {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return io_error("the ledger is not open");
  std::string sql = "SELECT e.id FROM entries e WHERE 1";
  if (filter.path) sql += " AND e.id IN (SELECT entry FROM files WHERE path=?1)";
  if (filter.client) sql += " AND e.client=?2";
  if (filter.session) sql += " AND e.session=?3";
  if (filter.origin) sql += " AND e.origin=?4";
  if (filter.since_ms) sql += " AND e.time_ms>=?5";
  if (filter.until_ms) sql += " AND e.time_ms<=?6";
  if (filter.before_id) sql += " AND e.id<?7";
  sql += " ORDER BY e.id DESC LIMIT ?8";
  Statement q(state_->reader, sql.c_str());
  if (!q.ok()) return io_error(std::string("the ledger cannot be read: ") +
                               sqlite3_errmsg(state_->reader));
  if (filter.path) q.bind(1, *filter.path);
  if (filter.client) q.bind(2, *filter.client);
  if (filter.session) q.bind(3, *filter.session);
  if (filter.origin) q.bind(4, std::string_view(origin_name(*filter.origin)));
  if (filter.since_ms) q.bind(5, *filter.since_ms);
  if (filter.until_ms) q.bind(6, *filter.until_ms);
  if (filter.before_id) q.bind(7, *filter.before_id);
  const std::size_t limit = std::clamp<std::size_t>(filter.limit, 1, 1000);
  q.bind(8, static_cast<std::int64_t>(limit + 1));
  auto ids = state_->ids(q);
  if (!ids) return ids.error();
  Page page;
  if (ids->size() > limit) {
    ids->resize(limit);
    page.next_before = ids->back();
  }
  auto loaded = state_->load(*ids, true, kPageTextBytes);
  if (!loaded) return loaded.error();
  page.entries = std::move(*loaded);
  page.oldest_kept = state_->oldest();
  return page;
}

std::int64_t Ledger::oldest_kept() {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return 1;
  return state_->oldest();
}

Result<std::vector<Entry>> Ledger::entries(const std::vector<std::int64_t>& ids,
                                           std::size_t text_budget) {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return io_error("the ledger is not open");
  return state_->load(ids, true, text_budget);
}

Result<std::vector<Summary>> Ledger::summaries(std::size_t count) {
  std::lock_guard lock(state_->read_mutex);
  sqlite3* db = state_->reader;
  if (!db) return io_error("the ledger is not open");
  count = std::clamp<std::size_t>(count, 1, 100'000);
  Statement e(db,
              "SELECT id,time_ms,origin,client,client_version,door,session,peer,pid,reverts,"
              "(SELECT count(*) FROM hunks h WHERE h.entry=entries.id),"
              "(SELECT count(*) FROM kept k WHERE k.entry=entries.id) "
              "FROM entries ORDER BY id DESC LIMIT ?1");
  Statement f(db, "SELECT entry,path FROM files WHERE entry>=?1 ORDER BY entry,idx");
  if (!e.ok() || !f.ok())
    return io_error(std::string("the ledger cannot be read: ") + sqlite3_errmsg(db));
  e.bind(1, static_cast<std::int64_t>(count));
  std::vector<Summary> out;
  int rc;
  while ((rc = e.step()) == SQLITE_ROW) {
    Summary s;
    read_head(e, s.id, s.time_ms, s.origin, s.actor);
    s.pid = e.integer(8);
    s.reverts = split_reverts(e.text(9));
    s.hunks = static_cast<std::size_t>(e.integer(10));
    s.kept = static_cast<std::size_t>(e.integer(11));
    out.push_back(std::move(s));
  }
  if (rc != SQLITE_DONE)
    return io_error(std::string("the ledger cannot be read: ") + sqlite3_errmsg(db));
  if (out.empty()) return out;
  // Newest first: an entry's place is its distance from the newest id.
  f.bind(1, out.back().id);
  std::size_t at = out.size();  // walks from the oldest up
  while ((rc = f.step()) == SQLITE_ROW) {
    const std::int64_t id = f.integer(0);
    while (at > 0 && out[at - 1].id < id) --at;
    if (at > 0 && out[at - 1].id == id) out[at - 1].paths.push_back(f.text(1));
  }
  if (rc != SQLITE_DONE)
    return io_error(std::string("the ledger cannot be read: ") + sqlite3_errmsg(db));
  return out;
}

Result<void> Ledger::keep(const std::vector<HunkRef>& refs, bool kept) {
  Pending p;
  p.keep = refs;
  p.kept = kept;
  auto r = state_->submit_and_wait(std::move(p));
  if (!r) return r.error();
  return {};
}

std::int64_t Ledger::version() {
  std::lock_guard lock(state_->read_mutex);
  if (!state_->reader) return 0;
  Statement q(state_->reader, "PRAGMA data_version");
  // The reader never writes: every commit, this process's writer's too, is
  // another connection's.
  return q.ok() && q.step() == SQLITE_ROW ? q.integer(0) : 0;
}

}  // namespace editd::ledger
