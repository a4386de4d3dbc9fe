// Format scope: which of a formatter's changes an edit takes over, so that a
// formatter run on the whole file changes only what the model wrote.
//
// After a mutation, the caller gives the formatter the new text (normalized:
// BOM stripped, CRLF folded to LF) and gets its version back. scope() diffs the
// two by lines, keeps the formatter's hunks that meet the lines the mutation
// changed, and returns them as splice::Edits on that normalized text:
// splice::plan() lands them on the stored bytes under the Byte fidelity rules
// (docs/protocol.md), so a byte outside the kept hunks never changes, a line a
// kept hunk rewrites keeps its stored ending where its text keeps its end, and
// a line break it adds takes the file's dominant ending. Everything else the
// formatter did is dropped, and counted. Pure, like all of edit/.
//
// What the formatter may not change, whatever it writes:
// - the line endings: a CRLF in its output is a line break like an LF (the
//   splices give each break its ending);
// - the BOM: a U+FEFF that its output starts with, when the text does not, is
//   not written;
// - the final-newline state: a final line break its output lacks is added
//   when the text has one; when the text has none, every line break at the
//   end of its output is removed, with the empty lines they end (a text
//   without a final newline cannot end with an empty line). So the edits
//   never change that state, and splice::plan's final-newline rule never has
//   to: when a kept hunk adds lines after a last line without a break, that
//   line gains one (in the dominant ending) and is part of the hunk; when one
//   removes the last lines, the line before them loses its break and is part
//   of the hunk, and when that line is empty the hunk is dropped instead;
// - an empty text stays empty (nothing to format).
//
// The line diff, and which hunk is kept. Both texts are diffed by lines, each
// with a final line break (the last line compares by its text). Whole lines
// common to the start and to the end are set aside, and the lines between are
// diffed with diff::diff_lines (bounded: past its work budget a block may be
// coarser than a shortest script). Each changed block is then split further,
// twice. First its lines are diffed again by their text without whitespace
// (space, tab, CR, FF, VT), and each line whose text only differs in
// whitespace (a reindented or respaced line) is a hunk of its own, one line
// for one. Then each run between those is diffed by its lines' words (letters,
// digits, '_' and non-ASCII bytes: no whitespace, no ASCII punctuation), and
// each line whose words are the same (requoted, a comma or semicolon added,
// parentheses changed) is a hunk of its own too. What is left (lines joined,
// split, added, removed, or whose words changed) stays together, one hunk per
// run between such lines. Last, a piece whose old and new lines differ in
// their words or in the brackets they leave open took part of a line's
// content from a piece beside it (a brace joined to the line above, a line's
// words spread over several): it is joined with the pieces after it up to the
// first where both sides hold the same again, so that the content is never
// kept on one side and dropped on the other. So a formatter that reindents a whole block, or
// requotes every string of the file, around an edit gives one hunk per line,
// and only those of the edit's lines are kept; one that joins three lines of
// a call gives one hunk, kept whole when the edit touches any of them.
//
// A hunk replaces the old lines [s, s + c) (lines of the edited text; c = 0:
// an insertion at the point before line s) with d new lines. A changed range
// [f, e) (f = e: a point, where the mutation wrote no line, e.g. a deletion)
// keeps the hunk when
//   - they intersect: s < e and f < s + c; or
//   - they touch (s <= e and f <= s + c) and the hunk is a pure insertion or
//     deletion (c = 0 or d = 0), or the range is a point.
// So a formatter's blank line added just after the model's lines, or removed
// just before them, is kept, and so is any hunk of the lines on either side of
// a deletion (the seam it left); a line rewritten next to the model's lines,
// but not among them, is not. A hunk wholly outside every range is dropped.
// Kept hunks that follow each other with no line between become one Edit and
// one reported hunk; so do dropped ones for the count. Deciding costs the
// hunks times the ranges.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "edit/change/splice.h"
#include "edit/error.h"

namespace editd::format_scope {

// Lines [first, end) of the edited text, 0-based; first == end is the point
// before line `first` (the text's line count: its end). Clamped to the text.
struct Span {
  std::size_t first = 0;
  std::size_t end = 0;
};

struct Options {
  // The most bytes of formatter output taken (the caller's --max-file-bytes).
  std::size_t max_bytes = std::size_t{64} << 20;
  // The most lines, on either side, between the common start and end that are
  // diffed (hunks::between's bound).
  std::size_t max_window_lines = 20'000;
};

// A kept hunk, in lines: old lines of the edited text, new lines of the text
// once the kept hunks are made (the lines the reply reports as formatted;
// new_count = 0: lines only removed).
struct Hunk {
  std::size_t old_start = 0;
  std::size_t old_count = 0;
  std::size_t new_start = 0;
  std::size_t new_count = 0;
};

struct Scoped {
  std::vector<splice::Edit> edits;  // on the normalized text, ascending; for splice::plan
  std::vector<Hunk> kept;           // one per edit, same order
  std::size_t dropped = 0;          // hunks of the formatter left out
};

// The formatter's changes to `normalized` (the normalized body of the file as
// the mutation left it, text::Normalized) that `changed` (any order, may
// overlap) takes over, from `formatted` (what the formatter wrote for it).
// Empty edits when it changed nothing there (or nothing at all). Errors, with
// no edits (the caller writes the mutation as it is and reports the status;
// they are never the call's error):
// - too_large: `formatted` over max_bytes (data.reason "size", data.size,
//   data.limit), or more than max_window_lines lines between the common start
//   and end on either side (data.reason "window", data.lines, data.limit);
// - not_text: `formatted` holds a NUL byte or is not UTF-8 (check_text's
//   data: reason "nul" or "utf8", offset);
// - delegate_failed: `formatted` is empty for a non-empty text, or nothing is
//   left of it once conformed as above (a BOM alone; only line breaks for a
//   text without a final newline) (data.reason "empty").
// Costs a pass over both texts and the diff of the lines between their common
// start and end.
Result<Scoped> scope(std::string_view normalized, std::string_view formatted,
                     const std::vector<Span>& changed, const Options& options = {});

}  // namespace editd::format_scope
