// Carrying a model's change onto the file's own characters.
//
// The unicode tier matches a file line to a line of oldText when both fold to
// the same ASCII (text/chars.h): the file may say “it’s” where the model wrote
// "it's". When newText changes that line, writing the model's whole line would
// trade the file's characters for the model's on text the model never meant to
// touch (a Python string loses its curly quotes, a flag's hyphen becomes the
// model's en dash). Instead the change from oldText's line to newText's line is
// found character by character and made on the file's line: what the model did
// not change keeps the file's bytes; only what it changed is written, in the
// model's characters. docs/protocol.md, "What the replacement keeps", states
// the rule; this file also holds the rule for U+FEFF in text the model writes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace editd::carry {

using Lines = std::vector<std::string_view>;

// A changed stretch: a[a_begin, a_end) became b[b_begin, b_end), in bytes, on
// code point boundaries.
struct CharChange {
  std::size_t a_begin, a_end, b_begin, b_end;
};

// The changes that turn `a` into `b`, code point by code point: the common
// prefix and suffix, then a shortest edit script of the rest (one change when
// either side is longer than kMaxDiffCodePoints), with equal stretches shorter
// than the changes around them folded into one change, so that a rewritten word
// does not keep stray letters. Sorted, disjoint.
std::vector<CharChange> diff_chars(std::string_view a, std::string_view b);

inline constexpr std::size_t kMaxDiffCodePoints = 4096;

// `file_line` with the change from `old_line` to `new_line` made character by
// character, where `file_line` and `old_line` fold alike (chars::fold): the
// result has `new_line`'s leading and trailing blanks (re-indented by the
// caller; the file's where `new_line`'s are `old_line`'s and the file's fold
// like them: no-break spaces the model wrote as spaces), and in between the file's characters
// wherever the model kept its own. A change whose edge falls inside one folded character (the
// file's `…` against the model's `...`) is widened to that whole character, and then keeps the
// file's bytes if the model's text there folds as the file's does. U+FEFF in what the model writes
// is dropped. nullopt when the lines do not fold alike.
std::optional<std::string> carry_line(std::string_view file_line, std::string_view old_line,
                                      std::string_view new_line);

// The lines that replace `file` (oldText's `old_lines` matched them one for one
// under the fold) when newText has `new_lines` there (already re-indented). A
// new line paired with an old one (one for one when both sides have as many
// lines, else by similarity) is carry_line()'s; any other is the model's own,
// without U+FEFF.
std::vector<std::string> carry_lines(const Lines& file, const Lines& old_lines,
                                     const std::vector<std::string>& new_lines);

// `s` without any U+FEFF.
std::string without_feff(std::string_view s);

// `new_text` without each U+FEFF (zero width no-break space, the BOM) that does
// not stand for one of `old_text`'s: a U+FEFF is kept only on a stretch that a
// character diff of the two keeps (see diff_chars), so one that a model copied
// from a view never lands in the file as a second BOM or a stray character.
std::string keep_matched_feff(std::string_view old_text, std::string_view new_text);

}  // namespace editd::carry
