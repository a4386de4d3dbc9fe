// The pure part of the checks: globs, command lines, checker output in each
// documented shape, and which diagnostics an edit introduced.
#include "server/checks/diagnostics.h"

#include <doctest/doctest.h>

using namespace editd;
using namespace editd::diagnostics;

namespace {

std::vector<Diagnostic> parse(std::string_view out, bool failed = true) {
  return parse_output(out, "src/a.c", "/root/src/a.c", "cc", failed);
}

Diagnostic at(std::uint64_t line, std::string message, std::string severity = "error") {
  Diagnostic d;
  d.line = line;
  d.message = std::move(message);
  d.severity = std::move(severity);
  d.source = "cc";
  return d;
}

}  // namespace

TEST_CASE("globs: file names anywhere, paths from the root, sets and alternatives") {
  CHECK(glob_matches("*.py", "a.py"));
  CHECK(glob_matches("*.py", "deep/down/a.py"));
  CHECK_FALSE(glob_matches("*.py", "a.pyc"));
  CHECK(glob_matches("*.{c,cc,cpp,h}", "x/y.cc"));
  CHECK(glob_matches("*.{c,cc,cpp,h}", "y.h"));
  CHECK_FALSE(glob_matches("*.{c,cc,cpp,h}", "y.hpp"));
  CHECK(glob_matches("src/*.c", "src/a.c"));
  CHECK_FALSE(glob_matches("src/*.c", "src/sub/a.c"));
  CHECK_FALSE(glob_matches("src/*.c", "other/src/a.c"));
  CHECK(glob_matches("src/**/*.c", "src/a.c"));
  CHECK(glob_matches("src/**/*.c", "src/sub/deeper/a.c"));
  CHECK(glob_matches("**/*.c", "a.c"));
  CHECK(glob_matches("./src/?.c", "src/a.c"));
  CHECK_FALSE(glob_matches("src/?.c", "src/ab.c"));
  CHECK(glob_matches("[ab].txt", "b.txt"));
  CHECK_FALSE(glob_matches("[!ab].txt", "b.txt"));
  CHECK(glob_matches("[a-c].txt", "c.txt"));
  CHECK(glob_matches("{src,lib}/{x,y}.{c,h}", "lib/y.h"));
  CHECK(glob_matches("Makefile", "sub/Makefile"));
  CHECK(expand_braces("a{b,{c,d}}e") == std::vector<std::string>{"abe", "ace", "ade"});
}

TEST_CASE("commands split like a shell's words, with no shell") {
  CHECK(*split_command("gcc -fsyntax-only {file}") ==
        std::vector<std::string>{"gcc", "-fsyntax-only", "{file}"});
  CHECK(*split_command("sh -c 'a | b; echo \"$X\"'") ==
        std::vector<std::string>{"sh", "-c", "a | b; echo \"$X\""});
  CHECK(*split_command("x \"a \\\"b\\\" c\" d\\ e ''") ==
        std::vector<std::string>{"x", "a \"b\" c", "d e", ""});
  CHECK_FALSE(split_command("sh -c 'unclosed").has_value());
  // A file's name reaches the checker as one whole word that reads as a path:
  // never as an option, a response file or text inside another word.
  CHECK(substitute({"cc", "{file}", "-x", "{file}"}, "a b.c") ==
        std::vector<std::string>{"cc", "./a b.c", "-x", "./a b.c"});
  CHECK(substitute({"cc", "{file}"}, "-rf") == std::vector<std::string>{"cc", "./-rf"});
  CHECK(substitute({"cc", "{file}"}, "@opts.c") == std::vector<std::string>{"cc", "./@opts.c"});
  CHECK(substitute({"cc", "{file}"}, "/abs/x.c") == std::vector<std::string>{"cc", "/abs/x.c"});
  CHECK(substitute({"sh", "-c", "x \"$1\"", "sh", "{file}"}, "y$(z).c") ==
        std::vector<std::string>{"sh", "-c", "x \"$1\"", "sh", "./y$(z).c"});
  CHECK(parse_spec("*.c=cc -o{file}.o {file}", false).error().message.find("whole word") !=
        std::string::npos);
  CHECK(parse_spec("*.py=sh -c 'pyflakes3 {file} | head'", false).error().message.find("\"$1\"") !=
        std::string::npos);
  CHECK(parse_spec("*.sh={file} --check", false).error().message.find("program") !=
        std::string::npos);
  CHECK(parse_spec("*.py=sh -c 'pyflakes3 \"$1\" | head' sh {file}", false).has_value());
  auto spec = parse_spec("*.py=pyflakes3 {file}", false);
  REQUIRE(spec.has_value());
  CHECK(spec->glob == "*.py");
  CHECK(spec->argv == std::vector<std::string>{"pyflakes3", "{file}"});
  CHECK_FALSE(parse_spec("pyflakes3", false).has_value());
  CHECK_FALSE(parse_spec("*.py=", true).has_value());
  CHECK(parse_spec("*.py=", true).error().message.starts_with("--lsp"));
}

TEST_CASE("--format: a check's argv rules, @lsp alone, the option named in errors") {
  auto spec = parse_format_spec("*.py=black -q -");
  REQUIRE(spec.has_value());
  CHECK(spec->format);
  CHECK_FALSE(spec->lsp);
  CHECK_FALSE(by_lsp(*spec));
  CHECK(spec->glob == "*.py");
  CHECK(spec->argv == std::vector<std::string>{"black", "-q", "-"});
  CHECK(spec->option == "*.py=black -q -");
  CHECK(option_flag(*spec) == "--format");
  auto clang = parse_format_spec("*.{c,h}=clang-format --assume-filename {file}");
  REQUIRE(clang.has_value());
  CHECK(clang->argv == std::vector<std::string>{"clang-format", "--assume-filename", "{file}"});
  // {file} as for --check: a whole word, never the program.
  auto pasted = parse_format_spec("*.c=clang-format --assume-filename={file}");
  REQUIRE_FALSE(pasted.has_value());
  CHECK(pasted.error().message.starts_with("--format "));
  CHECK(pasted.error().message.find("whole word") != std::string::npos);
  CHECK(parse_format_spec("*.sh={file}").error().message.find("program") != std::string::npos);
  CHECK(parse_format_spec("*.py=").error().message.starts_with("--format"));
  CHECK_FALSE(parse_format_spec("black").has_value());
  // @lsp: the whole COMMAND, nothing after it.
  auto lsp = parse_format_spec("*.cpp=@lsp");
  REQUIRE(lsp.has_value());
  CHECK(lsp->format);
  CHECK_FALSE(lsp->lsp);
  CHECK(by_lsp(*lsp));
  CHECK(lsp->argv == std::vector<std::string>{"@lsp"});
  CHECK(parse_format_spec("*.cpp=@lsp --x").error().message.find("stands alone") !=
        std::string::npos);
  // Only a --format's @lsp means the server: a --check's is a program's name.
  auto check = parse_spec("*.cpp=@lsp", false);
  REQUIRE(check.has_value());
  CHECK_FALSE(by_lsp(*check));
  CHECK(option_flag(*check) == "--check");
  CHECK(option_flag(*parse_spec("*.cpp=clangd", true)) == "--lsp");
}

TEST_CASE("gcc and clang: severities, notes, other files, echoes and carets dropped") {
  auto d = parse(
      "In file included from src/a.c:1:\n"
      "src/b.h:3:5: warning: unused 'q' [-Wunused]\n"
      "src/a.c: In function 'main':\n"
      "src/a.c:12:9: error: 'x' undeclared (first use in this function)\n"
      "   12 |   return x;\n"
      "      |          ^\n"
      "./src/a.c:12:9: note: each undeclared identifier is reported only once\n"
      "/root/src/a.c:20: fatal error: nope.h: No such file or directory\n");
  REQUIRE(d.size() == 4);
  CHECK(d[0].file == "src/b.h");
  CHECK(d[0].severity == "warning");
  CHECK(d[0].line == 3u);
  CHECK(d[0].column == 5u);
  CHECK(d[1].file == std::nullopt);
  CHECK(d[1].line == 12u);
  CHECK(d[1].message == "'x' undeclared (first use in this function)");
  CHECK(d[2].severity == "info");
  CHECK(d[2].file == std::nullopt);
  CHECK(d[3].line == 20u);
  CHECK(d[3].column == std::nullopt);
  CHECK(d[3].severity == "error");
  CHECK(d[3].file == std::nullopt);
  CHECK(d[3].source == "cc");
}

TEST_CASE("pyflakes, go vet, eslint's unix format and tsc") {
  auto py = parse("src/a.c:1:1: 'os' imported but unused\n");
  REQUIRE(py.size() == 1);
  CHECK(py[0].severity == "error");
  CHECK(py[0].message == "'os' imported but unused");
  auto go = parse("# pkg\nvet: src/a.c:5:2: fmt.Printf format %d has arg s of wrong type\n");
  REQUIRE(go.size() == 1);
  CHECK(go[0].file == std::nullopt);  // "vet: " is not part of the path
  CHECK(go[0].line == 5u);
  auto eslint = parse("/root/src/a.c:2:10: Missing semicolon. [Warning/semi]\n\n1 problem\n");
  REQUIRE(eslint.size() == 1);
  CHECK(eslint[0].severity == "warning");
  CHECK(eslint[0].file == std::nullopt);
  auto tsc = parse("src/a.c(3,7): error TS2322: Type 'string' is not assignable.\n");
  REQUIRE(tsc.size() == 1);
  CHECK(tsc[0].line == 3u);
  CHECK(tsc[0].column == 7u);
  CHECK(tsc[0].severity == "error");
  CHECK(tsc[0].message == "Type 'string' is not assignable.");
}

TEST_CASE("Python tracebacks (py_compile) become a diagnostic at the frame's line") {
  auto d = parse(
      "  File \"src/a.c\", line 4\n"
      "    def f(:\n"
      "          ^\n"
      "SyntaxError: invalid syntax\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].line == 4u);
  CHECK(d[0].message == "SyntaxError: invalid syntax");
}

TEST_CASE("output that does not parse is one diagnostic when the check failed, none otherwise") {
  auto failed = parse("\nlinker said no\nat all\n", true);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].line == std::nullopt);
  CHECK(failed[0].message == "linker said no\nat all");
  CHECK(parse("all good\n", false).empty());
  CHECK(parse("", false).empty());
  REQUIRE(parse("", true).size() == 1);
  std::string many;
  for (int i = 1; i <= 250; ++i) many += "src/a.c:" + std::to_string(i) + ": error: e\n";
  std::size_t dropped = 0;
  CHECK(parse_output(many, "src/a.c", "/r/src/a.c", "cc", true, &dropped).size() ==
        kMaxDiagnostics);
  CHECK(dropped == 250 - kMaxDiagnostics);
}

TEST_CASE("introduced: shifted lines still match, changed lines match within their block") {
  const std::string old_text = "a\nb\nc\nd\n";
  // Two lines inserted above c: c moves from 3 to 5.
  const std::string new_text = "a\nb\nX\nY\nc\nd\n";
  std::vector<Diagnostic> before = {at(3, "old warning in c", "warning")};
  std::vector<Diagnostic> after = {at(3, "new error in X"), at(5, "old warning in c", "warning")};
  auto got = introduced(before, after, old_text, new_text);
  REQUIRE(got.size() == 1);
  CHECK(got[0].message == "new error in X");

  // The same message on a line that did not move there is new.
  after = {at(3, "old warning in c", "warning")};
  CHECK(introduced(before, after, old_text, new_text).size() == 1);

  // A line changed in place keeps its diagnostic when the message is the same.
  before = {at(2, "unused x")};
  after = {at(2, "unused x")};
  CHECK(introduced(before, after, "a\nint x;\nc\n", "a\nint x = 1;\nc\n").empty());

  // Each old diagnostic matches at most one new one.
  before = {at(1, "dup")};
  after = {at(1, "dup"), at(1, "dup")};
  CHECK(introduced(before, after, "a\n", "a\n").size() == 1);

  // A different severity or source is a different diagnostic.
  after = {at(1, "dup", "warning")};
  CHECK(introduced(before, after, "a\n", "a\n").size() == 1);

  // Lines after a deletion shift up; CRLF counts as one line break.
  before = {at(4, "in d")};
  after = {at(2, "in d")};
  CHECK(introduced(before, after, "a\r\nb\r\nc\r\nd\r\n", "a\r\nd\r\n").empty());

  // Other files do not move; no-line diagnostics match by message.
  Diagnostic other = at(7, "in a header");
  other.file = "b.h";
  Diagnostic raw;
  raw.severity = "error";
  raw.message = "link failed";
  raw.source = "cc";
  before = {other, raw};
  after = {raw, other};
  CHECK(introduced(before, after, "a\n", "z\na\n").empty());
}

TEST_CASE("property: any checker output, glob or command parses without harm, within bounds") {
  // Random text from the characters the parsers look at.
  const std::string alphabet = ":(),0123456789 \n\t\"'\\File line errorwarning[]/Error.*?{}!^-_ab";
  std::uint64_t state = 12345;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::size_t>(state >> 33);
  };
  auto random_text = [&](std::size_t max) {
    std::string s;
    const std::size_t n = next() % max;
    for (std::size_t i = 0; i < n; ++i) s += alphabet[next() % alphabet.size()];
    return s;
  };
  for (int round = 0; round < 3000; ++round) {
    const std::string out = random_text(400), path = random_text(40), glob = random_text(16);
    std::size_t dropped = 0;
    auto ds = parse_output(out, "a.c", "/r/a.c", "cc", round % 2 == 0, &dropped);
    CHECK(ds.size() <= kMaxDiagnostics);
    for (const Diagnostic& d : ds) {
      CHECK(d.source == "cc");
      CHECK((d.severity == "error" || d.severity == "warning" || d.severity == "info" ||
             d.severity == "hint"));
    }
    // introduced() is a sub-list of `after`, and nothing is new against itself.
    auto shifted = parse_output(random_text(400), "a.c", "/r/a.c", "cc", true);
    const std::string old_text = random_text(200), new_text = random_text(200);
    auto got = introduced(ds, shifted, old_text, new_text);
    CHECK(got.size() <= shifted.size());
    CHECK(introduced(ds, ds, old_text, old_text).empty());
    (void)glob_matches(glob, path);
    CHECK(expand_braces(glob).size() <= 2 * kMaxAlternatives + 2);
    (void)split_command(random_text(60));
  }
  // Pathological alternatives are refused, not expanded.
  std::string many;
  for (int i = 0; i < 20; ++i) many += "{a,b}";
  CHECK_FALSE(parse_spec(many + "=cc", false).has_value());
}
