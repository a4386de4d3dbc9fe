// The operations pipeline over the memory backend: ordering, parallelism and
// all-or-nothing behaviour, observed without any timing.
#include "server/ops/operations.h"

#include <doctest/doctest.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <optional>

#include "backends/memory/memory_backend.h"
#include "edit/text/fingerprint.h"
#include "protocol/params.h"
#include "helpers/pool_hold.h"

using namespace editd;
namespace asio = boost::asio;

namespace {

// The operations alone: the ledger (tested through the binary,
// tests/integration/ledger_test.cpp) is off, so that what completes on the
// I/O thread alone is the operation's own work.
OpsOptions without_ledger() {
  OpsOptions o;
  o.ledger.enabled = false;
  return o;
}

struct Fixture {
  asio::io_context io;
  asio::thread_pool pool{2};
  OpsOptions options = without_ledger();
  LockChains locks;
  Operations ops{options, locks, pool};
  MemoryBackend backend;
  RequestContext ctx() {
    return RequestContext{backend, std::make_shared<CancelState>(), nullptr, nullptr};
  }
};

asio::awaitable<void> wait_until_cancelled(asio::steady_timer& gate) {
  co_await gate.async_wait(asio::as_tuple(asio::use_awaitable));
}

template <class T>
void spawn_into(asio::io_context& io, asio::awaitable<T> task, std::optional<T>& out) {
  asio::co_spawn(io, std::move(task), [&out](std::exception_ptr e, T value) {
    REQUIRE(!e);
    out.emplace(std::move(value));
  });
}

ops::ReplaceRequest replace(std::string path, std::string old_text, std::string new_text) {
  ops::ReplaceRequest p;
  p.path = std::move(path);
  p.old_text = std::move(old_text);
  p.new_text = std::move(new_text);
  return p;
}

}  // namespace

TEST_CASE("an operation on a slow file does not hold up one on another file") {
  Fixture f;
  f.backend.put("slow.txt", "slow\n");
  f.backend.put("fast.txt", "fast\n");
  asio::steady_timer gate(f.io, asio::steady_timer::time_point::max());
  f.backend.set_delay("slow.txt", [&gate] { return wait_until_cancelled(gate); });
  auto c1 = f.ctx(), c2 = f.ctx();
  std::optional<Result<ops::Mutation>> slow, fast;
  spawn_into(f.io, f.ops.str_replace(c1, replace("slow.txt", "slow", "SLOW")), slow);
  spawn_into(f.io, f.ops.str_replace(c2, replace("fast.txt", "fast", "FAST")), fast);
  while (!fast) f.io.run_one();
  CHECK(fast->has_value());
  CHECK_FALSE(slow.has_value());
  CHECK(f.backend.get("fast.txt") == "FAST\n");
  CHECK(f.backend.get("slow.txt") == "slow\n");
  gate.cancel();
  while (!slow) f.io.run_one();
  CHECK(slow->has_value());
  CHECK(f.backend.get("slow.txt") == "SLOW\n");
}

TEST_CASE("dependent edits of one file apply in arrival order") {
  Fixture f;
  f.backend.put("chain.txt", "v0\n");
  std::vector<RequestContext> ctxs;
  for (int i = 0; i < 20; ++i) ctxs.push_back(f.ctx());
  std::vector<std::optional<Result<ops::Mutation>>> results(20);
  for (int i = 0; i < 20; ++i)
    spawn_into(f.io,
               f.ops.str_replace(ctxs[i], replace("chain.txt", "v" + std::to_string(i),
                                                  "v" + std::to_string(i + 1))),
               results[i]);
  f.io.run();
  for (auto& r : results) CHECK((r && r->has_value()));
  CHECK(f.backend.get("chain.txt") == "v20\n");
  CHECK(f.locks.size() == 0);
}

TEST_CASE("a cancelled request changes nothing and answers cancelled") {
  Fixture f;
  f.backend.put("a.txt", "a\n");
  auto ctx = f.ctx();
  ctx.cancel->cancelled = true;
  std::optional<Result<ops::Mutation>> r;
  spawn_into(f.io, f.ops.str_replace(ctx, replace("a.txt", "a", "b")), r);
  f.io.run();
  REQUIRE(r->has_error());
  CHECK(r->error().kind == ErrorKind::kCancelled);
  CHECK(f.backend.get("a.txt") == "a\n");
}

TEST_CASE("a failed write reports io and leaves the file as it was") {
  Fixture f;
  f.backend.put("a.txt", "a\n");
  f.backend.fail_next_write("a.txt");
  auto ctx = f.ctx();
  std::optional<Result<ops::Mutation>> r;
  spawn_into(f.io, f.ops.str_replace(ctx, replace("a.txt", "a", "b")), r);
  f.io.run();
  REQUIRE(r->has_error());
  CHECK(r->error().kind == ErrorKind::kIo);
  CHECK(f.backend.get("a.txt") == "a\n");
}

TEST_CASE("require-read refuses a mutation of an unread or changed file with stale") {
  Fixture f;
  f.options.require_read = true;
  f.backend.put("a.txt", "one\n");
  KnownFingerprints known;
  auto ctx = f.ctx();
  ctx.known = &known;
  std::optional<Result<ops::Mutation>> r1;
  spawn_into(f.io, f.ops.str_replace(ctx, replace("a.txt", "one", "two")), r1);
  f.io.run();
  REQUIRE(r1->has_error());
  CHECK(r1->error().kind == ErrorKind::kStale);
  CHECK(r1->error().data["knownFingerprint"].is_null());

  ops::ReadRequest rp;
  rp.path = "a.txt";
  rp.first_line = 1;
  rp.line_limit = 1;  // a slice read counts as a read
  std::optional<Result<ops::Read>> read;
  spawn_into(f.io, f.ops.read_text(ctx, rp), read);
  f.io.restart();
  f.io.run();
  REQUIRE(read->has_value());

  f.backend.put("a.txt", "changed\n");
  std::optional<Result<ops::Mutation>> r2;
  spawn_into(f.io, f.ops.str_replace(ctx, replace("a.txt", "changed", "x")), r2);
  f.io.restart();
  f.io.run();
  REQUIRE(r2->has_error());
  CHECK(r2->error().kind == ErrorKind::kStale);
  CHECK(r2->error().data["knownFingerprint"] == (*read)->fingerprint);

  // Creating a new file needs no read.
  ops::CreateRequest cp;
  cp.path = "new.txt";
  cp.content = "n\n";
  std::optional<Result<ops::Mutation>> created;
  spawn_into(f.io, f.ops.create(ctx, cp), created);
  f.io.restart();
  f.io.run();
  CHECK(created->has_value());
}

namespace {

ops::PatchRequest patch_of(std::string text) {
  ops::PatchRequest p;
  p.patch = std::move(text);
  p.path_rule = protocol::path_problem;
  return p;
}

}  // namespace

TEST_CASE(
    "a patch whose last deletion fails restores every file it had written, moved or deleted") {
  Fixture f;
  f.backend.put("a.txt", "a\n");
  f.backend.put("m.txt", "move me\n");
  f.backend.put("d1.txt", "one\n");
  f.backend.put("d2.txt", "two\n");
  f.backend.fail_next_remove("d2.txt");
  auto ctx = f.ctx();
  std::optional<Result<ops::Patched>> r;
  spawn_into(f.io,
             f.ops.apply_patch(
                 ctx, patch_of("*** Begin Patch\n"
                               "*** Update File: a.txt\n@@\n-a\n+A\n"
                               "*** Update File: m.txt\n*** Move to: n.txt\n@@\n-move me\n+moved\n"
                               "*** Delete File: d1.txt\n"
                               "*** Delete File: d2.txt\n"
                               "*** End Patch")),
             r);
  f.io.run();
  REQUIRE(r->has_error());
  CHECK(r->error().kind == ErrorKind::kIo);
  CHECK(r->error().data["path"] == "d2.txt");
  CHECK(r->error().data["rolledBack"] == true);
  CHECK(f.backend.get("a.txt") == "a\n");
  CHECK(f.backend.get("m.txt") == "move me\n");
  CHECK(f.backend.get("n.txt") == std::nullopt);
  CHECK(f.backend.get("d1.txt") == "one\n");
  CHECK(f.backend.get("d2.txt") == "two\n");
  CHECK(f.locks.size() == 0);
}

TEST_CASE("a patch holds every file it touches: a later edit of any of them waits for it") {
  Fixture f;
  f.backend.put("a.txt", "a\n");
  f.backend.put("b.txt", "x\n");
  asio::steady_timer gate(f.io, asio::steady_timer::time_point::max());
  f.backend.set_delay("a.txt", [&gate] { return wait_until_cancelled(gate); });
  auto c1 = f.ctx(), c2 = f.ctx();
  std::optional<Result<ops::Patched>> patched;
  std::optional<Result<ops::Mutation>> edited;
  spawn_into(f.io,
             f.ops.apply_patch(c1, patch_of("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n"
                                            "*** Update File: b.txt\n@@\n-x\n+y\n*** End Patch")),
             patched);
  // Arrives while the patch waits on a.txt; it must see the patch's b.txt.
  spawn_into(f.io, f.ops.str_replace(c2, replace("b.txt", "y", "z")), edited);
  asio::post(f.io, [&gate] { gate.cancel(); });
  f.io.run();
  REQUIRE(patched->has_value());
  REQUIRE(edited->has_value());
  CHECK(f.backend.get("a.txt") == "A\n");
  CHECK(f.backend.get("b.txt") == "z\n");
}

TEST_CASE("a cancelled patch changes nothing") {
  Fixture f;
  f.backend.put("a.txt", "a\n");
  auto ctx = f.ctx();
  ctx.cancel->cancelled = true;
  std::optional<Result<ops::Patched>> r;
  spawn_into(
      f.io,
      f.ops.apply_patch(ctx, patch_of("*** Begin Patch\n*** Delete File: a.txt\n*** End Patch")),
      r);
  f.io.run();
  REQUIRE(r->has_error());
  CHECK(r->error().kind == ErrorKind::kCancelled);
  CHECK(f.backend.get("a.txt") == "a\n");
}

// A U+FEFF at the start of text written at the start of a file that has a BOM
// can only be a copy of that BOM: it is dropped rather than written as a
// second one. Anywhere else it is content.
TEST_CASE("a copied BOM never lands as a second BOM, through insert or apply_patch") {
  const std::string bom = "\xEF\xBB\xBF";
  Fixture f;
  auto run_insert = [&](std::string path, std::uint64_t line, std::string text) {
    ops::InsertRequest p;
    p.path = std::move(path);
    p.after_line = line;
    p.text = std::move(text);
    auto ctx = f.ctx();
    std::optional<Result<ops::Mutation>> r;
    spawn_into(f.io, f.ops.insert(ctx, std::move(p)), r);
    f.io.restart();
    f.io.run();
    REQUIRE(r.has_value());
    return std::move(*r);
  };
  f.backend.put("bom.py", bom + "a = 1\n");
  CHECK(run_insert("bom.py", 0, bom + "import os\n").has_value());
  CHECK(f.backend.get("bom.py") == bom + "import os\na = 1\n");
  // Elsewhere U+FEFF is the character it is.
  CHECK(run_insert("bom.py", 2, bom + "b = 2\n").has_value());
  CHECK(f.backend.get("bom.py") == bom + "import os\na = 1\n" + bom + "b = 2\n");
  // Nothing but the copy: nothing to do.
  auto nothing = run_insert("bom.py", 0, bom);
  REQUIRE(nothing.has_error());
  CHECK(nothing.error().kind == ErrorKind::kNoChange);
  // A file without a BOM takes the one the text starts with, as write_text does.
  f.backend.put("plain.py", "a = 1\n");
  CHECK(run_insert("plain.py", 0, bom + "x = 0\n").has_value());
  CHECK(f.backend.get("plain.py") == bom + "x = 0\na = 1\n");

  f.backend.put("p.ts", bom + "let a = 1;\n");
  auto ctx = f.ctx();
  std::optional<Result<ops::Patched>> r;
  spawn_into(f.io,
             f.ops.apply_patch(ctx, patch_of("*** Begin Patch\n*** Update File: p.ts\n@@\n+" + bom +
                                             "// header\n let a = 1;\n*** End Patch")),
             r);
  f.io.restart();
  f.io.run();
  REQUIRE(r.has_value());
  CHECK(r->has_value());
  CHECK(f.backend.get("p.ts") == bom + "// header\nlet a = 1;\n");
}

TEST_CASE(
    "a small edit whose cost is known runs without the pool; a search that may cost runs on it") {
  Fixture f;
  std::string file;
  for (int i = 0; i < 200; ++i) file += "line " + std::to_string(i) + ";\n";
  f.backend.put("a.txt", file);
  test::PoolHold held(f.pool, 2);  // both threads: what completes did not need the pool

  // oldText once, verbatim; an insert of one line; a new file.
  auto c1 = f.ctx(), c2 = f.ctx(), c3 = f.ctx(), c4 = f.ctx();
  std::optional<Result<ops::Mutation>> once, inserted, created, missed;
  spawn_into(f.io, f.ops.str_replace(c1, replace("a.txt", "line 100;", "line one hundred;")), once);
  ops::InsertRequest ins;
  ins.path = "a.txt";
  ins.after_line = 1;
  ins.text = "// top\n";
  spawn_into(f.io, f.ops.insert(c2, ins), inserted);
  ops::CreateRequest cr;
  cr.path = "new.txt";
  cr.content = "fresh\n";
  spawn_into(f.io, f.ops.create(c3, cr), created);
  // A miss runs the forgiving tiers and the closest-region search: the pool.
  spawn_into(f.io, f.ops.str_replace(c4, replace("a.txt", "line 1000;", "x")), missed);
  f.io.poll();
  CHECK(held.finished() == 0);
  REQUIRE(once.has_value());
  REQUIRE(inserted.has_value());
  REQUIRE(created.has_value());
  CHECK(once->has_value());
  CHECK(inserted->has_value());
  CHECK(created->has_value());
  CHECK_FALSE(missed.has_value());
  held.release();
  while (!missed) f.io.run_one();
  REQUIRE(missed->has_error());
  CHECK(missed->error().kind == ErrorKind::kNoMatch);
  const std::string now = f.backend.get("a.txt").value_or("");
  CHECK(now.find("line one hundred;\n") != std::string::npos);
  CHECK(now.rfind("line 0;\n// top\n", 0) == 0);
  CHECK(f.backend.get("new.txt") == "fresh\n");
}

TEST_CASE("read_text: a whole file, a slice and hashline, with and without a BOM") {
  const std::string bom = "\xEF\xBB\xBF";
  Fixture f;
  auto read = [&](std::string path, std::optional<std::uint64_t> line,
                  std::optional<std::uint64_t> limit,
                  ops::ReadFormat format = ops::ReadFormat::kPlain) {
    ops::ReadRequest p;
    p.path = std::move(path);
    p.first_line = line;
    p.line_limit = limit;
    p.format = format;
    auto ctx = f.ctx();
    std::optional<Result<ops::Read>> r;
    spawn_into(f.io, f.ops.read_text(ctx, std::move(p)), r);
    f.io.restart();
    f.io.run();
    REQUIRE(r.has_value());
    REQUIRE_MESSAGE(r->has_value(), r->error().message);
    return std::move(**r);
  };
  const std::string body = "one\r\ntwo\nthree";
  f.backend.put("bom.txt", bom + body);
  f.backend.put("plain.txt", body);
  for (const std::string name : {"bom.txt", "plain.txt"}) {
    CAPTURE(name);
    const std::string bytes = f.backend.get(name).value();
    auto whole = read(name, std::nullopt, std::nullopt);
    CHECK(whole.content == body);  // the BOM is not content
    CHECK(whole.fingerprint == fingerprint(bytes));
    CHECK(whole.total_lines == 3);
    CHECK(whole.first_line == 1);
    CHECK(whole.line_count == 3);
    auto first = read(name, 1, 1);
    CHECK(first.content == "one\r\n");
    CHECK(first.fingerprint == fingerprint(bytes));
    auto last = read(name, 2, std::nullopt);
    CHECK(last.content == "two\nthree");
    CHECK(last.line_count == 2);
    auto hashed = read(name, std::nullopt, std::nullopt, ops::ReadFormat::kHashline);
    CHECK(hashed.format == ops::ReadFormat::kHashline);
    CHECK(hashed.content.find("one") != std::string::npos);
    CHECK(hashed.content.find(bom) == std::string::npos);
    CHECK(f.backend.get(name) == bytes);  // reading changed nothing
  }
}

TEST_CASE("an edit written as pieces lands, diffs and fingerprints as one written whole") {
  // Without an approval, checks or an ACP session to tell, a spliced edit is
  // written as pieces of the old bytes and its diff is made around the
  // splices; with an ACP session (ctx.changes) the new file is made whole
  // first. Both must give the same file and the same result.
  std::string big;  // past kOffloadBytes, so that the edits run on the pool
  for (int i = 0; i < 9000; ++i) big += "line " + std::to_string(i) + (i % 3 ? "\r\n" : "\n");
  struct Case {
    std::string name, file;
    std::function<Operations::Awaitable(Operations&, RequestContext&)> call;
  };
  const std::string bom = "\xEF\xBB\xBF";
  std::vector<Case> cases = {
      {"one line of a big file", big,
       [](Operations& ops, RequestContext& c) {
         return ops.str_replace(c, replace("f.txt", "line 4500", "LINE 4500\nadded"));
       }},
      {"every occurrence, BOM", bom + "a x b\nx\nc x",
       [](Operations& ops, RequestContext& c) {
         auto p = replace("f.txt", "x", "yy");
         p.replace_all = true;
         return ops.str_replace(c, std::move(p));
       }},
      {"insert at the end of a last line without a newline", "one\ntwo",
       [](Operations& ops, RequestContext& c) {
         ops::InsertRequest p;
         p.path = "f.txt";
         p.after_line = 2;
         p.text = "three\n";
         return ops.insert(c, std::move(p));
       }},
      {"write_text of a big file", big,
       [big](Operations& ops, RequestContext& c) {
         ops::WriteRequest p;
         p.path = "f.txt";
         p.content = "head\n" + big.substr(20, big.size() - 40) + "tail\n";
         return ops.write_text(c, std::move(p));
       }},
  };
  for (const Case& k : cases) {
    CAPTURE(k.name);
    std::optional<Result<ops::Mutation>> lean, whole;
    std::string lean_file, whole_file;
    {
      Fixture f;
      f.backend.put("f.txt", k.file);
      auto c = f.ctx();
      spawn_into(f.io, k.call(f.ops, c), lean);
      while (!lean) f.io.run_one();
      lean_file = f.backend.get("f.txt").value_or("");
    }
    {
      Fixture f;
      f.backend.put("f.txt", k.file);
      std::vector<ChangeReport> changes;
      auto c = f.ctx();
      c.changes = &changes;
      spawn_into(f.io, k.call(f.ops, c), whole);
      while (!whole) f.io.run_one();
      whole_file = f.backend.get("f.txt").value_or("");
      CHECK(changes.size() == 1);
    }
    REQUIRE(lean->has_value());
    REQUIRE(whole->has_value());
    CHECK(lean_file == whole_file);
    CHECK(lean_file != k.file);
    CHECK((*lean)->diff == (*whole)->diff);
    CHECK_FALSE((*lean)->diff.empty());
    CHECK((*lean)->added == (*whole)->added);
    CHECK((*lean)->removed == (*whole)->removed);
    CHECK((*lean)->fingerprint == (*whole)->fingerprint);
    CHECK((*lean)->fingerprint == fingerprint(lean_file));
  }
}
