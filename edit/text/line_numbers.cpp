#include "edit/text/line_numbers.h"

#include <vector>

#include "edit/text/text.h"

namespace editd::match {

namespace {

constexpr std::string_view kArrow = "\xE2\x86\x92";  // →

struct Prefix {
  std::size_t padding;  // spaces before the number
  std::size_t length;   // padding, digits and separator
  std::size_t digits_end;
  std::uint64_t number;
  Separator separator;
  // Only the number: a blank line of a tab view (cat -n writes "    12\t")
  // whose tab a trim of trailing whitespace took away. It numbers a line only
  // among lines that carry their tab.
  bool bare = false;
};

std::optional<Prefix> prefix_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t padding = i;
  std::uint64_t number = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - padding < 9)
    number = number * 10 + static_cast<std::uint64_t>(line[i++] - '0');
  if (i == padding) return std::nullopt;
  std::string_view rest = line.substr(i);
  if (rest.empty()) return Prefix{padding, i, i, number, Separator::kTab, true};
  if (rest.starts_with(':')) return Prefix{padding, i + 1, i, number, Separator::kColon};
  if (rest.starts_with('\t')) return Prefix{padding, i + 1, i, number, Separator::kTab};
  if (rest.starts_with(kArrow))
    return Prefix{padding, i + kArrow.size(), i, number, Separator::kArrow};
  return std::nullopt;
}

}  // namespace

std::optional<View> numbered_view(std::string_view s) {
  const std::vector<std::string_view> lines = text::split_lines(s);
  std::optional<Prefix> first, previous;
  bool padded = false, separated = false;
  for (std::string_view l : lines) {
    auto p = prefix_of(l);
    if (!p) return std::nullopt;
    separated = separated || !p->bare;
    if (!first) {
      first = p;
    } else if (p->separator != first->separator || p->number != previous->number + 1) {
      return std::nullopt;
    }
    padded = padded || p->padding > 0;
    previous = p;
  }
  // Lines of bare numbers are a list of numbers, not a view.
  if (!first || !separated) return std::nullopt;
  // Padded numbers are right-aligned: they all end in one column.
  if (padded)
    for (std::string_view l : lines)
      if (prefix_of(l)->digits_end != first->digits_end) return std::nullopt;
  return View{first->separator, first->number, lines.size()};
}

bool some_line_numbered(std::string_view s) {
  for (std::string_view l : text::split_lines(s))
    if (auto p = prefix_of(l); p && !p->bare) return true;
  return false;
}

std::string strip_numbers(std::string_view s) {
  std::string out;
  const std::vector<std::string_view> lines = text::split_lines(s);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i].substr(prefix_of(lines[i])->length);
  }
  if (s.ends_with('\n')) out += '\n';
  return out;
}

NewTextNumbers new_text_numbers(std::string_view new_text, const View& old_view) {
  if (auto v = numbered_view(new_text);
      v && v->separator == old_view.separator && v->first == old_view.first)
    return NewTextNumbers::kStrip;
  // A prefix that could be copied from the view: the number of a line the edit
  // spans, or of one that newText adds.
  const std::vector<std::string_view> lines = text::split_lines(new_text);
  for (std::string_view l : lines) {
    auto p = prefix_of(l);
    if (p && !p->bare && p->separator == old_view.separator && p->number >= old_view.first &&
        p->number < old_view.first + old_view.lines + lines.size())
      return NewTextNumbers::kRefuse;
  }
  return NewTextNumbers::kVerbatim;
}

}  // namespace editd::match
