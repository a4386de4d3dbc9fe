// Locating a chunk's old lines in a file, for apply_patch.
//
// Matching runs in tiers, from strict to forgiving, as Codex's apply_patch does,
// and the tiers are str_replace's: seek runs the tiers of the one ladder
// (match/tier_table.h, kTiers) marked `in_patch`, in its order: exact,
// trailing_whitespace, indentation and unicode (typographic punctuation and odd
// spaces folded to ASCII by chars::fold_unicode), each comparing lines in its
// tier's form and, for a loose one (unicode), only for a pattern of at least
// chars::kMinLooseChars non-blank characters. The first tier with any hit
// decides, and the hit names it. Lines are LF-normalized and carry no "\n".
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
#include "edit/match/tier_table.h"

namespace editd::patch::seek {

using Lines = std::vector<std::string_view>;

struct Hit {
  std::size_t index;   // 0-based line where the pattern starts
  match::TierId tier;  // the tier of kTiers that found it
};

// How many lines around its start a search scans before it uses the table
// (see Index).
inline constexpr std::size_t kLocalLines = 4096;

// A file's lines, with each line's hash in each line form a tier compares in
// (line_window::hash of the line in that form) computed on first use and kept:
// the chunks of one file share it.
//
// Searches scan lines linearly (text/line_window.h) until the file's searches have
// asked for more than two passes' worth of lines. From then on a search scans
// only the kLocalLines lines nearest to where it starts; past them, it looks
// the pattern's rarest line up in a table of every line sorted by its hash
// in the form of the loosest tier seek runs, unicode's (built once: lines
// equal under any tier seek runs are equal folded), and tests only the windows
// that hold it. So a patch of H chunks that each match only at a late tier
// costs a few passes over the file plus one table, not H passes per tier, and
// a patch whose chunks are found near where they are looked for never builds
// the table. When the rarest line is too common to test each of its windows
// (repeated lines), a search falls back to one linear pass.
class Index {
 public:
  explicit Index(const Lines& lines);

  const Lines& lines() const { return lines_; }
  std::uint64_t hash(match::LineForm form, std::size_t line);
  // Whether searches use the table by now.
  bool table_pays() const { return asked_ > 2 * lines_.size() + kLocalLines; }

  struct Occurrence {
    std::uint64_t hash;
    std::size_t line;
  };
  // The lines whose hash in LineForm::kFolded is `h`, in ascending order.
  std::span<const Occurrence> occurrences(std::uint64_t h);

 private:
  const Lines& lines_;
  // By form (each tier's), empty until asked for; a 0 is not computed yet.
  std::array<std::vector<std::uint64_t>, match::kLineForms> hashes_;
  std::vector<Occurrence> sorted_;  // by folded hash, then line
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

// For a pattern too short for the loose tier seek runs, unicode (fewer than
// kMinLooseChars non-blank characters): the first position at or after `from`
// where that tier would have matched. nullopt when the pattern is long enough (the tier ran) or
// does not occur folded. Only for the error that explains the refusal.
std::optional<std::size_t> folded_too_short(Index& index, const Lines& pattern, std::size_t from);

// Folds typographic punctuation and odd spaces to ASCII (chars::fold_unicode)
// and trims, as the unicode tier compares lines (LineForm::kFolded).
std::string fold(std::string_view line);

}  // namespace editd::patch::seek
