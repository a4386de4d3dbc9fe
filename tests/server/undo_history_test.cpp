// The undo history's bytes before: kept in memory when small, in an unlinked
// file when the caller copied them there (spill()), read back whole either way.
#include "server/undo_history.h"

#include <doctest/doctest.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "support/proc.h"
#include "support/process.h"

using namespace editd;
using editd::test::TempDir;
using editd::test::unlinked_files_in;

namespace {

UndoSpill spill_to(const TempDir& tmp, std::uint64_t min_bytes) {
  auto dir = std::make_shared<RuntimeDir>();
  REQUIRE(RuntimeDir::open((tmp.path() / "state").string(), *dir) == 0);
  UndoSpill spill;
  spill.dir = std::move(dir);
  spill.min_bytes = min_bytes;
  return spill;
}

std::vector<UndoFile> one(const std::string& name, std::optional<std::string> before,
                          Fd spilled = Fd()) {
  std::vector<UndoFile> files(1);
  files[0].canonical = "/w/" + name;
  files[0].shown = name;
  files[0].before = std::move(before);
  files[0].spilled = std::move(spilled);
  files[0].after_fingerprint = "after-" + name;
  return files;
}

std::string bytes_of(std::size_t n) {
  std::string s = "\xEF\xBB\xBF";
  for (std::size_t i = 0; s.size() < n; ++i)
    s += "line " + std::to_string(i) + (i % 2 ? "\r\n" : "\n");
  s.resize(n);
  return s;
}

}  // namespace

TEST_CASE("spills() says which bytes before go to a file") {
  TempDir tmp;
  UndoHistory history(10, 1000, spill_to(tmp, 100));
  CHECK_FALSE(history.spills(99));
  CHECK(history.spills(100));
  CHECK(history.spills(1000));
  CHECK_FALSE(history.spills(1001));  // over the byte bound: not kept at all
  CHECK_FALSE(UndoHistory(0, 1000, spill_to(tmp, 100)).spills(500));  // no history
  CHECK_FALSE(UndoHistory(10, 1000).spills(500));                     // nowhere to spill
  CHECK_FALSE(UndoHistory(10, 1000).spill("abc").valid());
}

TEST_CASE("a spilled copy is kept instead of the bytes, unnamed, and read back the same") {
  TempDir tmp;
  UndoSpill spill = spill_to(tmp, 1000);
  const std::string dir = spill.dir->path();
  UndoHistory history(2, 1 << 20, spill);
  const std::string big = bytes_of(300000) + std::string(1, '\0') + "tail";
  Fd file = history.spill(big);
  REQUIRE(file.valid());
  CHECK(unlinked_files_in(::getpid(), dir) == 1);
  CHECK(std::filesystem::is_empty(dir));  // no name for it in the directory
  auto id = history.record("local", one("big.txt", big, std::move(file)));
  REQUIRE(id);
  auto entry = history.find(*id);
  REQUIRE(entry);
  const KeptBytes& kept = *entry->files[0].before;
  CHECK(kept.spilled());
  CHECK(kept.size() == big.size());
  CHECK(kept.load().value() == big);
  CHECK(entry->files[0].after_fingerprint == "after-big.txt");
  // Bytes without a copy stay in memory, large or not.
  auto small = history.record("local", one("small.txt", bytes_of(5000)));
  REQUIRE(small);
  CHECK_FALSE(history.find(*small)->files[0].before->spilled());
  CHECK(history.find(*small)->files[0].before->load().value() == bytes_of(5000));
  CHECK(unlinked_files_in(::getpid(), dir) == 1);
  // A created file keeps nothing before.
  auto made = history.record("local", one("new.txt", std::nullopt));
  REQUIRE(made);
  CHECK(history.find(*made)->files[0].before == nullptr);
  // The entry evicted (two entries at most) closes its file once unused.
  CHECK(history.find(*id) == nullptr);
  CHECK(unlinked_files_in(::getpid(), dir) == 1);  // `entry` still holds it
  entry.reset();
  CHECK(unlinked_files_in(::getpid(), dir) == 0);
}

TEST_CASE("a copy of a change the history does not keep is closed") {
  TempDir tmp;
  UndoSpill spill = spill_to(tmp, 10);
  const std::string dir = spill.dir->path();
  UndoHistory history(5, 100, spill);
  Fd file = history.spill(bytes_of(50));
  REQUIRE(file.valid());
  // Unchanged (before and after the same): nothing kept.
  auto same = one("a.txt", "same", std::move(file));
  same[0].after_fingerprint = std::nullopt;
  same[0].before = std::nullopt;
  CHECK_FALSE(history.record("local", std::move(same)));
  CHECK(unlinked_files_in(::getpid(), dir) == 0);
  // Over the byte bound: nothing kept.
  CHECK_FALSE(history.record("local", one("b.txt", bytes_of(200), history.spill(bytes_of(200)))));
  CHECK(unlinked_files_in(::getpid(), dir) == 0);
}

TEST_CASE("the spill directory is refused on a tmpfs, where the copies would be memory") {
  namespace fs = std::filesystem;
  auto on_tmpfs = [](const fs::path& p) {
    struct statfs s;
    return ::statfs(p.c_str(), &s) == 0 &&
           (s.f_type == TMPFS_MAGIC || s.f_type == static_cast<decltype(s.f_type)>(RAMFS_MAGIC));
  };
  std::string why;
  if (fs::is_directory("/dev/shm") && on_tmpfs("/dev/shm")) {
    const fs::path shm = fs::path("/dev/shm") / ("editd-test-" + std::to_string(::getpid()));
    UndoSpill spill = UndoSpill::at(shm.string(), why);
    CHECK(spill.dir == nullptr);
    CHECK(why.find("tmpfs") != std::string::npos);
    fs::remove(shm);
  } else {
    MESSAGE("no tmpfs at /dev/shm: that half is not tested here");
  }
  TempDir tmp;
  why.clear();
  UndoSpill disk = UndoSpill::at((tmp.path() / "state").string(), why);
  if (on_tmpfs(tmp.path())) {
    CHECK(disk.dir == nullptr);
  } else {
    CHECK(disk.dir != nullptr);
    CHECK(why.empty());
  }
  // Not a directory of this user's alone: refused, with the reason.
  std::filesystem::create_directories(tmp.path() / "open");
  std::filesystem::permissions(tmp.path() / "open", std::filesystem::perms::all);
  why.clear();
  CHECK(UndoSpill::at((tmp.path() / "open").string(), why).dir == nullptr);
  CHECK_FALSE(why.empty());
}
