#include "protocol/fast_json.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace editd::protocol::fast_json {
namespace {

using json = nlohmann::json;

// The length of the UTF-8 sequence at p (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(const char* p, const char* end) {
  auto at = [&](std::ptrdiff_t i) { return static_cast<unsigned char>(p[i]); };
  auto tail = [&](std::ptrdiff_t i, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return p + i < end && at(i) >= lo && at(i) <= hi;
  };
  unsigned char c = at(0);
  if (c >= 0xC2 && c <= 0xDF) return tail(1) ? 2 : 0;
  if (c == 0xE0) return tail(1, 0xA0) && tail(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return tail(1) && tail(2) ? 3 : 0;
  if (c == 0xED) return tail(1, 0x80, 0x9F) && tail(2) ? 3 : 0;
  if (c == 0xF0) return tail(1, 0x90) && tail(2) && tail(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return tail(1) && tail(2) && tail(3) ? 4 : 0;
  if (c == 0xF4) return tail(1, 0x80, 0x8F) && tail(2) && tail(3) ? 4 : 0;
  return 0;
}

// The end of the run of UTF-8 sequences that starts at p (a byte of 0x80 or
// more), or nullptr when one of them is not UTF-8. CJK text is little else, so
// it is walked in one go; out of line, so that the ASCII loops that call it keep
// their registers.
[[gnu::noinline]] const char* utf8_run_end(const char* p, const char* end) {
  do {
    const std::size_t n = utf8_length(p, end);
    if (n == 0) return nullptr;
    p += n;
  } while (p < end && static_cast<unsigned char>(*p) >= 0x80);
  return p;
}

// Bytes that a JSON string holds as they are, in both directions: printable
// ASCII other than the quote and the backslash.
struct PlainBytes {
  bool plain[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  }
};
constexpr PlainBytes kPlain;

bool is_plain(char c) { return kPlain.plain[static_cast<unsigned char>(c)]; }

#if defined(__SSE2__)
// One bit per byte of `v` that is not plain: a control byte, the quote, the
// backslash or one of 0x80..0xFF (a signed compare with 0x20 finds both ends).
unsigned stop_mask(__m128i v) {
  const __m128i stop = _mm_or_si128(
      _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
  return static_cast<unsigned>(_mm_movemask_epi8(stop));
}
#endif

// The end of the run of plain bytes and valid UTF-8 sequences that starts at
// p: the first byte to escape, or `end`; nullptr when a sequence is not UTF-8.
// Sixteen bytes at a time while they are plain ASCII (SSE2, part of x86-64).
const char* plain_run_end(const char* p, const char* end) {
  while (p < end) {
#if defined(__SSE2__)
    while (end - p >= 16) {
      const unsigned mask = stop_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      if (mask != 0) {
        p += __builtin_ctz(mask);
        break;
      }
      p += 16;
    }
    if (p == end) break;
#endif
    if (is_plain(*p)) {
      ++p;
    } else if (static_cast<unsigned char>(*p) >= 0x80) {
      p = utf8_run_end(p, end);
      if (p == nullptr) return nullptr;
    } else {
      break;
    }
  }
  return p;
}

void append_utf8(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// A recursive-descent reader that fails (returns false) wherever nlohmann
// would fail and wherever it would take a path this reader does not copy.
class Reader {
 public:
  explicit Reader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool document(json& out) {
    skip_blanks();
    if (!value(out, 0)) return false;
    skip_blanks();
    return p_ == end_;
  }

 private:
  void skip_blanks() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }

  bool take(char c) {
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  bool word(std::string_view w) {
    if (static_cast<std::size_t>(end_ - p_) < w.size() || std::string_view(p_, w.size()) != w)
      return false;
    p_ += w.size();
    return true;
  }

  bool value(json& out, std::size_t depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        out = true;
        return word("true");
      case 'f':
        out = false;
        return word("false");
      case 'n':
        out = nullptr;
        return word("null");
      default:
        return number(out);
    }
  }

  bool object(json& out, std::size_t depth) {
    if (depth > kMaxDepth) return false;
    ++p_;
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    skip_blanks();
    if (take('}')) return true;
    for (;;) {
      std::string key;
      if (p_ == end_ || *p_ != '"' || !string(key)) return false;
      skip_blanks();
      if (!take(':')) return false;
      skip_blanks();
      json v;
      if (!value(v, depth)) return false;
      members[std::move(key)] = std::move(v);  // a repeated key: the last wins, as in nlohmann
      skip_blanks();
      if (take('}')) return true;
      if (!take(',')) return false;
      skip_blanks();
    }
  }

  bool array(json& out, std::size_t depth) {
    if (depth > kMaxDepth) return false;
    ++p_;
    out = json::array();
    auto& elements = out.get_ref<json::array_t&>();
    skip_blanks();
    if (take(']')) return true;
    for (;;) {
      json v;
      if (!value(v, depth)) return false;
      elements.push_back(std::move(v));
      skip_blanks();
      if (take(']')) return true;
      if (!take(',')) return false;
      skip_blanks();
    }
  }

  // Integers of up to 18 digits only: longer ones and fractions go to
  // nlohmann, whose rules for overflow and rounding are its own.
  bool number(json& out) {
    bool negative = take('-');
    const char* digits = p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    if (p_ - digits > 18) return false;
    std::uint64_t v = 0;
    std::from_chars(digits, p_, v);
    if (negative)
      out = static_cast<std::int64_t>(-static_cast<std::int64_t>(v));
    else
      out = v;
    return true;
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // The four hex digits after "\u" (p_ is past the 'u'), or -1.
  int hex4() {
    if (end_ - p_ < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      int d = hex_digit(p_[i]);
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    p_ += 4;
    return v;
  }

  bool string(std::string& out) {
    ++p_;  // the opening quote
    for (;;) {
      const char* run = p_;
      p_ = plain_run_end(p_, end_);
      if (p_ == nullptr) return false;
      out.append(run, static_cast<std::size_t>(p_ - run));
      if (p_ == end_) return false;
      char c = *p_++;
      if (c == '"') return true;
      if (c != '\\' || p_ == end_) return false;  // a raw control character
      switch (*p_++) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          int cp = hex4();
          if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!word("\\u")) return false;
            int low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(static_cast<std::uint32_t>(cp), out);
          break;
        }
        default:
          return false;
      }
    }
  }

  const char* p_;
  const char* end_;
};

// The escape of each ASCII byte that a JSON string cannot hold as it is: its
// text padded to eight bytes (stored whole), and its length in the last byte.
struct Escapes {
  char text[0x80][8] = {};
  constexpr Escapes() {
    constexpr char kHex[] = "0123456789abcdef";
    for (int c = 0; c < 0x20; ++c) {
      const char u[8] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF], 0, 6};
      for (int i = 0; i < 8; ++i) text[c][i] = u[i];
    }
    const std::pair<char, char> kShort[] = {{'"', '"'},  {'\\', '\\'}, {'\b', 'b'}, {'\f', 'f'},
                                            {'\n', 'n'}, {'\r', 'r'},  {'\t', 't'}};
    for (auto [c, letter] : kShort) {
      const char e[8] = {'\\', letter, 0, 0, 0, 0, 0, 2};
      for (int i = 0; i < 8; ++i) text[static_cast<unsigned char>(c)][i] = e[i];
    }
  }
};
constexpr Escapes kEscapes;

// Writes the escape of ASCII byte c at o (eight bytes stored: room needed);
// returns the end of the escape.
char* put_escape(unsigned char c, char* o) {
  std::memcpy(o, kEscapes.text[c], 8);
  return o + kEscapes.text[c][7];
}

// Appends s as a JSON string; false when s is not valid UTF-8 (what was
// appended is then the caller's to drop). Written through a pointer into room
// made up front, sixteen bytes stored per step.
//
// Source text has an escape every 20-40 bytes (each line's newline, tabs,
// quotes), so the escapes are the cost, above all mispredicted branches. A
// block of ASCII with escapes is written at once: each plain run is stored as
// sixteen bytes, each escape from a table, one step per escape and no branch
// on which byte it is. Such a block may read up to 32 bytes from its start,
// hence the 32 in the test; the last bytes, and blocks with UTF-8 sequences,
// take one run and one escape or sequence per step.
bool write_string(const std::string& s, std::string& out) {
  std::size_t at = out.size();
  // Room for the string, an escape every eight bytes and a block's worth of
  // escapes; more when the escapes are denser.
  out.resize(at + s.size() + s.size() / 8 + 128);
  char* o = out.data() + at;
  char* room_end = out.data() + out.size();
  auto room = [&](std::size_t need) {
    if (static_cast<std::size_t>(room_end - o) >= need) return;
    at = static_cast<std::size_t>(o - out.data());
    out.resize(2 * out.size() + need);
    o = out.data() + at;
    room_end = out.data() + out.size();
  };
  *o++ = '"';
  const char* p = s.data();
  const char* const end = p + s.size();
#if defined(__SSE2__)
  auto copy16 = [](char* to, const char* from) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to),
                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(from)));
  };
#endif
  while (p < end) {
    room(16 * 6 + 16);  // sixteen \u00XX escapes, and a spare store
#if defined(__SSE2__)
    if (end - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
      unsigned mask = stop_mask(v);
      if (mask == 0) {
        p += 16;
        o += 16;
        continue;
      }
      if (end - p >= 32 && _mm_movemask_epi8(v) == 0) {  // ASCII: every escape of the block
        unsigned done = 0;                               // the block's bytes written
        do {
          const auto k = static_cast<unsigned>(__builtin_ctz(mask));
          copy16(o, p + done);
          o = put_escape(static_cast<unsigned char>(p[k]), o + (k - done));
          done = k + 1;
          mask &= mask - 1;
        } while (mask != 0);
        copy16(o, p + done);
        o += 16 - done;
        p += 16;
        continue;
      }
      // UTF-8 in the block, or the string's last bytes: one plain run, then
      // one escape or run of sequences.
      const auto plain = static_cast<std::size_t>(__builtin_ctz(mask));
      p += plain;
      o += plain;
    } else if (is_plain(*p)) {
      *o++ = *p++;
      continue;
    }
#else
    if (is_plain(*p)) {
      *o++ = *p++;
      continue;
    }
#endif
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80) {
      const char* run_end = utf8_run_end(p, end);
      if (run_end == nullptr) return false;
      const auto bytes = static_cast<std::size_t>(run_end - p);
      room(bytes);
      std::memcpy(o, p, bytes);
      o += bytes;
      p = run_end;
      continue;
    }
    ++p;
    o = put_escape(c, o);
  }
  *o++ = '"';
  out.resize(static_cast<std::size_t>(o - out.data()));
  return true;
}

std::string nlohmann_dump(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

void write(const json& v, std::string& out) {
  switch (v.type()) {
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: {
      char buf[24];
      auto r = v.is_number_unsigned() ? std::to_chars(buf, buf + sizeof buf, v.get<std::uint64_t>())
                                      : std::to_chars(buf, buf + sizeof buf, v.get<std::int64_t>());
      out.append(buf, r.ptr);
      return;
    }
    case json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      std::size_t mark = out.size();
      if (!write_string(s, out)) {
        out.resize(mark);
        out += nlohmann_dump(v);  // invalid UTF-8: nlohmann's replacement rules
      }
      return;
    }
    case json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const json& e : v.get_ref<const json::array_t&>()) {
        if (!first) out.push_back(',');
        first = false;
        write(e, out);
      }
      out.push_back(']');
      return;
    }
    case json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, e] : v.get_ref<const json::object_t&>()) {
        if (!first) out.push_back(',');
        first = false;
        std::size_t mark = out.size();
        if (!write_string(key, out)) {
          out.resize(mark);
          out += nlohmann_dump(json(key));
        }
        out.push_back(':');
        write(e, out);
      }
      out.push_back('}');
      return;
    }
    case json::value_t::binary: {
      const auto& b = v.get_binary();
      if (b.has_subtype() && (b.subtype() == kRawNumber || b.subtype() == kVerbatimSubtype)) {
        out.append(b.begin(), b.end());
        return;
      }
      out += nlohmann_dump(v);
      return;
    }
    default:  // floats, discarded: as nlohmann writes them
      out += nlohmann_dump(v);
  }
}

}  // namespace

std::optional<json> parse(std::string_view line) {
  if (!line.empty() && static_cast<unsigned char>(line[0]) == 0xEF) return std::nullopt;  // a BOM
  json out;
  Reader reader(line);
  if (!reader.document(out)) return std::nullopt;
  return out;
}

json verbatim(std::string_view text) {
  return json::binary(json::binary_t::container_type(text.begin(), text.end()), kVerbatimSubtype);
}

std::string dump(const json& value) {
  std::string out;
  write(value, out);
  return out;
}

}  // namespace editd::protocol::fast_json
