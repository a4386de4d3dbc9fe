#include "edit/match/occurrences.h"

#include <string.h>  // memmem

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace editd::occurrences {

namespace {

// Needles up to this long go to memmem(3), which glibc makes fast for them.
constexpr std::size_t kShortNeedle = 256;

template <class T>
std::vector<std::size_t> kmp(std::span<const T> text, std::span<const T> pattern) {
  std::vector<std::size_t> starts;
  const std::size_t k = pattern.size();
  if (k == 0 || k > text.size()) return starts;
  // border[i]: length of the longest proper border of pattern[0, i].
  std::vector<std::size_t> border(k, 0);
  for (std::size_t i = 1, b = 0; i < k; ++i) {
    while (b > 0 && pattern[i] != pattern[b]) b = border[b - 1];
    if (pattern[i] == pattern[b]) ++b;
    border[i] = b;
  }
  for (std::size_t i = 0, m = 0; i < text.size(); ++i) {
    while (m > 0 && text[i] != pattern[m]) m = border[m - 1];
    if (text[i] == pattern[m]) ++m;
    if (m == k) {
      starts.push_back(i + 1 - k);
      m = border[k - 1];
    }
  }
  return starts;
}

}  // namespace

std::size_t find(std::string_view text, std::string_view needle, std::size_t from) {
  constexpr std::size_t npos = std::string_view::npos;
  const std::size_t m = needle.size(), n = text.size();
  if (from > n || m > n - from) return npos;
  auto memmem_from = [&](std::size_t at) -> std::size_t {
    const void* p = memmem(text.data() + at, n - at, needle.data(), m);
    return p == nullptr ? npos
                        : static_cast<std::size_t>(static_cast<const char*>(p) - text.data());
  };
  if (m <= kShortNeedle) return memmem_from(from);

  // Horspool over 4-byte grams: each window is moved by how far the gram at
  // its end is from the needle's end (hashed into 4096 buckets, each keeping
  // its smallest move). In text that is not the needle repeated, most grams
  // are not in the needle's last stretch, and the window moves by nearly its
  // length.
  constexpr std::size_t kGram = 4, kBits = 12;
  auto bucket = [](const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, kGram);
    return (v * 2654435761u) >> (32 - kBits);
  };
  std::vector<std::size_t> move(std::size_t{1} << kBits, m - kGram + 1);
  for (std::size_t i = 0; i + kGram < m; ++i) move[bucket(needle.data() + i)] = m - kGram - i;
  // Bytes compared where a window's last gram matched, 64 at a time (what
  // memcmp stops within), up to as many as the text has; then the rest of
  // the search is memmem's, which is linear whatever the text.
  std::size_t budget = n - from;
  const char* const last = needle.data() + m - kGram;
  for (std::size_t at = from; at + m <= n;) {
    const char* w = text.data() + at;
    if (std::memcmp(w + m - kGram, last, kGram) == 0) {
      std::size_t same = 0;
      while (same < m) {
        const std::size_t block = std::min<std::size_t>(64, m - same);
        if (std::memcmp(w + same, needle.data() + same, block) != 0) break;
        same += block;
      }
      if (same == m) return at;
      const std::size_t cost = same + 64;
      if (budget < cost) return memmem_from(at + 1);
      budget -= cost;
    }
    at += move[bucket(w + m - kGram)];
  }
  return npos;
}

std::vector<std::size_t> all(std::string_view text, std::string_view pattern) {
  return kmp(std::span<const char>(text.data(), text.size()),
             std::span<const char>(pattern.data(), pattern.size()));
}

std::vector<std::size_t> all(std::span<const std::int32_t> text,
                             std::span<const std::int32_t> pattern) {
  for (std::int32_t id : pattern)
    if (id < 0) return {};
  return kmp(text, pattern);
}

bool any_overlap(const std::vector<std::size_t>& starts, std::size_t length) {
  for (std::size_t i = 1; i < starts.size(); ++i)
    if (starts[i] - starts[i - 1] < length) return true;
  return false;
}

}  // namespace editd::occurrences
