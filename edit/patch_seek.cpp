#include "edit/patch_seek.h"

#include <functional>
#include <string>

#include "edit/chars.h"
#include "edit/line_window.h"

namespace editd::patch::seek {

namespace {

using chars::rtrim;
using chars::trim;

constexpr Tier kTiers[] = {Tier::kExact, Tier::kTrimEnd, Tier::kTrim, Tier::kFold};

// The folding tier runs under str_replace's rule: only for a pattern of at
// least chars::kMinLooseChars non-blank characters (its lines counted together).
bool runs(Tier tier, const Lines& pattern) {
  if (tier != Tier::kFold) return true;
  std::size_t non_blank = 0;
  for (std::string_view l : pattern) non_blank += chars::non_blank_chars(l);
  return chars::loose_allowed(non_blank);
}

// A line as `tier` compares it; `buffer` holds a folded line.
std::string_view normalize(std::string_view line, Tier tier, std::string& buffer) {
  switch (tier) {
    case Tier::kExact:
      return line;
    case Tier::kTrimEnd:
      return rtrim(line);
    case Tier::kTrim:
      return trim(line);
    case Tier::kFold:
      buffer = fold(line);
      return buffer;
  }
  return line;
}

// The pattern's lines under `tier`, interned; and the id of a file line under
// the same tier (line_window.h), so that a search is linear in the lines it
// passes, however repetitive they are.
class TierSearch {
 public:
  TierSearch(const Lines& lines, const Lines& pattern, Tier tier)
      : lines_(lines), tier_(tier), pattern_(normalized(pattern, tier)) {}

  const line_window::Pattern& pattern() const { return pattern_; }

  std::int32_t operator()(std::size_t i) {
    std::string_view line = normalize(lines_[i], tier_, buffer_);
    return pattern_.id(line);
  }

 private:
  static std::vector<std::string> normalized(const Lines& pattern, Tier tier) {
    std::vector<std::string> out;
    std::string buffer;
    for (std::string_view l : pattern) out.emplace_back(normalize(l, tier, buffer));
    return out;
  }

  const Lines& lines_;
  Tier tier_;
  line_window::Pattern pattern_;
  std::string buffer_;
};

}  // namespace

std::string fold(std::string_view line) { return chars::fold(line); }

std::optional<Hit> forward(const Lines& lines, const Lines& pattern, std::size_t from,
                           bool end_of_file) {
  if (pattern.empty() || pattern.size() > lines.size()) return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (end_of_file) {
    for (Tier t : kTiers) {
      if (!runs(t, pattern)) continue;
      TierSearch search(lines, pattern, t);
      if (line_window::first(search.pattern(), last, last, false, std::ref(search)))
        return Hit{last, t};
    }
  }
  if (from > last) return std::nullopt;
  for (Tier t : kTiers) {
    if (!runs(t, pattern)) continue;
    TierSearch search(lines, pattern, t);
    if (auto at = line_window::first(search.pattern(), from, last, false, std::ref(search)))
      return Hit{*at, t};
  }
  return std::nullopt;
}

std::optional<Hit> nearest(const Lines& lines, const Lines& pattern, std::size_t from,
                           std::size_t hint) {
  if (pattern.empty() || pattern.size() > lines.size()) return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (from > last) return std::nullopt;
  for (Tier t : kTiers) {
    if (!runs(t, pattern)) continue;
    TierSearch search(lines, pattern, t);
    if (auto at = line_window::nearest(search.pattern(), from, last, hint, std::ref(search)))
      return Hit{*at, t};
  }
  return std::nullopt;
}

std::optional<std::size_t> folded_too_short(const Lines& lines, const Lines& pattern,
                                            std::size_t from) {
  if (pattern.empty() || pattern.size() > lines.size() || runs(Tier::kFold, pattern))
    return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (from > last) return std::nullopt;
  TierSearch search(lines, pattern, Tier::kFold);
  return line_window::first(search.pattern(), from, last, false, std::ref(search));
}

}  // namespace editd::patch::seek
