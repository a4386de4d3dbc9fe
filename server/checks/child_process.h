// Child processes for the checks and the formatters: spawned without a
// shell, in their own process group, with no descriptor of editd's but stdin,
// stdout and stderr, and with a deadline that kills the whole group.
#pragma once

#include <sys/types.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace editd {

// Makes editd the parent of the processes its children leave behind
// (PR_SET_CHILD_SUBREAPER; as PID 1 it is already), so that a checker's
// daemon or a killed check's grandchildren are reaped by reap_orphans() and
// never pile up as zombies. Call once, before the first child.
void adopt_orphans();

// Reaps every child that has exited and that no run_process, run_filter or
// Child waits for; the exit status of one they wait for is kept for them. Never blocks:
// call it on SIGCHLD.
void reap_orphans();

// How a run ended.
struct ProcessOutcome {
  bool started = false;  // false: `error` says why it could not start
  bool timed_out = false;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  std::string output;  // stdout and stderr, interleaved as written
  bool truncated = false;
  std::string error;
  bool succeeded() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

// Runs argv[0] (looked up in PATH) in `cwd` (taken by value, as every
// parameter of these coroutines: a caller's temporary would be gone when the
// coroutine resumes) with stdin from /dev/null and
// stdout and stderr captured, up to `max_output` bytes (the rest is read and
// dropped). Past `timeout` its process group is killed with SIGKILL.
boost::asio::awaitable<ProcessOutcome> run_process(std::vector<std::string> argv,
                                                   std::string cwd,
                                                   std::chrono::milliseconds timeout,
                                                   std::size_t max_output);

// How a filter's run ended (run_filter).
struct FilterOutcome {
  bool started = false;  // false: `error` says why it could not start
  std::string error;
  bool timed_out = false;
  int exit_code = -1;          // when it exited
  int signal = 0;              // when a signal ended it (SIGKILL: editd's, past a limit)
  std::string out;             // stdout, at most max_out bytes
  bool out_truncated = false;  // it wrote more: it was killed, and `out` is cut
  std::string err;             // the first max_err bytes of stderr
  bool succeeded() const {
    return started && !timed_out && !out_truncated && signal == 0 && exit_code == 0;
  }
};

// Runs argv (argv[0] absolute: server/checks/launch.h pins it) in `cwd` with
// `input` on stdin, as run_process runs a check. The input is written while
// stdout and stderr are read, so a filter that writes as it reads never
// deadlocks with editd on texts larger than a pipe; stdin is closed after it
// (or once the child stops reading: the rest is not written). stdout is kept
// up to `max_out` bytes: past them the group is killed (SIGKILL) and
// out_truncated set; stderr's first `max_err` bytes are kept, the rest read
// and dropped. Past `timeout` the group is killed and timed_out set. Whatever
// the child leaves running in its group is killed when it exits. editd
// ignores SIGPIPE (server/server.cpp), which a write to a child that stopped
// reading raises: a caller elsewhere must ignore it too.
boost::asio::awaitable<FilterOutcome> run_filter(std::vector<std::string> argv,
                                                 std::string cwd, std::string input,
                                                 std::chrono::milliseconds timeout,
                                                 std::size_t max_out, std::size_t max_err);

// A long-running child that talks over its stdin and stdout (a language
// server). stderr goes to /dev/null. Killed (its group, SIGKILL) when destroyed.
class Child {
 public:
  // Starts argv in `cwd`; nullopt and `error` set when it cannot start.
  static std::optional<Child> spawn(const boost::asio::any_io_executor& ex,
                                    const std::vector<std::string>& argv, const std::string& cwd,
                                    std::string& error);
  Child(Child&&) noexcept;
  Child& operator=(Child&&) = delete;
  ~Child();

  boost::asio::posix::stream_descriptor& in() { return in_; }    // the child's stdin
  boost::asio::posix::stream_descriptor& out() { return out_; }  // the child's stdout
  pid_t pid() const { return pid_; }

 private:
  Child(pid_t pid, boost::asio::posix::stream_descriptor in,
        boost::asio::posix::stream_descriptor out)
      : pid_(pid), in_(std::move(in)), out_(std::move(out)) {}
  pid_t pid_ = -1;
  boost::asio::posix::stream_descriptor in_;
  boost::asio::posix::stream_descriptor out_;
};

}  // namespace editd
