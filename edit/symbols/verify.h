// Whether a language server's positions fit the bytes it was sent. Positions
// are never trusted as they come: a server may count lines otherwise than LSP
// says (tsserver ends lines at U+2028 and U+2029 too, legal in a string
// literal, and then every symbol below one is a line off), or lie. A symbol's
// selection range holds its name; where it does not, its lines are not its
// own. Pure.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "edit/symbols/outline.h"
#include "edit/symbols/positions.h"

namespace editd::symbols {

enum class NameFit {
  kUnknown,    // no name position to check: no selection range, or one empty
               // or as large as the whole range (a server's fallback)
  kHolds,      // the bytes at the selection range are the name, a part of it
               // (clangd's `parse` in `Parser::parse`), or hold it
  kMisplaced,  // they are not, the selection starts past its line's end, or the
               // symbol past the text's lines
};

// Whether `r`'s selection range, mapped by `index`, holds its name.
NameFit name_fit(const LineIndex& index, const Reported& r, Encoding encoding);

// The line breaks under which the server's positions fit `text` best: of
// those that differ on it, the one under which most of the (first
// kMaxFitChecks) symbols' selection ranges hold their names, `prefer` (what
// the server was found to count before) on a tie, then LSP's own.
inline constexpr std::size_t kMaxFitChecks = 4096;
LineBreaks fit_line_breaks(std::string_view text, const std::vector<Reported>& roots,
                           Encoding encoding, LineBreaks prefer);

}  // namespace editd::symbols
