#include "edit/match/carry.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

using namespace editd;
using carry::carry_line;

namespace {

struct Carried {
  const char* name;
  std::string file, old_line, new_line;
  std::optional<std::string> result;
};

// The file's line, oldText's line (which folds like it) and newText's line
// (re-indented already): what carry_line() writes.
const std::vector<Carried> kCarried = {
    {"a Python string keeps its curly apostrophe when the model appends a word",
     "msg = 'It\u2019s here'", "msg = 'It's here'", "msg = 'It's over here'",
     "msg = 'It\u2019s over here'"},
    {"a Python f-string keeps its curly apostrophe around a changed name",
     "print(f\"{name}\u2019s turn\")", "print(f\"{name}'s turn\")", "print(f\"{player}'s turn\")",
     "print(f\"{player}\u2019s turn\")"},
    {"a shell flag keeps its hyphen where the model wrote an en dash",
     "curl -s -X POST https://example.test/api", "curl \u2013s -X POST https://example.test/api",
     "curl \u2013s -X PUT https://example.test/api", "curl -s -X PUT https://example.test/api"},
    {"a range keeps its en dashes when one bound changes", "See pages 10\u201320 and 30\u201340.",
     "See pages 10-20 and 30-40.", "See pages 10-25 and 30-40.",
     "See pages 10\u201325 and 30\u201340."},
    {"a JSON key keeps its curly quotes when its value changes",
     "  \u201cname\u201d: \u201ceditd\u201d,", "\"name\": \"editd\",", "  \"name\": \"editd2\",",
     "  \u201cname\u201d: \u201ceditd2\u201d,"},
    {"two changes in one line keep the file's quotes between them",
     "print(\u201chi\u201d, \u201cthere\u201d)", "print(\"hi\", \"there\")",
     "print(\"hello\", \"world\")", "print(\u201chello\u201d, \u201cworld\u201d)"},
    {"Markdown prose keeps its ellipsis when a later word changes", "Wait\u2026 then go",
     "Wait... then go", "Wait... then run", "Wait\u2026 then run"},
    {"Markdown keeps its no-break space when text is appended", "10\u00a0km away", "10 km away",
     "10 km further away", "10\u00a0km further away"},
    {"a change inside a folded ellipsis rewrites the whole ellipsis", "Loading\u2026", "Loading...",
     "Loading..", "Loading.."},
    {"a change at the edge of an ellipsis keeps the ellipsis", "Loading\u2026 done",
     "Loading... done", "Loading...done", "Loading\u2026done"},
    {"the model's characters inside an ellipsis that fold like the file's keep the file's",
     "Loading\u2026 done", "Loading... done", "Loading..\u200b. done", "Loading\u2026 done"},
    {"the model's retyped typography is written where it changed", "Loading... done",
     "Loading\u2026 done", "Loading\u2026 finished", "Loading... finished"},
    {"a deliberate change of quotes is the model's", "x = \"a\" \u2013 1", "x = \"a\" - 1",
     "x = \u2018a\u2019 - 1", "x = \u2018a\u2019 \u2013 1"},
    {"a zero-width space of the file stays where the model did not touch",
     "say(\u201cok\u201d)\u200b; // note", "say(\"ok\"); // note", "say(\"ok\"); // a note",
     "say(\u201cok\u201d)\u200b; // a note"},
    {"a U+FEFF the model writes is dropped", "x = \u201ca\u201d;", "x = \"a\";",
     "\ufeffx = \"b\";\ufeff", "x = \u201cb\u201d;"},
    {"the new line's indentation and trailing blanks are the caller's",
     "\tif x \u2013 y:", "if x - y:", "        if x - z:  ", "        if x \u2013 z:  "},
    {"no-break spaces around the content stay where the model kept oldText's blanks",
     "\u00a0\u00a0x = \u201ca\u201d\u00a0", "  x = \"a\" ", "  x = \"b\" ",
     "\u00a0\u00a0x = \u201cb\u201d\u00a0"},
    {"blanks the model changed are the model's", "\u00a0\u00a0x = \u201ca\u201d", "  x = \"a\"",
     "    x = \"b\"", "    x = \u201cb\u201d"},
    {"a tab where the model wrote spaces is not a fold: the model's blanks", "\tx = \u201ca\u201d",
     "    x = \"a\"", "    x = \"b\"", "    x = \u201cb\u201d"},
    {"an emptied line is the new line", "  \u201cx\u201d", "\"x\"", "", ""},
    {"a line that does not fold like oldText's is refused", "x = \u201ca\u201d", "x = \"b\"",
     "x = \"c\"", std::nullopt},
};

}  // namespace

TEST_CASE("carry_line makes the model's change on the file's characters") {
  for (const Carried& c : kCarried) {
    CAPTURE(c.name);
    CHECK(carry_line(c.file, c.old_line, c.new_line) == c.result);
  }
}

TEST_CASE("carry_lines pairs lines one for one, or by likeness when counts differ") {
  const carry::Lines file = {"a = \u201cone\u201d", "b = \u201ctwo\u201d"};
  const carry::Lines old_lines = {"a = \"one\"", "b = \"two\""};
  CHECK(carry::carry_lines(file, old_lines, {"a = \"uno\"", "b = \"dos\""}) ==
        std::vector<std::string>{"a = \u201cuno\u201d", "b = \u201cdos\u201d"});
  // A line added between two changed ones is the model's; the others keep the file's quotes.
  CHECK(carry::carry_lines(file, old_lines, {"a = \"one!\"", "c = \"new\"", "b = \"two!\""}) ==
        std::vector<std::string>{"a = \u201cone!\u201d", "c = \"new\"", "b = \u201ctwo!\u201d"});
  // A line unlike every old one is written as the model wrote it.
  CHECK(carry::carry_lines({"x = \u201cv\u201d"}, {"x = \"v\""}, {"return 0", "// done"}) ==
        std::vector<std::string>{"return 0", "// done"});
}

TEST_CASE("diff_chars finds the changed stretches on code point boundaries") {
  using C = carry::CharChange;
  auto same = [](const std::vector<C>& a, const std::vector<C>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].a_begin != b[i].a_begin || a[i].a_end != b[i].a_end ||
          a[i].b_begin != b[i].b_begin || a[i].b_end != b[i].b_end)
        return false;
    return true;
  };
  CHECK(carry::diff_chars("same", "same").empty());
  CHECK(same(carry::diff_chars("abc", "abXc"), {{2, 2, 2, 3}}));
  CHECK(same(carry::diff_chars("f(a, b)", "f(x, y)"), {{2, 3, 2, 3}, {5, 6, 5, 6}}));
  // A shared letter inside a rewritten word does not split the change.
  CHECK(same(carry::diff_chars("there", "world"), {{0, 5, 0, 5}}));
  // "é" is two bytes: changes never split it.
  CHECK(same(carry::diff_chars("caf\u00e9", "cafe"), {{3, 5, 3, 4}}));
}

TEST_CASE("a U+FEFF in newText is kept only where oldText has one in a kept stretch") {
  CHECK(carry::keep_matched_feff("import os", "\ufeffimport sys") == "import sys");
  CHECK(carry::keep_matched_feff("a\nb", "a\n\ufeffb\nc\ufeff") == "a\nb\nc");
  CHECK(carry::keep_matched_feff("s = '\ufeff' + x", "s = '\ufeff' + y") == "s = '\ufeff' + y");
  CHECK(carry::keep_matched_feff("\ufeffa = 1\nb = 2", "\ufeffa = 1\nb = 3") ==
        "\ufeffa = 1\nb = 3");
  CHECK(carry::keep_matched_feff("a\ufeffb", "a\ufeffb c\ufeff") == "a\ufeffb c");
  CHECK(carry::without_feff("\ufeffa\ufeffb\ufeff") == "ab");
}
