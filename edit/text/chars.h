// Character classes and folding shared by every forgiving comparison: what
// counts as blank, trimming, and the one table that folds typographic
// punctuation and special spaces to ASCII. The unicode tier folds with
// fold_unicode(), and str_replace and apply_patch's seek run that one tier
// (match/tier_table.h), so they forgive exactly the same characters
// (docs/protocol.md, Matching, lists them).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace editd::chars {

// Space, tab, form feed, vertical tab and CR: blanks within a line.
constexpr bool is_blank_char(char c) {
  return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

inline std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string_view ltrim(std::string_view s) {
  // Indentation is mostly spaces: eight at a time first.
  constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;
  while (s.size() >= 8) {
    std::uint64_t word;
    std::memcpy(&word, s.data(), 8);
    if (word != kSpaces) break;
    s.remove_prefix(8);
  }
  while (!s.empty() && is_blank_char(s.front())) s.remove_prefix(1);
  return s;
}

inline std::string_view trim(std::string_view s) { return ltrim(rtrim(s)); }

inline bool is_blank(std::string_view s) { return trim(s).empty(); }

// A line's slot: its length modulo 32 (long lines differ as much as short
// ones) and the low five bits of its first and last bytes, 15 bits that equal
// lines share; 0 for an empty line. Testing a line's slot against a set turns
// most lines away without hashing them.
inline constexpr std::size_t kSlots = std::size_t{1} << 15;
inline std::uint16_t slot(std::string_view line) {
  if (line.empty()) return 0;
  return static_cast<std::uint16_t>(
      ((line.size() & 31) << 10) |
      (static_cast<std::size_t>(static_cast<unsigned char>(line.front()) & 0x1F) << 5) |
      (static_cast<unsigned char>(line.back()) & 0x1F));
}

// The blanks that start `s`.
inline std::string_view leading_ws(std::string_view s) {
  return s.substr(0, s.size() - ltrim(s).size());
}

bool is_ascii(std::string_view s);

// The offset of the first byte above ASCII in `s` at or after `from`, or
// s.size() when there is none.
std::size_t find_non_ascii(std::string_view s, std::size_t from);

// Number of "\n" in `s`.
std::size_t count_newlines(std::string_view s);

// Number of "\n" in `s`, and how many of them follow a "\r".
struct Newlines {
  std::size_t all = 0, after_cr = 0;
};
Newlines count_line_ends(std::string_view s);

// Calls `fn(offset)` for each "\n" of `s`, in order: 32 bytes a test
// (SSE2, part of x86-64), where memchr per line pays a call and its set-up
// for every short line.
template <class Fn>
void for_each_newline(std::string_view s, Fn&& fn);

// Code points of `s` that are not blanks or "\n".
std::size_t non_blank_chars(std::string_view s);

// The one rule for every comparison that forgives more than whitespace
// (str_replace's unicode, escapes and block tiers; apply_patch's fold tier):
// the text searched for must have at least this many non-blank characters
// (code points) in all, or such a comparison would match too much by accident.
inline constexpr std::size_t kMinLooseChars = 8;

// Whether `non_blank` characters are enough for a loose comparison.
inline bool loose_allowed(std::size_t non_blank) { return non_blank >= kMinLooseChars; }

// Appends `in` with typographic punctuation and special spaces folded to ASCII:
// dashes and the minus sign to '-', curly single quotes and the prime to ',
// curly double quotes and the double prime to ", the ellipsis to "...", no-break
// and other special spaces to ' ', zero-width spaces (U+200B, U+FEFF) to nothing.
void fold_unicode(std::string_view in, std::string& out);

// `line` folded, then trimmed.
std::string fold(std::string_view line);

// The size in bytes of the code point that starts `s` when fold_unicode()
// makes it a space (U+00A0 and the other special spaces) or nothing (U+200B,
// U+FEFF); 0 for any other start. `zero_width` says which.
std::size_t folded_blank_size(std::string_view s, bool* zero_width = nullptr);

// The blanks that start `s`, the code points fold_unicode() makes blank
// included: the indentation of a line as the unicode tier sees it.
std::string_view leading_folded_ws(std::string_view s);

// ---- Implementation -------------------------------------------------------

namespace detail {
// The bits of the bytes of p[0..16) equal to `c`, bit i for p[i].
inline unsigned bytes_equal16(const char* p, char c) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c))));
#else
  unsigned m = 0;
  for (unsigned i = 0; i < 16; ++i) m |= static_cast<unsigned>(p[i] == c) << i;
  return m;
#endif
}
}  // namespace detail

template <class Fn>
void for_each_newline(std::string_view s, Fn&& fn) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    std::uint32_t m = detail::bytes_equal16(p + i, '\n') |
                      (std::uint32_t{detail::bytes_equal16(p + i + 16, '\n')} << 16);
    for (; m != 0; m &= m - 1) fn(i + static_cast<std::size_t>(__builtin_ctz(m)));
  }
  for (; i < n; ++i)
    if (p[i] == '\n') fn(i);
}

}  // namespace editd::chars
