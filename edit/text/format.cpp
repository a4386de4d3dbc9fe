#include "edit/text/format.h"

namespace editd::text {
namespace {

// The format asked for holds no bytes of this text: `input` is the member at
// fault, `line` (1-based, 0 for none) the line that cannot take it.
Error refused(Input input, std::string_view reason, std::size_t line, std::string message) {
  nlohmann::json data = {{"reason", reason}};
  if (line != 0) data["line"] = line;
  Error e(ErrorKind::kInvalidParams, std::move(message), std::move(data));
  e.input = input;
  return e;
}

}  // namespace

Result<std::string> reformat(const Document& doc, const Format& format, std::string_view what) {
  const std::string_view body = doc.body();
  const bool bom = format.bom.value_or(doc.bom());
  if (!bom && body.starts_with(kBom))
    return refused(Input::kBom, "text_starts_with_feff", 0,
                   std::string(what) +
                       " has a BOM and its text starts with U+FEFF (a zero width no-break "
                       "space): without the BOM that character would be read as the BOM and "
                       "drop out of the text; nothing was changed (keep the BOM, or remove the "
                       "character with an edit first)");

  std::string out;
  out.reserve(body.size() + body.size() / 16 + 8);
  if (bom) out.append(kBom);
  if (body.empty()) return out;  // no last line to end or not
  const bool final_newline = format.final_newline.value_or(doc.final_newline());

  std::size_t line = 1;
  std::size_t start = 0;
  while (start < body.size()) {
    const std::size_t nl = body.find('\n', start);
    const bool last_unended = nl == std::string_view::npos;
    const std::size_t end = last_unended ? body.size() : nl;
    const bool crlf = !last_unended && end > start && body[end - 1] == '\r';
    const std::string_view content = body.substr(start, end - start - (crlf ? 1 : 0));
    const bool last = last_unended || nl + 1 == body.size();
    out.append(content);
    if (!last || final_newline) {
      Eol eol = crlf ? Eol::kCrLf : Eol::kLf;
      if (format.line_endings)
        eol = *format.line_endings;
      else if (last_unended)  // a break added
        eol = content.ends_with('\r') ? Eol::kCrLf : doc.dominant_eol();
      if (eol == Eol::kLf && content.ends_with('\r'))
        return refused(Input::kLineEndings, "cr_before_lf", line,
                       "line " + std::to_string(line) + " of " + std::string(what) +
                           " ends with a CR that is part of its text: followed by an LF line "
                           "break it would read as a CRLF and the CR would drop out of the "
                           "text; nothing was changed (keep CRLF line endings, or remove the CR "
                           "with an edit first)");
      out.append(eol_bytes(eol));
    } else if (content.empty()) {
      // An empty last line exists only by its line break.
      return refused(Input::kFinalNewline, "last_line_empty", line,
                     "the last line of " + std::string(what) + " (line " + std::to_string(line) +
                         ") is empty: without its line break it would not be a line at all; "
                         "nothing was changed (keep the final newline, or remove the empty line "
                         "with an edit first)");
    }
    if (last_unended) break;
    start = nl + 1;
    ++line;
  }
  return out;
}

}  // namespace editd::text
