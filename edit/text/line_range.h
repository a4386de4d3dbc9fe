// A range of a file's lines, 1-based and inclusive: the one shape every layer
// uses for "these lines" (where a replacement landed, what a view showed, the
// region closest to a miss), from edit/ up to the operations' outcomes.
#pragma once

#include <cstdint>

namespace editd::text {

struct LineRange {
  std::uint64_t start_line = 0;  // 1-based
  std::uint64_t end_line = 0;    // 1-based, inclusive
};

}  // namespace editd::text
