// Child processes for the checks: spawned without a shell, in their own
// process group, with no descriptor of editd's but stdin, stdout and stderr,
// and with a deadline that kills the whole group.
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

// Reaps every child that has exited and that no run_process or Child waits
// for; the exit status of one they wait for is kept for them. Never blocks:
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

// Runs argv[0] (looked up in PATH) in `cwd` with stdin from /dev/null and
// stdout and stderr captured, up to `max_output` bytes (the rest is read and
// dropped). Past `timeout` its process group is killed with SIGKILL.
boost::asio::awaitable<ProcessOutcome> run_process(std::vector<std::string> argv,
                                                   const std::string& cwd,
                                                   std::chrono::milliseconds timeout,
                                                   std::size_t max_output);

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
