#include "edit/text/text.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "edit/text/chars.h"

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

// Offset of the first NUL or malformed byte, or npos; with `ends`, the "\n"
// (and those after "\r") before it counted in the same pass; with `ascii`,
// whether every byte before it is ASCII. Sixteen bytes a
// step (SSE2, part of x86-64) while they are ASCII without NUL; a byte above
// ASCII is checked as a UTF-8 sequence, one sequence at a time.
std::size_t scan_text(std::string_view s, chars::Newlines* ends, bool* ascii = nullptr) {
  const char* p = s.data();
  const std::size_t n = s.size();
  chars::Newlines counted;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128(), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
  __m128i all = zero, after_cr = zero;  // per-byte counters (a true compare is -1)
  int steps = 0;                        // since the counters were last summed
  auto sum = [&] {
    auto total = [&](__m128i v) {
      const __m128i halves = _mm_sad_epu8(v, zero);
      return static_cast<std::size_t>(_mm_cvtsi128_si32(halves)) +
             static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(halves, halves)));
    };
    counted.all += total(all);
    counted.after_cr += total(after_cr);
    all = after_cr = zero;
    steps = 0;
  };
#endif
  auto result = [&](std::size_t at) {
    if (ends) *ends = counted;
    return at;
  };
  while (i < n) {
#if defined(__SSE2__)
    if (ends == nullptr) {
      while (n - i >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        if (_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero))) != 0) break;
        i += 16;
      }
    } else if (i > 0) {  // the counting looks one byte back
      while (n - i >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        if (_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero))) != 0) break;
        const __m128i nl = _mm_cmpeq_epi8(v, lf);
        const __m128i before =
            _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i - 1)), cr);
        all = _mm_sub_epi8(all, nl);
        after_cr = _mm_sub_epi8(after_cr, _mm_and_si128(nl, before));
        i += 16;
        if (++steps == 255) sum();
      }
      if (steps != 0) sum();
    }
    if (i >= n) break;
#endif
    const auto c = static_cast<unsigned char>(p[i]);
    if (c == 0) return result(i);
    if (c < 0x80) {
      if (c == '\n') {
        ++counted.all;
        if (i > 0 && p[i - 1] == '\r') ++counted.after_cr;
      }
      ++i;
      continue;
    }
    if (ascii) *ascii = false;
    do {  // a run of sequences (CJK text is little else), in one go
      const std::size_t len = utf8_sequence(s, i);
      if (len == 0) return result(i);
      i += len;
    } while (i < n && static_cast<unsigned char>(p[i]) >= 0x80);
  }
  return result(std::string_view::npos);
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
  std::size_t bad = scan_text(bytes, nullptr);
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
  chars::Newlines ends;
  if (scan_text(bytes, &ends, &doc.ascii_) != std::string_view::npos) {
    Error e = check_text(bytes, "the file").error();
    if (doc.bom_) e.data["offset"] = e.data["offset"].get<std::size_t>() + kBom.size();
    return e;
  }
  doc.body_ = bytes;
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
  // Exactly the room needed, counted first (a vector pass): a growing vector
  // would hold its old and new arrays at once, 3x the final table of a big
  // file of short lines, and copy it on each growth.
  lines.reserve(chars::count_newlines(s) + 1);
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

std::vector<std::size_t> line_starts(std::string_view s) {
  std::vector<std::size_t> starts{0};
  for (std::size_t at = s.find('\n'); at != std::string_view::npos; at = s.find('\n', at + 1))
    starts.push_back(at + 1);
  if (!s.empty() && s.back() != '\n') starts.push_back(s.size());
  return starts;
}

}  // namespace editd::text
