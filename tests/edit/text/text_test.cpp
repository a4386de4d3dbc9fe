#include "edit/text/text.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "helpers/document.h"

using namespace editd;
using namespace editd::text;
using editd::test::doc;

TEST_CASE("line counts follow the documented rule") {
  CHECK(doc("").line_count() == 0);
  CHECK(doc("\n").line_count() == 1);
  CHECK(doc("a\nb\n").line_count() == 2);
  CHECK(doc("a\nb").line_count() == 2);
  CHECK(count_lines("") == 0);
  CHECK(count_lines("\n") == 1);
  CHECK(count_lines("a\nb") == 2);
  CHECK(count_lines("a\nb\n") == 2);
}

TEST_CASE("line starts: one per line, then the end") {
  using V = std::vector<std::size_t>;
  CHECK(line_starts("") == V{0});
  CHECK(line_starts("\n") == V{0, 1});
  CHECK(line_starts("a\nb") == V{0, 2, 3});
  CHECK(line_starts("a\r\nb\n") == V{0, 3, 5});
  // Every line's bytes: line n is [starts[n], starts[n + 1]).
  const std::string s = "one\n\nthree";
  const V st = line_starts(s);
  REQUIRE(st.size() == count_lines(s) + 1);
  CHECK(s.substr(st[1], st[2] - st[1]) == "\n");
  CHECK(s.substr(st[2], st[3] - st[2]) == "three");
}

TEST_CASE("a BOM is stripped from the body and remembered") {
  Document d = doc("\xEF\xBB\xBFhello\n");
  CHECK(d.bom());
  CHECK(d.body() == "hello\n");
}

TEST_CASE("NUL bytes and invalid UTF-8 are not text") {
  auto nul = Document::decode(std::string("ab\0cd", 5));
  REQUIRE(nul.has_error());
  CHECK(nul.error().kind == ErrorKind::kNotText);
  CHECK(nul.error().data["offset"] == 2);
  auto bad = Document::decode("ok\xC3(");
  REQUIRE(bad.has_error());
  CHECK(bad.error().kind == ErrorKind::kNotText);
  CHECK(bad.error().data["reason"] == "utf8");
}

TEST_CASE("UTF-8 validation rejects overlongs, surrogates and out-of-range code points") {
  CHECK(is_valid_utf8("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xE0\x80\xAF"));      // overlong
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));      // U+D800
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
}

TEST_CASE("the dominant ending is the more common one, LF on a tie") {
  CHECK(doc("a\r\nb\r\nc\n").dominant_eol() == Eol::kCrLf);
  CHECK(doc("a\r\nb\n").dominant_eol() == Eol::kLf);
  CHECK(doc("abc").dominant_eol() == Eol::kLf);
}

TEST_CASE("normalized folds CRLF but keeps lone CR") {
  Document d = doc("a\r\nb\rc\r\n");
  CHECK(Normalized(d).view() == "a\nb\rc\n");
  CHECK(normalize_eol("x\r\ny\r") == "x\ny\r");
}

TEST_CASE("the normalized view of a body without CRLF is the body itself") {
  Document d = doc("a\nb\rc\n");
  Normalized n(d);
  CHECK(n.view().data() == d.body().data());
}

TEST_CASE("line offsets and counts come from one scan of the body") {
  Document d = doc("one\r\ntwo\nthree");
  CHECK(d.line_count() == 3);
  CHECK(d.crlf_count() == 1);
  CHECK_FALSE(d.final_newline());
  CHECK(d.line_offset(0) == 0);
  CHECK(d.line_offset(1) == 5);
  CHECK(d.line_offset(2) == 9);
  CHECK(d.line_offset(3) == d.body().size());
}

TEST_CASE("split_lines does not invent a trailing empty line") {
  CHECK(split_lines("").empty());
  CHECK(split_lines("a\n") == std::vector<std::string_view>{"a"});
  CHECK(split_lines("a\n\n") == std::vector<std::string_view>{"a", ""});
  CHECK(split_lines("a\nb") == std::vector<std::string_view>{"a", "b"});
}

TEST_CASE("decode: the one-pass check and count agree with a byte-by-byte reference") {
  // Random texts over LF, CR, ASCII, NUL, UTF-8 sequences (valid, cut short,
  // overlong) at every alignment: decode must refuse at the first bad byte,
  // and otherwise count the line endings exactly.
  std::mt19937 rng(11);
  const std::vector<std::string> units = {"\n",
                                          "\r",
                                          "a",
                                          "bcdefghijklmnopq",
                                          "\r\n",
                                          "\xC3\xA9",
                                          "\xE2\x82\xAC",
                                          "\xF0\x9F\x98\x80",
                                          std::string(1, '\0'),
                                          "\xC3",
                                          "\xC0\x80",
                                          "\xFF"};
  for (int round = 0; round < 3000; ++round) {
    std::string s;
    const std::size_t pieces = rng() % 40;
    const bool clean = round % 2 == 0;  // half without any bad unit
    for (std::size_t k = 0; k < pieces; ++k)
      s += units[rng() % (clean ? units.size() - 4 : units.size())];
    // Reference: the first bad byte by the slow validator, then the counts.
    std::size_t bad = std::string::npos;
    for (std::size_t i = 0; i < s.size() && bad == std::string::npos;) {
      if (s[i] == '\0') {
        bad = i;
        break;
      }
      std::size_t len = 1;
      while (len <= 4 && !text::is_valid_utf8(s.substr(i, len))) ++len;
      if (len > 4) {
        bad = i;
        break;
      }
      i += len;
    }
    CAPTURE(s);
    auto doc = text::Document::decode(s);
    if (bad != std::string::npos) {
      REQUIRE(doc.has_error());
      CHECK(doc.error().data["offset"].get<std::size_t>() == bad);
      continue;
    }
    REQUIRE(doc.has_value());
    std::size_t lf = 0, crlf = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (s[i] == '\n') (i > 0 && s[i - 1] == '\r' ? crlf : lf)++;
    CHECK(doc->crlf_count() == crlf);
    CHECK(doc->line_count() == lf + crlf + (s.empty() || s.back() == '\n' ? 0 : 1));
    CHECK(doc->ascii() == std::all_of(s.begin(), s.end(),
                                      [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  }
  // The BOM is not part of the body.
  auto bom = text::Document::decode("\xEF\xBB\xBFplain\n");
  REQUIRE(bom.has_value());
  CHECK(bom->ascii());
}
