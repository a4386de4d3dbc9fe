#include "edit/anchors/hashline.h"

#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "edit/change/diff.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"

using namespace editd;
using hashline::Anchor;
using hashline::Kind;
using hashline::LineEdit;

namespace {

// The anchor of 1-based `line` of `text` as it is.
std::string anchor_of(const std::string& text, std::uint64_t line) {
  auto lines = text::split_lines(text);
  return std::to_string(line) + "~" + hashline::tag(lines[line - 1]);
}

Anchor at(const std::string& text, std::uint64_t line) {
  return *hashline::parse_anchor(anchor_of(text, line));
}

// An anchor carrying `line_text`'s tag at `line`.
Anchor tagged(std::uint64_t line, const std::string& line_text) {
  return Anchor{line, hashline::tag(line_text)};
}

std::string applied(const std::string& text, const std::vector<LineEdit>& edits) {
  auto plan = hashline::plan(text, edits);
  REQUIRE_MESSAGE(plan.has_value(), plan.error().message);
  return splice::apply_edits(text, plan->edits);
}

// Ten distinct lines "l1".."l10".
std::string numbered(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += "l" + std::to_string(i) + "\n";
  return s;
}

}  // namespace

TEST_CASE("a tag is two lowercase letters that ignore whitespace and are the same every run") {
  CHECK(hashline::tag("  return a + b;") == hashline::tag("return a+b;\t"));
  CHECK(hashline::tag("x\r") == hashline::tag("x"));
  // Fixed values: the derivation is part of the protocol (docs/protocol.md).
  CHECK(hashline::tag("") == hashline::tag(" \t "));
  CHECK(hashline::tag("") == "da");
  CHECK(hashline::tag("return a + b;") == "jo");
  for (const char* line : {"", "a", "int main() {", "}", "\xE2\x80\x9C"}) {
    std::string t = hashline::tag(line);
    REQUIRE(t.size() == 2);
    CHECK(t[0] >= 'a');
    CHECK(t[0] <= 'z');
    CHECK(t[1] >= 'a');
    CHECK(t[1] <= 'z');
  }
}

TEST_CASE(
    "the hashline view numbers lines from the given number and keeps the final-newline state") {
  std::vector<std::string_view> lines{"a", "", "b"};
  std::string t = hashline::tag("");
  CHECK(hashline::render(lines, 7) ==
        "7~" + hashline::tag("a") + "|a\n8~" + t + "|\n9~" + hashline::tag("b") + "|b\n");
  CHECK(hashline::render(lines, 1, false).back() == 'b');
  CHECK(hashline::render({}, 1).empty());
}

TEST_CASE("render_text shows a text as render shows its lines, in a buffer of the counted size") {
  for (std::string_view text : {"", "\n", "a", "a\n", "a\n\nb", "a\n\nb\n", "\n\n\n"}) {
    for (std::uint64_t first : {1u, 9u, 99u, 100u}) {
      CAPTURE(text);
      CAPTURE(first);
      const std::string view = hashline::render_text(text, first);
      CHECK(view ==
            hashline::render(text::split_lines(text), first, text.empty() || text.back() == '\n'));
      CHECK(hashline::rendered_size(text, first) == view.size());
    }
  }
}

TEST_CASE("anchors parse as LINE~TAG, ignore a copied '|text', and refuse anything else") {
  auto a = hashline::parse_anchor("12~ab");
  REQUIRE(a.has_value());
  CHECK(a->line == 12);
  CHECK(a->tag == "ab");
  auto copied = hashline::parse_anchor("3~zz|  int x;");
  REQUIRE(copied.has_value());
  CHECK(copied->line == 3);
  for (const char* bad : {"", "12", "~ab", "0~ab", "12~a", "12~abc", "12~AB", "-1~ab", "1 2~ab",
                          "12:ab", "x~ab", "99999999999999999999999~ab", "12~a1"})
    CHECK_MESSAGE(!hashline::parse_anchor(bad), bad);
}

TEST_CASE("replace, insertAfter and insertBefore land on the anchored lines") {
  const std::string f = "a\nb\nc\nd\n";
  CHECK(applied(f, {{Kind::kReplace, at(f, 2), at(f, 3), "B\nC\n"}}) == "a\nB\nC\nd\n");
  CHECK(applied(f, {{Kind::kReplace, at(f, 2), std::nullopt, "x"}}) == "a\nx\nc\nd\n");
  CHECK(applied(f, {{Kind::kReplace, at(f, 1), at(f, 4), ""}}) == "");
  CHECK(applied(f, {{Kind::kInsertAfter, at(f, 4), std::nullopt, "e"}}) == "a\nb\nc\nd\ne\n");
  CHECK(applied(f, {{Kind::kInsertBefore, at(f, 1), std::nullopt, "0\n"}}) == "0\na\nb\nc\nd\n");
  // Several edits against one snapshot, in any order; touching ones merge.
  CHECK(applied(f, {{Kind::kInsertAfter, at(f, 4), std::nullopt, "e"},
                    {Kind::kReplace, at(f, 1), std::nullopt, "A"},
                    {Kind::kInsertBefore, at(f, 2), std::nullopt, "a2"},
                    {Kind::kReplace, at(f, 2), std::nullopt, ""}}) == "A\na2\nc\nd\ne\n");
}

TEST_CASE("an insertion after a last line without a line break starts a new line") {
  const std::string f = "a\nb";
  CHECK(applied(f, {{Kind::kInsertAfter, at(f, 2), std::nullopt, "c"}}) == "a\nb\nc\n");
  // (splice::plan then keeps the file's missing final newline: see the integration tests.)
}

TEST_CASE("lines reports where each edit's text now is, in call order") {
  const std::string f = numbered(6);
  auto plan = hashline::plan(f, {{Kind::kReplace, at(f, 5), at(f, 6), "x\n"},
                                 {Kind::kInsertAfter, at(f, 1), std::nullopt, "p\nq\n"},
                                 {Kind::kReplace, at(f, 3), std::nullopt, ""}});
  REQUIRE(plan.has_value());
  REQUIRE(plan->lines.size() == 3);
  CHECK(plan->lines[0].start_line == 6);
  CHECK(plan->lines[0].end_line == 6);
  CHECK(plan->lines[1].start_line == 2);
  CHECK(plan->lines[1].end_line == 3);
  CHECK(plan->lines[2].start_line == 5);  // the cut
  CHECK(plan->rebased.empty());
}

// The view of `text` a client read whole.
struct Read {
  explicit Read(const std::string& text) : file(hashline::snapshot(text)) {
    view.file = &file;
    view.shown.push_back({1, file.hashes.size()});
  }
  hashline::Snapshot file;
  hashline::View view;
};

// Two different lines with the same tag, found by search.
std::pair<std::string, std::string> colliding(const std::string& prefix) {
  std::map<std::string, std::string> seen;
  for (int i = 0;; ++i) {
    std::string line = prefix + std::to_string(i);
    auto [it, fresh] = seen.emplace(hashline::tag(line), line);
    if (!fresh) return {it->second, line};
  }
}

TEST_CASE("an anchor maps through the view it was read from, up, down and with its block") {
  const std::string f = numbered(20);
  Read read(f);
  // Twelve lines inserted above: l10 is now line 22, far past any window.
  std::string above;
  for (int i = 0; i < 12; ++i) above += "n" + std::to_string(i) + "\n";
  const std::string down = above + f;
  auto plan = hashline::plan(down, {{Kind::kReplace, at(f, 10), std::nullopt, "X"}}, &read.view);
  REQUIRE(plan.has_value());
  REQUIRE(plan->rebased.size() == 1);
  CHECK(plan->rebased[0].line == 22);
  CHECK(plan->rebased[0].anchor == anchor_of(f, 10));
  CHECK(splice::apply_edits(down, plan->edits).find("l9\nX\nl11\n") != std::string::npos);
  // Three lines removed above: l10 is now line 7.
  const std::string up = f.substr(f.find("l4\n"));
  auto p2 = hashline::plan(up, {{Kind::kInsertBefore, at(f, 10), std::nullopt, "Y"}}, &read.view);
  REQUIRE(p2.has_value());
  CHECK(p2->rebased[0].line == 7);
  CHECK(splice::apply_edits(up, p2->edits).find("l9\nY\nl10\n") != std::string::npos);
  // l15..l17 moved to the top: the lines they passed land where they went; the moved
  // lines themselves are what the diff removed (and added elsewhere): stale, never guessed.
  const std::string moved = "l15\nl16\nl17\n" + numbered(14) + "l18\nl19\nl20\n";
  auto p3 = hashline::plan(moved, {{Kind::kReplace, at(f, 10), at(f, 11), "M\n"}}, &read.view);
  REQUIRE(p3.has_value());
  CHECK(p3->rebased.size() == 2);
  CHECK(splice::apply_edits(moved, p3->edits).find("l9\nM\nl12\n") != std::string::npos);
  auto p4 = hashline::plan(moved, {{Kind::kReplace, at(f, 16), std::nullopt, "X"}}, &read.view);
  REQUIRE_FALSE(p4.has_value());
  CHECK(p4.error().kind == ErrorKind::kStale);
}

TEST_CASE("without a view an anchor is used only where it stands, with its tag") {
  const std::string f = numbered(20);
  // On its own line it is exact.
  auto here = hashline::plan(f, {{Kind::kReplace, at(f, 10), std::nullopt, "X"}});
  REQUIRE(here.has_value());
  CHECK(here->rebased.empty());
  // One line inserted above: no window search, no guess.
  const std::string down = "n\n" + f;
  auto p = hashline::plan(down, {{Kind::kReplace, at(f, 10), std::nullopt, "X"}});
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().message.find("read_text again") != std::string::npos);
  // A view that does not show the anchor is not used either.
  Read read(f);
  read.view.shown = {{1, 5}};
  CHECK_FALSE(hashline::shows(read.view, {{Kind::kReplace, at(f, 10), std::nullopt, "X"}}));
  CHECK_FALSE(hashline::plan(down, {{Kind::kReplace, at(f, 10), std::nullopt, "X"}}, &read.view)
                  .has_value());
}

TEST_CASE("a stale anchor carries the edit, the anchor and the region as it is now") {
  const std::string f = numbered(20);
  auto p = hashline::plan(f, {{Kind::kInsertAfter, at(f, 1), std::nullopt, "ok"},
                              {Kind::kReplace, tagged(10, "gone"), std::nullopt, "X"}});
  REQUIRE_FALSE(p.has_value());
  const Error& e = p.error();
  CHECK(e.kind == ErrorKind::kStale);
  CHECK(e.data["edit"] == 1);
  CHECK(e.data["anchor"] == "10~" + hashline::tag("gone"));
  const std::string region = e.data["region"];
  CHECK(region.starts_with(anchor_of(f, 5) + "|l5\n"));
  CHECK(region.ends_with(anchor_of(f, 15) + "|l15\n"));
  CHECK_FALSE(e.data.contains("candidates"));
}

TEST_CASE("a line changed in place since the read is stale, even under the same tag") {
  const auto [before, after] = colliding("TIMEOUT = ");
  REQUIRE(hashline::tag(before) == hashline::tag(after));
  const std::string f = "a\n" + before + "\nb\n";
  Read read(f);
  const std::string now = "a\n" + after + "\nb\n";
  auto p = hashline::plan(now, {{Kind::kReplace, at(f, 2), std::nullopt, "X"}}, &read.view);
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().message.find("changed or removed since") != std::string::npos);
  CHECK(p.error().data["region"] == hashline::render(text::split_lines(now), 1));
  // A repeated line nearby is not taken for it: "}" rewritten, the next "}" stays.
  const std::string g = "f {\n}\ng {\n}\n";
  Read read_g(g);
  const std::string g2 = "f {\n  x;\ng {\n}\n";
  auto q = hashline::plan(g2, {{Kind::kReplace, at(g, 2), std::nullopt, "};"}}, &read_g.view);
  REQUIRE_FALSE(q.has_value());
  CHECK(q.error().kind == ErrorKind::kStale);
}

TEST_CASE("a replace whose lines between changed is stale; moved together it maps whole") {
  const std::string f = numbered(10);
  Read read(f);
  // One line inserted between l3 and l6.
  const std::string now = "l1\nl2\nl3\nl4\nnew\nl5\nl6\nl7\nl8\nl9\nl10\n";
  auto p = hashline::plan(now, {{Kind::kReplace, at(f, 3), at(f, 6), "X"}}, &read.view);
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().data["anchor"] == anchor_of(f, 6));
  // One line between changed in place: the same.
  const std::string changed = "l1\nl2\nl3\nL4\nl5\nl6\nl7\nl8\nl9\nl10\n";
  CHECK_FALSE(
      hashline::plan(changed, {{Kind::kReplace, at(f, 3), at(f, 6), "X"}}, &read.view).has_value());
  // An insertion right before the range is outside it.
  const std::string shifted = "new\n" + f;
  auto q = hashline::plan(shifted, {{Kind::kReplace, at(f, 3), at(f, 6), "X"}}, &read.view);
  REQUIRE(q.has_value());
  CHECK(q->rebased.size() == 2);
  CHECK(splice::apply_edits(shifted, q->edits) == "new\nl1\nl2\nX\nl7\nl8\nl9\nl10\n");
}

TEST_CASE("overlapping edits, an end before its start and empty insertions are invalid params") {
  const std::string f = numbered(8);
  auto overlap = hashline::plan(
      f, {{Kind::kReplace, at(f, 2), at(f, 4), "x"}, {Kind::kReplace, at(f, 4), at(f, 5), "y"}});
  REQUIRE_FALSE(overlap.has_value());
  CHECK(overlap.error().kind == ErrorKind::kInvalidParams);
  CHECK(overlap.error().input == Input::kEdits);
  CHECK(overlap.error().data["edits"] == nlohmann::json({0, 1}));
  auto inside = hashline::plan(f, {{Kind::kReplace, at(f, 2), at(f, 6), "x"},
                                   {Kind::kReplace, at(f, 7), std::nullopt, "y"},
                                   {Kind::kInsertAfter, at(f, 3), std::nullopt, "z"}});
  REQUIRE_FALSE(inside.has_value());
  CHECK(inside.error().data["edits"] == nlohmann::json({0, 2}));
  auto same_point = hashline::plan(f, {{Kind::kInsertAfter, at(f, 2), std::nullopt, "a"},
                                       {Kind::kInsertBefore, at(f, 3), std::nullopt, "b"}});
  REQUIRE_FALSE(same_point.has_value());
  CHECK(same_point.error().kind == ErrorKind::kInvalidParams);
  auto backwards = hashline::plan(f, {{Kind::kReplace, at(f, 4), at(f, 2), "x"}});
  REQUIRE_FALSE(backwards.has_value());
  CHECK(backwards.error().data["edit"] == 0);
  auto empty = hashline::plan(f, {{Kind::kInsertAfter, at(f, 4), std::nullopt, ""}});
  REQUIRE_FALSE(empty.has_value());
  CHECK(empty.error().kind == ErrorKind::kInvalidParams);
}

TEST_CASE("anchors in an empty file are stale") {
  auto p = hashline::plan("", {{Kind::kInsertAfter, tagged(1, "x"), std::nullopt, "y"}});
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().data["region"] == "");
}

TEST_CASE(
    "property: an anchored edit from an old view lands on the line the diff keeps, or is stale") {
  // Few distinct lines, so that repeats are everywhere: the shapes that fooled a window.
  const std::vector<std::string> pool = {"}", "", "return None", "  break;", "x = 1", "    }"};
  std::mt19937 rng(35);
  auto pick = [&rng](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  int landed = 0, stale = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::string> old_lines(1 + pick(30));
    for (std::string& l : old_lines)
      l = pick(3) == 0 ? "v" + std::to_string(pick(50)) : pool[pick(pool.size())];
    // A concurrent writer: a few inserts, deletes, in-place changes and block moves.
    std::vector<std::string> now = old_lines;
    for (std::size_t k = 1 + pick(4); k > 0; --k) {
      const std::size_t at = pick(now.size() + 1);
      switch (pick(4)) {
        case 0:
          now.insert(now.begin() + static_cast<std::ptrdiff_t>(at), pool[pick(pool.size())]);
          break;
        case 1:
          if (at < now.size()) now.erase(now.begin() + static_cast<std::ptrdiff_t>(at));
          break;
        case 2:
          if (at < now.size())
            now[at] = pick(2) ? pool[pick(pool.size())] : "w" + std::to_string(pick(9));
          break;
        default:
          if (at + 2 < now.size()) {
            std::vector<std::string> block(now.begin() + static_cast<std::ptrdiff_t>(at),
                                           now.begin() + static_cast<std::ptrdiff_t>(at + 2));
            now.erase(now.begin() + static_cast<std::ptrdiff_t>(at),
                      now.begin() + static_cast<std::ptrdiff_t>(at + 2));
            const std::size_t to = pick(now.size() + 1);
            now.insert(now.begin() + static_cast<std::ptrdiff_t>(to), block.begin(), block.end());
          }
      }
    }
    std::string old_text, now_text;
    for (const std::string& l : old_lines) old_text += l + "\n";
    for (const std::string& l : now) now_text += l + "\n";
    Read read(old_text);
    // Where the line diff of the texts puts each old line (0: removed or changed).
    std::vector<std::string_view> a(old_lines.begin(), old_lines.end()), b(now.begin(), now.end());
    std::vector<std::uint64_t> where(old_lines.size(), 0);
    {
      auto blocks = diff::diff_lines(a, b);
      std::size_t i = 0, j = 0;
      for (const diff::Block& bl : blocks) {
        for (; i < bl.a_begin; ++i, ++j) where[i] = j + 1;
        i = bl.a_end;
        j = bl.b_end;
      }
      for (; i < old_lines.size(); ++i, ++j) where[i] = j + 1;
    }
    const std::uint64_t line = 1 + pick(old_lines.size());
    const auto p = hashline::plan(
        now_text, {{Kind::kReplace, at(old_text, line), std::nullopt, "EDITED"}}, &read.view);
    CAPTURE(old_text);
    CAPTURE(now_text);
    CAPTURE(line);
    if (!p) {
      CHECK(p.error().kind == ErrorKind::kStale);
      CHECK(where[line - 1] == 0);
      ++stale;
      continue;
    }
    const std::uint64_t to = p->lines[0].start_line;
    REQUIRE(where[line - 1] == to);
    CHECK(now[to - 1] == old_lines[line - 1]);
    std::vector<std::string> expect = now;
    expect[to - 1] = "EDITED";
    std::string expect_text;
    for (const std::string& l : expect) expect_text += l + "\n";
    CHECK(splice::apply_edits(now_text, p->edits) == expect_text);
    ++landed;
  }
  // Both outcomes were exercised.
  CHECK(landed > 100);
  CHECK(stale > 100);
}

namespace {

// Where the line diff of two texts puts each line of `from` in `to` (1-based;
// 0: removed or changed).
std::vector<std::uint64_t> where_lines(const std::vector<std::string>& from,
                                       const std::vector<std::string>& to) {
  std::vector<std::string_view> a(from.begin(), from.end()), b(to.begin(), to.end());
  std::vector<std::uint64_t> where(from.size(), 0);
  std::size_t i = 0, j = 0;
  for (const diff::Block& bl : diff::diff_lines(a, b)) {
    for (; i < bl.a_begin; ++i, ++j) where[i] = j + 1;
    i = bl.a_end;
    j = bl.b_end;
  }
  for (; i < from.size(); ++i, ++j) where[i] = j + 1;
  return where;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("anchors from slices of several versions each land on the line read, or nothing") {
  // The property with a slices dimension: a model reads slices of a file while
  // another writer changes it, then sends anchors picked from any of its reads
  // in one call. Lines are few and repeated (`}` at three indents shares one
  // tag), so an anchor used where it stands would often hit a look-alike.
  const std::vector<std::string> pool = {"}", "    }", "        }", "", "return None", "x = 1"};
  std::mt19937 rng(43);
  auto pick = [&rng](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  int landed = 0, stale = 0, older = 0, mixed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::string> lines(4 + pick(30));
    for (std::string& l : lines) l = pick(3) == 0 ? "v" + std::to_string(pick(40)) : pool[pick(6)];
    // Versions read, each with the slices read of it (its view), in the order
    // of their last read: what the store gives edit_lines, newest last here.
    struct Version {
      std::vector<std::string> lines;
      hashline::Snapshot file;
      std::vector<hashline::LineRange> shown;
      std::size_t last_read = 0;
    };
    std::vector<Version> versions;
    std::size_t clock = 0;
    const std::size_t steps = 1 + pick(4);
    for (std::size_t step = 0; step < steps; ++step) {
      if (step > 0) {  // another writer: a few inserts (often at the top), deletes, changes
        for (std::size_t k = 1 + pick(3); k > 0; --k) {
          const std::size_t at = pick(2) ? 0 : pick(lines.size() + 1);
          switch (pick(3)) {
            case 0:
              lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), pool[pick(6)]);
              break;
            case 1:
              if (at < lines.size() && lines.size() > 2)
                lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
              break;
            default:
              if (at < lines.size()) lines[at] = pool[pick(6)];
          }
        }
      }
      if (versions.empty() || versions.back().lines != lines)
        versions.push_back({lines, hashline::snapshot(joined(lines)), {}, 0});
      // One or two slices of this version.
      for (std::size_t s = 1 + pick(2); s > 0; --s) {
        const std::uint64_t first = 1 + pick(lines.size());
        const std::uint64_t last = std::min<std::uint64_t>(lines.size(), first + pick(8));
        versions.back().shown.push_back({first, last});
        versions.back().last_read = ++clock;
      }
    }
    // The file as it is when the call runs: sometimes changed once more.
    std::vector<std::string> now = lines;
    if (pick(2))
      now.insert(now.begin() + static_cast<std::ptrdiff_t>(pick(now.size() + 1)), pool[pick(6)]);
    // Sometimes the store forgot a version (but kept another).
    std::vector<const Version*> kept;
    for (const Version& v : versions) kept.push_back(&v);
    if (kept.size() > 1 && pick(4) == 0)
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(pick(kept.size())));
    std::sort(kept.begin(), kept.end(),
              [](const Version* a, const Version* b) { return a->last_read > b->last_read; });
    hashline::Reads reads;
    reads.unread_stand = false;
    for (const Version* v : kept) reads.views.push_back({&v->file, v->shown});

    // One or two anchors, each picked from a slice of any read (kept or not).
    std::vector<LineEdit> edits;
    std::vector<std::pair<const Version*, std::uint64_t>> picked;
    for (std::size_t n = 1 + pick(2); n > 0; --n) {
      const Version& v = versions[pick(versions.size())];
      const hashline::LineRange r = v.shown[pick(v.shown.size())];
      const std::uint64_t line = r.start_line + pick(r.end_line - r.start_line + 1);
      edits.push_back({Kind::kReplace, at(joined(v.lines), line), std::nullopt,
                       "EDITED" + std::to_string(edits.size())});
      picked.push_back({&v, line});
    }
    if (picked.size() == 2 && picked[0].first != picked[1].first) ++mixed;

    // The contract: an anchor comes from the newest kept read that showed its
    // line with its tag; it lands where the diff from that read puts it, or the
    // call is stale (also when no kept read shows it).
    std::vector<std::uint64_t> expect_line;
    bool expect_stale = false;
    for (std::size_t i = 0; i < edits.size(); ++i) {
      const Version* from = nullptr;
      for (const Version* v : kept) {
        const std::uint64_t l = edits[i].start.line;
        const bool shown = std::any_of(v->shown.begin(), v->shown.end(), [l](auto r) {
          return r.start_line <= l && l <= r.end_line;
        });
        if (shown && l <= v->lines.size() && hashline::tag(v->lines[l - 1]) == edits[i].start.tag) {
          from = v;
          break;
        }
      }
      if (from && from != picked[i].first) ++older;
      const std::uint64_t to = from ? where_lines(from->lines, now)[edits[i].start.line - 1] : 0;
      if (to == 0) expect_stale = true;
      // The line it lands on is the line that read showed under the anchor.
      if (to) REQUIRE(now[to - 1] == from->lines[edits[i].start.line - 1]);
      expect_line.push_back(to);
    }
    const std::string now_text = joined(now);
    const auto p = hashline::plan(now_text, edits, reads);
    CAPTURE(now_text);
    CAPTURE(round);
    if (!p && p.error().kind == ErrorKind::kInvalidParams) {  // two anchors on one line
      REQUIRE(edits.size() == 2);
      continue;
    }
    if (expect_stale) {
      REQUIRE_FALSE(p.has_value());
      CHECK(p.error().kind == ErrorKind::kStale);
      ++stale;
      continue;
    }
    REQUIRE_MESSAGE(p.has_value(), p.error().message);
    std::vector<std::string> expect = now;
    for (std::size_t i = 0; i < edits.size(); ++i) {
      CHECK(p->lines[i].start_line == expect_line[i]);
      expect[expect_line[i] - 1] = edits[i].new_text;
    }
    CHECK(splice::apply_edits(now_text, p->edits) == joined(expect));
    ++landed;
  }
  CHECK(landed > 300);
  CHECK(stale > 300);
  CHECK(mixed > 300);
}

TEST_CASE("a replace whose start and end come from reads of different versions is stale") {
  const std::string v1 = numbered(20);
  const std::string v2 = "top\n" + v1;
  hashline::Snapshot s1 = hashline::snapshot(v1), s2 = hashline::snapshot(v2);
  hashline::Reads reads;
  reads.unread_stand = false;
  reads.views.push_back({&s2, {{15, 20}}});
  reads.views.push_back({&s1, {{1, 5}}});
  // Start from the first read (line 3 of v1), end from the second (line 16 of v2).
  auto p = hashline::plan(v2, {{Kind::kReplace, at(v1, 3), at(v2, 16), "X\n"}}, reads);
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().message.find("not shown together by one read") != std::string::npos);
  // Each alone maps through its own read.
  auto q = hashline::plan(v2,
                          {{Kind::kReplace, at(v1, 3), std::nullopt, "A"},
                           {Kind::kReplace, at(v2, 16), std::nullopt, "B"}},
                          reads);
  REQUIRE(q.has_value());
  REQUIRE(q->rebased.size() == 1);
  CHECK(q->rebased[0].line == 4);
  CHECK(splice::apply_edits(v2, q->edits) ==
        "top\nl1\nl2\nA\n" + v1.substr(v1.find("l4\n"), v1.find("l15\n") - v1.find("l4\n")) +
            "B\n" + v1.substr(v1.find("l16\n")));  // line 16 of v2 is l15
  // An anchor no remembered read shows, while others are remembered: stale.
  auto r = hashline::plan(v2, {{Kind::kReplace, at(v2, 10), std::nullopt, "C"}}, reads);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("no read of this file") != std::string::npos);
  reads.unread_stand = true;  // the caller vouched (expectedFingerprint): where it stands
  CHECK(hashline::plan(v2, {{Kind::kReplace, at(v2, 10), std::nullopt, "C"}}, reads).has_value());
}
