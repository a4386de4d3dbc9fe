// Hashline anchors: lines named by number and a short tag of their content.
//
// Models misquote code but rarely misquote "12~ab". read_text's hashline view
// shows each line as `LINE~TAG|text`; edit_lines names lines by those anchors.
// TAG is two lowercase letters from XXH3-64 (no seed) of the line with every
// ASCII whitespace byte removed, so it is the same across runs and processes,
// and re-indenting a line keeps it.
//
// Two letters cannot tell "this line moved" from "another line looks the
// same", so an anchor is never looked for by its tag. The server remembers the
// view a client read (a Snapshot: per line a full-width hash and the tag, never
// the text); plan() maps each anchored line from that view to the file as it
// is now by a line diff of the two: a line the diff keeps lands where the diff
// puts it, a line changed or removed since the read is stale. Each anchor is
// mapped through its own view, so one call may mix anchors from reads of
// different versions (slices read before and after another client's edit).
// Without any view an anchor is used only where it stands, with its tag. docs/protocol.md
// ("edit_lines") is the normative description. Pure, like all of edit/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/diff.h"
#include "edit/change/splice.h"
#include "edit/error.h"
#include "edit/text/line_range.h"

namespace editd::hashline {

// How many lines either side of a stale anchor's place data.region shows.
inline constexpr std::uint64_t kRegion = 5;

// The tag of one line (without its line break): two letters, the first
// 'a' + (h / 26) % 26, the second 'a' + h % 26, h = XXH3-64 of the line's
// bytes with every space, tab, CR, LF, VT and FF removed.
std::string tag(std::string_view line);
// The same tag as a number, h % 676 (first letter * 26 + second).
std::uint16_t tag_code(std::string_view line);

// The full-width hash of a line's exact bytes (without its line break):
// XXH3-64, no seed. Whitespace counts: a re-indented line is another line.
std::uint64_t line_hash(std::string_view line);

// What the server remembers of a file it showed a client: per line, its
// line_hash and its tag_code (10 bytes a line, never the text).
inline constexpr std::size_t kSnapshotBytesPerLine = sizeof(std::uint64_t) + sizeof(std::uint16_t);
struct Snapshot {
  std::vector<std::uint64_t> hashes;
  std::vector<std::uint16_t> tags;
  std::size_t bytes() const { return hashes.size() * kSnapshotBytesPerLine; }
};
// The snapshot of an LF-normalized body.
Snapshot snapshot(std::string_view normalized);

// `lines` (LF-normalized, without their breaks) as `N~TAG|text`, N counting
// from `first_number`; every line ends with "\n" except the last when
// `final_newline` is false.
std::string render(const std::vector<std::string_view>& lines, std::uint64_t first_number,
                   bool final_newline = true);
// An LF-normalized text as render() shows its lines (the last ends with "\n"
// when the text does), made in one buffer of the exact size: no table of
// lines, no growth. rendered_size() is that size, counted without making it.
std::string render_text(std::string_view normalized, std::uint64_t first_number);
std::size_t rendered_size(std::string_view normalized, std::uint64_t first_number);

struct Anchor {
  std::uint64_t line = 0;  // 1-based
  std::string tag;
};

// "12~ab" (anything from a '|' on is ignored: a copied view line); nullopt
// when `s` is not a line number >= 1, '~' and two lowercase letters.
std::optional<Anchor> parse_anchor(std::string_view s);
std::string format(const Anchor& a);

enum class Kind { kReplace, kInsertAfter, kInsertBefore };

struct LineEdit {
  Kind kind = Kind::kReplace;
  Anchor start;               // replace's start, or the insert's anchor
  std::optional<Anchor> end;  // replace only; default: start
  std::string new_text;       // any line endings; "" with replace deletes
};

using LineRange = text::LineRange;

// A view a client read: the file as it was (`file`, not null) and the lines
// of it that were shown (1-based, inclusive; any order).
struct View {
  const Snapshot* file = nullptr;
  std::vector<LineRange> shown;
};

// Whether every anchor of `edits` names a line `view` showed, and that line
// carried the anchor's tag there: the anchors may have come from it.
bool shows(const View& view, const std::vector<LineEdit>& edits);

// Where the lines of one file version are in another, by diff::diff_hashes
// (bounded cost: past its budget a region counts as changed).
class LineMap {
 public:
  LineMap(const std::vector<std::uint64_t>& before, const std::vector<std::uint64_t>& after);
  // The 1-based line of `after` that line `line` of `before` became, when the
  // diff keeps it; nullopt when it was changed or removed.
  std::optional<std::uint64_t> line(std::uint64_t line) const;
  // Whether lines first..last of `before` all stay together: each kept, and
  // nothing inserted between them.
  bool together(std::uint64_t first, std::uint64_t last) const;
  // The lines of `after` around where line `line` of `before` was (for an
  // error's region): the first and last line of its changed region, or the
  // line itself.
  LineRange near(std::uint64_t line) const;

 private:
  // The index of the last block starting at or before 0-based line i, or -1.
  std::ptrdiff_t block_before(std::uint64_t i) const;
  std::vector<diff::Block> blocks_;
};

// An anchor that stood at another line than it named: where plan() found it.
struct RebasedAnchor {
  std::string anchor;
  std::uint64_t line = 0;
};

struct Plan {
  std::vector<splice::Edit> edits;     // on the normalized body, ascending
  std::vector<LineRange> lines;        // per edit in call order: its lines in the new file
  std::vector<RebasedAnchor> rebased;  // in call order
};

// The views one call's anchors may have come from, in the order they are
// tried: each anchor comes from the first view that shows() its line with its
// tag (a replace's start and end from the first that shows both).
struct Reads {
  std::vector<View> views;
  // Whether an anchor that no view shows is used where it stands, with its
  // tag: when the caller has no view of the file at all, or vouched for the
  // version it names (expectedFingerprint). Otherwise such an anchor came
  // from a read that is no longer remembered (or from none): stale.
  bool unread_stand = true;
};

// The splices of `edits`, all against `normalized` (the LF-normalized body).
// Each anchor is mapped by a LineMap from the view of `reads` it came from to
// `normalized`; one that no view shows must stand where it is, with its tag
// (when reads.unread_stand), else it is stale. A replace whose start and end
// no one view shows together is stale. Errors: stale (data.edit, data.anchor,
// data.region), invalid_params about Input::kEdits (invalid_input; data.edit; an end before
// its start, an empty insertion, overlapping edits: data.edits).
Result<Plan> plan(std::string_view normalized, const std::vector<LineEdit>& edits,
                  const Reads& reads);
// The same with at most one view (`read`; null: none).
Result<Plan> plan(std::string_view normalized, const std::vector<LineEdit>& edits,
                  const View* read = nullptr);

}  // namespace editd::hashline
