// The exact tier of the matching ladder: every verbatim occurrence of oldText.

#include <algorithm>
#include <memory>
#include <string>

#include "edit/match/ladder.h"
#include "edit/match/occurrences.h"

namespace editd::match::detail {

Error too_large_result(std::size_t replacements, std::size_t limit) {
  return Error(ErrorKind::kTooLarge,
               "replacing the " + std::to_string(replacements) + " regions that " +
                   mention(Input::kOldText) +
                   " matches would make the file larger than the limit of " +
                   std::to_string(limit) + " bytes (--max-file-bytes)",
               {{"replacements", replacements}, {"limit", limit}});
}

std::vector<Hit> find_exact(std::string_view text, std::string_view needle,
                            std::string_view replacement) {
  std::vector<Hit> hits;
  if (needle.empty() || needle.size() > text.size()) return hits;
  auto shared = std::make_shared<const std::string>(replacement);
  std::size_t pos = 0, counted = 0, line = 1;
  while (pos + needle.size() <= text.size()) {
    const std::size_t at = occurrences::find(text, needle, pos);
    if (at == std::string_view::npos) break;
    line += count_newlines(text.substr(counted, at - counted));
    counted = at;
    hits.push_back({at, at + needle.size(), shared, line, nullptr});
    if (hits.size() > kMaxRegions) break;  // decide() refuses so many
    pos = at + needle.size();
  }
  return hits;
}

Readings find_readings(std::string_view text, std::string_view needle,
                       std::string_view replacement) {
  Readings r;
  r.hits = find_exact(text, needle, replacement);
  const std::size_t k = needle.size();
  for (const Hit& h : r.hits) {
    const std::size_t from = h.begin + 1, to = std::min(text.size(), h.begin + 2 * k - 1);
    if (to >= from + k &&
        occurrences::find(text.substr(0, to), needle, from) != std::string_view::npos) {
      r.overlapping = true;
      break;
    }
  }
  if (!r.overlapping) return r;
  r.hits.clear();
  std::size_t counted = 0, line = 1;
  for (std::size_t at : occurrences::all(text, needle)) {
    line += count_newlines(text.substr(counted, at - counted));
    counted = at;
    r.hits.push_back({at, at + k, nullptr, line, nullptr});
    if (r.hits.size() > kMaxRegions) break;  // decide() refuses so many
  }
  return r;
}

}  // namespace editd::match::detail
