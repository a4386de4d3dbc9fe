// Scaling with I/O threads: several clients on a Unix socket, each keeping 64
// requests in flight (reads of a small file of its own, reads of one file,
// edits of a file of its own), against editd started with --io-threads 1, 2,
// ... and --durability none. Prints, per thread count, the requests answered
// per second and the CPU time editd and the clients used, so that a figure can
// be told from a machine with no core to spare. docs/performance.md records them
// with the command that produced them.
//
// usage: socket_bench [EDITD_BINARY]
// environment: SOCKET_BENCH_IO_THREADS  thread counts to run, e.g. "1,2,4"
//                                       (default: 1 up to the usable CPUs)
//              SOCKET_BENCH_CLIENTS     connections (default: 4)
//              SOCKET_BENCH_REQUESTS    requests per connection (default: 50000)
//              SOCKET_BENCH_RUNS        runs of each thread count, in turns (default: 3)
//              SOCKET_BENCH_ONLY        workloads to run: own, shared, edit (default: all)
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/child.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kWindow = 64;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "socket_bench: %s\n", what.c_str());
  std::exit(1);
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

std::vector<int> thread_counts() {
  std::vector<int> out;
  if (const char* v = std::getenv("SOCKET_BENCH_IO_THREADS"); v && *v) {
    std::stringstream ss(v);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(std::stoi(item));
    return out;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  for (int i = 1; i <= std::max(cpus, 2); ++i) out.push_back(i);
  return out;
}

int connect_unix(const std::string& path) {
  for (int attempt = 0; attempt < 2000; ++attempt) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  fail("cannot connect to " + path);
}

// CPU seconds (user + system) a process has used so far.
double process_cpu(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  auto close = stat.rfind(')');
  if (close == std::string::npos) fail("cannot read /proc/PID/stat");
  std::stringstream rest(stat.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // Fields 3.. after the name; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double own_cpu() {
  rusage u;
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// What the clients send.
enum class Workload {
  kOwnReads,     // each client reads a file of its own
  kSharedReads,  // all read one file
  kOwnEdits,     // each client edits a file of its own, one str_replace after another
};

// The client's `n`th request (ids count from 0 over the warm-up and the run):
// reads of `file`, or the edit of its "v<n>" line into "v<n+1>".
std::string request(Workload w, long n, const std::string& file) {
  std::string head = "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(n) + ",\"method\":";
  if (w != Workload::kOwnEdits)
    return head + "\"read_text\",\"params\":{\"path\":\"" + file + "\"}}\n";
  return head + "\"str_replace\",\"params\":{\"path\":\"" + file + "\",\"oldText\":\"v" +
         std::to_string(n) + "\\n\",\"newText\":\"v" + std::to_string(n + 1) + "\\n\"}}\n";
}

// One connection: keeps kWindow requests in flight until `total` more are
// answered, `next` being the number of the first. Every reply must be a result.
void drive(int fd, Workload w, const std::string& file, long& next, int total,
           std::atomic<int>& errors) {
  long sent = 0, answered = 0;
  std::string out, in;
  auto send_more = [&](long n) {
    out.clear();
    for (long i = 0; i < n && sent < total; ++i, ++sent) out += request(w, next++, file);
    std::string_view rest(out);
    while (!rest.empty()) {
      ssize_t r = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (r <= 0) fail("send: " + std::string(std::strerror(errno)));
      rest.remove_prefix(static_cast<std::size_t>(r));
    }
  };
  send_more(kWindow);
  char buf[1 << 16];
  while (answered < total) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) fail("editd closed a connection");
    in.append(buf, static_cast<std::size_t>(n));
    long replies = 0;
    std::size_t start = 0;
    for (std::size_t nl; (nl = in.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (std::string_view(in).substr(start, nl - start).find("\"result\"") ==
          std::string_view::npos)
        ++errors;
      ++replies;
    }
    in.erase(0, start);
    answered += replies;
    send_more(replies);
  }
}

struct Figure {
  double ops_per_s;
  double editd_cpu;   // CPUs editd kept busy over the run
  double client_cpu;  // the same for this process's clients
};

Figure run(const std::string& binary, const fs::path& root, int io_threads, int clients,
           int requests, Workload w) {
  const std::string socket = (root / "s.sock").string();
  fs::remove(socket);
  // Edits without fsync: what the I/O threads do, not what the disk does.
  editd::bench::Child editd(binary, root.string(),
                            {"--listen", "unix:" + socket, "--io-threads",
                             std::to_string(io_threads), "--durability", "none"});
  std::vector<int> fds;
  for (int i = 0; i < clients; ++i) fds.push_back(connect_unix(socket));
  std::atomic<int> errors{0};
  auto file = [&](int i) {
    if (w == Workload::kSharedReads) return std::string("small.txt");
    if (w == Workload::kOwnReads) return "small" + std::to_string(i) + ".txt";
    return "edit" + std::to_string(i) + "/v.txt";  // a directory each
  };
  for (int i = 0; i < clients; ++i)
    if (w == Workload::kOwnEdits) {
      fs::create_directories(root / ("edit" + std::to_string(i)));
      std::ofstream(root / file(i)) << "v0\n";
    }
  // Warm up each connection, then measure.
  std::vector<long> next(clients, 0);
  for (int i = 0; i < clients; ++i) drive(fds[i], w, file(i), next[i], 2000, errors);
  const double editd_before = process_cpu(editd.pid()), own_before = own_cpu();
  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i)
    threads.emplace_back([&, i] { drive(fds[i], w, file(i), next[i], requests, errors); });
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const double editd_cpu = process_cpu(editd.pid()) - editd_before;
  const double own = own_cpu() - own_before;
  if (errors > 0) fail(std::to_string(errors.load()) + " replies were not results");
  for (int fd : fds) ::close(fd);
  ::kill(editd.pid(), SIGTERM);  // a listening editd does not end at the end of stdin
  return {clients * static_cast<double>(requests) / seconds, editd_cpu / seconds, own / seconds};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  const int clients = env_int("SOCKET_BENCH_CLIENTS", 4);
  const int requests = env_int("SOCKET_BENCH_REQUESTS", 50000);
  const int runs = env_int("SOCKET_BENCH_RUNS", 3);
  const std::vector<int> counts = thread_counts();
  char dir_template[] = "/tmp/socket-bench-XXXXXX";
  if (!::mkdtemp(dir_template)) fail("mkdtemp");
  const fs::path root = dir_template;
  std::ofstream(root / "small.txt") << "alpha\nbeta\ngamma\n";
  for (int i = 0; i < clients; ++i)
    std::ofstream(root / ("small" + std::to_string(i) + ".txt")) << "alpha\nbeta\ngamma\n";

  std::printf("%d connections, %d requests in flight each, %d each; %d runs in turns\n", clients,
              kWindow, requests, runs);
  const std::pair<Workload, const char*> workloads[] = {
      {Workload::kOwnReads, "read_text of a 3-line file, each client its own:"},
      {Workload::kSharedReads, "read_text of a 3-line file, all the same one:"},
      {Workload::kOwnEdits,
       "str_replace of a 1-line file (--durability none), each client its own:"}};
  const char* only = std::getenv("SOCKET_BENCH_ONLY");
  const char* names[] = {"own", "shared", "edit"};
  for (const auto& [w, title] : workloads) {
    if (only && *only && !std::strstr(only, names[static_cast<int>(w)])) continue;
    std::vector<std::vector<Figure>> figures(counts.size());
    for (int r = 0; r < runs; ++r)
      for (std::size_t i = 0; i < counts.size(); ++i)
        figures[i].push_back(run(binary, root, counts[i], clients, requests, w));
    std::printf("%s\n", title);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      std::printf("  --io-threads %-3d", counts[i]);
      for (const Figure& f : figures[i])
        std::printf("  %8.0f ops/s (editd %.2f CPU, clients %.2f)", f.ops_per_s, f.editd_cpu,
                    f.client_cpu);
      std::printf("\n");
    }
  }
  fs::remove_all(root);
  return 0;
}
