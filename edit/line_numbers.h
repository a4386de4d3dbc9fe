// Line-number prefixes that models copy from numbered views ("12: ", "12:",
// "12\t" or "12→" after optional spaces): recognising and stripping them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace editd::match {

struct Prefix {
  std::size_t length;
  std::uint64_t number;
};

// The prefix that starts `line`, if any.
std::optional<Prefix> line_number_prefix(std::string_view line);

// Whether no line, some lines, or every line (consecutively numbered) of `s` has a prefix.
enum class Numbering { kNone, kSome, kEvery };
Numbering numbering(std::string_view s);

// `s` with the prefix of each line removed.
std::string strip_numbers(std::string_view s);

}  // namespace editd::match
