#include "edit/symbols/outline.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edit/symbols/positions.h"
#include "edit/symbols/symbol_edit.h"
#include "edit/symbols/verify.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"

using namespace editd;
using symbols::Encoding;
using symbols::Position;
using symbols::Reported;
using symbols::LineBreaks;
using symbols::NameFit;
using symbols::Span;

namespace {

Span span(std::uint64_t l1, std::uint64_t c1, std::uint64_t l2, std::uint64_t c2) {
  return {{l1, c1}, {l2, c2}};
}

Reported sym(std::string name, std::uint32_t kind, Span range, std::vector<Reported> kids = {}) {
  Reported r;
  r.name = std::move(name);
  r.kind = kind;
  r.range = range;
  r.selection = Span{range.start, range.start};
  r.children = std::move(kids);
  return r;
}

std::vector<std::string> paths(const std::vector<symbols::Symbol>& o) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < o.size(); ++i) out.push_back(symbols::name_path(o, i));
  return out;
}

std::size_t resolve(const std::vector<symbols::Symbol>& o, const std::string& q) {
  auto query = symbols::parse_query(q);
  REQUIRE(query.has_value());
  auto r = symbols::resolve(o, *query);
  REQUIRE(r.has_value());
  return *r;
}

Reported named(std::string name, Span range, Span selection) {
  Reported r;
  r.name = std::move(name);
  r.kind = 12;
  r.range = range;
  r.selection = selection;
  return r;
}

// tsserver's report of kText: U+2028 ends its line 0.
const std::string kText =
    "const s = \"a\u2028b\";\n"  // LSP line 0; tsserver's 0 and 1
    "function alpha() {\n"       // 1; 2
    "  return 1;\n"              // 2; 3
    "}\n"                        // 3; 4
    "function beta() {}\n";      // 4; 5
const std::vector<Reported> kTsserver = {named("alpha", span(2, 0, 4, 1), span(2, 9, 2, 14)),
                                         named("beta", span(5, 0, 5, 18), span(5, 9, 5, 13))};

}  // namespace

TEST_CASE("positions: LSP lines end at LF, CRLF and a lone CR; editd's at LF only") {
  // Line 1 of editd holds "a\rb": two LSP lines.
  const std::string text = "a\rb\r\nc\nd";
  symbols::LineIndex index(text);
  CHECK(index.offset({0, 0}, Encoding::kUtf16) == 0);
  CHECK(index.offset({1, 0}, Encoding::kUtf16) == 2);  // "b", after the lone CR
  CHECK(index.offset({2, 0}, Encoding::kUtf16) == 5);  // "c"
  CHECK(index.offset({3, 1}, Encoding::kUtf16) == 8);  // the end of "d"
  CHECK(index.editd_line(2) == 1);                     // the lone CR is content
  CHECK(index.editd_line(5) == 2);
  CHECK(index.editd_line(7) == 3);
  CHECK(index.editd_lines() == 3);
  // Past a line's end: its end (before the break); past the last line: the end.
  CHECK(index.offset({0, 99}, Encoding::kUtf16) == 1);
  CHECK(index.offset({1, 99}, Encoding::kUtf16) == 3);
  CHECK(index.offset({99, 0}, Encoding::kUtf16) == text.size());
}

TEST_CASE("positions: characters count in the server's encoding") {
  // "é" is 2 UTF-8 bytes and 1 UTF-16 unit; "😀" 4 bytes, 2 UTF-16 units, 1 UTF-32.
  const std::string text = "x\xC3\xA9\xF0\x9F\x98\x80y\n";
  symbols::LineIndex index(text);
  CHECK(index.offset({0, 2}, Encoding::kUtf16) == 3);
  CHECK(index.offset({0, 4}, Encoding::kUtf16) == 7);  // "y"
  CHECK(index.offset({0, 3}, Encoding::kUtf16) == 3);  // inside the pair: its start
  CHECK(index.offset({0, 3}, Encoding::kUtf32) == 7);
  CHECK(index.offset({0, 3}, Encoding::kUtf8) == 3);
  CHECK(index.offset({0, 7}, Encoding::kUtf8) == 7);
  CHECK(index.offset({0, 5}, Encoding::kUtf8) == 3);  // inside a sequence: its start
  CHECK(symbols::encoding_named("utf-8") == Encoding::kUtf8);
  CHECK(symbols::encoding_named("utf-32") == Encoding::kUtf32);
  CHECK(symbols::encoding_named("anything") == Encoding::kUtf16);
}

TEST_CASE("outline: name paths, overloads by index, whole lines in editd's count") {
  const std::string text =
      "class Parser {\n"         // 1
      "  int parse(int);\n"      // 2
      "  int parse(char*);\n"    // 3
      "  void run() {\n"         // 4
      "  }\n"                    // 5
      "};\n"                     // 6
      "int main() {}\n";         // 7
  // Sent out of order, as some servers do.
  std::vector<Reported> roots = {
      sym("main", 12, span(6, 0, 6, 13)),
      sym("Parser", 5, span(0, 0, 5, 1),
          {sym("run", 6, span(3, 2, 4, 3)), sym("parse", 6, span(1, 2, 1, 17)),
           sym("parse", 6, span(2, 2, 2, 19))}),
  };
  auto o = symbols::outline(text, roots, Encoding::kUtf16, 100);
  CHECK(paths(o) == std::vector<std::string>{"Parser", "Parser/parse[0]", "Parser/parse[1]",
                                             "Parser/run", "main"});
  CHECK(o[0].first_line == 1);
  CHECK(o[0].last_line == 6);
  CHECK(o[3].first_line == 4);
  CHECK(o[3].last_line == 5);
  CHECK(o[3].depth == 1);
  CHECK(o[3].parent == 0u);
  CHECK(symbols::kind_name(o[0].kind) == "class");
  CHECK(symbols::kind_name(o[1].kind) == "method");
  CHECK(symbols::kind_name(0) == "unknown");
  CHECK(symbols::kind_name(27) == "unknown");
  CHECK_FALSE(o[1].shares_lines);

  CHECK(resolve(o, "run") == 3);
  CHECK(resolve(o, "Parser/run") == 3);
  CHECK(resolve(o, "/Parser/run") == 3);
  CHECK(resolve(o, "parse[1]") == 2);
  CHECK(resolve(o, "Parser/parse[0]") == 1);
  CHECK(resolve(o, "main[0]") == 4);  // an index 0 names a symbol with no namesakes too

  SUBCASE("a name several symbols have is ambiguous, with every candidate") {
    auto q = symbols::parse_query("parse");
    REQUIRE(q.has_value());
    auto r = symbols::resolve(o, *q);
    REQUIRE(r.has_error());
    const Error err = r.error();
    CHECK(err.kind == ErrorKind::kAmbiguous);
    const auto& c = err.data["candidates"];
    REQUIRE(c.size() == 2);
    CHECK(c[0]["namePath"] == "Parser/parse[0]");
    CHECK(c[0]["startLine"] == 2);
    CHECK(c[1]["namePath"] == "Parser/parse[1]");
    CHECK(c[1]["endLine"] == 3);
    CHECK(err.message.find("Parser/parse[1] (lines 3-3)") != std::string::npos);
  }
  SUBCASE("no symbol of that name: no_match with the closest names") {
    auto q = symbols::parse_query("Parser/rnu");
    REQUIRE(q.has_value());
    auto r = symbols::resolve(o, *q);
    REQUIRE(r.has_error());
    const Error err = r.error();
    CHECK(err.kind == ErrorKind::kNoMatch);
    const auto& c = err.data["closest"];
    REQUIRE(c.size() >= 1);
    CHECK(c[0]["namePath"] == "Parser/run");
    CHECK(c[0]["line"] == 4);
    CHECK(c.size() <= symbols::kMaxClosest);
  }
  SUBCASE("an absolute path starts at the top") {
    auto q = symbols::parse_query("/run");
    REQUIRE(q.has_value());
    CHECK(symbols::find(o, *q).empty());
  }
}

TEST_CASE("outline: a range that ends at a line's start does not take that line") {
  const std::string text = "def f():\n    pass\n\ndef g():\n    pass\n";
  auto o = symbols::outline(text, {sym("f", 12, span(0, 0, 2, 0)), sym("g", 12, span(3, 0, 4, 8))},
                            Encoding::kUtf16, 100);
  REQUIRE(o.size() == 2);
  CHECK(o[0].first_line == 1);
  CHECK(o[0].last_line == 2);
  CHECK(o[1].first_line == 4);
  CHECK(o[1].last_line == 5);
}

TEST_CASE("outline: lines with lone CRs and CRLF map to editd's lines") {
  // editd's line 1 is "x\ry" (a lone CR is content); LSP sees it as lines 0 and 1.
  const std::string text = "x\ry\r\nint f();\r\n";
  auto o = symbols::outline(text, {sym("f", 12, span(2, 0, 2, 8))}, Encoding::kUtf16, 100);
  REQUIRE(o.size() == 1);
  CHECK(o[0].first_line == 2);
  CHECK(o[0].last_line == 2);
}

TEST_CASE("outline: two symbols on one line share it") {
  const std::string text = "int a; int b;\nint c;\n";
  auto o = symbols::outline(
      text, {sym("a", 13, span(0, 0, 0, 5)), sym("b", 13, span(0, 7, 0, 12)), sym("c", 13, span(1, 0, 1, 5))},
      Encoding::kUtf16, 100);
  REQUIRE(o.size() == 3);
  CHECK(o[0].shares_lines);
  CHECK(o[1].shares_lines);
  CHECK_FALSE(o[2].shares_lines);
}

TEST_CASE("outline: hostile reports are bounded and never crash") {
  const std::string text = "a\nb\n";
  // Inverted and out-of-text ranges, empty names, a cap on the count.
  std::vector<Reported> roots = {sym("", 12, span(0, 0, 1, 0), {sym("hidden", 12, span(0, 0, 0, 1))}),
                                 sym("inverted", 12, span(1, 1, 0, 0)),
                                 sym("far", 12, span(900, 0, 901, 0))};
  for (int i = 0; i < 10; ++i) roots.push_back(sym("many", 12, span(0, 0, 0, 1)));
  auto o = symbols::outline(text, roots, Encoding::kUtf16, 5);
  CHECK(o.size() == 5);
  for (const auto& s : o) {
    CHECK(s.name != "hidden");
    CHECK(s.first_line >= 1);
    CHECK(s.last_line >= s.first_line);
    CHECK(s.last_line <= 2);
  }
  // Nesting deeper than kMaxDepth is cut off, without recursion on the way.
  std::vector<Reported> flat;
  for (std::uint64_t i = 0; i < 5000; ++i) flat.push_back(sym("n", 12, span(0, i, 1, 10000 - i)));
  auto tree = symbols::nest(std::move(flat));
  auto deep = symbols::outline(text, tree, Encoding::kUtf16, 100000);
  CHECK(deep.size() == symbols::kMaxDepth + 1);
  CHECK(deep.back().depth == symbols::kMaxDepth);
}

TEST_CASE("nest: a flat list becomes a tree by containment") {
  std::vector<Reported> flat = {sym("m", 6, span(1, 2, 2, 3)), sym("C", 5, span(0, 0, 3, 1)),
                                sym("g", 12, span(4, 0, 5, 1)), sym("x", 13, span(1, 4, 1, 9))};
  for (auto& r : flat) r.selection.reset();
  auto tree = symbols::nest(std::move(flat));
  REQUIRE(tree.size() == 2);
  CHECK(tree[0].name == "C");
  REQUIRE(tree[0].children.size() == 1);
  CHECK(tree[0].children[0].name == "m");
  REQUIRE(tree[0].children[0].children.size() == 1);
  CHECK(tree[0].children[0].children[0].name == "x");
  CHECK(tree[1].name == "g");
  auto o = symbols::outline("class C:\n  def m():\n    x\n\ndef g():\n  pass\n", tree,
                            Encoding::kUtf16, 100);
  CHECK(paths(o) == std::vector<std::string>{"C", "C/m", "C/m/x", "g"});
  CHECK(o[1].name_line == o[1].first_line);  // no selection range: the first line
}

TEST_CASE("parse_query: bad name paths are invalid_params about the symbol") {
  for (const char* bad : {"", "/", "a//b", "a/", "//"}) {
    CAPTURE(bad);
    auto q = symbols::parse_query(bad);
    REQUIRE(q.has_error());
    CHECK(q.error().kind == ErrorKind::kInvalidParams);
    CHECK(q.error().input == Input::kSymbol);
  }
  auto q = symbols::parse_query("/A/b[12]");
  REQUIRE(q.has_value());
  CHECK(q->absolute);
  REQUIRE(q->segments.size() == 2);
  CHECK(q->segments[1].name == "b");
  CHECK(q->segments[1].index == 12u);
  // Brackets that hold no index are part of the name.
  for (const char* literal : {"operator[]", "x[a]", "x[", "[1]", "x]"}) {
    CAPTURE(literal);
    auto l = symbols::parse_query(literal);
    REQUIRE(l.has_value());
    CHECK(l->segments[0].name == literal);
    CHECK_FALSE(l->segments[0].index);
  }
}

TEST_CASE("name paths: a name's own '/', '\\' and index-like brackets are escaped, and found") {
  // C++'s operator/, a TypeScript module "a/b", a name with a backslash, and
  // a property whose name reads like an index; two overloads of operator/.
  const std::string text = "1\n2\n3\n4\n5\n6\n";
  std::vector<Reported> reported = {
      sym("Vec", 5, span(0, 0, 2, 1),
          {sym("operator/", 6, span(0, 0, 0, 1)), sym("operator/", 6, span(1, 0, 1, 1))}),
      sym("a/b", 2, span(3, 0, 3, 1)),
      sym("C:\\x", 13, span(4, 0, 4, 1)),
      sym("item[0]", 7, span(5, 0, 5, 1)),
  };
  auto o = symbols::outline(text, reported, Encoding::kUtf16, 100);
  CHECK(paths(o) == std::vector<std::string>{"Vec", "Vec/operator\\/[0]", "Vec/operator\\/[1]",
                                              "a\\/b", "C:\\\\x", "item\\[0]"});
  // Every name path as listed names its symbol, and only it.
  for (std::size_t i = 0; i < o.size(); ++i) {
    CAPTURE(symbols::name_path(o, i));
    CHECK(resolve(o, symbols::name_path(o, i)) == i);
  }
  CHECK(resolve(o, "operator\\/[1]") == 2);
  CHECK(resolve(o, "/a\\/b") == 3);
  // Unescaped, the slash splits: a/b is b inside a, which is not there.
  auto q = symbols::parse_query("a/b");
  REQUIRE(q.has_value());
  CHECK(q->segments.size() == 2);
  CHECK(symbols::resolve(o, *q).has_error());
  // An unescaped item[0] is the first of the siblings named item (none).
  q = symbols::parse_query("item[0]");
  REQUIRE(q.has_value());
  CHECK(q->segments[0].name == "item");
  CHECK(q->segments[0].index == 0u);
  CHECK(symbols::segment("plain") == "plain");
  CHECK(symbols::segment("x[a]") == "x[a]");
}

TEST_CASE("reindent: the first line takes the indentation, the rest keep their depth") {
  CHECK(symbols::reindent("def f():\n    pass\n", "    ") == "    def f():\n        pass\n");
  CHECK(symbols::reindent("    def f():\n        pass", "") == "def f():\n    pass");
  CHECK(symbols::reindent("\tint f() {\r\n\t\treturn 1;\r\n\t}\r\n", "\t\t") ==
        "\t\tint f() {\n\t\t\treturn 1;\n\t\t}\n");
  // Blank lines and lines not under the first line's indentation stay as they are.
  CHECK(symbols::reindent("\n  a\n\n b\n  c\n", "    ") == "\n    a\n\n b\n    c\n");
  CHECK(symbols::reindent("", "  ") == "");
}

TEST_CASE("symbol_edit: replace and insert whole lines, keeping the file's bytes") {
  const std::string stored = "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n    def g(self):\r\n        return 2\r\n";
  auto doc = text::Document::decode(stored);
  REQUIRE(doc.has_value());
  text::Normalized normalized(*doc);
  auto run = [&](std::size_t first, std::size_t last, symbols::Placement p, std::string t) {
    auto e = symbols::symbol_edit(normalized.view(), first, last, p, t);
    REQUIRE(e.has_value());
    return splice::apply(*doc, splice::plan(*doc, normalized.view(), {*e})).bytes;
  };
  // The model sent the method unindented, LF only: it lands at the method's
  // depth, with the file's CRLF.
  CHECK(run(2, 3, symbols::Placement::kReplace, "def f(self):\n    return 10\n") ==
        "class A:\r\n    def f(self):\r\n        return 10\r\n\r\n    def g(self):\r\n        return 2\r\n");
  CHECK(run(5, 6, symbols::Placement::kInsertBefore, "@staticmethod\ndef h():\n    pass\n") ==
        "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n    @staticmethod\r\n    def h():\r\n"
        "        pass\r\n    def g(self):\r\n        return 2\r\n");
  CHECK(run(2, 3, symbols::Placement::kInsertAfter, "\ndef h(self):\n    pass") ==
        "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n    def h(self):\r\n        pass\r\n"
        "\r\n    def g(self):\r\n        return 2\r\n");
  // Replacing with nothing removes the lines.
  CHECK(run(5, 6, symbols::Placement::kReplace, "") ==
        "class A:\r\n    def f(self):\r\n        return 1\r\n\r\n");
  auto nothing = symbols::symbol_edit(normalized.view(), 2, 3, symbols::Placement::kInsertAfter, "");
  REQUIRE(nothing.has_error());
  CHECK(nothing.error().input == Input::kNewText);
}

TEST_CASE("symbol_edit: a last line without a final newline") {
  const std::string stored = "a\nint f() {}";
  auto doc = text::Document::decode(stored);
  REQUIRE(doc.has_value());
  text::Normalized normalized(*doc);
  auto run = [&](symbols::Placement p, std::string t) {
    auto e = symbols::symbol_edit(normalized.view(), 2, 2, p, t);
    REQUIRE(e.has_value());
    return splice::apply(*doc, splice::plan(*doc, normalized.view(), {*e})).bytes;
  };
  CHECK(run(symbols::Placement::kReplace, "int f() { return 1; }\n") == "a\nint f() { return 1; }");
  CHECK(run(symbols::Placement::kInsertAfter, "int g() {}\n") == "a\nint f() {}\nint g() {}");
  CHECK(run(symbols::Placement::kInsertBefore, "int g() {}") == "a\nint g() {}\nint f() {}");
}

TEST_CASE("outline: a symbol's lines begin at its decorators, template header and comments") {
  // pylsp's ranges, as Debian 12's pylsp reports them for this file: each
  // function starts at `def`, below its decorators and comments.
  const std::string py =
      "import functools\n"            // 1
      "\n"                            // 2
      "# A comment above f.\n"        // 3
      "@functools.cache\n"            // 4
      "def f(x):\n"                   // 5
      "    return x\n"                // 6
      "\n"                            // 7
      "class Outer:\n"                // 8
      "    @property\n"               // 9
      "    def value(self):\n"        // 10
      "        return 1\n"            // 11
      "    x = 1\n"                   // 12
      "    @app.route(\n"             // 13
      "        \"/x\",\n"             // 14
      "    )\n"                       // 15
      "    def g(self):\n"            // 16
      "        pass\n";               // 17
  std::vector<Reported> flat = {
      sym("functools", 2, span(0, 0, 0, 16)), sym("f", 12, span(4, 0, 6, 0)),
      sym("Outer", 5, span(7, 0, 17, 0)),     sym("value", 12, span(9, 4, 11, 0)),
      sym("x", 13, span(11, 4, 11, 9)),       sym("g", 12, span(15, 4, 17, 0))};
  for (auto& r : flat) r.selection.reset();
  auto o = symbols::outline(py, symbols::nest(std::move(flat)), Encoding::kUtf16, 100,
                            symbols::leading_markers("a.py"));
  REQUIRE(paths(o) == std::vector<std::string>{"functools", "f", "Outer", "Outer/value", "Outer/x",
                                               "Outer/g"});
  CHECK(o[1].first_line == 3);  // the comment and the decorator
  CHECK(o[1].range_line == 5);
  CHECK(o[1].last_line == 6);
  CHECK(o[2].first_line == 8);  // nothing above the class but a blank line
  CHECK(o[3].first_line == 9);  // the decorator, not the class's header
  CHECK(o[5].first_line == 13);  // a decorator over three lines, not the variable above
  CHECK(o[5].range_line == 16);

  // Without markers (a caller that does not know the language), the range alone.
  auto plain = symbols::outline(py, {sym("f", 12, span(4, 0, 6, 0))}, Encoding::kUtf16, 100);
  CHECK(plain[0].first_line == 5);
}

TEST_CASE("outline: C++'s template header and doc comment belong to the function, an #include not") {
  const std::string cpp =
      "#include <string>\n"       // 1
      "/**\n"                     // 2
      " * Doc.\n"                 // 3
      " */\n"                     // 4
      "template <class T>\n"      // 5
      "T twice(T x) { return x + x; }\n"  // 6
      "namespace ns {\n"          // 7
      "int f();\n"                // 8
      "}\n";                      // 9
  // clangd's ranges (clangd 14): the template starts at its declarator's line.
  auto o = symbols::outline(
      cpp, {sym("twice", 12, span(5, 0, 5, 30)), sym("ns", 3, span(6, 0, 8, 1), {sym("f", 12, span(7, 0, 7, 7))})},
      Encoding::kUtf16, 100, symbols::leading_markers("src/a.cpp"));
  REQUIRE(o.size() == 3);
  CHECK(o[0].first_line == 2);
  CHECK(o[0].last_line == 6);
  CHECK(symbols::name_path(o, 2) == "ns/f");
  CHECK(o[2].first_line == 8);  // `namespace ns {` is its parent's first line
  CHECK(symbols::leading_markers("x.py") != symbols::leading_markers("x.ts"));
}

// The first line of the one symbol `name` at `range` of `text`, in file `file`'s language.
std::size_t first_line(const std::string& text, Span range, const char* file) {
  auto o = symbols::outline(text, {sym("s", 12, range)}, Encoding::kUtf16, 100,
                            symbols::leading_markers(file));
  REQUIRE(o.size() == 1);
  return o[0].first_line;
}

TEST_CASE("outline: a leading block stops at code that is no decorator or comment") {
  CHECK(first_line("# about print\nprint('hi')\n# about f\ndef f():\n    pass\n", span(3, 0, 5, 0),
                   "a.py") == 3);
  // A line comment has no continuation lines: the deeper line under it is the
  // body of the `if` above (Python lets a comment stand at any indentation).
  CHECK(first_line("if DEBUG:\n# about f\n    setup()\n# more\ndef f():\n    pass\n",
                   span(4, 0, 6, 0), "a.py") == 4);
  CHECK(first_line("if (a)\n// about g\n  run();\nfunction g() {}\n", span(3, 0, 3, 15), "a.js") ==
        4);
  // A decorator's argument lines, and a block comment's, are its own.
  CHECK(first_line("x = 1\n@route(\n    '/x',\n)\ndef h():\n    pass\n", span(4, 0, 6, 0),
                   "a.py") == 2);
  CHECK(first_line("int x;\n/*\n * about g\n */\nint g(void);\n", span(4, 0, 4, 11), "a.c") == 2);
  // C's preprocessor lines are not comments.
  CHECK(first_line("#define X 1\nint f(void);\n", span(1, 0, 1, 11), "a.c") == 2);
}

// Whether a server's positions fit the bytes (edit/symbols/verify.h): the line
// count it keeps, found by where it says the names are, and the symbols whose
// names are not there; and the bounds of a lookup's errors.

TEST_CASE("LineIndex: U+2028 and U+2029 end lines where the server counts so; LF alone where it does") {
  const std::string text = "a\u2028b\u2029c\rd\ne";
  const symbols::LineIndex lsp(text), unicode(text, LineBreaks::kLspAndUnicode),
      lf(text, LineBreaks::kLf);
  CHECK(lsp.lsp_lines() == 3);
  CHECK(unicode.lsp_lines() == 5);
  CHECK(lf.lsp_lines() == 2);
  CHECK(unicode.offset({2, 0}, Encoding::kUtf16) == text.find('c'));
  CHECK(unicode.offset({1, 5}, Encoding::kUtf16) == text.find('b') + 1);  // the line's end
  CHECK(lf.offset({0, 10}, Encoding::kUtf8) == text.find('d'));  // the CR is content
  CHECK(symbols::breaks_differ(text));
  CHECK_FALSE(symbols::breaks_differ("a\r\nb\n"));
  // A long line of ASCII maps at once; a UTF-8 offset inside a character means its start.
  CHECK(lsp.offset({0, 2}, Encoding::kUtf8) == 1);
}

TEST_CASE("name_fit: the selection holds the name, a part of it, or not") {
  const std::string text = "int Parser::parse() {}\nx\n";
  const symbols::LineIndex index(text);
  CHECK(symbols::name_fit(index, named("parse", span(0, 0, 0, 22), span(0, 12, 0, 17)), Encoding::kUtf16) ==
        NameFit::kHolds);
  CHECK(symbols::name_fit(index, named("Parser::parse", span(0, 0, 0, 22), span(0, 12, 0, 17)),
                          Encoding::kUtf16) == NameFit::kHolds);
  CHECK(symbols::name_fit(index, named("other", span(0, 0, 0, 22), span(0, 12, 0, 17)), Encoding::kUtf16) ==
        NameFit::kMisplaced);
  // No name position to check: none, empty, or the whole range.
  Reported r = named("cb", span(0, 0, 0, 5), span(0, 0, 0, 5));
  CHECK(symbols::name_fit(index, r, Encoding::kUtf16) == NameFit::kUnknown);
  r.selection.reset();
  CHECK(symbols::name_fit(index, r, Encoding::kUtf16) == NameFit::kUnknown);
  // Past the text's lines.
  CHECK(symbols::name_fit(index, named("far", span(1000000, 0, 1000000, 3), span(1000000, 0, 1000000, 3)),
                          Encoding::kUtf16) == NameFit::kMisplaced);
}

TEST_CASE("fit_line_breaks: tsserver's count is found by its names, kept on a tie, and outline maps by it") {
  CHECK(symbols::fit_line_breaks(kText, kTsserver, Encoding::kUtf16, LineBreaks::kLsp) ==
        LineBreaks::kLspAndUnicode);
  // Nothing tells the counts apart: what the server was found to count.
  CHECK(symbols::fit_line_breaks(kText, {}, Encoding::kUtf16, LineBreaks::kLspAndUnicode) ==
        LineBreaks::kLspAndUnicode);
  CHECK(symbols::fit_line_breaks("function alpha() {}\n", kTsserver, Encoding::kUtf16,
                                 LineBreaks::kLsp) == LineBreaks::kLsp);
  // Read as LSP counts, both are a line off and misplaced; as tsserver counts, on their lines.
  auto wrong = symbols::outline(kText, kTsserver, Encoding::kUtf16, 100);
  REQUIRE(wrong.size() == 2);
  CHECK(wrong[0].misplaced);
  CHECK(wrong[1].misplaced);
  auto right = symbols::outline(kText, kTsserver, Encoding::kUtf16, 100, {}, LineBreaks::kLspAndUnicode);
  REQUIRE(right.size() == 2);
  CHECK_FALSE(right[0].misplaced);
  CHECK(right[0].first_line == 2);
  CHECK(right[0].last_line == 4);
  CHECK(right[1].first_line == 5);
}

TEST_CASE("resolve: a miss among 100,000 long names ranks within its bound; many candidates are listed in part") {
  std::string text;
  std::vector<Reported> many;
  for (int i = 0; i < 100000; ++i) {
    many.push_back(named(std::string(240, 'a' + i % 26) + std::to_string(i), span(0, 0, 0, 1),
                         span(0, 0, 0, 0)));
  }
  const auto o = symbols::outline("x\n", many, Encoding::kUtf16, 100000);
  auto q = symbols::parse_query(std::string(240, 'b') + "x");
  REQUIRE(q.has_value());
  auto miss = symbols::resolve(o, *q);
  REQUIRE(miss.has_error());
  CHECK(miss.error().kind == ErrorKind::kNoMatch);
  CHECK(miss.error().data["closest"].size() == symbols::kMaxClosest);
  std::vector<Reported> same(1000, named("dup", span(0, 0, 0, 1), span(0, 0, 0, 0)));
  const auto d = symbols::outline("x\n", same, Encoding::kUtf16, 100000);
  q = symbols::parse_query("dup");
  auto amb = symbols::resolve(d, *q);
  REQUIRE(amb.has_error());
  CHECK(amb.error().kind == ErrorKind::kAmbiguous);
  CHECK(amb.error().data["candidates"].size() == symbols::kMaxCandidates);
  CHECK(amb.error().data["totalCandidates"] == 1000);
  CHECK(amb.error().message.find("and 980 more") != std::string::npos);
}
