// Hashline anchors: lines named by number and a short tag of their content.
//
// Models misquote code but rarely misquote "12~ab". read_text's hashline view
// shows each line as `LINE~TAG|text`; edit_lines names lines by those anchors.
// TAG is two lowercase letters from XXH3-64 (no seed) of the line with every
// ASCII whitespace byte removed, so it is the same across runs and processes,
// and re-indenting a line keeps it. An anchor whose line no longer carries its
// tag is looked for within kWindow lines either side: exactly one line with the
// tag there is where the edit lands (a rebase); none or several make the edit
// stale, with the region as it is now so that the model can retry in one step.
// docs/protocol.md ("edit_lines") is the normative description. Pure, like all
// of edit/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/splice.h"
#include "protocol/error.h"

namespace editd::hashline {

// How far (in lines, either side) a stale anchor is looked for.
inline constexpr std::uint64_t kWindow = 5;

// The tag of one line (without its line break): two letters, the first
// 'a' + (h / 26) % 26, the second 'a' + h % 26, h = XXH3-64 of the line's
// bytes with every space, tab, CR, LF, VT and FF removed.
std::string tag(std::string_view line);

// `lines` (LF-normalized, without their breaks) as `N~TAG|text`, N counting
// from `first_number`; every line ends with "\n" except the last when
// `final_newline` is false.
std::string render(const std::vector<std::string_view>& lines, std::uint64_t first_number,
                   bool final_newline = true);

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

struct LineRange {
  std::uint64_t start_line = 0;
  std::uint64_t end_line = 0;
};

struct Rebased {
  std::string anchor;
  std::uint64_t line = 0;
};

struct Plan {
  std::vector<splice::Edit> edits;  // on the normalized body, ascending
  std::vector<LineRange> lines;     // per edit in call order: its lines in the new file
  std::vector<Rebased> rebased;     // in call order
};

// The splices of `edits`, all against `normalized` (the LF-normalized body).
// Errors: stale (data.edit, data.anchor, data.region, data.candidates when
// several lines carry the tag), invalid_params (data.param "edits", data.edit;
// an end before its start, an empty insertion, overlapping edits: data.edits).
Result<Plan> plan(std::string_view normalized, const std::vector<LineEdit>& edits);

}  // namespace editd::hashline
