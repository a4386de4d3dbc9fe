// The region of a file most similar to a text that was not found in it: what
// no_match and patch_apply errors show, so that a model can copy the right
// lines in one retry.
//
// Windows of the file as long as the needle are voted for by lines equal after
// trimming (weighted by rarity) and by shared identifier tokens; the best few
// are scored line by line with banded edit distances (similarity.h), so the
// cost is bounded for any input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace editd::match {

struct LineRange {
  std::size_t start_line;  // 1-based
  std::size_t end_line;    // 1-based, inclusive
};

// The region of `text` most similar to `needle` (same number of lines), found
// in bounded time. nullopt when text is empty.
struct Closest {
  LineRange lines;
  std::string text;
  double similarity;  // 0..1, rounded down to three decimals
};
std::optional<Closest> closest_region(std::string_view text, std::string_view needle);

// Similarities are reported to three decimals, never rounded up to 1.
double round_down(double similarity);

}  // namespace editd::match
