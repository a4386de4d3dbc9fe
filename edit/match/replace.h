// str_replace's matching engine: where oldText is in a file, and what the file
// becomes when newText replaces it.
//
// Input is LF-normalized text without a BOM (see text/text.h); the output is a list of
// edits on that text, which the caller turns into byte splices (change/splice.h).
// Matching runs a ladder of tiers from strict to forgiving; the first tier with
// any hit decides: one hit is applied, several are `ambiguous` (unless
// replaceAll) and no looser tier is tried after that. A miss reports the most
// similar region of the file so that a model can fix its call in one retry.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/splice.h"
#include "edit/error.h"
#include "edit/explain/closest.h"
#include "edit/match/tier_table.h"
#include "edit/text/chars.h"

namespace editd::match {

// The tiers and the modes that run them: tier_table.h (Mode, kTiers).

// Tiers that forgive more than whitespace (unicode, escapes, block) only run
// when oldText has at least this many non-blank characters (code points):
// shorter strings match too much by accident. Exact and whitespace tiers run
// for any oldText. The same rule gates the unicode tier in apply_patch (text/chars.h).
inline constexpr std::size_t kMinLooseChars = chars::kMinLooseChars;

// The block tier (fuzzy) needs oldText to span at least this many lines (after
// blank padding is dropped): its first and last lines anchor the region.
inline constexpr std::size_t kBlockMinLines = 3;

// The block tier accepts a middle line when its similarity to the file's line
// (1 - Levenshtein distance / longer length, after trimming and collapsing
// blanks) is at least this. Lines that the edit changes must be equal instead.
inline constexpr double kBlockLineSimilarity = 0.8;

// The block tier compares lines longer than this (in bytes) for equality only,
// which keeps its cost bounded on minified files.
inline constexpr std::size_t kBlockMaxFuzzyLineBytes = 4096;

// The block tier's work budget, in units: one per line it looks at, one per
// byte of the lines it compares, one per cell of the edit distances it
// computes (similarity::levenshtein_cells). A region is
// checked only where the first and last lines match, but with repeated lines
// that can be everywhere. When the budget runs out the tier stops: it cannot
// tell that exactly one region qualifies, so it matches nothing and the
// no_match says so in data.hint.
inline constexpr std::size_t kBlockBudget = std::size_t{1} << 24;

// On a miss, the tiers that the mode does not run are tried for a hint ("only
// in trailing whitespace, which exact does not forgive"): over the whole file
// up to this size, beyond it only around the closest region (as many lines
// again as oldText on each side), so that a hint never costs a pass over a big
// file per tier.
inline constexpr std::size_t kHintScopeBytes = std::size_t{1} << 20;

// An ambiguous error lists the lines of at most this many candidates.
inline constexpr std::size_t kMaxCandidates = 20;
// An ambiguous error lists the start lines of at most this many regions
// (data.found counts them all).
inline constexpr std::size_t kMaxListedLines = 1000;
// A search keeps at most this many regions, plus one to know that there are
// more: a call that matches more is refused (ambiguous, or too_large with
// replaceAll), so that its memory stays bounded whatever the file holds.
inline constexpr std::size_t kMaxRegions = 100'000;

// "exact" | "standard" | "fuzzy"; nullopt for anything else.
std::optional<Mode> parse_mode(std::string_view s);
std::string_view mode_name(Mode mode);

struct Request {
  std::string_view text;      // the file, LF-normalized, no BOM
  std::string_view old_text;  // as sent, CRLF already folded to LF
  std::string_view new_text;  // as sent, CRLF already folded to LF
  Mode mode = Mode::kStandard;
  bool replace_all = false;
  std::optional<std::size_t> expected_replacements;
  // The most bytes the new text may have (too_large beyond, before it is built).
  std::size_t max_result_bytes = std::numeric_limits<std::size_t>::max();
  // Whether `text` is all ASCII, when the caller knows it (Document::ascii):
  // the forgiving tiers then skip a pass over the file to find out.
  std::optional<bool> text_ascii{};
};

struct Plan {
  std::vector<splice::Edit> edits;  // one per replacement, ascending, on the request's text
  std::string tier;                 // which tier matched, e.g. "exact"; see docs/protocol.md
  std::size_t replacements = 0;
  std::vector<LineRange> lines;  // where each replacement's text lies in the new text
};

// Errors:
// - invalid_params about Input::kOldText (invalid_input) when old_text is empty;
// - no_change when old_text == new_text;
// - no_match with data.closest {startLine, endLine, text, similarity} (omitted if
//   the file is empty) and data.hint where a hint applies;
// - ambiguous with data.lines (1-based start lines of the first
//   kMaxListedLines hits), data.found (how many, up to kMaxRegions + 1),
//   data.tier and data.candidates ({startLine, endLine, text}: the whole lines
//   of each of the first kMaxCandidates hits), when several hits and
//   !replace_all, when the hit count differs from expected_replacements (then
//   data.expected too), or when there are over kMaxRegions hits;
// - too_large (data.replacements, data.limit) when the new text would be
//   larger than max_result_bytes, or replace_all meets over kMaxRegions hits.
Result<Plan> plan_replace(const Request& request);

}  // namespace editd::match
