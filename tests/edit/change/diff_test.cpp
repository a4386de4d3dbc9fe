#include "edit/change/diff.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/unified_diff.h"
#include "edit/text/fingerprint.h"
#include "edit/text/text.h"

using namespace editd;

TEST_CASE("equal texts have an empty diff") {
  auto d = diff::unified_texts("a\nb\n", "a\nb\n", "a/x", "b/x");
  CHECK(d.text.empty());
  CHECK(d.added == 0);
  CHECK(d.removed == 0);
}

TEST_CASE("a one-line change has three lines of context and GNU hunk ranges") {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
  auto d = diff::unified_texts(before, after, "a/f.txt", "b/f.txt");
  CHECK(d.text == "--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
}

TEST_CASE("distant changes make separate hunks and near ones merge") {
  std::string before, after;
  for (int i = 1; i <= 30; ++i) {
    before += std::to_string(i) + "\n";
    after += (i == 2 || i == 25 ? "x" : std::to_string(i)) + "\n";
  }
  auto d = diff::unified_texts(before, after, "a", "b");
  CHECK(d.text.find("@@ -1,5 +1,5 @@") != std::string::npos);
  CHECK(d.text.find("@@ -22,7 +22,7 @@") != std::string::npos);
}

TEST_CASE("a missing final newline is marked") {
  auto d = diff::unified_texts("a\nb", "a\nb\n", "a/f", "b/f");
  CHECK(d.text == "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

TEST_CASE("creating a file diffs against an empty range") {
  auto d = diff::unified_texts("", "x\ny\n", "/dev/null", "b/n");
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
  auto d = diff::unified_texts(before, after, "a", "b");
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

TEST_CASE("the fingerprint of pieces is the fingerprint of their concatenation") {
  // Lengths around XXH3's stripes and blocks (64, 1024 bytes) and its 240-byte
  // short-input path.
  std::string whole;
  for (int i = 0; i < 5000; ++i) whole.push_back(static_cast<char>('a' + (i * 7919) % 26));
  for (std::size_t cut1 : {0, 1, 63, 64, 239, 240, 241, 1023, 1024, 2500})
    for (std::size_t cut2 : {cut1, cut1 + 1, cut1 + 200, std::size_t{4999}, std::size_t{5000}}) {
      if (cut2 < cut1) continue;
      const std::string_view w = whole;
      const std::vector<std::string_view> pieces = {w.substr(0, cut1), w.substr(cut1, cut2 - cut1),
                                                    w.substr(cut2)};
      CHECK(fingerprint(pieces) == fingerprint(whole));
    }
  CHECK(fingerprint(std::vector<std::string_view>{}) == fingerprint(""));
  CHECK(fingerprint(std::vector<std::string_view>{"ab", "c"}) != fingerprint("ab"));
}

namespace {

// splitmix64, so that the random cases are the same on every platform.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

using Lines = std::vector<std::string_view>;

// Why `blocks` is not a valid edit script from a to b, or "" when it is.
std::string script_error(const Lines& a, const Lines& b, const std::vector<diff::Block>& blocks) {
  Lines applied;
  std::size_t x = 0, y = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const diff::Block& k = blocks[i];
    const std::string at = "block " + std::to_string(i) + ": ";
    if (k.a_begin > k.a_end || k.b_begin > k.b_end) return at + "reversed";
    if (k.a_begin == k.a_end && k.b_begin == k.b_end) return at + "empty";
    if (k.a_begin < x || k.b_begin < y) return at + "unsorted or overlapping";
    if (i > 0 && k.a_begin == x && k.b_begin == y) return at + "touches the previous block";
    if (k.a_end > a.size() || k.b_end > b.size()) return at + "out of range";
    if (k.a_begin - x != k.b_begin - y) return at + "unequal gap before it";
    for (std::size_t j = 0; j < k.a_begin - x; ++j) {
      if (a[x + j] != b[y + j]) return at + "unequal lines before it";
    }
    applied.insert(applied.end(), a.begin() + x, a.begin() + k.a_begin);
    applied.insert(applied.end(), b.begin() + k.b_begin, b.begin() + k.b_end);
    x = k.a_end;
    y = k.b_end;
  }
  applied.insert(applied.end(), a.begin() + x, a.end());
  if (applied != b) return "applying the blocks to a does not give b";
  return "";
}

std::size_t changed_lines(const std::vector<diff::Block>& blocks) {
  std::size_t n = 0;
  for (const diff::Block& k : blocks) n += (k.a_end - k.a_begin) + (k.b_end - k.b_begin);
  return n;
}

// Lines removed plus lines added by a shortest script: |a| + |b| - 2 * LCS.
std::size_t min_changed_lines(const Lines& a, const Lines& b) {
  std::vector<std::size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    }
    std::swap(prev, cur);
  }
  return a.size() + b.size() - 2 * prev[b.size()];
}

// Random lines over the first `alphabet` letters.
Lines random_lines(SplitMix64& rng, std::size_t count, std::size_t alphabet) {
  static constexpr std::string_view kLetters[] = {"a", "b", "c", "d", "e", "f"};
  Lines lines;
  for (std::size_t i = 0; i < count; ++i) lines.push_back(kLetters[rng.below(alphabet)]);
  return lines;
}

// `a` after a few random deletions, insertions and replacements.
Lines mutate(SplitMix64& rng, const Lines& a, std::size_t alphabet) {
  Lines b = a;
  const std::size_t edits = rng.below(5);
  for (std::size_t e = 0; e < edits; ++e) {
    const std::size_t op = rng.below(3);
    if (op == 0 && !b.empty()) {
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size())));
    } else {
      Lines one = random_lines(rng, 1, alphabet);
      if (op == 1 || b.empty()) {
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(rng.below(b.size() + 1)), one[0]);
      } else {
        b[rng.below(b.size())] = one[0];
      }
    }
  }
  return b;
}

// Backing storage for generated string_view lines.
struct OwnedLines {
  std::vector<std::string> text;
  Lines lines() const { return Lines(text.begin(), text.end()); }
};

}  // namespace

TEST_CASE("diff_lines gives a valid, minimal script for thousands of random small pairs") {
  SplitMix64 rng{20240611};
  for (int round = 0; round < 6000; ++round) {
    const std::size_t alphabet = 1 + rng.below(4);
    const std::size_t max_len = round % 4 == 0 ? 60 : 14;
    Lines a = random_lines(rng, rng.below(max_len + 1), alphabet);
    Lines b = round % 2 == 0 ? random_lines(rng, rng.below(max_len + 1), alphabet)
                             : mutate(rng, a, alphabet);
    std::vector<diff::Block> blocks = diff::diff_lines(a, b);
    INFO("round " << round << ": |a| = " << a.size() << ", |b| = " << b.size());
    REQUIRE(script_error(a, b, blocks) == "");
    REQUIRE(changed_lines(blocks) == min_changed_lines(a, b));
  }
}

TEST_CASE("a large file with scattered edits gets a minimal diff") {
  OwnedLines before, after;
  SplitMix64 rng{7};
  std::size_t replaced = 0;
  for (int i = 0; i < 100000; ++i) {
    before.text.push_back("line " + std::to_string(i));
    if (rng.below(1000) == 0) {
      after.text.push_back("edited " + std::to_string(i));
      ++replaced;
    } else {
      after.text.push_back(before.text.back());
    }
  }
  REQUIRE(replaced > 10);
  Lines a = before.lines(), b = after.lines();
  std::vector<diff::Block> blocks = diff::diff_lines(a, b);
  CHECK(script_error(a, b, blocks) == "");
  CHECK(changed_lines(blocks) == 2 * replaced);
  CHECK(blocks.size() == replaced);
}

TEST_CASE("diff_lines completes on a hundred thousand different lines and on many repeated lines") {
  SUBCASE("every line differs") {
    OwnedLines before, after;
    for (int i = 0; i < 100000; ++i) {
      before.text.push_back("old " + std::to_string(i));
      after.text.push_back("new " + std::to_string(i));
    }
    Lines a = before.lines(), b = after.lines();
    std::vector<diff::Block> blocks = diff::diff_lines(a, b);
    CHECK(script_error(a, b, blocks) == "");
    CHECK(changed_lines(blocks) == 200000);
  }
  SUBCASE("a few distinct lines repeat in different periods") {
    OwnedLines before, after;
    for (int i = 0; i < 100000; ++i) {
      before.text.push_back(std::string(1, static_cast<char>('a' + i % 7)));
      after.text.push_back(std::string(1, static_cast<char>('a' + i % 5)));
    }
    Lines a = before.lines(), b = after.lines();
    CHECK(script_error(a, b, diff::diff_lines(a, b)) == "");
  }
}

TEST_CASE("past the work budget the script is coarse but still valid") {
  // b inserts a new line before each line of a: the shortest script has n
  // one-line blocks, and its search needs about n * n / 2 steps. Near 8,000 the
  // budget runs out partway through the halves; at 50,000 before the first split.
  for (int n : {8000, 9000, 50000}) {
    OwnedLines before, after;
    for (int i = 0; i < n; ++i) {
      before.text.push_back("kept " + std::to_string(i));
      after.text.push_back("inserted " + std::to_string(i));
      after.text.push_back(before.text.back());
    }
    Lines a = before.lines(), b = after.lines();
    std::vector<diff::Block> blocks = diff::diff_lines(a, b);
    INFO("n = " << n << ", blocks: " << blocks.size());
    CHECK(script_error(a, b, blocks) == "");
    CHECK(changed_lines(blocks) >= static_cast<std::size_t>(n));
    if (n == 50000) CHECK(changed_lines(blocks) > static_cast<std::size_t>(n));
  }
}

TEST_CASE("diff_hashes finds the same script over hashes as diff_lines over the lines") {
  std::vector<std::string_view> a{"}", "x", "}", "", "y", "}"};
  std::vector<std::string_view> b{"}", "", "}", "x", "}", "", "y", "}", "z"};
  std::vector<std::uint64_t> ha{1, 2, 1, 3, 4, 1}, hb{1, 3, 1, 2, 1, 3, 4, 1, 5};
  auto lines = diff::diff_lines(a, b);
  auto hashes = diff::diff_hashes(ha, hb);
  REQUIRE(lines.size() == hashes.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].a_begin == hashes[i].a_begin);
    CHECK(lines[i].a_end == hashes[i].a_end);
    CHECK(lines[i].b_begin == hashes[i].b_begin);
    CHECK(lines[i].b_end == hashes[i].b_end);
  }
  CHECK(diff::diff_hashes(ha, ha).empty());
}
