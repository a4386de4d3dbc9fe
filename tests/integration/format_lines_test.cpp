// Format-aware edits (--format), what the reply tells the model: the call's
// own diff apart from the formatter's, its lines mapped onto the bytes as
// written, anchors that edit_lines takes at once, and the ledger's record of
// the formatter's hunks. The formatter is sed: a deterministic one that
// rewrites every line it can (the real formatters are format_test.cpp's).
#include <doctest/doctest.h>

#include "helpers/process.h"

using namespace editd::test;

namespace {

// A formatter that spaces every '=' ("a=1" -> "a = 1") on every line, and
// splits lines at ';'.
std::vector<std::string> sed_format() {
  return {"--format", "*.txt=sed -e 's/;/\\n/g' -e 's/ *= */ = /g'"};
}

}  // namespace

TEST_CASE("--format: only the call's lines are formatted; its own diff and the formatter's apart") {
  TempDir root;
  root.write("a.txt", "a=1\nb=2\nc=3\n");
  auto p = spawn_editd(root, sed_format());
  json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "b=2"}, {"newText", "b=20"}});
  INFO(r.dump());
  CHECK(root.read("a.txt") == "a=1\nb = 20\nc=3\n");
  CHECK(r["formatStatus"] == "ok");
  CHECK_FALSE(r.contains("formatDetail"));
  // The call's own change, as without a formatter.
  CHECK(r["diff"].get<std::string>().find("+b=20\n") != std::string::npos);
  const json& f = r["formatted"];
  CHECK(f["diff"] == "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a=1\n-b=20\n+b = 20\n c=3\n");
  CHECK(f["lines"] == json::array({{{"startLine", 2}, {"endLine", 2}}}));
  CHECK(f["dropped"] == 2);  // a=1 and c=3, which the call did not write
  const std::string view = f["hashline"];
  REQUIRE(view.rfind("2~", 0) == 0);
  CHECK(view.substr(view.find('|')) == "|b = 20\n");
  // The fingerprint is the file's as written.
  CHECK(p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"] == r["fingerprint"]);

  // The reply's anchors are a view of the connection's: edit_lines takes them
  // with no read in between, and its text is formatted in turn.
  const std::string anchor = view.substr(0, view.find('|'));
  json e = p.ok("edit_lines", {{"path", "a.txt"},
                               {"edits", json::array({{{"replace", {{"start", anchor}}},
                                                       {"newText", "b=21\n"}}})}});
  INFO(e.dump());
  CHECK(root.read("a.txt") == "a=1\nb = 21\nc=3\n");
  CHECK(e["formatted"]["lines"] == json::array({{{"startLine", 2}, {"endLine", 2}}}));

  // format: false writes the text as sent, and says nothing of formatting.
  json plain = p.ok("str_replace",
                    {{"path", "a.txt"}, {"oldText", "c=3"}, {"newText", "c=30"}, {"format", false}});
  CHECK(root.read("a.txt") == "a=1\nb = 21\nc=30\n");
  CHECK_FALSE(plain.contains("formatStatus"));
  CHECK_FALSE(plain.contains("formatted"));

  // A file no --format covers: no fields.
  root.write("b.md", "x=1\n");
  json other = p.ok("str_replace", {{"path", "b.md"}, {"oldText", "x=1"}, {"newText", "x=2"}});
  CHECK_FALSE(other.contains("formatStatus"));
  CHECK(root.read("b.md") == "x=2\n");
}

TEST_CASE("--format: lines are those of the bytes as written; undo takes both back; dry run") {
  TempDir root;
  root.write("a.txt", "a=1\r\nb=2\r\n");
  auto p = spawn_editd(root, sed_format());
  // The formatter splits the inserted line in two: `lines` covers both.
  json r = p.ok("insert", {{"path", "a.txt"}, {"line", 1}, {"text", "x=1;y=2\n"}});
  INFO(r.dump());
  // Each line keeps its CRLF; the new line break takes the file's.
  CHECK(root.read("a.txt") == "a=1\r\nx = 1\r\ny = 2\r\nb=2\r\n");
  CHECK(r["lines"] == json::array({{{"startLine", 2}, {"endLine", 3}}}));
  CHECK(r["formatted"]["lines"] == json::array({{{"startLine", 2}, {"endLine", 3}}}));

  // The undo puts back the file as it was before the call.
  p.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(root.read("a.txt") == "a=1\r\nb=2\r\n");

  // A dry run shows the formatter's change and writes nothing.
  json dry = p.ok("insert", {{"path", "a.txt"}, {"line", 0}, {"text", "z=0\n"}, {"dryRun", true}});
  CHECK(dry["formatStatus"] == "ok");
  CHECK(dry["formatted"]["diff"].get<std::string>().find("+z = 0") != std::string::npos);
  CHECK(root.read("a.txt") == "a=1\r\nb=2\r\n");
}

TEST_CASE("--format: the ledger keeps the formatter's hunks under their own origin") {
  TempDir root;
  TempDir state;
  root.write("a.txt", "a=1\nb=2\n");
  auto p = spawn_editd(root, {"--format", sed_format()[1], "--state-dir", state.str()});
  json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "b=2"}, {"newText", "b=3"}});
  INFO(r.dump());
  json page = p.ok("changes", {{"path", "a.txt"}});
  INFO(page.dump());
  REQUIRE(page["changes"].size() == 1);
  const json& file = page["changes"][0]["files"][0];
  // The entry's hunks go from the file before to the file as written...
  REQUIRE(file["hunks"].size() == 1);
  CHECK(file["hunks"][0]["new"] == "b = 3\n");
  // ...and the formatter's, from the call's text to the file as written.
  REQUIRE(file["formatted"].size() == 1);
  CHECK(file["formatted"][0]["origin"] == "format");
  CHECK(file["formatted"][0]["old"] == "b=3\n");
  CHECK(file["formatted"][0]["new"] == "b = 3\n");
}

TEST_CASE("--format: a formatter that fails leaves the call's text and says why") {
  TempDir root;
  root.write("a.txt", "a=1\n");
  auto p = spawn_editd(root, {"--format", "*.txt=sh -c 'echo boom >&2; exit 3'"});
  json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "a=1"}, {"newText", "a=2"}});
  INFO(r.dump());
  CHECK(root.read("a.txt") == "a=2\n");
  CHECK(r["formatStatus"] == "failed");
  CHECK(r["formatDetail"].get<std::string>().find("boom") != std::string::npos);
  CHECK_FALSE(r.contains("formatted"));
}
