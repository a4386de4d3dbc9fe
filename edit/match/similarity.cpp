#include "edit/match/similarity.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace editd::similarity {

std::size_t bounded_levenshtein(std::string_view a, std::string_view b, std::size_t max_distance) {
  // A common prefix and suffix cost nothing.
  while (!a.empty() && !b.empty() && a.front() == b.front()) {
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  while (!a.empty() && !b.empty() && a.back() == b.back()) {
    a.remove_suffix(1);
    b.remove_suffix(1);
  }
  if (a.size() > b.size()) std::swap(a, b);  // a is the shorter: the columns
  const std::size_t la = a.size(), lb = b.size(), d = max_distance;
  const std::size_t inf = d + 1;
  if (lb - la > d) return inf;
  if (la == 0) return lb;

  // Rows run over b, columns over a; only cells with |row - column| <= d are
  // computed, and the cell just past each row's band is kept at `inf` so that
  // the next row never reads a stale value.
  std::vector<std::size_t> prev(la + 2, inf), cur(la + 2, inf);
  for (std::size_t j = 0; j <= std::min(la, d); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= lb; ++i) {
    const std::size_t lo = i > d ? i - d : 0;
    const std::size_t hi = std::min(la, i + d);
    std::size_t row_min = inf;
    if (lo == 0) {
      cur[0] = i;
      row_min = i;
    } else {
      cur[lo - 1] = inf;
    }
    for (std::size_t j = std::max<std::size_t>(lo, 1); j <= hi; ++j) {
      std::size_t v = prev[j - 1] + (a[j - 1] != b[i - 1] ? 1 : 0);
      v = std::min(v, prev[j] + 1);
      v = std::min(v, cur[j - 1] + 1);
      cur[j] = std::min(v, inf);
      row_min = std::min(row_min, cur[j]);
    }
    cur[hi + 1] = inf;
    if (row_min > d) return inf;
    std::swap(prev, cur);
  }
  return std::min(prev[la], inf);
}

std::size_t levenshtein_cells(std::size_t a_size, std::size_t b_size, std::size_t max_distance) {
  const std::size_t longer = std::max(a_size, b_size), shorter = std::min(a_size, b_size);
  if (longer - shorter > max_distance) return 0;
  const std::size_t width = max_distance >= shorter / 2 ? shorter : 2 * max_distance + 1;
  return longer * std::min(shorter, width);
}

bool at_least(std::string_view a, std::string_view b, double threshold) {
  const std::size_t max_len = std::max(a.size(), b.size());
  if (max_len == 0) return true;
  const double allowed = (1.0 - threshold) * static_cast<double>(max_len);
  if (allowed < 0) return false;
  const auto d = static_cast<std::size_t>(std::floor(allowed + 1e-9));
  return bounded_levenshtein(a, b, d) <= d;
}

namespace {

// A lower bound of the distance: every byte that one string has more often
// than the other needs an edit.
std::size_t histogram_bound(std::string_view a, std::string_view b) {
  long counts[256] = {};
  for (char c : a) ++counts[static_cast<unsigned char>(c)];
  for (char c : b) --counts[static_cast<unsigned char>(c)];
  std::size_t more = 0, fewer = 0;
  for (long n : counts) (n > 0 ? more : fewer) += static_cast<std::size_t>(n > 0 ? n : -n);
  return std::max(more, fewer);
}

// max_len - distance, with the distance banded to stay within `cell_budget`
// cells; past the band, or when even the narrowest band that can reach the end
// (the difference in length) would cost more, the distance is estimated from
// below.
std::size_t banded_same(std::string_view a, std::string_view b, std::size_t cell_budget) {
  const std::size_t max_len = std::max(a.size(), b.size());
  if (max_len == 0) return 0;
  // A common prefix and suffix cost nothing, and are not charged.
  std::size_t common = 0;
  while (!a.empty() && !b.empty() && a.front() == b.front()) {
    a.remove_prefix(1);
    b.remove_prefix(1);
    ++common;
  }
  while (!a.empty() && !b.empty() && a.back() == b.back()) {
    a.remove_suffix(1);
    b.remove_suffix(1);
    ++common;
  }
  const std::size_t longer = std::max(a.size(), b.size());
  const std::size_t shorter = std::min(a.size(), b.size());
  std::size_t dist = longer;
  if (shorter > 0) {
    const std::size_t least_band = longer - shorter;
    if (levenshtein_cells(a.size(), b.size(), least_band) > cell_budget) {
      dist = histogram_bound(a, b);
    } else {
      // The widest band within the budget: each of the longer string's bytes
      // costs min(shorter, 2 * band + 1) cells.
      std::size_t band = longer;
      if (levenshtein_cells(a.size(), b.size(), band) > cell_budget)
        band = (cell_budget / longer - 1) / 2;
      band = std::max(band, least_band);
      dist = bounded_levenshtein(a, b, band);
      if (dist > band) dist = std::max(band + 1, histogram_bound(a, b));
    }
  }
  dist = std::min(dist, longer);
  return common + longer - dist;
}

}  // namespace

double ratio(std::string_view a, std::string_view b, std::size_t cell_budget) {
  const std::size_t max_len = std::max(a.size(), b.size());
  if (max_len == 0) return 1.0;
  return static_cast<double>(banded_same(a, b, cell_budget)) / static_cast<double>(max_len);
}

double lines_ratio(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
                   std::size_t cell_budget) {
  const std::size_t n = std::max(a.size(), b.size());
  if (n == 0) return 1.0;
  const std::size_t per_line = cell_budget / n;
  std::size_t total = 0, same = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= a.size()) {
      total += b[i].size();
    } else if (i >= b.size()) {
      total += a[i].size();
    } else {
      total += std::max(a[i].size(), b[i].size());
      same += banded_same(a[i], b[i], per_line);
    }
  }
  if (total == 0) return 1.0;
  return static_cast<double>(same) / static_cast<double>(total);
}

}  // namespace editd::similarity
