// Why a chunk of a patch was not found: the patch_apply error that shows a
// model where its lines differ from the file, apart from the seek tiers that
// looked for them (seek.h). Internal to apply_patch (update.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "edit/error.h"
#include "edit/patch/patch.h"
#include "edit/patch/seek.h"

namespace editd::patch::detail {

// patch_apply for hunk `hunk` (1-based) of `path`: `context` (the lines looked
// for) was not found from line `from` (0-based) on in `text`, the file's
// normalized body that `index` holds the lines of; `what` ends the message.
// data {path, hunk, patchLine, context, fromLine, closest?, hint?}: the region
// most similar to the lines (explain/closest.h) and, when the lines differ only
// in typography but are too short to fold, a hint that says so.
Error hunk_miss(const std::string& path, std::size_t hunk, const Chunk& chunk,
                std::string_view text, seek::Index& index,
                const std::vector<std::string_view>& context, std::size_t from, std::string what);

}  // namespace editd::patch::detail
