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
