// What a multi-edit costs next to a single edit (issue 57's benchmark): a
// 2,000-line C file (about 90 KB) through the real binary over stdio
// (defaults: --durability full, the ledger on, a fresh --state-dir). Each
// run, in turns:
//   (a) str_replace of one region (three lines in the middle), the single form;
//   (b) str_replace with edits[] of ten regions (three lines each, spread
//       over the file, the region of (a) among them), one call.
// Each call toggles its regions between two states, so every call changes
// bytes; after every call the file on disk is compared with what it must be
// (any difference ends the benchmark). One untimed round first. Prints the
// p50 and max of each, p50(b) / p50(a) against the goal (1.2x), and
// editd's own CPU time per call (its threads' schedstat);
// docs/performance.md records them with the command.
//
// usage: multi_edit_bench [EDITD_BINARY] [RUNS]   (RUNS: 200 by default)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/child.h"
#include "bench/scratch.h"

namespace {

using namespace editd::bench;  // Child, and scratch.h: Clock, fail, g_root, ms_since, request
using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kLines = 2000;
constexpr int kRegions = 10;
constexpr const char* kFile = "table.c";

// Line i (1-based) of the file: a statement of a long function, varied.
std::string line(int i) {
  return "    total += weight_" + std::to_string(i % 97) + " * sample[" + std::to_string(i) +
         "] / (scale + " + std::to_string(i % 13) + ");\n";
}

// Region r's three lines, as the file first has them (state 0) or as the
// edits make them (state 1): unique in the file either way.
std::string region(int r, int state) {
  const std::string rr = std::to_string(r);
  if (state == 0)
    return "    /* region " + rr + " */\n    checksum ^= block_" + rr +
           "(sample, 64);\n    if (checksum == 0) return -" + rr + ";\n";
  return "    /* region " + rr + ", checked */\n    checksum ^= block_" + rr +
         "_fast(sample, 64, &stats);\n    if (checksum == 0) { report(" + rr + "); return -" + rr +
         "; }\n";
}

// The file with each region in `states[r]`: regions at lines 100, 300, ... 1900.
std::string make_file(const std::vector<int>& states) {
  std::string s = "int table(const int* sample, int scale) {\n    int total = 0, checksum = 0;\n";
  int n = 2, r = 0;
  while (n < kLines - 1) {
    if (r < kRegions && n + 1 == 100 + 200 * r) {
      s += region(r, states[r]);
      n += 3;
      ++r;
    } else {
      s += line(n + 1);
      ++n;
    }
  }
  s += "}\n";
  return s;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json call(Child& editd, const json& params, double& ms) {
  static int id = 0;
  const auto t = Clock::now();
  editd.send(request(++id, "str_replace", params));
  const std::string reply_line = editd.line();
  ms = ms_since(t);
  json reply = json::parse(reply_line, nullptr, false);
  if (!reply.is_object() || !reply.contains("result"))
    fail("str_replace " + params.dump().substr(0, 200) + ": " + reply_line.substr(0, 400));
  return reply["result"];
}

void run(const std::string& binary, int runs) {
  const fs::path root = g_root / "root", state = g_root / "state";
  fs::create_directories(root);
  fs::create_directory(state);
  fs::permissions(state, fs::perms::owner_all, fs::perm_options::replace);
  std::vector<int> states(kRegions, 0);
  std::string file = make_file(states);
  if (std::count(file.begin(), file.end(), '\n') != kLines) fail("the file is not 2,000 lines");
  std::ofstream(root / kFile, std::ios::binary) << file;
  Child editd(binary, root.string(), {"--state-dir", state.string()});

  constexpr int kSingle = kRegions / 2;
  Samples single, multi, single_cpu, multi_cpu;
  double ms = 0;
  for (int i = -1; i < runs; ++i) {  // run -1: untimed
    // (a) One region, the single form.
    const int from = states[kSingle];
    double cpu = cpu_ms(editd.pid());
    json r = call(editd,
                  {{"path", kFile},
                   {"oldText", region(kSingle, from)},
                   {"newText", region(kSingle, 1 - from)}},
                  ms);
    const double a_ms = ms, a_cpu = cpu_ms(editd.pid()) - cpu;
    if (r.value("replacements", 0) != 1) fail("(a) replaced " + r.dump().substr(0, 200));
    states[kSingle] = 1 - from;
    file = make_file(states);
    if (read_file(root / kFile) != file) fail("after (a) the file is not what it must be");

    // (b) Ten regions, one call with edits[].
    json edits = json::array();
    for (int k = 0; k < kRegions; ++k)
      edits.push_back({{"oldText", region(k, states[k])}, {"newText", region(k, 1 - states[k])}});
    cpu = cpu_ms(editd.pid());
    r = call(editd, {{"path", kFile}, {"edits", std::move(edits)}}, ms);
    const double b_ms = ms, b_cpu = cpu_ms(editd.pid()) - cpu;
    if (r.value("replacements", 0) != kRegions || !r.contains("undoId"))
      fail("(b) replied " + r.dump().substr(0, 300));
    for (int& s : states) s = 1 - s;
    file = make_file(states);
    if (read_file(root / kFile) != file) fail("after (b) the file is not what it must be");

    if (i < 0) continue;
    single.ms.push_back(a_ms);
    multi.ms.push_back(b_ms);
    single_cpu.ms.push_back(a_cpu);
    multi_cpu.ms.push_back(b_cpu);
  }
  const int status = editd.end();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("editd ended with status " + std::to_string(status));
  const double ratio = multi.p50() / single.p50();
  std::printf(
      "C, %d lines (%zu bytes), runs=%d, in turns:\n"
      "  (a) str_replace, one region (3 lines):          %s\n"
      "  (b) str_replace, edits[] of %d regions (3 lines each): %s\n"
      "  p50(b) / p50(a): %.2fx (goal <= 1.2x: %s)\n"
      "  editd's own CPU time a call, (a): %s\n"
      "                               (b): %s\n",
      kLines, file.size(), runs, single.text().c_str(), kRegions, multi.text().c_str(), ratio,
      ratio <= 1.2 ? "met" : "NOT met", single_cpu.text().c_str(), multi_cpu.text().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 200;
  editd::bench::g_bench = "multi_edit_bench";
  std::signal(SIGPIPE, SIG_IGN);
  g_root = fs::temp_directory_path() / ("editd-multi-edit-bench-" + std::to_string(::getpid()));
  fs::create_directories(g_root);
  run(binary, runs);
  std::error_code ec;
  fs::remove_all(g_root, ec);
  return 0;
}
