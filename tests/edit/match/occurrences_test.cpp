#include "edit/match/occurrences.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <string_view>

#include "edit/text/chars.h"

using namespace editd;

namespace {

constexpr std::size_t npos = std::string_view::npos;

// Random text over a small alphabet, so that long needles partly occur often.
std::string random_text(std::mt19937& rng, std::size_t n, std::string_view alphabet) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
  return s;
}

}  // namespace

TEST_CASE("find agrees with string_view::find for short and long needles") {
  std::mt19937 rng(7);
  for (int round = 0; round < 400; ++round) {
    const std::string_view alphabet = round % 2 == 0 ? "ab" : "ab\n c";
    const std::string text = random_text(rng, 200 + rng() % 3000, alphabet);
    std::string needle;
    if (round % 3 == 0) {
      needle = random_text(rng, 1 + rng() % 600, alphabet);  // mostly absent
    } else {
      const std::size_t at = rng() % text.size();  // present, often past 256 bytes
      needle = text.substr(at, 1 + rng() % 700);
    }
    const std::size_t from = round % 5 == 0 ? rng() % text.size() : 0;
    CHECK_MESSAGE(
        occurrences::find(text, needle, from) == std::string_view(text).find(needle, from),
        "round " << round);
  }
}

TEST_CASE("find on a long needle whose first 256 bytes occur everywhere stays correct") {
  // Every position holds the probe; only the last one the whole needle: the
  // comparisons' budget runs out and the rest of the search is memmem's.
  const std::string text = std::string(100000, 'a') + "b";
  const std::string needle = std::string(5000, 'a') + "b";
  CHECK(occurrences::find(text, needle) == text.size() - needle.size());
  CHECK(occurrences::find(text, std::string(5000, 'a') + "c") == npos);
  CHECK(occurrences::find(text, needle, text.size() - needle.size() + 1) == npos);
}

TEST_CASE("find handles the edges: empty needle, needle longer than the text, from past the end") {
  CHECK(occurrences::find("abc", "", 0) == 0);
  CHECK(occurrences::find("abc", "", 3) == 3);
  CHECK(occurrences::find("abc", "x", 4) == npos);
  CHECK(occurrences::find("abc", "abcd") == npos);
  const std::string long_needle(300, 'x');
  CHECK(occurrences::find(long_needle, long_needle) == 0);
  CHECK(occurrences::find(long_needle.substr(1), long_needle) == npos);
}

TEST_CASE("find_non_ascii finds the first byte above ASCII at any offset") {
  for (std::size_t n : {0u, 1u, 7u, 8u, 63u, 64u, 65u, 200u}) {
    const std::string ascii(n, 'x');
    CHECK(chars::find_non_ascii(ascii, 0) == n);
    CHECK(chars::is_ascii(ascii));
    for (std::size_t at = 0; at < n; at += 13) {
      std::string s = ascii;
      s[at] = static_cast<char>(0xE2);
      CHECK(chars::find_non_ascii(s, 0) == at);
      CHECK(chars::find_non_ascii(s, at) == at);
      CHECK(chars::find_non_ascii(s, at + 1) == n);
      CHECK_FALSE(chars::is_ascii(s));
    }
  }
  CHECK(chars::find_non_ascii("abc", 10) == 3);
}
