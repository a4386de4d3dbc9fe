#include "edit/patch/seek.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "edit/match/line_forms.h"
#include "edit/match/tier_table.h"
#include "edit/text/chars.h"

using namespace editd;
using match::LineForm;
using match::TierId;
using match::TierInfo;
namespace seek = patch::seek;

namespace {

// The line a chunk names, long enough for the loose tiers (kMinLooseChars).
const std::string kPattern = "say(\"hello, world\");";

// A line of the file equal to kPattern in `form`, and in no stricter form.
std::string variant(LineForm form) {
  switch (form) {
    case LineForm::kVerbatim:
      return kPattern;
    case LineForm::kTrimEnd:
      return kPattern + " \t";
    case LineForm::kTrim:
      return "\t  " + kPattern;
    case LineForm::kFolded:
      return "say(\u201Chello,\u00A0world\u201D);";
    case LineForm::kBlankRuns:
      return "say(\"hello,   world\");";
  }
  return {};
}

std::string in_form(LineForm form, std::string_view line) {
  std::string out, scratch;
  return std::string(match::in_form(form, line, out, scratch));
}

// kTiers' entries with the patch flag, in kTiers' order.
std::vector<const TierInfo*> patch_tiers() {
  std::vector<const TierInfo*> out;
  for (const TierInfo& t : match::kTiers)
    if (t.in_patch) out.push_back(&t);
  return out;
}

seek::Lines views(const std::vector<std::string>& lines) { return {lines.begin(), lines.end()}; }

}  // namespace

TEST_CASE("apply_patch's seek runs the ladder's tiers marked in_patch, each in its tier's form") {
  const std::vector<const TierInfo*> tiers = patch_tiers();
  std::vector<TierId> ids;
  for (const TierInfo* t : tiers) ids.push_back(t->id);
  CHECK(ids == std::vector<TierId>{TierId::kExact, TierId::kTrailingWhitespace,
                                   TierId::kIndentation, TierId::kUnicode});
  const seek::Lines pattern = {kPattern};
  for (std::size_t k = 0; k < tiers.size(); ++k) {
    const TierInfo& t = *tiers[k];
    CAPTURE(t.name);
    const std::string line = variant(t.form);
    // The line matches in this tier's form and in no form of a tier before it.
    REQUIRE(in_form(t.form, line) == in_form(t.form, kPattern));
    for (std::size_t j = 0; j < k; ++j)
      REQUIRE(in_form(tiers[j]->form, line) != in_form(tiers[j]->form, kPattern));
    const std::vector<std::string> store = {"before", line, "after"};
    const seek::Lines lines = views(store);
    auto f = seek::forward(lines, pattern, 0, false);
    REQUIRE(f);
    CHECK(f->index == 1);
    CHECK(f->tier == t.id);
    auto n = seek::nearest(lines, pattern, 0, 2);
    REQUIRE(n);
    CHECK(n->index == 1);
    CHECK(n->tier == t.id);
  }
  // A tier seek does not run finds nothing, though str_replace's would.
  for (const TierInfo& t : match::kTiers) {
    if (t.in_patch || std::any_of(tiers.begin(), tiers.end(),
                                  [&](const TierInfo* p) { return p->form == t.form; }))
      continue;
    CAPTURE(t.name);
    const std::string line = variant(t.form);
    REQUIRE(in_form(t.form, line) == in_form(t.form, kPattern));
    const std::vector<std::string> store = {"before", line, "after"};
    CHECK_FALSE(seek::forward(views(store), pattern, 0, false));
    CHECK_FALSE(seek::nearest(views(store), pattern, 0, 1));
  }
}

TEST_CASE("seek tries its tiers in kTiers' order: a stricter tier's hit wins wherever it is") {
  // The loosest tier's line first, nearest to the hint; the exact one last.
  std::vector<const TierInfo*> tiers = patch_tiers();
  std::vector<std::string> store;
  for (auto t = tiers.rbegin(); t != tiers.rend(); ++t) store.push_back(variant((*t)->form));
  const seek::Lines pattern = {kPattern};
  for (const TierInfo* t : tiers) {
    CAPTURE(t->name);
    const std::size_t at = static_cast<std::size_t>(
        std::find(store.begin(), store.end(), variant(t->form)) - store.begin());
    REQUIRE(at < store.size());
    auto f = seek::forward(views(store), pattern, 0, false);
    REQUIRE(f);
    CHECK(f->tier == t->id);
    CHECK(f->index == at);
    auto n = seek::nearest(views(store), pattern, 0, 0);
    REQUIRE(n);
    CHECK(n->tier == t->id);
    CHECK(n->index == at);
    store.erase(store.begin() + static_cast<std::ptrdiff_t>(at));  // the next tier's turn
  }
  CHECK_FALSE(seek::forward(views(store), pattern, 0, false));
}

TEST_CASE("seek's loose tier, unicode, is refused below kMinLooseChars, as str_replace's is") {
  std::vector<const TierInfo*> loose;
  for (const TierInfo* t : patch_tiers())
    if (t->loose) loose.push_back(t);
  REQUIRE(loose.size() == 1);
  CHECK(loose.front()->id == TierId::kUnicode);
  for (std::size_t n : {chars::kMinLooseChars - 1, chars::kMinLooseChars}) {
    CAPTURE(n);
    // n non-blank characters: two quotes around n - 2 letters.
    const std::string body(n - 2, 'a');
    const std::vector<std::string> store = {"x", "\u201C" + body + "\u201D", "y"};
    const std::vector<std::string> wanted = {"\"" + body + "\""};
    const seek::Lines lines = views(store), pattern = views(wanted);
    seek::Index index(lines);
    auto f = seek::forward(index, pattern, 0, false);
    auto near = seek::nearest(index, pattern, 0, 0);
    auto refused = seek::folded_too_short(index, pattern, 0);
    if (chars::loose_allowed(n)) {
      REQUIRE(f);
      CHECK(f->tier == TierId::kUnicode);
      CHECK(f->index == 1);
      REQUIRE(near);
      CHECK(near->tier == TierId::kUnicode);
      CHECK_FALSE(refused);
    } else {
      CHECK_FALSE(f);
      CHECK_FALSE(near);
      REQUIRE(refused);
      CHECK(*refused == 1);
    }
  }
}
