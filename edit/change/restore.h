// Restores: a change undone from what its regions held, not from a copy of the
// whole file. A restore says that the `after_size` bytes at offset `at` of the
// bytes after a change were `before`; given the bytes after (which an undo
// reads, and checks by fingerprint), a list of them gives the bytes before
// back. Pure, like all of edit/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/splice.h"

namespace editd::restore {

struct Restore {
  std::uint64_t at = 0;
  std::uint64_t after_size = 0;
  std::string before;
};

// What restores hold: the bytes of each and its own size.
std::uint64_t held_by(const std::vector<Restore>& restores);

// The restores that undo `splices` (splice::plan's: ascending, disjoint) of
// the body of `file` (after `bom` bytes), as offsets in the bytes after;
// nullopt once they would hold more than `max_held`.
std::optional<std::vector<Restore>> of_splices(std::string_view file, std::size_t bom,
                                               const std::vector<splice::Splice>& splices,
                                               std::uint64_t max_held);

// The one restore that turns `after` back into `before`: the span between
// their longest common prefix and suffix (the suffix gives way where they
// would overlap). nullopt when the two are the same.
std::optional<Restore> window(std::string_view before, std::string_view after);

// `after` with `restores` (ascending, disjoint) put back; nullopt when they
// cannot have been taken from it (one reaches past its end, or they overlap).
std::optional<std::string> apply(std::string_view after, const std::vector<Restore>& restores);

}  // namespace editd::restore
