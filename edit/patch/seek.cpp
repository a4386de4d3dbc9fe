#include "edit/patch/seek.h"

#include <algorithm>
#include <functional>
#include <string>

#include "edit/match/line_forms.h"
#include "edit/text/chars.h"
#include "edit/text/line_window.h"

namespace editd::patch::seek {

namespace {

using chars::rtrim;
using chars::trim;

using match::kTiers;
using match::LineForm;
using match::TierInfo;

// The last tier of kTiers that seek runs: the loosest, whose form is the
// table's key (Index::occurrences), and the one folded_too_short explains.
constexpr std::size_t loosest_index() {
  std::size_t last = 0;
  for (std::size_t i = 0; i < kTiers.size(); ++i)
    if (kTiers[i].in_patch) last = i;
  return last;
}
constexpr const TierInfo& kLoosest = kTiers[loosest_index()];
static_assert(kLoosest.loose && kLoosest.form == LineForm::kFolded,
              "the table's key, folded, must be the form of the loosest tier seek runs");

// Whether seek runs the tier `t` for `pattern`: the tiers marked in_patch, and
// a loose one under str_replace's rule, only for a pattern of at least
// chars::kMinLooseChars non-blank characters (its lines counted together).
bool runs(const TierInfo& t, const Lines& pattern) {
  if (!t.in_patch) return false;
  if (!t.loose) return true;
  std::size_t non_blank = 0;
  for (std::string_view l : pattern) non_blank += chars::non_blank_chars(l);
  return chars::loose_allowed(non_blank);
}

// A line in `form`; `buffer` and `scratch` hold a folded line.
std::string_view normalize(std::string_view line, LineForm form, std::string& buffer,
                           std::string& scratch) {
  return match::in_form(form, line, buffer, scratch);
}

// Pairs of (window, pattern line) that the table may test for one search
// before the search falls back to a linear pass.
constexpr std::size_t kTableWork = std::size_t{1} << 20;

// The pattern's lines in `form` (a tier's), interned; and the id of a file line
// in the same form (text/line_window.h), so that a search is linear in the lines it
// passes, however repetitive they are. A file line's hash comes from the
// Index; only a line whose hash some pattern line has is normalised again, to
// compare the text.
class TierSearch {
 public:
  TierSearch(Index& index, const Lines& pattern, LineForm form)
      : index_(index), form_(form), pattern_(normalized(pattern, form)), source_(pattern) {}

  const line_window::Pattern& pattern() const { return pattern_; }

  // Whether the window starting at line s is the pattern.
  bool holds(std::size_t s) {
    const std::span<const std::int32_t> ids = pattern_.ids();
    for (std::size_t i = 0; i < ids.size(); ++i)
      if ((*this)(s + i) != ids[i]) return false;
    return true;
  }

  // The occurrences of the pattern's rarest line, folded (a superset of its
  // occurrences in this form), and that line's index in the pattern;
  // nullopt when testing each of their windows would cost more than kTableWork.
  struct Rarest {
    std::span<const Index::Occurrence> lines;
    std::size_t j;
  };
  std::optional<Rarest> rarest() {
    std::optional<Rarest> best;
    std::string buffer, scratch;
    for (std::size_t j = 0; j < pattern_.size(); ++j) {
      const auto occ = index_.occurrences(
          line_window::hash(normalize(pattern_line(j), kLoosest.form, buffer, scratch)));
      if (!best || occ.size() < best->lines.size()) best = Rarest{occ, j};
      if (best->lines.empty()) break;
    }
    if (!best || best->lines.size() * pattern_.size() > kTableWork) return std::nullopt;
    return best;
  }

  std::int32_t operator()(std::size_t i) {
    const std::uint64_t h = index_.hash(form_, i);
    if (!pattern_.may_hold(h)) return -1;
    return pattern_.id(h, normalize(index_.lines()[i], form_, buffer_, scratch_));
  }

 private:
  static std::vector<std::string> normalized(const Lines& pattern, LineForm form) {
    std::vector<std::string> out;
    std::string buffer, scratch;
    for (std::string_view l : pattern) out.emplace_back(normalize(l, form, buffer, scratch));
    return out;
  }

  std::string_view pattern_line(std::size_t j) const { return source_[j]; }

  Index& index_;
  LineForm form_;
  line_window::Pattern pattern_;
  std::string buffer_, scratch_;
  Lines source_;
};

// The index in `occ` (ascending lines) of the first occurrence at or after `line`.
std::size_t first_at_or_after(std::span<const Index::Occurrence> occ, std::size_t line) {
  return static_cast<std::size_t>(
      std::lower_bound(occ.begin(), occ.end(), line,
                       [](const Index::Occurrence& o, std::size_t x) { return o.line < x; }) -
      occ.begin());
}

// The first window start in [begin, end], tested only where the pattern's
// rarest line `rare` is.
std::optional<std::size_t> first_by_table(TierSearch& search, const TierSearch::Rarest& rare,
                                          std::size_t begin, std::size_t end) {
  const auto& occ = rare.lines;
  for (std::size_t k = first_at_or_after(occ, begin + rare.j);
       k < occ.size() && occ[k].line - rare.j <= end; ++k)
    if (search.holds(occ[k].line - rare.j)) return occ[k].line - rare.j;
  return std::nullopt;
}

// The window start in [begin, lo) or (hi, end] nearest to `hint` (the scan
// covered [lo, hi], around the hint), after before before at equal distance,
// tested only where the pattern's rarest line `rare` is.
std::optional<std::size_t> nearest_by_table(TierSearch& search, const TierSearch::Rarest& rare,
                                            std::size_t begin, std::size_t end, std::size_t lo,
                                            std::size_t hi, std::size_t hint) {
  const auto& occ = rare.lines;
  const std::size_t j = rare.j;
  const std::size_t lowest = first_at_or_after(occ, begin + j);  // windows from begin on
  std::size_t below = first_at_or_after(occ, lo + j);   // occ[below - 1]: the nearest window < lo
  std::size_t up = first_at_or_after(occ, hi + 1 + j);  // occ[up]: the nearest window > hi
  for (;;) {
    const bool up_ok = up < occ.size() && occ[up].line - j <= end;
    const bool down_ok = below > lowest;
    if (!up_ok && !down_ok) return std::nullopt;
    const std::size_t u = up_ok ? occ[up].line - j : 0;
    const std::size_t d = down_ok ? occ[below - 1].line - j : 0;
    if (up_ok && (!down_ok || u - hint <= hint - d)) {
      if (search.holds(u)) return u;
      ++up;
    } else {
      if (search.holds(d)) return d;
      --below;
    }
  }
}

}  // namespace

std::string fold(std::string_view line) { return chars::fold(line); }

Index::Index(const Lines& lines) : lines_(lines) {}

std::uint64_t Index::hash(LineForm form, std::size_t line) {
  ++asked_;
  std::vector<std::uint64_t>& hashes = hashes_[static_cast<std::size_t>(form)];
  if (hashes.empty()) hashes.assign(lines_.size(), 0);
  std::uint64_t& h = hashes[line];
  // A line whose hash is 0 is hashed each time it is asked for: harmless.
  if (h == 0) h = line_window::hash(normalize(lines_[line], form, buffer_, scratch_));
  return h;
}

std::span<const Index::Occurrence> Index::occurrences(std::uint64_t h) {
  if (sorted_.empty() && !lines_.empty()) {
    sorted_.reserve(lines_.size());
    for (std::size_t i = 0; i < lines_.size(); ++i) sorted_.push_back({hash(kLoosest.form, i), i});
    std::sort(sorted_.begin(), sorted_.end(), [](const Occurrence& a, const Occurrence& b) {
      return a.hash != b.hash ? a.hash < b.hash : a.line < b.line;
    });
  }
  auto [lo, hi] =
      std::equal_range(sorted_.begin(), sorted_.end(), Occurrence{h, 0},
                       [](const Occurrence& a, const Occurrence& b) { return a.hash < b.hash; });
  return {lo, hi};
}

std::optional<Hit> forward(const Lines& lines, const Lines& pattern, std::size_t from,
                           bool end_of_file) {
  Index index(lines);
  return forward(index, pattern, from, end_of_file);
}

std::optional<Hit> forward(Index& index, const Lines& pattern, std::size_t from, bool end_of_file) {
  const Lines& lines = index.lines();
  if (pattern.empty() || pattern.size() > lines.size()) return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (end_of_file) {
    for (const TierInfo& t : kTiers) {
      if (!runs(t, pattern)) continue;
      TierSearch search(index, pattern, t.form);
      if (line_window::first(search.pattern(), last, last, false, std::ref(search)))
        return Hit{last, t.id};
    }
  }
  if (from > last) return std::nullopt;
  const std::size_t near_end =
      index.table_pays() && last - from > kLocalLines ? from + kLocalLines : last;
  for (const TierInfo& t : kTiers) {
    if (!runs(t, pattern)) continue;
    TierSearch search(index, pattern, t.form);
    if (auto at = line_window::first(search.pattern(), from, near_end, false, std::ref(search)))
      return Hit{*at, t.id};
    if (near_end == last) continue;
    // A rarest line too common to test its windows one by one: a linear scan.
    const auto rare = search.rarest();
    const std::optional<std::size_t> at =
        rare ? first_by_table(search, *rare, near_end + 1, last)
             : line_window::first(search.pattern(), near_end + 1, last, false, std::ref(search));
    if (at) return Hit{*at, t.id};
  }
  return std::nullopt;
}

std::optional<Hit> nearest(const Lines& lines, const Lines& pattern, std::size_t from,
                           std::size_t hint) {
  Index index(lines);
  return nearest(index, pattern, from, hint);
}

std::optional<Hit> nearest(Index& index, const Lines& pattern, std::size_t from, std::size_t hint) {
  const Lines& lines = index.lines();
  if (pattern.empty() || pattern.size() > lines.size()) return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (from > last) return std::nullopt;
  hint = std::clamp(hint, from, last);
  const bool local = index.table_pays();
  const std::size_t lo = local && hint - from > kLocalLines ? hint - kLocalLines : from;
  const std::size_t hi = local && last - hint > kLocalLines ? hint + kLocalLines : last;
  for (const TierInfo& t : kTiers) {
    if (!runs(t, pattern)) continue;
    TierSearch search(index, pattern, t.form);
    // Every window in [lo, hi] is nearer than any outside it.
    if (auto at = line_window::nearest(search.pattern(), lo, hi, hint, std::ref(search)))
      return Hit{*at, t.id};
    if (lo == from && hi == last) continue;
    const auto rare = search.rarest();
    const std::optional<std::size_t> at =
        rare ? nearest_by_table(search, *rare, from, last, lo, hi, hint)
             : line_window::nearest(search.pattern(), from, last, hint, std::ref(search));
    if (at) return Hit{*at, t.id};
  }
  return std::nullopt;
}

std::optional<std::size_t> folded_too_short(Index& index, const Lines& pattern, std::size_t from) {
  const Lines& lines = index.lines();
  if (pattern.empty() || pattern.size() > lines.size() || runs(kLoosest, pattern))
    return std::nullopt;
  const std::size_t last = lines.size() - pattern.size();
  if (from > last) return std::nullopt;
  TierSearch search(index, pattern, kLoosest.form);
  return line_window::first(search.pattern(), from, last, false, std::ref(search));
}

}  // namespace editd::patch::seek
