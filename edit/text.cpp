#include "edit/text.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "edit/diff.h"

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
                   " at byte offset " + std::to_string(bad) +
                   "; editd edits UTF-8 text files only",
               {{"offset", bad}, {"reason", nul ? "nul" : "utf8"}});
}

Result<Document> Document::decode(std::string bytes) {
  Document doc;
  if (std::string_view(bytes).starts_with(kBom)) {
    doc.bom_ = true;
    bytes.erase(0, kBom.size());
  }
  if (auto ok = check_text(bytes, "the file"); !ok) {
    Error e = ok.error();
    if (doc.bom_) e.data["offset"] = e.data["offset"].get<std::size_t>() + kBom.size();
    return e;
  }
  doc.body_ = std::move(bytes);
  const std::string& b = doc.body_;
  std::size_t crlf = 0, lf = 0;
  std::size_t start = 0;
  while (start < b.size()) {
    std::size_t nl = b.find('\n', start);
    if (nl == std::string::npos) {
      doc.lines_.push_back({start, b.size() - start, Eol::kNone});
      break;
    }
    if (nl > start && b[nl - 1] == '\r') {
      doc.lines_.push_back({start, nl - 1 - start, Eol::kCrLf});
      ++crlf;
    } else {
      doc.lines_.push_back({start, nl - start, Eol::kLf});
      ++lf;
    }
    start = nl + 1;
  }
  doc.dominant_ = crlf > lf ? Eol::kCrLf : Eol::kLf;
  return doc;
}

std::string Document::normalized() const {
  bool any_crlf = false;
  for (const Line& l : lines_)
    if (l.eol == Eol::kCrLf) {
      any_crlf = true;
      break;
    }
  if (!any_crlf) return body_;
  std::string out;
  out.reserve(body_.size());
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    out.append(line_text(i));
    if (lines_[i].eol != Eol::kNone) out.push_back('\n');
  }
  return out;
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
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(s.substr(start));
      break;
    }
    lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::size_t count_lines(std::string_view s) {
  if (s.empty()) return 0;
  std::size_t n = static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
  return s.back() == '\n' ? n : n + 1;
}

std::string render(const Document& original, std::string_view edited, RenderOptions options) {
  // Old lines as the edit saw them (CRLF folded), new lines of the edit.
  std::vector<std::string_view> old_lines;
  old_lines.reserve(original.line_count());
  for (std::size_t i = 0; i < original.line_count(); ++i)
    old_lines.push_back(original.line_text(i));
  std::vector<std::string_view> new_lines = split_lines(edited);
  bool edited_final_newline = !edited.empty() && edited.back() == '\n';

  // Each new line inherits the ending of the old line it is equal to, if any.
  const Eol dominant = original.dominant_eol();
  std::vector<Eol> endings(new_lines.size(), dominant);
  std::size_t a = 0, b = 0;
  auto keep_equal_run = [&](std::size_t a_end, std::size_t b_end) {
    while (a < a_end && b < b_end) endings[b++] = original.lines()[a++].eol;
  };
  for (const diff::Block& block : diff::diff_lines(old_lines, new_lines)) {
    keep_equal_run(block.a_begin, block.b_begin);
    a = block.a_end;
    b = block.b_end;
  }
  keep_equal_run(old_lines.size(), new_lines.size());

  bool final_newline = options.keep_final_newline && original.line_count() > 0
                           ? original.final_newline()
                           : edited_final_newline;
  std::string out;
  out.reserve(edited.size() + edited.size() / 16 + kBom.size());
  if (original.bom()) out.append(kBom);
  for (std::size_t i = 0; i < new_lines.size(); ++i) {
    out.append(new_lines[i]);
    bool last = i + 1 == new_lines.size();
    if (last && !final_newline) break;
    Eol e = endings[i] == Eol::kNone ? dominant : endings[i];
    out.append(eol_bytes(e));
  }
  return out;
}

}  // namespace editd::text
