#include "server/ops/known_fingerprints.h"

#include <doctest/doctest.h>

#include <string>

using namespace editd;

TEST_CASE("known fingerprints: a record is found, replaced and erased") {
  KnownFingerprints known;
  CHECK(known.find("/a") == nullptr);
  known.set("/a", "xxh3:1");
  REQUIRE(known.find("/a") != nullptr);
  CHECK(*known.find("/a") == "xxh3:1");
  known.set("/a", "xxh3:2");
  CHECK(*known.find("/a") == "xxh3:2");
  CHECK(known.size() == 1);
  known.erase("/a");
  CHECK(known.find("/a") == nullptr);
  CHECK(known.bytes() == 0);
  CHECK_FALSE(known.forgot());
}

TEST_CASE("known fingerprints: records count their paths, and the least recently used go") {
  // 20,000 files under a long path: bounded by bytes, not by files.
  const std::string dir = "/" + std::string(4000, 'p') + "/";
  KnownFingerprints known;
  CHECK(known.budget() == KnownFingerprints::kDefaultBudget);
  for (int i = 0; i < 20000; ++i) known.set(dir + std::to_string(i), "xxh3:0123456789abcdef");
  CHECK(known.bytes() <= known.budget());
  CHECK(known.size() <= known.budget() / dir.size());
  CHECK(known.size() > 0);
  CHECK(known.forgot());
  CHECK(known.find(dir + "19999") != nullptr);
  CHECK(known.find(dir + "0") == nullptr);
  // A lookup makes a record the most recent: it outlives those set before it.
  KnownFingerprints small(3 * (KnownFingerprints::kEntryOverhead + 4));
  small.set("/a", "f");
  small.set("/b", "f");
  small.set("/c", "f");
  CHECK(small.find("/a") != nullptr);
  small.set("/d", "f");
  CHECK(small.find("/a") != nullptr);
  CHECK(small.find("/b") == nullptr);
  CHECK(small.find("/c") != nullptr);
  CHECK(small.find("/d") != nullptr);
}
