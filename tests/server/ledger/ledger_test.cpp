// The ledger's record of a formatter's hunks (ledger::FileRecord::formatted):
// kept beside the entry's hunks, read back under the same page bound, gone
// with their entry, and added to ledgers made before they were recorded.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "server/ledger/ledger.h"

using namespace editd;

namespace {

// A state directory of the test's own, removed when it goes.
struct StateDir {
  std::string path;
  StateDir() {
    char dir[] = "/tmp/editd-ledger-test-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    path = dir;
  }
  ~StateDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::shared_ptr<ledger::Ledger> open_ledger(const StateDir& state,
                                            std::uint64_t max_bytes = 256ull << 20) {
  ledger::Options o;
  o.state_dir = state.path;
  o.root = "/src/project";
  o.max_bytes = max_bytes;
  o.durable = false;
  auto opened = ledger::Ledger::open(o);
  REQUIRE(opened.has_value());
  return *opened;
}

hunks::Hunk hunk(std::uint64_t old_start, std::string old_text, std::uint64_t new_start,
                 std::string new_text) {
  hunks::Hunk h;
  h.old_start = old_start;
  h.old_count = old_text.empty() ? 0 : 1;
  h.new_start = new_start;
  h.new_count = new_text.empty() ? 0 : 1;
  h.old_text = std::move(old_text);
  h.new_text = std::move(new_text);
  h.context_before = "def f():\n";
  return h;
}

// An edit of a.py whose call wrote "x=1" where a formatter made it "x = 1".
ledger::Entry formatted_edit(std::string path = "a.py") {
  ledger::Entry e;
  e.actor.client = "test";
  e.actor.door = "jsonrpc";
  e.actor.method = "str_replace";
  e.scope = "local";
  ledger::FileRecord& f = e.files.emplace_back();
  f.path = std::move(path);
  f.before_fingerprint = "before";
  f.after_fingerprint = "after";
  f.hunks = {hunk(1, "    x = 0\n", 1, "    x = 1\n")};
  f.formatted = {hunk(1, "    x=1\n", 1, "    x = 1\n")};
  return e;
}

bool same(const hunks::Hunk& a, const hunks::Hunk& b) {
  return a.old_start == b.old_start && a.old_count == b.old_count &&
         a.new_start == b.new_start && a.new_count == b.new_count &&
         a.old_text == b.old_text && a.new_text == b.new_text &&
         a.context_before == b.context_before && a.context_after == b.context_after;
}

// One number the database holds, read by a connection of the test's own.
std::int64_t query(const ledger::Ledger& l, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(l.path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &q, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(q) == SQLITE_ROW);
  const std::int64_t v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close_v2(db);
  return v;
}

std::int64_t formatted_rows(const ledger::Ledger& l, std::int64_t entry) {
  return query(l, "SELECT count(*) FROM formatted WHERE entry=" + std::to_string(entry));
}

}  // namespace

TEST_SUITE("ledger") {

TEST_CASE("a file's formatted hunks are kept beside its hunks and read back by every read") {
  StateDir state;
  auto l = open_ledger(state);
  const ledger::Entry made = formatted_edit();
  auto id = l->append_now(made);
  REQUIRE(id.has_value());

  auto check_whole = [&](const ledger::Entry& e) {
    CHECK_FALSE(e.untrusted);
    REQUIRE(e.files.size() == 1);
    const ledger::FileRecord& f = e.files[0];
    CHECK_FALSE(f.texts_omitted);
    REQUIRE(f.hunks.size() == 1);
    CHECK(same(f.hunks[0], made.files[0].hunks[0]));
    REQUIRE(f.formatted.size() == 1);
    CHECK(same(f.formatted[0], made.files[0].formatted[0]));
  };
  auto got = l->get(*id);
  REQUIRE(got.has_value());
  REQUIRE(got->has_value());
  check_whole(**got);
  auto page = l->list({});
  REQUIRE(page.has_value());
  REQUIRE(page->entries.size() == 1);
  check_whole(page->entries[0]);
  auto listed = l->entries({*id});
  REQUIRE(listed.has_value());
  REQUIRE(listed->size() == 1);
  check_whole(listed->front());

  // The reads that need no lines give the ranges alone.
  auto newest = l->newest_of("a.py");
  REQUIRE(newest.has_value());
  REQUIRE(newest->has_value());
  CHECK_FALSE((*newest)->untrusted);
  REQUIRE((*newest)->files[0].formatted.size() == 1);
  CHECK((*newest)->files[0].formatted[0].new_start == 1);
  CHECK((*newest)->files[0].formatted[0].new_text.empty());
  auto later = l->later_on("a.py", *id - 1);
  REQUIRE(later.has_value());
  REQUIRE(later->size() == 1);
  CHECK_FALSE(later->front().untrusted);
  CHECK(later->front().files[0].formatted.size() == 1);

  // Counted in the entry's bytes, like its hunks.
  ledger::Entry plain = formatted_edit("b.py");
  plain.files[0].formatted.clear();
  auto plain_id = l->append_now(plain);
  REQUIRE(plain_id.has_value());
  const auto bytes = [&](std::int64_t e) {
    return query(*l, "SELECT bytes FROM entries WHERE id=" + std::to_string(e));
  };
  CHECK(bytes(*id) - bytes(*plain_id) ==
        static_cast<std::int64_t>(hunks::held_by(made.files[0].formatted)));
  auto plain_back = l->get(*plain_id);
  REQUIRE(plain_back.has_value());
  CHECK((*plain_back)->files[0].formatted.empty());
  CHECK_FALSE((*plain_back)->untrusted);
}

TEST_CASE("a formatted hunk changed in the database makes its entry untrusted") {
  StateDir state;
  auto l = open_ledger(state);
  auto id = l->append_now(formatted_edit());
  REQUIRE(id.has_value());
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(l->path().c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "UPDATE formatted SET new_text=CAST('    x = 2\n' AS BLOB)", nullptr,
                       nullptr, nullptr) == SQLITE_OK);
  sqlite3_close_v2(db);
  auto got = l->get(*id);
  REQUIRE(got.has_value());
  CHECK((*got)->untrusted);
}

TEST_CASE("retract and trim delete an entry's formatted hunks with it") {
  StateDir state;
  SUBCASE("retract") {
    auto l = open_ledger(state);
    auto id = l->append_now(formatted_edit());
    REQUIRE(id.has_value());
    CHECK(formatted_rows(*l, *id) == 1);
    REQUIRE(l->retract(*id).has_value());
    CHECK(formatted_rows(*l, *id) == 0);
    CHECK(query(*l, "SELECT value FROM meta WHERE key='bytes'") == 0);
  }
  SUBCASE("trim") {
    // Each entry is some 1.4 KB: the bound keeps the newest few.
    auto l = open_ledger(state, 8 << 10);
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 12; ++i) {
      ledger::Entry e = formatted_edit();
      e.files[0].formatted[0].old_text = std::string(1000, 'x') + "\n";
      auto id = l->append_now(e);
      REQUIRE(id.has_value());
      ids.push_back(*id);
    }
    const std::int64_t oldest = l->oldest_kept();
    REQUIRE(oldest > ids.front());
    for (std::int64_t id : ids) CHECK(formatted_rows(*l, id) == (id < oldest ? 0 : 1));
    auto newest = l->get(ids.back());
    REQUIRE(newest.has_value());
    CHECK((*newest)->files[0].formatted.size() == 1);
  }
}

TEST_CASE("an entry past the bound for one entry loses its formatted hunks before its hunks") {
  StateDir state;
  // A quarter of the bound is 1 KiB: the hunks fit, the formatter's 2 KB do not.
  auto l = open_ledger(state, 4 << 10);
  ledger::Entry e = formatted_edit();
  e.files[0].formatted[0].new_text = std::string(2000, 'y') + "\n";
  auto id = l->append_now(e);
  REQUIRE(id.has_value());
  auto got = l->get(*id);
  REQUIRE(got.has_value());
  const ledger::FileRecord& f = (*got)->files[0];
  CHECK(f.formatted.empty());
  CHECK_FALSE(f.hunks_dropped);
  CHECK(f.hunks.size() == 1);
  CHECK_FALSE((*got)->untrusted);
}

TEST_CASE("a page past its text budget lists formatted hunks without their lines") {
  StateDir state;
  auto l = open_ledger(state);
  const ledger::Entry made = formatted_edit();
  auto id = l->append_now(made);
  REQUIRE(id.has_value());
  const std::size_t own = hunks::held_by(made.files[0].hunks);

  // Room for the entry's hunks, not for the formatter's: those go first.
  auto partial = l->entries({*id}, own);
  REQUIRE(partial.has_value());
  REQUIRE(partial->size() == 1);
  const ledger::FileRecord& f = partial->front().files[0];
  CHECK(f.texts_omitted);
  CHECK_FALSE(partial->front().untrusted);
  REQUIRE(f.hunks.size() == 1);
  CHECK(f.hunks[0].new_text == "    x = 1\n");
  REQUIRE(f.formatted.size() == 1);
  CHECK(f.formatted[0].new_start == 1);
  CHECK(f.formatted[0].old_text.empty());
  CHECK(f.formatted[0].new_text.empty());

  auto none = l->entries({*id}, 0);
  REQUIRE(none.has_value());
  CHECK(none->front().files[0].texts_omitted);
  CHECK_FALSE(none->front().untrusted);
  CHECK(none->front().files[0].formatted.size() == 1);
}

TEST_CASE("a ledger made before formatted hunks were recorded gets their table when opened") {
  StateDir state;
  std::string file;
  std::int64_t old_id = 0;
  {
    auto l = open_ledger(state);
    ledger::Entry e = formatted_edit();
    e.files[0].formatted.clear();
    auto id = l->append_now(e);
    REQUIRE(id.has_value());
    old_id = *id;
    file = l->path();
  }
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "DROP TABLE formatted", nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close_v2(db);

  auto l = open_ledger(state);
  auto old_entry = l->get(old_id);
  REQUIRE(old_entry.has_value());
  REQUIRE(old_entry->has_value());
  CHECK_FALSE((*old_entry)->untrusted);
  auto id = l->append_now(formatted_edit());
  REQUIRE(id.has_value());
  CHECK(*id > old_id);
  auto got = l->get(*id);
  REQUIRE(got.has_value());
  CHECK((*got)->files[0].formatted.size() == 1);
}

}  // TEST_SUITE("ledger")
