#include "edit/patch_seek.h"

#include <algorithm>
#include <string>

#include "edit/chars.h"

namespace editd::patch::seek {

namespace {

using chars::rtrim;
using chars::trim;

// Compares `lines` against `pattern` at each position a search visits, tier by
// tier; the folded forms are built once, when the last tier is reached.
class Matcher {
 public:
  Matcher(const Lines& lines, const Lines& pattern) : lines_(lines), pattern_(pattern) {
    std::size_t non_blank = 0;
    for (std::string_view l : pattern_) non_blank += chars::non_blank_chars(l);
    may_fold_ = chars::loose_allowed(non_blank);
  }

  bool matches_at(std::size_t i, Tier tier) {
    if (tier == Tier::kFold) {
      if (!may_fold_) return false;
      prepare_fold();
    }
    for (std::size_t k = 0; k < pattern_.size(); ++k) {
      if (!equal(i + k, k, tier)) return false;
    }
    return true;
  }

 private:
  bool equal(std::size_t line, std::size_t k, Tier tier) const {
    switch (tier) {
      case Tier::kExact:
        return lines_[line] == pattern_[k];
      case Tier::kTrimEnd:
        return rtrim(lines_[line]) == rtrim(pattern_[k]);
      case Tier::kTrim:
        return trim(lines_[line]) == trim(pattern_[k]);
      case Tier::kFold:
        return folded_lines_[line] == folded_pattern_[k];
    }
    return false;
  }

  void prepare_fold() {
    if (folded_) return;
    folded_ = true;
    folded_lines_.reserve(lines_.size());
    for (std::string_view l : lines_) folded_lines_.push_back(fold(l));
    folded_pattern_.reserve(pattern_.size());
    for (std::string_view l : pattern_) folded_pattern_.push_back(fold(l));
  }

  const Lines& lines_;
  const Lines& pattern_;
  bool may_fold_ = false;  // chars::loose_allowed: the pattern is long enough to fold
  bool folded_ = false;
  std::vector<std::string> folded_lines_;
  std::vector<std::string> folded_pattern_;
};

constexpr Tier kTiers[] = {Tier::kExact, Tier::kTrimEnd, Tier::kTrim, Tier::kFold};

}  // namespace

std::string fold(std::string_view line) { return chars::fold(line); }

std::optional<Hit> forward(const Lines& lines, const Lines& pattern, std::size_t from,
                           bool end_of_file) {
  if (pattern.empty() || pattern.size() > lines.size()) return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  Matcher m(lines, pattern);
  if (end_of_file) {
    for (Tier t : kTiers)
      if (m.matches_at(last, t)) return Hit{last, t};
  }
  for (Tier t : kTiers)
    for (std::size_t i = from; i <= last; ++i)
      if (m.matches_at(i, t)) return Hit{i, t};
  return std::nullopt;
}

std::optional<Hit> nearest(const Lines& lines, const Lines& pattern, std::size_t from,
                           std::size_t hint) {
  if (pattern.empty() || pattern.size() > lines.size()) return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (from > last) return std::nullopt;
  if (hint < from) hint = from;
  if (hint > last) hint = last;
  Matcher m(lines, pattern);
  const std::size_t reach = std::max(last - hint, hint - from);
  for (Tier t : kTiers) {
    for (std::size_t d = 0; d <= reach; ++d) {
      if (hint + d <= last && m.matches_at(hint + d, t)) return Hit{hint + d, t};
      if (d > 0 && d <= hint - from && m.matches_at(hint - d, t)) return Hit{hint - d, t};
    }
  }
  return std::nullopt;
}

}  // namespace editd::patch::seek
