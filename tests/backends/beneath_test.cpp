// Beneath and Fd: the root's descriptor is borrowed, never duplicated or closed.
#include "backends/local/beneath.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "helpers/process.h"

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
