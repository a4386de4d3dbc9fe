#include "edit/chars.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edit/match.h"
#include "edit/patch_seek.h"
#include "edit/text.h"

using namespace editd;

TEST_CASE("the fold table maps typography and special spaces to ASCII") {
  std::string out;
  chars::fold_unicode(
      "\u2018a\u2019 \u201Cb\u201D \u2013\u2014\u2212 \u2026 x\u00A0y\u2009z \u200B\uFEFF|", out);
  CHECK(out == "'a' \"b\" --- ... x y z |");
  CHECK(chars::fold("  \u201Cq\u201D\u00A0 ") == "\"q\"");
}

TEST_CASE("str_replace and apply_patch forgive exactly the same characters") {
  // Characters the table folds, in a file line, written in ASCII by the model
  // (long enough for the loose tiers, kMinLooseChars).
  const std::vector<std::string> file_lines = {
      "say(\u201Chello\u201D);", "it\u2019s \u2013 done\u2026",
      "alpha\u00A0beta\u202Fgamma\u3000delta", "total = x \u2212 y\u200B;", "\u2032prime\u2033 marks"};
  const std::vector<std::string> model_lines = {"say(\"hello\");", "it's - done...", "alpha beta gamma delta", "total = x - y;", "'prime\" marks"};
  for (std::size_t i = 0; i < file_lines.size(); ++i) {
    CAPTURE(file_lines[i]);
    const std::string file = "before\n" + file_lines[i] + "\nafter\n";
    match::Request r{file, model_lines[i], "REPLACED", match::Mode::kStandard, false, std::nullopt};
    auto plan = match::plan_replace(r);
    REQUIRE(plan.has_value());
    CHECK(plan->tier == "unicode");

    std::vector<std::string_view> lines = text::split_lines(file);
    std::vector<std::string_view> pattern{model_lines[i]};
    auto hit = patch::seek::forward(lines, pattern, 0, false);
    REQUIRE(hit.has_value());
    CHECK(hit->index == 1);
    CHECK(hit->tier == patch::seek::Tier::kFold);
  }
}
