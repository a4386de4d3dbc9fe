#include "edit/symbols/symbol_edit.h"

#include "edit/symbols/positions.h"
#include "edit/text/text.h"

namespace editd::symbols {

namespace {

std::string_view leading_blanks(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return line.substr(0, n);
}

bool blank(std::string_view line) { return leading_blanks(line).size() == line.size(); }

}  // namespace

std::string reindent(std::string_view text, std::string_view indent) {
  const std::string normalized = text::normalize_eol(text);
  const std::vector<std::string_view> lines = text::split_lines(normalized);
  std::string_view own;
  for (std::string_view l : lines)
    if (!blank(l)) {
      own = leading_blanks(l);
      break;
    }
  std::string out;
  out.reserve(normalized.size() + lines.size() * indent.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    if (!blank(l) && l.starts_with(own)) {
      out += indent;
      out += l.substr(own.size());
    } else {
      out += l;
    }
    if (i + 1 < lines.size() || normalized.ends_with('\n')) out += '\n';
  }
  return out;
}

std::string_view indentation_of(std::string_view normalized, std::size_t line) {
  const LineIndex index(normalized);
  const std::size_t begin = index.editd_line_start(line);
  return leading_blanks(normalized.substr(begin, index.editd_line_end(line) - begin));
}

Result<splice::Edit> symbol_edit(std::string_view normalized, std::size_t first_line,
                                 std::size_t last_line, Placement placement,
                                 std::string_view text) {
  const LineIndex index(normalized);
  const std::size_t begin = index.editd_line_start(first_line);
  const std::string_view indent =
      leading_blanks(normalized.substr(begin, index.editd_line_end(first_line) - begin));
  std::string lines = reindent(text, indent);
  const bool empty = lines.empty();
  if (lines.ends_with('\n')) lines.pop_back();
  splice::Edit e;
  switch (placement) {
    case Placement::kReplace:
      if (empty) {  // the lines go, their breaks with them
        e.begin = begin;
        e.end = index.editd_line_start(last_line + 1);
      } else {
        e.begin = begin;
        e.end = index.editd_line_end(last_line);
        e.text = std::move(lines);
      }
      return e;
    case Placement::kInsertBefore:
    case Placement::kInsertAfter:
      if (empty)
        return invalid_input(Input::kNewText,
                             "is empty: there is nothing to insert (send \"\\n\" for a blank line)");
      if (placement == Placement::kInsertBefore) {
        e.begin = e.end = begin;
        e.text = std::move(lines) + "\n";
      } else {
        e.begin = e.end = index.editd_line_end(last_line);
        e.text = "\n" + std::move(lines);
      }
      return e;
  }
  return e;
}

}  // namespace editd::symbols
