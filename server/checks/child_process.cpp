#include "server/checks/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

extern char** environ;

namespace editd {

namespace asio = boost::asio;

namespace {

struct PipeFd {
  int fd = -1;
  explicit PipeFd(int f = -1) : fd(f) {}
  PipeFd(const PipeFd&) = delete;
  ~PipeFd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

// posix_spawnp with stdin, stdout and stderr set up by the caller's file
// actions and every other descriptor closed, in `cwd`, in a new process group,
// with default signal dispositions (editd ignores SIGPIPE and SIGHUP; a child
// must not inherit that).
// The children a run_process, run_filter or Child waits for, with the status
// of those reap_orphans() took first. A child is added under the lock it was
// spawned under, so reap_orphans() never mistakes one for an orphan; every
// wait goes through take_status, under the same lock.
struct Owned {
  std::mutex mutex;
  std::unordered_map<pid_t, std::optional<int>> status;
};

Owned& owned() {
  static Owned o;
  return o;
}

// The status of child `pid` once it has exited; nullopt while it runs.
std::optional<int> take_status(pid_t pid) {
  Owned& o = owned();
  std::lock_guard lock(o.mutex);
  auto it = o.status.find(pid);
  std::optional<int> got;
  if (it != o.status.end() && it->second) {
    got = it->second;
  } else {
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid, &status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0) return std::nullopt;
    // r < 0 (ECHILD) cannot happen for a child in the table: report it gone.
    got = r == pid ? status : 0;
  }
  if (it != o.status.end()) o.status.erase(it);
  return got;
}

// Waits for a child that was sent SIGKILL, which cannot be caught: short.
int wait_killed(pid_t pid) {
  for (;;) {
    if (auto s = take_status(pid)) return *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

pid_t spawn_in(const std::vector<std::string>& argv, const std::string& cwd,
               posix_spawn_file_actions_t* actions, std::string& error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_addchdir_np(actions, cwd.c_str());
  // Only stdin, stdout and stderr: a listening socket, a client's connection or
  // a file of editd's that a child (or a daemon it leaves behind) kept open
  // would outlive editd, whether or not whoever opened it asked for O_CLOEXEC.
  posix_spawn_file_actions_addclosefrom_np(actions, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int rc;
  {
    Owned& o = owned();
    std::lock_guard lock(o.mutex);
    rc = posix_spawnp(&pid, args[0], actions, &attr, args.data(), environ);
    if (rc == 0) o.status.emplace(pid, std::nullopt);
  }
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  return pid;
}

void kill_group(pid_t pid) {
  if (pid > 0) ::kill(-pid, SIGKILL);
}

}  // namespace

void adopt_orphans() {
  if (::getpid() != 1 && ::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    spdlog::warn("PR_SET_CHILD_SUBREAPER: {}: what checks leave behind is not reaped by editd",
                 std::strerror(errno));
}

void reap_orphans() {
  Owned& o = owned();
  std::lock_guard lock(o.mutex);
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    if (auto it = o.status.find(pid); it != o.status.end()) it->second = status;
  }
}

namespace {

// Waits for `pid`, whose output is closed, to exit: its wait status
// (reap_orphans() may take it first: take_status) without blocking the I/O
// thread; nullopt once `deadline` passes first. Woken by the child's pidfd the
// moment it exits (a formatter's run is waited on by the edit that runs it:
// polling would add up to a poll's period to every edit); polled every 5 ms
// where the kernel has no pidfd_open.
asio::awaitable<std::optional<int>> exit_status(pid_t pid,
                                                std::chrono::steady_clock::time_point deadline) {
  using namespace asio::experimental::awaitable_operators;
  auto ex = co_await asio::this_coro::executor;
  if (auto s = take_status(pid)) co_return s;
  int fd = -1;
#ifdef SYS_pidfd_open
  fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));  // close-on-exec, always
#endif
  if (fd >= 0) {
    asio::posix::stream_descriptor exited(ex, fd);
    asio::steady_timer timer(ex, deadline);
    for (;;) {
      auto woke = co_await (
          exited.async_wait(asio::posix::descriptor_base::wait_read,
                            asio::as_tuple(asio::use_awaitable)) ||
          timer.async_wait(asio::as_tuple(asio::use_awaitable)));
      if (auto s = take_status(pid)) co_return s;
      if (std::chrono::steady_clock::now() >= deadline) co_return std::nullopt;
      if (woke.index() == 0) {
        // Readable, yet not reapable (it cannot be: the child has exited):
        // never spin on it.
        asio::steady_timer pause(ex, std::chrono::milliseconds(1));
        auto [ec] = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;
      }
    }
  }
  for (;;) {
    if (auto s = take_status(pid)) co_return s;
    if (std::chrono::steady_clock::now() >= deadline) co_return std::nullopt;
    asio::steady_timer poll(ex, std::chrono::milliseconds(5));
    auto [ec] = co_await poll.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
  }
}

// How a run that has read its child's output to the end (or given up at the
// deadline: `timed_out`) ends: the child reaped, whatever it left running in
// its group killed. Sets timed_out, exit_code and signal.
template <class Outcome>
asio::awaitable<void> finish(pid_t pid, std::chrono::steady_clock::time_point deadline,
                             bool timed_out, Outcome& outcome) {
  std::optional<int> status;
  if (!timed_out) status = co_await exit_status(pid, deadline);
  kill_group(pid);
  if (!status) {
    outcome.timed_out = true;
    wait_killed(pid);
    co_return;
  }
  if (WIFEXITED(*status)) outcome.exit_code = WEXITSTATUS(*status);
  if (WIFSIGNALED(*status)) outcome.signal = WTERMSIG(*status);
}

// Appends what `n` bytes of `buf` it has room for to `to` (at most `max`
// bytes in all): false when some did not fit.
bool keep(std::string& to, const char* buf, std::size_t n, std::size_t max) {
  const std::size_t room = max - std::min(max, to.size());
  to.append(buf, std::min(n, room));
  return n <= room;
}

}  // namespace

asio::awaitable<ProcessOutcome> run_process(std::vector<std::string> argv, std::string cwd,
                                            std::chrono::milliseconds timeout,
                                            std::size_t max_output) {
  using namespace asio::experimental::awaitable_operators;
  ProcessOutcome outcome;
  auto ex = co_await asio::this_coro::executor;
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) {
    outcome.error = std::string("pipe: ") + std::strerror(errno);
    co_return outcome;
  }
  PipeFd read_end(p[0]), write_end(p[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, write_end.fd, 2);
  pid_t pid = spawn_in(argv, cwd, &actions, outcome.error);
  posix_spawn_file_actions_destroy(&actions);
  if (pid < 0) co_return outcome;
  outcome.started = true;
  ::close(write_end.release());

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  asio::posix::stream_descriptor reader(ex, read_end.release());
  asio::steady_timer timer(ex);
  timer.expires_at(deadline);
  auto read_all = [&]() -> asio::awaitable<void> {
    std::array<char, 16384> buf;
    for (;;) {
      auto [ec, n] =
          co_await reader.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
      if (!keep(outcome.output, buf.data(), n, max_output)) outcome.truncated = true;
      if (ec) co_return;
    }
  };
  auto expire = [&]() -> asio::awaitable<void> {
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
  };
  auto first = co_await (read_all() || expire());
  // The output is closed: the child has ended or closed it. Its exit is
  // waited for until the deadline.
  co_await finish(pid, deadline, first.index() == 1, outcome);
  co_return outcome;
}

asio::awaitable<FilterOutcome> run_filter(std::vector<std::string> argv, std::string cwd,
                                          std::string input, std::chrono::milliseconds timeout,
                                          std::size_t max_out, std::size_t max_err) {
  using namespace asio::experimental::awaitable_operators;
  FilterOutcome outcome;
  auto ex = co_await asio::this_coro::executor;
  // Three pipes, each end close-on-exec: the child gets its ends as 0, 1 and
  // 2 (dup2 clears the flag there), and no other child inherits any of them
  // (a formatter run at the same time holding this one's stdin open would
  // keep it waiting for more input).
  int fds[3][2];
  std::array<PipeFd, 6> ends;
  for (int i = 0; i < 3; ++i) {
    if (::pipe2(fds[i], O_CLOEXEC) != 0) {
      outcome.error = std::string("pipe: ") + std::strerror(errno);
      co_return outcome;
    }
    ends[2 * i].fd = fds[i][0];
    ends[2 * i + 1].fd = fds[i][1];
  }
  PipeFd &in_read = ends[0], &in_write = ends[1], &out_read = ends[2], &out_write = ends[3],
         &err_read = ends[4], &err_write = ends[5];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, 2);
  pid_t pid = spawn_in(argv, cwd, &actions, outcome.error);
  posix_spawn_file_actions_destroy(&actions);
  if (pid < 0) co_return outcome;
  outcome.started = true;
  // The child's ends are the child's alone: with one of them open here, its
  // output would never end.
  ::close(in_read.release());
  ::close(out_write.release());
  ::close(err_write.release());

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  asio::posix::stream_descriptor to(ex, in_write.release());
  asio::posix::stream_descriptor from(ex, out_read.release());
  asio::posix::stream_descriptor errors(ex, err_read.release());
  asio::steady_timer timer(ex);
  timer.expires_at(deadline);
  // The input is written while both outputs are read: a filter that writes
  // as it reads would otherwise fill its output pipe while editd fills its
  // input pipe, each waiting on the other. One that stops reading (it exited,
  // or never reads) ends the write with EPIPE: its outcome says the rest.
  auto feed = [&]() -> asio::awaitable<void> {
    if (!input.empty()) {
      auto [ec, n] =
          co_await asio::async_write(to, asio::buffer(input), asio::as_tuple(asio::use_awaitable));
      (void)ec;
      (void)n;
    }
    boost::system::error_code ignored;
    to.close(ignored);
  };
  auto read_out = [&]() -> asio::awaitable<void> {
    std::array<char, 65536> buf;
    for (;;) {
      auto [ec, n] =
          co_await from.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
      if (!keep(outcome.out, buf.data(), n, max_out)) {
        // A flood: no use reading on, and its stdin and stderr end with it.
        outcome.out_truncated = true;
        kill_group(pid);
        co_return;
      }
      if (ec) co_return;
    }
  };
  auto read_err = [&]() -> asio::awaitable<void> {
    std::array<char, 16384> buf;
    for (;;) {
      auto [ec, n] =
          co_await errors.async_read_some(asio::buffer(buf), asio::as_tuple(asio::use_awaitable));
      keep(outcome.err, buf.data(), n, max_err);
      if (ec) co_return;
    }
  };
  auto expire = [&]() -> asio::awaitable<void> {
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
  };
  auto first = co_await ((feed() && read_out() && read_err()) || expire());
  co_await finish(pid, deadline, first.index() == 1, outcome);
  co_return outcome;
}

std::optional<Child> Child::spawn(const asio::any_io_executor& ex,
                                  const std::vector<std::string>& argv, const std::string& cwd,
                                  std::string& error) {
  int to[2], from[2];
  if (::pipe2(to, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  PipeFd to_read(to[0]), to_write(to[1]);
  if (::pipe2(from, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  PipeFd from_read(from[0]), from_write(from[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, from_write.fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = spawn_in(argv, cwd, &actions, error);
  posix_spawn_file_actions_destroy(&actions);
  if (pid < 0) return std::nullopt;
  return Child(pid, asio::posix::stream_descriptor(ex, to_write.release()),
               asio::posix::stream_descriptor(ex, from_read.release()));
}

Child::Child(Child&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)), in_(std::move(o.in_)), out_(std::move(o.out_)) {}

Child::~Child() {
  boost::system::error_code ignored;
  in_.close(ignored);
  out_.close(ignored);
  if (pid_ > 0) {
    kill_group(pid_);
    wait_killed(pid_);
  }
}

}  // namespace editd
