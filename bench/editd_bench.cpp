// Benchmarks of the real binary over stdio: round-trip latency of read_text and
// str_replace, and throughput with 1, 4 and 64 requests in flight over distinct
// files and over one file. Prints one line per figure; docs/performance.md
// records them with the command that produced them.
//
// usage: editd_bench [EDITD_BINARY]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/child.h"

namespace {

using editd::bench::Child;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string request(int id, const std::string& method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump() + "\n";
}

void report_latency(const char* what, std::vector<double> us) {
  std::sort(us.begin(), us.end());
  std::printf("%-44s n=%zu  p50=%.1f us  p90=%.1f us  p99=%.1f us\n", what, us.size(), us[us.size() / 2],
              us[us.size() * 9 / 10], us[us.size() * 99 / 100]);
}

double since_us(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

// Sequential round trips: one request, wait for its reply, repeat.
void latency(const std::string& binary, const fs::path& root) {
  std::ofstream(root / "small.txt") << "alpha\nbeta\ngamma\n";
  Child c(binary, root.string());
  std::vector<double> pings, reads, edits;
  for (int i = 0; i < 2000; ++i) {
    auto t = Clock::now();
    c.send(request(i, "no_such_method", json::object()));
    c.line();
    pings.push_back(since_us(t));
  }
  for (int i = 0; i < 2000; ++i) {
    auto t = Clock::now();
    c.send(request(i, "read_text", {{"path", "small.txt"}}));
    c.line();
    reads.push_back(since_us(t));
  }
  for (int i = 0; i < 2000; ++i) {
    auto t = Clock::now();
    std::string from = i % 2 ? "BETA" : "beta", to = i % 2 ? "beta" : "BETA";
    c.send(request(i, "str_replace", {{"path", "small.txt"}, {"oldText", from}, {"newText", to}}));
    c.line();
    edits.push_back(since_us(t));
  }
  report_latency("protocol-only round trip (unknown method)", pings);
  report_latency("read_text round trip (3-line file)", reads);
  report_latency("str_replace round trip (3-line file, fsync)", edits);
}

// `total` str_replace requests with `window` in flight at once.
void throughput(const std::string& binary, const fs::path& root, int window, bool one_file) {
  const int total = 2000;
  const int files = one_file ? 1 : 64;
  for (int f = 0; f < files; ++f) {
    std::ofstream out(root / ("f" + std::to_string(f) + ".txt"));
    for (int i = 0; i < total; ++i) out << "line " << i << " old\n";
  }
  Child c(binary, root.string());
  auto t = Clock::now();
  int sent = 0, received = 0;
  while (received < total) {
    while (sent < total && sent - received < window) {
      std::string path = "f" + std::to_string(sent % files) + ".txt";
      std::string line = "line " + std::to_string(sent) + " old";
      c.send(request(sent, "str_replace", {{"path", path}, {"oldText", line}, {"newText", "line " + std::to_string(sent) + " new"}}));
      ++sent;
    }
    c.line();
    ++received;
  }
  double secs = since_us(t) / 1e6;
  std::printf("str_replace throughput, %2d in flight, %-13s %8.0f req/s\n", window,
              one_file ? "one file:" : "64 files:", total / secs);
}

// Pipelined reads: the server's own cost per request, with no disk writes.
void read_throughput(const std::string& binary, const fs::path& root) {
  std::ofstream(root / "r.txt") << "alpha\nbeta\n";
  Child c(binary, root.string());
  const int total = 20000, window = 64;
  auto t = Clock::now();
  int sent = 0, received = 0;
  while (received < total) {
    while (sent < total && sent - received < window) c.send(request(sent++, "read_text", {{"path", "r.txt"}}));
    c.line();
    ++received;
  }
  std::printf("read_text throughput, 64 in flight, one file: %8.0f req/s\n", total / (since_us(t) / 1e6));
}

}  // namespace

int main(int argc, char** argv) {
  std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  fs::path root = fs::temp_directory_path() / ("editd-bench-" + std::to_string(::getpid()));
  fs::create_directories(root);
  latency(binary, root);
  read_throughput(binary, root);
  for (bool one : {false, true})
    for (int window : {1, 4, 64}) {
      fs::remove_all(root);
      fs::create_directories(root);
      throughput(binary, root, window, one);
    }
  fs::remove_all(root);
}
