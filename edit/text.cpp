#include "edit/text.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "edit/chars.h"

namespace editd::text {

std::string_view eol_bytes(Eol eol) {
  switch (eol) {
    case Eol::kLf:
      return "\n";
    case Eol::kCrLf:
      return "\r\n";
    case Eol::kNone:
      break;
  }
  return "";
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if it is malformed.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// Offset of the first NUL or malformed byte, or npos.
std::size_t first_non_text(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // Fast path over ASCII, eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (w & 0x8080808080808080ULL) break;
      // A zero byte in w: classic haszero trick.
      if ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    if (s[i] == '\0') return i;
    std::size_t len = utf8_sequence(s, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = utf8_sequence(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

Result<void> check_text(std::string_view bytes, std::string_view what) {
  std::size_t bad = first_non_text(bytes);
  if (bad == std::string_view::npos) return {};
  bool nul = bytes[bad] == '\0';
  return Error(ErrorKind::kNotText,
               std::string(what) + (nul ? " contains a NUL byte" : " is not valid UTF-8") +
                   " at byte offset " + std::to_string(bad) + "; editd edits UTF-8 text files only",
               {{"offset", bad}, {"reason", nul ? "nul" : "utf8"}});
}

Result<Document> Document::decode(std::string_view bytes) {
  Document doc;
  if (bytes.starts_with(kBom)) {
    doc.bom_ = true;
    bytes.remove_prefix(kBom.size());
  }
  if (auto ok = check_text(bytes, "the file"); !ok) {
    Error e = ok.error();
    if (doc.bom_) e.data["offset"] = e.data["offset"].get<std::size_t>() + kBom.size();
    return e;
  }
  doc.body_ = bytes;
  const chars::Newlines ends = chars::count_line_ends(bytes);
  doc.crlf_ = ends.after_cr;
  doc.lf_ = ends.all - ends.after_cr;
  return doc;
}

std::size_t Document::line_offset(std::size_t i) const {
  if (i >= line_count()) return body_.size();  // the usual end of a read: no scan
  std::size_t pos = 0;
  for (std::size_t n = 0; n < i; ++n) {
    std::size_t nl = body_.find('\n', pos);
    if (nl == std::string_view::npos) return body_.size();
    pos = nl + 1;
  }
  return pos;
}

Normalized::Normalized(const Document& doc) {
  if (doc.crlf_count() == 0) {
    view_ = doc.body();
    return;
  }
  owned_ = normalize_eol(doc.body());
  view_ = owned_;
}

std::string normalize_eol(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find("\r\n", start);
    if (pos == std::string_view::npos) {
      out.append(s.substr(start));
      break;
    }
    out.append(s.substr(start, pos - start));
    out.push_back('\n');
    start = pos + 2;
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  // Room for lines of 24 bytes on average up front: pages never written cost
  // nothing, and a big file is not copied again and again as the vector grows.
  lines.reserve(s.size() / 24 + 1);
  const char* const p = s.data();
  std::size_t start = 0;
  chars::for_each_newline(s, [&](std::size_t nl) {
    lines.emplace_back(p + start, nl - start);
    start = nl + 1;
  });
  if (start < s.size()) lines.emplace_back(p + start, s.size() - start);
  return lines;
}

std::string join_lines(const std::vector<std::string_view>& lines, std::size_t begin,
                       std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin) out += '\n';
    out += lines[i];
  }
  return out;
}

std::size_t count_lines(std::string_view s) {
  if (s.empty()) return 0;
  std::size_t n = static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
  return s.back() == '\n' ? n : n + 1;
}

}  // namespace editd::text
