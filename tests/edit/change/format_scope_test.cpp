#include "edit/change/format_scope.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "edit/change/splice.h"
#include "edit/text/text.h"

using namespace editd;
using format_scope::Span;

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct Formatted {
  std::string bytes;  // the file once the kept hunks are made
  format_scope::Scoped scoped;
};

// `file` (stored bytes, as the model's edit left them) once the formatter's
// hunks that `changed` keeps from `output` are made, through splice::plan.
Formatted land(const std::string& file, const std::string& output, std::vector<Span> changed,
               const format_scope::Options& options = {}) {
  auto doc = text::Document::decode(file);
  REQUIRE(doc.has_value());
  text::Normalized norm(*doc);
  auto scoped = format_scope::scope(norm.view(), output, changed, options);
  REQUIRE(scoped.has_value());
  Formatted f;
  f.bytes = splice::apply(*doc, splice::plan(*doc, norm.view(), scoped->edits)).bytes;
  f.scoped = std::move(*scoped);
  return f;
}

Error refusal(const std::string& normalized, const std::string& output,
              const format_scope::Options& options = {}) {
  auto scoped = format_scope::scope(normalized, output, {{0, 1}}, options);
  REQUIRE(scoped.has_error());
  return scoped.error();
}

void check_hunk(const format_scope::Hunk& h, std::size_t old_start, std::size_t old_count,
                std::size_t new_start, std::size_t new_count) {
  CHECK(h.old_start == old_start);
  CHECK(h.old_count == old_count);
  CHECK(h.new_start == new_start);
  CHECK(h.new_count == new_count);
}

}  // namespace

TEST_CASE("the formatter's change to the edited line lands, its far changes do not") {
  auto f = land("y=2\nz\nx=1\n", "y = 2\nz\nx = 1\n", {{2, 3}});
  CHECK(f.bytes == "y=2\nz\nx = 1\n");
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 2, 1, 2, 1);
  CHECK(f.scoped.dropped == 1);
}

TEST_CASE("the formatter keeps a CRLF file's stored endings, on untouched and rewritten lines") {
  // The formatter reads LF and writes LF; the file keeps CRLF everywhere.
  auto f = land("y=2\r\nz\r\nx=1\r\n", "y = 2\nz\nx = 1\n", {{2, 3}});
  CHECK(f.bytes == "y=2\r\nz\r\nx = 1\r\n");
  // A line stored with LF in a CRLF file keeps its LF when the formatter rewrites it.
  CHECK(land("a\r\nb\r\nx=1\nc\r\n", "a\nb\nx = 1\nc\n", {{2, 3}}).bytes ==
        "a\r\nb\r\nx = 1\nc\r\n");
  // A formatter that writes CRLF itself changes nothing by it.
  CHECK(land("a\nx=1\nc\n", "a\r\nx = 1\r\nc\r\n", {{1, 2}}).bytes == "a\nx = 1\nc\n");
}

TEST_CASE("line breaks the formatter adds take the dominant ending; joined lines keep theirs") {
  // Split: the new breaks are CRLF in a CRLF file.
  auto split = land("a\r\nf(x, y)\r\nb\r\n", "a\nf(\n    x,\n    y)\nb\n", {{1, 2}});
  CHECK(split.bytes == "a\r\nf(\r\n    x,\r\n    y)\r\nb\r\n");
  REQUIRE(split.scoped.kept.size() == 1);
  check_hunk(split.scoped.kept[0], 1, 1, 1, 3);
  // Join: the line whose text ends the joined one keeps its stored LF.
  auto join = land("a\r\nf(x,\r\ny)\nb\r\n", "a\nf(x, y)\nb\n", {{1, 2}});
  CHECK(join.bytes == "a\r\nf(x, y)\nb\r\n");
  REQUIRE(join.scoped.kept.size() == 1);
  check_hunk(join.scoped.kept[0], 1, 2, 1, 1);
}

TEST_CASE("the formatter never writes or removes the BOM") {
  const std::string file = std::string(kBom) + "a\nx=1\n";
  // The formatter was given the body without the BOM.
  CHECK(land(file, "a\nx = 1\n", {{1, 2}}).bytes == std::string(kBom) + "a\nx = 1\n");
  // One that writes a BOM of its own, on the edited first line: still one BOM.
  CHECK(land(file, std::string(kBom) + "a = 0\nx = 1\n", {{0, 2}}).bytes ==
        std::string(kBom) + "a = 0\nx = 1\n");
  // A file without a BOM does not gain one.
  CHECK(land("a\nx=1\n", std::string(kBom) + "a\nx = 1\n", {{0, 2}}).bytes == "a\nx = 1\n");
}

TEST_CASE("the formatter keeps the file's final newline, or its lack of one") {
  // No final newline: the formatter's is not written, even on the edited last line.
  auto lacking = land("a\nx=1", "a\nx = 1\n", {{1, 2}});
  CHECK(lacking.bytes == "a\nx = 1");
  REQUIRE(lacking.scoped.kept.size() == 1);
  check_hunk(lacking.scoped.kept[0], 1, 1, 1, 1);
  // Nor the empty lines it would end with.
  CHECK(land("x=1", "x = 1\n\n\n", {{0, 1}}).bytes == "x = 1");
  // A final newline stays when the formatter drops it.
  CHECK(land("a\nx=1\n", "a\nx = 1", {{1, 2}}).bytes == "a\nx = 1\n");
  CHECK(land("a\r\nx=1\r\n", "a\nx = 1", {{1, 2}}).bytes == "a\r\nx = 1\r\n");
}

TEST_CASE("the formatter's lines at the end of a file without a final newline") {
  // Lines added after the last line: it gains a break (the dominant ending),
  // and the hunk includes it; the new last line has none.
  auto added = land("a\r\nb", "a\nb\nc\n", {{2, 2}});
  CHECK(added.bytes == "a\r\nb\r\nc");
  REQUIRE(added.scoped.kept.size() == 1);
  check_hunk(added.scoped.kept[0], 1, 1, 1, 2);
  // The last line removed: the line before it loses its break, in the hunk.
  auto removed = land("x=1\r\ny", "x=1\n", {{2, 2}});
  CHECK(removed.bytes == "x=1");
  REQUIRE(removed.scoped.kept.size() == 1);
  check_hunk(removed.scoped.kept[0], 0, 2, 0, 1);
  // Unless that line is empty: the text would end with an empty line, which
  // needs a final newline. Nothing is taken.
  auto empty = land("a\n\nb", "a\n  \n", {{3, 3}});
  CHECK(empty.bytes == "a\n\nb");
  CHECK(empty.scoped.edits.empty());
  CHECK(empty.scoped.dropped == 2);
}

TEST_CASE("a formatter that only adds or removes the final newline changes nothing") {
  auto added = land("a\nx = 1", "a\nx = 1\n", {{1, 2}});
  CHECK(added.bytes == "a\nx = 1");
  CHECK(added.scoped.edits.empty());
  CHECK(added.scoped.kept.empty());
  CHECK(added.scoped.dropped == 0);
  auto removed = land("a\nx = 1\n", "a\nx = 1", {{1, 2}});
  CHECK(removed.bytes == "a\nx = 1\n");
  CHECK(removed.scoped.edits.empty());
}

TEST_CASE("the formatter's trailing empty lines are taken or dropped like any other lines") {
  // Removed at the edited end of the file: kept.
  auto near = land("a\nx=1\n\n\n", "a\nx = 1\n", {{1, 2}});
  CHECK(near.bytes == "a\nx = 1\n");
  REQUIRE(near.scoped.kept.size() == 1);
  check_hunk(near.scoped.kept[0], 1, 3, 1, 1);
  // Removed far from the edit: dropped.
  auto far = land("x=1\na\nb\n\n\n", "x = 1\na\nb\n", {{0, 1}});
  CHECK(far.bytes == "x = 1\na\nb\n\n\n");
  CHECK(far.scoped.dropped == 1);
}

TEST_CASE("the formatter's tabs land on the edited lines only") {
  const std::string file = "if x:\n\ty=1\n\tz=2\n";
  auto f = land(file, "if x:\n    y = 1\n    z = 2\n", {{1, 2}});
  CHECK(f.bytes == "if x:\n    y = 1\n\tz=2\n");
  CHECK(f.scoped.dropped == 1);
  // A formatter that writes tabs: the edited line takes them, the others keep spaces.
  CHECK(land("if x:\n    y=1\n    z=2\n", "if x:\n\ty = 1\n\tz = 2\n", {{2, 3}}).bytes ==
        "if x:\n    y=1\n\tz = 2\n");
}

TEST_CASE("a formatter that rewrites far-away lines changes no byte outside the edit's lines") {
  // 30 lines with mixed endings; the formatter rewrites lines 0-3 and 25-29,
  // removes line 10, adds one after line 20, and respaces the edited line 15.
  std::vector<std::string> stored, out;
  for (int i = 0; i < 30; ++i) {
    const std::string text = "v" + std::to_string(i) + "=" + std::to_string(i);
    const std::string eol = i % 3 == 0 ? "\n" : "\r\n";
    stored.push_back(text + eol);
    const bool far = i < 4 || i >= 25;
    if (i == 10) continue;
    out.push_back((far || i == 15 ? "v" + std::to_string(i) + " = " + std::to_string(i) : text) +
                  "\n");
    if (i == 20) out.push_back("extra\n");
  }
  std::string file, formatted;
  for (const auto& l : stored) file += l;
  for (const auto& l : out) formatted += l;
  std::string expected;
  for (int i = 0; i < 30; ++i)
    expected += i == 15 ? std::string("v15 = 15\n") : stored[static_cast<std::size_t>(i)];
  auto f = land(file, formatted, {{15, 16}});
  CHECK(f.bytes == expected);  // line 15 ends with LF as stored (15 % 3 == 0)
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 15, 1, 15, 1);
  // Lines 0-3 and 25-29 (respaced, one hunk each run), line 10, the added line.
  CHECK(f.scoped.dropped == 4);
}

TEST_CASE("a formatter that reindents the block around the edit takes only the edit's lines") {
  const std::string file = "def f():\n  a=1\n  b=2\n  c=3\n  d=4\n";
  const std::string out = "def f():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n";
  auto f = land(file, out, {{2, 3}});
  CHECK(f.bytes == "def f():\n  a=1\n    b = 2\n  c=3\n  d=4\n");
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 2, 1, 2, 1);
  CHECK(f.scoped.dropped == 2);  // line 1, lines 3-4
  // Two edited lines next to each other: one hunk, one edit.
  auto two = land(file, out, {{2, 4}});
  CHECK(two.bytes == "def f():\n  a=1\n    b = 2\n    c = 3\n  d=4\n");
  REQUIRE(two.scoped.kept.size() == 1);
  check_hunk(two.scoped.kept[0], 2, 2, 2, 2);
  CHECK(two.scoped.edits.size() == 1);
}

TEST_CASE(
    "lines the formatter joins inside a reindented block go together when the edit touches one") {
  const std::string file = "def f():\n  a=1\n  g(x,\n    y)\n  d=4\n";
  const std::string out = "def f():\n    a = 1\n    g(x, y)\n    d = 4\n";
  auto f = land(file, out, {{3, 4}});
  CHECK(f.bytes == "def f():\n  a=1\n    g(x, y)\n  d=4\n");
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 2, 2, 2, 1);
  CHECK(f.scoped.dropped == 2);
  // The edit elsewhere in the block leaves the call as it was.
  CHECK(land(file, out, {{4, 5}}).bytes == "def f():\n  a=1\n  g(x,\n    y)\n    d = 4\n");
}

TEST_CASE("consecutive lines whose words the formatter changes are one hunk, kept whole") {
  // Words moved between lines (no line keeps its own): no line-by-line
  // pairing is safe, the run goes whole or not at all.
  const std::string file = "call(a,\n     b, c,\n  d)\ne\n";
  auto f = land(file, "call(a, b,\n     c, d)\ne\n", {{1, 2}});
  CHECK(f.bytes == "call(a, b,\n     c, d)\ne\n");
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 0, 3, 0, 2);
}

TEST_CASE("the formatter's lines around an insertion are kept at its boundaries") {
  // The model inserted lines 2-3 (its text); the formatter respaces them, adds
  // a blank line before and after them, and respaces line 0 (dropped).
  const std::string file = "x=0\ndef a(): pass\ndef b():\n  return 1\ndef c(): pass\n";
  const std::string out = "x = 0\ndef a(): pass\n\ndef b():\n    return 1\n\ndef c(): pass\n";
  auto f = land(file, out, {{2, 4}});
  CHECK(f.bytes == "x=0\ndef a(): pass\n\ndef b():\n    return 1\n\ndef c(): pass\n");
  REQUIRE(f.scoped.kept.size() == 2);  // "def b():" is the same line in both
  check_hunk(f.scoped.kept[0], 2, 0, 2, 1);
  check_hunk(f.scoped.kept[1], 3, 1, 4, 2);
  CHECK(f.scoped.dropped == 1);
  // A line rewritten next to the inserted lines, not among them, stays.
  auto beside = land("a=1\nnew\nb\n", "a = 1\nnew\nb\n", {{1, 2}});
  CHECK(beside.bytes == "a=1\nnew\nb\n");
  CHECK(beside.scoped.edits.empty());
  CHECK(beside.scoped.dropped == 1);
}

TEST_CASE("the formatter mends the seam a deletion leaves, and only there") {
  // The model deleted a function between lines 3 and 4: four blank lines meet.
  const std::string file = "x=0\ndef a():\n    pass\n\n\n\n\ndef b():\n    pass\n";
  const std::string out = "x = 0\ndef a():\n    pass\n\n\ndef b():\n    pass\n";
  auto f = land(file, out, {{5, 5}});
  CHECK(f.bytes == "x=0\ndef a():\n    pass\n\n\ndef b():\n    pass\n");
  REQUIRE(f.scoped.kept.size() == 1);
  CHECK(f.scoped.kept[0].old_count == 2);
  CHECK(f.scoped.kept[0].new_count == 0);
  CHECK(f.scoped.dropped == 1);
  // A line rewritten on either side of the point is kept, one further away is not.
  CHECK(land("a\nb=1\nc\n", "a\nb = 1\nc\n", {{2, 2}}).bytes == "a\nb = 1\nc\n");
  CHECK(land("a\nb=1\nc\n", "a\nb = 1\nc\n", {{1, 1}}).bytes == "a\nb = 1\nc\n");
  auto far = land("a\nb=1\nc\n", "a\nb = 1\nc\n", {{3, 3}});
  CHECK(far.bytes == "a\nb=1\nc\n");
  CHECK(far.scoped.edits.empty());
  // The lines joined across the point go together.
  CHECK(land("a=[1,\n2]\ny=0\n", "a = [1, 2]\ny = 0\n", {{1, 1}}).bytes == "a = [1, 2]\ny=0\n");
}

TEST_CASE("the formatter's hunks are kept for each of several changed ranges") {
  // Lines 1, 3 and 5 rewritten (line 1 split in two); the model changed 1 and 5.
  const std::string file = "a\nb='1'\nc\nd='3'\ne\nf='5'\ng\n";
  const std::string out = "a\nb = (\n  \"1\")\nc\nd = \"3\"\ne\nf = \"5\"\ng\n";
  auto f = land(file, out, {{5, 6}, {1, 2}});
  CHECK(f.bytes == "a\nb = (\n  \"1\")\nc\nd='3'\ne\nf = \"5\"\ng\n");
  REQUIRE(f.scoped.kept.size() == 2);
  check_hunk(f.scoped.kept[0], 1, 1, 1, 2);
  check_hunk(f.scoped.kept[1], 5, 1, 6, 1);  // one line lower: the split above
  CHECK(f.scoped.dropped == 1);
  REQUIRE(f.scoped.edits.size() == 2);
  CHECK(f.scoped.edits[0].begin < f.scoped.edits[1].begin);
}

TEST_CASE("the formatter's hunks are judged against changed ranges clamped to the text") {
  auto f = land("a\nx=1\n", "a\nx = 1\n", {{1, 99}});
  CHECK(f.bytes == "a\nx = 1\n");
  CHECK(land("a\nx=1", "a\nx = 1\nnew\n", {{7, 9}}).bytes == "a\nx = 1\nnew");
}

TEST_CASE("identical formatter output gives no edits") {
  for (const std::string file : {"a\nb\n", "a\r\nb\r\n", "a\nb", ""}) {
    auto f = land(file, text::normalize_eol(file), {{0, 2}});
    CHECK(f.bytes == file);
    CHECK(f.scoped.edits.empty());
    CHECK(f.scoped.kept.empty());
    CHECK(f.scoped.dropped == 0);
  }
  // An empty file stays empty whatever the formatter writes.
  CHECK(land("", "\n", {{0, 0}}).scoped.edits.empty());
}

TEST_CASE("formatter output that is not text, empty or too large is refused") {
  Error utf8 = refusal("x=1\n", "x = \xFF\n");
  CHECK(utf8.kind == ErrorKind::kNotText);
  CHECK(utf8.data["reason"] == "utf8");
  CHECK(utf8.data["offset"] == 4);
  Error nul = refusal("x=1\n", std::string("x\0\n", 3));
  CHECK(nul.kind == ErrorKind::kNotText);
  CHECK(nul.data["reason"] == "nul");
  Error empty = refusal("x=1\n", "");
  CHECK(empty.kind == ErrorKind::kDelegateFailed);
  CHECK(empty.data["reason"] == "empty");
  CHECK(refusal("x=1", "\n\n").data["reason"] == "empty");
  format_scope::Options small;
  small.max_bytes = 4;
  Error size = refusal("x=1\n", "x = 1\n", small);
  CHECK(size.kind == ErrorKind::kTooLarge);
  CHECK(size.data["reason"] == "size");
  CHECK(size.data["size"] == 6);
  CHECK(size.data["limit"] == 4);
  format_scope::Options narrow;
  narrow.max_window_lines = 2;
  Error window = refusal("a\nb\nc\nd\n", "A\nb\nc\nD\n", narrow);
  CHECK(window.kind == ErrorKind::kTooLarge);
  CHECK(window.data["reason"] == "window");
  CHECK(window.data["lines"] == 4);
  // Within the bound, the same change is taken.
  narrow.max_window_lines = 4;
  CHECK(format_scope::scope("a\nb\nc\nd\n", "A\nb\nc\nD\n", {{0, 1}}, narrow).has_value());
}

namespace {

// The lines of `text`, each with its "\n" (the last may have none).
std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  for (std::size_t from = 0; from < text.size();) {
    const std::size_t nl = text.find('\n', from);
    const std::size_t to = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.emplace_back(text.substr(from, to - from));
    from = to;
  }
  return lines;
}

}  // namespace

TEST_CASE(
    "random formatter output: bytes outside kept hunks never change, all kept is the output") {
  std::mt19937 rng(56);
  auto pick = [&rng](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* const words[] = {"a", "b=1", "  c", "\td", "", "}", "f(x,", "y)"};
  for (int round = 0; round < 2000; ++round) {
    // The file as the edit left it: mixed endings, with or without a final newline.
    std::string file, formatted;
    const int n = pick(10);
    for (int i = 0; i < n; ++i) {
      const std::string word = words[pick(8)];
      const bool last = i + 1 == n;
      const std::string eol = last && pick(3) == 0 ? "" : pick(2) == 0 ? "\r\n" : "\n";
      file += word + eol;
      // The formatter: keeps, respaces, rewrites, removes, or adds a line after.
      switch (pick(6)) {
        case 0:
          formatted += "  " + word + "\n";
          break;
        case 1:
          formatted += word + "!\n";
          break;
        case 2:
          break;
        case 3:
          formatted += word + "\nnew\n";
          break;
        default:
          formatted += word + (pick(4) == 0 ? "\r\n" : "\n");
          break;
      }
    }
    if (pick(4) == 0) file.insert(0, kBom);
    if (pick(3) == 0 && formatted.ends_with('\n')) {
      formatted.pop_back();
      if (formatted.ends_with('\r')) formatted.pop_back();  // no lone CR: content
    }
    auto doc = text::Document::decode(file);
    REQUIRE(doc.has_value());
    text::Normalized norm(*doc);
    const std::size_t lines = doc->line_count();
    CAPTURE(file);
    CAPTURE(formatted);

    // Every line changed: the text becomes the formatter's, its final newline
    // state kept.
    auto all = format_scope::scope(norm.view(), formatted, {{0, lines}});
    std::string expected = text::normalize_eol(formatted);
    if (doc->final_newline() && !expected.empty() && !expected.ends_with('\n')) expected += '\n';
    if (!doc->final_newline())
      while (expected.ends_with('\n')) expected.pop_back();
    if (!doc->body().empty() && expected.empty()) {
      CHECK(all.has_error());
      continue;
    }
    REQUIRE(all.has_value());
    const std::string whole =
        splice::apply(*doc, splice::plan(*doc, norm.view(), all->edits)).bytes;
    CHECK(text::normalize_eol(text::without_bom(whole)) == (doc->body().empty() ? "" : expected));
    CHECK(all->dropped == 0);

    // Some lines changed: outside the kept hunks the result's lines are the
    // file's, byte for byte and in order.
    std::vector<Span> changed;
    for (int k = pick(3); k > 0; --k) {
      const std::size_t first =
          lines == 0 ? 0 : static_cast<std::size_t>(pick(static_cast<int>(lines) + 1));
      changed.push_back({first, first + static_cast<std::size_t>(pick(3))});
    }
    auto none = format_scope::scope(norm.view(), formatted, {});
    REQUIRE(none.has_value());
    CHECK(none->edits.empty());
    auto some = format_scope::scope(norm.view(), formatted, changed);
    REQUIRE(some.has_value());
    REQUIRE(some->kept.size() == some->edits.size());
    const std::string bytes =
        splice::apply(*doc, splice::plan(*doc, norm.view(), some->edits)).bytes;
    CHECK(text::normalize_eol(text::without_bom(bytes)) ==
          splice::apply_edits(norm.view(), some->edits));
    CHECK(bytes.ends_with('\n') == file.ends_with('\n'));
    CHECK(bytes.starts_with(kBom) == file.starts_with(kBom));
    const std::vector<std::string> old_lines = lines_of(text::without_bom(file)),
                                   new_lines = lines_of(text::without_bom(bytes));
    std::vector<std::string> old_kept, new_kept;
    std::size_t o = 0, m = 0;
    for (const auto& h : some->kept) {
      for (; o < h.old_start; ++o) old_kept.push_back(old_lines[o]);
      for (; m < h.new_start; ++m) new_kept.push_back(new_lines[m]);
      o += h.old_count;
      m += h.new_count;
      // The kept hunk's new lines are the edit's text.
    }
    for (; o < old_lines.size(); ++o) old_kept.push_back(old_lines[o]);
    for (; m < new_lines.size(); ++m) new_kept.push_back(new_lines[m]);
    CHECK(old_kept == new_kept);
    for (std::size_t i = 0; i < some->kept.size(); ++i) {
      const auto& h = some->kept[i];
      std::string written;
      for (std::size_t j = h.new_start; j < h.new_start + h.new_count; ++j)
        written += new_lines.at(j);
      CHECK(text::normalize_eol(written) == some->edits[i].text);
    }
  }
}

TEST_CASE("a formatter that changes every line's punctuation changes the edited line alone") {
  // black normalizes quotes, prettier adds semicolons: each line keeps its
  // words, so each is a hunk of its own, and only the edit's is kept.
  auto f = land("a = 'x'\nb = 'y'\nc = 'z'\nd = 'w'\n", "a = \"x\"\nb = \"y\"\nc = \"z\"\nd = \"w\"\n",
                {{2, 3}});
  CHECK(f.bytes == "a = 'x'\nb = 'y'\nc = \"z\"\nd = 'w'\n");
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 2, 1, 2, 1);
  CHECK(f.scoped.dropped == 2);  // lines 0-1 (adjacent: one) and line 3
}

TEST_CASE("lines joined among lines whose punctuation changed: the join is one hunk") {
  // Line 1-3 (a call over three lines) joined, lines 0 and 4 requoted.
  auto f = land("x = 'a'\nf(\n  1,\n  2)\ny = 'b'\n", "x = \"a\"\nf(1, 2)\ny = \"b\"\n", {{2, 3}});
  CHECK(f.bytes == "x = 'a'\nf(1, 2)\ny = 'b'\n");
  REQUIRE(f.scoped.kept.size() == 1);
  check_hunk(f.scoped.kept[0], 1, 3, 1, 1);
}

TEST_CASE("a line the formatter moves is neither lost nor doubled") {
  // The model added `import a` at the end; the formatter moves it to the top:
  // its removal meets the edit, its new place does not. Taking the one
  // without the other would lose the model's line: neither is taken.
  auto f = land("import b\nx\ny\nimport a\n", "import a\nimport b\nx\ny\n", {{3, 4}});
  CHECK(f.bytes == "import b\nx\ny\nimport a\n");
  CHECK(f.scoped.kept.empty());
  // The model's line moved down, away from it; its other line's format lands.
  auto g = land("import c\ny\nz\nw\nx=1\n", "y\nimport c\nz\nw\nx = 1\n", {{0, 1}, {4, 5}});
  CHECK(g.bytes == "import c\ny\nz\nw\nx = 1\n");
  REQUIRE(g.scoped.kept.size() == 1);
  check_hunk(g.scoped.kept[0], 4, 1, 4, 1);
  // A move that stays beside the edit is taken whole.
  auto h = land("import b\nimport a\n", "import a\nimport b\n", {{1, 2}});
  CHECK(h.bytes == "import a\nimport b\n");
}

TEST_CASE("a brace the formatter joins to the line above stays with it") {
  // clang-format joins `{` to the function's line and reindents the body:
  // the edit of the body's line must not take the brace's removal alone.
  auto f = land("int main(void)\n{\n\tint   x=1;\n\treturn 0;\n}\n",
                "int main(void) {\n  int x = 1;\n  return 0;\n}\n", {{2, 3}});
  // The signature and the brace are one run, which the edit does not meet:
  // the brace stays where it was, and the edited line alone is formatted.
  CHECK(f.bytes == "int main(void)\n{\n  int x = 1;\n\treturn 0;\n}\n");
  // An edit of the signature takes the brace with it.
  auto s = land("int main(void)\n{\n\tint   x=1;\n}\n", "int main(void) {\n  int x = 1;\n}\n",
                {{0, 1}});
  CHECK(s.bytes == "int main(void) {\n\tint   x=1;\n}\n");
  // And a parenthesis split off onto a line of its own.
  auto g = land("call(a, b)\nx\n", "call(\n    a, b\n)\nx\n", {{0, 1}});
  CHECK(g.bytes == "call(\n    a, b\n)\nx\n");
}

// Found by the corpus of format-aware edits (tests/integration/format_corpus_test.cpp).
TEST_CASE("a brace the formatter joins to the line above stays when the line below is rewrapped") {
  // clang-format joins `{` to the signature and wraps the edited statement
  // (ring_buffer.cpp's describe()): the signature's line keeps its words, so
  // it was paired alone and dropped, while the brace went with the kept
  // rewrap: the brace was lost.
  auto f = land("int describe() const\n{\n    int text=a+b;\n    return text;\n}\n",
                "int describe() const {\n  int text = a +\n             b;\n  return text;\n}\n",
                {{2, 3}});
  CHECK(f.bytes == "int describe() const {\n  int text = a +\n             b;\n    return text;\n}\n");
}

TEST_CASE("a line whose words the formatter spreads over several is never taken apart from them") {
  // prettier (settings.ts, a line deleted below `const merged`): `{` and `};`
  // have no words and were paired, which cut the run in two: the removal of
  // `const merged=...` (beside the edit) was kept, the lines that hold its
  // words now (beside the signature) were dropped: the line was lost.
  const std::string file =
      "function merge(base:S,patch:P):S\n{\n    const merged={...base,...patch};\n"
      "    merged.size=Math.min(merged.size,8);\n    return merged;\n}\n";
  const std::string output =
      "function merge(base: S, patch: P): S {\n  const merged = {\n    ...base,\n    ...patch,\n"
      "  };\n  merged.size = Math.min(merged.size, 8);\n  return merged;\n}\n";
  const std::string header =
      "function merge(base: S, patch: P): S {\n  const merged = {\n    ...base,\n    ...patch,\n"
      "  };\n";
  // The seam of a line deleted before `merged.size`, then an edit of `const merged` itself.
  CHECK(land(file, output, {{3, 3}}).bytes ==
        header + "  merged.size = Math.min(merged.size, 8);\n    return merged;\n}\n");
  CHECK(land(file, output, {{2, 3}}).bytes ==
        header + "    merged.size=Math.min(merged.size,8);\n    return merged;\n}\n");
}
