#include "edit/match/replace.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "edit/explain/closest.h"
#include "edit/text/chars.h"
#include "edit/match/tier_table.h"
#include "protocol/error.h"  // name_inputs, for the table's hints in JSON-RPC's names

using namespace editd;
using namespace editd::match;

namespace {

constexpr Mode kE = Mode::kExact;
constexpr Mode kS = Mode::kStandard;
constexpr Mode kF = Mode::kFuzzy;

struct Applies {
  const char* name;
  std::string text, old_text, new_text;
  Mode mode;
  std::string result;
  std::string tier;
  std::vector<LineRange> lines;
  bool replace_all = false;
  std::optional<std::size_t> expected = std::nullopt;
};

// Each case is applied, and its result, tier and line ranges checked.
const std::vector<Applies> kApplies = {
    // exact
    {"one exact hit is replaced", "a\nb\nc\n", "b", "B", kS, "a\nB\nc\n", "exact", {{2, 2}}},
    {"an exact hit may start and end mid-line",
     "int x = 1;\n",
     "x = 1",
     "y = 2",
     kS,
     "int y = 2;\n",
     "exact",
     {{1, 1}}},
    {"replaceAll replaces every hit",
     "f(a, b) {\n}\ng(a, b) {\n}\n",
     "(a, b) {",
     "(x, y) {",
     kS,
     "f(x, y) {\n}\ng(x, y) {\n}\n",
     "exact",
     {{1, 1}, {3, 3}},
     true},
    {"repeated hits that do not overlap are all replaced",
     "abab",
     "ab",
     "X",
     kS,
     "XX",
     "exact",
     {{1, 1}, {1, 1}},
     true},
    {"expectedReplacements equal to the hits is accepted",
     "x;\nx;\n",
     "x;",
     "y;",
     kS,
     "y;\ny;\n",
     "exact",
     {{1, 1}, {2, 2}},
     true,
     2},
    {"a replacement spanning lines reports its line range",
     "1\n2\n3\n",
     "2\n",
     "two\nzwei\n",
     kS,
     "1\ntwo\nzwei\n3\n",
     "exact",
     {{2, 3}}},
    {"an empty replacement reports the line of the cut",
     "1\n2\n3\n",
     "2\n",
     "",
     kS,
     "1\n3\n",
     "exact",
     {{2, 2}}},
    {"a cut at the end of the file reports the last line",
     "a\nb",
     "\nb",
     "",
     kS,
     "a",
     "exact",
     {{1, 1}}},
    {"newText is literal: $& $1 and \\1 stay text",
     "x = 1\n",
     "1",
     "$& $1 \\1 $$",
     kS,
     "x = $& $1 \\1 $$\n",
     "exact",
     {{1, 1}}},
    {"backslashes in oldText match literally",
     "p = \"C:\\\\dir\"\n",
     "C:\\\\dir",
     "D:\\\\dir",
     kS,
     "p = \"D:\\\\dir\"\n",
     "exact",
     {{1, 1}}},
    {"a file without a final newline stays without one",
     "a\nb",
     "b",
     "c",
     kS,
     "a\nc",
     "exact",
     {{2, 2}}},
    {"multi-byte UTF-8 is matched and written byte for byte",
     "héllo wörld\n",
     "wörld",
     "мир",
     kS,
     "héllo мир\n",
     "exact",
     {{1, 1}}},
    {"tabs are matched and kept exactly",
     "\tif (x) {\n\t\treturn;\n\t}\n",
     "\t\treturn;",
     "\t\treturn 1;",
     kE,
     "\tif (x) {\n\t\treturn 1;\n\t}\n",
     "exact",
     {{2, 2}}},
    {"exact mode applies an exact hit",
     "alpha\nbeta\n",
     "beta",
     "gamma",
     kE,
     "alpha\ngamma\n",
     "exact",
     {{2, 2}}},
    // trailing_whitespace
    {"trailing whitespace in the file is ignored and kept on unchanged lines",
     "int a = 1;   \nint b = 2;\n",
     "int a = 1;\nint b = 2;\n",
     "int a = 1;\nint b = 3;\n",
     kS,
     "int a = 1;   \nint b = 3;\n",
     "trailing_whitespace",
     {{1, 2}}},
    {"trailing whitespace in oldText is ignored",
     "foo(1);\nbar(2);\n",
     "foo(1);  \nbar(2);\t",
     "foo(1);  \nbaz(2);",
     kS,
     "foo(1);\nbaz(2);\n",
     "trailing_whitespace",
     {{1, 2}}},
    {"a whitespace tier matches short oldText",
     "a;  \nb;\n",
     "a;\nb;",
     "a;\nc;",
     kS,
     "a;  \nc;\n",
     "trailing_whitespace",
     {{1, 2}}},
    {"a line tier keeps a missing final newline missing",
     "a  \nb",
     "a\nb\n",
     "a\nc\n",
     kS,
     "a  \nc",
     "trailing_whitespace",
     {{1, 2}}},
    {"a line tier deletes whole lines with their newline",
     "  x();\n  y();\n  z();\n",
     "x();\ny();\n",
     "",
     kS,
     "  z();\n",
     "indentation",
     {{1, 1}}},
    // indentation
    {"indentation is re-applied by the same offset, one level deeper",
     "class A {\n    void f() {\n        g();\n    }\n}\n",
     "void f() {\n    g();\n}",
     "void f() {\n    g();\n    h();\n}",
     kS,
     "class A {\n    void f() {\n        g();\n        h();\n    }\n}\n",
     "indentation",
     {{2, 5}}},
    {"a tab-indented file keeps tabs when oldText used spaces",
     "func f() {\n\tif x {\n\t\ty()\n\t}\n}\n",
     "if x {\n    y()\n}",
     "if x {\n    y()\n    z()\n}",
     kS,
     "func f() {\n\tif x {\n\t\ty()\n\t\tz()\n\t}\n}\n",
     "indentation",
     {{2, 5}}},
    {"the indent is never doubled",
     "        foo();\n        bar();\n",
     "    foo();\n    bar();",
     "    foo();\n    baz();",
     kS,
     "        foo();\n        baz();\n",
     "indentation",
     {{1, 2}}},
    {"a replacement shallower than oldText is dedented from the file's indent",
     "    if (a) {\n        b();\n    }\n",
     "if (a) {\n    b();\n}",
     "b();",
     kS,
     "    b();\n",
     "indentation",
     {{1, 1}}},
    {"a 2-space oldText maps onto a 4-space file",
     "    if (a) {\n        b();\n    }\n",
     "if (a) {\n  b();\n}",
     "if (a) {\n  b();\n  c();\n}",
     kS,
     "    if (a) {\n        b();\n        c();\n    }\n",
     "indentation",
     {{1, 4}}},
    // unicode
    {"curly quotes in the file match straight ones and stay on unchanged lines",
     "print(\u201chello\u201d)\nx = 1\n",
     "print(\"hello\")\nx = 1",
     "print(\"hello\")\nx = 2",
     kS,
     "print(\u201chello\u201d)\nx = 2\n",
     "unicode",
     {{1, 2}}},
    {"no-break spaces match plain spaces",
     "a\u00a0=\u00a0compute(1);\n",
     "a = compute(1);",
     "a = compute(2);",
     kS,
     "a\u00a0=\u00a0compute(2);\n",
     "unicode",
     {{1, 1}}},
    {"dashes fold to a hyphen",
     "// see \u2014 below\nfoo();\n",
     "// see - below\nfoo();",
     "// see - below\nbar();",
     kS,
     "// see \u2014 below\nbar();\n",
     "unicode",
     {{1, 2}}},
    {"curly quotes in oldText match straight ones in the file",
     "s = 'it''s fine'\n",
     "s = \u2018it\u2019\u2019s fine\u2019",
     "s = 'ok now'",
     kS,
     "s = 'ok now'\n",
     "unicode",
     {{1, 1}}},
    // blank_padding
    {"blank lines padding oldText are ignored, and dropped from newText",
     "a();\nb();\nc();\n",
     "\n\nb();\n\n",
     "\n\nB();\n\n",
     kS,
     "a();\nB();\nc();\n",
     "blank_padding",
     {{2, 2}}},
    {"padding only at the start of oldText is ignored",
     "foo(1);\ny\n",
     "\nfoo(1);\n",
     "foo(2);\n",
     kS,
     "foo(2);\ny\n",
     "blank_padding",
     {{1, 1}}},
    {"padded oldText matches whole lines with other indentation",
     "  x = 1;\n  y = 2;\n",
     "\nx = 1;\ny = 2;\n\n",
     "\nx = 1;\ny = 3;\n\n",
     kS,
     "  x = 1;\n  y = 3;\n",
     "blank_padding",
     {{1, 2}}},
    // blank_runs
    {"fuzzy collapses runs of blanks",
     "x  =   1;\ny = 2;\n",
     "x = 1;\ny = 2;",
     "x = 1;\ny = 3;",
     kF,
     "x  =   1;\ny = 3;\n",
     "blank_runs",
     {{1, 2}}},
    {"fuzzy still prefers an exact hit",
     "x  =   1;\nx = 1;\n",
     "x = 1;",
     "x = 2;",
     kF,
     "x  =   1;\nx = 2;\n",
     "exact",
     {{2, 2}}},
    // block
    {"the block tier tolerates drift on a line the edit keeps",
     "def f(a):\n    total = a + 1   # add one\n    log(total)\n    return total\n",
     "def f(a):\n    total = a + 1  # add 1\n    log(total)\n    return total",
     "def f(a):\n    total = a + 1  # add 1\n    log(total)\n    return total * 2",
     kF,
     "def f(a):\n    total = a + 1   # add one\n    log(total)\n    return total * 2\n",
     "block",
     {{1, 4}}},
    {"the block tier keeps the file's lines and inserts new ones",
     "fn main() {\n    let a = compute(1, 2);\n    print(a);\n}\n",
     "fn main() {\n    let a = compute(1,2);\n    print(a);\n}",
     "fn main() {\n    let a = compute(1,2);\n    print(a);\n    print(a + 1);\n}",
     kF,
     "fn main() {\n    let a = compute(1, 2);\n    print(a);\n    print(a + 1);\n}\n",
     "block",
     {{1, 5}}},
    // line numbers
    {"line-number prefixes on every line are stripped",
     "a();\nb();\nc();\n",
     "2: b();\n3: c();",
     "2: b();\n3: C();",
     kS,
     "a();\nb();\nC();\n",
     "line_numbers",
     {{2, 3}}},
    {"tab-separated line numbers are stripped, and newText without them is taken as is",
     "a();\nb();\nc();\n",
     "     2\tb();\n     3\tc();",
     "b();\nc(1);",
     kS,
     "a();\nb();\nc(1);\n",
     "line_numbers",
     {{2, 3}}},
    {"text that really starts with numbers matches exactly first",
     "1: one\n2: two\n",
     "1: one\n2: two",
     "1: uno\n2: two",
     kS,
     "1: uno\n2: two\n",
     "exact",
     {{1, 2}}},
};

struct Refuses {
  const char* name;
  std::string text, old_text, new_text;
  Mode mode;
  ErrorKind kind;
  std::string tier;             // ambiguous: data.tier
  std::string hint;             // a piece of data.hint ("" for none expected)
  std::vector<int> lines = {};  // ambiguous: data.lines
  bool replace_all = false;
  std::optional<std::size_t> expected = std::nullopt;
};

const std::vector<Refuses> kRefuses = {
    {"empty oldText is invalid", "abc\n", "", "x", kS, ErrorKind::kInvalidParams, "", ""},
    {"oldText equal to newText changes nothing", "abc\n", "abc", "abc", kS, ErrorKind::kNoChange,
     "", ""},
    {"two exact hits are ambiguous",
     "f(a, b) {\n}\ng(a, b) {\n}\n",
     "(a, b) {",
     "(x, y) {",
     kS,
     ErrorKind::kAmbiguous,
     "exact",
     "",
     {1, 3}},
    {"expectedReplacements different from the hits is ambiguous",
     "x;\nx;\nx;\n",
     "x;",
     "y;",
     kS,
     ErrorKind::kAmbiguous,
     "exact",
     "",
     {1, 2, 3},
     true,
     2},
    {"expectedReplacements with one hit and expecting two is ambiguous",
     "x;\n",
     "x;",
     "y;",
     kS,
     ErrorKind::kAmbiguous,
     "exact",
     "",
     {1},
     false,
     2},
    {"an ambiguous exact match never falls through to a looser tier",
     "foo(1);\nfoo(1);\n  foo(1);  \n",
     "foo(1);",
     "foo(2);",
     kF,
     ErrorKind::kAmbiguous,
     "exact",
     "",
     {1, 2, 3}},
    {"ambiguity at the trailing whitespace tier",
     "a = 1;  \nb;\na = 1; \nb;\n",
     "a = 1;\nb;",
     "a = 2;\nb;",
     kS,
     ErrorKind::kAmbiguous,
     "trailing_whitespace",
     "",
     {1, 3}},
    {"ambiguity at the indentation tier",
     "  call(x);\n  next();\n    call(x);\n    next();\n",
     "call(x);\nnext();",
     "call(y);\nnext();",
     kS,
     ErrorKind::kAmbiguous,
     "indentation",
     "",
     {1, 3}},
    {"ambiguity at the unicode tier",
     "s = \u201cvalue\u201d;\nt = \u201cvalue\u201d;\n"
     "s = \u201cvalue\u201d;\n",
     "s = \"value\";",
     "s = \"other\";",
     kS,
     ErrorKind::kAmbiguous,
     "unicode",
     "",
     {1, 3}},
    // Escapes written out are never read as characters: a refusal that shows where.
    {"oldText with \\n written out is refused, newText unread",
     "if (x) {\n  return 1;\n}\n",
     "if (x) {\\n  return 1;\\n}",
     "if (x) {\\n  return 2;\\n}",
     kS,
     ErrorKind::kNoMatch,
     "",
     "real line breaks"},
    {"escaped quotes written out mid-line are refused", "say(\"hi there\");\n",
     "say(\\\"hi there\\\");", "say(\\\"bye now\\\");", kF, ErrorKind::kNoMatch, "",
     "real line breaks"},
    {"escaped tabs written out are refused", "\tvalue = 10;\n\tother = 2;\n",
     "\\tvalue = 10;\\n\\tother", "\\tvalue = 11;\\n\\tother", kS, ErrorKind::kNoMatch,
     "", "real line breaks, tabs and quotes"},
    {"escapes written out that would match twice say so",
     "if (a) {\n  b();\n}\nif (a) {\n  b();\n}\n",
     "if (a) {\\n  b();\\n}",
     "if (a) {\\n  c();\\n}",
     kS,
     ErrorKind::kNoMatch,
     "",
     "occurs 2 times, the first at lines 1-3"},
    {"ambiguity at the blank padding tier",
     "xyz();\nabc();\nxyz();\n",
     "\n\nxyz();\n",
     "\n\nq();\n",
     kS,
     ErrorKind::kAmbiguous,
     "blank_padding",
     "",
     {1, 3}},
    {"ambiguity at the blank runs tier",
     "x  = 1;\ny;\nx   = 1;\ny;\n",
     "x = 1;\ny;",
     "x = 2;\ny;",
     kF,
     ErrorKind::kAmbiguous,
     "blank_runs",
     "",
     {1, 3}},
    {"two similar functions are ambiguous in the block tier, even with replaceAll",
     "def f():\n    a = compute(1)\n    return a\n"
     "def f():\n    a = compute(2)\n    return a\n",
     "def f():\n    a = compute(3)\n    return a",
     "def f():\n    a = compute(3)\n    return a + 1",
     kF,
     ErrorKind::kAmbiguous,
     "block",
     "",
     {1, 4},
     true},
    {"the block tier refuses when a line the edit changes differs from the file",
     "def f(a):\n    total = a + 1\n    log(total)\n    return total\n",
     "def f(a):\n    total = a + 2\n    log(total)\n    return total",
     "def f(a):\n    total = a + 3\n    log(total)\n    return total", kF, ErrorKind::kNoMatch, "",
     "line 2, which the edit changes"},
    {"the block tier refuses a middle line that is too different",
     "def f(a):\n    completely_other_statement()\n    return total\n",
     "def f(a):\n    total = a + 1\n    return total", "def f(a):\n    pass\n    return total", kF,
     ErrorKind::kNoMatch, "", ""},
    {"the block tier needs three lines", "if (ok) {\n}\n", "if (ok) {\n  }x", "if (ok) {\n}", kF,
     ErrorKind::kNoMatch, "", ""},
    {"the block tier is off in standard mode",
     "def f(a):\n    total = a + 1   # add one\n    return total\n",
     "def f(a):\n    total = a + 1  # add 1\n    return total",
     "def f(a):\n    total = a + 1  # add 1\n    return total * 2", kS, ErrorKind::kNoMatch, "",
     "matching \"fuzzy\""},
    {"exact mode does not forgive trailing whitespace, and says what would", "foo(a);  \nbar(b);\n",
     "foo(a);\nbar(b);", "foo(a);\nbaz(b);", kE, ErrorKind::kNoMatch, "",
     "trailing whitespace (tier trailing_whitespace)"},
    {"exact mode does not fold quotes, and says so", "print(\u201chello\u201d)\n",
     "print(\"hello\")", "print(\"bye\")", kE, ErrorKind::kNoMatch, "", "tier unicode"},
    {"exact mode does not unescape either, and says where it would match",
     "if (x) {\n  y();\n}\n", "if (x) {\\n  y();\\n}", "if (x) {\\n  z();\\n}", kE,
     ErrorKind::kNoMatch, "", "real line breaks"},
    {"standard mode does not collapse blank runs, and says fuzzy would", "x  =   1;\n", "x = 1;",
     "x = 2;", kS, ErrorKind::kNoMatch, "", "matching \"fuzzy\""},
    {"short oldText is not matched by the unicode tier", "x = \u201ca\u201d\n", "x = \"a\"",
     "x = \"b\"", kF, ErrorKind::kNoMatch, "", "fewer than 8 non-blank characters"},
    {"short oldText is not unescaped", "a\nb\n", "a\\nb", "c", kF, ErrorKind::kNoMatch, "",
     ""},
    {"newText already in the file suggests the edit was applied", "x = 2;\n", "x = 1;", "x = 2;",
     kS, ErrorKind::kNoMatch, "", "already applied"},
    {"line numbers in exact mode are refused with a hint", "a();\nb();\nc();\n", "2: b();\n3: c();",
     "2: b();\n3: C();", kE, ErrorKind::kNoMatch, "", "numbered view"},
    {"non-consecutive line numbers are not stripped", "a();\nb();\nc();\n", "2: b();\n7: c();",
     "2: b();\n7: C();", kS, ErrorKind::kNoMatch, "", "some lines of oldText start with a line"},
    {"line numbers on some newText lines only are refused", "a();\nb();\nc();\n",
     "2: b();\n3: c();", "2: b();\nd();\n3: C();", kS, ErrorKind::kNoMatch, "", "only on some"},
    {"a whitespace-only oldText does not match blank lines loosely", "a\n\n\nb\n", " \n \n", "x",
     kF, ErrorKind::kNoMatch, "", ""},
    {"a fragment of a line does not match under a line tier", "    alpha beta gamma\n",
     "beta  gamma", "delta", kF, ErrorKind::kNoMatch, "", ""},
};

Request request(std::string_view text, std::string_view old_text, std::string_view new_text,
                Mode mode = Mode::kStandard) {
  return Request{text, old_text, new_text, mode, false, std::nullopt};
}

}  // namespace

TEST_CASE("every applied case gives its result, tier and line ranges") {
  for (const Applies& c : kApplies) {
    CAPTURE(c.name);
    Request r{c.text, c.old_text, c.new_text, c.mode, c.replace_all, c.expected};
    auto plan = plan_replace(r);
    if (plan.has_error()) FAIL_CHECK(c.name << ": " << plan.error().wire_data().dump());
    if (!plan) continue;
    CHECK(splice::apply_edits(c.text, plan->edits) == c.result);
    CHECK(plan->tier == c.tier);
    CHECK(plan->replacements == c.lines.size());
    REQUIRE(plan->lines.size() == c.lines.size());
    for (std::size_t i = 0; i < c.lines.size(); ++i) {
      CHECK(plan->lines[i].start_line == c.lines[i].start_line);
      CHECK(plan->lines[i].end_line == c.lines[i].end_line);
    }
  }
}

TEST_CASE("every refused case gives its error kind, tier, lines and hint") {
  for (const Refuses& c : kRefuses) {
    INFO(std::string(c.name));
    Request r{c.text, c.old_text, c.new_text, c.mode, c.replace_all, c.expected};
    auto plan = plan_replace(r);
    if (plan.has_value())
      FAIL_CHECK(c.name << ": applied, giving " << splice::apply_edits(c.text, plan->edits));
    if (plan) continue;
    const Error& e = plan.error();
    CHECK(e.kind == c.kind);
    if (!c.tier.empty()) CHECK(e.data.value("tier", "") == c.tier);
    if (!c.lines.empty()) CHECK(e.data["lines"] == nlohmann::json(c.lines));
    if (!c.hint.empty()) {
      std::string hint = e.data.value("hint", "");
      name_inputs(hint);  // the engine mentions its inputs; JSON-RPC's names
      CAPTURE(hint);
      CHECK(hint.find(c.hint) != std::string::npos);
    }
  }
}

TEST_CASE("the table holds at least fifty cases") {
  CHECK(kApplies.size() + kRefuses.size() >= 50);
}

TEST_CASE("empty oldText is an invalid input, named by what it is") {
  auto plan = plan_replace(request("abc", "", "x"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().kind == ErrorKind::kInvalidParams);
  CHECK(plan.error().input == Input::kOldText);
  CHECK(plan.error().message == "must not be empty (to insert text, use insert or write_text)");
}

TEST_CASE("an ambiguous match tells the model to add context or use replaceAll") {
  auto plan = plan_replace(request("x;\nx;\n", "x;", "y;"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().message.find("replaceAll") != std::string::npos);
  CHECK(plan.error().message.find("surrounding lines") != std::string::npos);
}

TEST_CASE("an ambiguous match shows the whole lines of every candidate") {
  auto plan =
      plan_replace(request("int a(x, y) {\n}\nint b(x, y) {\n  go();\n}\n", "(x, y) {", "(z) {"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().data["candidates"] ==
        nlohmann::json::parse(R"([{"startLine":1,"endLine":1,"text":"int a(x, y) {"},
                                   {"startLine":3,"endLine":3,"text":"int b(x, y) {"}])"));
  auto spanning =
      plan_replace(request("f {\n  go();\n}\nf {\n  go();\n}\n", "f {\n  go();\n", "g"));
  REQUIRE(spanning.has_error());
  CHECK(spanning.error().data["candidates"][1] ==
        nlohmann::json::parse(R"({"startLine":4,"endLine":5,"text":"f {\n  go();"})"));
}

TEST_CASE("a count mismatch reports expected and found") {
  Request r{"x;\nx;\nx;\n", "x;", "y;", Mode::kStandard, true, 2};
  auto plan = plan_replace(r);
  REQUIRE(plan.has_error());
  CHECK(plan.error().data["expected"] == 2);
  CHECK(plan.error().data["found"] == 3);
  CHECK(plan.error().data["lines"] == nlohmann::json({1, 2, 3}));
}

TEST_CASE("a miss reports the most similar region") {
  std::string file =
      "function add(a, b) {\n  return a + b; // sum\n}\n\nfunction sub(a, b) {\n"
      "  return a - b;\n}\n";
  auto plan = plan_replace(request(file, "return a * b;", "return a / b;"));
  REQUIRE(plan.has_error());
  const auto& e = plan.error();
  CHECK(e.kind == ErrorKind::kNoMatch);
  CHECK(e.data["closest"]["startLine"] == 6);
  CHECK(e.data["closest"]["endLine"] == 6);
  CHECK(e.data["closest"]["text"] == "  return a - b;");
  CHECK(e.data["closest"]["similarity"].get<double>() == doctest::Approx(0.8));
  CHECK_FALSE(e.data.contains("hint"));
}

TEST_CASE("a miss in an empty file has no closest region") {
  auto plan = plan_replace(request("", "anything", "else"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().kind == ErrorKind::kNoMatch);
  CHECK_FALSE(plan.error().data.contains("closest"));
}

TEST_CASE("a refused block edit points at the region it resembled") {
  std::string file = "def f(a):\n    total = a + 1\n    log(total)\n    return total\n";
  auto plan = plan_replace(
      request(file, "def f(a):\n    total = a + 2\n    log(total)\n    return total",
              "def f(a):\n    total = a + 3\n    log(total)\n    return total", Mode::kFuzzy));
  REQUIRE(plan.has_error());
  CHECK(plan.error().data["closest"]["startLine"] == 1);
  CHECK(plan.error().data["closest"]["endLine"] == 4);
}

TEST_CASE("parse_mode and mode_name round-trip the three modes") {
  for (Mode m : {Mode::kExact, Mode::kStandard, Mode::kFuzzy}) CHECK(parse_mode(mode_name(m)) == m);
  CHECK_FALSE(parse_mode("loose").has_value());
  CHECK_FALSE(parse_mode("").has_value());
}

TEST_CASE("the closest region has the needle's number of lines") {
  std::string file;
  for (int i = 1; i <= 100; ++i) file += "line number " + std::to_string(i) + " of the file\n";
  auto c = closest_region(file, "line number 41 of the file\nline number 42 of the fyle\n");
  REQUIRE(c.has_value());
  CHECK(c->lines.start_line == 41);
  CHECK(c->lines.end_line == 42);
  CHECK(c->text == "line number 41 of the file\nline number 42 of the file");
  CHECK(c->similarity > 0.9);
  CHECK(c->similarity < 1.0);
}

TEST_CASE("a needle longer than the file gets the whole file") {
  auto c = closest_region("a\nb\n", "a\nb\nc\nd\n");
  REQUIRE(c.has_value());
  CHECK(c->lines.start_line == 1);
  CHECK(c->lines.end_line == 2);
  CHECK(c->similarity == doctest::Approx(0.5));
}

TEST_CASE("equally similar regions resolve to the earliest") {
  auto c = closest_region("xyz\nfoo\nxyz\nfoo\n", "xyz\nfoo");
  REQUIRE(c.has_value());
  CHECK(c->lines.start_line == 1);
  CHECK(c->similarity == 1.0);
}

TEST_CASE("a region sharing nothing with the needle still has a closest region") {
  auto c = closest_region("aaaa\nbbbb\n", "%%%");
  REQUIRE(c.has_value());
  CHECK(c->similarity == 0.0);
}

TEST_CASE("an empty file has no closest region") {
  CHECK_FALSE(closest_region("", "x").has_value());
}

TEST_CASE("a large file is handled and its closest region found") {
  std::string file;
  for (int i = 0; i < 10000; ++i)
    file += "    value_" + std::to_string(i) + " = compute(" + std::to_string(i % 97) + ");\n";
  std::string needle;
  for (int i = 5000; i < 5040; ++i)
    needle += "value_" + std::to_string(i) + " = compute(" + std::to_string(i % 97) + ")\n";
  auto plan = plan_replace(request(file, needle, "gone\n", Mode::kFuzzy));
  REQUIRE(plan.has_error());
  CHECK(plan.error().data["closest"]["startLine"] == 5001);
  CHECK(plan.error().data["closest"]["endLine"] == 5040);
}

// ---------------------------------------------------------------------------
// Forgiving tiers keep the file's own characters (docs/protocol.md, "What the
// replacement keeps"): only what the model changed is written in its characters.

namespace {

struct Kept {
  const char* name;
  std::string text, old_text, new_text, result;
  std::string tier = "unicode";
};

const std::vector<Kept> kKept = {
    {"Python: an f-string keeps its curly apostrophes when a word is added",
     "def greet(name):\n    return f\"It\u2019s {name}\u2019s turn\"\n",
     "def greet(name):\n    return f\"It's {name}'s turn\"",
     "def greet(name):\n    return f\"It's {name}'s turn now\"",
     "def greet(name):\n    return f\"It\u2019s {name}\u2019s turn now\"\n"},
    {"shell: the flags keep their hyphens where the model wrote en dashes",
     "#!/bin/sh\ncurl -sS -X POST \"$URL\" -d @body.json\n",
     "curl \u2013sS \u2013X POST \"$URL\" \u2013d @body.json",
     "curl \u2013sS \u2013X PUT \"$URL\" \u2013d @body.json",
     "#!/bin/sh\ncurl -sS -X PUT \"$URL\" -d @body.json\n"},
    {"JSON: keys keep their curly quotes when a value changes",
     "{\n  \u201cname\u201d: \u201ceditd\u201d,\n  \u201cversion\u201d: \u201c1.0\u201d\n}\n",
     "\"name\": \"editd\",\n  \"version\": \"1.0\"", "\"name\": \"editd\",\n  \"version\": \"1.1\"",
     "{\n  \u201cname\u201d: \u201ceditd\u201d,\n  \u201cversion\u201d: \u201c1.1\u201d\n}\n"},
    {"Markdown: the ellipsis and the no-break space stay when a later word changes",
     "# Notes\n\nLoading\u2026 please wait\u00a0a moment.\n", "Loading... please wait a moment.",
     "Loading... please wait a second.", "# Notes\n\nLoading\u2026 please wait\u00a0a second.\n"},
    {"TypeScript: a changed line keeps its apostrophe, an added line is the model's",
     "const msg = `Don\u2019t panic`;\nconsole.log(msg);\n",
     "const msg = `Don't panic`;\nconsole.log(msg);",
     "const msg = `Don't panic!`;\nconsole.warn(\"added\");\nconsole.log(msg);",
     "const msg = `Don\u2019t panic!`;\nconsole.warn(\"added\");\nconsole.log(msg);\n"},
    {"YAML: a quoted description keeps its quotes",
     "description: \u201cA fast server\u201d\nversion: 1\n",
     "description: \"A fast server\"\nversion: 1",
     "description: \"A fast JSON-RPC server\"\nversion: 2",
     "description: \u201cA fast JSON-RPC server\u201d\nversion: 2\n"},
    {"C: a re-indented line keeps its em dash",
     "int f(void) {\n\treturn 0; /* none \u2014 yet */\n}\n",
     "int f(void) {\n    return 0; /* none - yet */\n}",
     "int f(void) {\n    return 1; /* none - yet */\n}",
     "int f(void) {\n\treturn 1; /* none \u2014 yet */\n}\n"},
    {"Go: a string keeps its no-break space when an argument changes",
     "fmt.Println(\"total:\u00a0\", n)\nreturn nil\n", "fmt.Println(\"total: \", n)\nreturn nil",
     "fmt.Println(\"total: \", n+1)\nreturn nil",
     "fmt.Println(\"total:\u00a0\", n+1)\nreturn nil\n"},
    {"Makefile: a recipe keeps its tab and its en dash",
     "build:\n\techo \u201cbuilding\u201d \u2013 $(CC)\n", "build:\n    echo \"building\" - $(CC)",
     "build:\n    echo \"building\" - $(CC) -O2",
     "build:\n\techo \u201cbuilding\u201d \u2013 $(CC) -O2\n"},
    {"Rust: a format string keeps its apostrophe when an argument changes",
     "fn main() {\n    println!(\"{}\u2019s score: {}\", name, score);\n}\n",
     "println!(\"{}'s score: {}\", name, score);", "println!(\"{}'s score: {}\", name, total);",
     "fn main() {\n    println!(\"{}\u2019s score: {}\", name, total);\n}\n"},
    {"Python: a docstring line removed between two changed lines leaves the others the file's",
     "def f():\n    \"\"\"It\u2019s \u201cfast\u201d.\n    Really.\n    Ok\u2026\"\"\"\n",
     "\"\"\"It's \"fast\".\nReally.\nOk...\"\"\"", "\"\"\"It's \"faster\".\nOk... done\"\"\"",
     "def f():\n    \"\"\"It\u2019s \u201cfaster\u201d.\n    Ok\u2026 done\"\"\"\n"},
    {"an ellipsis the model shortens is rewritten whole", "msg = \u201cLoading\u2026\u201d\n",
     "msg = \"Loading...\"", "msg = \"Loading..\"", "msg = \u201cLoading..\u201d\n"},
    // U+FEFF
    {"a U+FEFF that the file has where the model did not look stays",
     "x = \u201cv\u201d\ufeff;\nnext();\n", "x = \"v\";\nnext();", "x = \"w\";\nnext();",
     "x = \u201cw\u201d\ufeff;\nnext();\n"},
    {"a U+FEFF the model adds on a folded line is dropped", "x = \u201cvalue\u201d;\n",
     "x = \"value\";", "x = \"other\";\ufeff", "x = \u201cother\u201d;\n"},
    {"a BOM copied at the start of oldText and newText does not reach the body",
     "import os\nimport re\n", "\ufeffimport os", "\ufeffimport sys", "import sys\nimport re\n",
     "exact"},
    {"a BOM copied at the start of newText only does not reach the body", "import os\n",
     "import os", "\ufeffimport sys", "import sys\n", "exact"},
    {"a U+FEFF inside newText that oldText lacks is dropped", "a = 1\nb = 2\n", "b = 2",
     "b = 3\n\ufeffc = 4", "a = 1\nb = 3\nc = 4\n", "exact"},
    {"a U+FEFF that the file holds where newText keeps it stays", "s = '\ufeff'\n", "s = '\ufeff'",
     "t = '\ufeff'", "t = '\ufeff'\n", "exact"},
    {"an oldText starting with a U+FEFF the file really holds is matched with it",
     "a\ufeffb = 1;\n", "\ufeffb = 1;", "c = 1;", "ac = 1;\n", "exact"},
};

}  // namespace

TEST_CASE("forgiving tiers make the model's change on the file's own characters") {
  for (const Kept& c : kKept) {
    CAPTURE(c.name);
    auto plan = plan_replace(request(c.text, c.old_text, c.new_text));
    if (plan.has_error()) FAIL_CHECK(c.name << ": " << plan.error().wire_data().dump());
    if (!plan) continue;
    CHECK(splice::apply_edits(c.text, plan->edits) == c.result);
    CHECK(plan->tier == c.tier);
  }
}

TEST_CASE("a newText that differs only by a copied BOM changes nothing") {
  auto plan = plan_replace(request("x = 1\n", "x = 1", "\ufeffx = 1"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().kind == ErrorKind::kNoChange);
  auto empty = plan_replace(request("x = 1\n", "\ufeff", "y"));
  REQUIRE(empty.has_error());
  CHECK(empty.error().kind == ErrorKind::kInvalidParams);
}

// ---------------------------------------------------------------------------
// Overlapping readings of repeated text are ambiguity, even with replaceAll.

namespace {

struct Overlap {
  const char* name;
  std::string text, old_text, new_text;
  std::string tier;
  std::vector<int> lines;
};

const std::vector<Overlap> kOverlaps = {
    {"two identical lines in three", "a\na\na\n", "a\na\n", "b\n", "exact", {1, 2}},
    {"characters: \"aa\" in \"aaa\"", "aaa\n", "aa", "b", "exact", {1, 1}},
    {"Go: rows of a test table",
     "var cases = []struct{ in, want int }{\n\t{1, 1},\n\t{1, 1},\n"
     "\t{1, 1},\n}\n",
     "\t{1, 1},\n\t{1, 1},\n",
     "\t{1, 2},\n\t{1, 2},\n",
     "exact",
     {2, 3}},
    {"Markdown: rows of a table",
     "| a | 1 |\n| a | 1 |\n| a | 1 |\n",
     "| a | 1 |\n| a | 1 |\n",
     "| b | 2 |\n",
     "exact",
     {1, 2}},
    {"Rust: repeated calls matched by indentation",
     "fn main() {\n    v.push(0);\n    v.push(0);\n    v.push(0);\n}\n",
     "v.push(0);\nv.push(0);",
     "v.push(1);\nv.push(1);",
     "indentation",
     {2, 3}},
    {"YAML: list items matched by indentation",
     "items:\n  - x\n  - x\n  - x\n",
     "- x\n- x",
     "- y\n- y",
     "indentation",
     {2, 3}},
    {"C: repeated frees with trailing blanks",
     "free(p); \nfree(p); \nfree(p); \n",
     "free(p);\nfree(p);",
     "free(q);\nfree(q);",
     "trailing_whitespace",
     {1, 2}},
    {"TypeScript: repeated calls with curly quotes",
     "log(\u201cretry\u201d);\nlog(\u201cretry\u201d);\nlog(\u201cretry\u201d);\n",
     "log(\"retry\");\nlog(\"retry\");",
     "log(\"again\");\nlog(\"again\");",
     "unicode",
     {1, 2}},
    {"blank padding around repeated lines",
     "x = 1;\nx = 1;\nx = 1;\n",
     "\nx = 1;\nx = 1;\n\n",
     "\ny = 1;\n\n",
     "blank_padding",
     {1, 2}},
    {"Python: repeated statements",
     "def f():\n    x += 1\n    x += 1\n    x += 1\n",
     "    x += 1\n    x += 1\n",
     "    x += 2\n",
     "exact",
     {2, 3}},
    {"JSON: repeated array items",
     "[\n  {},\n  {},\n  {},\n  {}\n]\n",
     "  {},\n  {},\n",
     "  {}\n",
     "exact",
     {2, 3}},
    {"Makefile: repeated recipe lines matched by indentation",
     "all:\n\t@echo\n\t@echo\n\t@echo\n",
     "@echo\n@echo",
     "@echo hi",
     "indentation",
     {2, 3}},
    {"a verbatim hit mid-line and a window that share a line",
     "y x\nx\n  x\n",
     "\n\nx\nx",
     "\n\nz",
     "blank_padding",
     {1, 2}},
};

}  // namespace

TEST_CASE("overlapping readings are ambiguous, with or without replaceAll") {
  for (const Overlap& c : kOverlaps) {
    for (bool all : {false, true}) {
      CAPTURE(c.name);
      CAPTURE(all);
      Request r{c.text, c.old_text, c.new_text, kF, all, std::nullopt};
      auto plan = plan_replace(r);
      if (plan.has_value())
        FAIL_CHECK(c.name << ": applied, giving " << splice::apply_edits(c.text, plan->edits));
      if (plan) continue;
      const Error& e = plan.error();
      CHECK(e.kind == ErrorKind::kAmbiguous);
      CHECK(e.data.value("tier", "") == c.tier);
      CHECK(e.data["lines"] == nlohmann::json(c.lines));
      CHECK(e.data.value("overlapping", false));
      CHECK(e.data["candidates"].size() == c.lines.size());
      CHECK(e.message.find("overlapping") != std::string::npos);
    }
  }
}

TEST_CASE("an overlapping reading shows each candidate's own lines") {
  auto plan = plan_replace(request("x\ny\ny\ny\nz\n", "y\ny\n", "w\n"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().data["candidates"] ==
        nlohmann::json::parse(R"([{"startLine":2,"endLine":3,"text":"y\ny"},
                                   {"startLine":3,"endLine":4,"text":"y\ny"}])"));
}

TEST_CASE("repeated lines with a line that tells them apart match once") {
  auto plan = plan_replace(request("a\nb\na\na\n", "b\na\n", "b\nc\n"));
  REQUIRE(plan.has_value());
  CHECK(splice::apply_edits("a\nb\na\na\n", plan->edits) == "a\nb\nc\na\n");
  // Windows that repeat without overlapping are still replaced together.
  Request all{"x();\n  y();\nx();\n  y();\n", "x();\ny();", "x(1);\ny();", kS, true, 2};
  auto both = plan_replace(all);
  REQUIRE(both.has_value());
  CHECK(both->tier == "indentation");
  CHECK(splice::apply_edits(all.text, both->edits) == "x(1);\n  y();\nx(1);\n  y();\n");
}

TEST_CASE("a long run of repeated lines is read in linear time") {
  std::string file;
  for (int i = 0; i < 100000; ++i) file += "    a\n";
  std::string old_text;
  for (int i = 0; i < 50000; ++i) old_text += "a\n";
  auto plan = plan_replace(request(file, old_text, "b\n"));
  REQUIRE(plan.has_error());
  CHECK(plan.error().data.value("tier", "") == "indentation");
  CHECK(plan.error().data["found"] == 50001);
  CHECK(plan.error().data["lines"].size() == kMaxListedLines);
}

TEST_CASE("replaceAll over a forgiving tier carries each change onto its own region's characters") {
  Request all{"log(\u201cx\u201d \u2013 1);\nnext();\nlog(\u201cx\u201d \u2014 1);\n",
              "log(\"x\" - 1);",
              "log(\"y\" - 1);",
              kS,
              true,
              2};
  auto plan = plan_replace(all);
  REQUIRE(plan.has_value());
  CHECK(plan->tier == "unicode");
  CHECK(splice::apply_edits(all.text, plan->edits) ==
        "log(\u201cy\u201d \u2013 1);\nnext();\nlog(\u201cy\u201d \u2014 1);\n");
}

// ---------------------------------------------------------------------------
// Bounded cost (issue 13): shapes that used to cost O(file lines x oldText
// lines) or to ignore the similarity budget give the right answer.

namespace {

std::string repeated(std::string_view line, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

TEST_CASE("a long oldText of repeated lines finds its one region in exact mode") {
  const std::string file = repeated("a", 20000) + "b\n" + repeated("a", 20000);
  const std::string old_text = repeated("a", 5000) + "b\n" + repeated("a", 5000);
  auto plan = plan_replace(request(file, old_text, "c\n", kE));
  REQUIRE(plan.has_value());
  CHECK(plan->tier == "exact");
  CHECK(plan->lines.front().start_line == 15001);
  CHECK(splice::apply_edits(file, plan->edits) ==
        repeated("a", 15000) + "c\n" + repeated("a", 15000));
}

TEST_CASE(
    "a long oldText of repeated lines that the file lacks is refused with the closest region") {
  const std::string file = repeated("a", 100000);
  const std::string old_text = repeated("a", 25000) + "b\n" + repeated("a", 24999);
  for (Mode mode : {kE, kS, kF}) {
    CAPTURE(mode_name(mode));
    auto plan = plan_replace(request(file, old_text, "x\n", mode));
    REQUIRE(plan.has_error());
    CHECK(plan.error().kind == ErrorKind::kNoMatch);
    CHECK(plan.error().data["closest"]["endLine"].get<std::size_t>() -
              plan.error().data["closest"]["startLine"].get<std::size_t>() ==
          49999);
    // Nothing votes for a window (one letter is no token; `a` is everywhere),
    // so every window would be scored: the budget stops that, and says so.
    CHECK(plan.error().data["hint"].get<std::string>().find("work budget") != std::string::npos);
  }
}

TEST_CASE("repeated lines under a forgiving tier find their one region in standard mode") {
  const std::string file = repeated("a  ", 20000) + "b \n" + repeated("a ", 20000);
  const std::string old_text = repeated("a", 3000) + "b\n" + repeated("a", 3000);
  auto plan = plan_replace(request(file, old_text, "c\n", kS));
  REQUIRE(plan.has_value());
  CHECK(plan->tier == "trailing_whitespace");
  CHECK(plan->lines.front().start_line == 17001);
}

TEST_CASE("the block tier stops at its budget on repeated lines and refuses, saying so") {
  // Every window starts and ends like oldText, and each of its middle lines is
  // like oldText's but not equal (one letter in ten differs): every line of
  // every window has to be compared.
  const std::string file = repeated("abcdefghij", 60000);
  const std::string old_text = "abcdefghij\n" + repeated("abcdefghiX", 30000) + "abcdefghij\n";
  auto plan = plan_replace(request(file, old_text, "x\n", kF));
  REQUIRE(plan.has_error());
  CHECK(plan.error().kind == ErrorKind::kNoMatch);
  CHECK(plan.error().data["hint"].get<std::string>().find(
            "block tier stopped at its work budget") != std::string::npos);
}

TEST_CASE("the block tier tries first the line that turned the last window away") {
  // Every window starts and ends like oldText and differs from it only at one
  // middle line: tried first, that line turns each window away with one
  // comparison, so the tier ends within its budget (it would not, comparing
  // 15,000 lines per window). The closest region's search may still stop at
  // its own budget here (nothing votes), but the block tier does not.
  const std::string file = repeated("a", 60000);
  const std::string old_text = repeated("a", 15000) + "bbbbbbbbbb\n" + repeated("a", 15000);
  auto plan = plan_replace(request(file, old_text, "x\n", kF));
  REQUIRE(plan.has_error());
  CHECK(plan.error().kind == ErrorKind::kNoMatch);
  CHECK(plan.error().data["hint"].get<std::string>().find("block tier") == std::string::npos);
}

TEST_CASE("the block tier still finds one drifted region among repeated lines within its budget") {
  const std::string file = repeated("x", 500) + "begin\n" + repeated("a", 20) + "middle_one\n" +
                           "end\n" + repeated("x", 500);
  const std::string old_text = "begin\n" + repeated("a", 20) + "middle_0ne\nend\n";
  auto plan = plan_replace(
      request(file, old_text, "begin\n" + repeated("a", 20) + "middle_0ne\nend\nmore\n", kF));
  REQUIRE(plan.has_value());
  CHECK(plan->tier == "block");
  CHECK(plan->lines.front().start_line == 501);
}

TEST_CASE("one long line of oldText against many short lines is refused with a low similarity") {
  std::string file;
  for (int i = 0; file.size() < 51 * 1024; ++i)
    file += "line " + std::to_string(i) + " of a file of short lines\n";
  std::string old_text;
  for (int i = 0; old_text.size() < 50 * 1024; ++i) old_text += "word" + std::to_string(i) + " ";
  for (Mode mode : {kE, kF}) {
    auto plan = plan_replace(request(file, old_text, "x", mode));
    REQUIRE(plan.has_error());
    CHECK(plan.error().kind == ErrorKind::kNoMatch);
    const double similarity = plan.error().data["closest"]["similarity"].get<double>();
    CHECK(similarity >= 0.0);
    CHECK(similarity < 0.1);
  }
}

TEST_CASE("many short lines of oldText against one long line are refused with the whole line") {
  std::string file;
  for (int i = 0; file.size() < 50 * 1024; ++i) file += "word" + std::to_string(i) + " ";
  file += "\n";
  std::string old_text;
  for (int i = 0; i < 2000; ++i) old_text += "line " + std::to_string(i) + "\n";
  auto plan = plan_replace(request(file, old_text, "x\n", kF));
  REQUIRE(plan.has_error());
  CHECK(plan.error().kind == ErrorKind::kNoMatch);
  CHECK(plan.error().data["closest"]["startLine"] == 1);
  CHECK(plan.error().data["closest"]["endLine"] == 1);
  CHECK(plan.error().data["closest"]["similarity"].get<double>() < 0.1);
}

TEST_CASE(
    "on a big file the hint of a tier the mode does not run is found near the closest region") {
  // Over kHintScopeBytes: the trailing whitespace tier runs for the hint only
  // around the closest region, which is where oldText differs.
  std::string file;
  for (int i = 0; file.size() <= kHintScopeBytes; ++i)
    file += "value_" + std::to_string(i) + " = compute(" + std::to_string(i % 97) + ");\n";
  const std::size_t at = file.find("value_20000 ");
  REQUIRE(at != std::string::npos);
  file.insert(file.find('\n', at), "   ");
  auto plan = plan_replace(request(file, "value_20000 = compute(18);\nvalue_20001 = compute(19);",
                                   "value_20000 = 0;\nvalue_20001 = compute(19);", kE));
  REQUIRE(plan.has_error());
  CHECK(plan.error().data["closest"]["startLine"] == 20001);
  CHECK(plan.error().data["hint"].get<std::string>().find(
            "at line 20001 only in trailing whitespace") != std::string::npos);
}

// The cheap tests that turn most of a big file away before any line is
// normalised (line slots, the ends of lines, the middle lines of a verbatim
// needle) must never turn away a region that a tier matches: every drift that
// a tier forgives, on random files, is still found.
TEST_CASE("every tier still finds its drifted region on random files, and escapes show theirs") {
  const std::vector<std::string> vocabulary = {"def f(x):",
                                               "    return x + 1",
                                               "\tif (a && b) {",
                                               "  \u201cquoted\u201d \u2014 text here",
                                               "x = 'a'",
                                               "}",
                                               "",
                                               "    // a comment here",
                                               "key:  value  here",
                                               "int  y  =  2;",
                                               "\t\tcall(one,  two);",
                                               "  it\u2019s  the \u2026 end",
                                               "  ",
                                               "#include <stdio.h>",
                                               "  - item one"};
  std::mt19937 rng(11);
  enum Drift { kTrailing, kIndent, kUnicode, kRuns, kEscapes, kBlock, kPadding, kDrifts };
  int found = 0;
  for (int round = 0; round < 700; ++round) {
    std::vector<std::string> lines;
    for (int i = 0; i < 120; ++i) {
      if (i % 9 == 0)
        lines.push_back("marker line number " + std::to_string(i));
      else
        lines.push_back(vocabulary[rng() % vocabulary.size()]);
    }
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    const auto drift = static_cast<Drift>(round % kDrifts);
    const std::size_t k = 3 + rng() % 4, s = rng() % (lines.size() - k);
    std::vector<std::string> old_lines(lines.begin() + static_cast<std::ptrdiff_t>(s),
                                       lines.begin() + static_cast<std::ptrdiff_t>(s + k));
    std::string old_text;
    switch (drift) {
      case kTrailing:
        for (const std::string& l : old_lines) old_text += l + "  \n";
        break;
      case kIndent:
        for (const std::string& l : old_lines) old_text += " " + l + "\n";
        break;
      case kUnicode:
        for (const std::string& l : old_lines) old_text += chars::fold(l) + "\n";
        break;
      case kRuns:
        for (const std::string& l : old_lines) {
          std::string collapsed;
          for (char c : l)
            if (!(c == ' ' && !collapsed.empty() && collapsed.back() == ' ')) collapsed += c;
          old_text += collapsed + "\n";
        }
        break;
      case kEscapes:
        for (const std::string& l : old_lines) old_text += l + "\\n";
        break;
      case kBlock:
        // One character more on a line long enough to stay similar (0.8).
        if (chars::trim(old_lines[1]).size() < 10) continue;
        for (std::size_t j = 0; j < k; ++j)
          old_text += (j == 1 ? old_lines[j] + "x" : old_lines[j]) + "\n";
        break;
      case kPadding:
        old_text = "\n\n";
        for (const std::string& l : old_lines) old_text += l + "\n";
        old_text += "\n";
        break;
      case kDrifts:
        break;
    }
    // An appended line changes none of the region's lines.
    const std::string new_text = drift == kEscapes ? old_text + "added" : old_text + "added line\n";
    auto plan = plan_replace(request(text, old_text, new_text, kF));
    if (drift == kEscapes) {
      // Never applied: refused with the region, or with how many there are.
      if (chars::non_blank_chars(old_text) < chars::kMinLooseChars) continue;
      REQUIRE_MESSAGE(plan.has_error(), "round " << round << ": escapes written out were applied");
      const nlohmann::json& data = plan.error().data;
      const bool shown = data.contains("escapes") ? data["escapes"]["startLine"] == s + 1
                                                  : data.value("hint", "").find("occurs") !=
                                                        std::string::npos;
      CHECK_MESSAGE(shown, "round " << round << ": " << data.dump());
      found += shown ? 1 : 0;
      continue;
    }
    const bool missed = plan.has_error() && plan.error().kind == ErrorKind::kNoMatch &&
                        !plan.error().data.contains("tier");
    // A region the loose tiers may not take (too few characters, or a
    // drift that made it blank) is the one excuse.
    const bool loose = drift == kUnicode || drift == kBlock;
    if (missed && loose && chars::non_blank_chars(old_text) < chars::kMinLooseChars) continue;
    if (missed && (drift == kBlock || drift == kPadding)) {
      // The block tier needs non-blank first and last lines; padding needs a
      // region that is not all blank.
      if (chars::is_blank(old_lines.front()) || chars::is_blank(old_lines.back())) continue;
    }
    if (missed && std::all_of(old_lines.begin(), old_lines.end(),
                              [](const std::string& l) { return chars::is_blank(l); }))
      continue;
    CHECK_MESSAGE(!missed, "round " << round << " drift " << drift << ": oldText\n"
                                    << old_text << "\nfile\n"
                                    << text << "\n"
                                    << (plan.has_error() ? plan.error().message : ""));
    found += missed ? 0 : 1;
  }
  CHECK(found > 450);
}

TEST_CASE("escapes written out are refused with the one region they would match") {
  // A C file whose string holds a real escape: the model wrote the two lines
  // with \n written out, and a newText whose string means "\n" literally.
  const std::string file = "int main() {\n  printf(\"done\\n\");\n  return 0;\n}\n";
  auto plan = plan_replace(request(file, "  printf(\\\"done\\\\n\\\");\\n  return 0;",
                                   "  printf(\\\"ok\\\\n\\\");\\n  return 1;"));
  REQUIRE(plan.has_error());
  const Error& e = plan.error();
  CHECK(e.kind == ErrorKind::kNoMatch);
  CHECK_FALSE(e.data.contains("tier"));
  CHECK(e.data["escapes"] == nlohmann::json::parse(R"({"startLine":2,"endLine":3,
        "text":"  printf(\"done\\n\");\n  return 0;"})"));
  std::string message = e.message;
  name_inputs(message);
  CHECK(message.find("matches lines 2-3 (data.escapes)") != std::string::npos);
  std::string hint = e.data.value("hint", "");
  name_inputs(hint);
  CHECK(hint.find("newText written with real line breaks") != std::string::npos);
}

TEST_CASE("no matching mode applies escapes written out, and no tier is named for them") {
  const std::string file = "if (x) {\n  return 1;\n}\n";
  for (Mode mode : {Mode::kExact, Mode::kStandard, Mode::kFuzzy}) {
    CAPTURE(mode_name(mode));
    auto plan = plan_replace(request(file, "if (x) {\\n  return 1;\\n}", "if (x) {\\n  return 2;\\n}", mode));
    REQUIRE(plan.has_error());
    CHECK(plan.error().data["escapes"]["startLine"] == 1);
    CHECK(plan.error().data.dump().find("tier escapes") == std::string::npos);
  }
  for (const auto& t : kTiers) CHECK(t.name != "escapes");
  // An oldText without written-out escapes gets no such data.
  auto plain = plan_replace(request(file, "if (y) {\n  return 1;\n}", "z"));
  REQUIRE(plain.has_error());
  CHECK_FALSE(plain.error().data.contains("escapes"));
}

TEST_CASE("a blank-padded oldText is found mid-line, and an applied newText is recognised") {
  const std::string file = "int x = foo(a,\n    b,\n    c);\nint y = 0;\n";
  auto plan = plan_replace(request(file, "\nfoo(a,\n    b,\n    c);\n\n", "\nfoo(a,\n    b);\n\n"));
  REQUIRE(plan.has_value());
  CHECK(plan->tier == "blank_padding");
  CHECK(splice::apply_edits(file, plan->edits) == "int x = foo(a,\n    b);\nint y = 0;\n");

  auto miss = plan_replace(request(file, "bar(a,\n    b,\n    c);\n", "foo(a,\n    b,\n    c);\n"));
  REQUIRE(miss.has_error());
  CHECK(miss.error().kind == ErrorKind::kNoMatch);
  CHECK(miss.error().data["hint"].get<std::string>().find(
            mention(Input::kNewText) + " is already in the file at line 1") != std::string::npos);
}

TEST_CASE("the already-applied hint names newText's first line, however often it occurs") {
  std::string file = "alpha();\nbeta();\n";
  for (int i = 0; i < 5000; ++i) file += "gamma(" + std::to_string(i) + ");\n";
  auto miss = plan_replace(request(file, "delta();\n", "gamma("));
  REQUIRE(miss.has_error());
  CHECK(miss.error().kind == ErrorKind::kNoMatch);
  CHECK(miss.error().data["hint"].get<std::string>().find(
            mention(Input::kNewText) + " is already in the file at line 3:") != std::string::npos);
}

TEST_CASE(
    "a replacement whose result would pass the limit is too_large, measured before building") {
  std::string file;
  for (int i = 0; i < 1000; ++i) file += "x = 1;\n";
  const std::string big(10'000, 'y');
  Request r = request(file, "x = 1;", big);
  r.replace_all = true;
  r.max_result_bytes = 1'000'000;  // 1,000 x 10 KB would be about 10 MB
  auto refused = plan_replace(r);
  REQUIRE(refused.has_error());
  CHECK(refused.error().kind == ErrorKind::kTooLarge);
  CHECK(refused.error().data["replacements"] == 1000);
  CHECK(refused.error().data["limit"] == 1'000'000);

  // Exactly at the limit is allowed; shrinking never trips it.
  r.max_result_bytes = file.size() + 1000 * (big.size() - 6);
  auto at_limit = plan_replace(r);
  REQUIRE(at_limit.has_value());
  CHECK(at_limit->replacements == 1000);
  CHECK(splice::apply_edits(file, at_limit->edits).size() == r.max_result_bytes);
  Request shrink = request(file, "x = 1;\n", "");
  shrink.replace_all = true;
  shrink.max_result_bytes = file.size();
  CHECK(plan_replace(shrink).has_value());

  // Without replaceAll the same request is ambiguous, and lists every region.
  r.replace_all = false;
  r.max_result_bytes = 1'000'000;
  auto ambiguous = plan_replace(r);
  REQUIRE(ambiguous.has_error());
  CHECK(ambiguous.error().kind == ErrorKind::kAmbiguous);
  CHECK(ambiguous.error().data["lines"].size() == 1000);
}

TEST_CASE("a search keeps at most kMaxRegions regions: more is refused, exactly that many is not") {
  std::string many, trailing;
  for (std::size_t i = 0; i < kMaxRegions + 50; ++i) {
    many += "a\n";
    trailing += "a  \n";
  }
  // The exact tier ("a") and a line tier ("a\n" once trailing blanks are ignored).
  for (const auto& [file, old_text] : {std::pair<std::string, std::string>{many, "a"},
                                       std::pair<std::string, std::string>{trailing, "a\n"}}) {
    CAPTURE(old_text);
    Request r = request(file, old_text, "b\n");
    auto one = plan_replace(r);
    REQUIRE(one.has_error());
    CHECK(one.error().kind == ErrorKind::kAmbiguous);
    CHECK(one.error().data["found"] == kMaxRegions + 1);
    CHECK(one.error().data["lines"].size() == kMaxListedLines);
    CHECK(one.error().data["lines"][999] == 1000);
    CHECK(one.error().data["candidates"].size() == kMaxCandidates);
    CHECK(one.error().message.find("more than 100000 regions") != std::string::npos);
    r.replace_all = true;
    auto all = plan_replace(r);
    REQUIRE(all.has_error());
    CHECK(all.error().kind == ErrorKind::kTooLarge);
    CHECK(all.error().data["limit"] == kMaxRegions);
  }
  // Exactly kMaxRegions regions are replaced.
  std::string exact_count;
  for (std::size_t i = 0; i < kMaxRegions; ++i) exact_count += "a\n";
  Request r = request(exact_count, "a", "b");
  r.replace_all = true;
  auto plan = plan_replace(r);
  REQUIRE(plan.has_value());
  CHECK(plan->replacements == kMaxRegions);
}

TEST_CASE("token_mask marks exactly the token bytes, every byte value at every position") {
  auto is_token = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c >= 0x80;
  };
  std::string block(64, ' ');
  std::size_t wrong = 0;
  for (int c = 0; c < 256; ++c) {
    for (std::size_t at = 0; at < 64; ++at) {
      for (std::size_t len : {at + 1, std::size_t{64}}) {
        std::fill(block.begin(), block.end(), '.');
        block[at] = static_cast<char>(c);
        const std::uint64_t mask = match::token_mask(block.data(), len);
        const std::uint64_t want =
            is_token(static_cast<unsigned char>(c)) ? std::uint64_t{1} << at : 0;
        wrong += mask != want;
      }
    }
  }
  CHECK(wrong == 0);
  // Bytes past len are never looked at as part of the mask.
  const std::string word = "abc_9\xC3\xA9Z";
  CHECK(match::token_mask(word.data(), 3) == 0b111);
  CHECK(match::token_mask(word.data(), word.size()) == 0xFF);
}

TEST_CASE("the closest region is found by a token wherever it lies in a long line") {
  // Lines of 40 to 200 bytes whose one distinctive token starts and ends at
  // every offset around the 64-byte blocks that tokens are read in. Past the
  // first 512 lines, which are scored when nothing votes, only the token's
  // vote finds the line.
  for (std::size_t pad : {0u, 1u, 59u, 60u, 61u, 62u, 63u, 64u, 65u, 120u, 126u, 127u, 128u}) {
    std::string file;
    for (int i = 0; i < 600; ++i)
      file +=
          std::string(pad, '(') + "tok" + std::to_string(1000 + i) + std::string(40, ')') + "\n";
    // Ending the line with the token too.
    file += std::string(pad, '(') + "last" + std::to_string(pad) + "\n";
    auto c = closest_region(file, "zz tok1550 zz");
    REQUIRE(c.has_value());
    CHECK_MESSAGE(c->lines.start_line == 551, "pad " << pad);
    auto end = closest_region(file, "zz last" + std::to_string(pad) + " zz");
    REQUIRE(end.has_value());
    CHECK_MESSAGE(end->lines.start_line == 601, "pad " << pad);
  }
}
