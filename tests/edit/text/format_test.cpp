#include "edit/text/format.h"

#include <doctest/doctest.h>

#include <deque>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "helpers/document.h"

using namespace editd;
using namespace editd::text;
using editd::test::doc;

namespace {

text::Format lf() { return text::Format{Eol::kLf, std::nullopt, std::nullopt}; }
text::Format crlf() { return text::Format{Eol::kCrLf, std::nullopt, std::nullopt}; }

std::string reformatted(const std::string& bytes, const text::Format& f) {
  auto r = reformat(doc(bytes), f, "f.txt");
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  return *r;
}

Error refusal(const std::string& bytes, const text::Format& f) {
  auto r = reformat(doc(bytes), f, "f.txt");
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kInvalidParams);
  return r.error();
}

// Bytes as the text model reads them: the BOM, each line's content, the
// ending of each line's break (kNone for a last line without one).
struct Decoded {
  bool bom = false;
  std::vector<std::string> lines;
  std::vector<Eol> breaks;
  bool operator==(const Decoded&) const = default;
};

Decoded decoded(const std::string& bytes) {
  Document d = doc(bytes);
  Decoded out;
  out.bom = d.bom();
  const std::string_view body = d.body();
  std::size_t start = 0;
  while (start < body.size()) {
    const std::size_t nl = body.find('\n', start);
    if (nl == std::string_view::npos) {
      out.lines.emplace_back(body.substr(start));
      out.breaks.push_back(Eol::kNone);
      break;
    }
    const bool cr = nl > start && body[nl - 1] == '\r';
    out.lines.emplace_back(body.substr(start, nl - start - (cr ? 1 : 0)));
    out.breaks.push_back(cr ? Eol::kCrLf : Eol::kLf);
    start = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("removing the final newline keeps a CR that is content") {
  const text::Format no_final{std::nullopt, std::nullopt, false};
  CHECK(reformatted("a\nb\r\r\n", no_final) == "a\nb\r");
  CHECK(reformatted("a\nb\r\r\n", {Eol::kLf, std::nullopt, false}) == "a\nb\r");
  CHECK(reformatted("a\nb\r\n", {Eol::kLf, std::nullopt, false}) == "a\nb");
  CHECK(reformatted("a\r\nb\r\n", no_final) == "a\r\nb");
}

TEST_CASE("a line whose text ends with a CR cannot end with LF: lf conversion is refused") {
  Error e = refusal("a\r\r\nb\n", lf());
  CHECK(e.input == Input::kLineEndings);
  CHECK_FALSE(e.data.contains("param"));
  CHECK(e.data["reason"] == "cr_before_lf");
  CHECK(e.data["line"] == 1);
  CHECK(e.message.find("line 1 of f.txt") != std::string::npos);
  // A final CR with no break after it stays, in either ending.
  CHECK(reformatted("a\r\nb\r", lf()) == "a\nb\r");
  CHECK(reformatted("a\nb\r", crlf()) == "a\r\nb\r");
  // With a final newline asked in LF, the CR would meet the LF.
  CHECK(refusal("a\nb\r", {Eol::kLf, std::nullopt, true}).data["line"] == 2);
  // Asked for alone, the final newline after a CR is the CRLF that keeps it.
  CHECK(reformatted("a\nb\r", {std::nullopt, std::nullopt, true}) == "a\nb\r\r\n");
  CHECK(reformatted("a\nb", {std::nullopt, std::nullopt, true}) == "a\nb\n");
}

TEST_CASE("crlf conversion keeps interior and trailing CRs as content") {
  CHECK(reformatted("a\rb\nc\n", crlf()) == "a\rb\r\nc\r\n");
  CHECK(reformatted("a\r\r\nb\n", crlf()) == "a\r\r\nb\r\n");
  CHECK(reformatted("\r\n\r", crlf()) == "\r\n\r");
  CHECK(reformatted("a\n\rb\n", crlf()) == "a\r\n\rb\r\n");
  CHECK(reformatted("a\r\n\rb\r\n", lf()) == "a\n\rb\n");
}

TEST_CASE("a text that starts with U+FEFF keeps its BOM") {
  const text::Format no_bom{std::nullopt, false, std::nullopt};
  Error e = refusal("\xEF\xBB\xBF\xEF\xBB\xBFx\n", no_bom);
  CHECK(e.input == Input::kBom);
  CHECK(e.data["reason"] == "text_starts_with_feff");
  CHECK(reformatted("\xEF\xBB\xBFx\xEF\xBB\xBF\n", no_bom) == "x\xEF\xBB\xBF\n");
  CHECK(reformatted("\xEF\xBB\xBF", no_bom) == "");
  CHECK(reformatted("\xEF\xBB\xBF\xEF\xBB\xBFx", {Eol::kCrLf, true, true}) ==
        "\xEF\xBB\xBF\xEF\xBB\xBFx\r\n");
}

TEST_CASE("an empty last line keeps its line break; an empty file stays empty") {
  Error e = refusal("a\n\n", {std::nullopt, std::nullopt, false});
  CHECK(e.input == Input::kFinalNewline);
  CHECK(e.data["reason"] == "last_line_empty");
  CHECK(e.data["line"] == 2);
  CHECK(refusal("\n", {std::nullopt, std::nullopt, false}).data["line"] == 1);
  CHECK(reformatted("", {Eol::kCrLf, std::nullopt, true}) == "");
  CHECK(reformatted("\xEF\xBB\xBF", {std::nullopt, std::nullopt, true}) == "\xEF\xBB\xBF");
}

TEST_CASE("property: set_format keeps every line's text and gives the format asked, or refuses") {
  std::mt19937 rng(43);
  const std::vector<std::string> alphabet = {"a", "\r", "\n", "\xEF\xBB\xBF"};
  std::size_t refused = 0, done = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string bytes;
    const int n = static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) bytes += alphabet[rng() % alphabet.size()];
    text::Format f;
    if (const auto k = rng() % 3; k != 0) f.line_endings = k == 1 ? Eol::kLf : Eol::kCrLf;
    if (const auto k = rng() % 3; k != 0) f.bom = k == 1;
    if (const auto k = rng() % 3; k != 0) f.final_newline = k == 1;
    if (!f.line_endings && !f.bom && !f.final_newline) continue;
    CAPTURE(bytes);
    const Decoded before = decoded(bytes);
    auto r = reformat(doc(bytes), f, "f.txt");
    // What the bytes must read back as: the same lines in the format asked.
    Decoded want = before;
    want.bom = f.bom.value_or(before.bom);
    if (!want.lines.empty()) {
      Eol& last = want.breaks.back();
      if (f.final_newline && !*f.final_newline) last = Eol::kNone;
      if (f.final_newline && *f.final_newline && last == Eol::kNone)
        last = f.line_endings                      ? *f.line_endings
               : want.lines.back().ends_with('\r') ? Eol::kCrLf
                                                   : doc(bytes).dominant_eol();
      if (f.line_endings)
        for (Eol& e : want.breaks)
          if (e != Eol::kNone) e = *f.line_endings;
    }
    // The one way to write that down: lines and breaks, as asked.
    std::string naive = want.bom ? std::string(kBom) : "";
    for (std::size_t i = 0; i < want.lines.size(); ++i)
      naive += want.lines[i] + std::string(eol_bytes(want.breaks[i]));
    if (r) {
      ++done;
      CHECK(decoded(*r) == want);
      CHECK(*r == naive);
    } else {
      ++refused;
      CHECK(r.error().kind == ErrorKind::kInvalidParams);
      // Refused only when those bytes read back as another text.
      CHECK_FALSE(decoded(naive) == want);
    }
  }
  CHECK(refused > 100);
  CHECK(done > 1000);
}
