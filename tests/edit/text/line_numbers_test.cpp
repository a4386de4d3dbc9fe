// Line-number prefixes copied from numbered views (edit/text/line_numbers.h): what
// counts as numbered, what is stripped, and str_replace through them.
#include "edit/text/line_numbers.h"

#include <doctest/doctest.h>

#include <string>

#include "edit/match/replace.h"
#include "helpers/replace.h"

using namespace editd;
using namespace editd::match;
using editd::test::standard_plan;

namespace {

// The file after an edit found through stripped line numbers.
std::string edited_through_numbers(std::string_view text, std::string_view old_text,
                                   std::string_view new_text) {
  return editd::test::edited_by(text, old_text, new_text, "line_numbers");
}

// A miss that writes nothing, with its hint.
std::string miss_hint(std::string_view text, std::string_view old_text, std::string_view new_text) {
  auto p = standard_plan(text, old_text, new_text);
  if (p) {
    FAIL_CHECK("applied, giving " << splice::apply_edits(text, p->edits));
    return "";
  }
  CHECK(p.error().kind == ErrorKind::kNoMatch);
  return p.error().data.value("hint", "");
}

}  // namespace

// --- Which texts are numbered.

TEST_CASE("the views that number lines: grep -n, cat -n and the arrow, padded or not") {
  auto grep = numbered_view("11:code\n12:    more");
  REQUIRE(grep);
  CHECK(grep->separator == Separator::kColon);
  CHECK(grep->first == 11);
  CHECK(grep->lines == 2);
  auto cat = numbered_view("     9\ta\n    10\tb\n");
  REQUIRE(cat);
  CHECK(cat->separator == Separator::kTab);
  CHECK(cat->first == 9);
  auto arrow = numbered_view("    99\xE2\x86\x92x\n   100\xE2\x86\x92y");
  REQUIRE(arrow);
  CHECK(arrow->separator == Separator::kArrow);
  CHECK(numbered_view("9\ta\n10\tb"));
}

TEST_CASE("text that merely looks numbered is not a view") {
  CHECK_FALSE(numbered_view("10:00 standup\nlunch"));    // one line only
  CHECK_FALSE(numbered_view("2:a\n3\tb"));               // two separators
  CHECK_FALSE(numbered_view("  9\ta\n10\tb"));           // padded, not right-aligned
  CHECK_FALSE(numbered_view("  200:\n  201:\n  203:"));  // not consecutive
  CHECK_FALSE(numbered_view("12 apples\n13 pears"));     // no separator
  CHECK_FALSE(numbered_view(""));
  CHECK(some_line_numbered("x\n10:00 standup"));
  CHECK_FALSE(some_line_numbered("x\ny"));
}

TEST_CASE("stripping removes what the view wrote and never a blank after it") {
  CHECK(strip_numbers("11:    x = 1\n12:\ty\n") == "    x = 1\n\ty\n");
  CHECK(strip_numbers("     9\t\tfoo\n    10\t") == "\tfoo\n");
  CHECK(strip_numbers("1\xE2\x86\x92  a\n2\xE2\x86\x92 b") == "  a\n b");
  CHECK(strip_numbers("3: x") == " x");
}

TEST_CASE("newText is stripped only when numbered alike from the same line") {
  const View grep{Separator::kColon, 3, 2};
  CHECK(new_text_numbers("3:a\n4:b\n5:c", grep) == NewTextNumbers::kStrip);
  CHECK(new_text_numbers("a\nb", grep) == NewTextNumbers::kVerbatim);
  CHECK(new_text_numbers("10:00 standup\n11:00 lunch", grep) == NewTextNumbers::kVerbatim);
  CHECK(new_text_numbers("  200:\n  201:", grep) == NewTextNumbers::kVerbatim);
  CHECK(new_text_numbers("     3\ta\n     4\tb", grep) == NewTextNumbers::kVerbatim);
  CHECK(new_text_numbers("3:a\nb\n4:c", grep) == NewTextNumbers::kRefuse);
  CHECK(new_text_numbers("x\n4:b", grep) == NewTextNumbers::kRefuse);
  CHECK(new_text_numbers("4:a\n5:b", grep) == NewTextNumbers::kRefuse);
  CHECK(new_text_numbers("", grep) == NewTextNumbers::kVerbatim);
}

// --- grep -n: the colon alone is the prefix; indentation after it is the line's.

TEST_CASE("python: grep -n output keeps every column of indentation") {
  const std::string file = "def f(y):\n    x = 1\n    y = 2\n    return x\n";
  CHECK(edited_through_numbers(file, "2:    x = 1\n3:    y = 2",
                               "2:    x = 1\n3:    if y:\n4:        y = 3") ==
        "def f(y):\n    x = 1\n    if y:\n        y = 3\n    return x\n");
  CHECK(edited_through_numbers(file, "2:    x = 1\n3:    y = 2", "    x = 1\n    y = 5") ==
        "def f(y):\n    x = 1\n    y = 5\n    return x\n");
}

TEST_CASE("go: grep -n output of tab-indented lines keeps the tabs") {
  const std::string file = "func f() {\n\tif ok {\n\t\trun()\n\t}\n}\n";
  CHECK(edited_through_numbers(file, "2:\tif ok {\n3:\t\trun()\n4:\t}",
                               "2:\tif ok {\n3:\t\trun()\n4:\t\tlog()\n5:\t}") ==
        "func f() {\n\tif ok {\n\t\trun()\n\t\tlog()\n\t}\n}\n");
}

TEST_CASE("a view that wrote \"N: \" leaves a space the indentation tier forgives") {
  CHECK(edited_through_numbers("a();\nb();\nc();\n", "2: b();\n3: c();", "2: b();\n3: C();") ==
        "a();\nb();\nC();\n");
}

// --- cat -n and the arrow: a right-aligned number, then a tab or an arrow.

TEST_CASE("rust: cat -n output, padded to six columns, strips up to its tab") {
  const std::string file = "fn main() {\n    let a = 1;\n    let b = 2;\n}\n";
  CHECK(edited_through_numbers(file, "     2\t    let a = 1;\n     3\t    let b = 2;",
                               "     2\t    let a = 1;\n     3\t    let b = a + 1;") ==
        "fn main() {\n    let a = 1;\n    let b = a + 1;\n}\n");
}

TEST_CASE("typescript: Claude Code's arrow view, with numbers crossing a digit") {
  std::string file;
  for (int i = 1; i <= 8; ++i) file += "// line " + std::to_string(i) + "\n";
  file += "export function f() {\n  return 1;\n}\n";
  CHECK(edited_through_numbers(file,
                               "     9\xE2\x86\x92"
                               "export function f() {\n    10\xE2\x86\x92  return 1;",
                               "     9\xE2\x86\x92"
                               "export function f() {\n    10\xE2\x86\x92  return 2;") ==
        file.substr(0, file.find("  return 1;")) + "  return 2;\n}\n");
}

TEST_CASE("makefile: a cat -n view of a recipe keeps the recipe's tab") {
  const std::string file = "all: app\n\napp: main.o\n\tcc -o app main.o\n";
  CHECK(edited_through_numbers(file, "     3\tapp: main.o\n     4\t\tcc -o app main.o",
                               "app: main.o\n\tcc -o app main.o -lm") ==
        "all: app\n\napp: main.o\n\tcc -o app main.o -lm\n");
}

TEST_CASE("c: a numbered blank line is a blank line") {
  const std::string file = "int a;\n\nint b;\n";
  CHECK(edited_through_numbers(file, "     1\tint a;\n     2\t\n     3\tint b;",
                               "     1\tint a;\n     2\t\n     3\tlong b;") ==
        "int a;\n\nlong b;\n");
}

TEST_CASE("python: a numbered blank line whose tab was trimmed is still a blank line") {
  const std::string file = "def f():\n    a = 1\n\n    return a\n";
  CHECK(edited_through_numbers(
            file, "     1\tdef f():\n     2\t    a = 1\n     3\n     4\t    return a",
            "def f():\n    a = 2\n\n    return a") == "def f():\n    a = 2\n\n    return a\n");
  // newText numbered alike, its blank line trimmed too, is stripped.
  CHECK(edited_through_numbers(file, "     2\t    a = 1\n     3\n     4\t    return a",
                               "     2\t    a = 3\n     3\n     4\t    return a") ==
        "def f():\n    a = 3\n\n    return a\n");
  auto v = numbered_view("     9\ta\n    10\n    11\tb");
  REQUIRE(v);
  CHECK(v->separator == Separator::kTab);
  CHECK(strip_numbers("     9\ta\n    10\n    11\tb") == "a\n\nb");
  // Only bare numbers: a list of numbers, not a view; nor do they mix with
  // other views.
  CHECK_FALSE(numbered_view("1\n2\n3"));
  CHECK_FALSE(numbered_view("11:a\n12\n13:b"));
  CHECK_FALSE(numbered_view("  9\ta\n  10"));  // not right-aligned
  CHECK_FALSE(some_line_numbered("x\n42"));
}

// --- Times and keys that look like prefixes.

TEST_CASE("markdown: times in newText are written as they are") {
  const std::string file = "# Day\n\n- standup\n- lunch\n";
  CHECK(edited_through_numbers(file, "3:- standup\n4:- lunch",
                               "- 09:30 standup\n10:00 lunch\n11:00 review") ==
        "# Day\n\n- 09:30 standup\n10:00 lunch\n11:00 review\n");
  CHECK(edited_through_numbers(file, "3:- standup\n4:- lunch", "10:00 standup\n11:00 lunch") ==
        "# Day\n\n10:00 standup\n11:00 lunch\n");
}

TEST_CASE("yaml: status-code keys in newText are written as they are") {
  const std::string file = "responses:\n  default:\n    description: error\n";
  CHECK(edited_through_numbers(file, "2:  default:\n3:    description: error",
                               "  200:\n    description: ok\n  default:\n    description: error") ==
        "responses:\n  200:\n    description: ok\n  default:\n    description: error\n");
}

TEST_CASE("json: an oldText of times that is not in the file never matches inside a line") {
  const std::string file = "{\n  \"at\": \"00 standup\",\n  \"then\": \"00 lunch\"\n}\n";
  miss_hint(file, "10:00 standup", "10:30 standup");
  miss_hint(file, "10:00 standup\",\n11:  \"then\": \"00 lunch\"", "x");
}

TEST_CASE("newText numbered only in part, or from another line, is refused with a hint") {
  const std::string file = "a();\nb();\nc();\n";
  CHECK(miss_hint(file, "2:b();\n3:c();", "x();\n3:c();").find("only on some") !=
        std::string::npos);
  CHECK(miss_hint(file, "2:b();\n3:c();", "3:b();\n4:C();").find("only on some") !=
        std::string::npos);
  CHECK(miss_hint(file, "     2\tb();\n     3\tc();", "     2\tb();\nd();").find("only on some") !=
        std::string::npos);
}
