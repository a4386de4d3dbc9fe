// The undo history's bytes before: kept in memory when small, in an unlinked
// file when the caller copied them there (spill()), read back whole either way.
#include "server/ops/undo_history.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "edit/text/fingerprint.h"
#include "helpers/proc.h"
#include "helpers/process.h"

using namespace editd;
using editd::test::TempDir;
using editd::test::unlinked_files_in;
using restore::Restore;

namespace {

// A spill directory in `tmp`, wherever TMPDIR is (a tmpfs too: first_of()
// is tested on its own below).
UndoSpill spill_to(const TempDir& tmp, std::uint64_t min_bytes) {
  const std::string path = (tmp.path() / "state").string();
  std::filesystem::create_directories(path);
  UndoSpill spill;
  spill.dir = std::make_shared<const Fd>(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(spill.dir->valid());
  spill.where = path;
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
  const std::string dir = spill.where;
  UndoHistory history(2, 1 << 20, spill);
  const std::string big = bytes_of(300000) + std::string(1, '\0') + "tail";
  Fd file = history.spill(big);
  REQUIRE(file.valid());
  CHECK(unlinked_files_in(::getpid(), dir) == 1);
  CHECK(std::filesystem::is_empty(dir));  // no name for it in the directory
  auto id = history.record("", "local", one("big.txt", big, std::move(file)));
  REQUIRE(id);
  auto entry = history.find(*id);
  REQUIRE(entry);
  const KeptBytes& kept = *entry->files[0].before;
  CHECK(kept.spilled());
  CHECK(kept.size() == big.size());
  CHECK(kept.load().value() == big);
  CHECK(entry->files[0].after_fingerprint == "after-big.txt");
  // Bytes without a copy stay in memory, large or not.
  auto small = history.record("", "local", one("small.txt", bytes_of(5000)));
  REQUIRE(small);
  CHECK_FALSE(history.find(*small)->files[0].before->spilled());
  CHECK(history.find(*small)->files[0].before->load().value() == bytes_of(5000));
  CHECK(unlinked_files_in(::getpid(), dir) == 1);
  // A created file keeps nothing before.
  auto made = history.record("", "local", one("new.txt", std::nullopt));
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
  const std::string dir = spill.where;
  UndoHistory history(5, 100, spill);
  Fd file = history.spill(bytes_of(50));
  REQUIRE(file.valid());
  // Unchanged (before and after the same): nothing kept.
  auto same = one("a.txt", "same", std::move(file));
  same[0].after_fingerprint = std::nullopt;
  same[0].before = std::nullopt;
  CHECK_FALSE(history.record("", "local", std::move(same)));
  CHECK(unlinked_files_in(::getpid(), dir) == 0);
  // Over the byte bound: nothing kept.
  CHECK_FALSE(history.record("", "local", one("b.txt", bytes_of(200), history.spill(bytes_of(200)))));
  CHECK(unlinked_files_in(::getpid(), dir) == 0);
}

TEST_CASE("the spill directory is the first usable one not on a tmpfs") {
  namespace fs = std::filesystem;
  auto on_tmpfs = [](const fs::path& p) {
    struct statfs s;
    return ::statfs(p.c_str(), &s) == 0 &&
           (s.f_type == TMPFS_MAGIC || s.f_type == static_cast<decltype(s.f_type)>(RAMFS_MAGIC));
  };
  TempDir tmp;
  const fs::path disk = tmp.path() / "disk";
  fs::create_directories(disk);
  std::string why;
  // A missing directory is passed over, with the reason.
  UndoSpill spill = UndoSpill::first_of({(tmp.path() / "missing").string(), disk.string()}, why);
  if (on_tmpfs(disk)) {
    MESSAGE("TMPDIR is a tmpfs: only the refusals are tested here");
    CHECK(spill.dir == nullptr);
    CHECK(why.find("tmpfs") != std::string::npos);
  } else {
    REQUIRE(spill.dir != nullptr);
    CHECK(spill.where == disk.string());
    CHECK(why.find("missing") != std::string::npos);
    // Any directory serves (the files have no name): not only this user's alone.
    fs::permissions(disk, fs::perms::all);
    why.clear();
    CHECK(UndoSpill::first_of({disk.string()}, why).dir != nullptr);
  }
  if (fs::is_directory("/dev/shm") && on_tmpfs("/dev/shm")) {
    why.clear();
    CHECK(UndoSpill::first_of({"/dev/shm"}, why).dir == nullptr);
    CHECK(why.find("/dev/shm is on a tmpfs") != std::string::npos);
  } else {
    MESSAGE("no tmpfs at /dev/shm: the tmpfs refusal is not tested here");
  }
  why.clear();
  CHECK(UndoSpill::first_of({}, why).dir == nullptr);
}

TEST_CASE("restores put the bytes before back from the bytes after, and count as what they hold") {
  // before: "head|one|mid|two|tail"; after: "head|ONE!|mid||tail" plus a new end.
  const std::string before = "head|one|mid|two|tail";
  const std::string after = "head|ONE!|mid||tail+";
  std::vector<Restore> restores = {{5, 4, "one"}, {14, 0, "two"}, {19, 1, ""}};
  KeptBytes kept(restores, before.size(), fingerprint(before));
  CHECK_FALSE(kept.spilled());
  CHECK(kept.size() == before.size());
  CHECK(kept.held() == 3 * sizeof(Restore) + 6);
  CHECK(kept.load(after).value() == before);
  // Bytes after that the restores cannot have been taken from: an error, never other bytes.
  CHECK(kept.load("head").error().kind == ErrorKind::kIo);
  CHECK(kept.load(after + "x").error().kind == ErrorKind::kIo);
  CHECK(
      KeptBytes({{3, 0, "x"}, {1, 0, "y"}}, 7, fingerprint("abxcyde")).load("abcde").error().kind ==
      ErrorKind::kIo);
  // Bytes of the right size that are not the bytes before: the fingerprint refuses them.
  const std::string other_after = "HEAD|ONE!|mid||tail+";
  CHECK(restore::apply(other_after, restores).value().size() == before.size());
  CHECK(kept.load(other_after).error().kind == ErrorKind::kIo);

  // The history's bound counts what restores hold, not the file's size.
  UndoHistory history(5, 500);
  std::vector<UndoFile> files = one("big.txt", std::nullopt);
  files[0].restores = std::move(restores);
  files[0].before_size = 1000000;
  files[0].before_fingerprint = "before";
  auto id = history.record("", "local", std::move(files));
  REQUIRE(id);
  const KeptFile& f = history.find(*id)->files[0];
  REQUIRE(f.before != nullptr);  // the file existed
  CHECK(f.before->size() == 1000000);
  CHECK(f.before->held() == 3 * sizeof(Restore) + 6);
  // Restores with no fingerprint to check the rebuilt bytes by: nothing kept.
  std::vector<UndoFile> unchecked = one("u.txt", std::nullopt);
  unchecked[0].restores = std::vector<Restore>{{0, 1, "a"}};
  unchecked[0].before_size = 1;
  CHECK_FALSE(history.record("", "local", std::move(unchecked)));
  // Restores whose fingerprints say before and after are the same: nothing kept.
  std::vector<UndoFile> same = one("same.txt", std::nullopt);
  same[0].restores = std::vector<Restore>{{0, 1, "a"}};
  same[0].before_size = 1;
  same[0].before_fingerprint = "after-same.txt";
  CHECK_FALSE(history.record("", "local", std::move(same)));
  // A file listed twice with restores: they are of the first change only, so
  // nothing is kept rather than an undo that would not fit.
  std::vector<UndoFile> twice = one("t.txt", std::nullopt);
  twice[0].restores = std::vector<Restore>{{0, 1, "a"}};
  twice[0].before_size = 1;
  twice[0].before_fingerprint = "before";
  twice.push_back(std::move(one("t.txt", "b")[0]));
  CHECK_FALSE(history.record("", "local", std::move(twice)));
}
