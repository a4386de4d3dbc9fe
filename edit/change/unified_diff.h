// The unified diff that every mutation returns, built from the windows where
// the bytes changed, so that it costs what the change costs and never a diff of
// the whole file.
//
// A window pairs a range of the old text with the range of the new text that
// replaced it; the texts are equal outside the windows. Each window is widened
// to whole lines and its lines diffed (diff_lines, bounded), then windows close
// enough share a hunk. Lines keep their bytes ("\r" included); a line without a
// final newline is followed by `\ No newline at end of file`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/diff.h"

namespace editd::diff {

struct UnifiedDiff {
  std::string text;  // "" when the texts are equal
  std::size_t added = 0;
  std::size_t removed = 0;
};

struct Window {
  std::size_t old_begin = 0, old_end = 0;
  std::size_t new_begin = 0, new_end = 0;
};

// `windows` ascending and disjoint; old and new agree outside them (the text
// before the first window is the same in both, and so is the text between
// consecutive windows and after the last). Labels are written as given after
// "--- " and "+++ " (e.g. "a/src/x.c", "/dev/null").
// `first_line`: the 0-based line of their files at which both texts start,
// when they are a slice of each (starting at a line start, and holding
// `context` lines around every window or reaching the file's ends).
UnifiedDiff unified_windows(std::string_view old_text, std::string_view new_text,
                            const std::vector<Window>& windows, std::string_view old_label,
                            std::string_view new_label, int context = 3,
                            std::size_t first_line = 0);

// The diff of two whole texts: one window between their common prefix and
// suffix.
UnifiedDiff unified_texts(std::string_view old_text, std::string_view new_text,
                          std::string_view old_label, std::string_view new_label, int context = 3);

}  // namespace editd::diff
