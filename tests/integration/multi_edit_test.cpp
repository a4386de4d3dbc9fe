// str_replace's edits[] through the real binary (issue 57): several edits of
// one file, in order, all or none, one diff, one undo id, one ledger change;
// a failing edit named by its index with what a single str_replace says.
#include <doctest/doctest.h>

#include <string>

#include "helpers/mcp_session.h"
#include "helpers/process.h"

using namespace editd::test;

namespace {

const std::string kFormatters = EDITD_SOURCE_DIR "/tests/integration/formatters/";

std::string numbered(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

json edit(const std::string& old_text, const std::string& new_text) {
  return {{"oldText", old_text}, {"newText", new_text}};
}

json range(int start, int end) { return {{"startLine", start}, {"endLine", end}}; }

}  // namespace

TEST_CASE("edits apply in order, each to the text the ones before it left") {
  TempDir root;
  root.write("a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n");
  auto p = spawn_editd(root);
  // edits[1] matches only what edits[0] wrote.
  json r = p.ok("str_replace",
                {{"path", "a.py"},
                 {"edits", {edit("return 1", "return compute()"),
                            edit("    return compute()\n", "    x = compute()\n    return x\n"),
                            edit("return 2", "return 3")}}});
  CHECK(root.read("a.py") ==
        "def f():\n    x = compute()\n    return x\n\ndef g():\n    return 3\n");
  CHECK(r["replacements"] == 3);
  CHECK(r["matchedBy"] == "exact");
  REQUIRE(r["edits"].size() == 3);
  // Each edit's lines in the file as written.
  CHECK(r["edits"][0]["lines"] == json::array({range(2, 3)}));
  CHECK(r["edits"][1]["lines"] == json::array({range(2, 3)}));
  CHECK(r["edits"][2]["lines"] == json::array({range(6, 6)}));
  CHECK(r["edits"][2]["replacements"] == 1);
  CHECK(r["edits"][2]["matchedBy"] == "exact");
  CHECK(r["lines"] == json::array({range(2, 3), range(6, 6)}));
  // One diff of the whole change.
  const std::string diff = r["diff"];
  CHECK(diff.find("-    return 1\n+    x = compute()\n+    return x\n") != std::string::npos);
  CHECK(diff.find("-    return 2\n+    return 3\n") != std::string::npos);
  CHECK(r["added"] == 3);
  CHECK(r["removed"] == 2);
  CHECK(r["fingerprint"] == p.ok("fingerprint", {{"path", "a.py"}})["fingerprint"]);
}

TEST_CASE("a failing edit changes nothing and is named by its index, with the closest region") {
  TempDir root;
  const std::string before = numbered(1, 40);
  root.write("a.txt", before);
  auto p = spawn_editd(root);
  json e = p.fails("str_replace", {{"path", "a.txt"},
                                   {"edits", {edit("line 3\n", "three\n"), edit("line 10\n", "ten\n"),
                                              edit("line 20\n", "twenty\n"),
                                              edit("line 30\nline 31\nline 3X\n", "x\n")}}});
  CHECK(e["data"]["kind"] == "no_match");
  CHECK(e["data"]["edit"] == 3);
  const std::string message = e["message"];
  CHECK(message.rfind("edits[3]: ", 0) == 0);
  CHECK(e["data"]["closest"]["startLine"] == 30);
  CHECK(e["data"]["closest"]["text"].get<std::string>().find("line 31") != std::string::npos);
  CHECK(root.read("a.txt") == before);

  json amb = p.fails("str_replace",
                     {{"path", "a.txt"}, {"edits", {edit("line 3\n", "three\n"), edit("line 1", "L")}}});
  CHECK(amb["data"]["kind"] == "ambiguous");
  CHECK(amb["data"]["edit"] == 1);
  CHECK(amb["data"]["candidates"].size() > 1);
  CHECK(amb["message"].get<std::string>().rfind("edits[1]: ", 0) == 0);
  CHECK(root.read("a.txt") == before);

  // Over MCP the text a model sees names the edit and shows the region.
  auto m = spawn_editd(root);
  mcp_initialize(m);
  json res = call(m, "str_replace",
                  {{"path", "a.txt"},
                   {"edits", {edit("line 3\n", "three\n"), edit("line 30\nline 31\nline 3X\n", "x\n")}}});
  CHECK(res["isError"] == true);
  const std::string text = text_of(res);
  CHECK(text.find("Error (no_match): edits[1]: ") == 0);
  CHECK(text.find("Closest region, lines 30-32") != std::string::npos);
  CHECK(root.read("a.txt") == before);
}

TEST_CASE("one undo id takes back every edit, and the ledger holds one change") {
  TempDir root;
  TempDir state;
  const std::string before = numbered(1, 30);
  root.write("a.txt", before);
  auto p = spawn_editd(root, {"--state-dir", state.str()});
  json r = p.ok("str_replace", {{"path", "a.txt"},
                                {"edits", {edit("line 2\n", "two\n"), edit("line 15\n", ""),
                                           edit("line 29\n", "twenty-nine\n")}}});
  REQUIRE(r.contains("undoId"));
  REQUIRE(r.contains("changeId"));
  CHECK(root.read("a.txt") != before);
  json page = p.ok("changes", {{"path", "a.txt"}});
  REQUIRE(page["changes"].size() == 1);
  CHECK(page["changes"][0]["method"] == "str_replace");
  CHECK(page["changes"][0]["files"][0]["hunks"].size() == 3);
  p.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(root.read("a.txt") == before);
}

TEST_CASE("CRLF line endings and a BOM are kept across the edits") {
  TempDir root;
  root.write("w.txt", "\xEF\xBB\xBF" "one\r\ntwo\r\nthree\r\nfour\r\nfive");
  auto p = spawn_editd(root);
  p.ok("str_replace", {{"path", "w.txt"},
                       {"edits", {edit("two\nthree", "2\n2.5\n3"), edit("2.5\n3\nfour", "3\n4"),
                                  edit("five", "5\n6")}}});
  CHECK(root.read("w.txt") == "\xEF\xBB\xBF" "one\r\n2\r\n3\r\n4\r\n5\r\n6");
  // A line an edit leaves alone keeps its own ending, even the minority's.
  root.write("m.txt", "a\nb\r\nc\nd\ne\n");
  p.ok("str_replace", {{"path", "m.txt"}, {"edits", {edit("a", "A"), edit("e", "E")}}});
  CHECK(root.read("m.txt") == "A\nb\r\nc\nd\nE\n");
}

TEST_CASE("replaceAll and expectedReplacements inside the edits; matching applies to all") {
  TempDir root;
  root.write("a.c", "x = 1;\ny = 1;\nz = 2;\n");
  auto p = spawn_editd(root);
  json r = p.ok("str_replace",
                {{"path", "a.c"},
                 {"edits", {{{"oldText", "= 1;"}, {"newText", "= 3;"}, {"replaceAll", true},
                             {"expectedReplacements", 2}},
                            edit("z = 2;", "z = 3;")}}});
  CHECK(root.read("a.c") == "x = 3;\ny = 3;\nz = 3;\n");
  CHECK(r["replacements"] == 3);
  CHECK(r["edits"][0]["replacements"] == 2);
  CHECK(r["edits"][0]["lines"] == json::array({range(1, 1), range(2, 2)}));

  json wrong = p.fails("str_replace",
                       {{"path", "a.c"},
                        {"edits", {edit("z", "w"), {{"oldText", "= 3;"}, {"newText", "= 4;"},
                                                    {"replaceAll", true},
                                                    {"expectedReplacements", 2}}}}});
  CHECK(wrong["data"]["kind"] == "ambiguous");
  CHECK(wrong["data"]["edit"] == 1);
  CHECK(wrong["data"]["expected"] == 2);
  CHECK(root.read("a.c") == "x = 3;\ny = 3;\nz = 3;\n");

  // matching: exact refuses what standard forgives (trailing whitespace), for every edit.
  root.write("t.txt", "keep  \nalso\n");
  json exact = p.fails("str_replace", {{"path", "t.txt"},
                                       {"matching", "exact"},
                                       {"edits", {edit("also", "ALSO"), edit("keep\n", "K\n")}}});
  CHECK(exact["data"]["kind"] == "no_match");
  CHECK(exact["data"]["edit"] == 1);
  json standard = p.ok("str_replace", {{"path", "t.txt"},
                                       {"edits", {edit("also", "ALSO"), edit("keep\n", "K\n")}}});
  CHECK(standard["edits"][1]["matchedBy"] == "trailing_whitespace");
  CHECK(!standard.contains("matchedBy"));  // the edits matched by different tiers
  CHECK(root.read("t.txt") == "K\nALSO\n");
}

TEST_CASE("a dry run of edits writes nothing and shows the diff") {
  TempDir root;
  root.write("a.txt", numbered(1, 10));
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "a.txt"},
                                {"dryRun", true},
                                {"edits", {edit("line 2", "two"), edit("line 9", "nine")}}});
  CHECK(root.read("a.txt") == numbered(1, 10));
  CHECK(!r.contains("undoId"));
  CHECK(r["diff"].get<std::string>().find("+nine") != std::string::npos);
  CHECK(r["replacements"] == 2);
}

TEST_CASE("a fingerprint that is not the file's refuses the edits") {
  TempDir root;
  root.write("a.txt", numbered(1, 5));
  auto p = spawn_editd(root);
  const std::string fp = p.ok("read_text", {{"path", "a.txt"}})["fingerprint"];
  root.write("a.txt", numbered(1, 6));
  json e = p.fails("str_replace", {{"path", "a.txt"},
                                   {"expectedFingerprint", fp},
                                   {"edits", {edit("line 1", "one"), edit("line 2", "two")}}});
  CHECK(e["data"]["kind"] == "conflict");
  CHECK(root.read("a.txt") == numbered(1, 6));
  json ok = p.ok("str_replace", {{"path", "a.txt"},
                                 {"expectedFingerprint", p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"]},
                                 {"edits", {edit("line 1", "one"), edit("line 2", "two")}}});
  CHECK(root.read("a.txt") == "one\ntwo\nline 3\nline 4\nline 5\nline 6\n");
}

TEST_CASE("bad edits are invalid_params naming the param, and change nothing") {
  TempDir root;
  root.write("a.txt", "a\nb\n");
  auto p = spawn_editd(root);
  auto bad = [&](json params, const std::string& says) {
    params["path"] = "a.txt";
    json e = p.fails("str_replace", params);
    CAPTURE(params.dump());
    CHECK(e["data"]["kind"] == "invalid_params");
    CHECK(e["data"]["param"] == "edits");
    CHECK(e["message"].get<std::string>().find(says) != std::string::npos);
    return e;
  };
  bad({{"edits", "a"}}, "must be an array");
  bad({{"edits", json::object()}}, "must be an array");
  bad({{"edits", json::array()}}, "must not be empty");
  CHECK(bad({{"edits", {edit("a", "A"), 7}}}, "edits[1]: must be an object")["data"]["edit"] == 1);
  CHECK(bad({{"edits", {edit("", "A")}}}, "edits[0]: oldText must not be empty")["data"]["edit"] ==
        0);
  bad({{"edits", {{{"oldText", "a"}}}}}, "edits[0]: newText is missing");
  bad({{"edits", {{{"oldText", 1}, {"newText", "x"}}}}}, "edits[0]: oldText must be a string");
  bad({{"edits", {{{"oldText", "a"}, {"newText", "x"}, {"replaceAll", "yes"}}}}},
      "replaceAll must be a boolean");
  bad({{"edits", {{{"oldText", "a"}, {"newText", "x"}, {"expectedReplacements", 0}}}}},
      "expectedReplacements must be an integer of at least 1");
  bad({{"oldText", "a"}, {"newText", "A"}, {"edits", {edit("b", "B")}}}, "not both");
  bad({{"replaceAll", true}, {"edits", {edit("b", "B")}}}, "not both");
  json many = json::array();
  for (int i = 0; i < 1001; ++i) many.push_back(edit("a", "b"));
  json e = bad({{"edits", many}}, "at most 1000 edits");
  CHECK(e["data"]["limit"] == 1000);
  // The single form is as it was: its own params named.
  CHECK(p.fails("str_replace", {{"path", "a.txt"}, {"newText", "x"}})["data"]["param"] == "oldText");
  CHECK(root.read("a.txt") == "a\nb\n");
  // An edit that changes nothing is no_change, named.
  json same = p.fails("str_replace",
                      {{"path", "a.txt"}, {"edits", {edit("a", "A"), edit("b", "b")}}});
  CHECK(same["data"]["kind"] == "no_change");
  CHECK(same["data"]["edit"] == 1);
  // Edits that put back what an earlier one changed leave the file as it was: no_change.
  json back = p.fails("str_replace",
                      {{"path", "a.txt"}, {"edits", {edit("a\n", "A\n"), edit("A\n", "a\n")}}});
  CHECK(back["data"]["kind"] == "no_change");
  CHECK(root.read("a.txt") == "a\nb\n");
}

TEST_CASE("a formatter formats the lines of every edit, once") {
  TempDir root;
  root.write("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\n");
  auto p = spawn_editd(root, {"--format", "*.txt=" + kFormatters + "reindent.sh"});
  json r = p.ok("str_replace", {{"path", "a.txt"},
                                {"edits", {edit("two", "TWO"), edit("five", "FIVE\nFIVE+")}}});
  CHECK(r["formatStatus"] == "ok");
  CHECK(root.read("a.txt") == "one\n  TWO\nthree\nfour\n  FIVE\n  FIVE+\nsix\n");
  CHECK(r["edits"][1]["lines"] == json::array({range(5, 6)}));
  CHECK(r["fingerprint"] == p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"]);
  json plain = p.ok("str_replace", {{"path", "a.txt"},
                                    {"format", false},
                                    {"edits", {edit("three", "3"), edit("six", "6")}}});
  CHECK(!plain.contains("formatStatus"));
  CHECK(root.read("a.txt") == "one\n  TWO\n3\nfour\n  FIVE\n  FIVE+\n6\n");
}

TEST_CASE("MCP shows each edit's lines and lists edits in str_replace's schema") {
  TempDir root;
  root.write("a.txt", numbered(1, 20));
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json tools = p.ok("tools/list", json::object())["tools"];
  json schema;
  for (const json& t : tools)
    if (t["name"] == "str_replace") schema = t["inputSchema"];
  REQUIRE(schema.is_object());
  CHECK(schema["required"] == json::array({"path"}));
  CHECK(schema["properties"]["edits"]["items"]["required"] == json::array({"oldText", "newText"}));
  json res = call(p, "str_replace", {{"path", "a.txt"},
                                     {"edits", {edit("line 4\n", "four\nfour+\n"),
                                                edit("line 12", "twelve")}}});
  REQUIRE(res["isError"] == false);
  const std::string text = text_of(res);
  CHECK(text.find("a.txt: 2 edits, 2 replacements (edits[0]: 1 at lines 4-5; edits[1]: 1 at line "
                  "13), +3 -2 lines, fingerprint ") == 0);
  CHECK(res["structuredContent"]["edits"].size() == 2);
}
