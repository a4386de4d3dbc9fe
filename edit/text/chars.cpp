#include "edit/text/chars.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace editd::chars {

std::size_t find_non_ascii(std::string_view s, std::size_t from) {
  // Eight bytes at a time, 64 between tests.
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  std::size_t i = std::min(from, s.size());
  const char* p = s.data();
  while (s.size() - i >= 64) {
    std::uint64_t any = 0;
    for (int w = 0; w < 8; ++w) {
      std::uint64_t word;
      std::memcpy(&word, p + i + 8 * w, 8);
      any |= word;
    }
    if ((any & kHigh) != 0) break;
    i += 64;
  }
  for (; i < s.size(); ++i)
    if ((static_cast<unsigned char>(p[i]) & 0x80) != 0) return i;
  return s.size();
}

bool is_ascii(std::string_view s) { return find_non_ascii(s, 0) == s.size(); }

std::size_t count_newlines(std::string_view s) { return count_line_ends(s).all; }

Newlines count_line_ends(std::string_view s) {
  Newlines out;
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
  auto scalar = [&](std::size_t to) {
    for (; i < to; ++i) {
      if (p[i] != '\n') continue;
      ++out.all;
      if (i > 0 && p[i - 1] == '\r') ++out.after_cr;
    }
  };
  scalar(std::min<std::size_t>(n, 1));  // the vector steps look one byte back
#if defined(__SSE2__)
  // Per-byte counters (a compare gives -1 where it holds), summed before any
  // of them can pass 255.
  const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
  while (n - i >= 16) {
    __m128i all = zero, after_cr = zero;
    for (int k = 0; k < 255 && n - i >= 16; ++k, i += 16) {
      const __m128i nl =
          _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), lf);
      const __m128i before =
          _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i - 1)), cr);
      all = _mm_sub_epi8(all, nl);
      after_cr = _mm_sub_epi8(after_cr, _mm_and_si128(nl, before));
    }
    auto sum = [&](__m128i v) {
      const __m128i halves = _mm_sad_epu8(v, zero);
      return static_cast<std::size_t>(_mm_cvtsi128_si32(halves)) +
             static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_unpackhi_epi64(halves, halves)));
    };
    out.all += sum(all);
    out.after_cr += sum(after_cr);
  }
#endif
  scalar(n);
  return out;
}

std::size_t non_blank_chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if ((u & 0xC0) == 0x80) continue;  // continuation byte
    if (!is_blank_char(c) && c != '\n') ++n;
  }
  return n;
}

void fold_unicode(std::string_view in, std::string& out) {
  for (std::size_t i = 0; i < in.size();) {
    auto b0 = static_cast<unsigned char>(in[i]);
    if (b0 < 0x80) {
      out += in[i++];
      continue;
    }
    if (b0 == 0xC2 && i + 1 < in.size() && static_cast<unsigned char>(in[i + 1]) == 0xA0) {
      out += ' ';  // U+00A0 no-break space
      i += 2;
      continue;
    }
    if ((b0 == 0xE2 || b0 == 0xE3 || b0 == 0xEF) && i + 2 < in.size()) {
      auto b1 = static_cast<unsigned char>(in[i + 1]);
      auto b2 = static_cast<unsigned char>(in[i + 2]);
      std::string_view folded;
      bool known = true;
      if (b0 == 0xE2 && b1 == 0x80) {
        if (b2 >= 0x80 && b2 <= 0x8A)
          folded = " ";  // U+2000..U+200A spaces
        else if (b2 == 0x8B)
          folded = "";  // U+200B zero width space
        else if (b2 >= 0x90 && b2 <= 0x95)
          folded = "-";  // U+2010..U+2015 dashes
        else if (b2 >= 0x98 && b2 <= 0x9B)
          folded = "'";  // U+2018..U+201B single quotes
        else if (b2 >= 0x9C && b2 <= 0x9F)
          folded = "\"";  // U+201C..U+201F double quotes
        else if (b2 == 0xA6)
          folded = "...";  // U+2026 ellipsis
        else if (b2 == 0xAF)
          folded = " ";  // U+202F narrow no-break space
        else if (b2 == 0xB2)
          folded = "'";  // U+2032 prime
        else if (b2 == 0xB3)
          folded = "\"";  // U+2033 double prime
        else
          known = false;
      } else if (b0 == 0xE2 && b1 == 0x81 && b2 == 0x9F) {
        folded = " ";  // U+205F medium mathematical space
      } else if (b0 == 0xE2 && b1 == 0x88 && b2 == 0x92) {
        folded = "-";  // U+2212 minus sign
      } else if (b0 == 0xE3 && b1 == 0x80 && b2 == 0x80) {
        folded = " ";  // U+3000 ideographic space
      } else if (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF) {
        folded = "";  // U+FEFF zero width no-break space
      } else {
        known = false;
      }
      if (known) {
        out += folded;
        i += 3;
        continue;
      }
    }
    out += in[i++];
  }
}

std::size_t folded_blank_size(std::string_view s, bool* zero_width) {
  if (s.size() < 2 || static_cast<unsigned char>(s[0]) < 0x80) return 0;
  std::string folded;
  const std::size_t size = static_cast<unsigned char>(s[0]) < 0xE0 ? 2 : 3;
  if (s.size() < size) return 0;
  fold_unicode(s.substr(0, size), folded);
  if (folded != " " && !folded.empty()) return 0;
  if (zero_width) *zero_width = folded.empty();
  return size;
}

std::string_view leading_folded_ws(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size()) {
    if (is_blank_char(s[n])) {
      ++n;
    } else if (std::size_t k = folded_blank_size(s.substr(n))) {
      n += k;
    } else {
      break;
    }
  }
  return s.substr(0, n);
}

std::string fold(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  fold_unicode(line, out);
  return std::string(trim(out));
}

}  // namespace editd::chars
