// str_replace's matching engine: where oldText is in a file, and what the file
// becomes when newText replaces it.
//
// Input and output are LF-normalized text without a BOM (see text.h); the caller
// maps the result back onto the file's line endings with text::render().
// Matching runs a ladder of tiers from strict to forgiving; the first tier with
// any hit decides: one hit is applied, several are `ambiguous` (unless
// replaceAll) and no looser tier is tried after that. A miss reports the most
// similar region of the file so that a model can fix its call in one retry.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"

namespace editd::match {

enum class Mode { kExact, kStandard, kFuzzy };

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
};

struct LineRange {
  std::size_t start_line;  // 1-based
  std::size_t end_line;    // 1-based, inclusive
};

struct Plan {
  std::string result;                // the whole new text, LF-normalized
  std::string tier;                  // which tier matched, e.g. "exact"; see docs/protocol.md
  std::size_t replacements = 0;
  std::vector<LineRange> lines;      // where each replacement's text lies in `result`
};

// Errors:
// - invalid_params (data.param "oldText") when old_text is empty;
// - no_change when old_text == new_text;
// - no_match with data.closest {startLine, endLine, text, similarity} (omitted if
//   the file is empty) and data.hint where a hint applies;
// - ambiguous with data.lines (1-based start line of every hit) and data.tier,
//   when several hits and !replace_all, or when the hit count differs from
//   expected_replacements (then data.expected and data.found too).
Result<Plan> plan_replace(const Request& request);

// The region of `text` most similar to `needle` (same number of lines), found
// in bounded time. nullopt when text is empty.
struct Closest {
  LineRange lines;
  std::string text;
  double similarity;  // 0..1
};
std::optional<Closest> closest_region(std::string_view text, std::string_view needle);

}  // namespace editd::match
