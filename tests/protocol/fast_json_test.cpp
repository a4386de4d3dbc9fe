#include "protocol/fast_json.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using json = nlohmann::json;
namespace fast_json = editd::protocol::fast_json;

namespace {

std::string nlohmann_dump(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The same value with the same type at every level (json's == says 1 == 1u).
bool same(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !same(*ia, *ib)) return false;
    return true;
  }
  return a == b;
}

void append_code_point(std::uint32_t cp, std::string& out) {
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

struct Gen {
  std::mt19937_64 rng;
  bool invalid_utf8 = false;  // strings may hold bytes that are not UTF-8
  bool floats = true;

  std::size_t below(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  }

  std::string string() {
    std::string s;
    std::size_t n = below(4) == 0 ? below(200) : below(12);
    for (std::size_t i = 0; i < n; ++i) {
      switch (below(invalid_utf8 ? 9 : 8)) {
        case 0:
          s.push_back(static_cast<char>(below(0x20)));  // controls
          break;
        case 1:
          s.push_back("\"\\/\x7f"[below(4)]);
          break;
        case 2:
          append_code_point(0x80 + below(0x800 - 0x80), s);
          break;
        case 3: {
          std::uint32_t cp = 0x800 + below(0x10000 - 0x800);
          if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFEFF;
          append_code_point(cp, s);
          break;
        }
        case 4:
          append_code_point(0x10000 + below(0x110000 - 0x10000), s);
          break;
        case 8: {
          static const char* kBad[] = {"\x80",         "\xC0\xAF",         "\xFF", "\xE2\x82",
                                       "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xC3", "\xF0\x9F\x98"};
          s += kBad[below(8)];
          break;
        }
        default:
          s.push_back(static_cast<char>(0x20 + below(0x5F)));
      }
    }
    return s;
  }

  json value(int depth) {
    switch (below(depth > 4 ? 7 : 9)) {
      case 0:
        return nullptr;
      case 1:
        return below(2) == 0;
      case 2:
        return -static_cast<std::int64_t>(below(1) + rng() % 1000000000000000000ULL);
      case 3:
        return below(2) ? rng() : static_cast<std::uint64_t>(below(1000));
      case 4:
        if (floats) return std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
        return static_cast<std::uint64_t>(below(100));
      case 5:
      case 6:
        return string();
      case 7: {
        json a = json::array();
        for (std::size_t i = below(5); i > 0; --i) a.push_back(value(depth + 1));
        return a;
      }
      default: {
        json o = json::object();
        for (std::size_t i = below(5); i > 0; --i) o[string()] = value(depth + 1);
        return o;
      }
    }
  }

  std::string blanks() {
    std::string s;
    for (std::size_t i = below(3) == 0 ? below(3) : 0; i > 0; --i) s.push_back(" \t\n\r"[below(4)]);
    return s;
  }

  // A JSON text of v written the many ways JSON allows: blanks between tokens,
  // characters escaped or not, \u escapes in either case, surrogate pairs.
  std::string render(const json& v) {
    std::string out = blanks();
    if (v.is_object()) {
      out += '{';
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += ',';
        first = false;
        out += blanks() + render_string(it.key()) + blanks() + ':' + render(*it);
      }
      out += blanks() + '}';
    } else if (v.is_array()) {
      out += '[';
      bool first = true;
      for (const json& e : v) {
        if (!first) out += ',';
        first = false;
        out += render(e);
      }
      out += blanks() + ']';
    } else if (v.is_string()) {
      out += render_string(v.get<std::string>());
    } else {
      out += nlohmann_dump(v);
    }
    return out + blanks();
  }

  std::string hex4(std::uint32_t u) {
    const char* digits = below(2) ? "0123456789abcdef" : "0123456789ABCDEF";
    std::string s = "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) s.push_back(digits[(u >> shift) & 0xF]);
    return s;
  }

  std::string render_string(const std::string& s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
      auto c = static_cast<unsigned char>(s[i]);
      std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      std::uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
      for (std::size_t k = 1; k < n; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      bool must = c < 0x20 || c == '"' || c == '\\';
      if (must || below(5) == 0) {
        if (cp >= 0x10000) {
          cp -= 0x10000;
          out += hex4(0xD800 + (cp >> 10)) + hex4(0xDC00 + (cp & 0x3FF));
        } else if (c == '"' || c == '\\' || c == '/' || (c == '\n' && below(2))) {
          out += c == '\n' ? "\\n" : std::string("\\") + static_cast<char>(c);
        } else {
          out += hex4(cp);
        }
      } else {
        out.append(s, i, n);
      }
      i += n;
    }
    return out + '"';
  }
};

}  // namespace

TEST_CASE("fast_json::dump writes exactly what nlohmann writes") {
  Gen gen{std::mt19937_64(20261125)};
  for (int i = 0; i < 20000; ++i) {
    gen.invalid_utf8 = i % 3 == 0;
    json v = gen.value(0);
    std::string expected = nlohmann_dump(v);
    CAPTURE(expected);
    REQUIRE(fast_json::dump(v) == expected);
  }
  CHECK(fast_json::dump(json("\x01\x1f\x7f\b\f\n\r\t\"\\/")) == R"("\u0001\u001f)"
                                                                "\x7f"
                                                                R"(\b\f\n\r\t\"\\/")");
  CHECK(fast_json::dump(json("a\xFF"
                             "b")) ==
        "\"a\xEF\xBF\xBD"
        "b\"");
}

TEST_CASE("fast_json::dump writes a raw number's text as it is, other binary as nlohmann does") {
  const std::string text = "100000000000000000000000000000";
  const json raw =
      json::binary(json::binary_t::container_type(text.begin(), text.end()), fast_json::kRawNumber);
  CHECK(fast_json::dump(json{{"id", raw}}) == "{\"id\":" + text + "}");
  const json other = json::binary({1, 2}, 7);
  CHECK(fast_json::dump(other) == nlohmann_dump(other));
}

TEST_CASE("fast_json::dump writes a verbatim value as it is, members in the order it has them") {
  json reply = {{"id", 1},
                {"result", {{"structuredContent", fast_json::verbatim(R"({"z":1,"a":"x"})")}}}};
  CHECK(fast_json::dump(reply) == R"({"id":1,"result":{"structuredContent":{"z":1,"a":"x"}}})");
  // Any other binary value is written as nlohmann writes it.
  json other = json::binary({1, 2}, 7);
  CHECK(fast_json::dump(other) == nlohmann_dump(other));
}

TEST_CASE("fast_json: every byte that stops a plain run, at every offset of a 16-byte block") {
  // Plain ASCII runs are skipped 16 bytes at a time: each special byte or
  // sequence, at each position around the blocks' edges, in both directions.
  const std::vector<std::string> specials = {
      "\"",
      "\\",
      "\n",
      "\t",
      std::string(1, '\0'),
      "\x1f",
      "\x7f",
      "/",
      "\xC3\xA9",          // é, two bytes
      "\xE2\x82\xAC",      // €, three bytes
      "\xF0\x9F\x98\x80",  // an emoji, four bytes
      "\xFF",              // not UTF-8
      "\xC3",              // a sequence cut short
  };
  for (std::size_t len = 0; len <= 48; ++len)
    for (std::size_t at = 0; at <= len; ++at)
      for (const std::string& special : specials) {
        std::string text(len, 'a');
        text.insert(at, special);
        text += "tail of plain text";
        CAPTURE(len);
        CAPTURE(at);
        CAPTURE(special);
        const json v(text);
        const std::string expected = nlohmann_dump(v);
        REQUIRE(fast_json::dump(v) == expected);
        if (special == "\xFF" || special == "\xC3") continue;  // dumped with a replacement
        auto back = fast_json::parse(expected);
        REQUIRE(back.has_value());
        CHECK(back->get<std::string>() == text);
      }
}

TEST_CASE("fast_json: blocks of ASCII with several escapes, and UTF-8 between them") {
  // A block of ASCII is written escape by escape without being read again:
  // every pair of escapes in a block, then long texts like source code (an
  // escape every few bytes, now and then a UTF-8 sequence or a control byte).
  const std::string escapes[] = {"\n", "\t", "\"", "\\", std::string(1, '\0'), "\x1f", "\r"};
  for (std::size_t i = 0; i < 40; ++i)
    for (std::size_t j = i; j < 40; ++j)
      for (const std::string& e : escapes) {
        std::string text(72, 'x');
        text[i] = e[0];
        text[j] = escapes[(i + j) % std::size(escapes)][0];
        CAPTURE(i);
        CAPTURE(j);
        const json v(text);
        REQUIRE(fast_json::dump(v) == nlohmann_dump(v));
      }
  std::mt19937_64 rng(20261127);
  auto below = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  for (int round = 0; round < 2000; ++round) {
    const std::size_t spacing = 1 + below(40);  // one escape in about this many bytes
    std::string text;
    const std::size_t size = below(400);
    while (text.size() < size) {
      const std::size_t pick = below(spacing * 4);
      if (pick == 0)
        text += escapes[below(std::size(escapes))];
      else if (pick == 1 && below(8) == 0)
        text += "\xC3\xA9";
      else if (pick == 2 && below(64) == 0)
        text += "\xFF";  // not UTF-8: replaced, as nlohmann does
      else
        text.push_back(static_cast<char>(0x20 + below(0x5F)));
    }
    CAPTURE(text);
    const json v = json::object({{"content", text}});
    REQUIRE(fast_json::dump(v) == nlohmann_dump(v));
  }
}

TEST_CASE("fast_json: runs of UTF-8 sequences, with a bad byte anywhere in them") {
  // A run of sequences is checked in one go: each sequence of it must still be
  // checked, in both directions, wherever the run starts and breaks.
  const std::string seq = "\xE6\x97\xA5";  // 日
  const std::string bad[] = {"\xFF", "\xE6\x97", "\xC3", "\xED\xA0\x80", "\x80"};
  for (std::size_t lead = 0; lead < 20; ++lead)
    for (std::size_t run = 1; run < 24; ++run)
      for (std::size_t at = 0; at <= run; ++at)
        for (const std::string& b : bad) {
          std::string good(lead, 'a'), broken(lead, 'a');
          for (std::size_t i = 0; i < run; ++i) {
            if (i == at) broken += b;
            good += seq;
            broken += seq;
          }
          if (at == run) broken += b;
          good += " tail";
          broken += " tail";
          CAPTURE(lead);
          CAPTURE(run);
          CAPTURE(at);
          CAPTURE(b);
          REQUIRE(fast_json::dump(json(good)) == nlohmann_dump(json(good)));
          REQUIRE(fast_json::dump(json(broken)) == nlohmann_dump(json(broken)));
          auto back = fast_json::parse("\"" + good + "x\"");
          REQUIRE(back.has_value());
          CHECK(back->get<std::string>() == good + "x");
          CHECK_FALSE(fast_json::parse("\"" + broken + "\"").has_value());
        }
}

TEST_CASE("fast_json: strings whose escapes outgrow the room made for them") {
  // The room made up front allows an escape every eight bytes: denser escapes
  // (six bytes out for each control byte) make the writer grow it mid-string.
  for (const std::string& unit : {std::string("\x01"), std::string("\""), std::string("\n\x02a"),
                                  std::string("\xE2\x82\xAC\x03")}) {
    for (std::size_t n : {1u, 7u, 16u, 100u, 5000u}) {
      std::string text;
      for (std::size_t i = 0; i < n; ++i) text += unit;
      CAPTURE(n);
      const json v = json::object({{"content", text}, {"k", 1}});
      REQUIRE(fast_json::dump(v) == nlohmann_dump(v));
    }
  }
}

TEST_CASE("fast_json::parse reads what nlohmann reads, or gives up") {
  Gen gen{std::mt19937_64(7)};
  std::size_t fast = 0, total = 0;
  for (int i = 0; i < 20000; ++i) {
    gen.floats = i % 4 == 0;
    json v = gen.value(0);
    std::string text = gen.render(v);
    CAPTURE(text);
    json expected = json::parse(text, nullptr, false);
    REQUIRE(same(expected, v));
    auto got = fast_json::parse(text);
    if (!gen.floats) {
      ++total;
      if (got) ++fast;
      // Without fractions every value is one the fast path reads, unless an
      // unsigned integer has more than 18 digits.
      if (!got) CHECK(text.find_first_of("0123456789") != std::string::npos);
    }
    if (got) REQUIRE(same(*got, expected));
  }
  CHECK(fast > total * 3 / 4);
}

TEST_CASE("fast_json::parse never accepts what nlohmann refuses, and agrees on the rest") {
  Gen gen{std::mt19937_64(99)};
  gen.floats = false;
  for (int i = 0; i < 40000; ++i) {
    std::string text = gen.render(gen.value(0));
    std::size_t edits = 1 + gen.below(3);
    for (std::size_t e = 0; e < edits && !text.empty(); ++e) {
      std::size_t at = gen.below(text.size());
      static const std::string kBytes = "{}[]\",:\\u0aeE.-+ \t\n\x7f\x80\xC3\xED\xF4";
      char b = kBytes[gen.below(kBytes.size())];
      switch (gen.below(3)) {
        case 0:
          text.erase(at, 1);
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), b);
          break;
        default:
          text[at] = b;
      }
    }
    CAPTURE(text);
    json expected = json::parse(text, nullptr, false);
    auto got = fast_json::parse(text);
    if (expected.is_discarded())
      CHECK_FALSE(got.has_value());
    else if (got)
      CHECK(same(*got, expected));
  }
}

TEST_CASE("fast_json::parse: the shapes it leaves to nlohmann") {
  CHECK_FALSE(fast_json::parse("\xEF\xBB\xBF{}"));             // a BOM
  CHECK_FALSE(fast_json::parse(R"({"a":1.5})"));               // a fraction
  CHECK_FALSE(fast_json::parse(R"([1e3])"));                   // an exponent
  CHECK_FALSE(fast_json::parse(R"([18446744073709551615])"));  // 20 digits
  CHECK_FALSE(fast_json::parse(R"(["\ud800"])"));              // a lone surrogate
  CHECK_FALSE(fast_json::parse(R"(["\udc00\ud800"])"));
  CHECK_FALSE(fast_json::parse(std::string(300, '[') + std::string(300, ']')));
  CHECK_FALSE(fast_json::parse(""));
  CHECK_FALSE(fast_json::parse("{} {}"));
  auto ok = fast_json::parse(R"( {"a":-0,"b":[true,false,null],"a":"x\u00e9\ud83d\ude00"} )");
  REQUIRE(ok);
  CHECK(same(*ok, json::parse(R"({"a":"xé😀","b":[true,false,null]})")));
  auto minus_zero = fast_json::parse("-0");
  REQUIRE(minus_zero);
  CHECK(minus_zero->is_number_integer());
  CHECK_FALSE(minus_zero->is_number_unsigned());
}
