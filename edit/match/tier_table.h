// THE ladder: the one ordered list of matching tiers that str_replace
// (replace.h, run by Ladder::run in tiers.cpp) and apply_patch's seek
// (patch/seek.h) both use. Each tier names the line form it compares in
// (line_forms.h), whether it forgives more than whitespace (and so needs
// chars::kMinLooseChars non-blank characters), the least mode that runs it,
// whether a change it finds keeps the file's own characters (carry.h), and
// whether seek runs it. str_replace runs the tiers its mode admits; seek runs
// the ones marked `in_patch`, in the same order, so "trailing whitespace",
// "indentation" and "unicode" forgive exactly the same in both. Why a text
// matched no tier is explained apart from this list (miss.h, patch/miss.h).
// No tier reads escapes written out (`\n` for a line break): an oldText that
// matches only so read is refused, with the region it would match (miss.cpp),
// since the model that wrote it did not write the text a guess would apply.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "edit/match/line_forms.h"

namespace editd::match {

// The tiers, in the order they run (docs/protocol.md, Matching, describes each):
// - exact: "exact";
// - standard adds "trailing_whitespace", "indentation", "unicode",
//   "blank_padding";
// - fuzzy adds "blank_runs", "block".
// "line_numbers" names a match found (by any tier the mode runs) after
// line-number prefixes on every line of oldText were stripped (standard and fuzzy).
enum class Mode { kExact, kStandard, kFuzzy };

enum class TierId {
  kExact,
  kTrailingWhitespace,
  kIndentation,
  kUnicode,
  kBlankPadding,
  kBlankRuns,
  kBlock,
};

struct TierInfo {
  TierId id;
  std::string_view name;   // str_replace's plan.tier, data.tier
  std::string_view drift;  // for hints: what the tier forgives
  bool loose;              // needs kMinLooseChars
  Mode min_mode;           // str_replace runs it from this mode on
  LineForm form;           // how it compares a line of the file with one of oldText
  bool carries;            // a changed line keeps the file's own characters (carry.h)
  bool in_patch;           // apply_patch's seek runs it too
};

// The ladder, in the order it runs.
inline constexpr std::array<TierInfo, 7> kTiers = {{
    {TierId::kExact, "exact", "nothing", false, Mode::kExact, LineForm::kVerbatim, false, true},
    {TierId::kTrailingWhitespace, "trailing_whitespace", "trailing whitespace", false,
     Mode::kStandard, LineForm::kTrimEnd, false, true},
    {TierId::kIndentation, "indentation", "indentation", false, Mode::kStandard, LineForm::kTrim,
     false, true},
    {TierId::kUnicode, "unicode", "typographic quotes, dashes or special spaces", true,
     Mode::kStandard, LineForm::kFolded, true, true},
    {TierId::kBlankPadding, "blank_padding", "blank lines around it", false, Mode::kStandard,
     LineForm::kTrim, false, false},
    {TierId::kBlankRuns, "blank_runs", "runs of spaces and tabs", false, Mode::kFuzzy,
     LineForm::kBlankRuns, false, false},
    {TierId::kBlock, "block", "small differences in lines between its first and last", true,
     Mode::kFuzzy, LineForm::kBlankRuns, false, false},
}};

// The tier `id` in kTiers, which lists the tiers in TierId's order.
constexpr const TierInfo& tier_info(TierId id) { return kTiers[static_cast<std::size_t>(id)]; }
static_assert([] {
  for (std::size_t i = 0; i < kTiers.size(); ++i)
    if (static_cast<std::size_t>(kTiers[i].id) != i) return false;
  return true;
}());

// seek compares whole lines in the tier's form and nothing else (no
// unescaping, no padding dropped, no fuzzy block), so a tier it runs is loose,
// and carries, exactly when its form is.
static_assert([] {
  for (const TierInfo& t : kTiers)
    if (t.in_patch && (t.loose != is_loose(t.form) || t.carries != is_loose(t.form))) return false;
  return true;
}());

// Whether str_replace in `mode` runs the tier `t`.
constexpr bool mode_runs(Mode mode, const TierInfo& t) {
  return static_cast<int>(t.min_mode) <= static_cast<int>(mode);
}

}  // namespace editd::match
