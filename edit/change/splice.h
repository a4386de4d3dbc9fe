// Edits as byte splices: how a change computed on the normalized body (CRLF
// folded to LF, see text/text.h) lands on the stored bytes without touching anything
// it does not change.
//
// Every mutation of an existing file describes its change as Edits: ranges of
// the normalized body and their replacement text. plan() turns them into
// Splices over the stored body, following docs/protocol.md, "Byte fidelity":
// - a byte outside every splice never changes (the final-newline rule below is
//   the one exception);
// - what a replacement keeps keeps its stored bytes: the common prefix and
//   suffix of the replaced text and its replacement, and the lines a line diff
//   of the two keeps, line breaks included;
// - a line break the replacement adds takes the file's dominant ending;
// - the BOM is never part of a splice, and the body keeps its final-newline
//   state unless the caller asks for another one.
// apply() copies the untouched bytes once and reports the changed windows, from
// which the result's unified diff is built (unified_diff.h). Pure, like all of edit/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/unified_diff.h"
#include "edit/text/text.h"

namespace editd::splice {

// [begin, end) of the normalized body becomes `text`. In `text` a "\n" is a
// line break; it is written in the file's dominant ending, except that with
// `crlf_literal` a "\r\n" is written as it is (apply_patch's `+` lines carry
// their own CR, as git apply reads them).
struct Edit {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string text;
  bool crlf_literal = false;
};

// [begin, end) of the stored body becomes `bytes`.
struct Splice {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string bytes;
};

struct Options {
  // The final-newline state the new body must have; nullopt keeps the file's
  // own. Either way an empty body (before or after) is left as it is.
  std::optional<bool> final_newline;
};

// The splices that carry out `edits` (sorted by begin, non-overlapping, on
// `normalized`, the Normalized view of `doc`), in ascending order. Linear in the
// file plus the size of the edits; a line diff runs only inside an edit.
std::vector<Splice> plan(const text::Document& doc, std::string_view normalized,
                         std::vector<Edit> edits, const Options& options = {});

// write_text's splices: the whole body becomes `content` (normalized). The
// common prefix and suffix keep their stored bytes; in between, a line of
// `content` that is also a line of the replaced middle keeps the ending the
// middle gives it when all its copies there agree, and every other line break
// takes the dominant ending. Never depends on a work budget; linear memory.
std::vector<Splice> rewrite(const text::Document& doc, std::string_view normalized,
                            std::string_view content, const Options& options);

struct Applied {
  std::string bytes;                  // the whole new file, BOM included
  std::vector<diff::Window> windows;  // body coordinates, old and new
};

// The document's bytes with `splices` (ascending, non-overlapping) applied.
Applied apply(const text::Document& doc, const std::vector<Splice>& splices);

// The same bytes without making them: `bom`, then the runs of `body` that no
// splice touches with each splice's bytes between them, in order (empty pieces
// left out). Views of `bom`, `body` and `splices`.
std::vector<std::string_view> pieces(std::string_view bom, std::string_view body,
                                     const std::vector<Splice>& splices);

// apply()'s windows, without making the bytes.
std::vector<diff::Window> windows(const std::vector<Splice>& splices);

// The unified diff from `body` to `body` with `splices` applied (what
// diff::unified_windows gives for the two whole bodies and windows()), made
// from the lines around the splices alone: the new text is built only there,
// `context` lines and one more on each side of the splices' span. Labels and
// context as unified_windows.
diff::UnifiedDiff diff(std::string_view body, const std::vector<Splice>& splices,
                       std::string_view old_label, std::string_view new_label, int context = 3);

// Applies normalized edits to normalized text, no conventions involved: what
// the edits mean, for tests and for callers that only need the text.
std::string apply_edits(std::string_view normalized, const std::vector<Edit>& edits);

}  // namespace editd::splice
