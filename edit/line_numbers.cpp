#include "edit/line_numbers.h"

#include <vector>

#include "edit/text.h"

namespace editd::match {

using Lines = std::vector<std::string_view>;

std::optional<Prefix> line_number_prefix(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  std::size_t digits = i;
  std::uint64_t number = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - digits < 9)
    number = number * 10 + static_cast<std::uint64_t>(line[i++] - '0');
  if (i == digits) return std::nullopt;
  std::string_view rest = line.substr(i);
  if (rest.starts_with(": ")) return Prefix{i + 2, number};
  if (rest.starts_with(":") || rest.starts_with("\t")) return Prefix{i + 1, number};
  if (rest.starts_with("\xE2\x86\x92")) return Prefix{i + 3, number};
  return std::nullopt;
}

Numbering numbering(std::string_view s) {
  Lines lines = text::split_lines(s);
  std::size_t with = 0;
  std::optional<std::uint64_t> previous;
  bool consecutive = true;
  for (std::string_view l : lines) {
    auto p = line_number_prefix(l);
    if (!p) continue;
    ++with;
    if (previous && p->number != *previous + 1) consecutive = false;
    previous = p->number;
  }
  if (with == 0) return Numbering::kNone;
  return with == lines.size() && consecutive ? Numbering::kEvery : Numbering::kSome;
}

std::string strip_numbers(std::string_view s) {
  std::string out;
  Lines lines = text::split_lines(s);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    auto p = line_number_prefix(lines[i]);
    out += p ? lines[i].substr(p->length) : lines[i];
  }
  if (s.ends_with('\n')) out += '\n';
  return out;
}

}  // namespace editd::match
