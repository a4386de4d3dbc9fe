// The re-indenter of the forgiving line tiers: when oldText matched lines of the
// file at another indentation, the lines that newText changes or adds are
// written with the file's indentation (docs/protocol.md, "What the replacement
// keeps"). Lines the edit keeps are not its business: they keep their bytes.
//
// The model's indentation is mapped through the offset between oldText and the
// file: a newText line x model steps deeper than oldText's shallowest line lands
// x file steps deeper than that line's indentation in the file. The model's step
// is learnt from oldText and newText, the file's from the file's lines around
// the match (never from the depth of the match), and each is the most common
// increase of indentation between consecutive non-blank lines. Where the map is
// not known safely (no step, oldText indented unlike the file, tabs and spaces
// mixed with no line to copy) the edit is refused rather than guessed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/diff.h"
#include "edit/error.h"

namespace editd::match {

// Columns of a tab: indentation is measured with tab stops every this many columns.
inline constexpr std::size_t kTabWidth = 8;

// The file's step is learnt from this many lines on each side of the match...
inline constexpr std::size_t kIndentContextLines = 64;
// ...or, when they show none, from the nearest shallower line at most this many
// lines above the match (the line that encloses it).
inline constexpr std::size_t kIndentEnclosingLines = 1024;

// A matched window: file[start, start + old_lines.size()) matched old_lines.
struct Window {
  const std::vector<std::string_view>& file;  // every line of the file
  std::size_t start;                          // 0-based
  const std::vector<std::string_view>& old_lines;
  // Matched under the unicode fold: the special spaces that fold to a space
  // (one column each) or to nothing are indentation too, on every line.
  bool folded_blanks = false;
};

// The lines that `blocks` (the line diff old_lines -> new_lines) put into the
// window, in order (for each block, new_lines[b_begin, b_end)), each with its
// indentation in the file's terms. Blank lines are kept as written.
//
// Error: invalid_params about Input::kNewText (invalid_input; data.hint, data.startLine and
// data.endLine: the matched lines) when the indentation of a line cannot be
// known safely: the file's or the model's step is unknown where a line is
// deeper or shallower than oldText's; oldText's lines are not indented relative
// to each other as the file's are, and the line does not replace a line of the
// same depth; the file mixes tabs and spaces there and no line nearby has the
// depth needed; the line would be shallower than column 0.
Result<std::vector<std::string>> reindent(const Window& window,
                                          const std::vector<std::string_view>& new_lines,
                                          const std::vector<diff::Block>& blocks);

}  // namespace editd::match
