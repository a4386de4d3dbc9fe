// Locating a chunk's old lines in a file, for apply_patch.
//
// Matching runs in tiers, from strict to forgiving, as Codex's apply_patch does:
// exact, then trailing whitespace ignored, then leading and trailing whitespace
// ignored, then also typographic punctuation and odd spaces folded to ASCII by
// the table str_replace's unicode tier uses (chars::fold_unicode), under the
// same rule: only for a pattern of at least chars::kMinLooseChars non-blank
// characters. The first tier with any hit decides. Lines are LF-normalized and
// carry no "\n".
//
// Each tier finds windows by the pattern's interned lines (text/line_window.h):
// linear in the lines it passes plus the pattern, never lines x pattern.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "edit/match/line_forms.h"

namespace editd::patch::seek {

using Lines = std::vector<std::string_view>;

enum class Tier { kExact, kTrimEnd, kTrim, kFold };

// The form each tier compares lines in: the forms str_replace's line tiers
// compare in too (match/line_forms.h). A chunk found by the loose one (kFold)
// keeps the file's own characters where the model did not change them.
constexpr match::LineForm form_of(Tier tier) {
  switch (tier) {
    case Tier::kExact:
      return match::LineForm::kVerbatim;
    case Tier::kTrimEnd:
      return match::LineForm::kTrimEnd;
    case Tier::kTrim:
      return match::LineForm::kTrim;
    case Tier::kFold:
      return match::LineForm::kFolded;
  }
  return match::LineForm::kVerbatim;
}

struct Hit {
  std::size_t index;  // 0-based line where the pattern starts
  Tier tier;
};

// How many lines around its start a search scans before it uses the table
// (see Index).
inline constexpr std::size_t kLocalLines = 4096;

// A file's lines, with each line's hash under each tier (line_window::hash of
// the line as the tier compares it) computed on first use and kept: the chunks
// of one file share it.
//
// Searches scan lines linearly (text/line_window.h) until the file's searches have
// asked for more than two passes' worth of lines. From then on a search scans
// only the kLocalLines lines nearest to where it starts; past them, it looks
// the pattern's rarest line up in a table of every line sorted by its hash
// under the loosest tier (built once: lines equal under any tier are equal
// folded) and tests only the windows that hold it. So a patch of H chunks that
// each match only at a late tier costs a few passes over the file plus one
// table, not H passes per tier, and a patch whose chunks are found near where
// they are looked for never builds the table. When the rarest line is too
// common to test each of its windows (repeated lines), a search falls back to
// one linear pass.
class Index {
 public:
  explicit Index(const Lines& lines);

  const Lines& lines() const { return lines_; }
  std::uint64_t hash(Tier tier, std::size_t line);
  // Whether searches use the table by now.
  bool table_pays() const { return asked_ > 2 * lines_.size() + kLocalLines; }

  struct Occurrence {
    std::uint64_t hash;
    std::size_t line;
  };
  // The lines whose hash under Tier::kFold is `h`, in ascending order.
  std::span<const Occurrence> occurrences(std::uint64_t h);

 private:
  const Lines& lines_;
  std::array<std::vector<std::uint64_t>, 4> hashes_;  // by tier; 0: not computed yet
  std::vector<Occurrence> sorted_;                    // by folded hash, then line
  std::string buffer_, scratch_;
  std::size_t asked_ = 0;  // hash() calls
};

// Codex's search: the first position at or after `from`, tier by tier. With
// `end_of_file`, the position that ends the pattern at the last line is tried
// first (all tiers) before the search from `from`. An empty pattern is never
// searched for: the caller decides where an insertion goes.
std::optional<Hit> forward(Index& index, const Lines& pattern, std::size_t from, bool end_of_file);
std::optional<Hit> forward(const Lines& lines, const Lines& pattern, std::size_t from,
                           bool end_of_file);

// The unified-diff offset search: for each tier, the position nearest to `hint`
// within [from, lines.size() - pattern.size()], trying hint, hint+1, hint-1,
// hint+2, hint-2... (after before before at equal distance).
std::optional<Hit> nearest(Index& index, const Lines& pattern, std::size_t from, std::size_t hint);
std::optional<Hit> nearest(const Lines& lines, const Lines& pattern, std::size_t from,
                           std::size_t hint);

// For a pattern too short for the folding tier (fewer than kMinLooseChars
// non-blank characters): the first position at or after `from` where that tier
// would have matched. nullopt when the pattern is long enough (the tier ran) or
// does not occur folded. Only for the error that explains the refusal.
std::optional<std::size_t> folded_too_short(Index& index, const Lines& pattern, std::size_t from);

// Folds typographic punctuation and odd spaces to ASCII (chars::fold_unicode)
// and trims, as the last tier compares lines.
std::string fold(std::string_view line);

}  // namespace editd::patch::seek
