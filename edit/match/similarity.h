// Bounded string similarity for the matcher: how alike a line of the file is to
// a line a model quoted, and how alike two regions of lines are.
//
// Everything here is bounded so that a miss on a large file stays cheap: edit
// distances are banded (Ukkonen), so a call costs O(length * band) instead of
// O(length^2), and a caller passes the band or a cell budget. Strings are
// compared byte by byte (UTF-8 bytes, not code points): cheap and good enough to
// rank candidates and to tell drift from a different line.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace editd::similarity {

// The Levenshtein distance between a and b when it is at most max_distance;
// otherwise some value greater than max_distance. Costs
// O(min(|a|, |b|) * max_distance).
std::size_t bounded_levenshtein(std::string_view a, std::string_view b, std::size_t max_distance);

// The most cells bounded_levenshtein() computes for strings of these lengths
// (before their common prefix and suffix are dropped): each byte of the longer
// string costs at most min(shorter, 2 * max_distance + 1) cells; 0 when the
// lengths alone exceed max_distance. What a caller with a budget charges.
std::size_t levenshtein_cells(std::size_t a_size, std::size_t b_size, std::size_t max_distance);

// True iff 1 - distance(a, b) / max(|a|, |b|) >= threshold (two empty strings
// are identical). Exact, and costs O(length * (1 - threshold) * length).
bool at_least(std::string_view a, std::string_view b, double threshold);

// Default cell budget of ratio(): lines longer than about 4,000 bytes get an
// estimate instead of their exact distance.
inline constexpr std::size_t kRatioCellBudget = std::size_t{1} << 16;

// 1 - distance(a, b) / max(|a|, |b|), in 0..1; 1 for two empty strings. The
// distance (past a common prefix and suffix, which cost nothing) is computed
// within a band that keeps the work within `cell_budget` cells, by
// levenshtein_cells(), whatever the lengths; when the true distance lies
// beyond the band, or when even the narrowest useful band (the difference in
// length) would cost more than the budget, a lower bound is used instead (the
// band's edge, or the bytes one string has more often than the other), so the
// result may then overstate the similarity of long strings. Besides the cells,
// a call costs one linear pass over both strings.
double ratio(std::string_view a, std::string_view b, std::size_t cell_budget = kRatioCellBudget);

// Default cell budget of lines_ratio(), shared by all its lines.
inline constexpr std::size_t kLinesCellBudget = std::size_t{1} << 18;

// Similarity of two regions line by line: line i of a against line i of b (a
// missing line counts as fully different), weighted by line length. In 0..1; 1
// for two regions of empty lines. Work stays within `cell_budget` cells (each
// line gets an equal share), as in ratio(), plus one linear pass over both.
double lines_ratio(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                   std::size_t cell_budget = kLinesCellBudget);

}  // namespace editd::similarity
