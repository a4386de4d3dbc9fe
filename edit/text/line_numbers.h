// Line-number prefixes that models copy from numbered views: `cat -n` and
// Claude Code's Read ("     12\t" or "    12→": a right-aligned number, then a
// tab or an arrow) and `grep -n` ("12:": a number and a colon, no space).
//
// A text counts as numbered only when every line carries a prefix of one view:
// the same separator, consecutive numbers, and numbers either all unpadded or
// all right-aligned to one column. Stripping removes exactly what the view
// wrote (never a blank of the line after it), so text that merely looks
// numbered (times such as "10:00", YAML keys such as "200:") is left alone
// unless every line of it is numbered so. In a tab view a line that is only
// its number counts as a numbered blank line (its tab trimmed away in transit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace editd::match {

enum class Separator { kColon, kTab, kArrow };

// How a view numbered a text.
struct View {
  Separator separator;
  std::uint64_t first;  // the number of its first line
  std::size_t lines;    // how many lines it numbered
};

// The view that numbered every line of `s`; nullopt when `s` has no line or
// is not numbered so.
std::optional<View> numbered_view(std::string_view s);

// Whether some line of `s` starts like a prefix of any view.
bool some_line_numbered(std::string_view s);

// `s` with each line's prefix removed; requires numbered_view(s).
std::string strip_numbers(std::string_view s);

// What a line tier does with newText when oldText was numbered by `old_view`:
// kStrip when newText is numbered by the same kind of view from the same first
// number; else kRefuse when some line of it starts with such a prefix whose
// number lies in the lines the edit may span (from old_view.first, as many as
// oldText and newText have together); else kVerbatim.
enum class NewTextNumbers { kVerbatim, kStrip, kRefuse };
NewTextNumbers new_text_numbers(std::string_view new_text, const View& old_view);

}  // namespace editd::match
