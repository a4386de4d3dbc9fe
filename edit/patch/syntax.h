// Internals shared by the two patch parsers (codex.cpp, unified.cpp)
// and the format detection in patch.cpp: numbered patch lines and the
// patch_parse error that points at one of them. Not part of the public API.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/error.h"
#include "edit/patch/patch.h"

namespace editd::patch::detail {

// A line of the patch text without its line break, and its 1-based number.
// `cr`: the line ended in "\r\n" (the "\r" is not in `text`). On `+` lines
// of a unified diff that "\r" is content (as git apply reads it): an added
// line keeps it. In a Codex envelope it is part of the line ending, as Codex
// reads it.
struct PatchLine {
  std::string_view text;
  std::size_t number = 0;
  bool cr = false;
};
using PatchLines = std::vector<PatchLine>;

// patch_parse: "invalid patch at line N: expected E, found 'F'[: why]", with
// data {line, expected, found?}.
Error parse_error(std::size_t line, std::string_view expected,
                  std::optional<std::string_view> found, std::string_view why = {});

std::string_view trim(std::string_view s);
std::string_view trim_end(std::string_view s);

// patch_parse at `line` when `path`, read from it, is not a path that a path
// param could give: refused by `rule` (parse's path_problem) or not UTF-8 (a
// JSON string always is).
Result<void> check_path(const PatchLine& line, std::string_view path, PathRule rule);

// not_text (data.line, data.path, data.reason, data.offset within the line's
// text) when `text`, a line the patch adds to `path`, holds a NUL byte or is
// not UTF-8: editd would write a file that it then refuses to edit.
Result<void> check_added(const PatchLine& line, std::string_view text, std::string_view path);

// The Codex envelope: `lines` runs from `*** Begin Patch` to `*** End Patch`
// inclusive, both already checked.
Result<std::vector<FilePatch>> parse_codex(const PatchLines& lines, PathRule path_rule);

// A unified diff; lines that belong to no file (prose, `Index:` lines, a
// `diff -u a b` command line) are skipped. `trailing_blank`: the blank lines
// (empty or whitespace only) that followed `lines` in the text and were
// trimmed: a hunk that misses lines at the end takes them as its last context
// lines, each without its leading ' ' (a context line of blanks keeps them).
Result<std::vector<FilePatch>> parse_unified(const PatchLines& lines,
                                             const PatchLines& trailing_blank, PathRule path_rule);

}  // namespace editd::patch::detail
