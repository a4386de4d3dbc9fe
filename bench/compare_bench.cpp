// editd against its floors, in one run, on the same workloads: the C echo
// server (bench/floors/echo_server.c: the framing and nothing else) for the
// protocol's cost per request, the C read floor (bench/floors/read_floor.c:
// the framing, and the file read and sent as a JSON string) for a read's, and
// the C read + atomic rewrite (bench/floors/rewrite_floor.c, called in this
// process: no spawn per iteration) with and without fsync for an edit's file
// work. Each goal of issue 14 is a ratio to a floor measured here, or a bound;
// one table row per workload says whether it is met. Latency workloads
// interleave editd and its floor, one round each, so that both see the same
// load; edits alternate A -> B (editd) and B -> A (the rewrite floor), so the
// file changes every time. Peak RSS is editd's VmHWM over the row, reset
// through /proc/PID/clear_refs before it. The 11 KB read runs twice: as the
// others, then with this process and the servers on one CPU; each time the
// read floor follows in rounds of its own. Beside them, when npx and the npm
// registry are reachable, the MCP reference filesystem server
// (@modelcontextprotocol/server-filesystem, fetched by npx on the first run)
// on the workloads its tools can do; EDITD_BENCH_NO_MCP=1 leaves it out.
// EDITD_BENCH_ONLY=read,edit,big,miss,pipelined,patch,mcp (any of them) runs
// those workloads alone, for an A/B of one row. The files live in a directory
// of $TMPDIR (/tmp by default), whose filesystem the header names: set TMPDIR
// to measure another disk.
// Prints a markdown table; docs/performance.md records it with the command.
//
// usage: compare_bench [EDITD_BINARY [ECHO_SERVER_BINARY]]

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
#include "bench/compare_support.h"
#include "bench/floors/rewrite_floor.h"

using namespace editd::bench::compare;

namespace {

// ---- Workloads ------------------------------------------------------------

// The same read_text request to editd and to the echo floor, in turns: the
// goal's row, `workload` against `floor`. Then, in rounds of their own so that
// a third process does not change where the first two run, the three in turns:
// the read floor against the echo, and editd against the read floor (no goal).
void read_11k_row(const Binaries& b, const fs::path& root, const std::string& workload,
                  const std::string& floor, const std::string& where) {
  Child editd(b.editd, root.string());
  Child echo({b.echo});
  const std::string line = request(1, "read_text", {{"path", "read11k.c"}});
  std::string reply;
  for (int i = 0; i < 100; ++i) {
    round_trip(editd, line, &reply);
    round_trip(echo, line, &reply);
  }
  check(reply, "echo floor");
  round_trip(editd, line, &reply);
  check(reply, "read_text 11 KB");
  reset_peak(editd.pid());
  std::vector<double> e, f;
  for (int i = 0; i < 2000; ++i) {
    e.push_back(round_trip(editd, line, &reply));
    f.push_back(round_trip(echo, line, &reply));
  }
  const double peak = status_mib(editd.pid(), "VmHWM:");
  print(latency_row(workload, e, peak, floor, f, 2));

  Child reader(std::vector<std::string>{b.read_floor, (root / "read11k.c").string()});
  for (int i = 0; i < 100; ++i) round_trip(reader, line, &reply);
  const json text = json::parse(reply, nullptr, false);
  if (text.is_discarded() || !text.contains("result") ||
      text["result"].value("text", "") != read_file(root / "read11k.c"))
    fail("read floor: a reply without the file's text: " + reply.substr(0, 400));
  std::vector<double> e3, f3, r3;
  for (int i = 0; i < 2000; ++i) {
    e3.push_back(round_trip(editd, line, &reply));
    f3.push_back(round_trip(echo, line, &reply));
    r3.push_back(round_trip(reader, line, &reply));
  }
  Row fr = latency_row("the C read floor (open, read, escape, reply), 11 KB file" + where, r3, 0,
                       floor, f3, 0);
  fr.peak = "-";
  print(fr);
  print(latency_row(workload + ", against the C read floor", e3, peak, "C read floor" + where, r3,
                    0));
}

void read_11k(const Binaries& b, const fs::path& root) {
  write_file(root / "read11k.c", c_text(1000000, 11 * 1024));
  read_11k_row(b, root, "read_text, 11 KB file", "C echo", "");
}

// The same, with this process, editd and the echo on one CPU (children
// inherit the affinity). On a VM a round trip that wakes an idle vCPU costs
// tens of microseconds, and which process runs beside the client varies from
// run to run; on one CPU every round trip is placed alike.
void read_11k_one_cpu(const Binaries& b, const fs::path& root) {
  cpu_set_t before, one;
  if (::sched_getaffinity(0, sizeof before, &before) != 0) return;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &before)) {
      CPU_SET(cpu, &one);
      break;
    }
  if (::sched_setaffinity(0, sizeof one, &one) != 0) return;
  read_11k_row(b, root, "read_text, 11 KB file, all on one CPU", "C echo, on one CPU",
               ", on one CPU");
  ::sched_setaffinity(0, sizeof before, &before);
}

// One-line edits, `runs` times: `line` (the marker A -> B) to the server, then
// the rewrite floor B -> A at the same durability (and, with `echo`, the same
// request line to the echo floor). The server's peak RSS over the runs too.
struct EditSamples {
  std::vector<double> editd, rewrite, echo;
  double peak_mib = 0;
};

std::string marker_edit(const std::string& rel) {
  return request(
      1, "str_replace",
      {{"path", rel}, {"oldText", std::string(kMarkerA)}, {"newText", std::string(kMarkerB)}});
}

void check_edit(const std::string& reply) { check(reply, "str_replace"); }

EditSamples edits(Child& editd, Child* echo, const fs::path& file, const std::string& line,
                  int runs, bool durable, void (*check_reply)(const std::string&) = check_edit) {
  const std::string path = file.string();
  EditSamples s;
  std::string reply;
  auto floor_back = [&] {
    const auto t = Clock::now();
    if (rewrite_floor(path.c_str(), kMarkerB.data(), kMarkerB.size(), kMarkerA.data(),
                      kMarkerA.size(), durable) != 0)
      fail("rewrite floor on " + path + ": " + std::strerror(errno));
    return ms_since(t);
  };
  // One untimed round of each.
  round_trip(editd, line, &reply);
  check_reply(reply);
  floor_back();
  reset_peak(editd.pid());
  for (int i = 0; i < runs; ++i) {
    s.editd.push_back(round_trip(editd, line, &reply));
    check_reply(reply);
    s.rewrite.push_back(floor_back());
    if (echo) s.echo.push_back(round_trip(*echo, line, &reply));
  }
  s.peak_mib = status_mib(editd.pid(), "VmHWM:");
  return s;
}

void edit_2000_lines(const Binaries& b, const fs::path& root) {
  const fs::path file = root / "lines2000.c";
  write_file(file, c_text(2000, 1 << 30));
  {
    Child editd(b.editd, root.string(), {"--durability", "none"});
    Child echo({b.echo});
    const EditSamples s = edits(editd, &echo, file, marker_edit("lines2000.c"), 1000, false);
    print(latency_row("str_replace 1 line, 2,000 lines, durability none", s.editd, s.peak_mib,
                      "C echo", s.echo, 3));
    print(latency_row("(the same, for reading)", s.editd, s.peak_mib, "C rewrite, no fsync",
                      s.rewrite, 0));
  }
  Child editd(b.editd, root.string());
  const EditSamples s = edits(editd, nullptr, file, marker_edit("lines2000.c"), 100, true);
  print(latency_row("str_replace 1 line, 2,000 lines, durability full", s.editd, s.peak_mib,
                    "C rewrite + fsync", s.rewrite, 1.3));
}

// 64 requests in flight over `total`; requests per second.
double pipelined(Child& c, const std::string& line, int total) {
  const int window = 64;
  int sent = 0, received = 0;
  std::string batch;
  const auto t = Clock::now();
  while (received < total) {
    batch.clear();
    while (sent < total && sent - received < window) {
      batch += line;
      ++sent;
    }
    if (!batch.empty()) c.send(batch);
    const std::string reply = c.line();
    if (reply.find("\"result\"") == std::string::npos) fail("pipelined: " + reply.substr(0, 400));
    ++received;
  }
  return total / (ms_since(t) / 1000);
}

void pipelined_reads(const Binaries& b, const fs::path& root) {
  write_file(root / "small.txt", "alpha\nbeta\ngamma\n");
  const std::string line = request(1, "read_text", {{"path", "small.txt"}});
  const int total = 20000;
  Child echo({b.echo});
  pipelined(echo, line, 1000);
  const double floor_ops = pipelined(echo, line, total);
  for (const char* threads : {"2", "1"}) {
    Child editd(b.editd, root.string(), {"--threads", threads});
    pipelined(editd, line, 1000);
    reset_peak(editd.pid());
    const double ops = pipelined(editd, line, total);
    Row r;
    r.workload = std::string("read_text, 64 in flight, 3-line file, --threads ") + threads;
    r.n = total;
    r.ops = fixed(ops, 0);
    r.peak = mib_cell(status_mib(editd.pid(), "VmHWM:"));
    r.floor = "C echo, 64 in flight";
    r.floor_figure = fixed(floor_ops, 0) + " ops/s";
    r.ratio = fixed(ops / floor_ops, 2) + "x";
    if (threads == std::string("2")) {
      r.goal = ">= 20,000 ops/s";
      r.met = ops >= 20000 ? "met" : "**not met**";
    }
    print(r);
  }
}

// One apply_patch changing the marker line of 100 files, against the rewrite
// floor of one such file, both with fsync (the goal's row). Then, in rounds of
// their own, what full durability adds to the patch (the same editd against a
// second one with --durability none) against what it adds to the floor's one
// file: an fsync of the file and one of its directory. The patch makes 100 new
// files either way; the difference is what its group commit costs.
void patch_100_files(const Binaries& b, const fs::path& root) {
  const std::string content = c_text(60, 1 << 30);
  fs::create_directories(root / "patch");
  for (int f = 0; f < 100; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "f%03d.txt", f);
    write_file(root / "patch" / name, content);
  }
  const fs::path one = root / "patch-floor.txt";
  write_file(one, content);
  auto patch = [](std::string_view from, std::string_view to) {
    std::string p = "*** Begin Patch\n";
    for (int f = 0; f < 100; ++f) {
      char name[32];
      std::snprintf(name, sizeof name, "f%03d.txt", f);
      p += "*** Update File: patch/" + std::string(name) + "\n@@\n-" + std::string(from) + "\n+" +
           std::string(to) + "\n";
    }
    return p + "*** End Patch\n";
  };
  const std::string forth = request(1, "apply_patch", {{"patch", patch(kMarkerA, kMarkerB)}});
  const std::string back = request(2, "apply_patch", {{"patch", patch(kMarkerB, kMarkerA)}});
  std::string reply;
  const int runs = 10;
  const std::string path = one.string();
  auto floor = [&](std::string_view from, std::string_view to, int durable) {
    const auto t = Clock::now();
    if (rewrite_floor(path.c_str(), from.data(), from.size(), to.data(), to.size(), durable) != 0)
      fail("rewrite floor on " + path + ": " + std::strerror(errno));
    return ms_since(t);
  };
  // The goal's row: editd and the floor in turns, each round taking the files
  // A -> B or back.
  Child full(b.editd, root.string());
  std::vector<double> e, f;
  for (int i = -2; i < runs; ++i) {  // two untimed rounds
    const bool ab = i % 2 == 0;
    const double ms = round_trip(full, ab ? forth : back, &reply);
    check(reply, "apply_patch");
    const double floor_ms = ab ? floor(kMarkerA, kMarkerB, 1) : floor(kMarkerB, kMarkerA, 1);
    if (i == -1) reset_peak(full.pid());
    if (i < 0) continue;
    e.push_back(ms);
    f.push_back(floor_ms);
  }
  print(latency_row("apply_patch, 100 files of 60 lines, durability full", e,
                    status_mib(full.pid(), "VmHWM:"), "C rewrite + fsync, 1 file", f, 3));
  // Then durability's cost: each round takes the files A -> B with full
  // durability and back without, the floor's file likewise. (The files are
  // at A after an even number of rounds above.)
  Child none(b.editd, root.string(), {"--durability", "none"});
  std::vector<double> e_full, e_none, f_full, f_none;
  for (int i = -1; i < runs; ++i) {  // one untimed round
    e_full.push_back(round_trip(full, forth, &reply));
    check(reply, "apply_patch");
    e_none.push_back(round_trip(none, back, &reply));
    check(reply, "apply_patch, durability none");
    f_full.push_back(floor(kMarkerA, kMarkerB, 1));
    f_none.push_back(floor(kMarkerB, kMarkerA, 0));
    if (i == -1) {
      for (auto* v : {&e_full, &e_none, &f_full, &f_none}) v->clear();
      reset_peak(none.pid());
    }
  }
  print(latency_row("apply_patch, 100 files of 60 lines, durability none", e_none,
                    status_mib(none.pid(), "VmHWM:"), "C rewrite, no fsync, 1 file", f_none, 0));
  Row r;
  r.workload = "apply_patch, 100 files: what full durability adds (p50 full - p50 none)";
  const double added = stats(e_full).p50 - stats(e_none).p50;
  const double fsync_cost = stats(f_full).p50 - stats(f_none).p50;
  r.p50 = ms_cell(added);
  r.floor = "one file's fsyncs (C rewrite: p50 + fsync - p50 no fsync)";
  r.floor_figure = ms_cell(fsync_cost);
  if (fsync_cost > 0) r.ratio = fixed(added / fsync_cost, 2) + "x";
  print(r);
}

// Misses in each matching mode on `file`, against the floor's read + memmem.
// Returns the largest peak RSS of the modes.
double misses(Child& editd, const fs::path& file, const std::string& rel, const std::string& old,
              int runs, const std::string& size_name, bool bounded_goal, bool show = true) {
  const std::string path = file.string();
  double peak = 0;
  std::string reply;
  for (const char* mode : {"exact", "standard", "fuzzy"}) {
    const std::string line = request(
        1, "str_replace", {{"path", rel}, {"oldText", old}, {"newText", "x"}, {"matching", mode}});
    round_trip(editd, line, &reply);
    check(reply, "miss", "no_match");
    reset_peak(editd.pid());
    std::vector<double> e, f;
    for (int i = 0; i < runs; ++i) {
      e.push_back(round_trip(editd, line, &reply));
      check(reply, "miss", "no_match");
      const auto t = Clock::now();
      if (rewrite_floor(path.c_str(), old.data(), old.size(), "x", 1, 0) != 1)
        fail("the miss's floor found its oldText in " + path);
      f.push_back(ms_since(t));
    }
    const double hwm = status_mib(editd.pid(), "VmHWM:");
    peak = std::max(peak, hwm);
    Row r = latency_row("str_replace miss, 40 lines, " + size_name + ", " + mode, e, hwm,
                        "C read + memmem", f, 0);
    const double p50 = stats(e).p50;
    if (bounded_goal) {
      r.goal = "bounded (in the doc)";
    } else {
      r.goal = "<= 20 ms";
      r.met = p50 <= 20 ? "met" : "**not met**";
    }
    if (show) print(r);
  }
  return peak;
}

// The 8 MiB workloads, and the RSS rows: idle after one request, the peak over
// the 8 MiB edits and misses, and RSS again after editd's idle trim. With
// `undo` false, the same in an editd that keeps no undo history, and only its
// RSS rows are printed (the undo history holds up to --undo-history-bytes,
// 64 MiB by default, of the files' contents, which RSS counts).
void big_files(const Binaries& b, const fs::path& root, bool undo) {
  const fs::path file = root / "big8.c";
  const std::string content = c_text(1ull << 40, 8 << 20);
  write_file(file, content);
  const std::string old = near_miss(content);
  write_file(root / "small.txt", "alpha\nbeta\ngamma\n");
  if (undo) {
    Child editd(b.editd, root.string(), {"--durability", "none"});
    const EditSamples s = edits(editd, nullptr, file, marker_edit("big8.c"), 20, false);
    print(latency_row("str_replace 1 line, 8 MiB, durability none", s.editd, s.peak_mib,
                      "C rewrite, no fsync", s.rewrite, 2));
  }
  Child editd(
      b.editd, root.string(),
      undo ? std::vector<std::string>{} : std::vector<std::string>{"--undo-history-entries", "0"});
  std::string reply;
  round_trip(editd, request(1, "read_text", {{"path", "small.txt"}}), &reply);
  check(reply, "read_text");
  const double idle = status_mib(editd.pid(), "VmRSS:");
  const EditSamples s = edits(editd, nullptr, file, marker_edit("big8.c"), 20, true);
  if (undo)
    print(latency_row("str_replace 1 line, 8 MiB, durability full", s.editd, s.peak_mib,
                      "C rewrite + fsync", s.rewrite, 2));
  const double peak =
      std::max(s.peak_mib, misses(editd, file, "big8.c", old, 20, "8 MiB", false, undo));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const double after = status_mib(editd.pid(), "VmRSS:");
  const double file_mib = content.size() / kMiB;
  const std::string how = undo ? "" : ", --undo-history-entries 0";

  Row r;
  r.workload = "RSS idle (after startup and one read_text)" + how;
  r.peak = mib_cell(idle);
  r.goal = "<= 8 MiB";
  r.met = idle <= 8 ? "met" : "**not met**";
  print(r);
  r.workload = "RSS peak over the 8 MiB edits and misses (VmHWM)" + how;
  r.peak = mib_cell(peak);
  r.floor = "the file";
  r.floor_figure = mib_cell(file_mib);
  r.ratio = fixed(peak / file_mib, 2) + "x";
  r.goal = "<= 3x the file";
  r.met = peak <= 3 * file_mib ? "met" : "**not met**";
  print(r);
  r.workload = "RSS 2.5 s after the 8 MiB edits and misses" + how;
  r.peak = mib_cell(after);
  r.floor = "idle";
  r.floor_figure = mib_cell(idle);
  r.ratio = "+" + mib_cell(after - idle);
  r.goal = "near idle (<= idle + 2 MiB)";
  r.met = after <= idle + 2 ? "met" : "**not met**";
  print(r);
}

void miss_64mib(const Binaries& b, const fs::path& root) {
  const fs::path file = root / "big64.c";
  // Under the default --max-file-bytes (64 MiB).
  const std::string content = c_text(1ull << 40, (64 << 20) - 4096);
  write_file(file, content);
  const std::string old = near_miss(content);
  Child editd(b.editd, root.string());
  const double peak = misses(editd, file, "big64.c", old, 3, "64 MiB", true);
  Row r;
  r.workload = "RSS peak over the 64 MiB misses (VmHWM)";
  r.peak = mib_cell(peak);
  r.floor = "the file";
  r.floor_figure = mib_cell(content.size() / kMiB);
  r.ratio = fixed(peak / (content.size() / kMiB), 2) + "x";
  r.goal = "<= 3x the file";
  r.met = peak <= 3 * content.size() / kMiB ? "met" : "**not met**";
  print(r);
}

// Whether EDITD_BENCH_ONLY (comma-separated workload names) lets `name` run.
bool runs(std::string_view name) { return editd::bench::runs_in("EDITD_BENCH_ONLY", name); }

}  // namespace

int main(int argc, char** argv) {
  const Binaries b{argc > 1 ? argv[1] : EDITD_BINARY, argc > 2 ? argv[2] : ECHO_FLOOR_BINARY,
                   READ_FLOOR_BINARY};
  editd::bench::g_bench = "compare_bench";
  g_root = fs::temp_directory_path() / ("editd-compare-" + std::to_string(::getpid()));
  fs::create_directories(g_root);
  std::printf(
      "editd: %s (%s)\necho floor: %s\nread floor: %s\nroot: %s, on %s\ncores: %u\nload average "
      "before: %s\n\n",
      b.editd.c_str(), first_line_of("'" + b.editd + "' --version").c_str(), b.echo.c_str(),
      b.read_floor.c_str(), g_root.c_str(), filesystem_of(g_root).c_str(),
      std::thread::hardware_concurrency(), first_line_of("cat /proc/loadavg").c_str());
  const auto t = Clock::now();
  print_header();
  if (runs("read")) {
    read_11k(b, g_root);
    read_11k_one_cpu(b, g_root);
  }
  if (runs("edit")) edit_2000_lines(b, g_root);
  if (runs("big")) {
    big_files(b, g_root, true);
    big_files(b, g_root, false);
  }
  if (runs("miss")) miss_64mib(b, g_root);
  if (runs("pipelined")) pipelined_reads(b, g_root);
  if (runs("patch")) patch_100_files(b, g_root);
  if (runs("mcp")) mcp_server(b, g_root);
  std::printf("\nload average after: %s; %.0f s in all\n",
              first_line_of("cat /proc/loadavg").c_str(), ms_since(t) / 1000);
  fs::remove_all(g_root);
}
