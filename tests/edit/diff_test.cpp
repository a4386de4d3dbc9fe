#include "edit/diff.h"

#include <doctest/doctest.h>

#include <string>

#include "edit/fingerprint.h"
#include "edit/text.h"

using namespace editd;

TEST_CASE("equal texts have an empty diff") {
  auto d = diff::unified("a\nb\n", "a\nb\n", "a/x", "b/x");
  CHECK(d.text.empty());
  CHECK(d.added == 0);
  CHECK(d.removed == 0);
}

TEST_CASE("a one-line change has three lines of context and GNU hunk ranges") {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
  auto d = diff::unified(before, after, "a/f.txt", "b/f.txt");
  CHECK(d.text ==
        "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
}

TEST_CASE("distant changes make separate hunks and near ones merge") {
  std::string before, after;
  for (int i = 1; i <= 30; ++i) {
    before += std::to_string(i) + "\n";
    after += (i == 2 || i == 25 ? "x" : std::to_string(i)) + "\n";
  }
  auto d = diff::unified(before, after, "a", "b");
  CHECK(d.text.find("@@ -1,5 +1,5 @@") != std::string::npos);
  CHECK(d.text.find("@@ -22,7 +22,7 @@") != std::string::npos);
}

TEST_CASE("a missing final newline is marked") {
  auto d = diff::unified("a\nb", "a\nb\n", "a/f", "b/f");
  CHECK(d.text == "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST_CASE("creating a file diffs against an empty range") {
  auto d = diff::unified("", "x\ny\n", "/dev/null", "b/n");
  CHECK(d.text == "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  CHECK(d.added == 2);
}

TEST_CASE("diff_lines finds a minimal script between reordered lines") {
  std::vector<std::string_view> a{"a", "b", "c", "d", "e"};
  std::vector<std::string_view> b{"a", "c", "d", "x", "e"};
  auto blocks = diff::diff_lines(a, b);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].a_begin == 1);
  CHECK(blocks[0].a_end == 2);
  CHECK(blocks[0].b_begin == blocks[0].b_end);
  CHECK(blocks[1].a_begin == blocks[1].a_end);
  CHECK(blocks[1].b_begin == 3);
  CHECK(blocks[1].b_end == 4);
}

TEST_CASE("diffs of large, totally different texts stay bounded and correct") {
  std::string before, after;
  for (int i = 0; i < 20000; ++i) {
    before += "old " + std::to_string(i) + "\n";
    after += "new " + std::to_string(i * 7) + "\n";
  }
  auto d = diff::unified(before, after, "a", "b");
  CHECK(d.added == 20000);
  CHECK(d.removed == 20000);
}

TEST_CASE("fingerprints are stable, prefixed and sensitive to every byte") {
  CHECK(fingerprint("") == fingerprint(""));
  CHECK(fingerprint("abc").rfind("xxh3:", 0) == 0);
  CHECK(fingerprint("abc").size() == 21);
  CHECK(fingerprint("a\n") != fingerprint("a\r\n"));
  // XXH3-64 of the empty input is a published constant.
  CHECK(fingerprint("") == "xxh3:2d06800538d394c2");
}
