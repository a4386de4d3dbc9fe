#include "edit/text/chars.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "edit/match/replace.h"
#include "edit/patch/seek.h"
#include "edit/text/text.h"

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
      "alpha\u00A0beta\u202Fgamma\u3000delta", "total = x \u2212 y\u200B;",
      "\u2032prime\u2033 marks"};
  const std::vector<std::string> model_lines = {"say(\"hello\");", "it's - done...",
                                                "alpha beta gamma delta", "total = x - y;",
                                                "'prime\" marks"};
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
    CHECK(hit->tier == match::TierId::kUnicode);
  }
}

TEST_CASE("the vector newline scans agree with a byte-by-byte count at every offset") {
  // Texts of every length up to 100 over "\r", "\n" and "a", so that "\r\n"
  // straddles each 16- and 32-byte boundary and the scalar tails run.
  std::mt19937 rng(7);
  const char kAlphabet[] = {'\r', '\n', 'a'};
  for (int round = 0; round < 2000; ++round) {
    std::string s(static_cast<std::size_t>(round % 101), 'a');
    for (char& c : s) c = kAlphabet[rng() % 3];
    std::size_t all = 0, after_cr = 0;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\n') continue;
      ++all;
      at.push_back(i);
      if (i > 0 && s[i - 1] == '\r') ++after_cr;
    }
    const chars::Newlines got = chars::count_line_ends(s);
    CHECK(got.all == all);
    CHECK(got.after_cr == after_cr);
    CHECK(chars::count_newlines(s) == all);
    std::vector<std::size_t> seen;
    chars::for_each_newline(s, [&](std::size_t i) { seen.push_back(i); });
    CHECK(seen == at);
  }
  // More than 255 blocks of newlines: the per-byte counters are summed in time.
  const std::string many(16 * 600 + 5, '\n');
  CHECK(chars::count_line_ends(many).all == many.size());
  const std::string crlf = [] {
    std::string out;
    for (int i = 0; i < 5000; ++i) out += "\r\n";
    return out;
  }();
  CHECK(chars::count_line_ends(crlf).after_cr == 5000);
}
