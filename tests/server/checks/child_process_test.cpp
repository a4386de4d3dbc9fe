// run_filter, the formatters' runner, with real programs: large texts both
// ways without a deadlock, failures, a hang and a flood killed in time, and
// nothing left behind (no zombie, no descriptor of the test's).
#include "server/checks/child_process.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

using namespace editd;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

FilterOutcome filter(std::vector<std::string> argv, std::string input,
                     std::chrono::milliseconds timeout = 10s, std::size_t max_out = 64u << 20,
                     std::size_t max_err = 2048) {
  // editd ignores it (server/server.cpp); a child that stops reading raises it.
  ::signal(SIGPIPE, SIG_IGN);
  asio::io_context io;
  auto f = asio::co_spawn(
      io, run_filter(std::move(argv), "/tmp", std::move(input), timeout, max_out, max_err),
      asio::use_future);
  io.run();
  return f.get();
}

// A text of `n` bytes, lines of varied content, so that a byte out of place shows.
std::string text_of(std::size_t n) {
  std::string s;
  s.reserve(n);
  for (std::size_t i = 0; s.size() < n; ++i) s += "line " + std::to_string(i * 7919) + "\n";
  s.resize(n);
  return s;
}

// The children of this process that have exited and were not waited for.
int zombies() {
  int n = 0;
  const std::string me = std::to_string(::getpid());
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, not ')'.
    auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == me && state == "Z") ++n;
  }
  return n;
}

// Whether some process runs with exactly `argv` joined by NULs (its cmdline).
bool running(const std::string& cmdline) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline");
    std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ifstream st(e.path() / "stat");
    std::string stat;
    std::getline(st, stat);
    auto close = stat.rfind(')');
    const bool zombie = close != std::string::npos && stat.substr(close + 2, 1) == "Z";
    if (got == cmdline && !zombie) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("run_filter: cat gives a 5 MB text back byte for byte") {
  const std::string text = text_of(5u << 20);
  FilterOutcome o = filter({"/bin/cat"}, text);
  INFO(o.error);
  CHECK(o.started);
  CHECK(o.succeeded());
  CHECK(o.exit_code == 0);
  CHECK_FALSE(o.out_truncated);
  CHECK(o.out.size() == text.size());
  CHECK(o.out == text);
  CHECK(o.err.empty());
  CHECK(zombies() == 0);
}

TEST_CASE("run_filter: an empty input is an empty stdin, closed at once") {
  FilterOutcome o = filter({"/usr/bin/wc", "-c"}, "");
  CHECK(o.succeeded());
  CHECK(o.out == "0\n");
}

TEST_CASE("run_filter: a non-zero exit, with its stderr and its stdout kept") {
  FilterOutcome o =
      filter({"/bin/sh", "-c", "cat >/dev/null; echo half; echo 'bad input at 1:2' >&2; exit 3"},
             "x = 1\n");
  CHECK(o.started);
  CHECK_FALSE(o.succeeded());
  CHECK(o.exit_code == 3);
  CHECK(o.signal == 0);
  CHECK_FALSE(o.timed_out);
  CHECK(o.out == "half\n");
  CHECK(o.err == "bad input at 1:2\n");
}

TEST_CASE("run_filter: stderr is kept up to its bound, the rest read and dropped") {
  // 1 MB on stderr: were it not read, the child would block on a full pipe.
  FilterOutcome o = filter({"/bin/sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' e >&2; cat"},
                           "text\n", 10s, 64u << 20, 100);
  CHECK(o.succeeded());
  CHECK(o.out == "text\n");
  CHECK(o.err == std::string(100, 'e'));
}

TEST_CASE("run_filter: a hang is killed at the timeout, with its group, and reaped") {
  const auto start = std::chrono::steady_clock::now();
  // A grandchild in the same group, which would keep stdout open.
  FilterOutcome o = filter({"/bin/sh", "-c", "sleep 31.25 & sleep 30; echo never"}, "x\n", 300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(o.started);
  CHECK(o.timed_out);
  CHECK_FALSE(o.succeeded());
  CHECK(o.out.empty());
  CHECK(took >= 300ms);
  CHECK(took < 5s);
  CHECK(zombies() == 0);
  // The grandchild went with the group (reaped by init, or the subreaper).
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone =
        !running(std::string("sleep\0"
                             "31.25\0",
                             12));
    if (!gone) std::this_thread::sleep_for(10ms);
  }
  CHECK(gone);
}

TEST_CASE("run_filter: a flood on stdout is cut at the bound and killed, and fails") {
  const auto start = std::chrono::steady_clock::now();
  FilterOutcome o = filter({"/usr/bin/yes", "formatted"}, "x\n", 10s, 1u << 20);
  CHECK(o.started);
  CHECK(o.out_truncated);
  CHECK_FALSE(o.succeeded());
  CHECK_FALSE(o.timed_out);
  CHECK(o.signal == SIGKILL);
  CHECK(o.out.size() == (1u << 20));
  CHECK(o.out.starts_with("formatted\nformatted\n"));
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK(zombies() == 0);
}

TEST_CASE("run_filter: a program that never reads its 5 MB stdin but writes 3 MB") {
  const std::string text = text_of(5u << 20);
  FilterOutcome o = filter({"/bin/sh", "-c", "head -c 3000000 /dev/zero"}, text);
  INFO(o.error);
  CHECK(o.succeeded());
  CHECK(o.out.size() == 3000000);
  CHECK(o.out == std::string(3000000, '\0'));
  CHECK(zombies() == 0);
}

TEST_CASE("run_filter: a program that is not there does not start, and says why") {
  FilterOutcome o = filter({"/nonexistent/formatter", "-"}, "x\n");
  CHECK_FALSE(o.started);
  CHECK_FALSE(o.succeeded());
  CHECK(o.error.find("/nonexistent/formatter") != std::string::npos);
  CHECK(o.error.find("No such file") != std::string::npos);
}

TEST_CASE("run_filter: the child holds stdin, stdout and stderr, no other descriptor") {
  // Any descriptor of the test's (this one is close-on-exec or not) stays here.
  std::FILE* held = std::fopen("/proc/self/stat", "r");
  REQUIRE(held != nullptr);
  // ls's own 3: the directory it lists.
  FilterOutcome o = filter({"/bin/ls", "/proc/self/fd"}, "x\n");
  std::fclose(held);
  CHECK(o.succeeded());
  CHECK(o.out == "0\n1\n2\n3\n");
}
