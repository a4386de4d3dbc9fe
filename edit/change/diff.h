// Line diffs: the edit script between two lists of lines (unified_diff.h
// prints it).
//
// diff_lines is Myers' O(ND) algorithm in its linear-space form: it finds the
// middle of a shortest edit script and recurses on both halves, so memory is
// O(N + M) whatever the distance. One work budget (about 30M steps) covers the
// whole call: past it, each part not yet solved is reported as one changed
// block, so the time stays bounded and the script stays correct, only no
// longer minimal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace editd::diff {

// A changed region: a[a_begin, a_end) was replaced by b[b_begin, b_end). Lines
// between consecutive blocks are equal. Blocks are sorted, disjoint and never
// adjacent (at least one equal line separates two blocks).
struct Block {
  std::size_t a_begin, a_end, b_begin, b_end;
};

std::vector<Block> diff_lines(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b);

// The same over lines given by full-width hashes (equal hashes are taken for
// equal lines), under the same work budget: hashline anchors map the lines a
// client read to the file as it is now by it.
std::vector<Block> diff_hashes(const std::vector<std::uint64_t>& a,
                               const std::vector<std::uint64_t>& b);

}  // namespace editd::diff
