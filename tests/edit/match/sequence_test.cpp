#include "edit/match/sequence.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "edit/change/splice.h"
#include "protocol/error.h"  // name_inputs: the messages in JSON-RPC's names

using namespace editd;
using namespace editd::match;

namespace {

SequenceRequest sequence(std::string_view text, std::vector<Step> steps,
                         Mode mode = Mode::kStandard) {
  SequenceRequest r;
  r.text = text;
  r.steps = std::move(steps);
  r.mode = mode;
  return r;
}

// What the plan makes of the text.
std::string result_of(std::string_view text, const SequencePlan& plan) {
  return splice::apply_edits(text, plan.edits);
}

// Each step applied by plan_replace alone to the text the previous left.
std::string one_by_one(std::string text, const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    Request r{text, s.old_text, s.new_text, Mode::kStandard, s.replace_all,
              s.expected_replacements};
    auto plan = plan_replace(r);
    REQUIRE(plan.has_value());
    text = splice::apply_edits(text, plan->edits);
  }
  return text;
}

std::string message_of(Error e) {
  name_inputs(e);
  return e.message;
}

}  // namespace

TEST_CASE("each edit is matched in the text the edits before it left") {
  const std::string text = "alpha\nbeta\ngamma\n";
  // The second edit matches only what the first wrote.
  auto plan = plan_sequence(sequence(text, {{"beta", "BETA"}, {"BETA\ngamma", "B\nG"}}));
  REQUIRE(plan.has_value());
  CHECK(result_of(text, *plan) == "alpha\nB\nG\n");
  CHECK(plan->replacements == 2);
  REQUIRE(plan->steps.size() == 2);
  CHECK(plan->steps[0].tier == "exact");
  // The first edit's line is where its text lies after the second edit.
  CHECK(plan->edits.size() == 1);
}

TEST_CASE("edits far apart stay separate edits of the original text") {
  std::string text;
  for (int i = 1; i <= 100; ++i) text += "line " + std::to_string(i) + "\n";
  auto plan = plan_sequence(sequence(
      text, {{"line 10\n", "ten\n"}, {"line 50\n", "fifty\nand a half\n"}, {"line 90\n", ""}}));
  REQUIRE(plan.has_value());
  REQUIRE(plan->edits.size() == 3);
  CHECK(plan->edits[0].text == "ten\n");
  CHECK(text.substr(plan->edits[1].begin, plan->edits[1].end - plan->edits[1].begin) ==
        "line 50\n");
  CHECK(result_of(text, *plan) ==
        one_by_one(text, {{"line 10\n", "ten\n"},
                          {"line 50\n", "fifty\nand a half\n"},
                          {"line 90\n", ""}}));
  // Lines in the final text: 10; 50-51; the cut at 91 (90 + the line the second added).
  CHECK(plan->steps[0].lines[0].start_line == 10);
  CHECK(plan->steps[1].lines[0].start_line == 50);
  CHECK(plan->steps[1].lines[0].end_line == 51);
  CHECK(plan->steps[2].lines[0].start_line == 91);
  REQUIRE(plan->lines.size() == 3);
}

TEST_CASE("a later edit that adds lines above an earlier one moves its lines") {
  const std::string text = "a\nb\nc\nd\n";
  auto plan = plan_sequence(sequence(text, {{"d", "D"}, {"a\n", "a\nx\ny\n"}}));
  REQUIRE(plan.has_value());
  CHECK(result_of(text, *plan) == "a\nx\ny\nb\nc\nD\n");
  CHECK(plan->steps[0].lines[0].start_line == 6);
  CHECK(plan->steps[0].lines[0].end_line == 6);
  CHECK(plan->steps[1].lines[0].start_line == 1);
  CHECK(plan->steps[1].lines[0].end_line == 3);
}

TEST_CASE("an edit that rewrites part of an earlier one composes into one edit") {
  const std::string text = "one two three\n";
  auto plan = plan_sequence(
      sequence(text, {{"two", "2a 2b"}, {"2b three", "3"}, {"one 2a", "1"}}));
  REQUIRE(plan.has_value());
  CHECK(result_of(text, *plan) == "1 3\n");
  REQUIRE(plan->edits.size() == 1);
  CHECK(plan->edits[0].begin == 0);
}

TEST_CASE("replaceAll and expectedReplacements inside the edits") {
  const std::string text = "x = 1\ny = 1\nz = 2\n";
  auto plan = plan_sequence(sequence(
      text, {{"= 1", "= 3", true, std::nullopt}, {"= 3", "= 4", false, std::size_t{2}}}));
  REQUIRE_FALSE(plan.has_value());  // the second's expectedReplacements: 2 match, but without replaceAll
  CHECK(plan.error().kind == ErrorKind::kAmbiguous);
  auto ok = plan_sequence(sequence(
      text, {{"= 1", "= 3", true, std::nullopt}, {"= 3", "= 4", true, std::size_t{2}}}));
  REQUIRE(ok.has_value());
  CHECK(result_of(text, *ok) == "x = 4\ny = 4\nz = 2\n");
  CHECK(ok->replacements == 4);
  CHECK(ok->steps[0].replacements == 2);
  auto wrong = plan_sequence(sequence(text, {{"z", "w"}, {"= 1", "= 3", true, std::size_t{3}}}));
  REQUIRE_FALSE(wrong.has_value());
  CHECK(wrong.error().kind == ErrorKind::kAmbiguous);
  CHECK(wrong.error().data["edit"] == 1);
  CHECK(wrong.error().data["expected"] == 3);
}

TEST_CASE("a failing edit is named by its index, with what a single str_replace says") {
  const std::string text = "def f():\n    return 1\n\ndef g():\n    return 2\n";
  auto plan = plan_sequence(sequence(
      text, {{"return 1", "return 10"}, {"def g():\n    return 3\n", "def g():\n    pass\n"}}));
  REQUIRE_FALSE(plan.has_value());
  const Error& e = plan.error();
  CHECK(e.kind == ErrorKind::kNoMatch);
  CHECK(e.data["edit"] == 1);
  CHECK(e.data.contains("closest"));
  CHECK(e.data["closest"]["text"].get<std::string>().find("return 2") != std::string::npos);
  const std::string m = message_of(e);
  CHECK(m.starts_with("edits[1]: "));
  CHECK(m.find("matched against the text that the edits before it left") != std::string::npos);

  auto ambiguous = plan_sequence(sequence(text, {{"return", "yield"}}));
  REQUIRE_FALSE(ambiguous.has_value());
  CHECK(ambiguous.error().kind == ErrorKind::kAmbiguous);
  CHECK(ambiguous.error().data["edit"] == 0);
  CHECK(ambiguous.error().data["candidates"].size() == 2);
  CHECK(message_of(ambiguous.error()).starts_with("edits[0]: "));

  auto same = plan_sequence(sequence(text, {{"f()", "F()"}, {"g()", "g()"}}));
  REQUIRE_FALSE(same.has_value());
  CHECK(same.error().kind == ErrorKind::kNoChange);
  CHECK(same.error().data["edit"] == 1);
}

TEST_CASE("an oldText that is only a copy of the BOM is an invalid edit") {
  auto plan = plan_sequence(sequence("abc\n", {{"a", "A"}, {"\xEF\xBB\xBF", "x"}}));
  REQUIRE_FALSE(plan.has_value());
  Error e = plan.error();
  CHECK(e.kind == ErrorKind::kInvalidParams);
  CHECK(e.data["edit"] == 1);
  e = name_input(e);
  CHECK(e.data["param"] == "edits");
  CHECK(message_of(e).find("edits[1]: oldText") != std::string::npos);
}

TEST_CASE("the edits may not make a text larger than the limit, at any step") {
  const std::string twenty(20, 'b');  // the steps view it: it outlives them
  auto r = sequence("abc\n", {{"b", twenty}, {twenty, "b"}});
  r.max_result_bytes = 10;
  auto plan = plan_sequence(r);
  REQUIRE_FALSE(plan.has_value());
  CHECK(plan.error().kind == ErrorKind::kTooLarge);
  CHECK(plan.error().data["edit"] == 0);
}

TEST_CASE("random sequences of edits compose to what applying them one by one makes") {
  std::mt19937 rng(57);
  const std::vector<std::string> words = {"ab", "cd", "ef", "\n", "gh ", "ij\n", "k"};
  for (int round = 0; round < 400; ++round) {
    std::string text;
    const int n = 5 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) text += words[rng() % words.size()];
    std::string current = text;
    std::vector<std::string> olds, news;
    std::vector<Step> steps;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < edits; ++k) {
      // A substring of the current text that occurs once, replaced.
      std::string old;
      for (int tries = 0; tries < 20 && old.empty(); ++tries) {
        const std::size_t at = rng() % current.size();
        const std::size_t len = 1 + rng() % std::min<std::size_t>(6, current.size() - at);
        std::string cand = current.substr(at, len);
        if (cand.find_first_not_of(" \n") == std::string::npos) continue;
        if (current.find(cand) == current.rfind(cand)) old = cand;
      }
      if (old.empty()) break;
      std::string neu = words[rng() % words.size()] + (rng() % 2 ? std::string("Z") : "");
      if (neu == old) neu += "Y";
      olds.push_back(old);
      news.push_back(neu);
      const std::size_t at = current.find(old);
      current = current.substr(0, at) + neu + current.substr(at + old.size());
    }
    for (std::size_t k = 0; k < olds.size(); ++k) steps.push_back({olds[k], news[k]});
    if (steps.empty()) continue;
    CAPTURE(text);
    CAPTURE(round);
    auto plan = plan_sequence(sequence(text, steps, Mode::kExact));
    REQUIRE(plan.has_value());
    CHECK(result_of(text, *plan) == current);
    // Ascending, not overlapping, not touching.
    for (std::size_t j = 1; j < plan->edits.size(); ++j)
      CHECK(plan->edits[j - 1].end < plan->edits[j].begin);
    // Every step's lines lie within the final text.
    const std::size_t total =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::count(current.begin(),
                                                                      current.end(), '\n')) +
                                     (current.empty() || current.back() == '\n' ? 0 : 1));
    for (const StepPlan& s : plan->steps)
      for (const LineRange& l : s.lines) {
        CHECK(l.start_line >= 1);
        CHECK(l.start_line <= l.end_line);
        CHECK(l.end_line <= total);
      }
  }
}
