#include "edit/text/line_window.h"

#include <doctest/doctest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace editd;

namespace {

// ids of `lines` against `p`, one line per character.
std::vector<std::int32_t> ids_of(const line_window::Pattern& p, const std::string& lines) {
  std::vector<std::int32_t> ids;
  for (char c : lines) ids.push_back(p.id(std::string(1, c)));
  return ids;
}

line_window::Pattern pattern_of(const std::string& lines) {
  std::vector<std::string> v;
  for (char c : lines) v.emplace_back(1, c);
  return line_window::Pattern(std::move(v));
}

// The reference: every start compared line by line.
bool at(const std::string& text, const std::string& pat, std::size_t s) {
  return text.compare(s, pat.size(), pat) == 0;
}

}  // namespace

TEST_CASE("equal lines share an id and other lines have none") {
  auto p = pattern_of("abca");
  CHECK(p.size() == 4);
  CHECK(p.ids()[0] == p.ids()[3]);
  CHECK(p.ids()[0] != p.ids()[1]);
  CHECK(p.id("c") == p.ids()[2]);
  CHECK(p.id("z") == -1);
  CHECK(p.may_hold(line_window::hash("b")));
}

TEST_CASE("first finds the smallest or the largest window start in range") {
  const std::string text = "xaabaabaab";
  auto p = pattern_of("aab");
  auto ids = ids_of(p, text);
  auto id_of = [&](std::size_t i) { return ids[i]; };
  CHECK(line_window::first(p, 0, 7, false, id_of) == 1);
  CHECK(line_window::first(p, 2, 7, false, id_of) == 4);
  CHECK(line_window::first(p, 0, 7, true, id_of) == 7);
  CHECK(line_window::first(p, 0, 6, true, id_of) == 4);
  CHECK_FALSE(line_window::first(p, 2, 3, false, id_of));
  CHECK_FALSE(line_window::first(p, 5, 3, false, id_of));
}

TEST_CASE("nearest prefers the later start at equal distance and stays in range") {
  const std::string text = "axxxaxxxa";
  auto p = pattern_of("a");
  auto ids = ids_of(p, text);
  auto id_of = [&](std::size_t i) { return ids[i]; };
  CHECK(line_window::nearest(p, 0, 8, 2, id_of) == 4);
  CHECK(line_window::nearest(p, 0, 8, 6, id_of) == 8);
  CHECK(line_window::nearest(p, 0, 8, 1, id_of) == 0);
  CHECK(line_window::nearest(p, 1, 3, 0, id_of) == std::nullopt);
  CHECK(line_window::nearest(p, 5, 8, 0, id_of) == 8);
}

TEST_CASE("first and nearest agree with a line-by-line search on random repetitive input") {
  std::mt19937 rng(13);
  for (int round = 0; round < 300; ++round) {
    std::string text, pat;
    const std::size_t n = 1 + rng() % 40, k = 1 + rng() % 5;
    for (std::size_t i = 0; i < n; ++i) text += static_cast<char>('a' + rng() % 2);
    for (std::size_t i = 0; i < k; ++i) pat += static_cast<char>('a' + rng() % 2);
    if (k > n) continue;
    auto p = pattern_of(pat);
    auto ids = ids_of(p, text);
    auto id_of = [&](std::size_t i) { return ids[i]; };
    const std::size_t last = n - k;
    const std::size_t lo = rng() % (last + 1), hi = lo + rng() % (last - lo + 1);
    std::optional<std::size_t> up, down;
    for (std::size_t s = lo; s <= hi; ++s)
      if (at(text, pat, s)) {
        if (!up) up = s;
        down = s;
      }
    CHECK(line_window::first(p, lo, hi, false, id_of) == up);
    CHECK(line_window::first(p, lo, hi, true, id_of) == down);
    const std::size_t hint = rng() % (n + 2);
    const std::size_t h = std::max(lo, std::min(hint, hi));
    std::optional<std::size_t> near;
    for (std::size_t d = 0; d <= hi - lo && !near; ++d) {
      if (h + d <= hi && at(text, pat, h + d))
        near = h + d;
      else if (d <= h - lo && d > 0 && at(text, pat, h - d))
        near = h - d;
    }
    CHECK(line_window::nearest(p, lo, hi, hint, id_of) == near);
  }
}
