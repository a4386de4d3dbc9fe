#include "edit/hashline.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edit/splice.h"

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

TEST_CASE("an anchor whose line moved is found within five lines, up or down") {
  const std::string f = numbered(20);
  // Two lines inserted above: l10 is now line 12.
  const std::string down = "n1\nn2\n" + f;
  auto plan = hashline::plan(down, {{Kind::kReplace, tagged(10, "l10"), std::nullopt, "X"}});
  REQUIRE(plan.has_value());
  REQUIRE(plan->rebased.size() == 1);
  CHECK(plan->rebased[0].line == 12);
  CHECK(plan->rebased[0].anchor == "10~" + hashline::tag("l10"));
  CHECK(splice::apply_edits(down, plan->edits).find("l9\nX\nl11\n") != std::string::npos);
  // Three lines removed above: l10 is now line 7.
  const std::string up = f.substr(f.find("l4\n"));
  auto p2 = hashline::plan(up, {{Kind::kInsertBefore, tagged(10, "l10"), std::nullopt, "Y"}});
  REQUIRE(p2.has_value());
  CHECK(p2->rebased[0].line == 7);
  CHECK(splice::apply_edits(up, p2->edits).find("l9\nY\nl10\n") != std::string::npos);
  // Six lines away is too far.
  const std::string far = "1\n2\n3\n4\n5\n6\n" + f;
  auto p3 = hashline::plan(far, {{Kind::kReplace, tagged(10, "l10"), std::nullopt, "X"}});
  REQUIRE_FALSE(p3.has_value());
  CHECK(p3.error().kind == ErrorKind::kStale);
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
  CHECK(e.message.find("no line within 5 lines") != std::string::npos);
}

TEST_CASE("an anchor whose tag is on several nearby lines is stale, naming them") {
  // Line 4 was "x" and is now "y"; "}" is on lines 2 and 6: an anchor "4~<tag of }>" cannot tell.
  const std::string f = "a\n}\nb\ny\nc\n}\nd\n";
  auto p = hashline::plan(f, {{Kind::kReplace, tagged(4, "}"), std::nullopt, "z"}});
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().data["candidates"] == nlohmann::json({2, 6}));
  // On its own line, a duplicated line's anchor is exact: no search, no ambiguity.
  auto q = hashline::plan(f, {{Kind::kReplace, tagged(6, "}"), std::nullopt, "};"}});
  REQUIRE(q.has_value());
  CHECK(q->rebased.empty());
  CHECK(splice::apply_edits(f, q->edits) == "a\n}\nb\ny\nc\n};\nd\n");
}

TEST_CASE("a replace whose start and end moved by different amounts is stale") {
  const std::string f = numbered(10);
  // One line inserted between l3 and l6: start stays, end moves by one.
  const std::string now = "l1\nl2\nl3\nl4\nnew\nl5\nl6\nl7\nl8\nl9\nl10\n";
  auto p = hashline::plan(now, {{Kind::kReplace, at(f, 3), at(f, 6), "X"}});
  REQUIRE_FALSE(p.has_value());
  CHECK(p.error().kind == ErrorKind::kStale);
  CHECK(p.error().data["anchor"] == anchor_of(f, 6));
  // Both moved by the same amount: a rebase of the whole range.
  const std::string shifted = "new\n" + f;
  auto q = hashline::plan(shifted, {{Kind::kReplace, at(f, 3), at(f, 6), "X"}});
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
