// LSP positions and the bytes they point at.
//
// A position is a 0-based line and a character offset within it. LSP ends a
// line at LF, CRLF or a lone CR (some servers count otherwise: LineBreaks);
// the offset counts code units of the position
// encoding the server chose at initialize (UTF-16 unless it said UTF-8 or
// UTF-32). A position past its line's end means the line's end, one past the
// last line the text's end (LSP 3.17, "Position"). A character offset that falls
// inside a code point (half of a surrogate pair, a UTF-8 continuation byte)
// means the code point's start. editd's own lines end at LF only: the two are
// told apart here, once. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace editd::symbols {

enum class Encoding { kUtf16, kUtf8, kUtf32 };

// "utf-8" / "utf-16" / "utf-32" as LSP names them; anything else is UTF-16,
// the encoding LSP assumes when a server names none.
Encoding encoding_named(std::string_view name);

// Where a server ends lines: LSP's LF, CRLF and lone CR; those and U+2028 and
// U+2029 too (tsserver, as ECMAScript does, though they may stand in a string
// literal); or LF alone (a server that reads a lone CR as content). They tell
// apart only on a text that holds a lone CR, U+2028 or U+2029.
enum class LineBreaks { kLsp, kLspAndUnicode, kLf };

// Whether the three counts can differ on `text`.
bool breaks_differ(std::string_view text);

struct Position {
  std::uint64_t line = 0;
  std::uint64_t character = 0;
};

struct Span {
  Position start;
  Position end;
};

// The line starts of a text, both as LSP and as editd count them.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text, LineBreaks breaks = LineBreaks::kLsp);

  // The byte offset `p` points at, clamped into the text. In time of the
  // line's length at most (none on a line of ASCII, or in UTF-8).
  std::size_t offset(Position p, Encoding encoding) const;
  // Whether `p` lies past the end of its line, or its line past the text's.
  bool past_end(Position p, Encoding encoding) const;
  // The lines as the server counts them (a text's last line, empty after a
  // final break, counts).
  std::size_t lsp_lines() const { return lsp_starts_.size(); }

  // The 1-based editd line holding byte `offset`; the text's end is on its
  // last line (read_text's count: a final LF starts no line). 1 for "".
  std::size_t editd_line(std::size_t offset) const;
  // The byte offset where 1-based editd line `line` starts (the text's size
  // past the last line).
  std::size_t editd_line_start(std::size_t line) const;
  // Its end: the offset of its LF, or the text's size for a last line without
  // one.
  std::size_t editd_line_end(std::size_t line) const;
  // read_text's count of lines: "" -> 0, "a" -> 1, "a\n" -> 1, "a\nb" -> 2.
  std::size_t editd_lines() const;

  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  std::vector<std::size_t> lsp_starts_;  // where each LSP line starts
  std::vector<std::size_t> lsp_ends_;    // where its content ends (its break starts)
  std::vector<bool> ascii_;              // whether it is all ASCII
  std::vector<std::size_t> lf_;          // offset of every LF
};

}  // namespace editd::symbols
