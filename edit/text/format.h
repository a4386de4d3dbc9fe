// set_format's conversion: a file's bytes in another format, its text unchanged.
//
// The text of a file is the content of its lines (text.h: a line ends at an
// LF, and the CR of a CRLF belongs to the break, every other CR is content);
// its format is the BOM, each line break's ending and whether the last line
// has one. Some texts have no bytes in some formats, since the bytes are read
// back by that same rule: a line whose content ends with a CR cannot end with
// an LF (the pair reads as a CRLF), a text that starts with U+FEFF cannot go
// without a BOM (the character would read as the BOM), and a last line that is
// empty cannot go without its line break (it would be no line at all).
// Reformatting refuses those (invalid_params naming the input) rather than
// changing the text. Pure: bytes in, bytes or an Error out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "edit/error.h"
#include "edit/text/text.h"

namespace editd::text {

// What set_format asks for; each absent member keeps the file's own.
struct Format {
  std::optional<Eol> line_endings;  // kLf or kCrLf: every line break
  std::optional<bool> bom;
  std::optional<bool> final_newline;  // ignored for an empty body
};

// The bytes of `doc` in `format`, with every line's content as it was; the
// breaks not asked for keep their ending. A final line break added without
// line_endings takes the dominant ending, or CRLF after a line that ends with
// a CR (the one break that keeps it). invalid_params (Error::input: kLineEndings,
// kBom or kFinalNewline, which the caller names in data.param; data.reason;
// data.line, 1-based, where a line is at fault) when no bytes hold the text in
// that format; `what` names the file in the message, which names no input.
Result<std::string> reformat(const Document& doc, const Format& format, std::string_view what);

}  // namespace editd::text
