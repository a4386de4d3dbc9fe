// Line diffs: the edit script between two texts, and the unified diff that every
// mutation returns.
//
// diff_lines is Myers' O(ND) algorithm after trimming the common prefix and
// suffix, with a work budget: past it, the remaining middle is reported as one
// changed block, so a diff is never quadratic in the file size (it is then
// correct, only not minimal).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace editd::diff {

// A changed region: a[a_begin, a_end) was replaced by b[b_begin, b_end). Lines
// between consecutive blocks are equal. Blocks are sorted and disjoint.
struct Block {
  std::size_t a_begin, a_end, b_begin, b_end;
};

std::vector<Block> diff_lines(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b);

struct UnifiedDiff {
  std::string text;     // "" when the texts are equal
  std::size_t added = 0;
  std::size_t removed = 0;
};

// A unified diff with `context` lines of context. Texts are split on "\n"; a
// CR before it stays part of the line. A side without a final newline gets
// "\ No newline at end of file". Labels are written as given after "--- " and
// "+++ " (e.g. "a/src/x.c", "/dev/null").
UnifiedDiff unified(std::string_view old_text, std::string_view new_text,
                    std::string_view old_label, std::string_view new_label, int context = 3);

}  // namespace editd::diff
