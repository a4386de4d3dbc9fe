// One file's chunks applied to its bytes: where each chunk lands (seek.h, by
// the tiers of the one ladder), what replaces the lines it names, and the
// bytes after, as byte splices that keep what the chunks do not change
// (change/splice.h).
// Internal to apply_patch: apply.cpp runs it for every updated file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "edit/change/unified_diff.h"
#include "edit/error.h"
#include "edit/patch/patch.h"

namespace editd::patch::detail {

struct Updated {
  std::string bytes;
  std::vector<diff::Window> windows;  // where the body changed (after `bom` bytes)
  std::size_t bom = 0;
};

// The bytes of `file` after its chunks, read in `format`'s way (a unified
// hunk's line numbers are hints, a Codex chunk is looked for after the one
// before). Errors: not_text when `bytes` are no text; patch_apply when a chunk
// is not found (hunk_miss, miss.h) or two chunks overlap (data.path, data.line).
Result<Updated> update_content(Format format, const FilePatch& file, const std::string& bytes);

}  // namespace editd::patch::detail
