// The one place a write becomes durable (backends/local/sync.h): each sync
// reports the errno of what cannot be synced, and sync_all names the first.
#include "backends/local/sync.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "helpers/process.h"

using namespace editd;

TEST_CASE("sync_data and sync_file sync a file, and give the errno of what cannot be synced") {
  test::TempDir dir;
  dir.write("f", "x\n");
  Fd file(::open((dir.str() + "/f").c_str(), O_RDWR | O_CLOEXEC));
  REQUIRE(file.valid());
  CHECK(sync_data(file.get()) == 0);
  CHECK(sync_file(file.get()) == 0);
  start_writeback(file.get());  // no answer; must not disturb the file
  CHECK(sync_data(file.get()) == 0);

  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  Fd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  CHECK(sync_data(write_end.get()) == EINVAL);
  CHECK(sync_file(write_end.get()) == EINVAL);
  CHECK(sync_file(-1) == EBADF);
}

TEST_CASE("sync_directory syncs a directory through any descriptor of it, O_PATH included") {
  test::TempDir dir;
  dir.write("sub/a.txt", "a\n");
  Fd path(::open((dir.str() + "/sub").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  REQUIRE(path.valid());
  CHECK(sync_directory(path.get()) == 0);
  Fd readable = syncable_directory(path.get());
  REQUIRE(readable.valid());
  CHECK(readable.get() != path.get());
  CHECK(sync_file(readable.get()) == 0);
  CHECK(sync_directory(-1) == EBADF);
}

TEST_CASE("sync_all fsyncs every descriptor and names the first that failed") {
  test::TempDir dir;
  std::vector<Fd> files;
  for (int i = 0; i < 20; ++i) {
    dir.write("f" + std::to_string(i), "x\n");
    files.emplace_back(
        ::open((dir.str() + "/f" + std::to_string(i)).c_str(), O_RDONLY | O_CLOEXEC));
    REQUIRE(files.back().valid());
  }
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  Fd read_end(pipe_fds[0]), write_end(pipe_fds[1]);

  std::vector<int> fds;
  for (const Fd& f : files) fds.push_back(f.get());
  CHECK(sync_all(fds) == std::pair<std::size_t, int>(fds.size(), 0));
  CHECK(sync_all({}) == std::pair<std::size_t, int>(0, 0));

  // A pipe cannot be fsynced (EINVAL): among twenty files, at 13 and 17, the
  // first is the one reported, whichever thread met it.
  fds.insert(fds.begin() + 17, write_end.get());
  fds.insert(fds.begin() + 13, read_end.get());
  CHECK(sync_all(fds) == std::pair<std::size_t, int>(13, EINVAL));
  CHECK(sync_all(std::span<const int>(fds).first(13)) == std::pair<std::size_t, int>(13, 0));
}
