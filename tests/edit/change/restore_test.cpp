#include "edit/change/restore.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "edit/text/text.h"

using namespace editd;
using restore::Restore;

namespace {

// `before` again from `after` and `restores`, or "<misfit>".
std::string undone(const std::string& after, const std::vector<Restore>& restores) {
  return restore::apply(after, restores).value_or("<misfit>");
}

}  // namespace

TEST_CASE("restores put the bytes before back, and refuse bytes they cannot fit") {
  // before: "head|one|mid|two|tail"; after: "head|ONE!|mid||tail+".
  const std::vector<Restore> restores = {{5, 4, "one"}, {14, 0, "two"}, {19, 1, ""}};
  CHECK(undone("head|ONE!|mid||tail+", restores) == "head|one|mid|two|tail");
  CHECK(restore::held_by(restores) == 3 * sizeof(Restore) + 6);
  CHECK(undone("anything", {}) == "anything");
  CHECK(undone("head", restores) == "<misfit>");                     // past the end
  CHECK(undone("abcde", {{3, 0, "x"}, {1, 0, "y"}}) == "<misfit>");  // out of order
  CHECK(undone("abcde", {{1, 3, "x"}, {2, 0, "y"}}) == "<misfit>");  // overlapping
  CHECK(undone("abcde", {{2, ~std::uint64_t(0), "x"}}) == "<misfit>");
}

TEST_CASE("of_splices undoes splice::plan's splices, after a BOM and with CRLF") {
  const std::string file =
      "\xEF\xBB\xBF"
      "one\r\ntwo\r\nthree\r\nfour\r\nfive";
  auto doc = text::Document::decode(file);
  REQUIRE(doc.has_value());
  text::Normalized norm(*doc);
  const std::string_view n = norm.view();  // "one\ntwo\nthree\nfour\nfive"
  const std::size_t two = n.find("two"), four = n.find("four");
  const std::vector<splice::Splice> splices = splice::plan(
      *doc, n, {{0, 0, "zero\n"}, {two, two + 4, ""}, {four, four + 4, "FOUR\nand more"}});
  const std::string after = splice::apply(*doc, splices).bytes;
  REQUIRE(after != file);
  auto restores = restore::of_splices(file, text::kBom.size(), splices, 1 << 20);
  REQUIRE(restores);
  CHECK(restores->size() == splices.size());
  CHECK(undone(after, *restores) == file);
  // More than `max_held`: none.
  CHECK_FALSE(restore::of_splices(file, text::kBom.size(), splices, sizeof(Restore)));
}

TEST_CASE("window is the one span between the common prefix and suffix") {
  CHECK_FALSE(restore::window("", ""));
  CHECK_FALSE(restore::window("same", "same"));
  auto check = [](const std::string& before, const std::string& after) {
    std::optional<Restore> r = restore::window(before, after);
    REQUIRE(r);
    CHECK(undone(after, {*r}) == before);
    return *r;
  };
  Restore r = check("head MID tail", "head mid, longer tail");
  CHECK(r.at == 5);
  CHECK(r.after_size == 11);
  CHECK(r.before == "MID");
  // A common prefix and suffix that would overlap: the suffix gives way.
  r = check("aaa", "aa");
  CHECK((r.at == 2 && r.after_size == 0 && r.before == "a"));
  r = check("aa", "aaa");
  CHECK((r.at == 2 && r.after_size == 1 && r.before.empty()));
  check("", "new");
  check("old", "");
  // Spans across the 4 KiB blocks compared at once, and at every offset near them.
  std::string big;
  for (int i = 0; big.size() < 50000; ++i) big += "row " + std::to_string(i % 97) + "\n";
  for (std::size_t at :
       {std::size_t(0), std::size_t(1), std::size_t(4095), std::size_t(4096), std::size_t(4097),
        std::size_t(20000), big.size() - 4096, big.size() - 1, big.size()}) {
    std::string grown = big, shrunk = big, changed = big;
    grown.insert(at, "new text");
    check(big, grown);
    check(grown, big);
    if (at < big.size()) {
      shrunk.erase(at, 1);
      changed[at] = '#';
      check(big, shrunk);
      check(shrunk, big);
      r = check(big, changed);
      CHECK((r.at == at && r.after_size == 1 && r.before.size() == 1));
    }
  }
}
