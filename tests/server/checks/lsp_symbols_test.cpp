// The symbols of a file, asked of the real language servers make test
// installs (pylsp, clangd), through Checks::symbols: what editd gets for the
// very bytes it holds, mapped by edit/symbols.
#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "edit/symbols/outline.h"
#include "edit/text/text.h"
#include "server/checks/checks.h"

using namespace editd;
namespace asio = boost::asio;

namespace {

struct LspDir {
  std::filesystem::path path;
  LspDir() {
    char tmpl[] = "/tmp/editd-lsp-symbols-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~LspDir() { std::filesystem::remove_all(path); }
};

// The one symbol of `outline` that the query `q` names.
symbols::Symbol named(const std::vector<symbols::Symbol>& outline, const std::string& q) {
  auto query = symbols::parse_query(q);
  REQUIRE(query.has_value());
  auto r = symbols::resolve(outline, *query);
  REQUIRE(r.has_value());
  return outline[*r];
}

// The outline of `text` (the file `name` under a fresh root, written with
// `on_disk` so that the server could read another version from disk) as the
// server of `lsp` reports it for `text`.
std::vector<symbols::Symbol> symbols_of(const std::string& lsp, const std::string& name,
                                        const std::string& text,
                                        const std::string& on_disk = "") {
  LspDir dir;
  std::ofstream(dir.path / name) << on_disk;
  auto spec = diagnostics::parse_spec(lsp, true);
  REQUIRE(spec.has_value());
  Checks checks({*spec}, dir.path.string(), std::chrono::seconds(60));
  asio::io_context io;
  Checks::Target t{(dir.path / name).string(), name};
  auto f = asio::co_spawn(io, checks.symbols(t, text), asio::use_future);
  // The server's read loop runs on: until the answer, not until no work is left.
  while (f.wait_for(std::chrono::seconds(0)) != std::future_status::ready) io.run_one();
  LspClient::SymbolsOutcome o = f.get();
  checks.stop();
  io.poll();
  INFO(o.detail);
  REQUIRE(o.status == LspClient::SymbolsStatus::kOk);
  return symbols::outline(text::without_bom(text), *o.roots, o.encoding, 100000,
                          symbols::leading_markers(name), o.breaks);
}

std::string paths(const std::vector<symbols::Symbol>& o) {
  std::string out;
  for (std::size_t i = 0; i < o.size(); ++i)
    out += symbols::name_path(o, i) + ":" + std::to_string(o[i].first_line) + "-" +
           std::to_string(o[i].last_line) + " ";
  return out;
}

}  // namespace

TEST_CASE("pylsp: nested classes, a property's getter and setter, decorators, CRLF, the bytes held") {
  const std::string text =
      "\xEF\xBB\xBFimport functools\r\n"  // 1 (a BOM: the server gets the text without it)
      "\r\n"                                // 2
      "# A comment above f.\r\n"           // 3
      "@functools.cache\r\n"               // 4
      "def f(x):\r\n"                      // 5
      "    return x\r\n"                   // 6
      "\r\n"                               // 7
      "class Outer:\r\n"                   // 8
      "    class Inner:\r\n"               // 9
      "        def method(self):\r\n"      // 10
      "            return 1\r\n"           // 11
      "\r\n"                               // 12
      "    @property\r\n"                  // 13
      "    def value(self):\r\n"           // 14
      "        return 1\r\n"               // 15
      "\r\n"                               // 16
      "    @value.setter\r\n"              // 17
      "    def value(self, v):\r\n"        // 18
      "        pass\r\n";                  // 19
  // On disk the file is something else: the server must answer for `text`.
  auto o = symbols_of("*.py=pylsp", "a.py", text, "def other():\n    pass\n");
  CAPTURE(paths(o));
  auto find = [&o](const std::string& q) { return named(o, q); };
  CHECK(find("f").first_line == 3);
  CHECK(find("f").last_line == 6);
  CHECK(find("Outer/Inner/method").first_line == 10);
  CHECK(find("Outer/Inner/method").last_line == 11);
  CHECK(find("Outer/value[0]").first_line == 13);
  CHECK(find("Outer/value[1]").first_line == 17);
  CHECK(find("Outer/value[1]").last_line == 19);
  CHECK(find("/Outer").first_line == 8);
  auto none = symbols::parse_query("other");
  REQUIRE(none.has_value());
  CHECK(symbols::find(o, *none).empty());
}

TEST_CASE("clangd: namespaces, overloads, a nested struct, operator[], two symbols on a line") {
  const std::string text =
      "#include <cstddef>\n"                          // 1
      "/// Doc comment.\n"                            // 2
      "template <class T>\n"                          // 3
      "T twice(T x) { return x + x; }\n"              // 4
      "namespace ns {\n"                              // 5
      "class Parser {\n"                              // 6
      " public:\n"                                    // 7
      "  int parse(int x);\n"                         // 8
      "  int parse(const char* s);\n"                 // 9
      "  struct Nested { int a; };\n"                 // 10
      "  int operator[](int i) const { return i; }\n" // 11
      "};\n"                                          // 12
      "int a = 1; int b = 2;\n"                       // 13
      "}  // namespace ns\n";                         // 14
  auto o = symbols_of("*.cpp=clangd", "a.cpp", text);
  CAPTURE(paths(o));
  auto find = [&o](const std::string& q) { return named(o, q); };
  CHECK(find("twice").first_line == 2);
  CHECK(find("twice").last_line == 4);
  CHECK(find("ns/Parser").first_line == 6);
  CHECK(find("ns/Parser").last_line == 12);
  CHECK(find("Parser/parse[1]").first_line == 9);
  CHECK(find("Nested/a").first_line == 10);
  CHECK(find("operator[]").first_line == 11);
  CHECK(find("ns/a").shares_lines);
  CHECK(find("ns/b").shares_lines);
  auto parse = symbols::parse_query("parse");
  REQUIRE(parse.has_value());
  auto r = symbols::resolve(o, *parse);
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kAmbiguous);
}

TEST_CASE("typescript-language-server: a class's overloads, accessors, a nested class, order") {
  const std::string bin = EDITD_SOURCE_DIR "/tests/clients/lsp/node_modules/.bin/";
  INFO("its npm packages: make lsp-deps (make test does)");
  REQUIRE(std::filesystem::exists(bin + "typescript-language-server"));
  const std::string text =
      "import { readFileSync } from \"fs\";\n"       // 1
      "\n"                                           // 2
      "// A comment above.\n"                        // 3
      "@sealed\n"                                    // 4
      "export class Parser {\n"                      // 5
      "  parse(x: number): number;\n"                // 6
      "  parse(x: string): number;\n"                // 7
      "  parse(x: any): number { return 1; }\n"      // 8
      "  get value(): number { return 1; }\n"        // 9
      "  set value(v: number) {}\n"                  // 10
      "  static Nested = class {\n"                  // 11
      "    inner() {}\n"                             // 12
      "  };\n"                                       // 13
      "}\n"                                          // 14
      "function sealed(c: any) {}\n";                // 15
  // In a network namespace of its own where one can be made (root): nothing it
  // runs reaches the network.
  const bool isolated = std::system("unshare --net true 2>/dev/null") == 0;
  auto o = symbols_of("*.ts=" + std::string(isolated ? "unshare --net -- " : "") + bin + "node " +
                          bin + "typescript-language-server --stdio",
                      "a.ts", text);
  CAPTURE(paths(o));
  auto find = [&o](const std::string& q) { return named(o, q); };
  // tsserver's range of a decorated class starts at the decorator; the comment
  // above it is the symbol's leading block.
  CHECK(find("Parser").range_line == 4);
  CHECK(find("Parser").first_line == 3);
  CHECK(find("Parser").last_line == 14);
  CHECK(find("Parser/parse[2]").first_line == 8);
  CHECK(find("Parser/value[1]").first_line == 10);
  CHECK(find("Parser/Nested/inner").first_line == 12);
  CHECK(find("sealed").first_line == 15);
}
