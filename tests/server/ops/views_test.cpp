#include "server/ops/views.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace editd;

namespace {

std::shared_ptr<const hashline::Snapshot> lines(int n, const std::string& tag) {
  std::string text;
  for (int i = 0; i < n; ++i) text += tag + std::to_string(i) + "\n";
  return std::make_shared<const hashline::Snapshot>(hashline::snapshot(text));
}

}  // namespace

TEST_CASE("views: a connection finds its own views of a file, newest first, lines merged") {
  Views views(1 << 20);
  const std::uint64_t a = views.open_reader(), b = views.open_reader();
  CHECK(a != b);
  views.remember({a, "local", "/f"}, "v1", {1, 5}, lines(10, "x"));
  views.remember({a, "local", "/f"}, "v2", {1, 10}, lines(10, "y"));
  CHECK(views.add_lines({a, "local", "/f"}, "v1", {7, 8}));
  CHECK(views.add_lines({a, "local", "/f"}, "v1", {6, 6}));
  CHECK_FALSE(views.add_lines({a, "local", "/f"}, "v3", {1, 1}));
  auto found = views.find({a, "local", "/f"});
  REQUIRE(found.size() == 2);
  CHECK(found[0].fingerprint == "v1");  // read last
  REQUIRE(found[0].shown.size() == 1);
  CHECK(found[0].shown[0].start_line == 1);
  CHECK(found[0].shown[0].end_line == 8);
  CHECK(views.find({b, "local", "/f"}).empty());
  CHECK(views.find({a, "delegated:x", "/f"}).empty());
  CHECK(views.find({a, "local", "/g"}).empty());
  views.close_reader(a);
  CHECK(views.find({a, "local", "/f"}).empty());
  CHECK(views.bytes() == 0);
}

TEST_CASE("views: one budget for all connections, least recently used first") {
  // A view's cost: its lines, its range, its keys ("local", "/1", "v") and its nodes.
  const std::size_t one = lines(100, "x")->bytes() + Views::kEntryOverhead +
                          sizeof(hashline::LineRange) + std::string("local/1v").size();
  Views views(2 * one + 10);
  const std::uint64_t a = views.open_reader(), b = views.open_reader();
  views.remember({a, "local", "/1"}, "v", {1, 100}, lines(100, "x"));
  views.remember({b, "local", "/2"}, "v", {1, 100}, lines(100, "y"));
  CHECK(views.add_lines({a, "local", "/1"}, "v", {1, 1}));  // /1 is now the most recent
  views.remember({b, "local", "/3"}, "v", {1, 100}, lines(100, "z"));
  CHECK(views.find({a, "local", "/1"}).size() == 1);
  CHECK(views.find({b, "local", "/2"}).empty());
  CHECK(views.find({b, "local", "/3"}).size() == 1);
  CHECK(views.bytes() <= views.budget());
  // Larger than the whole budget: not kept.
  views.remember({a, "local", "/big"}, "v", {1, 1000}, lines(1000, "w"));
  CHECK(views.find({a, "local", "/big"}).empty());
  CHECK(views.find({a, "local", "/1"}).size() == 1);
}

TEST_CASE("views: a view keeps a bounded number of runs of lines, the most recent") {
  Views views(1 << 20);
  const std::uint64_t a = views.open_reader();
  const Views::Where where{a, "local", "/f"};
  views.remember(where, "v", {1, 1}, lines(1000, "x"));
  for (std::uint64_t l = 3; l < 3 + 2 * (Views::kRangesPerView + 10); l += 2)
    CHECK(views.add_lines(where, "v", {l, l}));
  auto found = views.find(where);
  REQUIRE(found.size() == 1);
  const auto& shown = found[0].shown;
  CHECK(shown.size() == Views::kRangesPerView);
  for (const hashline::LineRange& r : shown) CHECK(r.start_line == r.end_line);
  CHECK(shown.back().start_line == 1 + 2 * (Views::kRangesPerView + 10));
  CHECK(shown.front().start_line > 1);  // the first read's line was forgotten, not widened
}

TEST_CASE("views: a connection keeps a bounded number of versions of one file") {
  Views views(1 << 20);
  const std::uint64_t a = views.open_reader();
  for (std::size_t i = 0; i < Views::kVersionsPerFile + 5; ++i)
    views.remember({a, "local", "/f"}, "v" + std::to_string(i), {1, 1}, lines(1, "x"));
  auto found = views.find({a, "local", "/f"});
  CHECK(found.size() == Views::kVersionsPerFile);
  CHECK(found.front().fingerprint == "v" + std::to_string(Views::kVersionsPerFile + 4));
}

TEST_CASE("views: connections on several threads share the store") {
  Views views(64 * 1024);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&views, t] {
      const std::uint64_t me = views.open_reader();
      for (int i = 0; i < 500; ++i) {
        const Views::Where where{me, "local", "/f" + std::to_string(i % 7)};
        if (!views.add_lines(where, "v" + std::to_string(i % 3), {1, 2}))
          views.remember(where, "v" + std::to_string(i % 3), {1, 2}, lines(20, "t"));
        for (const Views::Found& f : views.find(where)) CHECK(f.file->hashes.size() == 20);
      }
      if (t % 2 == 0) views.close_reader(me);
    });
  for (std::thread& t : threads) t.join();
  CHECK(views.bytes() <= views.budget());
}

TEST_CASE("views: a view's path and fingerprint count against the budget") {
  // Many one-line views under a long path: the keys, not the lines, are the bytes.
  const std::string dir = "/" + std::string(4000, 'd') + "/";
  const std::string fingerprint = "xxh3:0123456789abcdef";
  Views views(1 << 20);
  const std::uint64_t a = views.open_reader();
  const int files = 30000;
  for (int i = 0; i < files; ++i)
    views.remember({a, "local", dir + std::to_string(i)}, fingerprint, {1, 1}, lines(1, "x"));
  CHECK(views.bytes() <= views.budget());
  int kept = 0;
  for (int i = 0; i < files; ++i) kept += !views.find({a, "local", dir + std::to_string(i)}).empty();
  // Each view costs at least its path: at most budget / 4000 of them are kept,
  // the most recent.
  CHECK(kept > 0);
  CHECK(static_cast<std::size_t>(kept) <= views.budget() / dir.size());
  CHECK_FALSE(views.find({a, "local", dir + std::to_string(files - 1)}).empty());
  CHECK(views.find({a, "local", dir + "0"}).empty());
  views.close_reader(a);
  CHECK(views.bytes() == 0);
}
