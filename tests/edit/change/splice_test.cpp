#include "edit/change/splice.h"

#include <doctest/doctest.h>

#include <deque>
#include <string>
#include <vector>

#include "edit/change/unified_diff.h"

using namespace editd;
using splice::Edit;

namespace {

// The new bytes of `file` after normalized `edits`.
std::string edited(const std::string& file, std::vector<Edit> edits, splice::Options options = {}) {
  auto doc = text::Document::decode(file);
  REQUIRE(doc.has_value());
  text::Normalized norm(*doc);
  return splice::apply(*doc, splice::plan(*doc, norm.view(), std::move(edits), options)).bytes;
}

std::vector<splice::Splice> splices_of(const std::string& file, std::vector<Edit> edits) {
  auto doc = text::Document::decode(file);
  REQUIRE(doc.has_value());
  text::Normalized norm(*doc);
  return splice::plan(*doc, norm.view(), std::move(edits));
}

std::string rewritten(const std::string& file, const std::string& content) {
  auto doc = text::Document::decode(file);
  REQUIRE(doc.has_value());
  text::Normalized norm(*doc);
  splice::Options options;
  options.final_newline = content.ends_with('\n');
  return splice::apply(*doc, splice::rewrite(*doc, norm.view(), content, options)).bytes;
}

}  // namespace

TEST_CASE("replacing one character changes one byte, whatever the line endings around it") {
  const std::string file = "a\r\nb\r\nc\nd\r\ne\r\n";
  auto s = splices_of(file, {{4, 5, "C"}});
  REQUIRE(s.size() == 1);
  CHECK(s[0].begin == 6);
  CHECK(s[0].end == 7);
  CHECK(s[0].bytes == "C");
  CHECK(edited(file, {{4, 5, "C"}}) == "a\r\nb\r\nC\nd\r\ne\r\n");
}

TEST_CASE("a line break the replacement keeps keeps its stored ending") {
  // oldText "c\n" -> newText "C\n": the LF stays an LF in a CRLF file.
  CHECK(edited("a\r\nc\nb\r\n", {{2, 4, "C\n"}}) == "a\r\nC\nb\r\n");
  // Removing "}\n" after "a\n" keeps the CRLF of the surviving "}".
  CHECK(edited("a\r\n}\n}\r\nb\r\n", {{0, 4, "a\n"}}) == "a\r\n}\r\nb\r\n");
}

TEST_CASE("lines that the line diff keeps inside a replacement keep their bytes") {
  // "x\n" (stored LF) survives between two changed lines of a CRLF file.
  const std::string file = "top\r\nold1\r\nx\nold2\r\nend\r\n";
  CHECK(edited(file, {{4, 16, "new1\nx\nnew2\n"}}) == "top\r\nnew1\r\nx\nnew2\r\nend\r\n");
}

TEST_CASE("line breaks that a replacement adds take the dominant ending") {
  CHECK(edited("a\r\nb\r\nc\n", {{2, 3, "b1\nb2"}}) == "a\r\nb1\r\nb2\r\nc\n");
  CHECK(edited("a\nb\r\nc\n", {{2, 3, "b1\nb2"}}) == "a\nb1\nb2\r\nc\n");
}

TEST_CASE("inserting a line next to an identical one moves neither line's ending") {
  CHECK(edited("L1\r\n\n", {{0, 0, "L1\n"}}) == "L1\nL1\r\n\n");
  CHECK(edited("L1\r\nL1\r\nx\n", {{3, 3, "L1\n"}}) == "L1\r\nL1\r\nL1\r\nx\n");
}

TEST_CASE("the BOM is never part of a splice") {
  auto s = splices_of(
      "\xEF\xBB\xBF"
      "abc\n",
      {{0, 3, "xyz"}});
  REQUIRE(s.size() == 1);
  CHECK(s[0].begin == 0);
  CHECK(edited("\xEF\xBB\xBF"
               "abc\n",
               {{0, 3, "xyz"}}) ==
        "\xEF\xBB\xBF"
        "xyz\n");
  CHECK(edited("\xEF\xBB\xBF"
               "abc\n",
               {{0, 4, ""}}) == "\xEF\xBB\xBF");
}

TEST_CASE("a file without a final newline keeps lacking one") {
  CHECK(edited("a\nb", {{2, 3, "c\n"}}) == "a\nc");
  CHECK(edited("a\nb", {{3, 3, "\nc\n"}}) == "a\nb\nc");
  // Deleting the last line removes the break before it too.
  CHECK(edited("a\nb", {{2, 3, ""}}) == "a");
  CHECK(edited("a\r\nb", {{2, 3, ""}}) == "a");
  // An empty last line: the break the edit wrote last is removed, once.
  CHECK(edited("x", {{0, 1, "a\n\n"}}) == "a\n");
  // Only the break: a CR before it is content in an LF file, part of it in a
  // CRLF file, and part of a CRLF the edit writes literally.
  CHECK(edited("a\nb", {{2, 3, "c\r\n"}}) == "a\nc\r");
  CHECK(edited("a\nb", {{3, 3, "\nx\r\n"}}) == "a\nb\nx\r");
  CHECK(edited("a\r\nb", {{2, 3, "c\r\n"}}) == "a\r\nc\r");
  CHECK(edited("a\nb", {{2, 3, "c\r\n", true}}) == "a\nc");
  CHECK(edited("a\nb", {{2, 3, "c\r\r\n", true}}) == "a\nc\r");
}

TEST_CASE("a file with a final newline keeps it when newText drops it") {
  CHECK(edited("a\nb\n", {{2, 4, "c"}}) == "a\nc\n");
  CHECK(edited("a\r\nb\r\n", {{0, 4, "x"}}) == "x\r\n");
  // A file edited down to nothing stays empty.
  CHECK(edited("a\n", {{0, 2, ""}}) == "");
}

TEST_CASE("an explicit final-newline state wins over the file's") {
  splice::Options none;
  none.final_newline = false;
  CHECK(edited("a\nb\n", {{2, 4, "c\n"}}, none) == "a\nc");
  splice::Options one;
  one.final_newline = true;
  CHECK(edited("a\nb", {{2, 3, "c"}}, one) == "a\nc\n");
}

TEST_CASE("a literal CRLF in an edit is written as it is") {
  Edit e{2, 4, "b\r\n", true};
  CHECK(edited("a\nb\nc\n", {e}) == "a\nb\r\nc\n");
  Edit same{2, 4, "b\r\n", true};
  CHECK(edited("a\r\nb\r\nc\r\n", {same}) == "a\r\nb\r\nc\r\n");
}

TEST_CASE("splices of several edits come out in order and apply in one pass") {
  const std::string file = "hit\r\nx\nhit\r\ny\nhit\r\n";
  std::vector<Edit> edits{{0, 3, "HIT"}, {6, 9, "HIT"}, {12, 15, "HIT"}};
  CHECK(edited(file, edits) == "HIT\r\nx\nHIT\r\ny\nHIT\r\n");
  auto s = splices_of(file, edits);
  REQUIRE(s.size() == 3);
  CHECK(s[1].begin == 7);
  CHECK(s[2].begin == 14);
}

TEST_CASE("write_text keeps the endings of lines it keeps and gives the rest the dominant one") {
  CHECK(rewritten("a\r\nb\nc\r\n", "a\nb\nc\n") == "a\r\nb\nc\r\n");
  // A changed line is a new line: it takes the dominant ending.
  CHECK(rewritten("a\r\nb\nc\r\n", "a\nB\nc\n") == "a\r\nB\r\nc\r\n");
  CHECK(rewritten("a\r\nb\nc\r\n", "a\nb\nNEW\nc\n") == "a\r\nb\nNEW\r\nc\r\n");
  CHECK(rewritten("a\r\nb\r\n", "x\ny") == "x\r\ny");
  CHECK(rewritten("a\nb", "x\n") == "x\n");
}

TEST_CASE("write_text's kept endings are the same for a small and a huge file") {
  // One LF line among CRLF ones, moved to the far end: it keeps its LF however
  // much lies between, because no work budget is involved.
  for (int n : {10, 100000}) {
    std::string file = "first\r\nodd\n", content = "first\n";
    for (int i = 0; i < n; ++i) file += "line " + std::to_string(i) + "\r\n";
    for (int i = 0; i < n; ++i) content += "line " + std::to_string(n - 1 - i) + "\n";
    file += "last\r\n";
    content += "odd\nlast\n";
    std::string out = rewritten(file, content);
    CAPTURE(n);
    CHECK(out.ends_with("line 0\r\nodd\nlast\r\n"));
    CHECK(out.starts_with("first\r\nline " + std::to_string(n - 1) + "\r\n"));
  }
}

TEST_CASE("the windows of applied splices give a diff of just the changed lines") {
  std::string file;
  for (int i = 1; i <= 2000; ++i) file += "line " + std::to_string(i) + "\n";
  auto doc = text::Document::decode(file);
  REQUIRE(doc.has_value());
  text::Normalized norm(*doc);
  const std::size_t at = file.find("line 1000\n");
  auto applied = splice::apply(*doc, splice::plan(*doc, norm.view(), {{at, at + 9, "LINE 1000"}}));
  auto d = diff::unified_windows(file, applied.bytes, applied.windows, "a/f", "b/f");
  CHECK(d.text ==
        "--- a/f\n+++ b/f\n@@ -997,7 +997,7 @@\n line 997\n line 998\n line 999\n-line 1000\n"
        "+LINE 1000\n line 1001\n line 1002\n line 1003\n");
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
}

TEST_CASE("windows whose old and new text agree give no diff; any difference in one gives one") {
  const std::string a = "one\ntwo\nthree\n";
  CHECK(diff::unified_windows(a, a, {{4, 7, 4, 7}}, "a", "b").text.empty());
  CHECK(diff::unified_windows(a, a, {}, "a", "b").text.empty());
  const std::string b = "one\nTWO\nthree\n";
  auto d = diff::unified_windows(a, b, {{0, 0, 0, 0}, {4, 7, 4, 7}}, "a", "b");
  CHECK(d.text == "--- a\n+++ b\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n");
  // The same size, with "x" moved from the front to the back: not equal.
  auto f = diff::unified_windows("xab\n", "abx\n", {{0, 1, 0, 0}, {3, 3, 2, 3}}, "a", "b");
  CHECK(f.text == "--- a\n+++ b\n@@ -1 +1 @@\n-xab\n+abx\n");
}

TEST_CASE("a window at the end of a last line without a newline joins the one before it") {
  // "x\nab" -> "x\naXnew": [3, 4) became "X", and "new" went in at the end.
  // Widening the first window reached the end of the old text while the new one
  // had not ended a line yet; it stopped only by taking in the second window
  // (this never returned).
  auto d = diff::unified_windows("x\nab", "x\naXnew", {{3, 4, 3, 4}, {4, 4, 4, 7}}, "a", "b");
  CHECK(d.text ==
        "--- a\n+++ b\n@@ -1,2 +1,2 @@\n x\n-ab\n\\ No newline at end of file\n+aXnew\n"
        "\\ No newline at end of file\n");
}

TEST_CASE("windows on one line merge, and a removed final newline is shown") {
  std::string a = "x y z\n", b = "X y Z\n";
  auto d = diff::unified_windows(a, b, {{0, 1, 0, 1}, {4, 5, 4, 5}}, "a", "b");
  CHECK(d.text == "--- a\n+++ b\n@@ -1 +1 @@\n-x y z\n+X y Z\n");
  auto e = diff::unified_texts("a\nb\n", "a\nb", "a", "b");
  CHECK(e.text == "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
}

TEST_CASE("pieces, windows and the diff made around the splices agree with apply()") {
  // Random files of short lines (LF, CRLF, a BOM or not, a final newline or
  // not) and random ascending splices: the pieces concatenate to apply()'s
  // bytes, windows() are apply()'s windows, and splice::diff() is the diff of
  // the two whole bodies.
  std::uint64_t state = 42;
  auto next = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  const char* const atoms[] = {"a", "b", " ", "\n", "\r\n", "xy", "\n\n"};
  for (int round = 0; round < 3000; ++round) {
    std::string body;
    const std::size_t atoms_in_body = next(round % 10 == 0 ? 400 : 40);
    for (std::size_t i = 0; i < atoms_in_body; ++i) body += atoms[next(std::size(atoms))];
    const bool bom = next(4) == 0;
    const std::string file = (bom ? std::string(text::kBom) : std::string()) + body;
    auto doc = text::Document::decode(file);
    REQUIRE(doc.has_value());
    std::vector<splice::Splice> splices;
    std::size_t pos = 0;
    while (pos <= body.size() && next(3) != 0) {
      splice::Splice s;
      s.begin = pos + next(body.size() - pos + 1);
      s.end = s.begin + next(std::min<std::size_t>(body.size() - s.begin, 6) + 1);
      for (std::size_t k = next(4); k > 0; --k) s.bytes += atoms[next(std::size(atoms))];
      pos = s.end + 1;
      splices.push_back(std::move(s));
      if (pos > body.size()) break;
    }
    CAPTURE(body);
    CAPTURE(round);
    const splice::Applied applied = splice::apply(*doc, splices);
    std::string joined;
    for (std::string_view p : splice::pieces(bom ? text::kBom : "", body, splices)) {
      CHECK_FALSE(p.empty());
      joined += p;
    }
    CHECK(joined == applied.bytes);
    const std::vector<diff::Window> w = splice::windows(splices);
    REQUIRE(w.size() == applied.windows.size());
    for (std::size_t i = 0; i < w.size(); ++i) {
      CHECK(w[i].old_begin == applied.windows[i].old_begin);
      CHECK(w[i].old_end == applied.windows[i].old_end);
      CHECK(w[i].new_begin == applied.windows[i].new_begin);
      CHECK(w[i].new_end == applied.windows[i].new_end);
    }
    const std::string_view new_body = std::string_view(applied.bytes).substr(bom ? 3 : 0);
    if (!w.empty()) REQUIRE(body.size() - w.back().old_end == new_body.size() - w.back().new_end);
    const diff::UnifiedDiff whole =
        diff::unified_windows(body, new_body, applied.windows, "a/f", "b/f");
    const diff::UnifiedDiff around = splice::diff(body, splices, "a/f", "b/f");
    CHECK(around.text == whole.text);
    CHECK(around.added == whole.added);
    CHECK(around.removed == whole.removed);
  }
}
