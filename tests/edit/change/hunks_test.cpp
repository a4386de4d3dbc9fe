#include "edit/change/hunks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace editd;
using hunks::Hunk;

namespace {

// The lines of `text`, each with its '\n' (the last may have none).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t nl = text.find('\n', from);
    const std::size_t to = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(from, to - from));
    from = to;
  }
  return lines;
}

// Lines [from, to) of `lines`, joined (clamped to them).
std::string lines_joined(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < std::min(to, lines.size()); ++i) out += lines[i];
  return out;
}

// `text` with lines [at, at + count) replaced by `by`.
std::string spliced(const std::string& text, std::size_t at, std::size_t count,
                    const std::string& by) {
  const std::vector<std::string> lines = lines_of(text);
  return lines_joined(lines, 0, at) + by + lines_joined(lines, at + count, lines.size());
}

// Every hunk says the truth about `before` and `after`: its old lines, its new
// lines and its context are theirs, ascending, with equal lines between.
void check_hunks(const std::string& before, const std::string& after, const std::vector<Hunk>& hs) {
  const std::vector<std::string> b = lines_of(before), a = lines_of(after);
  std::uint64_t old_end = 0, new_end = 0;
  for (const Hunk& h : hs) {
    CHECK(h.old_start >= old_end);
    CHECK(h.new_start >= new_end);
    CHECK(h.old_start - old_end == h.new_start - new_end);  // equal lines between
    CHECK((h.old_count > 0 || h.new_count > 0));
    CHECK(h.old_text == lines_joined(b, h.old_start, h.old_start + h.old_count));
    CHECK(h.new_text == lines_joined(a, h.new_start, h.new_start + h.new_count));
    const std::size_t above = h.new_start >= hunks::kContext ? h.new_start - hunks::kContext : 0;
    CHECK(h.context_before == lines_joined(a, above, h.new_start));
    const std::size_t end = h.new_start + h.new_count;
    CHECK(h.context_after == lines_joined(a, end, end + hunks::kContext));
    old_end = h.old_start + h.old_count;
    new_end = h.new_start + h.new_count;
  }
}

std::string random_line(std::mt19937& rng) {
  static const char* const kLines[] = {"a\n", "b\n",  "a\r\n",       "c\r\n",
                                       "\n",  "\r\n", "long line\n", "a"};
  return kLines[rng() % std::size(kLines)];
}

// A text of random lines: maybe empty, maybe with a BOM, CRLF, a missing
// final newline.
std::string random_lines_text(std::mt19937& rng) {
  std::string text = rng() % 6 == 0 ? "\xEF\xBB\xBF" : "";
  const std::size_t n = rng() % 12;
  for (std::size_t i = 0; i < n; ++i) {
    std::string line = random_line(rng);
    if (line.back() != '\n') line += '\n';
    text += line;
  }
  if (!text.empty() && rng() % 3 == 0) text.pop_back();
  return text;
}

// `text` after a few random line edits (and maybe its final newline changed).
std::string random_edit(std::mt19937& rng, const std::string& text) {
  std::vector<std::string> lines = lines_of(text);
  if (!lines.empty() && lines.back().back() != '\n') lines.back() += '\n';
  const std::size_t edits = 1 + rng() % 3;
  for (std::size_t e = 0; e < edits; ++e) {
    const std::size_t at = lines.empty() ? 0 : rng() % (lines.size() + 1);
    switch (rng() % 3) {
      case 0:
        if (at < lines.size()) lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
        break;
      case 1:
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), "new " + random_line(rng));
        break;
      default:
        if (at < lines.size()) lines[at] = "changed " + random_line(rng);
        break;
    }
  }
  std::string out = lines_joined(lines, 0, lines.size());
  if (!out.empty() && out.back() == '\n' && rng() % 3 == 0) out.pop_back();
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (!out.empty() && rng() % 4 == 0) out.pop_back();
  return out;
}

std::vector<const Hunk*> pointers(const std::vector<Hunk>& hs) {
  std::vector<const Hunk*> out;
  for (const Hunk& h : hs) out.push_back(&h);
  return out;
}

// `current` with `hs` reverted, or "<conflict of hunk i at line l: found>".
std::string reverted(const std::string& current, const std::vector<const Hunk*>& hs,
                     const std::vector<std::optional<std::uint64_t>>& expected) {
  hunks::Reverted r = hunks::revert(current, hs, expected);
  if (r.bytes) return *r.bytes;
  REQUIRE(r.conflict);
  return "<conflict of hunk " + std::to_string(r.conflict->index) + " at line " +
         std::to_string(r.conflict->line) + ": " + r.conflict->found + ">";
}

// The file of the scenarios: ten lines, then a change of three hunks.
const std::string kBefore = "l0\nl1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n";
const std::string kAfter = "l0\nL1\nl2\nl3\nl4\nL5 one\nL5 two\nl6\nl7\nl9\n";

}  // namespace

TEST_CASE("between trims to the changed lines and keeps every byte") {
  CHECK(hunks::between("", "").empty());
  CHECK(hunks::between("same\n", "same\n").empty());

  // A final newline added: the last line "b" became "b\n".
  std::vector<Hunk> hs = hunks::between("a\nb", "a\nb\n");
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_start == 1 && hs[0].old_count == 1 && hs[0].new_start == 1 &&
         hs[0].new_count == 1));
  CHECK(hs[0].old_text == "b");
  CHECK(hs[0].new_text == "b\n");
  CHECK(hs[0].context_before == "a\n");
  CHECK(hs[0].context_after == "");
  CHECK(hunks::undo_all("a\nb\n", hs) == "a\nb");
  hs = hunks::between("a\nb\n", "a\nb");
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_text == "b\n" && hs[0].new_text == "b"));

  // A file made from nothing, and emptied.
  hs = hunks::between("", "x");
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_count == 0 && hs[0].new_count == 1 && hs[0].new_text == "x"));
  hs = hunks::between("x\ny\n", "");
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_count == 2 && hs[0].new_count == 0 && hs[0].old_text == "x\ny\n"));

  // "\r" is part of a line; a BOM is part of the first.
  hs = hunks::between("one\r\ntwo\r\nthree\r\n", "one\r\ntwo\nthree\r\n");
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_text == "two\r\n" && hs[0].new_text == "two\n"));
  CHECK((hs[0].context_before == "one\r\n" && hs[0].context_after == "three\r\n"));
  hs = hunks::between(
      "\xEF\xBB\xBF"
      "a\nb\n",
      "a\nb\n");
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_start == 0 &&
         hs[0].old_text == "\xEF\xBB\xBF"
                           "a\n" &&
         hs[0].new_text == "a\n"));

  // A deletion: no new lines, its context on both sides.
  hs = hunks::between(kBefore, kAfter);
  check_hunks(kBefore, kAfter, hs);
  REQUIRE(hs.size() == 3);
  CHECK((hs[2].old_start == 8 && hs[2].old_count == 1 && hs[2].new_start == 9 &&
         hs[2].new_count == 0));
  CHECK(hs[2].context_before == "l6\nl7\n");
  CHECK(hs[2].context_after == "l9\n");
}

TEST_CASE("between diffs only the window between the common prefix and suffix") {
  std::string before;
  for (int i = 0; i < 200'000; ++i) before += "line " + std::to_string(i) + "\n";
  const std::size_t at = before.find("line 123456\n");
  std::string after = before;
  after.replace(at, 11, "line 123456 changed");
  // A window of one line on each side: within a limit of one line, so the
  // prefix and suffix must have been trimmed to it.
  std::vector<Hunk> hs = hunks::between(before, after, 1);
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_start == 123456 && hs[0].new_start == 123456 && hs[0].old_count == 1 &&
         hs[0].new_count == 1));
  CHECK(hs[0].old_text == "line 123456\n");
  CHECK(hs[0].new_text == "line 123456 changed\n");
  CHECK(hs[0].context_before == "line 123454\nline 123455\n");
  CHECK(hs[0].context_after == "line 123457\nline 123458\n");

  // Two changes ten lines apart: two hunks, or past the limit one for all.
  const std::string small_before = "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n";
  const std::string small_after = "0\nONE\n2\n3\n4\n5\n6\n7\n8\n9\nTEN\n11\n";
  CHECK(hunks::between(small_before, small_after).size() == 2);
  hs = hunks::between(small_before, small_after, 5);
  REQUIRE(hs.size() == 1);
  CHECK((hs[0].old_start == 1 && hs[0].old_count == 10 && hs[0].new_count == 10));
  CHECK(hunks::undo_all(small_after, hs) == small_before);
}

TEST_CASE("the hunks of random changes undo exactly, together and one by one") {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 3000; ++round) {
    const std::string before = random_lines_text(rng);
    const std::string after = rng() % 10 == 0 ? random_lines_text(rng) : random_edit(rng, before);
    const std::size_t limit = round % 5 == 0 ? rng() % 4 : 20'000;
    CAPTURE(before);
    CAPTURE(after);
    CAPTURE(limit);
    const std::vector<Hunk> hs = hunks::between(before, after, limit);
    CHECK(hs.empty() == (before == after));
    check_hunks(before, after, hs);
    CHECK(hunks::undo_all(after, hs) == before);

    std::vector<std::optional<std::uint64_t>> at;
    for (const Hunk& h : hs) at.push_back(h.new_start);
    // Given in any order, each at its line: the bytes before.
    std::vector<const Hunk*> shuffled = pointers(hs);
    std::vector<std::optional<std::uint64_t>> shuffled_at = at;
    for (std::size_t i = shuffled.size(); i > 1; --i) {
      const std::size_t j = rng() % i;
      std::swap(shuffled[i - 1], shuffled[j]);
      std::swap(shuffled_at[i - 1], shuffled_at[j]);
    }
    CHECK(reverted(after, shuffled, shuffled_at) == before);
    // One alone: only its lines go back.
    for (std::size_t i = 0; i < hs.size(); ++i) {
      const Hunk& h = hs[i];
      CHECK(reverted(after, {&h}, {h.new_start}) ==
            spliced(after, h.new_start, h.new_count, h.old_text));
    }
  }
}

TEST_CASE("follow moves a hunk past later changes, and only where its lines still are") {
  std::mt19937 rng(7);
  int followed = 0, lost = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string before = random_lines_text(rng);
    const std::string after = random_edit(rng, before);
    const std::string later = random_edit(rng, after);
    CAPTURE(before);
    CAPTURE(after);
    CAPTURE(later);
    const std::vector<Hunk> hs = hunks::between(before, after);
    const std::vector<Hunk> later_hs = hunks::between(after, later);
    const std::vector<std::string> later_lines = lines_of(later);
    for (const Hunk& h : hs) {
      const std::optional<std::uint64_t> at = hunks::follow(h, {later_hs});
      if (!at) {
        ++lost;
        continue;
      }
      ++followed;
      // Its new lines stand where follow says, and go back from there.
      CHECK(lines_joined(later_lines, *at, *at + h.new_count) == h.new_text);
      // Old lines without a final newline cannot go back once lines follow.
      const bool glued = !h.old_text.empty() && h.old_text.back() != '\n' &&
                         *at + h.new_count < later_lines.size();
      const std::string back = reverted(later, {&h}, {at});
      if (glued) {
        CHECK(back.starts_with("<conflict"));
      } else if (h.new_count > 0 || !back.starts_with("<conflict")) {
        // A deletion also needs its context, which follow does not look at.
        CHECK(back == spliced(later, *at, h.new_count, h.old_text));
      }
    }
  }
  // Both outcomes were exercised.
  CHECK(followed > 1000);
  CHECK(lost > 100);
}

TEST_CASE("follow shifts past hunks above, keeps past hunks below, and gives up inside") {
  Hunk h;
  h.new_start = 10;
  h.new_count = 3;  // lines 10, 11, 12
  auto change = [](std::uint64_t old_start, std::uint64_t old_count, std::uint64_t new_count) {
    Hunk g;
    g.old_start = g.new_start = old_start;
    g.old_count = old_count;
    g.new_count = new_count;
    return std::vector<Hunk>{g};
  };
  CHECK(hunks::follow(h, {}) == 10);
  CHECK(hunks::follow(h, {change(2, 1, 4)}) == 13);   // above: +3
  CHECK(hunks::follow(h, {change(8, 2, 0)}) == 8);    // just above: -2
  CHECK(hunks::follow(h, {change(10, 0, 2)}) == 12);  // inserted just above
  CHECK(hunks::follow(h, {change(13, 0, 2)}) == 10);  // inserted just below
  CHECK(hunks::follow(h, {change(13, 5, 1)}) == 10);  // below
  CHECK_FALSE(hunks::follow(h, {change(11, 0, 1)}));  // inserted inside
  CHECK_FALSE(hunks::follow(h, {change(12, 1, 1)}));  // replaced its last line
  CHECK_FALSE(hunks::follow(h, {change(5, 6, 0)}));   // removed its first line
  CHECK(hunks::follow(h, {change(0, 0, 5), change(20, 1, 0), change(1, 1, 0)}) == 14);
  // One change's hunks are all in the coordinates of the file it found.
  std::vector<Hunk> two = change(0, 1, 3);
  two.push_back(change(9, 1, 2)[0]);
  CHECK(hunks::follow(h, {two}) == 13);

  // A deletion is a point between lines 4 and 5.
  Hunk point;
  point.new_start = 5;
  CHECK(hunks::follow(point, {change(4, 1, 2)}) == 6);   // the line above it
  CHECK(hunks::follow(point, {change(5, 1, 2)}) == 5);   // the line below it
  CHECK_FALSE(hunks::follow(point, {change(3, 3, 1)}));  // the lines around it
  CHECK_FALSE(hunks::follow(point, {change(5, 0, 1)}));  // inserted at it: a guess
}

TEST_CASE("one hunk of three is reverted after an unrelated edit above it") {
  const std::vector<Hunk> hs = hunks::between(kBefore, kAfter);
  REQUIRE(hs.size() == 3);
  // Someone adds two lines at the top, and changes l9.
  const std::string now = "new a\nnew b\nl0\nL1\nl2\nl3\nl4\nL5 one\nL5 two\nl6\nl7\nl9 later\n";
  const std::vector<Hunk> later = hunks::between(kAfter, now);
  const std::optional<std::uint64_t> at = hunks::follow(hs[1], {later});
  CHECK(at == hs[1].new_start + 2);
  CHECK(reverted(now, {&hs[1]}, {at}) ==
        "new a\nnew b\nl0\nL1\nl2\nl3\nl4\nl5\nl6\nl7\nl9 later\n");
  // Not knowing where: found by its lines and context all the same.
  CHECK(reverted(now, {&hs[1]}, {std::nullopt}) ==
        "new a\nnew b\nl0\nL1\nl2\nl3\nl4\nl5\nl6\nl7\nl9 later\n");
  // A wrong line: looked for elsewhere, found once.
  CHECK(reverted(now, {&hs[1]}, {0}) == "new a\nnew b\nl0\nL1\nl2\nl3\nl4\nl5\nl6\nl7\nl9 later\n");
  // The first hunk too, in the other order.
  CHECK(reverted(now, {&hs[1], &hs[0]}, {at, hunks::follow(hs[0], {later})}) ==
        "new a\nnew b\nl0\nl1\nl2\nl3\nl4\nl5\nl6\nl7\nl9 later\n");
}

TEST_CASE("a hunk whose lines were changed since is a conflict naming the lines now there") {
  const std::vector<Hunk> hs = hunks::between(kBefore, kAfter);
  REQUIRE(hs.size() == 3);
  const std::string now = "l0\nL1\nl2\nl3\nl4\nL5 one\nL5 two, edited\nl6\nl7\nl9\n";
  const std::vector<Hunk> later = hunks::between(kAfter, now);
  CHECK_FALSE(hunks::follow(hs[1], {later}));
  hunks::Reverted r = hunks::revert(now, {&hs[0], &hs[1]}, {0, std::nullopt});
  CHECK_FALSE(r.bytes);
  REQUIRE(r.conflict);
  CHECK(r.conflict->index == 1);
  CHECK(r.conflict->line == 5);  // its new_start, where it was
  CHECK(r.conflict->found == "L5 one\nL5 two, edited\nl6\nl7\n");
  // The hunks it did not touch still go back.
  CHECK(reverted(now, {&hs[0], &hs[2]}, {1, 9}) ==
        "l0\nl1\nl2\nl3\nl4\nL5 one\nL5 two, edited\nl6\nl7\nl8\nl9\n");
  // Past the end: nothing there.
  r = hunks::revert("l0\n", {&hs[1]}, {7});
  REQUIRE(r.conflict);
  CHECK((r.conflict->line == 7 && r.conflict->found.empty()));
  // What is shown is bounded.
  Hunk wide;
  wide.new_start = 0;
  wide.new_count = 1;
  wide.new_text = "absent\n";
  r = hunks::revert(std::string(10'000, 'x') + "\n", {&wide}, {0});
  REQUIRE(r.conflict);
  CHECK(r.conflict->found == std::string(hunks::kFoundMax, 'x'));
}

TEST_CASE("a deletion goes back between its context, and not where it became ambiguous") {
  const std::vector<Hunk> hs = hunks::between(kBefore, kAfter);
  REQUIRE(hs.size() == 3);
  const Hunk& deletion = hs[2];
  // l0 changed since: the deletion's place moved by nothing.
  const std::string now = "L0\nL1\nl2\nl3\nl4\nL5 one\nL5 two\nl6\nl7\nl9\n";
  CHECK(reverted(now, {&deletion}, {hunks::follow(deletion, {hunks::between(kAfter, now)})}) ==
        "L0\nL1\nl2\nl3\nl4\nL5 one\nL5 two\nl6\nl7\nl8\nl9\n");
  // A line put where l8 was: follow and the context both refuse.
  const std::string filled = "l0\nL1\nl2\nl3\nl4\nL5 one\nL5 two\nl6\nl7\nl8 again\nl9\n";
  const std::optional<std::uint64_t> at = hunks::follow(deletion, {hunks::between(kAfter, filled)});
  CHECK_FALSE(at);
  CHECK(reverted(filled, {&deletion}, {at}) == "<conflict of hunk 0 at line 9: l8 again\nl9\n>");
  // At the right line but with its context gone: refused there too.
  const std::string moved = "l0\nL1\nl2\nl3\nl4\nL5 one\nL5 two\nl6\nl7 edited\nl9\n";
  CHECK(reverted(moved, {&deletion}, {9}).starts_with("<conflict of hunk 0 at line 9"));
  // A file emptied, then written again: its empty context is the file's edges.
  const std::vector<Hunk> emptied = hunks::between("gone\n", "");
  REQUIRE(emptied.size() == 1);
  CHECK(reverted("", pointers(emptied), {0}) == "gone\n");
  CHECK(reverted("written\n", pointers(emptied), {0}).starts_with("<conflict"));
}

TEST_CASE("two places that both fit are a conflict, not a guess") {
  const std::string before = "x\nkeep\nx\nkeep\nx\n";
  const std::string after = "x\nkeep\nx\nSET\nkeep\nx\n";  // SET inserted at line 3
  const std::vector<Hunk> hs = hunks::between(before, after);
  REQUIRE(hs.size() == 1);
  CHECK(hs[0].new_text == "SET\n");
  // Now the block around it is there twice.
  const std::string now = "x\nkeep\nx\nSET\nkeep\nx\nkeep\nx\nSET\nkeep\nx\n";
  CHECK(reverted(now, pointers(hs), {std::nullopt}) ==
        "<conflict of hunk 0 at line 3: SET\nkeep\nx\n>");
  // Where its line still is, the expected place decides.
  CHECK(reverted(now, pointers(hs), {8}) == "x\nkeep\nx\nSET\nkeep\nx\nkeep\nx\nkeep\nx\n");
  // The same hunk twice: their places overlap, a conflict of the second.
  CHECK(reverted(after, {&hs[0], &hs[0]}, {3, 3}) ==
        "<conflict of hunk 1 at line 3: SET\nkeep\nx\n>");
}

TEST_CASE("places that meet: a point at the edge of lines is not a clash, inside it is") {
  // Hunks of different changes of "a\nb\nc\nd\n", by hand: lines b and c
  // that were "B\n", and points (deletions) between its lines.
  const std::string now = "a\nb\nc\nd\n";
  auto point = [](std::uint64_t at, std::string old_text, std::string context_before,
                  std::string context_after) {
    Hunk h;
    h.old_start = h.new_start = at;
    h.old_count = 1;
    h.old_text = std::move(old_text);
    h.context_before = std::move(context_before);
    h.context_after = std::move(context_after);
    return h;
  };
  Hunk lines;
  lines.old_start = lines.new_start = 1;
  lines.old_count = 1;
  lines.new_count = 2;
  lines.old_text = "B\n";
  lines.new_text = "b\nc\n";
  const Hunk above = point(1, "x\n", "a\n", "b\nc\n");
  const Hunk also_above = point(1, "y\n", "a\n", "b\nc\n");
  const Hunk inside = point(2, "z\n", "a\nb\n", "c\nd\n");
  const Hunk below = point(3, "w\n", "b\nc\n", "d\n");
  CHECK(reverted(now, {&lines, &above}, {1, 1}) == "a\nx\nB\nd\n");
  CHECK(reverted(now, {&above, &lines}, {1, 1}) == "a\nx\nB\nd\n");
  CHECK(reverted(now, {&below, &lines}, {3, 1}) == "a\nB\nw\nd\n");
  CHECK(reverted(now, {&above, &below}, {1, 3}) == "a\nx\nb\nc\nw\nd\n");
  // Two points at one place: which old lines go first would be a guess.
  CHECK(reverted(now, {&above, &also_above}, {1, 1}) == "<conflict of hunk 1 at line 1: b\nc\n>");
  CHECK(reverted(now, {&lines, &inside}, {1, 2}) == "<conflict of hunk 1 at line 2: c\nd\n>");
  CHECK(reverted(now, {&inside, &lines}, {2, 1}) == "<conflict of hunk 1 at line 1: b\nc\nd\n>");
}

TEST_CASE("CRLF lines and a missing final newline survive a revert") {
  const std::string before = "one\r\ntwo\r\nthree";
  const std::string after = "one\r\nTWO\r\nthree\r\nfour";
  const std::vector<Hunk> hs = hunks::between(before, after);
  check_hunks(before, after, hs);
  CHECK(hunks::undo_all(after, hs) == before);
  // Lines added above since: still back to its own bytes.
  const std::string now = "zero\r\n" + after;
  std::vector<std::optional<std::uint64_t>> at;
  for (const Hunk& h : hs) at.push_back(hunks::follow(h, {hunks::between(after, now)}));
  CHECK(reverted(now, pointers(hs), at) == "zero\r\n" + before);
  // Old lines without a final newline go back only at the file's end.
  const std::vector<Hunk> ended = hunks::between("a\nb", "a\nb\n");
  CHECK(reverted("a\nb\n", pointers(ended), {1}) == "a\nb");
  CHECK(reverted("a\nb\nc\n", pointers(ended), {1}).starts_with("<conflict"));
}

TEST_CASE("undo_all refuses hunks that are not where they say") {
  const std::vector<Hunk> hs = hunks::between(kBefore, kAfter);
  CHECK(hunks::undo_all(kAfter, hs) == kBefore);
  CHECK_FALSE(hunks::undo_all("l0\n" + kAfter, hs));
  CHECK_FALSE(hunks::undo_all("", hs));
  std::vector<Hunk> reversed(hs.rbegin(), hs.rend());
  CHECK_FALSE(hunks::undo_all(kAfter, reversed));
  Hunk miscounted = hs[0];
  miscounted.new_count = 2;
  CHECK_FALSE(hunks::undo_all(kAfter, {miscounted}));
  CHECK(hunks::undo_all("unchanged", {}) == "unchanged");
  // Old lines without a final newline were the file's end.
  const std::vector<Hunk> ended = hunks::between("a\nb", "a\nb\n");
  CHECK(hunks::undo_all("a\nb\n", ended) == "a\nb");
  CHECK_FALSE(hunks::undo_all("a\nb\nc\n", ended));
}

TEST_CASE("held_by counts the hunks' texts") {
  Hunk h;
  h.old_text = "abc";
  h.new_text = "de";
  h.context_before = "f";
  h.context_after = "ghij";
  CHECK(hunks::held_by({h, h}) == 20);
  CHECK(hunks::held_by({}) == 0);
}

TEST_CASE("of_splices gives the hunks between() gives for the whole file, splices far apart or near") {
  std::mt19937 rng(57);
  for (int round = 0; round < 300; ++round) {
    std::string file;
    const std::size_t bom = round % 5 == 0 ? 3 : 0;
    if (bom) file = "\xEF\xBB\xBF";
    const int lines = 5 + static_cast<int>(rng() % 80);
    for (int i = 0; i < lines; ++i)
      file += "l" + std::to_string(i) + (rng() % 4 == 0 ? "\r\n" : "\n");
    const std::string_view body = std::string_view(file).substr(bom);
    std::vector<splice::Splice> splices;
    std::size_t pos = 0;
    while (pos < body.size()) {
      pos += rng() % (rng() % 2 ? 40 : 400);
      if (pos >= body.size()) break;
      const std::size_t end = std::min(body.size(), pos + rng() % 12);
      std::string bytes;
      for (int k = static_cast<int>(rng() % 3); k > 0; --k)
        bytes += "n" + std::to_string(rng() % 5) + (rng() % 2 ? "\n" : "");
      splices.push_back({pos, end, bytes});
      pos = end + 1;
    }
    if (splices.empty()) continue;
    std::string after = file.substr(0, bom);
    std::size_t at = 0;
    for (const splice::Splice& s : splices) {
      after.append(body.substr(at, s.begin - at));
      after.append(s.bytes);
      at = s.end;
    }
    after.append(body.substr(at));
    CAPTURE(round);
    const std::vector<hunks::Hunk> got = hunks::of_splices(file, bom, splices);
    const std::vector<hunks::Hunk> want = hunks::between(file, after);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i].old_start == want[i].old_start);
      CHECK(got[i].old_count == want[i].old_count);
      CHECK(got[i].new_start == want[i].new_start);
      CHECK(got[i].new_count == want[i].new_count);
      CHECK(got[i].old_text == want[i].old_text);
      CHECK(got[i].new_text == want[i].new_text);
      CHECK(got[i].context_before == want[i].context_before);
      CHECK(got[i].context_after == want[i].context_after);
    }
  }
}
