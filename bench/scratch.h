// What every benchmark that runs editd repeats: a scratch directory removed on
// every exit (failures included), a failure that says which benchmark failed,
// wall time in milliseconds, a JSON-RPC request line, a process's CPU time and
// the p50 of samples. Header-only.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace editd::bench {

using Clock = std::chrono::steady_clock;

// Set by main: the benchmark's name (for messages) and its scratch directory.
inline const char* g_bench = "bench";
inline std::filesystem::path g_root;

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", g_bench, what.c_str());
  std::error_code ec;
  if (!g_root.empty()) std::filesystem::remove_all(g_root, ec);
  std::exit(1);
}

inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

inline std::string request(int id, const std::string& method, const nlohmann::json& params) {
  return nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}
             .dump() +
         "\n";
}

// The CPU time a process's threads have run so far, in ms
// (/proc/PID/task/*/schedstat): its children are not in it, and a thread that
// ended takes its time with it (editd's pool and I/O threads live as long as
// the server).
inline double cpu_ms(pid_t pid) {
  double ns = 0;
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "schedstat");
    double on_cpu = 0;
    if (in >> on_cpu) ns += on_cpu;
  }
  return ns / 1e6;
}

// Wall times of one kind of call, in ms: their p50 and max.
struct Samples {
  std::vector<double> ms;
  double p50() const {
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
  double max() const { return *std::max_element(ms.begin(), ms.end()); }
  std::string text() const {
    char out[64];
    std::snprintf(out, sizeof out, "p50 %7.3f ms, max %7.3f ms", p50(), max());
    return out;
  }
};

}  // namespace editd::bench
