// compare_bench's support (bench/compare_bench.cpp): the files it edits, the
// processes it times, and the markdown table it prints. Header-only.
#pragma once

#include <sched.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/child.h"
#include "bench/floors/rewrite_floor.h"
#include "bench/scratch.h"

namespace editd::bench::compare {

using editd::bench::Child;
using nlohmann::json;
using editd::bench::Clock;
using editd::bench::fail;
using editd::bench::g_root;
using editd::bench::ms_since;
using editd::bench::request;
namespace fs = std::filesystem;

constexpr double kMiB = 1024.0 * 1024.0;

// ---- Files ----------------------------------------------------------------

// C-like lines, 30 bytes on average (edit_bench's): none contains "marker".
struct LineTemplate {
  std::string_view before, after;
  bool numbered;
};
constexpr LineTemplate kLines[] = {
    {"static int step_", "(int a, int b, int c) {", true},
    {"    int acc = a * ", " + b - c;", true},
    {"    if (acc > ", ") acc -= b * c;", true},
    {"    /* keep the order of step ", " stable */", true},
    {"    acc ^= table[", " & 63] + offset;", true},
    {"    acc = rotate(acc, ", " % 31);", true},
    {"    return acc + c;", "", false},
    {"}", "", false},
};

constexpr std::string_view kMarkerA = "    int marker_A = 1; /* compare_bench toggles this line */";
constexpr std::string_view kMarkerB = "    int marker_B = 1; /* compare_bench toggles this line */";

// C-like lines up to `max_lines` lines or `max_bytes` bytes, whichever comes
// first, with the marker line (state A) in the middle.
inline std::string c_text(std::size_t max_lines, std::size_t max_bytes) {
  std::string body;
  std::vector<std::size_t> starts;
  const std::size_t room = max_bytes - kMarkerA.size() - 1;
  for (std::size_t i = 0; starts.size() + 1 < max_lines; ++i) {
    const std::size_t before = body.size();
    const LineTemplate& t = kLines[i % std::size(kLines)];
    body += t.before;
    if (t.numbered) body += std::to_string(i);
    body += t.after;
    body += '\n';
    if (body.size() > room) {
      body.resize(before);
      break;
    }
    starts.push_back(before);
  }
  const std::size_t at = starts[starts.size() / 2];
  std::string out = body.substr(0, at);
  out += kMarkerA;
  out += '\n';
  out.append(body, at);
  return out;
}

inline void write_file(const fs::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
  if (!out.flush()) fail("cannot write " + p.string());
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// 40 lines from a quarter into `content` with a comment appended to the 20th:
// not in the file, but close to a region of it (what a model's stale oldText
// looks like), so that editd searches for the closest region.
inline std::string near_miss(const std::string& content) {
  std::size_t from = content.find('\n', content.size() / 4) + 1;
  std::string out;
  for (int i = 0; i < 40; ++i) {
    const std::size_t nl = content.find('\n', from);
    out.append(content, from, nl - from);
    if (i == 19) out += " /* changed */";
    out += '\n';
    from = nl + 1;
  }
  if (content.find(out) != std::string::npos) fail("the near miss occurs in the file");
  return out;
}

// ---- Processes ------------------------------------------------------------

// One round trip; the reply in `reply`.
inline double round_trip(Child& c, const std::string& line, std::string* reply) {
  const auto t = Clock::now();
  c.send(line);
  *reply = c.line();
  return ms_since(t);
}

// Aborts the run unless `reply` is a result (or, with `error_kind`, an error
// of that kind).
inline void check(const std::string& reply, const char* what, const char* error_kind = nullptr) {
  const json r = json::parse(reply, nullptr, false);
  if (r.is_discarded()) fail(std::string(what) + ": a reply that is not JSON");
  const bool ok = error_kind
                      ? r.contains("error") && r["error"]["data"].value("kind", "") == error_kind
                      : r.contains("result");
  if (!ok) fail(std::string(what) + ": unexpected reply " + reply.substr(0, 400));
}

// A field of /proc/PID/status ("VmRSS:", "VmHWM:") in MiB.
inline double status_mib(pid_t pid, std::string_view field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field, 0) == 0) return std::stod(line.substr(field.size())) / 1024;
  fail("no " + std::string(field) + " in /proc/" + std::to_string(pid) + "/status");
}

// Resets VmHWM of `pid` to its current RSS.
inline void reset_peak(pid_t pid) {
  std::ofstream out("/proc/" + std::to_string(pid) + "/clear_refs");
  out << "5";
  if (!out.flush()) fail("cannot reset the peak RSS through /proc/PID/clear_refs");
}

// ---- The table ------------------------------------------------------------

struct Stats {
  double p50, p99;
};

inline Stats stats(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

inline std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

inline std::string ms_cell(double ms) { return fixed(ms, ms < 1 ? 3 : ms < 100 ? 2 : 1) + " ms"; }
inline std::string mib_cell(double mib) { return fixed(mib, 1) + " MiB"; }

struct Row {
  std::string workload;
  std::size_t n = 0;
  std::string p50 = "-", p99 = "-", ops = "-", peak = "-";
  std::string floor = "-", floor_figure = "-", ratio = "-", goal = "-", met = "-";
};

inline void print_header() {
  std::printf(
      "| workload | n | editd p50 | editd p99 | editd ops/s | editd peak RSS | floor | floor "
      "figure "
      "| ratio | goal | met |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
}

inline void print(const Row& r) {
  std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.workload.c_str(),
              r.n ? std::to_string(r.n).c_str() : "-", r.p50.c_str(), r.p99.c_str(), r.ops.c_str(),
              r.peak.c_str(), r.floor.c_str(), r.floor_figure.c_str(), r.ratio.c_str(),
              r.goal.c_str(), r.met.c_str());
  std::fflush(stdout);
}

// A latency row: editd's samples against a floor's, `goal` the largest ratio
// of the p50s that meets it (0: no goal, the row is for reading).
inline Row latency_row(std::string workload, const std::vector<double>& editd, double peak_mib,
                       std::string floor, const std::vector<double>& floor_ms, double goal) {
  Row r;
  r.workload = std::move(workload);
  r.n = editd.size();
  const Stats e = stats(editd), f = stats(floor_ms);
  r.p50 = ms_cell(e.p50);
  r.p99 = ms_cell(e.p99);
  r.peak = mib_cell(peak_mib);
  r.floor = std::move(floor);
  r.floor_figure = "p50 " + ms_cell(f.p50);
  const double ratio = e.p50 / f.p50;
  r.ratio = fixed(ratio, 2) + "x";
  if (goal > 0) {
    r.goal = "<= " + fixed(goal, goal == static_cast<int>(goal) ? 0 : 1) + "x";
    r.met = ratio <= goal ? "met" : "**not met**";
  }
  return r;
}

// The first line `command` (a shell command) prints, or "".
inline std::string first_line_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[512];
    if (std::fgets(buf, sizeof buf, p)) out = buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// The filesystem under `dir` ("ext4 /dev/vda"), and for ext4 whether it has a
// journal (a mount with one has a /proc/fs/jbd2/DEVICE-N entry). Without one,
// ext4 skips every inode freed in the last minute when it makes a new one, so
// the file-creating rows slow down with the churn of the rows before them.
inline std::string filesystem_of(const fs::path& dir) {
  const std::string found = first_line_of("findmnt -n -o FSTYPE,SOURCE -T '" + dir.string() + "'");
  std::string type = found.substr(0, found.find(' '));
  std::string source = found.substr(found.find_last_of(' ') + 1);
  if (type != "ext4") return found;
  const std::string device = source.substr(source.find_last_of('/') + 1);
  bool journal = false;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc/fs/jbd2", ec))
    journal = journal || e.path().filename().string().starts_with(device + "-");
  return type + " " + source + (journal ? " (with a journal)" : " (no journal)");
}

struct Binaries {
  std::string editd, echo, read_floor;
};

// The MCP reference filesystem server on the workloads its tools can do
// (bench/compare_mcp.cpp).
void mcp_server(const Binaries& b, const fs::path& root);

}  // namespace editd::bench::compare
