// Test support: a temporary directory and the real editd binary as a child
// process spoken to over its stdio, line by line. Header-only.
//
// Reads wait at most a generous deadline so that a broken server fails a test
// instead of hanging the suite; no test asserts on time.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace editd::test {

using nlohmann::json;
namespace fs = std::filesystem;

inline constexpr std::chrono::milliseconds kDeadline{20000};

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "editd-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    REQUIRE(made != nullptr);
    path_ = fs::canonical(made);
  }
  ~TempDir() {
    std::error_code ec;
    // Restore permissions a test may have removed, then delete.
    for (auto it = fs::recursive_directory_iterator(path_, ec); it != fs::recursive_directory_iterator(); it.increment(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

  void write(const std::string& rel, std::string_view bytes) const {
    fs::path p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(path_ / rel, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  bool exists(const std::string& rel) const { return fs::exists(fs::symlink_status(path_ / rel)); }
  // Every regular file below the root, relative, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(path_))
      out.push_back(fs::relative(e.path(), path_).string() + (e.is_directory() ? "/" : ""));
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path path_;
};

// The permission bits of `rel` under `root`.
inline unsigned mode_of(const TempDir& root, const std::string& rel) {
  struct stat st;
  REQUIRE(::stat((root.path() / rel).c_str(), &st) == 0);
  return st.st_mode & 07777;
}

class Process {
 public:
  // Starts `binary args...` with pipes on stdin/stdout/stderr.
  Process(const std::string& binary, const std::vector<std::string>& args,
          const std::string& cwd = "") {
    int in[2], out[2], err[2];
    REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(err, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    std::vector<std::string> argv_s{binary};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    int rc = ::posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    REQUIRE(rc == 0);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
    ::fcntl(stderr_, F_SETFL, O_NONBLOCK);
  }
  ~Process() {
    if (stdin_ >= 0) ::close(stdin_);
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
    ::close(stdout_);
    ::close(stderr_);
  }
  Process(const Process&) = delete;

  pid_t pid() const { return pid_; }

  void write_raw(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::write(stdin_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      REQUIRE(n > 0);
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void send(const json& message) { write_raw(message.dump() + "\n"); }
  void close_stdin() {
    ::close(stdin_);
    stdin_ = -1;
  }

  // The next line of stdout, or nullopt at EOF or after the deadline.
  std::optional<std::string> read_line(std::chrono::milliseconds deadline = kDeadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    while (true) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{stdout_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      char chunk[65536];
      ssize_t n = ::read(stdout_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  json read_message() {
    auto line = read_line(reply_wait);
    REQUIRE_MESSAGE(line.has_value(), "no message from editd within " << reply_wait.count() / 1000
                                          << " s (waiting for a reply); stderr: " << stderr_text());
    return json::parse(*line);
  }
  // How long read_message() waits: longer for a test whose replies wait on
  // something slow to start (a real language server on a loaded machine).
  std::chrono::milliseconds reply_wait = kDeadline;
  // Reads messages until the response with this id; others are kept in `other`.
  json response_to(const json& id) {
    while (true) {
      json m = read_message();
      if (m.contains("id") && m["id"] == id && !m.contains("method")) return m;
      other.push_back(std::move(m));
    }
  }
  json request(const std::string& method, json params) {
    json id = next_id_++;
    send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return response_to(id);
  }
  // The result of a call that must succeed.
  json ok(const std::string& method, json params) {
    json r = request(method, std::move(params));
    REQUIRE_MESSAGE(r.contains("result"), method << " failed: " << r.dump());
    return r["result"];
  }
  // The error of a call that must fail.
  json fails(const std::string& method, json params) {
    json r = request(method, std::move(params));
    REQUIRE_MESSAGE(r.contains("error"), method << " succeeded: " << r.dump());
    return r["error"];
  }

  // Waits for exit; the exit code, or nullopt after the deadline.
  std::optional<int> wait(std::chrono::milliseconds deadline = kDeadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < until) {
      int st;
      pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
      ::usleep(2000);
    }
    return std::nullopt;
  }
  std::string stderr_text() {
    char chunk[65536];
    ssize_t n;
    while ((n = ::read(stderr_, chunk, sizeof chunk)) > 0) err_.append(chunk, static_cast<std::size_t>(n));
    return err_;
  }
  // Waits up to 10 s for `pattern` in what the process wrote to stderr: the
  // first match's first group (the whole match if it has none), or nullopt.
  std::optional<std::string> await_log(const std::string& pattern) {
    const std::regex re(pattern);
    for (int i = 0; i < 2000; ++i) {
      std::smatch m;
      const std::string err = stderr_text();
      if (std::regex_search(err, m, re)) return m.size() > 1 ? m[1].str() : m[0].str();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
  }

  std::vector<json> other;

 private:
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  std::string buf_, err_;
  bool exited_ = false;
  std::int64_t next_id_ = 1;
};

// What a command run to its end printed, and its exit status.
struct Run {
  int code = -1;
  std::string out, err;
};

// `program ARGS...` in `cwd` (the current directory when empty), with `input`
// on stdin, run to its end.
inline Run run_program(const std::string& program, const std::vector<std::string>& args,
                       const std::string& cwd = "", const std::string& input = "") {
  Process p(program, args, cwd);
  if (!input.empty()) p.write_raw(input);
  p.close_stdin();
  Run r;
  while (auto line = p.read_line()) r.out += *line + "\n";
  auto code = p.wait();
  REQUIRE(code.has_value());
  r.code = *code;
  r.err = p.stderr_text();
  return r;
}

// `editd ARGS...`, as run_program.
inline Run run_editd(const std::vector<std::string>& args, const std::string& cwd = "",
                     const std::string& input = "") {
  return run_program(EDITD_BINARY, args, cwd, input);
}

// editd serving `root` on stdio.
// The port a TCP server logged ("listening on tcp:127.0.0.1:PORT"), or -1.
inline int logged_port(Process& p) {
  auto port = p.await_log("listening on tcp:[0-9.]+:([0-9]+)");
  return port ? std::stoi(*port) : -1;
}

// A patch over 64 KiB, which editd parses on its pool before it knows the
// files: it changes a.txt's line "old" to "new" and adds big.txt.
inline std::string large_patch_old_to_new() {
  std::string patch =
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** Add File: big.txt\n";
  for (int i = 0; i < 2000; ++i)
    patch += "+line " + std::to_string(i) + " of a new file, padded to some length\n";
  patch += "*** End Patch\n";
  return patch;
}

inline Process spawn_editd(const TempDir& root, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--root", root.str()};
  args.insert(args.end(), extra.begin(), extra.end());
  return Process(EDITD_BINARY, args);
}

}  // namespace editd::test
