// The text model behind byte fidelity.
//
// A file's bytes are an optional UTF-8 BOM and a body. A Document is a view of
// them (it never copies the body) with what every edit needs to know: whether
// there is a BOM, the body's line count, its dominant line ending and whether it
// ends with a line break. Matching and editing see the body *normalized*: every
// CRLF folded to LF (a lone CR is content), which Normalized gives without a copy
// when the body has no CRLF. Edits made on the normalized body become byte
// splices over the stored one (change/splice.h), so a byte that no edit touches never
// changes. Everything here is pure: bytes in, bytes or an Error out.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "edit/error.h"

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

class Document {
 public:
  // Decodes stored bytes without copying them: `bytes` must outlive the
  // Document. Fails with not_text on NUL or invalid UTF-8 (data.offset counts
  // the BOM).
  static Result<Document> decode(std::string_view bytes);

  bool bom() const { return bom_; }
  // The bytes after the BOM, exactly as stored.
  std::string_view body() const { return body_; }
  // The ending used for new lines: the more common of LF and CRLF (LF on a tie
  // or when the file has no line ending at all).
  Eol dominant_eol() const { return crlf_ > lf_ ? Eol::kCrLf : Eol::kLf; }
  bool final_newline() const { return !body_.empty() && body_.back() == '\n'; }
  // 1-based line count: "" -> 0, "\n" -> 1, "a\nb" -> 2, "a\nb\n" -> 2.
  std::size_t line_count() const {
    return lf_ + crlf_ + (body_.empty() || final_newline() ? 0 : 1);
  }
  // Number of CRLF line breaks.
  std::size_t crlf_count() const { return crlf_; }
  // Whether every byte of the body is ASCII (found by decode's pass).
  bool ascii() const { return ascii_; }
  // Byte offset in body of the start of 0-based line i (body size when
  // i >= line_count()). One scan of the body up to that line.
  std::size_t line_offset(std::size_t i) const;

 private:
  bool bom_ = false;
  std::string_view body_;
  std::size_t lf_ = 0;    // LF line breaks
  std::size_t crlf_ = 0;  // CRLF line breaks
  bool ascii_ = true;
};

// `inserted` as it may be written at offset `at` of the body of `doc`: at the
// start of the body of a file that has a BOM (and whose body does not itself
// start with U+FEFF), without the U+FEFF it starts with, which can only be a
// copy of the BOM (from a view that shows it) and would land as a second one.
// Anywhere else U+FEFF is content and is kept.
inline std::string_view without_copied_bom(const Document& doc, std::size_t at,
                                           std::string_view inserted) {
  if (at != 0 || !doc.bom() || doc.body().starts_with(kBom)) return inserted;
  while (inserted.starts_with(kBom)) inserted.remove_prefix(kBom.size());
  return inserted;
}

// The body of a Document with every CRLF folded to LF: a view of the body
// itself when it has no CRLF, else one copy. Not movable: views of it must stay
// valid.
class Normalized {
 public:
  explicit Normalized(const Document& doc);
  Normalized(const Normalized&) = delete;
  Normalized& operator=(const Normalized&) = delete;

  std::string_view view() const { return view_; }

 private:
  std::string owned_;
  std::string_view view_;
};

// Folds every CRLF to LF; lone CRs are content and stay.
std::string normalize_eol(std::string_view s);

// Splits LF-normalized text into lines without their "\n"; a final "\n" ends the
// last line and does not start another ("" -> {}, "a\n" -> {"a"}, "a\nb" -> {"a","b"}).
std::vector<std::string_view> split_lines(std::string_view s);

// lines[begin, end) joined with "\n" (no final one).
std::string join_lines(const std::vector<std::string_view>& lines, std::size_t begin,
                       std::size_t end);

// Number of lines as read_text counts them (see Document::line_count).
std::size_t count_lines(std::string_view s);

// Where each line of `s` begins, then where `s` ends: line n's bytes (its
// "\n" included) are [starts[n], starts[n + 1]), so there are lines + 1
// entries ("" -> {0}, "a\nb" -> {0, 2, 3}).
std::vector<std::size_t> line_starts(std::string_view s);

}  // namespace editd::text
