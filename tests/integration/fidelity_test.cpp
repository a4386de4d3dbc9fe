// Byte fidelity through the real binary: the regressions of the byte-splice
// edit core (docs/protocol.md, "Byte fidelity"), one per measured finding.
#include <doctest/doctest.h>

#include "helpers/process.h"

using namespace editd::test;

TEST_CASE("replacing one character of a mixed-ending file changes that byte only") {
  TempDir root;
  root.write("f.txt", "a\r\nb\r\nc\nd\r\ne\r\n");
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "f.txt"}, {"oldText", "c"}, {"newText", "C"}});
  CHECK(root.read("f.txt") == "a\r\nb\r\nC\nd\r\ne\r\n");
  CHECK(r["diff"] == "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@\n a\r\n b\r\n-c\n+C\n d\r\n e\r\n");
}

TEST_CASE("removing a line keeps the ending of the line that survives") {
  TempDir root;
  root.write("f.txt", "a\r\n}\n}\r\nb\r\n");
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "f.txt"}, {"oldText", "a\n}\n"}, {"newText", "a\n"}});
  CHECK(root.read("f.txt") == "a\r\n}\r\nb\r\n");
  CHECK(r["diff"] == "--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,3 @@\n a\r\n-}\n }\r\n b\r\n");
  CHECK(r["removed"] == 1);
  CHECK(r["added"] == 0);
}

TEST_CASE("replaceAll over LF lines of a big CRLF file keeps every line's own ending") {
  TempDir root;
  std::string before, after;
  for (int i = 0; i < 100000; ++i) {
    const bool hit = i % 10 == 0;
    before += hit ? "hit " + std::to_string(i) + "\n" : "line " + std::to_string(i) + "\r\n";
    after += hit ? "HIT " + std::to_string(i) + "\n" : "line " + std::to_string(i) + "\r\n";
  }
  root.write("big.txt", before);
  auto p = spawn_editd(root);
  json r = p.ok("str_replace",
                {{"path", "big.txt"}, {"oldText", "hit"}, {"newText", "HIT"}, {"replaceAll", true}});
  CHECK(r["replacements"] == 10000);
  CHECK(r["added"] == 10000);
  CHECK(r["removed"] == 10000);
  CHECK(root.read("big.txt") == after);
}

TEST_CASE("a unified diff that adds a CRLF file writes a CRLF file") {
  TempDir root;
  auto p = spawn_editd(root);
  p.ok("apply_patch", {{"patch", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n"}});
  CHECK(root.read("new.txt") == "a\r\nb\r\n");
}

TEST_CASE("a CRLF patch of a CRLF file applies and keeps the file CRLF") {
  TempDir root;
  root.write("w.txt", "one\r\ntwo\r\nthree\r\n");
  auto p = spawn_editd(root);
  p.ok("apply_patch",
       {{"patch", "--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,3 +1,3 @@\r\n one\r\n-two\r\n+TWO\r\n three\r\n"}});
  CHECK(root.read("w.txt") == "one\r\nTWO\r\nthree\r\n");
}

TEST_CASE("inserting a line next to an identical one moves neither line's ending") {
  TempDir root;
  root.write("f.txt", "L1\r\n\n");
  auto p = spawn_editd(root);
  p.ok("insert", {{"path", "f.txt"}, {"line", 0}, {"text", "L1"}});
  CHECK(root.read("f.txt") == "L1\nL1\r\n\n");
}

TEST_CASE("write_text's line endings do not depend on the size of the file") {
  for (int n : {10, 100000}) {
    CAPTURE(n);
    TempDir root;
    std::string file = "first\r\nodd\n", content = "first\n";
    for (int i = 0; i < n; ++i) file += "line " + std::to_string(i) + "\r\n";
    for (int i = 0; i < n; ++i) content += "line " + std::to_string(n - 1 - i) + "\n";
    file += "last\r\n";
    content += "odd\nlast\n";
    root.write("f.txt", file);
    auto p = spawn_editd(root);
    p.ok("write_text", {{"path", "f.txt"}, {"content", content}});
    std::string out = root.read("f.txt");
    CHECK(out.ends_with("line 0\r\nodd\nlast\r\n"));
    CHECK(out.starts_with("first\r\nline " + std::to_string(n - 1) + "\r\n"));
  }
}

TEST_CASE("an edit of a big file returns a diff of the changed window only") {
  TempDir root;
  std::string file;
  for (int i = 1; i <= 200000; ++i) file += "row " + std::to_string(i) + "\n";
  root.write("f.txt", file);
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "f.txt"}, {"oldText", "row 150000\n"}, {"newText", "ROW\n"}});
  CHECK(r["diff"] ==
        "--- a/f.txt\n+++ b/f.txt\n@@ -149997,7 +149997,7 @@\n row 149997\n row 149998\n"
        " row 149999\n-row 150000\n+ROW\n row 150001\n row 150002\n row 150003\n");
  CHECK(r["lines"] == json::array({{{"startLine", 150000}, {"endLine", 150000}}}));
}

TEST_CASE("removing the final line break leaves a CR that is content in an LF file") {
  TempDir root;
  root.write("lf.txt", "a\nb");
  root.write("lf2.txt", "a\nb");
  root.write("crlf.txt", "a\r\nb");
  auto p = spawn_editd(root);
  // newText "c\r\r\n": a CR, then a line break; the file has no final newline.
  p.ok("str_replace", {{"path", "lf.txt"}, {"oldText", "b"}, {"newText", "c\r\r\n"}});
  CHECK(root.read("lf.txt") == "a\nc\r");
  p.ok("insert", {{"path", "lf2.txt"}, {"line", 2}, {"text", "x\r\r\n"}});
  CHECK(root.read("lf2.txt") == "a\nb\nx\r");
  p.ok("str_replace", {{"path", "crlf.txt"}, {"oldText", "b"}, {"newText", "c\r\r\n"}});
  CHECK(root.read("crlf.txt") == "a\r\nc\r");
}

TEST_CASE(
    "write_text of what read_text returned leaves a file whose body starts with U+FEFF as it was") {
  TempDir root;
  const std::string bom = "\xEF\xBB\xBF";
  root.write("two.txt", bom + bom + "x\r\n\n");
  root.write("one.txt", bom + "x\n");
  auto p = spawn_editd(root);
  json two = p.ok("read_text", {{"path", "two.txt"}});
  CHECK(two["content"] == bom + "x\r\n\n");
  json r = p.ok("write_text", {{"path", "two.txt"}, {"content", two["content"]}});
  CHECK(root.read("two.txt") == bom + bom + "x\r\n\n");
  CHECK(r["added"] == 0);
  CHECK(r["removed"] == 0);
  // Where the body does not start with one, a U+FEFF starting the content is
  // the BOM copied, and is not doubled.
  p.ok("write_text", {{"path", "one.txt"}, {"content", bom + "y\n"}});
  CHECK(root.read("one.txt") == bom + "y\n");
}

TEST_CASE("text inserted into an empty file is whole lines") {
  TempDir root;
  root.write("empty.txt", "");
  root.write("bom.txt", "\xEF\xBB\xBF");
  auto p = spawn_editd(root);
  p.ok("insert", {{"path", "empty.txt"}, {"line", 0}, {"text", "x"}});
  CHECK(root.read("empty.txt") == "x\n");
  p.ok("insert", {{"path", "bom.txt"}, {"line", 0}, {"text", "x"}});
  CHECK(root.read("bom.txt") == "\xEF\xBB\xBFx\n");
}
