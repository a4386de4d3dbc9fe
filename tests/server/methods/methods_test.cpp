// The method rows over the operations (memory backend): each param decoded
// straight into the operation's request, its modes into the core's enums,
// each outcome encoded as the wire has it, and a bad param named.
#include "server/methods/methods.h"

#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <optional>
#include <set>

#include "helpers/in_process.h"
#include "server/doors/registry.h"
#include "server/methods/shared.h"

using namespace editd;
using nlohmann::json;

namespace {

struct MethodsFixture : test::InProcess {
  Registry registry{ops};

  // The method `name` called with `params`, run to its end.
  Result<json> call(const std::string& name, const json& params) {
    const Method* m = registry.find(name);
    REQUIRE(m);
    return run([&](RequestContext& ctx) { return registry.run(*m, ctx, params); });
  }
};

void check_invalid(const Result<json>& r, const char* param) {
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kInvalidParams);
  CHECK(r.error().data["param"] == param);
}

}  // namespace

TEST_CASE("read_text's format reaches the operation as its enum, and reads back") {
  MethodsFixture f;
  f.backend.put("a.txt", "one\ntwo\nthree\n");
  auto plain = f.call("read_text", {{"path", "a.txt"}, {"line", 2}, {"limit", 1}});
  REQUIRE(plain.has_value());
  CHECK(plain->at("content") == "two\n");
  CHECK(plain->at("line") == 2);
  CHECK(plain->at("lineCount") == 1);
  CHECK(plain->at("totalLines") == 3);
  CHECK_FALSE(plain->contains("format"));
  auto hashed = f.call("read_text", {{"path", "a.txt"}, {"format", "hashline"}, {"limit", 1}});
  REQUIRE(hashed.has_value());
  CHECK(hashed->at("format") == "hashline");
  CHECK(hashed->at("content").get<std::string>().starts_with("1~"));
  check_invalid(f.call("read_text", {{"path", "a.txt"}, {"format", "html"}}), "format");
  check_invalid(f.call("read_text", {{"path", "a.txt"}, {"symbol", "f"}, {"line", 1}}), "symbol");
}

TEST_CASE("set_format's lineEndings becomes the file's line endings") {
  MethodsFixture f;
  f.backend.put("a.txt", "x\ny\n");
  REQUIRE(f.call("set_format", {{"path", "a.txt"}, {"lineEndings", "crlf"}}).has_value());
  CHECK(f.backend.get("a.txt") == "x\r\ny\r\n");
  REQUIRE(f.call("set_format", {{"path", "a.txt"}, {"lineEndings", "lf"}}).has_value());
  CHECK(f.backend.get("a.txt") == "x\ny\n");
  check_invalid(f.call("set_format", {{"path", "a.txt"}, {"lineEndings", "cr"}}), "lineEndings");
  check_invalid(f.call("set_format", {{"path", "a.txt"}}), "lineEndings");
}

TEST_CASE("str_replace's matching reaches the ladder: exact forgives nothing") {
  MethodsFixture f;
  f.backend.put("a.c", "foo(a);  \nbar(b);\n");
  // Trailing blanks the file has and oldText not: only the forgiving tiers see past them.
  const json indented = {
      {"path", "a.c"}, {"oldText", "foo(a);\nbar(b);"}, {"newText", "foo(a);\nbaz(b);"}};
  json exact = indented;
  exact["matching"] = "exact";
  auto refused = f.call("str_replace", exact);
  REQUIRE(refused.has_error());
  CHECK(refused.error().kind == ErrorKind::kNoMatch);
  json standard = indented;
  standard["matching"] = "standard";
  auto forgiven = f.call("str_replace", standard);
  REQUIRE(forgiven.has_value());
  CHECK(forgiven->at("replacements") == 1);
  CHECK(forgiven->contains("matchedBy"));
  CHECK(f.backend.get("a.c") == "foo(a);  \nbaz(b);\n");
  json loose = indented;
  loose["matching"] = "loose";
  auto bad = f.call("str_replace", loose);
  check_invalid(bad, "matching");
  CHECK(bad.error().message ==
        "invalid param 'matching': must be \"exact\", \"standard\" or \"fuzzy\"");
  check_invalid(f.call("str_replace", {{"path", "a.c"}, {"oldText", ""}, {"newText", "x"}}),
                "oldText");
  check_invalid(f.call("str_replace", {{"path", "a.c"}, {"oldText", "x"}, {"newText", 3}}),
                "newText");
  check_invalid(
      f.call("str_replace",
             {{"path", "a.c"}, {"oldText", "x"}, {"newText", "y"}, {"expectedReplacements", 0}}),
      "expectedReplacements");
}

TEST_CASE("str_replace's edits reach the operation in order, and read back with their text") {
  MethodsFixture f;
  f.backend.put("a.c", "one\ntwo\nthree\n");
  const json params = {{"path", "a.c"},
                       {"matching", "exact"},
                       {"edits",
                        {{{"oldText", "two"}, {"newText", "2\n2.5"}},
                         {{"oldText", "2.5\nthree"}, {"newText", "3"}},
                         {{"oldText", "one"}, {"newText", "1"}}}}};
  auto r = f.call("str_replace", params);
  REQUIRE(r.has_value());
  CHECK(f.backend.get("a.c") == "1\n2\n3\n");
  CHECK(r->at("replacements") == 3);
  CHECK(r->at("matchedBy") == "exact");
  REQUIRE(r->at("edits").size() == 3);
  CHECK(r->at("edits")[0]["lines"] == json::parse(R"([{"startLine":2,"endLine":3}])"));
  CHECK(r->at("edits")[1]["lines"] == json::parse(R"([{"startLine":3,"endLine":3}])"));
  CHECK(r->at("edits")[2]["lines"] == json::parse(R"([{"startLine":1,"endLine":1}])"));
  const Method* m = f.registry.find("str_replace");
  REQUIRE(m);
  CHECK(m->render(params, *r).starts_with(
      "a.c: 3 edits, 3 replacements (edits[0]: 1 at lines 2-3; edits[1]: 1 at line 3; edits[2]: "
      "1 at line 1), +3 -3 lines, fingerprint "));
  // A bad edit is named by its index, and so is a failing one.
  auto bad = f.call("str_replace", {{"path", "a.c"}, {"edits", {{{"oldText", "1"}}}}});
  check_invalid(bad, "edits");
  CHECK(bad.error().data["edit"] == 0);
  auto miss = f.call("str_replace", {{"path", "a.c"},
                                     {"edits",
                                      {{{"oldText", "1"}, {"newText", "one"}},
                                       {{"oldText", "9"}, {"newText", "nine"}}}}});
  REQUIRE(miss.has_error());
  CHECK(miss.error().kind == ErrorKind::kNoMatch);
  CHECK(miss.error().data["edit"] == 1);
  CHECK(f.backend.get("a.c") == "1\n2\n3\n");
}

TEST_CASE("edit_lines' kinds of edit reach the operation, and a bad edit is named") {
  MethodsFixture f;
  f.backend.put("a.txt", "a\nb\nc\n");
  auto read = f.call("read_text", {{"path", "a.txt"}, {"format", "hashline"}});
  REQUIRE(read.has_value());
  const std::string view = read->at("content");
  std::vector<std::string> anchors;
  for (std::size_t at = 0; at < view.size(); at = view.find('\n', at) + 1)
    anchors.push_back(view.substr(at, view.find('|', at) - at));
  REQUIRE(anchors.size() == 3);
  json edits = json::array({{{"replace", {{"start", anchors[1]}}}, {"newText", "B\n"}},
                            {{"insertBefore", anchors[0]}, {"newText", "0\n"}},
                            {{"insertAfter", anchors[2]}, {"newText", "d\n"}}});
  auto r = f.call("edit_lines", {{"path", "a.txt"}, {"edits", edits}});
  REQUIRE(r.has_value());
  CHECK(f.backend.get("a.txt") == "0\na\nB\nc\nd\n");
  REQUIRE(r->at("lines").size() == 3);
  auto bad =
      f.call("edit_lines", {{"path", "a.txt"}, {"edits", json::array({{{"newText", "x"}}})}});
  check_invalid(bad, "edits");
  CHECK(bad.error().data["edit"] == 0);
}

TEST_CASE("insert's line, and the mutation params every mutation shares") {
  MethodsFixture f;
  f.backend.put("a.txt", "a\nb\n");
  auto dry = f.call("insert", {{"path", "a.txt"}, {"line", 1}, {"text", "x\n"}, {"dryRun", true}});
  REQUIRE(dry.has_value());
  CHECK(f.backend.get("a.txt") == "a\nb\n");
  CHECK(dry->at("lines") == json::parse(R"([{"startLine":2,"endLine":2}])"));
  CHECK_FALSE(dry->contains("undoId"));
  auto stale = f.call(
      "insert", {{"path", "a.txt"}, {"line", 1}, {"text", "x\n"}, {"expectedFingerprint", "0000"}});
  REQUIRE(stale.has_error());
  CHECK(stale.error().kind == ErrorKind::kConflict);
  check_invalid(f.call("insert", {{"path", "a.txt"}, {"line", 1.5}, {"text", "x"}}), "line");
  check_invalid(f.call("insert", {{"path", "a.txt"}, {"line", 1}, {"text", "x"}, {"sessionId", 4}}),
                "sessionId");
  check_invalid(f.call("fingerprint", {{"path", std::string("a\0b", 3)}}), "path");
}

TEST_CASE("apply_patch's and undo's files read on the wire with their actions") {
  MethodsFixture f;
  f.backend.put("a.txt", "a\n");
  auto r =
      f.call("apply_patch", {{"patch",
                              "*** Begin Patch\n*** Add File: b.txt\n+b\n*** Update File: a.txt\n"
                              "@@\n-a\n+A\n*** End Patch\n"}});
  REQUIRE(r.has_value());
  REQUIRE(r->at("files").size() == 2);
  CHECK(r->at("files")[0]["action"] == "add");
  CHECK(r->at("files")[1]["action"] == "update");
  auto undone = f.call("undo", {{"undoId", r->at("undoId")}});
  REQUIRE(undone.has_value());
  REQUIRE(undone->at("files").size() == 2);
  std::set<std::string> actions;
  for (const json& file : undone->at("files")) actions.insert(file["action"]);
  CHECK(actions == std::set<std::string>{"delete", "update"});
  CHECK(f.backend.get("a.txt") == "a\n");
  check_invalid(f.call("apply_patch", {{"patch", "x"}, {"expectedFingerprints", {{"", "fp"}}}}),
                "expectedFingerprints");
}

TEST_CASE("each outcome of the core reads on the wire as before") {
  ops::Patched patched;
  for (patch::Action a :
       {patch::Action::kAdd, patch::Action::kUpdate, patch::Action::kDelete, patch::Action::kMove})
    patched.files.push_back(ops::PatchedFile{.path = "f", .action = a});
  diagnostics::Report report;
  report.status = diagnostics::Status::kTimeout;
  report.detail = "slow";
  report.introduced.push_back({.line = 2, .severity = "error", .message = "m", .source = "s"});
  patched.files[1].diagnostics = report;
  json p = methods::encode_patched(patched);
  REQUIRE(p["files"].size() == 4);
  CHECK(p["files"][0]["action"] == "add");
  CHECK(p["files"][1]["action"] == "update");
  CHECK(p["files"][2]["action"] == "delete");
  CHECK(p["files"][3]["action"] == "move");
  CHECK(p["files"][1]["diagnosticsStatus"] == "timeout");
  CHECK(p["files"][1]["diagnosticsDetail"] == "slow");
  REQUIRE(p["files"][1]["introduced"].size() == 1);
  CHECK(p["files"][1]["introduced"][0]["line"] == 2);
  CHECK(p["files"][1]["introduced"][0]["severity"] == "error");
  CHECK_FALSE(p["files"][0].contains("diagnosticsStatus"));

  ops::Mutation m;
  m.lines = std::vector<ops::LineRange>{{2, 3}};
  m.rebased = std::vector<ops::RebasedAnchor>{{"5~ab", 6}};
  json w = methods::encode_mutation(m);
  CHECK(w["lines"] == json::parse(R"([{"startLine":2,"endLine":3}])"));
  CHECK(w["rebased"][0]["anchor"] == "5~ab");
  CHECK(w["rebased"][0]["line"] == 6);
}

TEST_CASE("the table holds every method once, sorted; a view of the text editor writes nothing") {
  MethodsFixture f;
  const std::vector<std::string> names = f.registry.names();
  CHECK(names == std::vector<std::string>{
                     "anthropic_text_editor", "apply_patch", "changes", "copy", "create", "delete",
                     "edit_lines", "edit_symbol", "fingerprint", "insert", "list", "move",
                     "openai_apply_patch", "read_symbols", "read_text", "revert", "search",
                     "set_format", "str_replace", "undo", "write_text"});
  const Method* editor = f.registry.find("_edit/anthropic_text_editor");
  REQUIRE(editor);
  CHECK(editor->writes_nothing({{"command", "view"}}));
  CHECK_FALSE(editor->writes_nothing({{"command", "create"}}));
  CHECK(f.registry.find("write_text")->writes_nothing({{"dryRun", true}}));
  CHECK_FALSE(f.registry.find("write_text")->writes_nothing({{"dryRun", false}}));
  CHECK(f.registry.find("read_text")->writes_nothing(json::object()));
}

TEST_CASE("changes lists a file's formatted hunks with origin format and no id, and says so") {
  char dir[] = "/tmp/editd-methods-test-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  struct Remove {
    std::string path;
    ~Remove() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove{dir};
  MethodsFixture f;
  f.options.ledger.state_dir = dir;  // a ledger of this test's own, opened on first use
  auto lg = f.ops.ledger();
  REQUIRE(lg.has_value());
  REQUIRE(*lg != nullptr);
  auto hunk = [](std::uint64_t start, std::string old_text, std::string new_text) {
    hunks::Hunk h;
    h.old_start = h.new_start = start;
    h.old_count = h.new_count = 1;
    h.old_text = std::move(old_text);
    h.new_text = std::move(new_text);
    return h;
  };
  ledger::Entry e;
  e.actor.client = "test";
  e.actor.door = "jsonrpc";
  e.actor.method = "str_replace";
  ledger::FileRecord& file = e.files.emplace_back();
  file.path = "a.py";
  file.before_fingerprint = "before";
  file.after_fingerprint = "after";
  file.hunks = {hunk(4, "x = 0\n", "x = 1\n")};
  file.formatted = {hunk(4, "x=1\n", "x = 1\n")};
  auto id = (*lg)->append_now(e);
  REQUIRE(id.has_value());

  const json params = {{"path", "a.py"}};
  auto r = f.call("changes", params);
  REQUIRE(r.has_value());
  const json& listed = r->at("changes").at(0).at("files").at(0);
  CHECK(listed.at("hunks").at(0).at("id") == ledger::hunk_id(*id, 1));
  CHECK(listed.at("formatted") == json::parse(R"([{"origin":"format","oldStart":5,"oldLines":1,
      "newStart":5,"newLines":1,"old":"x=1\n","new":"x = 1\n"}])"));
  const Method* m = f.registry.find("changes");
  REQUIRE(static_cast<bool>(m->render));
  const std::string text = m->render(params, *r);
  CHECK(text.find("    " + ledger::hunk_id(*id, 1) + "  -5,1 +5,1\n"
                  "    formatted by the formatter: 1 hunk\n"
                  "      -5,1 +5,1\n") != std::string::npos);

  // A change the formatter did not touch has no formatted at all.
  file.formatted.clear();
  REQUIRE((*lg)->append_now(e).has_value());
  auto plain = f.call("changes", params);
  REQUIRE(plain.has_value());
  CHECK_FALSE(plain->at("changes").at(0).at("files").at(0).contains("formatted"));
}
