// The FsBackend contract, run against every backend alike.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "backends/local_backend.h"
#include "backends/memory_backend.h"
#include "support/process.h"
#include "support/run.h"

using namespace editd;
using editd::test::run;

namespace {

// A fixture per backend: make() gives a backend rooted somewhere empty.
struct LocalFixture {
  test::TempDir dir;
  boost::asio::thread_pool pool{2};
  std::unique_ptr<FsBackend> backend;
  LocalFixture() {
    auto b = make_local_backend({dir.str(), false, 1 << 20}, pool);
    REQUIRE(b.has_value());
    backend = std::move(*b);
  }
};

struct MemoryFixture {
  std::unique_ptr<FsBackend> backend = std::make_unique<MemoryBackend>();
};

}  // namespace

TEST_CASE_TEMPLATE("a backend round-trips bytes exactly", F, LocalFixture, MemoryFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto path = b.resolve("dir/sub/a.txt");
  REQUIRE(path.has_value());
  std::string bytes = "\xEF\xBB\xBF" "a\r\nb\n\tc";
  REQUIRE(run(io, b.write(*path, bytes)).has_value());
  auto back = run(io, b.read(*path));
  REQUIRE(back.has_value());
  CHECK(*back == bytes);
  auto st = run(io, b.stat(*path));
  REQUIRE(st.has_value());
  CHECK(st->type == FileStat::Type::kFile);
  CHECK(st->size == bytes.size());
  CHECK(b.display_path(*path) == "dir/sub/a.txt");
}

TEST_CASE_TEMPLATE("a backend reports missing files and directories by kind", F, LocalFixture, MemoryFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto missing = run(io, b.read(*b.resolve("nope.txt")));
  REQUIRE(missing.has_error());
  CHECK(missing.error().kind == ErrorKind::kNotFound);
  REQUIRE(run(io, b.write(*b.resolve("d/x.txt"), "x")).has_value());
  auto dir = run(io, b.read(*b.resolve("d")));
  REQUIRE(dir.has_error());
  CHECK(dir.error().kind == ErrorKind::kIsDirectory);
  CHECK(run(io, b.stat(*b.resolve("d")))->type == FileStat::Type::kDirectory);
  CHECK(run(io, b.stat(*b.resolve("zzz")))->type == FileStat::Type::kMissing);
  auto write_dir = run(io, b.write(*b.resolve("d"), "x"));
  REQUIRE(write_dir.has_error());
  CHECK(write_dir.error().kind == ErrorKind::kIsDirectory);
}

TEST_CASE_TEMPLATE("a backend removes files and refuses to remove what is not a file", F, LocalFixture, MemoryFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto p = *b.resolve("gone.txt");
  REQUIRE(run(io, b.write(p, "x")).has_value());
  REQUIRE(run(io, b.remove(p)).has_value());
  CHECK(run(io, b.read(p)).error().kind == ErrorKind::kNotFound);
  CHECK(run(io, b.remove(p)).error().kind == ErrorKind::kNotFound);
  REQUIRE(run(io, b.write(*b.resolve("dd/f"), "x")).has_value());
  CHECK(run(io, b.remove(*b.resolve("dd"))).error().kind == ErrorKind::kIsDirectory);
}

TEST_CASE_TEMPLATE("a backend confines paths to its root", F, LocalFixture, MemoryFixture) {
  F f;
  FsBackend& b = *f.backend;
  auto out = b.resolve("../../etc/passwd");
  REQUIRE(out.has_error());
  CHECK(out.error().kind == ErrorKind::kOutsideRoot);
  auto same = b.resolve("a/../b/./c.txt");
  REQUIRE(same.has_value());
  CHECK(*same == *b.resolve("b/c.txt"));
  CHECK(b.display_path(*b.resolve(".")) == ".");
}

TEST_CASE("the local backend replaces files atomically through a temporary file and keeps the mode") {
  LocalFixture f;
  boost::asio::io_context io;
  f.dir.write("m.sh", "old");
  ::chmod((f.dir.path() / "m.sh").c_str(), 0700);
  REQUIRE(run(io, f.backend->write(*f.backend->resolve("m.sh"), "new")).has_value());
  CHECK(f.dir.read("m.sh") == "new");
  CHECK((std::filesystem::status(f.dir.path() / "m.sh").permissions() & std::filesystem::perms::all) ==
        std::filesystem::perms::owner_all);
  CHECK(f.dir.files() == std::vector<std::string>{"m.sh"});
}

TEST_CASE("the local backend fails a write into a read-only directory with io and leaves nothing") {
  if (::geteuid() == 0) {
    // root ignores directory permissions; the failure is simulated with a file as parent instead.
    LocalFixture f;
    boost::asio::io_context io;
    f.dir.write("p", "file");
    auto r = f.backend->resolve("p/x.txt");
    REQUIRE(r.has_error());
    CHECK(r.error().kind == ErrorKind::kNotFound);
    return;
  }
  LocalFixture f;
  boost::asio::io_context io;
  std::filesystem::create_directory(f.dir.path() / "ro");
  ::chmod((f.dir.path() / "ro").c_str(), 0500);
  auto r = run(io, f.backend->write(*f.backend->resolve("ro/x.txt"), "x"));
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kIo);
  CHECK(r.error().data["errno"] == "EACCES");
}

TEST_CASE("the local backend refuses FIFOs without blocking and files over the limit") {
  LocalFixture f;
  boost::asio::io_context io;
  ::mkfifo((f.dir.path() / "fifo").c_str(), 0600);
  auto r = run(io, f.backend->read(*f.backend->resolve("fifo")));
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kNotText);
  f.dir.write("big", std::string((1 << 20) + 1, 'x'));
  auto big = run(io, f.backend->read(*f.backend->resolve("big")));
  REQUIRE(big.has_error());
  CHECK(big.error().kind == ErrorKind::kTooLarge);
}

TEST_CASE("the local backend read-only mode denies writes and removes") {
  test::TempDir dir;
  boost::asio::thread_pool pool{1};
  auto b = make_local_backend({dir.str(), true, 1 << 20}, pool);
  REQUIRE(b.has_value());
  boost::asio::io_context io;
  auto w = run(io, (*b)->write(*(*b)->resolve("a"), "x"));
  REQUIRE(w.has_error());
  CHECK(w.error().kind == ErrorKind::kDenied);
  CHECK_FALSE(dir.exists("a"));
}

TEST_CASE("a missing root is refused") {
  boost::asio::thread_pool pool{1};
  auto b = make_local_backend({"/nonexistent/editd/root", false, 1}, pool);
  REQUIRE(b.has_error());
  CHECK(b.error().kind == ErrorKind::kNotFound);
}
