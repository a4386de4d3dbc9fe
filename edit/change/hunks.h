// Hunks: a change as the ledger keeps it (server/ledger/), and how one hunk
// of it is taken back from the file as it is now, whatever else changed since.
//
// A line is its bytes up to and including its '\n' (the last line of a file
// may have none); "\r" stays part of a line, so line endings, a BOM (part of
// the first line) and a missing final newline all survive a hunk applied
// either way. A hunk says that the `old_count` lines at line `old_start` of
// the bytes before became the `new_count` lines at `new_start` of the bytes
// after; the texts are equal between hunks. An insertion has no old lines, a
// deletion no new ones. Pure, like all of edit/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/splice.h"

namespace editd::hunks {

// Lines of unchanged context kept on each side of a hunk, as the change left
// them: what finds a deletion again, and an insertion's place.
inline constexpr std::size_t kContext = 2;

struct Hunk {
  std::uint64_t old_start = 0;  // 0-based line of the bytes before
  std::uint64_t old_count = 0;
  std::uint64_t new_start = 0;  // 0-based line of the bytes after
  std::uint64_t new_count = 0;
  std::string old_text;  // the old lines, whole, their bytes as they were
  std::string new_text;  // the new lines, whole
  // Up to kContext lines of the bytes after just before and just after the
  // new lines (fewer at the file's ends).
  std::string context_before;
  std::string context_after;
};

// The hunks that turn `before` into `after`, ascending: the lines between
// their common prefix and suffix diffed (diff::diff_lines, bounded), each run
// of changed lines a hunk of its own. Empty when the two are equal. Past
// `max_window_lines` lines between prefix and suffix (on either side), the
// whole window is one hunk (no diff). The prefix and suffix are found byte by
// byte and widened to whole lines, so a small change to a large file costs
// one pass over it and a small hunk.
std::vector<Hunk> between(std::string_view before, std::string_view after,
                          std::size_t max_window_lines = 20'000);

// Where hunk `h`'s new lines stand once each change of `later` (oldest first,
// each one change's hunks as between() made them, of the file that change
// found) has been made: the line their first would be at. A later hunk wholly
// above them moves them by the lines it added less those it removed; one
// below leaves them. nullopt when a later hunk replaced or removed any of
// them, or inserted lines inside them: the hunk is no longer as its change
// left it. A hunk with no new lines is a point between two lines, and lines
// later inserted at that very point are nullopt too: whether its old lines
// would go above or below them is a guess.
std::optional<std::uint64_t> follow(const Hunk& h, const std::vector<std::vector<Hunk>>& later);

// Why a hunk cannot be taken back from the file now: the lines now where
// its new lines should be (at most kContext + new_count of them, and at most
// kFoundMax bytes, cut where that falls).
inline constexpr std::size_t kFoundMax = 4096;
struct Conflict {
  std::size_t index = 0;   // into revert()'s `hunks`
  std::string found;       // the lines there now ("" past the end)
  std::uint64_t line = 0;  // 0-based line looked at
};

// `current` with each of `hunks` (one file's, in any order) taken back: its
// new lines replaced by its old lines. Hunk i is looked for at `expected[i]`
// (follow()'s line; nullopt, or no entry: not known) and must stand there as
// its change left it: its new lines, and for a hunk with no new lines its
// context too (each context whole lines just beside the place; an empty one
// says the file's edge was there and must still be). Where it does not, it
// is looked for anywhere in `current` (new lines with both contexts) and
// taken when exactly one place qualifies: two are a conflict, not a guess.
// Old lines without a final '\n' were the file's end and go back only at its
// end. A hunk whose texts do not have its counts' lines is never found. Two
// hunks whose places overlap (share a line, a point strictly inside lines,
// or two points at one place) are a conflict of the second. The first hunk,
// in the order given, that cannot be taken back is the Conflict; its line is
// where it was looked for (expected[i], else new_start) or, for an overlap,
// where it was found.
struct Reverted {
  std::optional<std::string> bytes;  // set on success
  std::optional<Conflict> conflict;
};
Reverted revert(std::string_view current, const std::vector<const Hunk*>& hunks,
                const std::vector<std::optional<std::uint64_t>>& expected);

// `after` with `hunks` (all of one change, as between() made them) taken
// back exactly where they are: the bytes before, when `after` is what the
// change left. nullopt when a hunk's new lines are not at its new_start
// (or the hunks are out of order, or overlap).
std::optional<std::string> undo_all(std::string_view after, const std::vector<Hunk>& hunks);

// The hunks of `splices` (splice::plan's: ascending, disjoint) of the body
// of `file` (after `bom` bytes): between() of the lines they touch, with
// kContext lines around, numbered as in the whole file. Costs the lines
// before the first splice (counted) and the lines touched, never a copy of
// the file.
std::vector<Hunk> of_splices(std::string_view file, std::size_t bom,
                             const std::vector<splice::Splice>& splices);

// Bytes the hunks hold (their texts), for the ledger's bound.
std::uint64_t held_by(const std::vector<Hunk>& hunks);

}  // namespace editd::hunks
