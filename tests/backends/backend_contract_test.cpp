// The FsBackend contract, run against every backend alike.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <map>

#include "backends/delegated/delegated_backend.h"
#include "backends/memory/faulty_backend.h"
#include "backends/local/local_backend.h"
#include "backends/memory/memory_backend.h"
#include "helpers/process.h"
#include "helpers/run.h"

using namespace editd;
using editd::test::run;

namespace {

LocalBackendOptions local_options(const std::string& root, bool read_only = false) {
  LocalBackendOptions o;
  o.root = root;
  o.read_only = read_only;
  o.max_file_bytes = 1 << 20;
  return o;
}

// A fixture per backend: make() gives a backend rooted somewhere empty.
struct LocalFixture {
  test::TempDir dir;
  boost::asio::thread_pool pool{2};
  std::unique_ptr<FsBackend> backend;
  explicit LocalFixture(bool openat2 = true) {
    LocalBackendOptions o = local_options(dir.str());
    o.use_openat2 = openat2;
    auto b = make_local_backend(o, pool);
    REQUIRE(b.has_value());
    backend = std::move(*b);
  }
};

// The local backend resolving paths by its component walk, as it does where
// the kernel (or a seccomp filter) refuses openat2.
struct LocalWalkFixture : LocalFixture {
  LocalWalkFixture() : LocalFixture(false) {}
};

// The fault-injection decorator over the local backend, with no fault set: a
// transparent wrapper.
struct FaultyLocalFixture : LocalFixture {
  FaultyLocalFixture() { backend = std::make_unique<FaultyBackend>(std::move(backend)); }
};

struct MemoryFixture {
  std::unique_ptr<FsBackend> backend = std::make_unique<MemoryBackend>();
};

// An ACP client that serves fs/* from a map, answering on a later turn of the
// event loop as a real client would. Requests are recorded.
class FakeClient : public ClientChannel {
 public:
  std::map<std::string, std::string> files;
  std::vector<nlohmann::json> requests;  // {method, params}
  // The next answer is this client error ({code, message, data?}) instead.
  std::optional<nlohmann::json> fail_next;
  // The next call gets no answer: what Connection::call reports then.
  bool time_out_next = false;

  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout) override {
    auto ex = co_await boost::asio::this_coro::executor;
    co_await boost::asio::post(ex, boost::asio::use_awaitable);
    co_return answer(method, params, timeout);
  }

 private:
  Result<nlohmann::json> answer(const std::string& method, const nlohmann::json& params,
                                std::chrono::milliseconds timeout) {
    requests.push_back({{"method", method}, {"params", params}});
    if (time_out_next) {
      time_out_next = false;
      return Error(ErrorKind::kTimeout, "the client did not answer " + method,
                   {{"method", method}, {"timeoutMs", timeout.count()}});
    }
    if (fail_next) {
      nlohmann::json e = *fail_next;
      fail_next.reset();
      nlohmann::json data = {{"code", e["code"]}};
      if (e.contains("data")) data["data"] = e["data"];
      return Error(ErrorKind::kDelegateFailed, e["message"].get<std::string>(), data);
    }
    const std::string path = params.at("path");
    if (method == "fs/read_text_file") {
      auto it = files.find(path);
      if (it == files.end())
        return Error(ErrorKind::kNotFound, "Resource not found: " + path,
                     {{"code", -32002}, {"data", {{"uri", path}}}});
      return nlohmann::json{{"content", it->second}};
    }
    if (method == "fs/write_text_file") {
      files[path] = params.at("content").get<std::string>();
      return nlohmann::json(nullptr);
    }
    return Error(ErrorKind::kDelegateFailed, "Method not found", {{"code", -32601}});
  }
};

// The delegated backend over a fake client; `dir` is the root, which must stay empty.
struct DelegatedFixture {
  test::TempDir dir;
  FakeClient client;
  std::unique_ptr<FsBackend> backend;
  DelegatedFixture() {
    DelegatedBackendOptions o;
    o.root = dir.str();
    o.session_id = "sess-1";
    o.timeout = std::chrono::milliseconds(1000);
    o.max_file_bytes = 1 << 20;
    backend = make_delegated_backend(o, client);
  }
  ~DelegatedFixture() { CHECK(dir.files().empty()); }
};

}  // namespace

TEST_CASE_TEMPLATE("a backend round-trips bytes exactly", F, LocalFixture, LocalWalkFixture,
                   FaultyLocalFixture, MemoryFixture, DelegatedFixture) {
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

TEST_CASE_TEMPLATE("a backend's size hint is the size a read returns, 0 where it returns none",
                   F, LocalFixture, LocalWalkFixture, FaultyLocalFixture, MemoryFixture,
                   DelegatedFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto path = b.resolve("dir/h.txt");
  REQUIRE(path.has_value());
  REQUIRE(run(io, b.write(*path, std::string(1000, 'x'))).has_value());
  // A medium that cannot tell without reading (an ACP client) says nothing.
  const bool tells = b.size_hint(*path).has_value();
  CHECK(tells == !std::is_same_v<F, DelegatedFixture>);
  if (!tells) return;
  CHECK(b.size_hint(*path) == std::optional<std::uint64_t>(1000));
  CHECK(b.size_hint(*b.resolve("dir/missing.txt")) == std::optional<std::uint64_t>(0));
  CHECK(b.size_hint(*b.resolve("dir")) == std::optional<std::uint64_t>(0));
}

TEST_CASE_TEMPLATE("a backend writes pieces as their concatenation", F, LocalFixture,
                   LocalWalkFixture, FaultyLocalFixture, MemoryFixture, DelegatedFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto path = b.resolve("dir/p.txt");
  REQUIRE(path.has_value());
  // More pieces than one writev takes (IOV_MAX, 1024), empty ones among them.
  std::vector<std::string> owned;
  for (int i = 0; i < 2500; ++i) owned.push_back(i % 7 == 0 ? "" : std::to_string(i) + "\n");
  std::vector<std::string_view> pieces(owned.begin(), owned.end());
  std::string whole;
  for (const std::string& s : owned) whole += s;
  REQUIRE(run(io, b.write_pieces(*path, pieces)).has_value());
  auto back = run(io, b.read(*path));
  REQUIRE(back.has_value());
  CHECK(*back == whole);
  // No pieces: an empty file.
  REQUIRE(run(io, b.write_pieces(*path, {})).has_value());
  CHECK(run(io, b.read(*path)).value().empty());
}

TEST_CASE_TEMPLATE("a backend reports a missing file as not_found and kMissing", F, LocalFixture,
                   LocalWalkFixture, FaultyLocalFixture, MemoryFixture, DelegatedFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto missing = run(io, b.read(*b.resolve("nope.txt")));
  REQUIRE(missing.has_error());
  CHECK(missing.error().kind == ErrorKind::kNotFound);
  CHECK(run(io, b.stat(*b.resolve("zzz")))->type == FileStat::Type::kMissing);
  REQUIRE(run(io, b.write(*b.resolve("here.txt"), "")).has_value());
  CHECK(run(io, b.stat(*b.resolve("here.txt")))->type == FileStat::Type::kFile);
  CHECK(run(io, b.read(*b.resolve("here.txt"))).value() == "");
}

// The delegated backend has no directories (ACP has none): see delegated_backend.h.
TEST_CASE_TEMPLATE("a backend with directories reports them by kind", F, LocalFixture,
                   LocalWalkFixture, FaultyLocalFixture, MemoryFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
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

TEST_CASE_TEMPLATE("a backend removes files and refuses to remove what is not a file", F,
                   LocalFixture, LocalWalkFixture, FaultyLocalFixture, MemoryFixture) {
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

TEST_CASE_TEMPLATE("the directories a write would create can be removed again, innermost first", F,
                   LocalFixture, LocalWalkFixture, FaultyLocalFixture, MemoryFixture,
                   DelegatedFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  REQUIRE(run(io, b.write(*b.resolve("have/x.txt"), "x")).has_value());
  CHECK(b.missing_directories(*b.resolve("have/y.txt")).empty());
  CHECK(b.missing_directories(*b.resolve("top.txt")).empty());
  auto file = *b.resolve("have/new/deeper/f.txt");
  std::vector<std::string> missing = b.missing_directories(file);
  REQUIRE(run(io, b.write(file, "f")).has_value());
  for (const std::string& d : missing) CHECK(run(io, b.stat(d))->type == FileStat::Type::kDirectory);
  if (!missing.empty()) {
    CHECK(run(io, b.remove_directory(missing.back())).error().kind == ErrorKind::kIo);  // not empty
    REQUIRE(run(io, b.remove(file)).has_value());
    for (auto d = missing.rbegin(); d != missing.rend(); ++d)
      CHECK(run(io, b.remove_directory(*d)).has_value());
    CHECK(run(io, b.stat(missing.front()))->type == FileStat::Type::kMissing);
    CHECK(run(io, b.stat(*b.resolve("have/x.txt")))->type == FileStat::Type::kFile);
  }
}

TEST_CASE_TEMPLATE("a backend applies a batch whole, and says which ops took effect when one fails",
                   F, LocalFixture, LocalWalkFixture, FaultyLocalFixture, MemoryFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  using Op = FileChange;
  const std::string a = *b.resolve("a.txt"), c = *b.resolve("new/c.txt"),
                    gone = *b.resolve("gone.txt");
  REQUIRE(run(io, b.write(a, "a")).has_value());
  REQUIRE(run(io, b.write(gone, "gone")).has_value());
  std::vector<std::size_t> applied;
  REQUIRE(run(io, b.apply_batch({Op{Op::Kind::kWrite, a, "A", std::nullopt, std::nullopt},
                                 Op{Op::Kind::kWrite, c, "C", std::nullopt, std::nullopt},
                                 Op{Op::Kind::kRemove, gone, "", std::nullopt, std::nullopt}},
                                applied))
              .has_value());
  CHECK(applied == std::vector<std::size_t>{0, 1, 2});
  CHECK(run(io, b.read(a)).value() == "A");
  CHECK(run(io, b.read(c)).value() == "C");
  CHECK(run(io, b.read(gone)).error().kind == ErrorKind::kNotFound);

  applied.clear();
  auto r = run(io, b.apply_batch({Op{Op::Kind::kWrite, a, "AA", std::nullopt, std::nullopt},
                                  Op{Op::Kind::kRemove, gone, "", std::nullopt, std::nullopt}},
                                 applied));
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kNotFound);
  // MemoryBackend's not_found carries no data.path (yet), unlike apply_batch's contract says.
  if constexpr (!std::is_same_v<F, MemoryFixture>) CHECK(r.error().data["path"] == "gone.txt");
  const bool first = std::find(applied.begin(), applied.end(), 0) != applied.end();
  CHECK(run(io, b.read(a)).value() == (first ? "AA" : "A"));
  CHECK(std::find(applied.begin(), applied.end(), 1) == applied.end());
}

TEST_CASE_TEMPLATE(
    "a backend with modes keeps a file's mode, and a batch write sets the one it carries", F,
    LocalFixture, LocalWalkFixture, FaultyLocalFixture, MemoryFixture, DelegatedFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  using Op = FileChange;
  const std::string a = *b.resolve("a.txt"), moved = *b.resolve("sub/moved.txt");
  REQUIRE(run(io, b.write(a, "a")).has_value());
  auto st = run(io, b.stat(a));
  REQUIRE(st.has_value());
  if (!b.has_modes()) {
    CHECK_FALSE(st->attributes.has_value());
    // Carried attributes are ignored, never an error.
    std::vector<std::size_t> applied;
    FileAttributes secret{0600, 0, 0};
    CHECK(run(io, b.apply_batch({Op{Op::Kind::kWrite, a, "b", secret, std::nullopt}}, applied))
              .has_value());
    CHECK(run(io, b.read(a)).value() == "b");
    return;
  }
  REQUIRE(st->attributes.has_value());
  FileAttributes secret = *st->attributes;
  secret.mode = 0600;
  FileAttributes script = secret;
  script.mode = 0755;
  std::vector<std::size_t> applied;
  REQUIRE(run(io, b.apply_batch({Op{Op::Kind::kWrite, a, "b", secret, std::nullopt},
                                 Op{Op::Kind::kWrite, moved, "m", script, std::nullopt}},
                                applied))
              .has_value());
  CHECK(run(io, b.stat(a))->attributes == secret);
  CHECK(run(io, b.stat(moved))->attributes == script);
  // A plain write keeps the mode; a removed and recreated file gets the default again.
  REQUIRE(run(io, b.write(a, "c")).has_value());
  CHECK(run(io, b.stat(a))->attributes->mode == 0600);
  REQUIRE(run(io, b.remove(moved)).has_value());
  REQUIRE(run(io, b.write(moved, "n")).has_value());
  CHECK(run(io, b.stat(moved))->attributes->mode != 0755);
}

TEST_CASE_TEMPLATE("a backend's lock can be taken on several paths and given back", F, LocalFixture,
                   LocalWalkFixture, FaultyLocalFixture, MemoryFixture, DelegatedFixture) {
  F f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  std::vector<std::string> paths{*b.resolve("a.txt"), *b.resolve("d/b.txt")};
  for (int i = 0; i < 3; ++i) {
    auto held = run(io, b.lock(paths));
    REQUIRE(held.has_value());
    CHECK(held.value() != nullptr);
  }
}

TEST_CASE("the local backend names the directories a write would create, outermost first") {
  LocalFixture f;
  FsBackend& b = *f.backend;
  CHECK(b.missing_directories(*b.resolve("a/b/c.txt")) ==
        std::vector<std::string>{f.dir.str() + "/a", f.dir.str() + "/a/b"});
  CHECK(b.can_remove());
}

TEST_CASE_TEMPLATE("a backend confines paths to its root", F, LocalFixture, LocalWalkFixture,
                   FaultyLocalFixture, MemoryFixture, DelegatedFixture) {
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

// procfs gives its files a size of 0, and so do some FUSE mounts; a file may
// also grow between the fstat and the read. A read goes on until read() says
// the file has ended, and --max-file-bytes holds for what it finds.
TEST_CASE("the local backend reads a file to its end, whatever fstat said its size was") {
  struct stat st;
  REQUIRE(::stat("/proc/self/status", &st) == 0);
  REQUIRE(st.st_size == 0);  // the premise: fstat does not know the size
  boost::asio::io_context io;
  boost::asio::thread_pool pool{1};
  auto b = make_local_backend(local_options("/proc/self"), pool);
  REQUIRE(b.has_value());
  auto r = run(io, (*b)->read(*(*b)->resolve("status")));
  REQUIRE(r.has_value());
  CHECK(r->starts_with("Name:"));
  CHECK(r->find("\nPid:") != std::string::npos);

  LocalBackendOptions o = local_options("/proc/self");
  o.max_file_bytes = 16;
  auto small = make_local_backend(o, pool);
  REQUIRE(small.has_value());
  auto big = run(io, (*small)->read(*(*small)->resolve("status")));
  REQUIRE(big.has_error());
  CHECK(big.error().kind == ErrorKind::kTooLarge);
}

TEST_CASE("the local backend read-only mode denies writes and removes") {
  test::TempDir dir;
  boost::asio::thread_pool pool{1};
  auto b = make_local_backend(local_options(dir.str(), true), pool);
  REQUIRE(b.has_value());
  boost::asio::io_context io;
  auto w = run(io, (*b)->write(*(*b)->resolve("a"), "x"));
  REQUIRE(w.has_error());
  CHECK(w.error().kind == ErrorKind::kDenied);
  CHECK_FALSE(dir.exists("a"));
}

TEST_CASE("a missing root is refused") {
  boost::asio::thread_pool pool{1};
  auto b = make_local_backend(local_options("/nonexistent/editd/root"), pool);
  REQUIRE(b.has_error());
  CHECK(b.error().kind == ErrorKind::kNotFound);
}

TEST_CASE(
    "the delegated backend sends whole-file requests with absolute paths and the session id") {
  DelegatedFixture f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto path = *b.resolve("src/../src/a.txt");
  CHECK(path == f.dir.str() + "/src/a.txt");
  REQUIRE(run(io, b.write(path, "x\r\n")).has_value());
  REQUIRE(run(io, b.read(path)).value() == "x\r\n");
  REQUIRE(f.client.requests.size() == 2);
  CHECK(f.client.requests[0] ==
        nlohmann::json(
            {{"method", "fs/write_text_file"},
             {"params", {{"sessionId", "sess-1"}, {"path", path}, {"content", "x\r\n"}}}}));
  CHECK(f.client.requests[1] ==
        nlohmann::json({{"method", "fs/read_text_file"},
                        {"params", {{"sessionId", "sess-1"}, {"path", path}}}}));
  CHECK(f.client.files.count(path) == 1);
}

TEST_CASE("the delegated backend resolves lexically and refuses paths outside the root") {
  DelegatedFixture f;
  FsBackend& b = *f.backend;
  CHECK(b.resolve("/etc/passwd").error().kind == ErrorKind::kOutsideRoot);
  CHECK(b.resolve(f.dir.str() + "/../x").error().kind == ErrorKind::kOutsideRoot);
  CHECK(b.resolve(f.dir.str() + "x").error().kind == ErrorKind::kOutsideRoot);
  CHECK(*b.resolve(f.dir.str() + "//a/./b/") == f.dir.str() + "/a/b");
  CHECK(*b.resolve(".") == f.dir.str());
  CHECK(b.display_path(*b.resolve("a/b.txt")) == "a/b.txt");
}

TEST_CASE(
    "the delegated backend maps client errors: -32002 to not_found, others to delegate_failed") {
  DelegatedFixture f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto path = *b.resolve("a.txt");
  f.client.fail_next =
      nlohmann::json{{"code", -32603}, {"message", "buffer is locked"}, {"data", {{"why", 1}}}};
  auto r = run(io, b.read(path));
  REQUIRE(r.has_error());
  CHECK(r.error().kind == ErrorKind::kDelegateFailed);
  CHECK(r.error().message.find("buffer is locked") != std::string::npos);
  CHECK(r.error().data["path"] == "a.txt");
  CHECK(r.error().data["method"] == "fs/read_text_file");
  CHECK(
      r.error().data["clientError"] ==
      nlohmann::json({{"code", -32603}, {"message", "buffer is locked"}, {"data", {{"why", 1}}}}));

  f.client.fail_next = nlohmann::json{{"code", -32002}, {"message", "gone"}};
  auto nf = run(io, b.read(path));
  REQUIRE(nf.has_error());
  CHECK(nf.error().kind == ErrorKind::kNotFound);
  CHECK(nf.error().data["clientError"]["message"] == "gone");

  f.client.fail_next = nlohmann::json{{"code", 1}, {"message", "disk full"}};
  auto w = run(io, b.write(path, "x"));
  REQUIRE(w.has_error());
  CHECK(w.error().kind == ErrorKind::kDelegateFailed);
  CHECK(w.error().data["method"] == "fs/write_text_file");
  CHECK(f.client.files.empty());

  f.client.time_out_next = true;
  auto t = run(io, b.stat(path));
  REQUIRE(t.has_error());
  CHECK(t.error().kind == ErrorKind::kTimeout);
  CHECK(t.error().data["path"] == "a.txt");
}

TEST_CASE(
    "the delegated backend refuses what ACP cannot carry: deletes, non-UTF-8 and oversized files") {
  DelegatedFixture f;
  boost::asio::io_context io;
  FsBackend& b = *f.backend;
  auto path = *b.resolve("a.txt");
  CHECK(run(io, b.remove(path)).error().kind == ErrorKind::kNotFound);
  f.client.files[path] = "keep\n";
  auto rm = run(io, b.remove(path));
  REQUIRE(rm.has_error());
  CHECK(rm.error().kind == ErrorKind::kDenied);
  CHECK(rm.error().data["reason"] == "unsupported");
  CHECK(f.client.files[path] == "keep\n");
  CHECK(!b.can_remove());

  CHECK(run(io, b.write(path, "caf\xe9")).error().kind == ErrorKind::kNotText);
  CHECK(run(io, b.write(path, std::string((1 << 20) + 1, 'x'))).error().kind ==
        ErrorKind::kTooLarge);
  f.client.files[path] = std::string((1 << 20) + 1, 'x');
  CHECK(run(io, b.read(path)).error().kind == ErrorKind::kTooLarge);
}

TEST_CASE("the delegated backend in read-only mode denies writes without asking the client") {
  test::TempDir dir;
  FakeClient client;
  DelegatedBackendOptions o;
  o.root = dir.str();
  o.read_only = true;
  auto b = make_delegated_backend(o, client);
  boost::asio::io_context io;
  CHECK(run(io, b->write(*b->resolve("a"), "x")).error().kind == ErrorKind::kDenied);
  CHECK(run(io, b->remove(*b->resolve("a"))).error().kind == ErrorKind::kDenied);
  CHECK(client.requests.empty());
}
