// The benchmarks' handle on a real editd: spawned as `BINARY --root ROOT
// --log-level warn [EXTRA...]` with its stdin and stdout on pipes, spoken to in
// JSON-RPC lines (or any program that speaks them, given its whole argv).
// Single-threaded: one caller sends and reads. A dead or silent child ends the
// benchmark with a message on stderr rather than a wrong figure.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace editd::bench {

class Child {
 public:
  Child(const std::string& binary, const std::string& root,
        const std::vector<std::string>& extra = {})
      : Child(editd_args(binary, root, extra)) {}

  // Spawns args[0] with the arguments args[1..].
  explicit Child(std::vector<std::string> args) {
    const std::string binary = args.at(0);
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) die("pipe2", errno);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (int err = ::posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argv.data(), environ))
      die(("spawn " + binary).c_str(), err);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  // Closes stdin, which editd takes as the end of the session, and reaps it.
  ~Child() {
    if (!ended_) end();
    ::close(from_);
  }

  // Closes stdin and reaps the child: its wait status (WIFSIGNALED: it died).
  int end() {
    ended_ = true;
    ::close(to_);
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
  }

  pid_t pid() const { return pid_; }

  void send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::write(to_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die("write to editd", errno);
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // The next line editd wrote, without its '\n'.
  std::string line() {
    std::optional<std::string> l = try_line();
    if (!l) {
      std::fprintf(stderr, "bench: editd closed its stdout (exited?)\n");
      std::abort();
    }
    return std::move(*l);
  }

  // The same, or nullopt when editd closed its stdout first (it exited): for
  // a benchmark that reports a dead server rather than stopping.
  std::optional<std::string> try_line() {
    while (true) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return l;
      }
      char chunk[65536];
      ssize_t n = ::read(from_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) die("read from editd", errno);
      if (n == 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  static std::vector<std::string> editd_args(const std::string& binary, const std::string& root,
                                             const std::vector<std::string>& extra) {
    std::vector<std::string> args{binary, "--root", root, "--log-level", "warn"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  [[noreturn]] static void die(const char* what, int err) {
    std::fprintf(stderr, "bench: %s: %s\n", what, std::strerror(err));
    std::abort();
  }

  pid_t pid_;
  int to_, from_;
  bool ended_ = false;
  std::string buf_;
};

// Whether the environment variable `env` (comma-separated workload names;
// unset or empty: all) lets workload `name` run.
inline bool runs_in(const char* env, std::string_view name) {
  const char* only = std::getenv(env);
  if (!only || !*only) return true;
  std::string_view rest(only);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (rest.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace editd::bench
