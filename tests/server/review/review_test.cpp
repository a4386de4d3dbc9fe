// The review page's pure parts: the gate every request passes, and runs and
// hunk states made from the ledger's entries (server/review/).
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>

#include "server/review/api.h"
#include "server/review/server.h"

using namespace editd;
using namespace editd::review;

namespace {

Gate gate() {
  Gate g;
  g.token = std::string(64, 'a');
  g.hosts = {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"};
  return g;
}

Gate::Request get(std::string_view path = "/api/runs") {
  Gate::Request r;
  r.method = "GET";
  r.path = path;
  r.query_token = std::string(64, 'a');
  r.host = "127.0.0.1:8765";
  return r;
}

Gate::Request post() {
  Gate::Request r;
  r.method = "POST";
  r.path = "/api/revert";
  r.header_token = std::string_view("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  r.host = "localhost:8765";
  r.origin = "http://localhost:8765";
  r.fetch_site = "same-origin";
  r.content_type = "application/json";
  return r;
}

ledger::Summary summary(std::int64_t id, std::int64_t time_ms, std::string client,
                        std::int64_t pid = 1) {
  ledger::Summary s;
  s.id = id;
  s.time_ms = time_ms;
  s.actor.client = std::move(client);
  s.actor.door = "mcp";
  s.pid = pid;
  s.hunks = 2;
  s.paths = {"a.txt"};
  return s;
}

}  // namespace

TEST_CASE("review gate: a GET with the token from a known host passes") {
  CHECK_FALSE(gate().check(get()).has_value());
  const std::string token(64, 'a');
  auto header_only = get();
  header_only.query_token.reset();
  header_only.header_token = token;
  CHECK_FALSE(gate().check(header_only).has_value());
}

TEST_CASE("review gate: no token, a wrong one, or another Host is refused") {
  auto r = get();
  r.query_token.reset();
  CHECK(gate().check(r)->status == 403);
  r.query_token = std::string(63, 'a') + "b";
  CHECK(gate().check(r)->status == 403);
  r.query_token = std::string(63, 'a');  // a prefix
  CHECK(gate().check(r)->status == 403);
  auto rebound = get();
  rebound.host = "evil.example:8765";
  CHECK(gate().check(rebound)->status == 403);
  rebound.host = "127.0.0.1:9999";
  CHECK(gate().check(rebound)->status == 403);
  rebound.host.reset();
  CHECK(gate().check(rebound)->status == 403);
}

TEST_CASE("review gate: a change needs the header token, its own origin and JSON") {
  CHECK_FALSE(gate().check(post()).has_value());
  auto no_origin = post();
  no_origin.origin.reset();
  no_origin.fetch_site.reset();
  CHECK_FALSE(gate().check(no_origin).has_value());  // curl, the tests

  auto by_query = post();
  by_query.header_token.reset();
  by_query.query_token = std::string(64, 'a');
  CHECK(gate().check(by_query)->status == 403);
  auto other = post();
  other.origin = "http://evil.example";
  CHECK(gate().check(other)->status == 403);
  other.origin = "null";
  CHECK(gate().check(other)->status == 403);
  auto site = post();
  site.fetch_site = "cross-site";
  CHECK(gate().check(site)->status == 403);
  site.fetch_site = "same-site";
  CHECK(gate().check(site)->status == 403);
  auto form = post();
  form.content_type = "application/x-www-form-urlencoded";
  CHECK(gate().check(form)->status == 415);
  auto put = post();
  put.method = "PUT";
  CHECK(gate().check(put)->status == 405);
  Gate read_only = gate();
  read_only.read_only = true;
  CHECK(read_only.check(post())->status == 403);
  CHECK_FALSE(read_only.check(get()).has_value());
}

TEST_CASE("review runs: one per client session, split by a long gap; outside changes apart") {
  const std::int64_t t = 1'000'000'000'000;
  std::vector<ledger::Summary> s = {
      summary(1, t, "claude"),
      summary(2, t + 1000, "codex", 2),
      summary(3, t + 2000, "claude"),
      summary(4, t + 3000, "claude"),
      summary(5, t + 3000 + kRunGapMs + 1, "claude"),
  };
  s[3].origin = ledger::Origin::kOutside;
  s[3].actor = {};
  s[2].reverts = {"c1:2"};
  std::reverse(s.begin(), s.end());  // newest first, as the ledger gives them
  auto runs = runs_of(s);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].first == 5);  // after the gap
  CHECK(runs[1].outside);
  CHECK(runs[1].ids == std::vector<std::int64_t>{4});
  CHECK(runs[2].first == 1);
  CHECK(runs[2].ids == std::vector<std::int64_t>{1, 3});
  CHECK(runs[2].hunks == 4);
  CHECK(runs[2].reverted == 1);  // c1:2
  CHECK(runs[2].files == 1);
  CHECK(runs[3].actor.client == "codex");
}

TEST_CASE("review hunk states: reverted, touched by a later change, or standing") {
  auto hunk = [](std::uint64_t old_start, std::uint64_t old_count, std::uint64_t new_start,
                 std::uint64_t new_count) {
    hunks::Hunk h;
    h.old_start = old_start;
    h.old_count = old_count;
    h.new_start = new_start;
    h.new_count = new_count;
    return h;
  };
  ledger::Entry e;
  e.id = 7;
  e.files.push_back({.path = "a.txt",
                     .hunks = {hunk(1, 1, 1, 1), hunk(10, 1, 10, 1), hunk(20, 1, 20, 1)}});
  ledger::Entry later;
  later.id = 8;
  later.files.push_back({.path = "a.txt", .hunks = {hunk(10, 1, 10, 2)}});
  auto states = hunk_states({e}, {{"a.txt", {later}}}, {"c7:3"});
  CHECK(states.count("c7:1") == 0);  // stands
  CHECK(states["c7:2"] == "touched");
  CHECK(states["c7:3"] == "reverted");
  CHECK(hunk_states({e}, {}, {"c7"}).size() == 3);
}

TEST_CASE("review run: each file of a change says which of its new lines a formatter made") {
  char dir[] = "/tmp/editd-review-test-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  struct Remove {
    std::string path;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove{dir};
  ledger::Options o;
  o.state_dir = dir;
  o.root = "/src/project";
  o.durable = false;
  auto opened = ledger::Ledger::open(o);
  REQUIRE(opened.has_value());
  ledger::Ledger& l = **opened;

  auto hunk = [](std::uint64_t start, std::uint64_t count, std::string old_text,
                 std::string new_text) {
    hunks::Hunk h;
    h.old_start = start;
    h.old_count = count;
    h.new_start = start;
    h.new_count = count;
    h.old_text = std::move(old_text);
    h.new_text = std::move(new_text);
    return h;
  };
  ledger::Entry e;
  e.actor.client = "test";
  e.actor.door = "jsonrpc";
  ledger::FileRecord& f = e.files.emplace_back();
  f.path = "a.py";
  f.before_fingerprint = "before";
  f.after_fingerprint = "after";
  f.hunks = {hunk(2, 2, "a=1\nb=2\n", "a = 10\nb = 20\n"), hunk(9, 1, "c\n", "d\n")};
  // Lines 3-4 (0-based 2-3) as written were the formatter's.
  f.formatted = {hunk(2, 2, "a=10\nb=20\n", "a = 10\nb = 20\n")};
  ledger::Entry plain = e;
  plain.files[0].path = "b.py";
  plain.files[0].formatted.clear();
  auto id = l.append_now(e);
  REQUIRE(id.has_value());
  REQUIRE(l.append_now(plain).has_value());

  Api api(l, "/src/project", false);
  auto page = api.run("r" + std::to_string(*id), std::nullopt);
  REQUIRE(page.has_value());
  const auto& entries = (*page)["entries"];
  REQUIRE(entries.size() == 2);
  const auto& file = entries[0]["files"][0];
  CHECK(file["path"] == "a.py");
  CHECK(file["formatted"] == nlohmann::json::parse(R"([{"newStart":3,"newCount":2}])"));
  CHECK(file["hunks"].size() == 2);
  CHECK(entries[1]["files"][0]["formatted"] == nlohmann::json::array());
}
