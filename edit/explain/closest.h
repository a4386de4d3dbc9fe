// The region of a file most similar to a text that was not found in it: what
// no_match and patch_apply errors show, so that a model can copy the right
// lines in one retry.
//
// Windows of the file as long as the needle are voted for by lines equal after
// trimming (weighted by rarity), and by shared identifier tokens when no
// window holds half of the needle's lines as they are; the best few are scored
// line by line with banded edit distances (match/similarity.h), so the cost is
// bounded for any input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/text/line_range.h"

namespace editd::match {

using LineRange = text::LineRange;

// Edit-distance cells that scoring the candidate windows may spend, shared
// among them (similarity::lines_ratio), and bytes of windows and needle it may
// pass over. The first candidate is always scored; when the next would pass
// the budget, the search stops and says so (Closest::complete).
inline constexpr std::size_t kClosestCellBudget = std::size_t{1} << 23;
inline constexpr std::size_t kClosestByteBudget = std::size_t{1} << 24;

// The region of `text` most similar to `needle` (same number of lines), found
// in bounded time: one pass over the file and the needle to vote for windows,
// then the budgets above. nullopt when text is empty.
struct Closest {
  LineRange lines;
  std::string text;
  double similarity;               // 0..1, rounded down to three decimals
  std::size_t begin = 0, end = 0;  // the region's bytes in the text
  // False when the budget ran out before every candidate window was scored: a
  // more similar region may exist.
  bool complete = true;
};
// What an error's data.hint says when the closest region is not `complete`.
inline constexpr const char* kClosestIncomplete =
    "the search for the most similar region stopped at its work budget before it had scored "
    "every candidate, so a more similar region than the closest one given may exist";

// The region as error data shows it (data.closest of no_match and
// patch_apply): {startLine, endLine, text, similarity}.
nlohmann::json closest_json(const Closest& c);

std::optional<Closest> closest_region(std::string_view text, std::string_view needle);
// The same, with `text` already split (text::split_lines), and with the slot
// of every line trimmed (chars::slot of chars::trim) when the caller has them.
std::optional<Closest> closest_region(std::string_view text,
                                      const std::vector<std::string_view>& lines,
                                      std::string_view needle,
                                      const std::vector<std::uint16_t>* trimmed_slots = nullptr);

// Bit i is set when p[i] is a byte of an identifier token (an ASCII letter or
// digit, '_', or any byte of a multi-byte UTF-8 character), for the first
// `len` <= 64 bytes at p: how tokens are read, 64 bytes at a time.
std::uint64_t token_mask(const char* p, std::size_t len);

// Similarities are reported to three decimals, never rounded up to 1.
double round_down(double similarity);

}  // namespace editd::match
