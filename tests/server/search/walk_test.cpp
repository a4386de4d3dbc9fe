// The pure parts of search's walk: the walk's order, globs, the text check,
// and the ignore prefilter's reading of rules.
#include <doctest/doctest.h>

#include "server/search/walk.h"

using namespace editd::search;

TEST_CASE("walk order: component by component, a directory's contents before a longer sibling") {
  CHECK(path_less("a/z", "a-b"));  // '/' ends "a", which sorts before "a-b"
  CHECK(path_less("a", "a/b"));
  CHECK_FALSE(path_less("a/b", "a"));
  CHECK(path_less("a/b", "b"));
  CHECK_FALSE(path_less("x", "x"));
}

TEST_CASE("globs: a name without '/', the path from the root with one") {
  CHECK(glob_matches("*.cpp", "src/a.cpp"));
  CHECK_FALSE(glob_matches("*.cpp", "src/a.h"));
  CHECK(glob_matches("src/*", "src/a/b.cpp"));
  CHECK(glob_matches("/src/*.h", "src/a.h"));
  CHECK_FALSE(glob_matches("src/*", "lib/src.h"));
}

TEST_CASE("text: UTF-8 without NUL; a sequence cut at a prefix's end is allowed") {
  CHECK(is_text("plain ascii text, long enough for words\n"));
  CHECK(is_text("caf\xc3\xa9 \xe2\x82\xac"));
  CHECK_FALSE(is_text(std::string_view("a\0b", 3)));
  CHECK_FALSE(is_text("caf\xe9"));
  CHECK_FALSE(is_text("\xed\xa0\x80"));  // a surrogate
  CHECK_FALSE(is_text("\xc3"));
  CHECK(is_text("\xc3", true));
}

TEST_CASE("ignore prefilter: the last component of each rule that can make a file ignored") {
  std::vector<std::string> leaves;
  file_rule_leaves("# comment\n*.log\nbuild/\n!keep.log\n/docs/*.md\nfoo/**\n\\#x\n\nlast \r\n",
                   leaves);
  CHECK(leaves == std::vector<std::string>{"*.log", "*.md", "**", "*", "last"});
}
