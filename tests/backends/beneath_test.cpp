// Beneath and Fd: the root's descriptor is borrowed, never duplicated or closed.
#include "backends/local/beneath.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "support/process.h"

using namespace editd;

namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

}  // namespace

TEST_CASE("open_dir(\"\") borrows the root's descriptor; closing the borrower leaves it open") {
  test::TempDir dir;
  dir.write("sub/a.txt", "a\n");
  Beneath root;
  REQUIRE(Beneath::open(dir.str(), true, root) == 0);
  const int root_fd = root.root_fd();
  {
    Fd d;
    REQUIRE(root.open_dir("", d) == 0);
    CHECK(d.get() == root_fd);  // no duplicate made
    Fd moved = std::move(d);
    CHECK(moved.get() == root_fd);
    CHECK_FALSE(d.valid());
    Fd assigned(::dup(0));
    assigned = std::move(moved);  // the dup is closed, the root is not
    CHECK(assigned.get() == root_fd);
  }
  CHECK(is_open(root_fd));
  {
    Fd d;
    REQUIRE(root.open_dir("", d) == 0);
    d.reset();
    CHECK_FALSE(d.valid());
  }
  CHECK(is_open(root_fd));

  // release() of a borrowed descriptor hands over a duplicate, the caller's to close.
  Fd d;
  REQUIRE(root.open_dir("", d) == 0);
  const int mine = d.release();
  REQUIRE(mine >= 0);
  CHECK(mine != root_fd);
  CHECK(::close(mine) == 0);
  CHECK(is_open(root_fd));

  // A subdirectory is a descriptor of its own.
  Fd sub;
  REQUIRE(root.open_dir("sub", sub) == 0);
  CHECK(sub.get() != root_fd);
  CHECK(::faccessat(sub.get(), "a.txt", R_OK, 0) == 0);
  sub.reset();
  CHECK(::faccessat(root_fd, "sub/a.txt", R_OK, 0) == 0);
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
