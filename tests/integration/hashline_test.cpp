// Hashline anchors through the real binary: read_text's anchored view and
// edit_lines, with rebases, stale anchors and byte fidelity (anchors_test.cpp:
// the mapping by the view that was read).
#include <doctest/doctest.h>

#include "helpers/process.h"

using namespace editd::test;

namespace {

// The anchor ("12~ab") of 1-based `line` as the hashline view shows it now.
std::string anchor(Process& p, const std::string& path, int line) {
  json r =
      p.ok("read_text", {{"path", path}, {"line", line}, {"limit", 1}, {"format", "hashline"}});
  std::string c = r["content"];
  return c.substr(0, c.find('|'));
}

json replace(const std::string& start, const std::string& text) {
  return {{"replace", {{"start", start}}}, {"newText", text}};
}
json replace(const std::string& start, const std::string& end, const std::string& text) {
  return {{"replace", {{"start", start}, {"end", end}}}, {"newText", text}};
}

std::string lines(int from, int to) {
  std::string s;
  for (int i = from; i <= to; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

}  // namespace

TEST_CASE("read_text with format hashline shows LINE~TAG|text and says so") {
  TempDir root;
  root.write("a.txt", "\xEF\xBB\xBFone\r\n  two\r\n\r\nfour");
  auto p = spawn_editd(root);
  json r = p.ok("read_text", {{"path", "a.txt"}, {"format", "hashline"}});
  CHECK(r["format"] == "hashline");
  const std::string c = r["content"];
  // No BOM, no CR: the view shows lines; the last line has no break, as in the file.
  CHECK(c.find('\r') == std::string::npos);
  CHECK(c.rfind("1~", 0) == 0);
  CHECK(c.find("|one\n2~") != std::string::npos);
  CHECK(c.find("|  two\n3~") != std::string::npos);
  CHECK(c.ends_with("|four"));
  CHECK(r["totalLines"] == 4);
  // Whitespace does not change a tag: "  two" and "two" carry the same one.
  root.write("b.txt", "two\n");
  std::string b = p.ok("read_text", {{"path", "b.txt"}, {"format", "hashline"}})["content"];
  std::string a2 = anchor(p, "a.txt", 2);
  CHECK(b.substr(b.find('~'), 3) == a2.substr(a2.find('~')));
  // A slice numbers from its first line; the plain format has no `format` member.
  json slice =
      p.ok("read_text", {{"path", "a.txt"}, {"line", 3}, {"limit", 1}, {"format", "hashline"}});
  CHECK(std::string(slice["content"]).rfind("3~", 0) == 0);
  CHECK_FALSE(p.ok("read_text", {{"path", "a.txt"}})["format"].is_string());
  CHECK(p.ok("read_text", {{"path", "a.txt"}, {"format", "plain"}})["content"] ==
        "one\r\n  two\r\n\r\nfour");
  json e = p.fails("read_text", {{"path", "a.txt"}, {"format", "numbered"}});
  CHECK(e["data"]["kind"] == "invalid_params");
  CHECK(e["data"]["param"] == "format");
}

TEST_CASE("the same line has the same tag in another process") {
  TempDir root;
  root.write("a.txt", "int main() {\n  return 0;\n}\n");
  std::string first, second;
  {
    auto p = spawn_editd(root);
    first = p.ok("read_text", {{"path", "a.txt"}, {"format", "hashline"}})["content"];
  }
  {
    auto p = spawn_editd(root);
    second = p.ok("read_text", {{"path", "a.txt"}, {"format", "hashline"}})["content"];
  }
  CHECK(first == second);
  // The derivation is documented: a blank line's tag is fixed.
  root.write("blank.txt", "\n");
  auto p = spawn_editd(root);
  CHECK(p.ok("read_text", {{"path", "blank.txt"}, {"format", "hashline"}})["content"] == "1~da|\n");
}

TEST_CASE("edit_lines replaces, inserts and deletes by anchor, all against one snapshot") {
  TempDir root;
  root.write("a.py", "def f():\n    a = 1\n    b = 2\n    return a + b\n");
  auto p = spawn_editd(root);
  const std::string l1 = anchor(p, "a.py", 1), l2 = anchor(p, "a.py", 2), l3 = anchor(p, "a.py", 3),
                    l4 = anchor(p, "a.py", 4);
  json r = p.ok("edit_lines", {{"path", "a.py"},
                               {"edits",
                                {replace(l2, l3, "    a, b = 1, 2\n"),
                                 {{"insertBefore", l1}, {"newText", "# doc"}},
                                 {{"insertAfter", l4}, {"newText", "\nprint(f())\n"}}}}});
  CHECK(root.read("a.py") == "# doc\ndef f():\n    a, b = 1, 2\n    return a + b\n\nprint(f())\n");
  CHECK(r["rebased"] == json::array());
  CHECK(r["lines"] == json::parse(R"([{"startLine":3,"endLine":3},{"startLine":1,"endLine":1},
                                       {"startLine":5,"endLine":6}])"));
  CHECK(r["added"] == 4);
  CHECK(r["removed"] == 2);
  CHECK(r["fingerprint"] == p.ok("fingerprint", {{"path", "a.py"}})["fingerprint"]);
  // An empty newText deletes.
  const std::string blank = anchor(p, "a.py", 5);
  p.ok("edit_lines", {{"path", "a.py"}, {"edits", {replace(blank, "")}}});
  CHECK(root.read("a.py") == "# doc\ndef f():\n    a, b = 1, 2\n    return a + b\nprint(f())\n");
}

TEST_CASE("an anchor rebases down and up when lines moved, and the result says where") {
  TempDir root;
  root.write("a.txt", lines(1, 20));
  auto p = spawn_editd(root);
  const std::string a10 = anchor(p, "a.txt", 10), a12 = anchor(p, "a.txt", 12);
  // Someone adds three lines at the top: line 10 is now line 13.
  root.write("a.txt", "x\ny\nz\n" + lines(1, 20));
  json r = p.ok("edit_lines", {{"path", "a.txt"}, {"edits", {replace(a10, "TEN")}}});
  CHECK(r["rebased"] == json::array({{{"anchor", a10}, {"line", 13}}}));
  CHECK(root.read("a.txt") == "x\ny\nz\n" + lines(1, 9) + "TEN\n" + lines(11, 20));
  // Someone removes five lines at the top: line 12 is now line 10 (was 15 after the insert).
  root.write("a.txt", lines(3, 20));
  json up = p.ok("edit_lines",
                 {{"path", "a.txt"}, {"edits", {{{"insertAfter", a12}, {"newText", "after 12"}}}}});
  CHECK(up["rebased"][0]["line"] == 10);
  CHECK(root.read("a.txt") == lines(3, 12) + "after 12\n" + lines(13, 20));
  // A replace whose start and end moved together rebases as a whole.
  const std::string s = anchor(p, "a.txt", 2), e = anchor(p, "a.txt", 4);
  root.write("a.txt", "new\n" + root.read("a.txt"));
  json both = p.ok("edit_lines", {{"path", "a.txt"}, {"edits", {replace(s, e, "R\n")}}});
  CHECK(both["rebased"].size() == 2);
  CHECK(root.read("a.txt") ==
        "new\nline 3\nR\nline 7\n" + lines(8, 12) + "after 12\n" + lines(13, 20));
}

TEST_CASE("a stale anchor fails the whole call with the region to retry from") {
  TempDir root;
  root.write("a.txt", lines(1, 30));
  auto p = spawn_editd(root);
  const std::string a1 = anchor(p, "a.txt", 1), a15 = anchor(p, "a.txt", 15);
  // Line 15 is rewritten: its tag is gone from the window.
  std::string now = lines(1, 14) + "fifteen\n" + lines(16, 30);
  root.write("a.txt", now);
  json e = p.fails("edit_lines",
                   {{"path", "a.txt"},
                    {"edits", {{{"insertAfter", a1}, {"newText", "ok"}}, replace(a15, "X")}}});
  CHECK(e["code"] == -32011);
  CHECK(e["data"]["kind"] == "stale");
  CHECK(e["data"]["edit"] == 1);
  CHECK(e["data"]["anchor"] == a15);
  CHECK(e["data"]["path"] == "a.txt");
  const std::string region = e["data"]["region"];
  CHECK(region.rfind(anchor(p, "a.txt", 10) + "|line 10\n", 0) == 0);
  CHECK(region.find(anchor(p, "a.txt", 15) + "|fifteen\n") != std::string::npos);
  CHECK(region.ends_with(anchor(p, "a.txt", 20) + "|line 20\n"));
  CHECK(root.read("a.txt") == now);  // the first edit did not land either
  // Retrying with an anchor from the region works in one step.
  std::string fresh = region.substr(region.find("15~"), 5);
  p.ok("edit_lines", {{"path", "a.txt"}, {"edits", {replace(fresh, "X")}}});
  CHECK(root.read("a.txt") == lines(1, 14) + "X\n" + lines(16, 30));
  // Moved six lines away: no window limits it, the view read maps it.
  const std::string a20 = anchor(p, "a.txt", 20);
  root.write("a.txt", "1\n2\n3\n4\n5\n6\n" + root.read("a.txt"));
  CHECK(p.ok("edit_lines",
             {{"path", "a.txt"}, {"edits", {replace(a20, "Y")}}})["rebased"][0]["line"] == 26);
}

TEST_CASE("anchors on duplicate lines: exact on their own line, mapped by the view when moved") {
  TempDir root;
  const std::string f = "if (a) {\n  x();\n}\nif (b) {\n  y();\n}\n";
  root.write("a.c", f);
  auto p = spawn_editd(root);
  const std::string close3 = anchor(p, "a.c", 3), close6 = anchor(p, "a.c", 6);
  CHECK(close3.substr(close3.find('~')) == close6.substr(close6.find('~')));
  // Each copy is its own line: the second "}" is edited, not the first.
  p.ok("edit_lines", {{"path", "a.c"}, {"edits", {replace(close6, "} // b")}}});
  CHECK(root.read("a.c") == "if (a) {\n  x();\n}\nif (b) {\n  y();\n} // b\n");
  // The file moves down one line: the view read maps line 3 to line 4.
  root.write("a.c", "// top\n" + root.read("a.c"));
  json r = p.ok("edit_lines", {{"path", "a.c"}, {"edits", {replace(close3, "} // a")}}});
  CHECK(r["rebased"][0]["line"] == 4);
  // An anchor typed by hand that no view read showed: used where it stands or stale, with
  // two plain "}" lines around a changed line 4 and no guess between them.
  root.write("a.c", "{\n}\nx\nchanged\ny\n}\n");
  const std::string brace_at_4 = "4" + close6.substr(close6.find('~'));
  json e = p.fails("edit_lines", {{"path", "a.c"}, {"edits", {replace(brace_at_4, "z")}}});
  CHECK(e["data"]["kind"] == "stale");
  CHECK_FALSE(e["data"].contains("candidates"));
  CHECK(root.read("a.c") == "{\n}\nx\nchanged\ny\n}\n");
}

TEST_CASE("edit_lines keeps line endings, the BOM and the final-newline state") {
  TempDir root;
  root.write("crlf.txt",
             "\xEF\xBB\xBF"
             "a\r\nb\r\nc\r\n");
  root.write("nofinal.txt", "a\nb");
  root.write("mixed.txt", "a\r\nb\nc\r\n");
  auto p = spawn_editd(root);
  p.ok("edit_lines", {{"path", "crlf.txt"},
                      {"edits",
                       {replace(anchor(p, "crlf.txt", 2), "B1\nB2\n"),
                        {{"insertAfter", anchor(p, "crlf.txt", 3)}, {"newText", "d"}}}}});
  CHECK(root.read("crlf.txt") ==
        "\xEF\xBB\xBF"
        "a\r\nB1\r\nB2\r\nc\r\nd\r\n");
  p.ok("edit_lines",
       {{"path", "nofinal.txt"},
        {"edits", {{{"insertAfter", anchor(p, "nofinal.txt", 2)}, {"newText", "c\n"}}}}});
  CHECK(root.read("nofinal.txt") == "a\nb\nc");
  p.ok("edit_lines",
       {{"path", "nofinal.txt"}, {"edits", {replace(anchor(p, "nofinal.txt", 3), "C")}}});
  CHECK(root.read("nofinal.txt") == "a\nb\nC");
  // Bytes outside the edit are copied: line 1 keeps its CRLF, line 3 its CRLF.
  p.ok("edit_lines", {{"path", "mixed.txt"}, {"edits", {replace(anchor(p, "mixed.txt", 2), "B")}}});
  CHECK(root.read("mixed.txt") == "a\r\nB\nc\r\n");
}

TEST_CASE("edit_lines whose new text is the lines' own answers no_change and writes nothing") {
  TempDir root;
  root.write("a.txt", "a\r\nb\r\nc\r\n");
  auto p = spawn_editd(root);
  const std::string fp = p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"];
  // The same text, and the same text with LF where the file has CRLF: byte
  // fidelity keeps the CRLF, so neither changes a byte.
  for (const std::string& text : {std::string("b\r\n"), std::string("b\n"), std::string("b")}) {
    json e = p.fails("edit_lines",
                     {{"path", "a.txt"}, {"edits", {replace(anchor(p, "a.txt", 2), text)}}});
    CHECK(e["data"]["kind"] == "no_change");
    CHECK(e["data"]["path"] == "a.txt");
    CHECK(std::string(e["message"]).find("set_format") != std::string::npos);
  }
  // Two edits, one of them a real change: a success.
  json r = p.ok(
      "edit_lines",
      {{"path", "a.txt"},
       {"edits", {replace(anchor(p, "a.txt", 1), "a\n"), replace(anchor(p, "a.txt", 3), "C\n")}}});
  CHECK(r.contains("undoId"));
  CHECK(root.read("a.txt") == "a\r\nb\r\nC\r\n");
  CHECK(p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"] != fp);
}

TEST_CASE("a hashline view larger than --max-file-bytes is too_large; a slice of it is served") {
  TempDir root;
  // 30,000 empty lines: 30,000 bytes, whose view is about nine bytes a line.
  root.write("blank.txt", std::string(30000, '\n'));
  auto p = spawn_editd(root, {"--max-file-bytes", "100000"});
  CHECK(p.ok("read_text", {{"path", "blank.txt"}})["content"] == std::string(30000, '\n'));
  json e = p.fails("read_text", {{"path", "blank.txt"}, {"format", "hashline"}});
  CHECK(e["data"]["kind"] == "too_large");
  CHECK(e["data"]["limit"] == 100000);
  CHECK(e["data"]["size"].get<std::uint64_t>() > 100000);
  CHECK(std::string(e["message"]).find("limit") != std::string::npos);
  json slice =
      p.ok("read_text",
           {{"path", "blank.txt"}, {"line", 29000}, {"limit", 1001}, {"format", "hashline"}});
  const std::string c = slice["content"];
  CHECK(c.rfind("29000~da|\n", 0) == 0);
  CHECK(c.ends_with("30000~da|\n"));
  CHECK(std::count(c.begin(), c.end(), '\n') == 1001);
}

TEST_CASE("edit_lines refuses bad anchors, overlaps and bad shapes, naming the edit") {
  TempDir root;
  root.write("a.txt", lines(1, 6));
  auto p = spawn_editd(root);
  const std::string a2 = anchor(p, "a.txt", 2), a3 = anchor(p, "a.txt", 3),
                    a4 = anchor(p, "a.txt", 4);
  auto kind_and_edit = [&](json edits) {
    json e = p.fails("edit_lines", {{"path", "a.txt"}, {"edits", std::move(edits)}});
    CHECK(e["data"]["param"] == "edits");
    return std::make_pair(e["data"]["kind"].get<std::string>(), e["data"].value("edit", json()));
  };
  CHECK(kind_and_edit({replace(a2, "x"), replace("2:ab", "y")}) ==
        std::make_pair(std::string("invalid_params"), json(1)));
  CHECK(kind_and_edit({replace(a2, "x"), {{"insertAfter", "0~ab"}, {"newText", "y"}}}).second == 1);
  CHECK(kind_and_edit({{{"insertAfter", a2}, {"replace", {{"start", a2}}}, {"newText", "y"}}})
            .second == 0);
  CHECK(kind_and_edit({{{"insertAfter", a2}}}).second == 0);
  CHECK(kind_and_edit({{{"replace", {{"start", a2}}}, {"newText", 3}}}).second == 0);
  CHECK(kind_and_edit({replace(a4, a2, "x")}).second == 0);
  CHECK(kind_and_edit({{{"insertBefore", a2}, {"newText", ""}}}).second == 0);
  CHECK(kind_and_edit(json::array()).first == "invalid_params");
  CHECK(kind_and_edit("not an array").first == "invalid_params");
  json overlap = p.fails("edit_lines",
                         {{"path", "a.txt"}, {"edits", {replace(a2, a4, "x"), replace(a3, "y")}}});
  CHECK(overlap["data"]["kind"] == "invalid_params");
  CHECK(overlap["data"]["edits"] == json::array({0, 1}));
  json nul =
      p.fails("edit_lines", {{"path", "a.txt"}, {"edits", {replace(a2, std::string("a\0b", 3))}}});
  CHECK(nul["data"]["kind"] == "not_text");
  CHECK(root.read("a.txt") == lines(1, 6));
  CHECK(p.fails("edit_lines", {{"path", "missing.txt"},
                               {"edits", {replace(a2, "x")}}})["data"]["kind"] == "not_found");
}

TEST_CASE("edit_lines honours dryRun and expectedFingerprint") {
  TempDir root;
  root.write("a.txt", "a\nb\n");
  auto p = spawn_editd(root);
  const std::string fp = p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"];
  json dry =
      p.ok("edit_lines",
           {{"path", "a.txt"}, {"dryRun", true}, {"edits", {replace(anchor(p, "a.txt", 2), "B")}}});
  CHECK(dry["diff"] == "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n");
  CHECK(root.read("a.txt") == "a\nb\n");
  json e = p.fails("edit_lines", {{"path", "a.txt"},
                                  {"expectedFingerprint", "xxh3:0000000000000000"},
                                  {"edits", {replace(anchor(p, "a.txt", 2), "B")}}});
  CHECK(e["data"]["kind"] == "conflict");
  json ok = p.ok("edit_lines", {{"path", "a.txt"},
                                {"expectedFingerprint", fp},
                                {"edits", {replace(anchor(p, "a.txt", 2), "B")}}});
  CHECK(ok["fingerprint"] == dry["fingerprint"]);
  CHECK(root.read("a.txt") == "a\nB\n");
}
