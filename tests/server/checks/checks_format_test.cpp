// Checks::format with real programs and the real clangd (make test installs
// it): what a --format program writes, how each way it can fail is told, the
// --format specs kept apart from the checks, and @lsp's range formatting.
#include <doctest/doctest.h>
#include <signal.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "server/checks/checks.h"
#include "server/checks/launch.h"

using namespace editd;
namespace asio = boost::asio;
using namespace std::chrono_literals;
using Status = Checks::FormatOutcome::Status;

namespace {

struct Root {
  std::filesystem::path path;
  Root() {
    char tmpl[] = "/tmp/editd-format-XXXXXX";
    path = ::mkdtemp(tmpl);
    std::filesystem::create_directories(path / "src");
  }
  ~Root() { std::filesystem::remove_all(path); }
};

diagnostics::Spec format_spec(const std::string& value) {
  auto spec = diagnostics::parse_format_spec(value);
  REQUIRE(spec.has_value());
  return *spec;
}

diagnostics::Spec spec(const std::string& value, bool lsp) {
  auto spec = diagnostics::parse_spec(value, lsp);
  REQUIRE(spec.has_value());
  return *spec;
}

// Runs `co` to its end on `io`; the language servers' read loops run on
// meanwhile.
template <class T>
T run(asio::io_context& io, asio::awaitable<T> co) {
  io.restart();  // a context that ran out of work stays stopped until then
  auto f = asio::co_spawn(io, std::move(co), asio::use_future);
  while (f.wait_for(0s) != std::future_status::ready) io.run_one();
  return f.get();
}

Checks::FormatOutcome format(Checks& checks, const Root& root, const std::string& shown,
                             const std::string& text,
                             std::vector<format_scope::Span> changed = {{0, 1}},
                             std::size_t max_bytes = 1u << 20) {
  ::signal(SIGPIPE, SIG_IGN);  // as editd does (server/server.cpp)
  asio::io_context io;
  Checks::Target t{(root.path / shown).string(), shown};
  auto o = run(io, checks.format(t, text, std::move(changed), max_bytes));
  checks.stop();
  io.poll();
  return o;
}

}  // namespace

TEST_CASE("format: a program's stdout is the text, run in the root with {file} as ./PATH") {
  Root root;
  std::vector<diagnostics::Spec> specs{
      format_spec("*.txt=sh -c 'pwd; printf \"%s\\n\" \"$1\"; tr a-z A-Z' sh {file}")};
  REQUIRE(launch::pin_programs(specs, root.path).has_value());
  CHECK(specs[0].argv[0].starts_with("/"));
  Checks checks(specs, root.path.string(), 30s, 10s);
  Checks::Target t{(root.path / "src/a.txt").string(), "src/a.txt"};
  CHECK(checks.formats(t));
  CHECK_FALSE(checks.formats({(root.path / "a.py").string(), "a.py"}));
  auto o = format(checks, root, "src/a.txt", "hello\nworld\n");
  INFO(o.detail);
  CHECK(o.status == Status::kOk);
  CHECK(o.formatted == root.path.string() + "\n./src/a.txt\nHELLO\nWORLD\n");
  CHECK(o.formatter == specs[0].option);
  CHECK(o.detail.empty());
}

TEST_CASE("format: the first --format whose glob matches is the one run") {
  Root root;
  Checks checks({format_spec("src/*.txt=tr a-z A-Z"), format_spec("*.txt=rev")}, root.path.string(),
                30s);
  CHECK(format(checks, root, "src/a.txt", "ab\n").formatted == "AB\n");
  CHECK(format(checks, root, "b.txt", "ab\n").formatted == "ba\n");
  CHECK(format(checks, root, "b.txt", "ab\n").formatter == "*.txt=rev");
}

TEST_CASE("format: a non-zero exit fails, with its status and a bounded stderr excerpt") {
  Root root;
  Checks checks({format_spec("*.py=sh -c 'cat >/dev/null; echo \"error: cannot parse: 1:4\" >&2; "
                             "head -c 5000 /dev/zero | tr \"\\0\" x >&2; exit 123'")},
                root.path.string(), 30s);
  auto o = format(checks, root, "a.py", "def (:\n");
  CHECK(o.status == Status::kFailed);
  CHECK(o.formatted.empty());
  CHECK(o.detail.starts_with("--format *.py=sh -c"));
  CHECK(o.detail.find(": exited with status 123; stderr: error: cannot parse: 1:4\nxxx") !=
        std::string::npos);
  const auto excerpt = o.detail.substr(o.detail.find("; stderr: ") + 10);
  CHECK(excerpt.size() == Checks::kMaxStderrShown);
}

TEST_CASE("format: a stderr that is not UTF-8 is shown with '?' for its bad bytes") {
  Root root;
  Checks checks({format_spec("*.py=sh -c 'printf \"bad \\377 \\303\\251\\n\" >&2; exit 1'")},
                root.path.string(), 30s);
  auto o = format(checks, root, "a.py", "x\n");
  CHECK(o.status == Status::kFailed);
  CHECK(o.detail.ends_with("exited with status 1; stderr: bad ? \xC3\xA9"));
}

TEST_CASE("format: a crash, a program not there, a hang, a flood") {
  Root root;
  Checks checks({format_spec("crash.py=sh -c 'kill -SEGV $$'"),
                 format_spec("missing.py=/nonexistent/black -q -"), format_spec("hang.py=sleep 30"),
                 format_spec("flood.py=yes")},
                root.path.string(), 30s, 300ms);
  auto crash = format(checks, root, "crash.py", "x\n");
  CHECK(crash.status == Status::kFailed);
  CHECK(crash.detail.find("ended by signal 11") != std::string::npos);
  auto missing = format(checks, root, "missing.py", "x\n");
  CHECK(missing.status == Status::kFailed);
  CHECK(missing.detail.find("cannot run /nonexistent/black") != std::string::npos);
  const auto start = std::chrono::steady_clock::now();
  auto hang = format(checks, root, "hang.py", "x\n");
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK(hang.status == Status::kTimeout);
  CHECK(hang.detail.find("no result within 300 ms (--format-timeout)") != std::string::npos);
  auto flood = format(checks, root, "flood.py", "x\n", {{0, 1}}, 1000);
  CHECK(flood.status == Status::kFailed);
  CHECK(flood.detail.find("wrote more than 1000 bytes") != std::string::npos);
  CHECK(flood.formatted.empty());
}

TEST_CASE("format: no --format covers the file; an empty output is the formatter's to judge") {
  Root root;
  Checks checks({format_spec("*.py=true")}, root.path.string(), 30s);
  auto none = format(checks, root, "a.txt", "x\n");
  CHECK(none.status == Status::kFailed);
  CHECK(none.detail == "no --format covers a.txt");
  auto empty = format(checks, root, "a.py", "x = 1\n");
  CHECK(empty.status == Status::kOk);
  CHECK(empty.formatted.empty());
}

TEST_CASE("--format specs are neither checks nor language servers") {
  Root root;
  Checks checks({format_spec("*.py=cat"), format_spec("*.c=@lsp"), spec("*.sh=cat", false)},
                root.path.string(), 30s);
  Checks::Target py{(root.path / "a.py").string(), "a.py"};
  CHECK_FALSE(checks.covers(py));
  CHECK(checks.formats(py));
  CHECK_FALSE(checks.covers_symbols(py));
  CHECK_FALSE(checks.covers_symbols({(root.path / "a.c").string(), "a.c"}));
  CHECK_FALSE(checks.has_language_servers());
  CHECK(checks.covers({(root.path / "a.sh").string(), "a.sh"}));
  CHECK_FALSE(checks.formats({(root.path / "a.sh").string(), "a.sh"}));
  asio::io_context io;
  auto before = run(io, checks.before(py, std::string("x = 1\n")));
  CHECK(before.specs.empty());
  auto report = run(io, checks.after(py, before, std::string("x = 1\n"), "x = 2\n"));
  CHECK(report.all.empty());
  CHECK(report.status == diagnostics::Status::kOk);
  // @lsp with no --lsp for the file.
  auto o = format(checks, root, "a.c", "int  x;\n");
  CHECK(o.status == Status::kFailed);
  CHECK(o.detail.find("no language server covers a.c") != std::string::npos);
}

TEST_CASE("pin_programs pins a --format's program and leaves @lsp alone") {
  Root root;
  std::vector<diagnostics::Spec> specs{format_spec("*.py=cat"), format_spec("*.c=@lsp")};
  REQUIRE(launch::pin_programs(specs, root.path).has_value());
  CHECK(specs[0].argv[0].starts_with("/"));
  CHECK(specs[0].argv[0].ends_with("/cat"));
  CHECK(specs[1].argv == std::vector<std::string>{"@lsp"});
  std::vector<diagnostics::Spec> relative{format_spec("*.py=./tools/fmt")};
  auto r = launch::pin_programs(relative, root.path);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.starts_with("--format *.py=./tools/fmt: "));
}

TEST_CASE("format @lsp: clangd formats the changed lines, UTF-16 positions, the rest as it was") {
  Root root;
  std::vector<diagnostics::Spec> specs{spec("*.{cpp,h}=clangd", true), format_spec("*.cpp=@lsp")};
  REQUIRE(launch::pin_programs(specs, root.path).has_value());
  Checks checks(specs, root.path.string(), 60s, 60s);
  const std::string text =
      "int f(int a) {\n"                                              // 0
      "  return a + 1;\n"                                             // 1
      "}\n"                                                           // 2
      "int   g( int  b ){return b*2;}\n"                              // 3: changed
      "int   h( int  c ){return c*3;}\n"                              // 4
      "const char *s = \"\xC3\xA9\xF0\x9F\x98\x80\";   int   x=1;\n"  // 5: changed
      "int   y=2;\n";                                                 // 6: the point after it
  CHECK(checks.formats({(root.path / "a.cpp").string(), "a.cpp"}));
  auto o = format(checks, root, "a.cpp", text, {{5, 6}, {3, 4}});
  INFO(o.detail);
  REQUIRE(o.status == Status::kOk);
  CHECK(o.formatted ==
        "int f(int a) {\n"
        "  return a + 1;\n"
        "}\n"
        "int g(int b) { return b * 2; }\n"
        "int   h( int  c ){return c*3;}\n"
        "const char *s = \"\xC3\xA9\xF0\x9F\x98\x80\";\n"
        "int x = 1;\n"
        "int   y=2;\n");
  // A point (lines removed there): the lines on either side of it. The last
  // line, without a line break: to its end.
  const std::string seam = "int a;\nint   b=1;\nint   c=2;\nint   d=3;\nint   e=4;";
  auto point = format(checks, root, "a.cpp", seam, {{2, 2}});
  INFO(point.detail);
  CHECK(point.formatted == "int a;\nint b = 1;\nint c = 2;\nint   d=3;\nint   e=4;");
  auto last = format(checks, root, "a.cpp", seam, {{4, 5}});
  INFO(last.detail);
  CHECK(last.formatted == "int a;\nint   b=1;\nint   c=2;\nint   d=3;\nint e = 4;");
  // No span: the text as it is, the server not asked.
  auto none = format(checks, root, "a.cpp", text, {});
  CHECK(none.status == Status::kOk);
  CHECK(none.formatted == text);
}

TEST_CASE("format: at most max_formatters() formatter programs run at once; the rest wait their turn") {
  // Each run marks itself in a directory while it runs, notes how many marks
  // it saw, and sleeps: more runs than turns are started together.
  Root root;
  const std::filesystem::path marks = root.path.parent_path() /
                                      (root.path.filename().string() + "-marks");
  std::filesystem::create_directories(marks);
  const std::string script = "touch \"$1/$$\"; ls \"$1\" | wc -l >> \"$1.log\"; sleep 0.3; "
                             "rm \"$1/$$\"; cat";
  std::vector<diagnostics::Spec> specs{
      format_spec("*.txt=sh -c '" + script + "' sh " + marks.string())};
  REQUIRE(launch::pin_programs(specs, root.path).has_value());
  Checks checks(specs, root.path.string(), 30s, 30s);
  ::signal(SIGPIPE, SIG_IGN);
  asio::io_context io;
  const std::size_t runs = Checks::max_formatters() + 3;
  std::vector<std::future<Checks::FormatOutcome>> done;
  // format() takes its target by reference: it must outlive the runs.
  const Checks::Target t{(root.path / "a.txt").string(), "a.txt"};
  for (std::size_t i = 0; i < runs; ++i)
    done.push_back(asio::co_spawn(io, checks.format(t, "x\n", {{0, 1}}, 1u << 20), asio::use_future));
  io.run();
  for (auto& f : done) {
    Checks::FormatOutcome o = f.get();
    CHECK(o.status == Status::kOk);
    CHECK(o.formatted == "x\n");
  }
  std::ifstream log(marks.string() + ".log");
  std::size_t seen = 0, most = 0;
  for (std::size_t n; log >> n; ++seen) most = std::max(most, n);
  CHECK(seen == runs);
  CHECK(most <= Checks::max_formatters());
  CHECK(most >= 2);  // they did run side by side
  std::filesystem::remove_all(marks);
  std::filesystem::remove(marks.string() + ".log");
}
