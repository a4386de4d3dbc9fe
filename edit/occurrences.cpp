#include "edit/occurrences.h"

namespace editd::occurrences {

namespace {

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
