// What an edit by symbol writes: the symbol's whole lines replaced, or whole
// lines inserted before or after them, as one Edit of the LF-normalized body
// (change/splice.h then keeps every byte it does not change, the file's line
// endings and final newline included). Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "edit/change/splice.h"
#include "edit/error.h"

namespace editd::symbols {

enum class Placement { kReplace, kInsertBefore, kInsertAfter };

// `text` (CRLF read as LF) indented for a place whose indentation is `indent`:
// its first non-blank line's indentation becomes `indent`, and every other line
// that starts with that same indentation has it replaced by `indent`, so the
// lines keep their depth relative to the first. A line that does not start with
// it (less indented than the first line, or indented with other characters)
// and a blank line are kept as they are: nothing is guessed.
std::string reindent(std::string_view text, std::string_view indent);

// The leading spaces and tabs of 1-based line `line` of `normalized`.
std::string_view indentation_of(std::string_view normalized, std::size_t line);

// The Edit that puts `text`, re-indented to the indentation of `first_line`, in
// place of lines first_line..last_line (1-based, inclusive) of `normalized`, or
// before or after them. Replacing with "" removes the lines. Inserting "" is
// invalid_params (Input::kNewText): there is nothing to insert.
Result<splice::Edit> symbol_edit(std::string_view normalized, std::size_t first_line,
                                 std::size_t last_line, Placement placement,
                                 std::string_view text);

}  // namespace editd::symbols
