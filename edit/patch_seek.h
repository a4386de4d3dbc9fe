// Locating a chunk's old lines in a file, for apply_patch.
//
// Matching runs in tiers, from strict to forgiving, as Codex's apply_patch does:
// exact, then trailing whitespace ignored, then leading and trailing whitespace
// ignored, then also typographic punctuation and odd spaces folded to ASCII by
// the table str_replace's unicode tier uses (chars::fold_unicode), under the
// same rule: only for a pattern of at least chars::kMinLooseChars non-blank
// characters. The first tier with any hit decides. Lines are LF-normalized and
// carry no "\n".
//
// Each tier finds windows by the pattern's interned lines (line_window.h):
// linear in the lines it passes plus the pattern, never lines x pattern.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace editd::patch::seek {

using Lines = std::vector<std::string_view>;

enum class Tier { kExact, kTrimEnd, kTrim, kFold };

struct Hit {
  std::size_t index;  // 0-based line where the pattern starts
  Tier tier;
};

// Codex's search: the first position at or after `from`, tier by tier. With
// `end_of_file`, the position that ends the pattern at the last line is tried
// first (all tiers) before the search from `from`. An empty pattern is never
// searched for: the caller decides where an insertion goes.
std::optional<Hit> forward(const Lines& lines, const Lines& pattern, std::size_t from,
                           bool end_of_file);

// The unified-diff offset search: for each tier, the position nearest to `hint`
// within [from, lines.size() - pattern.size()], trying hint, hint+1, hint-1,
// hint+2, hint-2... (after before before at equal distance).
std::optional<Hit> nearest(const Lines& lines, const Lines& pattern, std::size_t from,
                           std::size_t hint);

// For a pattern too short for the folding tier (fewer than kMinLooseChars
// non-blank characters): the first position at or after `from` where that tier
// would have matched. nullopt when the pattern is long enough (the tier ran) or
// does not occur folded. Only for the error that explains the refusal.
std::optional<std::size_t> folded_too_short(const Lines& lines, const Lines& pattern,
                                            std::size_t from);

// Folds typographic punctuation and odd spaces to ASCII (chars::fold_unicode)
// and trims, as the last tier compares lines.
std::string fold(std::string_view line);

}  // namespace editd::patch::seek
