// The ledger through the real binary: every change on record with who made
// it, `changes` and `revert` (hunk by hunk, around later work), undo across
// a kill -9, two servers and the CLI on one root, the bound, and a ledger
// that is replaced, corrupt or turned off.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "helpers/process.h"

using namespace editd::test;
namespace fs = std::filesystem;

namespace {

// A root and a state directory of its own, so that the ledger's file is
// known: STATE/ledger/*.sqlite.
struct LedgerRoot {
  TempDir root;
  TempDir state;

  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a{"--state-dir", state.str()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  Process serve(std::vector<std::string> extra = {}) const {
    return spawn_editd(root, args(std::move(extra)));
  }
  Run cli(std::vector<std::string> command) const {
    std::vector<std::string> a = std::move(command);
    a.insert(a.begin() + 1, {"--root", root.str(), "--state-dir", state.str()});
    return run_editd(a);
  }
  std::string ledger_file() const {
    for (auto& e : fs::directory_iterator(state.path() / "ledger"))
      if (e.path().extension() == ".sqlite") return e.path().string();
    return "";
  }
};

std::string recorded_id(const json& result) {
  REQUIRE_MESSAGE(result.contains("changeId"), result.dump());
  return result["changeId"];
}

std::string ledger_lines(int from, int to, const std::string& tag = "line") {
  std::string s;
  for (int i = from; i <= to; ++i) s += tag + " " + std::to_string(i) + "\n";
  return s;
}

}  // namespace

TEST_CASE("every change is on record: who, which method and request, which hunks") {
  LedgerRoot f;
  f.root.write("a.txt", ledger_lines(1, 10));
  auto p = f.serve();
  p.ok("initialize", {{"protocolVersion", 1}, {"clientInfo", {{"name", "tester"}, {"version", "9.1"}}}});
  std::string first =
      recorded_id(p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "line 2\n"}, {"newText", "two\n"}}));
  std::string second = recorded_id(p.ok("write_text", {{"path", "b.txt"}, {"content", "b\n"}}));
  CHECK(first != second);
  CHECK(first.rfind("c", 0) == 0);

  json page = p.ok("changes", json::object());
  REQUIRE(page["changes"].size() == 2);
  const json& newest = page["changes"][0];
  CHECK(newest["id"] == second);
  CHECK(newest["method"] == "write_text");
  CHECK(newest["origin"] == "edit");
  CHECK(newest["files"][0]["path"] == "b.txt");
  CHECK(newest["files"][0]["beforeFingerprint"].is_null());
  const json& older = page["changes"][1];
  CHECK(older["id"] == first);
  CHECK(older["client"]["name"] == "tester");
  CHECK(older["client"]["version"] == "9.1");
  CHECK(older["door"] == "jsonrpc");
  CHECK(older["requestId"] == "2");
  REQUIRE(older["files"][0]["hunks"].size() == 1);
  const json& hunk = older["files"][0]["hunks"][0];
  CHECK(hunk["id"] == first + ":1");
  CHECK(hunk["oldStart"] == 2);
  CHECK(hunk["old"] == "line 2\n");
  CHECK(hunk["new"] == "two\n");

  json only_a = p.ok("changes", {{"path", "a.txt"}});
  CHECK(only_a["changes"].size() == 1);
  json paged = p.ok("changes", {{"limit", 1}});
  CHECK(paged["changes"].size() == 1);
  REQUIRE(paged["next"].is_string());
  json rest = p.ok("changes", {{"limit", 1}, {"before", paged["next"]}});
  CHECK(rest["changes"][0]["id"] == first);
  CHECK(p.fails("changes", {{"origin", "sideways"}})["data"]["param"] == "origin");
  // A request id is the client's to choose: what the ledger keeps of it is bounded.
  const std::string long_id(100000, 'i');
  p.send({{"jsonrpc", "2.0"},
          {"id", long_id},
          {"method", "write_text"},
          {"params", {{"path", "c.txt"}, {"content", "c\n"}}}});
  REQUIRE(p.response_to(long_id).contains("result"));
  json kept = p.ok("changes", {{"path", "c.txt"}})["changes"][0];
  CHECK(kept["requestId"].get<std::string>().size() == 256);
  CHECK(p.fails("changes", {{"since", "yesterday"}})["data"]["param"] == "since");

  // The database is this user's alone.
  struct stat st;
  REQUIRE(::stat(f.ledger_file().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE("revert takes one hunk back around later work, and refuses a hunk changed since") {
  LedgerRoot f;
  f.root.write("a.txt", ledger_lines(1, 30));
  auto p = f.serve();
  // One change of two hunks: lines 5 and 20.
  std::string c = recorded_id(p.ok(
      "apply_patch",
      {{"patch",
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-line 5\n+FIVE\n@@\n-line 20\n+TWENTY\n"
        "*** End Patch"}}));
  // Later work above both, and on the second hunk's line.
  p.ok("insert", {{"path", "a.txt"}, {"line", 0}, {"text", "header"}});
  p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "TWENTY"}, {"newText", "twenty!"}});
  const std::string before = f.root.read("a.txt");

  // The second hunk was changed since: refused, nothing written.
  json refused = p.fails("revert", {{"hunks", {c + ":2"}}});
  CHECK(refused["data"]["kind"] == "conflict");
  CHECK(refused["data"]["hunk"] == c + ":2");
  CHECK(refused["data"]["found"].get<std::string>().find("twenty!") != std::string::npos);
  CHECK(f.root.read("a.txt") == before);
  // The whole change too: it lands whole or not at all.
  CHECK(p.fails("revert", {{"changes", {c}}})["data"]["kind"] == "conflict");
  CHECK(f.root.read("a.txt") == before);

  // The first hunk alone: line 5 back, the header and twenty! kept.
  json dry = p.ok("revert", {{"hunks", {c + ":1"}}, {"dryRun", true}});
  CHECK(dry["diff"].get<std::string>().find("-FIVE") != std::string::npos);
  CHECK(f.root.read("a.txt") == before);
  json done = p.ok("revert", {{"hunks", {c + ":1"}}});
  std::string expected = "header\n" + ledger_lines(1, 30);
  expected.replace(expected.find("line 20\n"), 8, "twenty!\n");
  CHECK(f.root.read("a.txt") == expected);
  // The revert is on the record, and can be reverted.
  std::string r = recorded_id(done);
  json listed = p.ok("changes", {{"origin", "revert"}});
  REQUIRE(listed["changes"].size() == 1);
  CHECK(listed["changes"][0]["reverts"][0] == c + ":1");
  p.ok("revert", {{"changes", {r}}});
  CHECK(f.root.read("a.txt") == before);
  CHECK(p.fails("revert", {{"hunks", {c + ":9"}}})["data"]["kind"] == "not_found");
  CHECK(p.fails("revert", {{"changes", {"c999"}}})["data"]["kind"] == "not_found");
  CHECK(p.fails("revert", {{"changes", {"12"}}})["data"]["param"] == "changes");
}

TEST_CASE("reverting a creation removes the file; reverting a deletion brings it back") {
  LedgerRoot f;
  f.root.write("gone.txt", "keep me\r\nplease");
  auto p = f.serve();
  std::string made = recorded_id(p.ok("create", {{"path", "new/made.txt"}, {"content", "x\n"}}));
  std::string removed = recorded_id(
      p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch"}}));
  p.ok("revert", {{"changes", {made, removed}}});
  CHECK_FALSE(f.root.exists("new/made.txt"));
  CHECK(f.root.read("gone.txt") == "keep me\r\nplease");
}

TEST_CASE("undo works across a kill -9, from the ledger") {
  LedgerRoot f;
  f.root.write("a.txt", "one\r\ntwo\r\n");
  std::string id;
  {
    auto p = f.serve();
    id = recorded_id(p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "2"}}));
    ::kill(p.pid(), SIGKILL);
  }
  CHECK(f.root.read("a.txt") == "one\r\n2\r\n");
  auto again = f.serve();
  json undone = again.ok("undo", {{"undoId", id}});
  CHECK(f.root.read("a.txt") == "one\r\ntwo\r\n");
  // Undoing the undo redoes, and a change whose file moved on is refused.
  again.ok("undo", {{"undoId", recorded_id(undone)}});
  CHECK(f.root.read("a.txt") == "one\r\n2\r\n");
  f.root.write("a.txt", "one\r\n2\r\nthree\r\n");
  auto third = f.serve();
  CHECK(third.fails("undo", {{"undoId", id}})["data"]["kind"] == "conflict");
  CHECK(f.root.read("a.txt") == "one\r\n2\r\nthree\r\n");
}

TEST_CASE("a change the memory history forgot is undone from the ledger") {
  LedgerRoot f;
  f.root.write("a.txt", "0\n");
  auto p = f.serve({"--undo-history-entries", "1"});
  std::string first = recorded_id(p.ok("write_text", {{"path", "a.txt"}, {"content", "1\n"}}));
  p.ok("write_text", {{"path", "b.txt"}, {"content", "b\n"}});
  p.ok("undo", {{"undoId", first}});
  CHECK(f.root.read("a.txt") == "0\n");
}

TEST_CASE("two servers and the CLI share one root's ledger") {
  LedgerRoot f;
  f.root.write("a.txt", ledger_lines(1, 5));
  auto one = f.serve();
  auto two = f.serve();
  std::string c1 = recorded_id(one.ok("insert", {{"path", "a.txt"}, {"line", 5}, {"text", "six"}}));
  std::string c2 = recorded_id(two.ok("insert", {{"path", "a.txt"}, {"line", 0}, {"text", "zero"}}));
  CHECK(c1 != c2);
  json seen = one.ok("changes", json::object());
  REQUIRE(seen["changes"].size() == 2);
  CHECK(seen["changes"][0]["id"] == c2);

  Run listed = f.cli({"changes", "--json"});
  REQUIRE_MESSAGE(listed.code == 0, listed.err);
  CHECK(json::parse(listed.out)["changes"].size() == 2);
  Run table = f.cli({"changes"});
  CHECK(table.out.find(c1) != std::string::npos);

  // The CLI takes back the first server's change while both run.
  Run reverted = f.cli({"revert", c1});
  REQUIRE_MESSAGE(reverted.code == 0, reverted.err);
  CHECK(f.root.read("a.txt") == "zero\n" + ledger_lines(1, 5));
  json after = two.ok("changes", {{"limit", 1}});
  CHECK(after["changes"][0]["door"] == "cli");
  Run refused = f.cli({"revert", c1 + ":1"});
  CHECK(refused.code == 1);
  CHECK(refused.err.find("revert refused") != std::string::npos);
}

TEST_CASE("--ledger off: no record, no changeId, changes is unsupported") {
  LedgerRoot f;
  auto p = f.serve({"--ledger", "off"});
  json r = p.ok("write_text", {{"path", "a.txt"}, {"content", "a\n"}});
  CHECK_FALSE(r.contains("changeId"));
  CHECK(r["undoId"].get<std::string>().rfind("undo-", 0) == 0);
  CHECK(p.fails("changes", json::object())["data"]["kind"] == "unsupported");
  CHECK_FALSE(fs::exists(f.state.path() / "ledger"));
}

TEST_CASE("a ledger replaced by another file refuses every mutation, changing nothing") {
  LedgerRoot f;
  f.root.write("a.txt", "a\n");
  std::string file;
  {
    auto p = f.serve();
    p.ok("write_text", {{"path", "b.txt"}, {"content", "b\n"}});
    file = f.ledger_file();
  }
  REQUIRE_FALSE(file.empty());
  SUBCASE("readable by others") { ::chmod(file.c_str(), 0644); }
  SUBCASE("a link") {
    fs::remove(file);
    fs::create_symlink(f.root.path() / "a.txt", file);
  }
  auto p = f.serve();
  json refused = p.fails("write_text", {{"path", "a.txt"}, {"content", "changed\n"}});
  CHECK(refused["data"]["kind"] == "io");
  CHECK(refused["message"].get<std::string>().find("ledger") != std::string::npos);
  CHECK(f.root.read("a.txt") == "a\n");
  // Reads still work.
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "a\n");
}

TEST_CASE("a corrupt ledger is moved aside, logged, and a new one started") {
  LedgerRoot f;
  std::string old_id;
  {
    auto p = f.serve();
    old_id = recorded_id(p.ok("write_text", {{"path", "a.txt"}, {"content", "a\n"}}));
  }
  const std::string file = f.ledger_file();
  REQUIRE_FALSE(file.empty());
  fs::remove(file + "-wal");
  fs::remove(file + "-shm");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << std::string(8192, 'x');
  }
  auto p = f.serve();
  json r = p.ok("write_text", {{"path", "a.txt"}, {"content", "b\n"}});
  CHECK(r.contains("changeId"));
  CHECK(r["changeId"] != old_id);  // an id of the old ledger never names a new change
  CHECK(p.ok("changes", json::object())["changes"].size() == 1);
  CHECK(p.fails("revert", {{"changes", {old_id}}})["data"]["reason"] == "forgotten");
  CHECK(p.await_log("was corrupt: moved aside"));
  bool aside = false;
  for (auto& e : fs::directory_iterator(f.state.path() / "ledger"))
    aside |= e.path().string().find(".corrupt-") != std::string::npos;
  CHECK(aside);
}

TEST_CASE("the ledger is bounded: the oldest changes go, and say so") {
  LedgerRoot f;
  auto p = f.serve({"--ledger-bytes", "1048576"});
  const std::string big(100 * 1024, 'x');
  std::string first;
  for (int i = 0; i < 30; ++i) {
    std::string content;
    for (int j = 0; j < 2; ++j) content += std::to_string(i) + big + "\n";
    std::string id = recorded_id(p.ok("write_text", {{"path", "f" + std::to_string(i) + ".txt"},
                                                   {"content", content}}));
    if (i == 0) first = id;
  }
  json page = p.ok("changes", {{"limit", 1000}});
  CHECK(page["changes"].size() < 30);
  json gone = p.fails("revert", {{"changes", {first}}});
  CHECK(gone["data"]["kind"] == "not_found");
  CHECK(gone["data"]["reason"] == "forgotten");
  CHECK(fs::file_size(f.ledger_file()) < 4u << 20);
}

TEST_CASE("a change the ledger cannot record (locked past its wait) is put back and refused") {
  LedgerRoot f;
  f.root.write("a.txt", "one\ntwo\n");
  auto p = f.serve();
  p.ok("write_text", {{"path", "b.txt"}, {"content", "b\n"}});
  const std::string file = f.ledger_file();
  REQUIRE_FALSE(file.empty());
  // Another process holds the database's write lock for longer than editd
  // waits for it (5 s).
  Process holder("/usr/bin/python3",
                 {"-c",
                  "import sqlite3,sys,time\n"
                  "c=sqlite3.connect(sys.argv[1],isolation_level=None)\n"
                  "c.execute('BEGIN EXCLUSIVE')\n"
                  "print('locked',flush=True)\n"
                  "time.sleep(30)\n",
                  file});
  REQUIRE(holder.read_line() == std::optional<std::string>("locked"));
  json refused = p.fails("str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "2"}});
  CHECK(refused["data"]["kind"] == "io");
  CHECK(refused["data"]["rolledBack"] == true);
  CHECK(refused["message"].get<std::string>().find("put back") != std::string::npos);
  CHECK(f.root.read("a.txt") == "one\ntwo\n");
  json created = p.fails("create", {{"path", "c.txt"}, {"content", "c\n"}});
  CHECK(created["data"]["kind"] == "io");
  CHECK_FALSE(f.root.exists("c.txt"));
}

TEST_CASE("a change by another hand is noticed once, on record as outside, and can be reverted") {
  LedgerRoot f;
  f.root.write("a.txt", "one\ntwo\nthree\n");
  auto p = f.serve();
  p.ok("read_text", {{"path", "a.txt"}});
  f.root.write("a.txt", "one\nTWO\nthree\n");  // the user's editor, a formatter...
  json next = p.ok("fingerprint", {{"path", "a.txt"}});
  REQUIRE_MESSAGE(next.contains("outsideChanges"), next.dump());
  CHECK(next["outsideChanges"][0]["path"] == "a.txt");
  json listed = p.ok("changes", {{"origin", "outside"}});
  CHECK_FALSE(listed.contains("outsideChanges"));  // told once
  REQUIRE(listed["changes"].size() == 1);
  const json& c = listed["changes"][0];
  CHECK(c["door"] == "outside");
  REQUIRE(c["files"][0]["hunks"].size() == 1);
  CHECK(c["files"][0]["hunks"][0]["old"] == "two\n");
  CHECK(c["files"][0]["hunks"][0]["new"] == "TWO\n");
  // A second server on the root that notices the same change does not
  // record it twice.
  auto q = f.serve();
  q.ok("read_text", {{"path", "a.txt"}});
  q.ok("fingerprint", {{"path", "a.txt"}});
  CHECK(q.ok("changes", {{"origin", "outside"}})["changes"].size() == 1);
  p.ok("revert", {{"changes", {c["id"]}}});
  CHECK(f.root.read("a.txt") == "one\ntwo\nthree\n");
}
