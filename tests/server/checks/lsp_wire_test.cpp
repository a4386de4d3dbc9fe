// A language server's messages read in one pass (lsp::parse_message): the
// JSON of everything but a documentSymbol answer, whose symbols are read
// straight into editd's terms, bounded in count, memory and depth.
#include "server/checks/lsp_wire.h"

#include <doctest/doctest.h>

#include <string>

using namespace editd;
using nlohmann::json;

namespace {

lsp::Message wire_parse(const std::string& text, std::size_t max_symbols = 100000) {
  return lsp::parse_message(text, 256, max_symbols, 64u << 20);
}

std::string pos(int l, int c) {
  return R"({"line":)" + std::to_string(l) + R"(,"character":)" + std::to_string(c) + "}";
}
std::string range(int l1, int c1, int l2, int c2) {
  return R"({"start":)" + pos(l1, c1) + R"(,"end":)" + pos(l2, c2) + "}";
}

}  // namespace

TEST_CASE("parse_message: DocumentSymbols nested by children, with their ranges and names") {
  const std::string text =
      R"({"jsonrpc":"2.0","id":7,"result":[{"name":"Outer","kind":5,"detail":"x","range":)" +
      range(0, 0, 9, 1) + R"(,"selectionRange":)" + range(0, 6, 0, 11) +
      R"(,"children":[{"name":"inner","kind":6,"range":)" + range(1, 2, 3, 3) +
      R"(,"selectionRange":)" + range(1, 2, 1, 7) + R"(,"tags":[1],"children":[]}]}]})";
  lsp::Message m = wire_parse(text);
  CHECK(m.json["id"] == 7);
  CHECK_FALSE(m.json.contains("result"));
  REQUIRE(m.symbols.has_value());
  REQUIRE(m.symbols->roots.size() == 1);
  const symbols::Reported& outer = m.symbols->roots[0];
  CHECK(outer.name == "Outer");
  CHECK(outer.kind == 5);
  CHECK(outer.range.end.line == 9);
  REQUIRE(outer.selection.has_value());
  CHECK(outer.selection->start.character == 6);
  REQUIRE(outer.children.size() == 1);
  CHECK(outer.children[0].name == "inner");
  CHECK(outer.children[0].range.start.character == 2);
  CHECK(m.symbols->count == 2);
  CHECK(m.symbols->bytes == lsp::symbol_bytes(m.symbols->roots));
  CHECK_FALSE(m.symbols->truncated);
}

TEST_CASE("parse_message: a flat SymbolInformation list becomes a tree by containment") {
  const std::string text = R"({"id":1,"result":[{"name":"C","kind":5,"location":{"uri":"file:///a","range":)" +
                           range(0, 0, 5, 0) +
                           R"(}},{"name":"m","kind":6,"containerName":"C","location":{"range":)" +
                           range(1, 0, 2, 0) + "}}]}";
  lsp::Message m = wire_parse(text);
  REQUIRE(m.symbols.has_value());
  REQUIRE(m.symbols->roots.size() == 1);
  CHECK(m.symbols->roots[0].children.size() == 1);
  CHECK_FALSE(m.symbols->roots[0].selection.has_value());
}

TEST_CASE("parse_message: what is not a symbol is skipped with what it holds, and the bounds hold") {
  // No name, a name that is no string, a range that is no range, a negative
  // line: each dropped with its children, which count against no bound.
  const std::string junk = R"({"kind":1,"range":)" + range(0, 0, 1, 0) +
                           R"(,"children":[{"name":"orphan","range":)" + range(0, 0, 1, 0) +
                           R"(}]},{"name":42,"range":)" + range(0, 0, 1, 0) +
                           R"(},{"name":"r","range":"everywhere"},{"name":"n","range":{"start":{"line":-1,"character":0},"end":)" +
                           pos(1, 0) + R"(}},[1,2,[3]],null,"x")";
  std::string text = R"({"id":1,"result":[)" + junk + R"(,{"name":"kept","range":)" + range(2, 0, 3, 0) + "}]}";
  lsp::Message m = wire_parse(text, 1);
  REQUIRE(m.symbols.has_value());
  REQUIRE(m.symbols->roots.size() == 1);
  CHECK(m.symbols->roots[0].name == "kept");
  CHECK(m.symbols->count == 1);
  CHECK_FALSE(m.symbols->truncated);
  // Past max_symbols: the first kept, the answer marked truncated.
  text = R"({"id":1,"result":[)";
  for (int i = 0; i < 10; ++i)
    text += (i ? "," : "") + std::string(R"({"name":"s)") + std::to_string(i) + R"(","range":)" +
            range(i, 0, i, 1) + "}";
  m = wire_parse(text + "]}", 4);
  CHECK(m.symbols->roots.size() == 4);
  CHECK(m.symbols->truncated);
  // A name is cut at 1 KiB.
  m = wire_parse(R"({"id":1,"result":[{"name":")" + std::string(5000, 'n') + R"(","range":)" +
            range(0, 0, 0, 1) + "}]}");
  CHECK(m.symbols->roots[0].name.size() == 1024);
}

TEST_CASE("parse_message: nesting past the bounds is dropped, never recursed into") {
  // 5,000 levels of children: symbols::kMaxDepth + 1 levels kept.
  std::string deep = R"({"name":"d","range":)" + range(0, 0, 1, 0) + "}";
  for (int i = 0; i < 5000; ++i)
    deep = R"({"name":"d","range":)" + range(0, 0, 1, 0) + R"(,"children":[)" + deep + "]}";
  lsp::Message m = wire_parse(R"({"id":1,"result":[)" + deep + "]}");
  REQUIRE(m.symbols.has_value());
  std::size_t levels = 0;
  for (const symbols::Reported* r = &m.symbols->roots.at(0);; r = &r->children[0]) {
    ++levels;
    if (r->children.empty()) break;
  }
  CHECK(levels == symbols::kMaxDepth + 1);
  // Any other message: values deeper than max_depth are dropped.
  std::string nested = "1";
  for (int i = 0; i < 100000; ++i) nested = "[" + nested + "]";
  m = wire_parse(R"({"method":"x","params":)" + nested + "}");
  CHECK(m.json["method"] == "x");
  CHECK_FALSE(m.symbols.has_value());
}

TEST_CASE("parse_message: other messages keep their JSON; bad JSON is discarded") {
  lsp::Message m = wire_parse(R"({"id":3,"error":{"code":-32601,"message":"no"}})");
  CHECK(m.json["error"]["message"] == "no");
  m = wire_parse(R"({"id":3,"result":{"capabilities":{"documentSymbolProvider":true}}})");
  CHECK(m.json["result"]["capabilities"]["documentSymbolProvider"] == true);
  CHECK_FALSE(m.symbols.has_value());
  m = wire_parse(R"({"method":"textDocument/publishDiagnostics","params":{"diagnostics":[{"a":[1,2.5,null,false]}]}})");
  CHECK(m.json["params"]["diagnostics"][0]["a"][1] == 2.5);
  m = wire_parse(R"({"id":1,"result":[{"name":"x")");
  CHECK(m.json.is_discarded());
  CHECK_FALSE(m.symbols.has_value());
}

TEST_CASE("parse_message: 10 MiB of empty objects is one pass, and none is a symbol") {
  std::string text = R"({"id":1,"result":[{})";
  text.reserve(10u << 20);
  while (text.size() < (10u << 20)) text += ",{}";
  lsp::Message m = wire_parse(text + "]}");
  REQUIRE(m.symbols.has_value());
  CHECK(m.symbols->roots.empty());
  CHECK(m.symbols->count == 0);
}

TEST_CASE("parse_message: an array result is JSON when its id is one of json_results") {
  const std::string edits = R"({"jsonrpc":"2.0","id":12,"result":[{"range":)" + range(0, 3, 0, 6) +
                            R"(,"newText":" "}]})";
  lsp::Message as_json = lsp::parse_message(edits, 256, 100000, 64u << 20, {11, 12});
  CHECK_FALSE(as_json.symbols.has_value());
  REQUIRE(as_json.json.contains("result"));
  CHECK(as_json.json["result"][0]["newText"] == " ");
  // Any other id: symbols, as before (this entry is not one, and is skipped).
  lsp::Message as_symbols = lsp::parse_message(edits, 256, 100000, 64u << 20, {11});
  CHECK(as_symbols.symbols.has_value());
  CHECK_FALSE(as_symbols.json.contains("result"));
}

TEST_CASE("text_edits: a TextEdit[] or null; anything else is refused") {
  auto none = lsp::text_edits(json());
  REQUIRE(none.has_value());
  CHECK(none->empty());
  auto two = lsp::text_edits(json::parse(R"([{"range":)" + range(1, 0, 1, 4) +
                                         R"(,"newText":"x"},{"range":)" + range(0, 2, 0, 2) +
                                         R"(,"newText":""}])"));
  REQUIRE(two.has_value());
  REQUIRE(two->size() == 2);
  CHECK((*two)[0].range.start.line == 1);
  CHECK((*two)[0].range.end.character == 4);
  CHECK((*two)[0].new_text == "x");
  CHECK_FALSE(lsp::text_edits(json::object()).has_value());
  CHECK_FALSE(lsp::text_edits(json::parse(R"([{"newText":"x"}])")).has_value());
  CHECK_FALSE(lsp::text_edits(json::parse(R"([{"range":)" + range(0, 0, 0, 1) + "}]")).has_value());
  CHECK_FALSE(lsp::text_edits(json::parse(R"([{"range":{"start":{"line":-1,"character":0},)"
                                          R"("end":{"line":0,"character":0}},"newText":""}])"))
                  .has_value());
}

namespace {

lsp::TextEdit edit(std::uint64_t l1, std::uint64_t c1, std::uint64_t l2, std::uint64_t c2,
                   std::string text) {
  return lsp::TextEdit{{{l1, c1}, {l2, c2}}, std::move(text)};
}

std::string applied(std::string_view text, std::vector<lsp::TextEdit> edits,
                    symbols::Encoding encoding = symbols::Encoding::kUtf16) {
  auto r =
      lsp::apply_text_edits(text, std::move(edits), encoding, symbols::LineBreaks::kLsp, 1u << 20);
  REQUIRE(r.has_value());
  return *r;
}

}  // namespace

TEST_CASE("apply_text_edits: in any order, UTF-16 positions, insertions in their order") {
  const std::string text = "int   a=1;\n\xF0\x9F\x98\x80 x  =2;\nlast";
  // Line 1: the emoji is two UTF-16 units; " x" starts at character 2.
  CHECK(applied(text, {edit(1, 4, 1, 6, " "), edit(0, 3, 0, 6, " "), edit(0, 7, 0, 8, " = ")}) ==
        "int a = 1;\n\xF0\x9F\x98\x80 x =2;\nlast");
  // In UTF-8 the emoji is four units: the same spaces are 6 to 8.
  CHECK(applied(text, {edit(1, 6, 1, 8, " ")}, symbols::Encoding::kUtf8) ==
        "int   a=1;\n\xF0\x9F\x98\x80 x =2;\nlast");
  // Two insertions at one point: in the order given.
  CHECK(applied("ab", {edit(0, 1, 0, 1, "1"), edit(0, 1, 0, 1, "2")}) == "a12b");
  // The same edit from the answers of two ranges: made once.
  CHECK(applied("a  b", {edit(0, 1, 0, 3, " "), edit(0, 1, 0, 3, " ")}) == "a b");
  // Past the end of a line, past the last line: their ends.
  CHECK(applied("ab\ncd", {edit(0, 9, 1, 0, ""), edit(7, 0, 7, 0, "\n")}) == "abcd\n");
  CHECK(applied("", {}) == "");
}

TEST_CASE("apply_text_edits: overlapping edits, a reversed range, too large a result") {
  auto overlap = lsp::apply_text_edits("abcdef", {edit(0, 1, 0, 4, "x"), edit(0, 3, 0, 5, "y")},
                                       symbols::Encoding::kUtf16, symbols::LineBreaks::kLsp, 100);
  REQUIRE_FALSE(overlap.has_value());
  CHECK(overlap.error().message.find("overlap") != std::string::npos);
  auto reversed = lsp::apply_text_edits("abc\ndef", {edit(1, 0, 0, 1, "")},
                                        symbols::Encoding::kUtf16, symbols::LineBreaks::kLsp, 100);
  REQUIRE_FALSE(reversed.has_value());
  CHECK(reversed.error().message.find("before it starts") != std::string::npos);
  auto large = lsp::apply_text_edits("abc", {edit(0, 0, 0, 0, std::string(200, 'x'))},
                                     symbols::Encoding::kUtf16, symbols::LineBreaks::kLsp, 100);
  REQUIRE_FALSE(large.has_value());
  CHECK(large.error().message.find("over 100 bytes") != std::string::npos);
}

TEST_CASE("lsp_position: lines as the server counts them, characters in its encoding") {
  using symbols::Encoding;
  using symbols::LineBreaks;
  const std::string text = "a\nb\rc\n\xC3\xA9\xF0\x9F\x98\x80z";
  const std::size_t z = text.size() - 1;
  CHECK(lsp::lsp_position(text, 2, LineBreaks::kLsp, Encoding::kUtf16).line == 1);
  // A lone CR ends a line for LSP, not for a server that counts LF alone.
  CHECK(lsp::lsp_position(text, 6, LineBreaks::kLsp, Encoding::kUtf16).line == 3);
  CHECK(lsp::lsp_position(text, 6, LineBreaks::kLf, Encoding::kUtf16).line == 2);
  auto at = [&](Encoding e) { return lsp::lsp_position(text, z, LineBreaks::kLsp, e); };
  CHECK(at(Encoding::kUtf16).character == 3);  // é, then the emoji's two units
  CHECK(at(Encoding::kUtf8).character == 6);
  CHECK(at(Encoding::kUtf32).character == 2);
  CHECK(lsp::lsp_position(text, text.size(), LineBreaks::kLsp, Encoding::kUtf16).character == 4);
  CHECK(lsp::lsp_position("x\r\ny", 3, LineBreaks::kLsp, Encoding::kUtf16).line == 1);
  CHECK(lsp::lsp_position("x\xE2\x80\xA8y", 4, LineBreaks::kLspAndUnicode, Encoding::kUtf16).line ==
        1);
}
