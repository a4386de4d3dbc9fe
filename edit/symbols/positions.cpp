#include "edit/symbols/positions.h"

#include <algorithm>

namespace editd::symbols {

Encoding encoding_named(std::string_view name) {
  if (name == "utf-8") return Encoding::kUtf8;
  if (name == "utf-32") return Encoding::kUtf32;
  return Encoding::kUtf16;
}

namespace {

// U+2028 or U+2029 at `i`.
bool unicode_break(std::string_view text, std::size_t i) {
  return i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xE2 &&
         static_cast<unsigned char>(text[i + 1]) == 0x80 &&
         (static_cast<unsigned char>(text[i + 2]) == 0xA8 ||
          static_cast<unsigned char>(text[i + 2]) == 0xA9);
}

}  // namespace

bool breaks_differ(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) ||
        unicode_break(text, i))
      return true;
  return false;
}

LineIndex::LineIndex(std::string_view text, LineBreaks breaks) : text_(text) {
  lsp_starts_.push_back(0);
  bool ascii = true;
  auto end_line = [&](std::size_t content_end, std::size_t next) {
    lsp_ends_.push_back(content_end);
    ascii_.push_back(ascii);
    lsp_starts_.push_back(next);
    ascii = true;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      lf_.push_back(i);
      const bool crlf = breaks != LineBreaks::kLf && i > 0 && text[i - 1] == '\r';
      end_line(crlf ? i - 1 : i, i + 1);
    } else if (c == '\r' && breaks != LineBreaks::kLf) {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;  // the LF ends it
      end_line(i, i + 1);
    } else if (breaks == LineBreaks::kLspAndUnicode && unicode_break(text, i)) {
      end_line(i, i + 3);
      i += 2;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      ascii = false;
    }
  }
  lsp_ends_.push_back(text.size());
  ascii_.push_back(ascii);
}

namespace {

// The length of the UTF-8 sequence that starts with `lead` (1 for a byte that
// starts none: the text is valid UTF-8, so only a server's bad offset lands
// inside a sequence, and offsets never do here: they step whole sequences).
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

}  // namespace

std::size_t LineIndex::offset(Position p, Encoding encoding) const {
  if (p.line >= lsp_starts_.size()) return text_.size();
  const std::size_t begin = lsp_starts_[p.line];
  const std::size_t end = lsp_ends_[p.line];  // before its break
  if (ascii_[p.line]) return begin + std::min<std::uint64_t>(p.character, end - begin);
  if (encoding == Encoding::kUtf8) {
    std::size_t at = begin + std::min<std::uint64_t>(p.character, end - begin);
    // Inside a code point: its start.
    while (at > begin && at < end && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) --at;
    return at;
  }
  std::size_t at = begin;
  std::uint64_t units = 0;
  while (at < end) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(text_[at])), end - at);
    const std::uint64_t width =
        encoding == Encoding::kUtf8 ? n : encoding == Encoding::kUtf16 ? (n == 4 ? 2 : 1) : 1;
    // An offset inside this code point means its start.
    if (units + width > p.character) break;
    units += width;
    at += n;
  }
  return at;
}

bool LineIndex::past_end(Position p, Encoding encoding) const {
  if (p.line >= lsp_starts_.size()) return true;
  const std::size_t begin = lsp_starts_[p.line], end = lsp_ends_[p.line];
  if (ascii_[p.line] || encoding == Encoding::kUtf8) return p.character > end - begin;
  std::uint64_t units = 0;
  for (std::size_t at = begin; at < end;) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(text_[at])), end - at);
    units += encoding == Encoding::kUtf16 ? (n == 4 ? 2 : 1) : 1;
    at += n;
  }
  return p.character > units;
}

std::size_t LineIndex::editd_lines() const {
  if (text_.empty()) return 0;
  return lf_.size() + (text_.back() == '\n' ? 0 : 1);
}

std::size_t LineIndex::editd_line(std::size_t offset) const {
  const auto before = static_cast<std::size_t>(
      std::lower_bound(lf_.begin(), lf_.end(), offset) - lf_.begin());
  return std::max<std::size_t>(1, std::min(before + 1, editd_lines()));
}

std::size_t LineIndex::editd_line_start(std::size_t line) const {
  if (line <= 1) return 0;
  if (line - 2 >= lf_.size()) return text_.size();
  return lf_[line - 2] + 1;
}

std::size_t LineIndex::editd_line_end(std::size_t line) const {
  if (line == 0) return 0;
  if (line - 1 >= lf_.size()) return text_.size();
  return lf_[line - 1];
}

}  // namespace editd::symbols
