// The forms in which a line of the file is compared with a line the model
// sent, shared by str_replace and apply_patch: each tier of the one ladder
// (tier_table.h) names its form, and both str_replace's line tiers (tiers.cpp)
// and apply_patch's seek (patch/seek.h) compare lines in it, so
// that "trailing whitespace", "indentation" and "typography" forgive exactly
// the same in both. The folded form is the one that forgives more than
// whitespace: it folds typographic punctuation and odd spaces to ASCII with
// the one table (text/chars.h), runs only for a text long enough
// (chars::loose_allowed), and a change found under it keeps the file's own
// characters wherever the model did not change them (carry.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace editd::match {

enum class LineForm {
  kVerbatim,   // byte for byte
  kTrimEnd,    // trailing blanks dropped
  kTrim,       // leading and trailing blanks dropped
  kFolded,     // typography folded to ASCII (chars::fold_unicode), then trimmed
  kBlankRuns,  // trimmed, and each run of spaces and tabs one space
};

// How many forms there are: LineForm's values are 0 to kLineForms - 1.
inline constexpr std::size_t kLineForms = static_cast<std::size_t>(LineForm::kBlankRuns) + 1;

// `line` in `form`; the view points into `line`, `out` or `scratch`.
std::string_view in_form(LineForm form, std::string_view line, std::string& out,
                         std::string& scratch);

// Whether `form` forgives more than whitespace: a match under it needs
// chars::kMinLooseChars non-blank characters, and carries the model's change
// onto the file's own characters.
constexpr bool is_loose(LineForm form) { return form == LineForm::kFolded; }

}  // namespace editd::match
