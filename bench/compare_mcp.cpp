// compare_bench's row for the MCP reference filesystem server
// (@modelcontextprotocol/server-filesystem), beside editd and its floors.

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

namespace editd::bench::compare {

namespace {

// The `mcp-server-filesystem` that npx installs in its cache (fetched on the
// first run), or "" when npx is missing or the npm registry is not reachable.
std::string mcp_server_binary() {
  return first_line_of(
      "command -v npx >/dev/null 2>&1 && timeout 300 npx -y -p "
      "@modelcontextprotocol/server-filesystem sh -c 'command -v mcp-server-filesystem' "
      "2>/dev/null");
}

std::string mcp_call(const std::string& tool, const json& arguments) {
  return request(1, "tools/call", {{"name", tool}, {"arguments", arguments}});
}

// Aborts the run unless `reply` is a tool result, an error one if `is_error`.
void check_mcp(const std::string& reply, bool is_error) {
  const json r = json::parse(reply, nullptr, false);
  if (r.is_discarded() || !r.contains("result") || r["result"].value("isError", false) != is_error)
    fail("MCP reference server: unexpected reply " + reply.substr(0, 400));
}

void check_mcp_edit(const std::string& reply) { check_mcp(reply, false); }

}  // namespace

// Its read_text_file and edit_file (which write a temporary file and rename it,
// with no fsync) against the floors, on the workloads above that they can do.
void mcp_server(const Binaries& b, const fs::path& root) {
  if (std::getenv("EDITD_BENCH_NO_MCP")) {
    std::printf("\nThe MCP reference filesystem server was left out (EDITD_BENCH_NO_MCP).\n");
    return;
  }
  const std::string bin = mcp_server_binary();
  if (bin.empty()) {
    std::printf(
        "\nThe MCP reference filesystem server was skipped: npx is missing or the npm registry "
        "is not reachable.\n");
    return;
  }
  const fs::path read11k = root / "read11k.c", lines2000 = root / "lines2000.c",
                 big8 = root / "big8.c", small = root / "small.txt";
  write_file(read11k, c_text(1000000, 11 * 1024));
  write_file(lines2000, c_text(2000, 1 << 30));
  const std::string content = c_text(1ull << 40, 8 << 20);
  write_file(big8, content);
  const std::string old = near_miss(content);
  write_file(small, "alpha\nbeta\ngamma\n");

  // exec: the child's pid is the server's (its peak RSS is read from /proc).
  Child mcp({"/bin/sh", "-c", "exec \"$0\" \"$1\" 2>/dev/null", bin, root.string()});
  Child echo({b.echo});
  std::string reply;
  round_trip(mcp,
             request(0, "initialize",
                     {{"protocolVersion", "2025-06-18"},
                      {"capabilities", json::object()},
                      {"clientInfo", {{"name", "compare_bench"}, {"version", "1"}}}}),
             &reply);
  check(reply, "MCP initialize");
  mcp.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump() + "\n");
  // The version, from the package.json beside the dist/ its binary links to.
  std::error_code ec;
  const json package = json::parse(
      std::ifstream(fs::canonical(bin, ec).parent_path().parent_path() / "package.json"), nullptr,
      false);
  const std::string who =
      "MCP reference server " + (package.is_object() ? package.value("version", "?") : "?") + ": ";

  const std::string read = mcp_call("read_text_file", {{"path", read11k.string()}});
  for (int i = 0; i < 50; ++i) round_trip(mcp, read, &reply);
  check_mcp(reply, false);
  reset_peak(mcp.pid());
  std::vector<double> e, f;
  for (int i = 0; i < 500; ++i) {
    e.push_back(round_trip(mcp, read, &reply));
    f.push_back(round_trip(echo, read, &reply));
  }
  print(latency_row(who + "read_text_file, 11 KB file", e, status_mib(mcp.pid(), "VmHWM:"),
                    "C echo", f, 0));

  auto edit = [](const fs::path& p) {
    json one = {{"oldText", std::string(kMarkerA)}, {"newText", std::string(kMarkerB)}};
    json edits = json::array();
    edits.push_back(std::move(one));
    return mcp_call("edit_file", {{"path", p.string()}, {"edits", std::move(edits)}});
  };
  EditSamples s = edits(mcp, &echo, lines2000, edit(lines2000), 200, false, check_mcp_edit);
  print(
      latency_row(who + "edit_file 1 line, 2,000 lines", s.editd, s.peak_mib, "C echo", s.echo, 0));
  print(latency_row(who + "(the same)", s.editd, s.peak_mib, "C rewrite, no fsync", s.rewrite, 0));
  s = edits(mcp, nullptr, big8, edit(big8), 5, false, check_mcp_edit);
  print(latency_row(who + "edit_file 1 line, 8 MiB", s.editd, s.peak_mib, "C rewrite, no fsync",
                    s.rewrite, 0));

  json miss = {{"oldText", old}, {"newText", "x"}};
  json misses = json::array();
  misses.push_back(std::move(miss));
  const std::string miss_line =
      mcp_call("edit_file", {{"path", big8.string()}, {"edits", std::move(misses)}});
  const std::string path = big8.string();
  round_trip(mcp, miss_line, &reply);
  check_mcp(reply, true);
  reset_peak(mcp.pid());
  e.clear();
  f.clear();
  for (int i = 0; i < 5; ++i) {
    e.push_back(round_trip(mcp, miss_line, &reply));
    check_mcp(reply, true);
    const auto t = Clock::now();
    if (rewrite_floor(path.c_str(), old.data(), old.size(), "x", 1, 0) != 1)
      fail("the miss's floor found its oldText in " + path);
    f.push_back(ms_since(t));
  }
  print(latency_row(who + "edit_file miss, 40 lines, 8 MiB", e, status_mib(mcp.pid(), "VmHWM:"),
                    "C read + memmem", f, 0));

  const std::string small_read = mcp_call("read_text_file", {{"path", small.string()}});
  const double floor_ops = pipelined(echo, small_read, 5000);
  pipelined(mcp, small_read, 500);
  reset_peak(mcp.pid());
  const double ops = pipelined(mcp, small_read, 5000);
  Row r;
  r.workload = who + "read_text_file, 64 in flight, 3-line file";
  r.n = 5000;
  r.ops = fixed(ops, 0);
  r.peak = mib_cell(status_mib(mcp.pid(), "VmHWM:"));
  r.floor = "C echo, 64 in flight";
  r.floor_figure = fixed(floor_ops, 0) + " ops/s";
  r.ratio = fixed(ops / floor_ops, 2) + "x";
  print(r);
}

}  // namespace editd::bench::compare
