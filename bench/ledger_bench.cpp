// What the ledger (server/ledger/ledger.h) costs, in one run against one
// binary: the same workloads with the ledger (the default) and with
// `--ledger off`, each configuration in a fresh root of its own with a fresh
// 0700 state directory (`--state-dir`), both under `--durability full` (the
// default) unless said. The two servers run side by side and take turns, a
// round each, the first of a round alternating, so that both see the same
// load. One line per figure, with the goal it is measured against:
//   edit       a one-line str_replace of a 2,000-line file (60 KB), p50 with
//              the ledger <= 1.3x the p50 without
//   pipelined  str_replace with 64 in flight, over 64 files and over one:
//              ops/s with the ledger >= without
//   changes    `changes` over a ledger of 10,000 entries (filled under
//              --durability none, then read by a new process): default limit,
//              and a `path` filter, < 50 ms; each filtered call in a server of
//              its own, whose death (during or after the call) is counted
//   growth     1,000 one-line edits of an 8 MiB file: the ledger's .sqlite and
//              -wal grow by < 5 MB
// LEDGER_BENCH_ONLY=edit,pipelined,changes,growth (any of them) runs those
// alone. The files live in a directory of $TMPDIR (/tmp by default), whose
// filesystem the header names. docs/performance.md records the figures with
// the command.
//
// usage: ledger_bench [EDITD_BINARY]

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bench/child.h"
#include "bench/compare_support.h"

using namespace editd::bench::compare;

namespace {

// ---- The two configurations -----------------------------------------------

// One editd with its own root and state directory.
struct Server {
  std::string name;  // "ledger" or "off"
  fs::path root, state;
  std::unique_ptr<Child> child;
};

// A fresh root and a fresh 0700 state directory under g_root/`tag`-NAME;
// the server is started by start().
Server fresh(const std::string& tag, bool ledger) {
  Server s;
  s.name = ledger ? "ledger" : "off";
  const fs::path dir = g_root / (tag + "-" + s.name);
  s.root = dir / "root";
  s.state = dir / "state";
  fs::create_directories(s.root);
  fs::create_directories(s.state);
  fs::permissions(s.state, fs::perms::owner_all, fs::perm_options::replace);
  return s;
}

void start(const std::string& binary, Server& s, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--state-dir", s.state.string()});
  if (s.name == "off") extra.insert(extra.end(), {"--ledger", "off"});
  s.child = std::make_unique<Child>(binary, s.root.string(), extra);
}

// The bytes of the ledger's files in `state`: the databases, their WALs and
// their shared-memory files, each summed over the ledger directory.
struct LedgerBytes {
  std::uintmax_t db = 0, wal = 0, shm = 0;
  std::uintmax_t counted() const { return db + wal; }
};

LedgerBytes ledger_bytes(const fs::path& state) {
  LedgerBytes b;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state / "ledger", ec)) {
    const std::string n = e.path().filename().string();
    const std::uintmax_t size = e.file_size(ec);
    if (ec) continue;
    if (n.ends_with(".sqlite")) b.db += size;
    else if (n.ends_with(".sqlite-wal")) b.wal += size;
    else if (n.ends_with(".sqlite-shm")) b.shm += size;
  }
  return b;
}

std::string str_replace(int id, const std::string& path, std::string_view from,
                        std::string_view to) {
  return request(id, "str_replace",
                 {{"path", path}, {"oldText", std::string(from)}, {"newText", std::string(to)}});
}

double p50(std::vector<double> v) { return stats(std::move(v)).p50; }

double p90(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() * 9 / 10];
}

const char* verdict(bool met) { return met ? "met" : "NOT MET"; }

// ---- edit: one durable one-line edit of a 2,000-line file ------------------

// `n` edits of the marker line in turns A -> B -> A; each round trip's ms
// appended to `out`. `in_a`: the file holds marker A.
void marker_edits(Server& s, const std::string& path, int n, bool& in_a,
                  std::vector<double>* out) {
  for (int i = 0; i < n; ++i) {
    const std::string line =
        in_a ? str_replace(i, path, kMarkerA, kMarkerB) : str_replace(i, path, kMarkerB, kMarkerA);
    std::string reply;
    const double ms = round_trip(*s.child, line, &reply);
    check(reply, ("str_replace of " + path + " (" + s.name + ")").c_str());
    in_a = !in_a;
    if (out) out->push_back(ms);
  }
}

void durable_edit(const std::string& binary) {
  const int rounds = 20, per_round = 25;
  Server on = fresh("edit", true), off = fresh("edit", false);
  Server* servers[] = {&on, &off};
  const std::string text = c_text(2000, 1 << 30);
  std::vector<double> ms[2];
  bool in_a[2] = {true, true};
  for (int k = 0; k < 2; ++k) {
    write_file(servers[k]->root / "lines2000.c", text);
    start(binary, *servers[k]);
    marker_edits(*servers[k], "lines2000.c", 20, in_a[k], nullptr);  // the ledger opened
  }
  for (int r = 0; r < rounds; ++r)
    for (int j = 0; j < 2; ++j) {
      const int k = (r + j) % 2;
      marker_edits(*servers[k], "lines2000.c", per_round, in_a[k], &ms[k]);
    }
  const double with = p50(ms[0]), without = p50(ms[1]);
  const double ratio = with / without;
  std::printf(
      "edit: durable str_replace, 1 line of 2,000 (%zu B), n=%zu each: p50 %.3f ms with the "
      "ledger, %.3f ms without (p90 %.3f / %.3f): %.2fx, goal <= 1.3x: %s\n",
      text.size(), ms[0].size(), with, without, p90(ms[0]), p90(ms[1]), ratio,
      verdict(ratio <= 1.3));
  std::fflush(stdout);
}

// ---- pipelined: 64 durable edits in flight ----------------------------------

constexpr int kWindow = 64;
constexpr int kLinesPerFile = 2000;

std::string numbered_lines(char mark) {
  std::string out;
  for (int i = 0; i < kLinesPerFile; ++i)
    out += "line " + std::to_string(i) + " " + mark + "\n";
  return out;
}

// `total` str_replace with 64 in flight, each on a line of its own: request k
// goes to file k % files, line k / files, and turns its mark from `from` to
// `to`. Requests per second.
double edit_round(Server& s, int files, int total, char from, char to) {
  std::vector<std::string> lines;
  for (int k = 0; k < total; ++k) {
    const std::string n = std::to_string(k / files);
    lines.push_back(str_replace(k, "f" + std::to_string(k % files) + ".txt",
                                "line " + n + " " + from + "\n", "line " + n + " " + to + "\n"));
  }
  int sent = 0, received = 0;
  std::string batch;
  const auto t = Clock::now();
  while (received < total) {
    batch.clear();
    while (sent < total && sent - received < kWindow) batch += lines[sent++];
    if (!batch.empty()) s.child->send(batch);
    const std::string reply = s.child->line();
    if (reply.find("\"result\"") == std::string::npos)
      fail("pipelined str_replace (" + s.name + "): " + reply.substr(0, 400));
    ++received;
  }
  return total / (ms_since(t) / 1000);
}

void pipelined_edits(const std::string& binary, bool one_file) {
  const int files = one_file ? 1 : 64;
  const int rounds = 10, per_round = 640;
  if (per_round / files > kLinesPerFile) fail("pipelined: more edits a round than lines");
  const std::string tag = one_file ? "one" : "many";
  Server on = fresh(tag, true), off = fresh(tag, false);
  Server* servers[] = {&on, &off};
  const std::string text = numbered_lines('a');
  std::vector<double> ops[2];
  double secs[2] = {0, 0};
  for (Server* s : servers) {
    for (int f = 0; f < files; ++f) write_file(s->root / ("f" + std::to_string(f) + ".txt"), text);
    start(binary, *s);
  }
  // Round r turns the marks from a to b (r even) or back; round 0 warms up.
  for (int r = 0; r <= rounds; ++r)
    for (int j = 0; j < 2; ++j) {
      const int k = (r + j) % 2;
      const char from = r % 2 ? 'b' : 'a', to = r % 2 ? 'a' : 'b';
      const double rate = edit_round(*servers[k], files, per_round, from, to);
      if (r == 0) continue;
      ops[k].push_back(rate);
      secs[k] += per_round / rate;
    }
  const double with = p50(ops[0]), without = p50(ops[1]);
  const double all_with = rounds * per_round / secs[0], all_without = rounds * per_round / secs[1];
  std::printf(
      "pipelined: durable str_replace, 64 in flight, %s, %d rounds of %d each: median round "
      "%.0f ops/s with the ledger, %.0f without (%.2fx); over all rounds %.0f and %.0f "
      "(%.2fx); goal >= 1x: %s\n",
      one_file ? "one file (2,000 lines)" : "64 files (2,000 lines each)", rounds, per_round, with,
      without, with / without, all_with, all_without, all_with / all_without,
      verdict(all_with >= all_without));
  std::fflush(stdout);
}

// ---- changes: reading a ledger of 10,000 entries ----------------------------

void changes_latency(const std::string& binary) {
  const int entries = 10000, files = 100;
  Server s = fresh("changes", true);
  // The oldest entry is the only one of rare.txt: its filter reads past the
  // 9,999 others.
  write_file(s.root / "rare.txt", "alpha\n");
  const std::string text = numbered_lines('a');
  for (int f = 0; f < files; ++f) write_file(s.root / ("f" + std::to_string(f) + ".txt"), text);
  const auto fill_t = Clock::now();
  {
    start(binary, s, {"--durability", "none"});
    std::string reply;
    round_trip(*s.child, str_replace(0, "rare.txt", "alpha", "beta"), &reply);
    check(reply, "str_replace of rare.txt");
    edit_round(s, files, entries - 1, 'a', 'b');
    s.child.reset();
  }
  const double fill_s = ms_since(fill_t) / 1000;
  const LedgerBytes size = ledger_bytes(s.state);
  start(binary, s);
  std::string reply;
  const double first = round_trip(*s.child, request(0, "changes", json::object()), &reply);
  check(reply, "changes");
  const std::string newest = json::parse(reply)["result"]["changes"][0].value("id", "");
  if (newest != "c" + std::to_string(entries))
    fail("changes: the newest entry is " + newest + ", not c" + std::to_string(entries));
  std::printf(
      "changes: a ledger of %d entries (filled in %.1f s under --durability none; .sqlite %ju B, "
      "-wal %ju B); first call of a new process %.2f ms\n",
      entries, fill_s, size.db, size.wal, first);
  // Unfiltered pages, 50 calls each in turns, in the one server.
  struct Query {
    const char* what;
    json params;
    bool goal;  // false: for reading
    std::vector<double> ms;
    std::size_t bytes = 0, listed = 0;
  };
  std::vector<Query> pages = {
      {"default limit (50)", json::object(), true, {}},
      {"limit 1000", {{"limit", 1000}}, false, {}},
  };
  for (int i = 0; i < 50; ++i)
    for (Query& q : pages) {
      q.ms.push_back(round_trip(*s.child, request(i, "changes", q.params), &reply));
      check(reply, "changes");
      q.bytes = reply.size();
      q.listed = json::parse(reply)["result"]["changes"].size();
    }
  s.child.reset();
  // The path filters, each call in a server of its own (a page read first,
  // so that the ledger is open): a filter may take the server down (at
  // 747d983 any string filter did), which is reported, not waited for.
  std::vector<Query> filtered = {
      {"path filter, 100 entries of the file", {{"path", "f7.txt"}}, true, {}},
      {"path filter, the oldest entry alone", {{"path", "rare.txt"}}, true, {}},
  };
  const int calls = 10;
  for (Query& q : filtered) {
    int died = 0;
    std::string how;
    for (int i = 0; i < calls; ++i) {
      start(binary, s);
      round_trip(*s.child, request(0, "changes", {{"limit", 1}}), &reply);
      check(reply, "changes");
      const auto t = Clock::now();
      s.child->send(request(1, "changes", q.params));
      std::optional<std::string> r = s.child->try_line();
      const double ms = ms_since(t);
      // Its end as well: a server that replied and then died counts as dead.
      const int st = s.child->end();
      if (!r || WIFSIGNALED(st)) {
        ++died;
        how = WIFSIGNALED(st) ? "signal " + std::to_string(WTERMSIG(st))
                              : "exit " + std::to_string(WEXITSTATUS(st));
        if (r) how += ", after its reply";
      }
      if (r) {
        check(*r, "changes");
        q.ms.push_back(ms);
        q.bytes = r->size();
        q.listed = json::parse(*r)["result"]["changes"].size();
      }
      s.child.reset();
    }
    if (died)
      std::printf("changes: %-38s the server died in %d of %d calls (last: %s)\n",
                  q.what, died, calls, how.c_str());
    if (!q.ms.empty()) pages.push_back(std::move(q));
  }
  for (Query& q : pages)
    std::printf("changes: %-38s n=%zu  p50 %.2f ms  max %.2f ms  (%zu listed, %zu B)%s%s\n",
                q.what, q.ms.size(), p50(q.ms), *std::max_element(q.ms.begin(), q.ms.end()),
                q.listed, q.bytes, q.goal ? "; goal < 50 ms: " : "",
                q.goal ? verdict(p50(q.ms) < 50) : "");
  std::fflush(stdout);
}

// ---- growth: 1,000 one-line edits of an 8 MiB file --------------------------

void ledger_growth(const std::string& binary) {
  const int rounds = 10, per_round = 100;
  Server on = fresh("growth", true), off = fresh("growth", false);
  Server* servers[] = {&on, &off};
  const std::string text = c_text(std::size_t(1) << 30, 8u << 20);
  std::vector<double> ms[2];
  bool in_a[2] = {true, true};
  for (Server* s : servers) {
    write_file(s->root / "big.c", text);
    start(binary, *s);
  }
  const LedgerBytes before = ledger_bytes(on.state);
  for (int r = 0; r < rounds; ++r)
    for (int j = 0; j < 2; ++j) {
      const int k = (r + j) % 2;
      marker_edits(*servers[k], "big.c", per_round, in_a[k], &ms[k]);
    }
  const LedgerBytes after = ledger_bytes(on.state);
  on.child.reset();
  const LedgerBytes closed = ledger_bytes(on.state);
  const std::intmax_t growth = static_cast<std::intmax_t>(after.counted()) -
                               static_cast<std::intmax_t>(before.counted());
  std::printf(
      "growth: %d one-line edits of %zu B: the ledger's .sqlite + -wal %ju -> %ju B (.sqlite %ju, "
      "-wal %ju; -shm %ju not counted): +%jd B, goal < 5,000,000 B: %s; after the server exits "
      ".sqlite %ju, -wal %ju\n",
      rounds * per_round, text.size(), before.counted(), after.counted(), after.db, after.wal,
      after.shm, growth, verdict(growth < 5000000), closed.db, closed.wal);
  std::printf("growth: the same edits' p50 %.2f ms with the ledger, %.2f ms without (%.2fx)\n",
              p50(ms[0]), p50(ms[1]), p50(ms[0]) / p50(ms[1]));
  std::fflush(stdout);
}

// Whether LEDGER_BENCH_ONLY (comma-separated workload names) lets `name` run.
bool runs(std::string_view name) { return editd::bench::runs_in("LEDGER_BENCH_ONLY", name); }

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  editd::bench::g_bench = "ledger_bench";
  std::signal(SIGPIPE, SIG_IGN);  // a server that died: an error, not the end of the run
  g_root = fs::temp_directory_path() / ("editd-ledger-" + std::to_string(::getpid()));
  fs::create_directories(g_root);
  std::printf("editd: %s (%s)\nroot: %s, on %s\ncores: %u\nload average before: %s\n\n",
              binary.c_str(), first_line_of("'" + binary + "' --version").c_str(), g_root.c_str(),
              filesystem_of(g_root).c_str(), std::thread::hardware_concurrency(),
              first_line_of("cat /proc/loadavg").c_str());
  const auto t = Clock::now();
  if (runs("edit")) durable_edit(binary);
  if (runs("pipelined")) {
    pipelined_edits(binary, false);
    pipelined_edits(binary, true);
  }
  if (runs("changes")) changes_latency(binary);
  if (runs("growth")) ledger_growth(binary);
  std::printf("\nload average after: %s; %.0f s in all\n",
              first_line_of("cat /proc/loadavg").c_str(), ms_since(t) / 1000);
  fs::remove_all(g_root);
}
