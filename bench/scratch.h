// What every benchmark that runs editd repeats: a scratch directory removed on
// every exit (failures included), a failure that says which benchmark failed,
// wall time in milliseconds, and a JSON-RPC request line. Header-only.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

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

}  // namespace editd::bench
