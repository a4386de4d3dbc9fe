// The text model behind byte fidelity.
//
// A file's bytes are decoded once into a Document: an optional UTF-8 BOM, the
// body as stored, and its lines, each with its own ending (LF, CRLF or none for
// a last line without a final newline). Edits are computed on the body with
// every CRLF folded to LF (`normalized()`), which is what matching sees; then
// render() maps the edited text back onto the original's conventions: lines the
// edit kept keep their own ending, new lines take the dominant ending, the BOM
// is restored and (for edits) the presence of a final newline is preserved.
// Everything here is pure: bytes in, bytes or an Error out.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"

namespace editd::text {

enum class Eol { kNone, kLf, kCrLf };

std::string_view eol_bytes(Eol eol);

inline constexpr std::string_view kBom = "\xEF\xBB\xBF";

// `bytes` without a leading UTF-8 BOM.
inline std::string_view without_bom(std::string_view bytes) {
  if (bytes.starts_with(kBom)) bytes.remove_prefix(kBom.size());
  return bytes;
}

// True if `s` is well-formed UTF-8 (no overlongs, surrogates or code points
// above U+10FFFF).
bool is_valid_utf8(std::string_view s);

// not_text if `bytes` holds a NUL byte or is not valid UTF-8, with data.offset
// of the first offending byte; `what` names the source in the message.
Result<void> check_text(std::string_view bytes, std::string_view what);

struct Line {
  std::size_t begin = 0;   // offset in body
  std::size_t length = 0;  // without the ending
  Eol eol = Eol::kNone;
};

class Document {
 public:
  // Decodes stored bytes. Fails with not_text on NUL or invalid UTF-8.
  static Result<Document> decode(std::string bytes);

  bool bom() const { return bom_; }
  // The bytes after the BOM, exactly as stored.
  const std::string& body() const { return body_; }
  const std::vector<Line>& lines() const { return lines_; }
  std::string_view line_text(std::size_t i) const {
    return std::string_view(body_).substr(lines_[i].begin, lines_[i].length);
  }
  // The ending used for new lines: the more common of LF and CRLF (LF on a tie
  // or when the file has no line ending at all).
  Eol dominant_eol() const { return dominant_; }
  bool final_newline() const { return !lines_.empty() && lines_.back().eol != Eol::kNone; }
  // 1-based line count: "" -> 0, "\n" -> 1, "a\nb" -> 2, "a\nb\n" -> 2.
  std::size_t line_count() const { return lines_.size(); }
  // The body with every CRLF ending folded to LF.
  std::string normalized() const;
  // Byte offset in body of the start of 0-based line i (body size when i == line_count()).
  std::size_t line_offset(std::size_t i) const {
    return i < lines_.size() ? lines_[i].begin : body_.size();
  }

 private:
  bool bom_ = false;
  std::string body_;
  std::vector<Line> lines_;
  Eol dominant_ = Eol::kLf;
};

struct RenderOptions {
  // Keep the original's final-newline state (every edit); write_text sets false
  // to take the given content's own.
  bool keep_final_newline = true;
};

// Maps `edited` (LF-normalized text derived from original.normalized()) back
// onto the original's conventions and returns the bytes to store (BOM included).
std::string render(const Document& original, std::string_view edited, RenderOptions options = {});

// Folds every CRLF to LF; lone CRs are content and stay.
std::string normalize_eol(std::string_view s);

// Splits LF-normalized text into lines without their "\n"; a final "\n" ends the
// last line and does not start another ("" -> {}, "a\n" -> {"a"}, "a\nb" -> {"a","b"}).
std::vector<std::string_view> split_lines(std::string_view s);

// Number of lines as read_text counts them (see Document::line_count).
std::size_t count_lines(std::string_view s);

}  // namespace editd::text
