// Hashline anchors map by the view that was read (issue 35), through the real
// binary: a repeated line nearby or a line with the same tag is never taken
// for the line read; lines that moved are found by the diff from the view;
// without a remembered view an anchor is used only where it stands; anchors
// from slices read before and after another writer's edit each map from their
// own read (issue 43).
#include <doctest/doctest.h>

#include <map>

#include "edit/anchors/hashline.h"
#include "helpers/process.h"
#include "helpers/socket_client.h"

using namespace editd::test;

namespace {

// The whole hashline view of `path`, read on `p` (which remembers it).
std::string view(Process& p, const std::string& path) {
  return p.ok("read_text", {{"path", path}, {"format", "hashline"}})["content"];
}

// The anchor of 1-based `line` in a hashline view.
std::string anchor_in(const std::string& view, int line) {
  const std::string key = std::to_string(line) + "~";
  std::size_t at = view.rfind("\n" + key);
  at = line == 1 && view.rfind(key, 0) == 0 ? 0 : at + 1;
  return view.substr(at, view.find('|', at) - at);
}

json replace(const std::string& start, const std::string& text) {
  return {{"replace", {{"start", start}}}, {"newText", text}};
}

// Two different lines `prefix`N with the same tag, found by search.
std::pair<std::string, std::string> colliding(const std::string& prefix) {
  std::map<std::string, std::string> seen;
  for (int i = 0;; ++i) {
    std::string line = prefix + std::to_string(i);
    auto [it, fresh] = seen.emplace(editd::hashline::tag(line), line);
    if (!fresh) return {it->second, line};
  }
}

// Lines `from`..`to` of `path` in the hashline view, read on `p`.
std::string slice(Process& p, const std::string& path, int from, int to) {
  return p.ok("read_text",
              {{"path", path}, {"format", "hashline"}, {"line", from}, {"limit", to - from + 1}})
      ["content"];
}

// The anchor of `line` in a slice of a hashline view (its lines keep their numbers).
std::string anchor_of(const std::string& slice, int line) {
  const std::string key = std::to_string(line) + "~";
  const std::size_t at = slice.rfind(key, 0) == 0 ? 0 : slice.find("\n" + key) + 1;
  return slice.substr(at, slice.find('|', at) - at);
}

// A function whose inner and outer closing braces differ only in indentation
// (one tag), then filler to line 60.
std::string nested() {
  std::string s = "fn main() {\n    if a {\n        if b {\n            x();\n        }\n    }\n";
  for (int i = 7; i <= 59; ++i) s += "    step(" + std::to_string(i) + ");\n";
  return s + "}\n";
}

std::string numbered(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

}  // namespace

TEST_CASE("anchors: a line rewritten by another writer is stale, not the same line nearby") {
  TempDir root;
  root.write("a.py", "def f():\n    return None\n\ndef g():\n    return None\n");
  auto p = spawn_editd(root);
  const std::string a2 = anchor_in(view(p, "a.py"), 2);
  // B rewrites f's body; g's "return None" is the only line near with the tag.
  const std::string now = "def f():\n    y = 2\n    return y\n\ndef g():\n    return None\n";
  root.write("a.py", now);
  json e = p.fails("edit_lines", {{"path", "a.py"}, {"edits", {replace(a2, "    return 1")}}});
  CHECK(e["data"]["kind"] == "stale");
  CHECK(e["data"]["anchor"] == a2);
  CHECK(std::string(e["message"]).find("changed or removed since this connection read it") !=
        std::string::npos);
  CHECK(std::string(e["data"]["region"]).find("|    y = 2\n") != std::string::npos);
  CHECK(root.read("a.py") == now);
}

TEST_CASE("anchors: a line changed in place under the same tag is stale, never overwritten") {
  const auto [before, after] = colliding("TIMEOUT = ");
  REQUIRE(editd::hashline::tag(before) == editd::hashline::tag(after));
  TempDir root;
  root.write("conf.py", "# settings\n" + before + "\nRETRIES = 3\n");
  auto p = spawn_editd(root);
  const std::string v = view(p, "conf.py");
  const std::string a2 = anchor_in(v, 2), a3 = anchor_in(v, 3);
  // With the same tag: the lost update of the issue.
  const std::string now = "# settings\n" + after + "\nRETRIES = 3\n";
  root.write("conf.py", now);
  json e = p.fails(
      "edit_lines",
      {{"path", "conf.py"}, {"edits", {replace(a3, "RETRIES = 4"), replace(a2, "TIMEOUT = 1")}}});
  CHECK(e["data"]["kind"] == "stale");
  CHECK(e["data"]["edit"] == 1);
  CHECK(root.read("conf.py") == now);  // atomic: the good edit did not land either
  // Without a collision: the same.
  root.write("conf.py", "# settings\nTIMEOUT = other\nRETRIES = 3\n");
  CHECK(p.fails("edit_lines",
                {{"path", "conf.py"}, {"edits", {replace(a2, "TIMEOUT = 1")}}})["data"]["kind"] ==
        "stale");
  // The untouched line still takes its edit.
  p.ok("edit_lines", {{"path", "conf.py"}, {"edits", {replace(a3, "RETRIES = 4")}}});
  CHECK(root.read("conf.py") == "# settings\nTIMEOUT = other\nRETRIES = 4\n");
}

TEST_CASE("anchors: lines that moved are found by the diff from the view, however far") {
  TempDir root;
  root.write("a.txt", numbered(1, 40));
  auto p = spawn_editd(root);
  const std::string v = view(p, "a.txt");
  // Twenty lines inserted above: line 10 is now line 30.
  root.write("a.txt", numbered(101, 120) + numbered(1, 40));
  json r = p.ok("edit_lines", {{"path", "a.txt"}, {"edits", {replace(anchor_in(v, 10), "TEN")}}});
  CHECK(r["rebased"] == json::array({{{"anchor", anchor_in(v, 10)}, {"line", 30}}}));
  CHECK(root.read("a.txt") == numbered(101, 120) + numbered(1, 9) + "TEN\n" + numbered(11, 40));
  // A block (lines 3-8) moved to the end: the lines it passed map up; its own lines
  // are what the diff removed here and added there, so they are stale.
  const std::string moved = numbered(101, 120) + numbered(1, 2) + numbered(9, 9) + "TEN\n" +
                            numbered(11, 40) + numbered(3, 8);
  root.write("a.txt", moved);
  json up =
      p.ok("edit_lines",
           {{"path", "a.txt"}, {"edits", {{{"insertAfter", anchor_in(v, 20)}, {"newText", "X"}}}}});
  CHECK(up["rebased"][0]["line"] == 34);
  CHECK(root.read("a.txt").find("line 20\nX\nline 21\n") != std::string::npos);
  CHECK(p.fails("edit_lines",
                {{"path", "a.txt"}, {"edits", {replace(anchor_in(v, 5), "Y")}}})["data"]["kind"] ==
        "stale");
}

TEST_CASE("anchors: without a remembered view an anchor is used only where it stands") {
  TempDir root;
  root.write("a.txt", numbered(1, 30));
  root.write("b.txt", numbered(1, 30));
  // A budget that holds one view of 30 lines, not two.
  auto p = spawn_editd(root, {"--view-memory", "1200"});
  const std::string v = view(p, "a.txt");
  root.write("a.txt", "top\n" + numbered(1, 30));
  // Remembered: the anchor maps down one line.
  CHECK(p.ok("edit_lines", {{"path", "a.txt"},
                            {"dryRun", true},
                            {"edits", {replace(anchor_in(v, 10), "TEN")}}})["rebased"][0]["line"] ==
        11);
  // Reading b.txt evicts a.txt's view (least recently used goes first).
  view(p, "b.txt");
  json e =
      p.fails("edit_lines", {{"path", "a.txt"}, {"edits", {replace(anchor_in(v, 10), "TEN")}}});
  CHECK(e["data"]["kind"] == "stale");
  CHECK(std::string(e["message"]).find("remembers no view") != std::string::npos);
  CHECK(std::string(e["message"]).find("read_text again") != std::string::npos);
  CHECK(std::string(e["data"]["region"]).find("|line 9\n") != std::string::npos);
  CHECK(root.read("a.txt") == "top\n" + numbered(1, 30));
  // An anchor that still stands with its tag is used.
  root.write("a.txt", numbered(1, 30));
  p.ok("edit_lines", {{"path", "a.txt"}, {"edits", {replace(anchor_in(v, 1), "ONE")}}});
  CHECK(root.read("a.txt") == "ONE\n" + numbered(2, 30));
  // A new process remembers nothing either.
  root.write("a.txt", "top\n" + numbered(1, 30));
  auto fresh = spawn_editd(root);
  CHECK(fresh.fails("edit_lines", {{"path", "a.txt"},
                                   {"edits", {replace(anchor_in(v, 20), "X")}}})["data"]["kind"] ==
        "stale");
}

TEST_CASE("anchors: two connections that read different versions each map from their own") {
  const auto [before, after] = colliding("limit = ");
  TempDir root, run_dir;
  const std::string socket = (run_dir.path() / "editd.sock").string();
  Process server(EDITD_BINARY, {"--root", root.str(), "--listen", "unix:" + socket});
  REQUIRE(wait_for_path(socket));
  root.write("a.txt", "x\n" + before + "\ny\n");
  auto a = SocketClient::unix_socket(socket);
  auto b = SocketClient::unix_socket(socket);
  REQUIRE(a);
  REQUIRE(b);
  auto read = [](SocketClient& c) {
    auto r = c.call("read_text", {{"path", "a.txt"}, {"format", "hashline"}});
    REQUIRE(r);
    return (*r)["result"]["content"].get<std::string>();
  };
  const std::string va = read(*a);
  // B changes line 2 in place (same tag) and reads the new version.
  auto w = b->call("edit_lines",
                   {{"path", "a.txt"}, {"edits", {replace(anchor_in(read(*b), 2), after)}}});
  REQUIRE(w);
  REQUIRE((*w).contains("result"));
  const std::string vb = read(*b);
  CHECK(anchor_in(va, 2) == anchor_in(vb, 2));
  // B's read does not vouch for A's anchor: A read the old line.
  auto e = a->call("edit_lines", {{"path", "a.txt"}, {"edits", {replace(anchor_in(va, 2), "A")}}});
  REQUIRE(e);
  CHECK((*e)["error"]["data"]["kind"] == "stale");
  CHECK(root.read("a.txt") == "x\n" + after + "\ny\n");
  // Lines above move; each connection's anchors map from its own view.
  root.write("a.txt", "new\nx\n" + after + "\ny\n");
  auto ok = b->call("edit_lines", {{"path", "a.txt"}, {"edits", {replace(anchor_in(vb, 2), "B")}}});
  REQUIRE(ok);
  CHECK((*ok)["result"]["rebased"][0]["line"] == 3);
  auto ya = a->call("edit_lines", {{"path", "a.txt"}, {"edits", {replace(anchor_in(va, 3), "Y")}}});
  REQUIRE(ya);
  CHECK((*ya)["result"]["rebased"][0]["line"] == 4);
  CHECK(root.read("a.txt") == "new\nx\nB\nY\n");
}

TEST_CASE("anchors: CRLF and BOM files map by their lines and keep their bytes") {
  TempDir root;
  const std::string bom = "\xEF\xBB\xBF";
  root.write("w.txt", bom + "a\r\nb\r\nc\r\nd\r\n");
  auto p = spawn_editd(root);
  const std::string v = view(p, "w.txt");
  const std::string top = "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n";
  root.write("w.txt", bom + top + "a\r\nB\r\nc\r\nd\r\n");
  json r =
      p.ok("edit_lines", {{"path", "w.txt"}, {"edits", {replace(anchor_in(v, 3), "C1\nC2\n")}}});
  CHECK(r["rebased"][0]["line"] == 10);
  CHECK(root.read("w.txt") == bom + top + "a\r\nB\r\nC1\r\nC2\r\nd\r\n");
  CHECK(p.fails("edit_lines",
                {{"path", "w.txt"}, {"edits", {replace(anchor_in(v, 2), "x")}}})["data"]["kind"] ==
        "stale");
  // The first line, under a BOM, maps like any other.
  root.write("w.txt", bom + "\r\n" + "a\r\nb\r\n");
  json first = p.ok("edit_lines", {{"path", "w.txt"}, {"edits", {replace(anchor_in(v, 1), "A")}}});
  CHECK(first["rebased"][0]["line"] == 2);
  CHECK(root.read("w.txt") == bom + "\r\nA\r\nb\r\n");
}

TEST_CASE("anchors: two slices read around another client's insert each map from their own read") {
  // The shape of issue 43: read lines 1-10, another client inserts a line at
  // the top, read lines 50-59, then one edit_lines with an anchor from each.
  TempDir root;
  const std::string before = nested();
  root.write("m.rs", before);
  auto p = spawn_editd(root);
  auto other = spawn_editd(root);
  const std::string head = slice(p, "m.rs", 1, 10);
  const std::string outer = anchor_of(head, 6);  // "    }"
  REQUIRE(head.find(outer + "|    }\n") != std::string::npos);
  const std::string top = slice(other, "m.rs", 1, 1);
  other.ok("edit_lines", {{"path", "m.rs"},
                          {"edits", {{{"insertBefore", anchor_of(top, 1)}, {"newText", "// hi"}}}}});
  const std::string tail = slice(p, "m.rs", 50, 59);
  // Line 6 is now the inner "        }", under the same tag as the outer one read.
  REQUIRE(anchor_of(slice(other, "m.rs", 6, 6), 6) == outer);
  const std::string step = anchor_of(tail, 55);
  REQUIRE(tail.find(step + "|    step(54);\n") != std::string::npos);
  json r = p.ok("edit_lines", {{"path", "m.rs"},
                               {"edits",
                                {replace(outer, "    } // end if a"),
                                 replace(step, "    step(540);")}}});
  CHECK(r["rebased"] == json::array({{{"anchor", outer}, {"line", 7}}}));
  std::string expect = "// hi\n" + before;
  expect.replace(expect.find("    }\n    step(7)"), 5, "    } // end if a");
  expect.replace(expect.find("step(54);"), 9, "step(540);");
  CHECK(root.read("m.rs") == expect);
  CHECK(root.read("m.rs").find("        }\n    } // end if a\n") != std::string::npos);
}

TEST_CASE("anchors: an older slice's anchor maps from its read even with expectedFingerprint") {
  TempDir root;
  const std::string before = nested();
  root.write("m.rs", before);
  auto p = spawn_editd(root);
  const std::string outer = anchor_of(slice(p, "m.rs", 1, 10), 6);
  root.write("m.rs", "// hi\n" + before);
  // The model sends the fingerprint of its latest read, a slice that does not show line 6.
  const std::string fp =
      p.ok("read_text", {{"path", "m.rs"}, {"format", "hashline"}, {"line", 50}, {"limit", 10}})
          ["fingerprint"];
  json r = p.ok("edit_lines", {{"path", "m.rs"},
                               {"expectedFingerprint", fp},
                               {"edits", {replace(outer, "    } // end if a")}}});
  CHECK(r["rebased"] == json::array({{{"anchor", outer}, {"line", 7}}}));
  CHECK(root.read("m.rs").find("        }\n    } // end if a\n") != std::string::npos);
}

TEST_CASE("anchors: a slice's forgotten read makes its anchor stale while another read is kept") {
  TempDir root;
  const std::string before = nested();
  root.write("m.rs", before);
  // A budget for one view of this file (61 lines), not two.
  auto p = spawn_editd(root, {"--view-memory", "1400"});
  const std::string outer = anchor_of(slice(p, "m.rs", 1, 10), 6);
  root.write("m.rs", "// hi\n" + before);
  const std::string tail = slice(p, "m.rs", 50, 59);  // forgets the first read's view
  json e = p.fails("edit_lines", {{"path", "m.rs"},
                                  {"edits",
                                   {replace(outer, "    } // end if a"),
                                    replace(anchor_of(tail, 55), "    step(540);")}}});
  CHECK(e["data"]["kind"] == "stale");
  CHECK(e["data"]["anchor"] == outer);
  CHECK(std::string(e["message"]).find("no read of this file") != std::string::npos);
  CHECK(root.read("m.rs") == "// hi\n" + before);
  // The kept read's anchor alone still lands.
  p.ok("edit_lines", {{"path", "m.rs"}, {"edits", {replace(anchor_of(tail, 55), "    step(540);")}}});
  CHECK(root.read("m.rs").find("step(540);") != std::string::npos);
}

TEST_CASE("anchors: a replace from one slice's line to another version's slice is stale") {
  TempDir root;
  const std::string before = nested();
  root.write("m.rs", before);
  auto p = spawn_editd(root);
  const std::string from = anchor_of(slice(p, "m.rs", 1, 10), 6);
  root.write("m.rs", "// hi\n" + before);
  const std::string to = anchor_of(slice(p, "m.rs", 50, 59), 52);
  json e = p.fails("edit_lines", {{"path", "m.rs"},
                                  {"edits", {{{"replace", {{"start", from}, {"end", to}}},
                                              {"newText", "gone"}}}}});
  CHECK(e["data"]["kind"] == "stale");
  CHECK(std::string(e["message"]).find("not shown together by one read") != std::string::npos);
  CHECK(root.read("m.rs") == "// hi\n" + before);
}
