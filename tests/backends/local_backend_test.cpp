// The local backend's hardening: confinement under races, write-protected
// files, failures at every system call, journals and their recovery,
// cross-process locks. Races and crashes through the real binary are in
// tests/integration/races_test.cpp.
#include "backends/local/local_backend.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "backends/memory/faulty_backend.h"
#include "backends/local/journal.h"
#include "backends/local/stripe_lock.h"
#include "helpers/pool_hold.h"
#include "helpers/process.h"
#include "helpers/run.h"
#include "helpers/tree.h"
#include "helpers/xattrs.h"

using namespace editd;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

using Op = FileChange;

// A local backend over a fresh root, with its own state directory, whose
// system calls a test can make fail through `inject`.
struct Local {
  test::TempDir dir;
  test::TempDir state;
  asio::thread_pool pool{2};
  asio::io_context io;
  std::function<InjectedFault(LocalSyscall, const std::string&)> inject;
  bool openat2 = true;
  bool durable = true;
  std::unique_ptr<FsBackend> backend;

  explicit Local(bool use_openat2 = true) : openat2(use_openat2) { reopen(); }

  LocalBackendOptions options(const std::string& root) {
    LocalBackendOptions o;
    o.root = root;
    o.max_file_bytes = 1 << 20;
    o.runtime_dir = state.str();
    o.state_dir = state.str();
    o.use_openat2 = openat2;
    o.durable = durable;
    o.inject = [this](LocalSyscall call, const std::string& name) {
      return inject ? inject(call, name) : InjectedFault{};
    };
    return o;
  }
  // A new backend over the root: the start that follows a crash.
  void reopen() {
    backend.reset();
    auto b = make_local_backend(options(dir.str()), pool);
    REQUIRE(b.has_value());
    backend = std::move(*b);
  }
  std::string path(const std::string& rel) {
    auto r = backend->resolve(rel);
    REQUIRE_MESSAGE(r.has_value(), rel);
    return *r;
  }
  template <class T>
  T run(asio::awaitable<T> task) {
    return test::run(io, std::move(task));
  }
  Result<void> batch(std::vector<Op> ops, std::vector<std::size_t>& applied) {
    return run(backend->apply_batch(std::move(ops), applied));
  }
  std::map<std::string, std::string> tree() const { return test::tree_state(dir.path()); }
};

Op write_op(std::string canonical, std::string bytes) {
  return Op{Op::Kind::kWrite, std::move(canonical), std::move(bytes), std::nullopt, std::nullopt};
}
Op remove_op(std::string canonical) {
  return Op{Op::Kind::kRemove, std::move(canonical), "", std::nullopt, std::nullopt};
}

ino_t ino_of(const fs::path& p) {
  struct stat st;
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_ino;
}

void put(const fs::path& p, std::string_view bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A journal as editd writes it: each complete line of `text` tagged with the
// key in state directory `state_dir` (a last line without '\n' is torn),
// written into `root`.
void write_journal(const test::TempDir& root, const test::TempDir& state_dir,
                   const std::string& name, const std::string& text) {
  Fd state(::open(state_dir.str().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  journal::Key key;
  REQUIRE(journal::Key::load(state.get(), key) == 0);
  std::string out;
  std::size_t index = 0, i = 0;
  for (std::size_t nl; (nl = text.find('\n', i)) != std::string::npos; i = nl + 1) {
    std::string line = text.substr(i, nl - i);
    if (index == 0 && line == "editd-journal 1") line = "editd-journal 2";
    out += line + " " + key.tag(name, index++, line) + "\n";
  }
  put(root.path() / ".editd" / "journal" / name, out + text.substr(i));
}

// The same, tagged with the fixture's key, in the fixture's root.
void write_journal(const Local& f, const std::string& name, const std::string& text) {
  write_journal(f.dir, f.state, name, text);
}

// A failure the test makes happen at the n-th system call it is asked about,
// as a kill -9 would: nothing after it runs, nothing is cleaned up.
struct Crash : std::runtime_error {
  Crash() : std::runtime_error("simulated crash") {}
};

}  // namespace

TEST_CASE(
    "a file the OS user may not write is refused with denied and EACCES, and nothing changes") {
  // The kernel lets root write any file, and so does editd: the check runs as
  // an ordinary user (nobody), in a child process.
  constexpr uid_t kNobody = 65534;
  test::TempDir dir, state;
  dir.write("ro.txt", "keep\n");
  dir.write("rw.txt", "rw\n");
  ::chmod((dir.path() / "ro.txt").c_str(), 0444);
  const bool root = ::geteuid() == 0;
  if (root)
    for (const fs::path& p :
         {dir.path(), dir.path() / "ro.txt", dir.path() / "rw.txt", state.path()})
      REQUIRE(::chown(p.c_str(), kNobody, kNobody) == 0);
  const auto before = test::tree_state(dir.path());
  int out[2];
  REQUIRE(::pipe(out) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::string failures;
    auto expect = [&failures](bool ok, const std::string& what) {
      if (!ok) failures += what + "; ";
    };
    if (root && (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0))
      failures += "setuid failed; ";
    asio::thread_pool pool{1};
    asio::io_context io;
    LocalBackendOptions o;
    o.root = dir.str();
    o.runtime_dir = state.str();
    auto made = make_local_backend(o, pool);
    if (!made) ::_exit(3);
    FsBackend& b = **made;
    auto check = [&](const Result<void>& r, const std::string& what) {
      expect(r.has_error(), what + " succeeded");
      if (!r.has_error()) return;
      expect(r.error().kind == ErrorKind::kDenied, what + ": kind");
      expect(r.error().data["errno"] == "EACCES", what + ": errno");
      expect(r.error().data["path"] == "ro.txt", what + ": path");
      expect(r.error().data["mode"] == "0444", what + ": mode");
    };
    check(test::run(io, b.write(*b.resolve("ro.txt"), "new\n")), "write");
    check(test::run(io, b.remove(*b.resolve("ro.txt"))), "remove");
    std::vector<std::size_t> applied;
    check(test::run(io, b.apply_batch({write_op(*b.resolve("rw.txt"), "changed\n"),
                                       write_op(*b.resolve("ro.txt"), "x")},
                                      applied)),
          "apply_batch");
    expect(applied.empty(), "apply_batch applied something");
    auto read = test::run(io, b.read(*b.resolve("ro.txt")));
    expect(read.has_value() && *read == "keep\n", "read");
    ::write(out[1], failures.data(), failures.size());
    ::_exit(0);
  }
  ::close(out[1]);
  std::string failures;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0)
    failures.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK_MESSAGE(failures.empty(), failures);
  CHECK(test::tree_state(dir.path()) == before);
  CHECK(test::mode_of(dir.path() / "ro.txt") == 0444);
}

TEST_CASE("--durability none: no fsync is made, and writes and patches land as before") {
  Local f;
  f.dir.write("a.txt", "a\n");
  f.dir.write("gone.txt", "gone\n");
  std::vector<LocalSyscall> calls;
  std::vector<std::string> journal;
  f.inject = [&](LocalSyscall c, const std::string& name) {
    calls.push_back(c);
    if (c == LocalSyscall::kJournal) journal.push_back(name);
    // A failing fsync makes the test fail loudly if one is still made.
    return InjectedFault{c == LocalSyscall::kFsync ? EIO : 0};
  };
  // Durable (the default): the fsync is made, so the failure shows.
  auto durable = f.run(f.backend->write(f.path("a.txt"), "A\n"));
  REQUIRE(durable.has_error());
  CHECK(durable.error().data["errno"] == "EIO");
  CHECK(f.dir.read("a.txt") == "a\n");

  f.durable = false;
  f.reopen();
  calls.clear();
  auto w = f.run(f.backend->write(f.path("a.txt"), "A\n"));
  REQUIRE_MESSAGE(w.has_value(), w.error().message);
  std::vector<std::size_t> applied;
  auto b = f.batch({write_op(f.path("b/c.txt"), "C\n"), remove_op(f.path("gone.txt"))}, applied);
  REQUIRE_MESSAGE(b.has_value(), b.error().message);
  CHECK(std::count(calls.begin(), calls.end(), LocalSyscall::kFsync) == 0);
  CHECK(std::count(calls.begin(), calls.end(), LocalSyscall::kRename) == 2);
  // The patch was still journaled, commit record included.
  REQUIRE_FALSE(journal.empty());
  CHECK(journal.back() == "commit");
  CHECK(f.tree() ==
        std::map<std::string, std::string>{{"a.txt", "A\n"}, {"b", "/"}, {"b/c.txt", "C\n"}});
}

TEST_CASE("small files are read, and without durability written, with no trip to the pool") {
  Local f;
  f.durable = false;
  f.reopen();
  std::string big;
  while (big.size() <= LocalBackendOptions{}.inline_bytes) big += "a line of the big file\n";
  f.dir.write("small.txt", "small\n");
  f.dir.write("big.txt", big);

  test::PoolHold held(f.pool, 2);  // both threads: what completes did not need the pool
  auto small = f.run(f.backend->read(f.path("small.txt")));
  REQUIRE(small.has_value());
  CHECK(*small == "small\n");
  auto w = f.run(f.backend->write(f.path("small.txt"), "SMALL\n"));
  REQUIRE_MESSAGE(w.has_value(), w.error().message);
  CHECK(held.finished() == 0);  // the pool was still held
  CHECK(f.dir.read("small.txt") == "SMALL\n");
  held.release();

  // Larger files go through the pool, whole.
  auto read_big = f.run(f.backend->read(f.path("big.txt")));
  REQUIRE(read_big.has_value());
  CHECK(*read_big == big);
  auto write_big = f.run(f.backend->write(f.path("big.txt"), big + "one more\n"));
  REQUIRE_MESSAGE(write_big.has_value(), write_big.error().message);
  CHECK(f.dir.read("big.txt") == big + "one more\n");
  // Errors are the same on either path.
  auto missing = f.run(f.backend->read(f.path("missing.txt")));
  REQUIRE(missing.has_error());
  CHECK(missing.error().kind == ErrorKind::kNotFound);
}

namespace {

// How many descriptors of this process hold the inode that `path` named
// before it was replaced or removed.
int held_after_delete(const fs::path& path) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    fs::path target = fs::read_symlink(e.path(), ec);
    if (!ec && target.string() == path.string() + " (deleted)") ++n;
  }
  return n;
}

// Waits (at most 30 s) for the pool to let go of every inode in `paths`.
bool let_go(const std::vector<fs::path>& paths) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    for (const fs::path& p : paths) all = all && held_after_delete(p) == 0;
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace

TEST_CASE("a replaced or removed file's inode is freed on the pool, after the operation") {
  Local f;
  f.durable = false;  // small writes run inline: the pool can be held meanwhile
  f.reopen();
  const fs::path root = fs::canonical(f.dir.path());
  f.dir.write("a.txt", "old a\n");
  f.dir.write("b.txt", "old b\n");
  f.dir.write("c.txt", "old c\n");
  {
    test::PoolHold held(f.pool, 2);
    auto w = f.run(f.backend->write(f.path("a.txt"), "new a\n"));
    REQUIRE_MESSAGE(w.has_value(), w.error().message);
    CHECK(f.dir.read("a.txt") == "new a\n");
    // The old inode is still open, for the pool to close (and free) later.
    CHECK(held_after_delete(root / "a.txt") == 1);
    CHECK(held.finished() == 0);
  }
  CHECK(let_go({root / "a.txt"}));

  // A patch's replaced and removed files too; nothing stays open after.
  std::vector<std::size_t> applied;
  auto b = f.batch({write_op(f.path("b.txt"), "new b\n"), remove_op(f.path("c.txt"))}, applied);
  REQUIRE_MESSAGE(b.has_value(), b.error().message);
  CHECK(let_go({root / "b.txt", root / "c.txt"}));
  auto r = f.run(f.backend->remove(f.path("b.txt")));
  REQUIRE_MESSAGE(r.has_value(), r.error().message);
  CHECK(let_go({root / "b.txt"}));
  CHECK(f.tree() == std::map<std::string, std::string>{{"a.txt", "new a\n"}});

  // A patch of more files than are ever held at once: the rest are freed in
  // their renames, all land, and the count comes back for the next write.
  std::vector<Op> many;
  std::vector<fs::path> replaced;
  for (int i = 0; i < 300; ++i) {
    const std::string name = "many/" + std::to_string(i) + ".txt";
    f.dir.write(name, "old\n");
    replaced.push_back(root / name);
  }
  for (int i = 0; i < 300; ++i)
    many.push_back(write_op(f.path("many/" + std::to_string(i) + ".txt"), "new\n"));
  applied.clear();
  auto m = f.batch(std::move(many), applied);
  REQUIRE_MESSAGE(m.has_value(), m.error().message);
  CHECK(applied.size() == 300);
  CHECK(let_go(replaced));
  CHECK(f.dir.read("many/299.txt") == "new\n");
  {
    test::PoolHold held(f.pool, 2);
    auto w = f.run(f.backend->write(f.path("a.txt"), "newer a\n"));
    REQUIRE_MESSAGE(w.has_value(), w.error().message);
    CHECK(held_after_delete(root / "a.txt") == 1);
  }
  CHECK(let_go({root / "a.txt"}));
}

TEST_CASE("a failed write removes its temporary file and the directories it made") {
  Local f;
  f.dir.write("have/x.txt", "x");
  auto before = f.tree();
  for (LocalSyscall call : {LocalSyscall::kWrite, LocalSyscall::kFsync, LocalSyscall::kRename}) {
    CAPTURE(static_cast<int>(call));
    f.inject = [call](LocalSyscall c, const std::string&) {
      return InjectedFault{c == call ? ENOSPC : 0};
    };
    auto r = f.run(f.backend->write(f.path("have/new/deeper/f.txt"), "content"));
    REQUIRE(r.has_error());
    CHECK(r.error().kind == ErrorKind::kIo);
    CHECK(r.error().data["errno"] == "ENOSPC");
    CHECK(r.error().data["path"] == "have/new/deeper/f.txt");
    CHECK(f.tree() == before);
  }
  // A mkdir that fails half-way takes back the directory it made before.
  f.inject = [](LocalSyscall c, const std::string& name) {
    return InjectedFault{c == LocalSyscall::kMkdir && name == "have/new/deeper" ? EDQUOT : 0};
  };
  auto r = f.run(f.backend->write(f.path("have/new/deeper/f.txt"), "content"));
  REQUIRE(r.has_error());
  CHECK(r.error().data["errno"] == "EDQUOT");
  CHECK(f.tree() == before);
}

TEST_CASE(
    "a write that fails part-way leaves the old content and mode, and short writes are completed") {
  Local f;
  f.dir.write("a.txt", "old content\n");
  ::chmod((f.dir.path() / "a.txt").c_str(), 0640);
  int calls = 0;
  f.inject = [&calls](LocalSyscall c, const std::string&) {
    if (c != LocalSyscall::kWrite) return InjectedFault{};
    return ++calls == 1 ? InjectedFault{0, 4} : InjectedFault{ENOSPC};
  };
  auto r = f.run(f.backend->write(f.path("a.txt"), "new content that will not fit\n"));
  REQUIRE(r.has_error());
  CHECK(r.error().data["errno"] == "ENOSPC");
  CHECK(f.dir.read("a.txt") == "old content\n");
  CHECK(f.dir.files() == std::vector<std::string>{"a.txt"});

  // Every write call takes 3 bytes: the backend keeps going until all are written.
  f.inject = [](LocalSyscall c, const std::string&) {
    return c == LocalSyscall::kWrite ? InjectedFault{0, 3} : InjectedFault{};
  };
  std::string text = "line one\r\nline two\n\xEF\xBB\xBF tail";
  REQUIRE(f.run(f.backend->write(f.path("a.txt"), text)).has_value());
  CHECK(f.dir.read("a.txt") == text);
  CHECK(test::mode_of(f.dir.path() / "a.txt") == 0640);
  CHECK(f.dir.files() == std::vector<std::string>{"a.txt"});
  // The same with pieces: a 3-byte write ends inside a piece, or across two.
  const std::vector<std::string_view> pieces = {"li", "", "ne one\r\n", "l", "ine two\n", "tail"};
  REQUIRE(f.run(f.backend->write_pieces(f.path("a.txt"), pieces)).has_value());
  CHECK(f.dir.read("a.txt") == "line one\r\nline two\ntail");
  CHECK(test::mode_of(f.dir.path() / "a.txt") == 0640);
}

TEST_CASE(
    "resolve: absolute paths under the root, the root itself, and names that only start like it") {
  Local f;
  f.dir.write("a.txt", "a\n");
  const std::string root = fs::canonical(f.dir.path()).string();
  fs::create_directory(root + "x");  // a sibling whose name starts with the root's
  test::TempDir outside;
  fs::create_directory_symlink(outside.path(), f.dir.path() / "out");
  auto kind = [&](const std::string& p) {
    auto r = f.backend->resolve(p);
    return r.has_error() ? r.error().kind : ErrorKind::kInternal;
  };
  CHECK(f.path(root + "/a.txt") == f.path("a.txt"));
  CHECK(f.path(root + "//./a.txt") == f.path("a.txt"));
  CHECK(f.path(root) == root);
  CHECK(f.path(root + "/") == root);
  CHECK(f.path(root + "/d/../a.txt") == f.path("a.txt"));
  CHECK(kind(root + "/../x") == ErrorKind::kOutsideRoot);
  CHECK(kind(root + "x/a.txt") == ErrorKind::kOutsideRoot);
  CHECK(kind(root + "/out/f.txt") == ErrorKind::kOutsideRoot);
  CHECK(kind("out/f.txt") == ErrorKind::kOutsideRoot);
  CHECK(kind("..") == ErrorKind::kOutsideRoot);
  fs::remove(root + "x");
}

TEST_CASE("a directory swapped for a link to outside the root after resolve() is never followed") {
  for (bool openat2 : {true, false}) {
    CAPTURE(openat2);
    Local f(openat2);
    test::TempDir outside;
    outside.write("f.txt", "OUTSIDE\n");
    f.dir.write("dir/f.txt", "inside\n");
    f.dir.write("dir/sub/g.txt", "g\n");
    const std::string file = f.path("dir/f.txt"), fresh = f.path("dir/new/g.txt"),
                      created = f.path("dir/h.txt"), sub = f.path("dir/sub");
    fs::rename(f.dir.path() / "dir", f.dir.path() / "real");
    fs::create_directory_symlink(outside.path(), f.dir.path() / "dir");
    fs::create_directory(outside.path() / "sub");
    const auto before = test::tree_state(outside.path());

    auto read = f.run(f.backend->read(file));
    REQUIRE(read.has_error());
    CHECK(read.error().kind == ErrorKind::kIo);
    CHECK(read.error().data["errno"] == "ELOOP");
    CHECK(read.error().data["path"] == "dir/f.txt");
    CHECK(f.run(f.backend->write(file, "x")).has_error());
    CHECK(f.run(f.backend->write(fresh, "x")).has_error());
    CHECK(f.run(f.backend->write(created, "x")).has_error());
    CHECK(f.run(f.backend->remove(file)).has_error());
    CHECK(f.run(f.backend->remove_directory(sub)).has_error());
    auto st = f.run(f.backend->stat(file));
    CHECK((st.has_error() || st->type != FileStat::Type::kFile));
    CHECK(f.backend->missing_directories(fresh).empty());
    std::vector<std::size_t> applied;
    CHECK(f.batch({write_op(created, "x"), remove_op(file)}, applied).has_error());
    CHECK(applied.empty());
    CHECK(test::tree_state(outside.path()) == before);

    // The file itself swapped for a link: not followed either.
    fs::remove(f.dir.path() / "dir");
    fs::rename(f.dir.path() / "real", f.dir.path() / "dir");
    fs::remove(f.dir.path() / "dir/f.txt");
    fs::create_symlink(outside.path() / "f.txt", f.dir.path() / "dir/f.txt");
    CHECK(f.run(f.backend->read(file)).has_error());
    CHECK(f.run(f.backend->write(file, "x")).has_error());
    CHECK(f.run(f.backend->remove(file)).has_error());
    CHECK(test::tree_state(outside.path()) == before);
    CHECK(outside.read("f.txt") == "OUTSIDE\n");
  }
}

TEST_CASE("a link inside the root is edited through: its target changes and the link stays") {
  for (bool openat2 : {true, false}) {
    CAPTURE(openat2);
    Local f(openat2);
    f.dir.write("real/target.txt", "old\n");
    fs::create_symlink("real/target.txt", f.dir.path() / "link.txt");
    fs::create_directory_symlink("real", f.dir.path() / "dirlink");
    REQUIRE(f.run(f.backend->write(f.path("link.txt"), "new\n")).has_value());
    REQUIRE(f.run(f.backend->write(f.path("dirlink/other.txt"), "o\n")).has_value());
    CHECK(fs::is_symlink(f.dir.path() / "link.txt"));
    CHECK(fs::is_symlink(f.dir.path() / "dirlink"));
    CHECK(f.dir.read("real/target.txt") == "new\n");
    CHECK(f.dir.read("real/other.txt") == "o\n");
    CHECK(f.run(f.backend->read(f.path("dirlink/target.txt"))).value() == "new\n");
  }
}

TEST_CASE("apply_batch applies writes and removals whole, keeps modes and leaves nothing behind") {
  Local f;
  f.dir.write("a.txt", "a\n");
  f.dir.write("b.txt", "b\n");
  f.dir.write("gone.txt", "gone\n");
  ::chmod((f.dir.path() / "a.txt").c_str(), 0751);
  std::vector<std::string> journal;  // every journal record, in order
  std::vector<LocalSyscall> calls;
  std::string ignored;  // .editd/.gitignore while the change is in flight
  f.inject = [&](LocalSyscall c, const std::string& name) {
    calls.push_back(c);
    if (c == LocalSyscall::kJournal) journal.push_back(name);
    if (c == LocalSyscall::kRename) ignored = f.dir.read(".editd/.gitignore");
    return InjectedFault{};
  };
  std::vector<std::size_t> applied;
  auto r = f.batch({write_op(f.path("a.txt"), "A\n"), write_op(f.path("new/dir/c.txt"), "C\n"),
                    write_op(f.path("b.txt"), "B\n"), remove_op(f.path("gone.txt"))},
                   applied);
  REQUIRE(r.has_value());
  CHECK(applied == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(f.tree() == std::map<std::string, std::string>{{"a.txt", "A\n"},
                                                       {"b.txt", "B\n"},
                                                       {"new", "/"},
                                                       {"new/dir", "/"},
                                                       {"new/dir/c.txt", "C\n"}});
  CHECK(test::mode_of(f.dir.path() / "a.txt") == 0751);
  CHECK(ignored == "*\n");

  // Staged and synced before the commit; renamed only after it.
  REQUIRE(!journal.empty());
  CHECK(journal.back() == "commit");
  auto first = [&](LocalSyscall c) {
    return std::find(calls.begin(), calls.end(), c) - calls.begin();
  };
  auto last = [&](LocalSyscall c) {
    return calls.rend() - std::find(calls.rbegin(), calls.rend(), c) - 1;
  };
  CHECK(last(LocalSyscall::kWrite) < first(LocalSyscall::kFsync));
  CHECK(last(LocalSyscall::kJournal) < first(LocalSyscall::kRename));
  CHECK(last(LocalSyscall::kRename) < first(LocalSyscall::kUnlink));
  int dirs = 0, temps = 0, moves = 0, removals = 0;
  for (const std::string& rec : journal) {
    dirs += rec.rfind("dir ", 0) == 0;
    temps += rec.rfind("tmp ", 0) == 0;
    moves += rec.rfind("mv ", 0) == 0;
    removals += rec.rfind("rm ", 0) == 0;
  }
  CHECK(dirs == 2);
  CHECK(temps == 3);
  CHECK(moves == 3);
  CHECK(removals == 1);
}

TEST_CASE("apply_batch refuses up front what it cannot do, and changes nothing") {
  Local f;
  f.dir.write("a.txt", "a\n");
  f.dir.write("d/x", "x");
  auto before = f.tree();
  struct Case {
    std::vector<Op> ops;
    ErrorKind kind;
    std::string path;
  };
  std::vector<Case> cases;
  cases.push_back(
      {{write_op(f.path("a.txt"), "A"), write_op(f.path("big"), std::string((1 << 20) + 1, 'x'))},
       ErrorKind::kTooLarge,
       "big"});
  cases.push_back(
      {{write_op(f.path("a.txt"), "A"), write_op(f.path("d"), "x")}, ErrorKind::kIsDirectory, "d"});
  cases.push_back({{write_op(f.path("a.txt"), "A"), remove_op(f.path("missing"))},
                   ErrorKind::kNotFound,
                   "missing"});
  cases.push_back(
      {{write_op(f.path("new/n.txt"), "n"), remove_op(f.path("d"))}, ErrorKind::kIsDirectory, "d"});
  for (Case& c : cases) {
    CAPTURE(c.path);
    std::vector<std::size_t> applied;
    auto r = f.batch(std::move(c.ops), applied);
    REQUIRE(r.has_error());
    CHECK(r.error().kind == c.kind);
    CHECK(r.error().data["path"] == c.path);
    CHECK(applied.empty());
    CHECK(f.tree() == before);
  }
}

TEST_CASE(
    "apply_batch failing before its commit changes nothing; after it, reports what took effect") {
  Local f;
  f.dir.write("a.txt", "a\n");
  f.dir.write("b.txt", "b\n");
  f.dir.write("gone.txt", "gone\n");
  const auto before = f.tree();
  auto ops = [&] {
    return std::vector<Op>{write_op(f.path("a.txt"), "A\n"), write_op(f.path("new/c.txt"), "C\n"),
                           write_op(f.path("b.txt"), "B\n"), remove_op(f.path("gone.txt"))};
  };

  SUBCASE("a temporary file that cannot be written") {
    f.inject = [](LocalSyscall c, const std::string& name) {
      return InjectedFault{c == LocalSyscall::kWrite && name.rfind(".b.txt", 0) == 0 ? ENOSPC : 0};
    };
    std::vector<std::size_t> applied;
    auto r = f.batch(ops(), applied);
    REQUIRE(r.has_error());
    CHECK(r.error().kind == ErrorKind::kIo);
    CHECK(r.error().data["errno"] == "ENOSPC");
    CHECK(r.error().data["path"] == "b.txt");
    CHECK(applied.empty());
    CHECK(f.tree() == before);
  }
  SUBCASE("a journal that cannot be written") {
    f.inject = [](LocalSyscall c, const std::string& name) {
      return InjectedFault{c == LocalSyscall::kJournal && name == "commit" ? EIO : 0};
    };
    std::vector<std::size_t> applied;
    auto r = f.batch(ops(), applied);
    REQUIRE(r.has_error());
    CHECK(r.error().data["errno"] == "EIO");
    CHECK(applied.empty());
    CHECK(f.tree() == before);
  }
  SUBCASE("a rename that fails") {
    f.inject = [](LocalSyscall c, const std::string& name) {
      return InjectedFault{c == LocalSyscall::kRename && name == "b.txt" ? EIO : 0};
    };
    std::vector<std::size_t> applied;
    auto r = f.batch(ops(), applied);
    REQUIRE(r.has_error());
    CHECK(r.error().data["errno"] == "EIO");
    CHECK(r.error().data["path"] == "b.txt");
    CHECK(applied == std::vector<std::size_t>{0, 1});
    CHECK(f.tree() == std::map<std::string, std::string>{{"a.txt", "A\n"},
                                                         {"b.txt", "b\n"},
                                                         {"gone.txt", "gone\n"},
                                                         {"new", "/"},
                                                         {"new/c.txt", "C\n"}});
    // The caller's undo brings back the old tree, and no later start redoes anything.
    f.inject = nullptr;
    REQUIRE(f.run(f.backend->write(f.path("a.txt"), "a\n")).has_value());
    REQUIRE(f.run(f.backend->remove(f.path("new/c.txt"))).has_value());
    REQUIRE(f.run(f.backend->remove_directory(f.path("new"))).has_value());
    f.reopen();
    CHECK(f.tree() == before);
  }
  SUBCASE("a removal that fails") {
    f.inject = [](LocalSyscall c, const std::string&) {
      return InjectedFault{c == LocalSyscall::kUnlink ? EBUSY : 0};
    };
    std::vector<std::size_t> applied;
    auto r = f.batch(ops(), applied);
    REQUIRE(r.has_error());
    CHECK(r.error().data["path"] == "gone.txt");
    CHECK(applied == std::vector<std::size_t>{0, 1, 2});
    CHECK(test::editd_leftovers(f.tree()).empty());
  }
}

namespace {

// Runs the batch `ops` makes once to count its steps (the system calls it asks
// `fault` about), then again from `setup` with a crash (as a kill -9) at each
// step in turn: the next start must leave the tree as before the batch or as
// after it, with nothing of editd's left, and `check` holds after each.
void crash_at_every_step(const std::function<void(Local&)>& setup,
                         const std::function<std::vector<Op>(Local&)>& ops,
                         const std::function<InjectedFault(LocalSyscall)>& fault,
                         const std::function<void(Local&)>& check) {
  Local f;
  setup(f);
  const auto before = f.tree();
  int steps = 0;
  f.inject = [&](LocalSyscall c, const std::string&) {
    ++steps;
    return fault(c);
  };
  std::vector<std::size_t> applied;
  REQUIRE(f.batch(ops(f), applied).has_value());
  const auto after = f.tree();
  REQUIRE(steps > 10);

  int rolled_forward = 0;
  for (int crash_at = 1; crash_at <= steps; ++crash_at) {
    CAPTURE(crash_at);
    f.inject = nullptr;
    f.reopen();
    setup(f);
    int step = 0;
    f.inject = [&step, crash_at, &fault](LocalSyscall c, const std::string&) {
      if (++step == crash_at) throw Crash();
      return fault(c);
    };
    applied.clear();
    auto r = f.batch(ops(f), applied);
    REQUIRE(r.has_error());
    CHECK(r.error().kind == ErrorKind::kInternal);
    f.inject = nullptr;
    f.reopen();
    auto now = f.tree();
    CHECK((now == before || now == after));
    rolled_forward += now == after;
    CHECK(test::editd_leftovers(now).empty());
    check(f);
  }
  CHECK(rolled_forward > 0);
  CHECK(rolled_forward < steps);
}

}  // namespace

TEST_CASE("a crash at any step of apply_batch comes out whole or not at all at the next start") {
  auto setup = [](Local& f) {
    for (const auto& e : fs::directory_iterator(f.dir.path())) fs::remove_all(e.path());
    f.dir.write("a.txt", "a\n");
    f.dir.write("sub/b.txt", "b\n");
    f.dir.write("moved.txt", "moved\n");
    f.dir.write("gone.txt", "gone\n");
  };
  auto ops = [](Local& f) {
    return std::vector<Op>{write_op(f.path("a.txt"), "A\n"), write_op(f.path("sub/b.txt"), "B\n"),
                           write_op(f.path("x/y/dest.txt"), "moved\n"),
                           remove_op(f.path("moved.txt")), remove_op(f.path("gone.txt"))};
  };
  crash_at_every_step(
      setup, ops, [](LocalSyscall) { return InjectedFault{}; }, [](Local&) {});
}

namespace {

// Writes `bytes` to `rel` of `dir` through a backend in a child process that
// dies (_exit, as a kill -9: nothing is cleaned up) where `fault` calls
// die(); `dead` looks at what it left; then a backend over `dir` starts
// again, which recovers. The fork comes before any thread of the test exists:
// a child forked from a threaded process may deadlock in the allocator (seen
// under ASan).
void write_in_killed_child(const test::TempDir& dir, const std::string& rel,
                           const std::string& bytes,
                           const std::function<InjectedFault(LocalSyscall)>& fault,
                           const std::function<void()>& dead) {
  test::TempDir state;
  LocalBackendOptions o;
  o.root = dir.str();
  o.runtime_dir = state.str();
  o.state_dir = state.str();
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    asio::thread_pool pool{1};
    asio::io_context io;
    o.inject = [&fault](LocalSyscall c, const std::string&) { return fault(c); };
    auto b = make_local_backend(o, pool);
    if (b) test::run(io, (*b)->write(*(*b)->resolve(rel), bytes));
    ::_exit(1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  dead();
  asio::thread_pool pool{1};
  REQUIRE(make_local_backend(o, pool).has_value());
}

[[noreturn]] void die() { ::_exit(0); }

}  // namespace

TEST_CASE("a write killed before its rename leaves a temporary file that the next start removes") {
  test::TempDir dir;
  dir.write("sub/a.txt", "old\n");
  write_in_killed_child(
      dir, "sub/a.txt", "new\n",
      [](LocalSyscall c) {
        if (c == LocalSyscall::kFsync) die();
        return InjectedFault{};
      },
      [&] { CHECK(test::editd_leftovers(test::tree_state(dir.path())).size() == 1); });
  CHECK(test::tree_state(dir.path()) ==
        std::map<std::string, std::string>{{"sub", "/"}, {"sub/a.txt", "old\n"}});
}

TEST_CASE("a hard-linked file killed in the middle of its write in place gets its bytes back") {
  test::TempDir dir;
  dir.write("a.txt", "old text\n");
  fs::create_hard_link(dir.path() / "a.txt", dir.path() / "link.txt");
  const ino_t ino = ino_of(dir.path() / "a.txt");
  int writes = 0;
  write_in_killed_child(
      dir, "link.txt", "NEW TEXT, LONGER THAN BEFORE\n",
      [&writes](LocalSyscall c) {
        InjectedFault f;
        if (c != LocalSyscall::kWrite) return f;
        if (++writes == 3) die();  // 8 bytes of the new text are in the file
        f.max_bytes = 4;
        return f;
      },
      [&] { CHECK(dir.read("a.txt") == "NEW TEXT\n"); });
  CHECK(dir.read("a.txt") == "old text\n");
  CHECK(dir.read("link.txt") == "old text\n");
  CHECK(ino_of(dir.path() / "a.txt") == ino);
  CHECK(ino_of(dir.path() / "link.txt") == ino);
  CHECK(test::editd_leftovers(test::tree_state(dir.path())).empty());
}

TEST_CASE(
    "a start under another key never removes what a killed change's journal still needs: its "
    "own editd completes it whole") {
  // Two editd with different state directories (two keys) on one root,
  // sharing the runtime directory as every editd of a user does. A is killed
  // in the middle of a change's renames; B starts, then A again. The fork
  // comes before any thread of this test exists.
  test::TempDir dir, runtime, state_a, state_b;
  const int kFiles = 6;
  auto rel = [](int i) { return "f" + std::to_string(i) + ".txt"; };
  for (int i = 0; i < kFiles; ++i) dir.write(rel(i), "old\n");
  auto options = [&](const test::TempDir& state) {
    LocalBackendOptions o;
    o.root = dir.str();
    o.runtime_dir = runtime.str();
    o.state_dir = state.str();
    return o;
  };
  bool registry = true;
  SUBCASE("B finds the dead writer's registry of temporary files") {}
  SUBCASE("B recovers a journal of its own that names the same directory") { registry = false; }
  CAPTURE(registry);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    asio::thread_pool pool{1};
    asio::io_context io;
    LocalBackendOptions o = options(state_a);
    int renames = 0;
    o.inject = [&renames](LocalSyscall c, const std::string&) -> InjectedFault {
      if (c == LocalSyscall::kRename && ++renames == 2) ::_exit(0);  // killed: one renamed
      return {};
    };
    auto b = make_local_backend(o, pool);
    if (b) {
      std::vector<Op> ops;
      for (int i = 0; i < kFiles; ++i) ops.push_back(write_op(*(*b)->resolve(rel(i)), "new\n"));
      std::vector<std::size_t> applied;
      test::run(io, (*b)->apply_batch(std::move(ops), applied));
    }
    ::_exit(1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  const auto killed = test::tree_state(dir.path());
  // The journal, and a staged file for each file not yet renamed.
  REQUIRE(test::editd_leftovers(killed).size() >= static_cast<std::size_t>(kFiles));
  if (!registry) {
    fs::remove_all(runtime.path() / "writers");
    write_journal(dir, state_b, "b-1-crafted", "editd-journal 2\ntmp . .f0.txt.editd-ZZZZZZ\n");
  }
  {
    asio::thread_pool pool{1};
    REQUIRE(make_local_backend(options(state_b), pool).has_value());
  }
  CHECK(test::tree_state(dir.path()) == killed);
  {
    asio::thread_pool pool{1};
    REQUIRE(make_local_backend(options(state_a), pool).has_value());
  }
  std::map<std::string, std::string> whole;
  for (int i = 0; i < kFiles; ++i) whole[rel(i)] = "new\n";
  CHECK(test::tree_state(dir.path()) == whole);
}

TEST_CASE("recovery rolls a committed journal forward, keeping what changed since the crash") {
  Local f;
  f.dir.write("a.txt", "old a\n");
  f.dir.write(".a.txt.editd-AAAAAA", "new a\n");
  f.dir.write("done.txt", "new done\n");  // renamed before the crash: its temporary file is gone
  f.dir.write("gone.txt", "gone\n");
  f.dir.write("d/.c.txt.editd-CCCCCC", "new c\n");
  f.dir.write("kept.txt", "changed after the crash\n");
  f.dir.write(".kept.txt.editd-KKKKKK", "stale\n");
  const auto a = ino_of(f.dir.path() / "a.txt");
  const auto ta = ino_of(f.dir.path() / ".a.txt.editd-AAAAAA");
  const auto tc = ino_of(f.dir.path() / "d/.c.txt.editd-CCCCCC");
  const auto tk = ino_of(f.dir.path() / ".kept.txt.editd-KKKKKK");
  const auto gone = ino_of(f.dir.path() / "gone.txt");
  std::string j =
      "editd-journal 1\n"
      "dir d\n"
      "tmp . .a.txt.editd-AAAAAA\n"
      "tmp . .done.txt.editd-DDDDDD\n"
      "tmp d .c.txt.editd-CCCCCC\n"
      "tmp . .kept.txt.editd-KKKKKK\n";
  j += "mv . .a.txt.editd-AAAAAA a.txt " + std::to_string(ta) + " " + std::to_string(a) + "\n";
  j += "mv . .done.txt.editd-DDDDDD done.txt 1 -\n";
  j += "mv d .c.txt.editd-CCCCCC c.txt " + std::to_string(tc) + " -\n";
  j += "mv . .kept.txt.editd-KKKKKK kept.txt " + std::to_string(tk) + " 1\n";
  j += "rm . gone.txt " + std::to_string(gone) + "\n";
  j += "commit 5\n";
  write_journal(f, "b-1-crafted", j);
  f.reopen();
  CHECK(f.tree() == std::map<std::string, std::string>{{"a.txt", "new a\n"},
                                                       {"d", "/"},
                                                       {"d/c.txt", "new c\n"},
                                                       {"done.txt", "new done\n"},
                                                       {"kept.txt", "changed after the crash\n"}});
}

TEST_CASE("recovery rolls back a journal without a complete commit, and an aborted one") {
  for (std::string end : {"", "commit 1", "commit 2\n", "commit 1\nabort\n"}) {
    CAPTURE(end);
    Local f;
    f.dir.write("a.txt", "old a\n");
    f.dir.write(".a.txt.editd-AAAAAA", "new a\n");
    f.dir.write("n/m/.c.txt.editd-CCCCCC", "new c\n");
    f.dir.write("n/m/.other.editd-ZZZZZZ", "a stray temporary file of the same dead writer\n");
    std::string j =
        "editd-journal 1\ndir n\ndir n/m\ntmp . .a.txt.editd-AAAAAA\ntmp n/m .c.txt.editd-CCCCCC\n";
    j += "mv . .a.txt.editd-AAAAAA a.txt " +
         std::to_string(ino_of(f.dir.path() / ".a.txt.editd-AAAAAA")) + " " +
         std::to_string(ino_of(f.dir.path() / "a.txt")) + "\n";
    write_journal(f, "b-7-crafted", j + end);
    f.reopen();
    CHECK(f.tree() == std::map<std::string, std::string>{{"a.txt", "old a\n"}});
  }
}

TEST_CASE("recovery leaves the journal and temporary files of a live writer alone") {
  Local f;
  f.dir.write("a.txt", "old\n");
  f.dir.write(".a.txt.editd-AAAAAA", "new\n");
  write_journal(f, "b-9-live", "editd-journal 1\ntmp . .a.txt.editd-AAAAAA\n");
  Fd journal(::open((f.dir.path() / ".editd/journal/b-9-live").c_str(), O_RDONLY | O_CLOEXEC));
  Fd temp(::open((f.dir.path() / ".a.txt.editd-AAAAAA").c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(::flock(journal.get(), LOCK_EX) == 0);
  REQUIRE(::flock(temp.get(), LOCK_EX) == 0);
  const auto before = f.tree();
  f.reopen();
  CHECK(f.tree() == before);
  // Its writer dies: the next start cleans up.
  journal.reset();
  temp.reset();
  f.reopen();
  CHECK(f.tree() == std::map<std::string, std::string>{{"a.txt", "old\n"}});
}

TEST_CASE("recovery acts on no journal that is not editd's own, and leaves each in place") {
  Local f;
  test::TempDir outside;
  outside.write("victim.txt", "outside\n");
  f.dir.write("keep.txt", "keep\n");
  f.dir.write(".keep.txt.editd-KKKKKK", "new keep\n");
  const std::string out_ino = std::to_string(ino_of(outside.path() / "victim.txt"));
  const std::string keep_ino = std::to_string(ino_of(f.dir.path() / "keep.txt"));
  const std::string temp_ino = std::to_string(ino_of(f.dir.path() / ".keep.txt.editd-KKKKKK"));
  const std::string up = fs::relative(outside.path(), f.dir.path()).string();
  // Tagged with this user's key, but naming what editd never writes: a name of
  // more than one component, a directory outside the root or in .editd, a
  // temporary file not named as editd's.
  const std::vector<std::string> bad = {
      "editd-journal 1\ntmp . " + up + "/victim.txt\n",
      "editd-journal 1\ntmp . ../x.editd-AAAAAA\n",
      "editd-journal 1\nrm " + up + " victim.txt " + out_ino + "\ncommit 1\n",
      "editd-journal 1\nrm . ../" + up + "/victim.txt " + out_ino + "\ncommit 1\n",
      "editd-journal 1\nrm " + outside.str() + " victim.txt " + out_ino + "\ncommit 1\n",
      "editd-journal 1\nrm .editd key " + keep_ino + "\ncommit 1\n",
      "editd-journal 1\nmv . keep.txt .editd " + keep_ino + " -\ncommit 1\n",
      "editd-journal 1\nmv . .keep.txt.editd-KKKKKK a/b " + temp_ino + " -\ncommit 1\n",
      "editd-journal 1\ndir " + up + "/made\n",
  };
  for (std::size_t i = 0; i < bad.size(); ++i) write_journal(f, "b-1-bad" + std::to_string(i), bad[i]);
  // Well formed, but not tagged with this user's key: an older editd's, a
  // tree's, another key's.
  const std::string rm_keep = "editd-journal 1\nrm . keep.txt " + keep_ino + "\ncommit 1\n";
  put(f.dir.path() / ".editd/journal/b-2-untagged", rm_keep);
  {
    Local other;  // another state directory: another key
    write_journal(other, "b-3-other", rm_keep);
    put(f.dir.path() / ".editd/journal/b-3-other", other.dir.read(".editd/journal/b-3-other"));
  }
  // Tagged, but under another name: a tag binds the journal's name.
  write_journal(f, "b-4-named", rm_keep);
  fs::rename(f.dir.path() / ".editd/journal/b-4-named", f.dir.path() / ".editd/journal/b-4-renamed");
  // Tagged, with one line changed after.
  write_journal(f, "b-5-edited", "editd-journal 1\nrm . keep.txt 1\ncommit 1\n");
  {
    std::string t = f.dir.read(".editd/journal/b-5-edited");
    t.replace(t.find("keep.txt 1 "), 11, "keep.txt " + keep_ino + " ");
    put(f.dir.path() / ".editd/journal/b-5-edited", t);
  }
  const auto before = f.tree();
  // Not a regular file: a FIFO is never opened for a read that waits.
  const fs::path fifo = f.dir.path() / ".editd/journal/b-6-fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  f.reopen();
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  fs::remove(fifo);
  CHECK(outside.read("victim.txt") == "outside\n");
  CHECK(f.dir.read("keep.txt") == "keep\n");
  CHECK(f.tree() == before);
  // The control: the same removal, tagged as editd tags it, is done.
  write_journal(f, "b-7-ours", rm_keep);
  f.reopen();
  CHECK_FALSE(f.dir.exists("keep.txt"));
  CHECK_FALSE(f.dir.exists(".editd/journal/b-7-ours"));
}

TEST_CASE("resolve refuses editd's own names as denied, from every way of naming them") {
  Local f;
  for (const std::string& path :
       {std::string(".editd"), std::string(".editd/journal"), std::string(".Editd/x"),
        std::string("a/../.editd/journal/b-1"), f.dir.str() + "/.editd",
        std::string("x/.a.txt.editd-AAAAAA"), std::string(".b.editd-123456")}) {
    CAPTURE(path);
    auto r = f.backend->resolve(path);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::kDenied);
  }
  for (const char* fine : {"x/.editd", "x/.editd/journal", ".editdx", ".a.txt.editd-AAAAA",
                           ".a.txt.editd-AAAAAAA", "editd"}) {
    CAPTURE(fine);
    CHECK(f.backend->resolve(fine).has_value());
  }
}

TEST_CASE("a change of several files is made with its journal or refused, unless durability is none") {
  for (bool durable : {true, false}) {
    CAPTURE(durable);
    Local f;
    f.durable = durable;
    f.reopen();
    f.dir.write(".editd", "a file where the journals go\n");
    std::vector<std::size_t> applied;
    auto r = f.batch({write_op(f.path("a.txt"), "a\n"), write_op(f.path("b.txt"), "b\n")}, applied);
    if (durable) {
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().kind == ErrorKind::kIo);
      CHECK(r.error().data["path"] == f.dir.str() + "/.editd/journal");
      CHECK(f.tree() == std::map<std::string, std::string>{{".editd", "a file where the journals go\n"}});
    } else {
      CHECK(r.has_value());
      CHECK(f.dir.read("b.txt") == "b\n");
    }
  }
}

TEST_CASE(
    "recovery removes the temporary files that dead writers' registries point to, and no others") {
  Local f;
  f.dir.write("sub/.a.txt.editd-AAAAAA", "stale\n");
  f.dir.write("sub/.b.txt.editd-BBBBBB", "held by a live writer\n");
  f.dir.write("sub/.c.txt.editd-toolong", "not editd's name\n");
  f.dir.write("other/.d.txt.editd-DDDDDD", "in no registry\n");
  struct stat st;
  REQUIRE(::stat(f.dir.str().c_str(), &st) == 0);
  put(f.state.path() / "writers" / (std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino)) /
          "1-dead",
      "sub\n.\n");
  // Dead registries of other roots: one that is gone, one that still exists.
  test::TempDir other;
  struct stat ost;
  REQUIRE(::stat(other.str().c_str(), &ost) == 0);
  const fs::path gone_root = f.state.path() / "writers" / "1-2" / "3-dead";
  const fs::path other_root = f.state.path() / "writers" /
                              (std::to_string(ost.st_dev) + "-" + std::to_string(ost.st_ino)) /
                              "4-dead";
  put(gone_root, "root /nonexistent/editd/root\nsub\n");
  put(other_root, "root " + other.str() + "\nsub\n");
  Fd held(::open((f.dir.path() / "sub/.b.txt.editd-BBBBBB").c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(::flock(held.get(), LOCK_EX) == 0);
  f.reopen();
  CHECK(f.tree() ==
        std::map<std::string, std::string>{{"other", "/"},
                                           {"other/.d.txt.editd-DDDDDD", "in no registry\n"},
                                           {"sub", "/"},
                                           {"sub/.b.txt.editd-BBBBBB", "held by a live writer\n"},
                                           {"sub/.c.txt.editd-toolong", "not editd's name\n"}});
  CHECK(!fs::exists(f.state.path() / "writers" /
                    (std::to_string(st.st_dev) + "-" + std::to_string(st.st_ino)) / "1-dead"));
  CHECK(!fs::exists(gone_root.parent_path()));
  CHECK(fs::exists(other_root));
}

TEST_CASE(
    "lock() keeps out another backend on the same root or a subdirectory until it is released") {
  test::TempDir root, state;
  fs::create_directory(root.path() / "sub");
  asio::thread_pool pool{2};
  auto make = [&](const std::string& r) {
    LocalBackendOptions o;
    o.root = r;
    o.runtime_dir = state.str();
    auto b = make_local_backend(o, pool);
    REQUIRE(b.has_value());
    return std::move(*b);
  };
  auto outer = make(root.str()), inner = make(root.str() + "/sub");
  const std::string a = *outer->resolve("sub/f.txt"), b = *inner->resolve("f.txt");
  REQUIRE(a == b);
  asio::io_context io;
  auto held = test::run(io, outer->lock({a, *outer->resolve("z.txt")}));
  REQUIRE(held.has_value());

  // A file on another stripe is not held up.
  std::string other = *inner->resolve("other.txt");
  REQUIRE(StripeLocks::stripe_of(other) != StripeLocks::stripe_of(a));
  auto free = test::run(io, inner->lock({other}));
  REQUIRE(free.has_value());

  std::optional<Result<std::unique_ptr<FsBackend::Lock>>> got;
  asio::co_spawn(io, inner->lock({b, other}),
                 [&got](std::exception_ptr e, Result<std::unique_ptr<FsBackend::Lock>> r) {
                   REQUIRE(!e);
                   got.emplace(std::move(r));
                 });
  io.restart();
  io.run_for(std::chrono::milliseconds(200));
  CHECK(!got.has_value());
  held.value().reset();
  io.restart();
  io.run();
  REQUIRE(got.has_value());
  CHECK(got->has_value());
}

TEST_CASE("every injected failure names its kind and path, and nothing is lost") {
  test::TempDir dir;
  asio::thread_pool pool{2};
  asio::io_context io;
  LocalBackendOptions o;
  o.root = dir.str();
  auto local = make_local_backend(o, pool);
  REQUIRE(local.has_value());
  FaultyBackend b(std::move(*local));
  dir.write("a.txt", "a\n");
  dir.write("b.txt", "b\n");
  const auto before = test::tree_state(dir.path());
  struct Case {
    FaultyBackend::Call call;
    int err;
    ErrorKind kind;
  };
  for (Case c : {Case{FaultyBackend::Call::kWrite, ENOSPC, ErrorKind::kIo},
                 Case{FaultyBackend::Call::kWrite, EIO, ErrorKind::kIo},
                 Case{FaultyBackend::Call::kWrite, EACCES, ErrorKind::kDenied},
                 Case{FaultyBackend::Call::kRemove, EIO, ErrorKind::kIo},
                 Case{FaultyBackend::Call::kRead, EIO, ErrorKind::kIo}}) {
    CAPTURE(static_cast<int>(c.call));
    CAPTURE(c.err);
    b.inject({c.call, "a.txt", 0, 1, c.err, c.kind});
    Result<void> r;
    if (c.call == FaultyBackend::Call::kWrite) r = test::run(io, b.write(*b.resolve("a.txt"), "x"));
    if (c.call == FaultyBackend::Call::kRemove) r = test::run(io, b.remove(*b.resolve("a.txt")));
    if (c.call == FaultyBackend::Call::kRead) {
      auto read = test::run(io, b.read(*b.resolve("a.txt")));
      REQUIRE(read.has_error());
      r = read.error();
    }
    REQUIRE(r.has_error());
    CHECK(r.error().kind == c.kind);
    CHECK(r.error().data["path"] == "a.txt");
    CHECK(r.error().data["errno"] == errno_name(c.err));
    CHECK(r.error().message.find("a.txt") != std::string::npos);
    CHECK(test::tree_state(dir.path()) == before);
  }
  CHECK(b.failures() == 5);

  // A rename failing part-way through a batch: the ops before it took effect,
  // and the caller's undo of those brings back every byte.
  b.inject({FaultyBackend::Call::kBatchWrite, "b.txt", 0, 1, EIO, ErrorKind::kIo});
  std::vector<std::size_t> applied;
  auto r = test::run(io, b.apply_batch({write_op(*b.resolve("a.txt"), "A\n"),
                                        write_op(*b.resolve("b.txt"), "B\n")},
                                       applied));
  REQUIRE(r.has_error());
  CHECK(r.error().data["path"] == "b.txt");
  CHECK(applied == std::vector<std::size_t>{0});
  CHECK(dir.read("a.txt") == "A\n");
  CHECK(dir.read("b.txt") == "b\n");
  REQUIRE(test::run(io, b.write(*b.resolve("a.txt"), "a\n")).has_value());
  CHECK(test::tree_state(dir.path()) == before);
}

// What a file carries besides its bytes (docs/protocol.md, "Byte fidelity").
TEST_CASE("a write keeps every extended attribute of the file it replaces, its ACL included") {
  Local f;
  SKIP_UNLESS_ACLS(f.dir.path());
  f.dir.write("a.txt", "a\n");
  f.dir.write("b.txt", "b\n");
  for (const char* name : {"a.txt", "b.txt"}) {
    const fs::path p = f.dir.path() / name;
    REQUIRE(test::set_xattr(p, "user.origin", std::string("from\0web", 8)));
    REQUIRE(test::set_xattr(p, "user.tag", "blue"));
    REQUIRE(test::set_xattr(p, "system.posix_acl_access", test::acl_granting(4242, 0640)));
  }
  const auto before = test::xattrs_of(f.dir.path() / "a.txt");
  const unsigned mode = test::mode_of(f.dir.path() / "a.txt");
  REQUIRE(before.size() == 3);

  REQUIRE(f.run(f.backend->write(f.path("a.txt"), "A\n")).has_value());
  std::vector<std::size_t> applied;
  REQUIRE(f.batch({write_op(f.path("b.txt"), "B\n"), write_op(f.path("c.txt"), "C\n")}, applied)
              .has_value());
  for (const char* name : {"a.txt", "b.txt"}) {
    CAPTURE(name);
    CHECK(test::xattrs_of(f.dir.path() / name) == before);
    CHECK(test::mode_of(f.dir.path() / name) == mode);
  }
  CHECK(f.dir.read("a.txt") == "A\n");
  CHECK(f.dir.read("b.txt") == "B\n");
}

TEST_CASE("an edited file without an ACL does not take its directory's default ACL") {
  Local f;
  SKIP_UNLESS_ACLS(f.dir.path());
  f.dir.write("d/a.txt", "a\n");
  f.dir.write("d/b.txt", "b\n");
  ::chmod((f.dir.path() / "d/a.txt").c_str(), 0640);
  ::chmod((f.dir.path() / "d/b.txt").c_str(), 0600);
  // A default ACL set after the files were made: it would grant user 4242 rw.
  REQUIRE(test::set_xattr(f.dir.path() / "d", "system.posix_acl_default",
                          test::acl_granting(4242, 0755)));
  REQUIRE(f.run(f.backend->write(f.path("d/a.txt"), "A\n")).has_value());
  std::vector<std::size_t> applied;
  REQUIRE(f.batch({write_op(f.path("d/b.txt"), "B\n"), write_op(f.path("a.txt"), "x\n")}, applied)
              .has_value());
  CHECK(test::xattrs_of(f.dir.path() / "d/a.txt").empty());
  CHECK(test::xattrs_of(f.dir.path() / "d/b.txt").empty());
  CHECK(test::mode_of(f.dir.path() / "d/a.txt") == 0640);
  CHECK(test::mode_of(f.dir.path() / "d/b.txt") == 0600);
}

TEST_CASE("a new file gets the mode open(O_CREAT, 0666) gives: the default ACL's, else the umask's") {
  Local f;
  SKIP_UNLESS_ACLS(f.dir.path());
  // Under a default ACL the umask does not count: rw for the group, as touch gives.
  fs::create_directories(f.dir.path() / "shared");
  const std::string acl = test::posix_acl({{test::kAclUserObj, 7},
                                           {test::kAclUser, 6, 4242},
                                           {test::kAclGroupObj, 7},
                                           {test::kAclMask, 7},
                                           {test::kAclOther, 5}});
  REQUIRE(test::set_xattr(f.dir.path() / "shared", "system.posix_acl_default", acl));
  const mode_t old_umask = ::umask(027);
  REQUIRE(f.run(f.backend->write(f.path("shared/one.txt"), "1\n")).has_value());
  std::vector<std::size_t> applied;
  REQUIRE(f.batch({write_op(f.path("shared/two.txt"), "2\n"), write_op(f.path("three.txt"), "3\n")},
                  applied)
              .has_value());
  REQUIRE(f.run(f.backend->write(f.path("four.txt"), "4\n")).has_value());
  ::umask(old_umask);
  for (const char* name : {"shared/one.txt", "shared/two.txt"}) {
    CAPTURE(name);
    CHECK(test::mode_of(f.dir.path() / name) == 0664);
    CHECK(test::xattrs_of(f.dir.path() / name).count("system.posix_acl_access") == 1);
  }
  CHECK(test::mode_of(f.dir.path() / "three.txt") == 0640);
  CHECK(test::mode_of(f.dir.path() / "four.txt") == 0640);
}

TEST_CASE("a hard-linked file is written in place: its inode kept, every name sees the change") {
  Local f;
  f.dir.write("a.txt", "one\ntwo\n");
  f.dir.write("other.txt", "other\n");
  fs::create_directories(f.dir.path() / "sub");
  fs::create_hard_link(f.dir.path() / "a.txt", f.dir.path() / "sub/link.txt");
  ::chmod((f.dir.path() / "a.txt").c_str(), 0640);
  const ino_t ino = ino_of(f.dir.path() / "a.txt");

  REQUIRE(f.run(f.backend->write(f.path("a.txt"), "ONE\n")).has_value());
  CHECK(ino_of(f.dir.path() / "a.txt") == ino);
  CHECK(f.dir.read("sub/link.txt") == "ONE\n");

  std::vector<std::size_t> applied;
  REQUIRE(f.batch({write_op(f.path("other.txt"), "OTHER\n"),
                   write_op(f.path("sub/link.txt"), "a longer text than before\n")},
                  applied)
              .has_value());
  CHECK(applied.size() == 2);
  CHECK(ino_of(f.dir.path() / "a.txt") == ino);
  CHECK(f.dir.read("a.txt") == "a longer text than before\n");
  CHECK(test::mode_of(f.dir.path() / "a.txt") == 0640);
  CHECK(test::editd_leftovers(f.tree()).empty());
}

TEST_CASE("a hard-linked file with a name outside the root is refused, and nothing changes") {
  test::TempDir outside;
  Local f;
  f.dir.write("a.txt", "in\n");
  std::error_code ec;
  fs::create_hard_link(f.dir.path() / "a.txt", outside.path() / "a.txt", ec);
  if (ec) {
    MESSAGE("skipped: " << outside.str() << " is on another filesystem than the root");
    return;
  }
  auto r = f.run(f.backend->write(f.path("a.txt"), "changed\n"));
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kDenied);
  CHECK(r.error().data["reason"] == "hard_links_outside_root");
  CHECK(r.error().data["links"] == 2);
  CHECK(r.error().data["linksInRoot"] == 1);
  CHECK(outside.read("a.txt") == "in\n");
  CHECK(f.dir.read("a.txt") == "in\n");
  CHECK(fs::hard_link_count(f.dir.path() / "a.txt") == 2);
}

TEST_CASE("a crash at any step of a change in place of a hard-linked file rolls it back or forward") {
  ino_t ino = 0;
  auto setup = [&ino](Local& f) {
    for (const auto& e : fs::directory_iterator(f.dir.path())) fs::remove_all(e.path());
    f.dir.write("a.txt", "the old text of a\n");
    f.dir.write("b.txt", "b\n");
    fs::create_hard_link(f.dir.path() / "a.txt", f.dir.path() / "link.txt");
    ino = ino_of(f.dir.path() / "a.txt");
  };
  auto ops = [](Local& f) {
    return std::vector<Op>{write_op(f.path("link.txt"), "A, rewritten in place\n"),
                           write_op(f.path("b.txt"), "B\n")};
  };
  // Short writes: a crash may cut the change in place in the middle.
  auto short_writes = [](LocalSyscall c) {
    InjectedFault f;
    if (c == LocalSyscall::kWrite) f.max_bytes = 4;
    return f;
  };
  crash_at_every_step(setup, ops, short_writes, [&ino](Local& f) {
    CHECK(ino_of(f.dir.path() / "a.txt") == ino);
    CHECK(ino_of(f.dir.path() / "link.txt") == ino);
  });
}

TEST_CASE("list: two levels, hidden names left out, links listed and never followed, bounded") {
  for (bool openat2 : {true, false}) {
    CAPTURE(openat2);
    Local f(openat2);
    test::TempDir outside;
    outside.write("secret.txt", "x\n");
    f.dir.write("b.txt", "b\n");
    f.dir.write("a/one.txt", "1\n");
    f.dir.write("a/deep/two.txt", "2\n");
    f.dir.write(".git/config", "c\n");
    f.dir.write("a/.cache/x", "x\n");
    fs::create_directory_symlink(outside.path(), f.dir.path() / "link");
    auto names = [](const FsBackend::Listing& l) {
      std::vector<std::string> out;
      for (const auto& e : l.entries) out.push_back(e.path + (e.directory ? "/" : ""));
      return out;
    };
    auto two = f.run(f.backend->list(f.path("."), 2, 100));
    REQUIRE(two.has_value());
    CHECK(names(*two) == std::vector<std::string>{"a/", "a/deep/", "a/one.txt", "b.txt", "link"});
    CHECK_FALSE(two->truncated);
    auto one = f.run(f.backend->list(f.path("a"), 1, 100));
    REQUIRE(one.has_value());
    CHECK(names(*one) == std::vector<std::string>{"deep/", "one.txt"});
    auto capped = f.run(f.backend->list(f.path("."), 2, 2));
    REQUIRE(capped.has_value());
    CHECK(capped->truncated);
    CHECK(capped->entries.size() == 2);
    auto missing = f.run(f.backend->list(f.path("nope"), 2, 100));
    REQUIRE(missing.has_error());
    CHECK(missing.error().kind == ErrorKind::kNotFound);
  }
}
