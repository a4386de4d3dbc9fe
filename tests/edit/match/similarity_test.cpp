#include "edit/match/similarity.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace editd::similarity;

namespace {

std::size_t full_levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

TEST_CASE("the banded distance equals the full one within the band and exceeds the band beyond") {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string a, b;
    std::size_t la = rng() % 12, lb = rng() % 12;
    for (std::size_t i = 0; i < la; ++i) a += static_cast<char>('a' + rng() % 3);
    for (std::size_t i = 0; i < lb; ++i) b += static_cast<char>('a' + rng() % 3);
    std::size_t band = rng() % 8;
    std::size_t full = full_levenshtein(a, b);
    std::size_t banded = bounded_levenshtein(a, b, band);
    CAPTURE(a);
    CAPTURE(b);
    CAPTURE(band);
    if (full <= band)
      CHECK(banded == full);
    else
      CHECK(banded > band);
  }
}

TEST_CASE("known distances") {
  CHECK(bounded_levenshtein("kitten", "sitting", 10) == 3);
  CHECK(bounded_levenshtein("", "abc", 10) == 3);
  CHECK(bounded_levenshtein("abc", "abc", 0) == 0);
  CHECK(bounded_levenshtein("abc", "abd", 0) > 0);
}

TEST_CASE("at_least decides the threshold exactly") {
  CHECK(at_least("", "", 0.8));
  CHECK(at_least("abcdefghij", "abcdefghXY", 0.8));        // 2 edits of 10
  CHECK_FALSE(at_least("abcdefghij", "abcdefgXYZ", 0.8));  // 3 edits of 10
  CHECK_FALSE(at_least("", "x", 0.8));
}

TEST_CASE("ratio is one minus the distance over the longer length") {
  CHECK(ratio("", "") == 1.0);
  CHECK(ratio("abcd", "abcd") == 1.0);
  CHECK(ratio("abcd", "abce") == doctest::Approx(0.75));
  CHECK(ratio("abc", "") == 0.0);
}

TEST_CASE("ratio stays bounded on long strings") {
  std::string a(20000, 'a'), b(20000, 'b');
  double r = ratio(a, b);
  CHECK(r >= 0.0);
  CHECK(r < 0.1);
}

TEST_CASE("lines_ratio weighs lines by length and counts missing lines as different") {
  CHECK(lines_ratio({}, {}) == 1.0);
  CHECK(lines_ratio({"abcd", "xy"}, {"abcd", "xy"}) == 1.0);
  CHECK(lines_ratio({"abcd"}, {"abcd", "xyzw"}) == doctest::Approx(0.5));
  CHECK(lines_ratio({"abcd", ""}, {"abce", ""}) == doctest::Approx(0.75));
}
