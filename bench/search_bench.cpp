// search against ripgrep (issue 57): a generated source tree of 50,000 files
// (a git repository with a .gitignore, so both honour it), searched for a
// literal and for a regular expression through editd's protocol (paging with
// the cursor until the end), and by Debian's rg with the same ignore rules
// (rg --no-config -c). Both must count the same matching lines; the figures
// are each side's p50 over the runs, and their ratio (goal: editd <= 1.5x).
//
//   build/bench/search_bench [EDITD] [RUNS]     (default RUNS 7)
//
// The tree is made once in $TMPDIR/editd-search-tree-v1 by a fixed generator
// and reused by later runs (delete it to make it anew).
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/child.h"
#include "bench/scratch.h"

using namespace editd::bench;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int kDirs = 500, kFilesPerDir = 100;

struct Lcg {
  std::uint64_t s;
  std::uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(s >> 33);
  }
};

const char* kWords[] = {"value", "record", "buffer", "index", "count", "state", "result", "node",
                        "item",  "entry",  "offset", "limit", "cache", "queue", "token", "frame"};

// One source-like file: 20-60 lines of C-ish code; now and then the literal
// and the expression's shape.
std::string make_file(Lcg& r, int n) {
  std::string out = "// generated file " + std::to_string(n) + "\n#include <stdio.h>\n\n";
  const int lines = 20 + static_cast<int>(r.next() % 41);
  for (int i = 0; i < lines; ++i) {
    const char* a = kWords[r.next() % 16];
    const char* b = kWords[r.next() % 16];
    const std::uint32_t roll = r.next() % 1000;
    if (roll < 2)
      out += "    /* needle_marker: look here */\n";
    else if (roll < 6)
      out += std::string("    handle_") + a + "_" + std::to_string(100 + r.next() % 900) + "(" +
             b + ");\n";
    else if (roll < 100)
      out += std::string("static int ") + a + "_" + b + "(int " + a + ") {\n";
    else
      out += std::string("    ") + a + " = " + b + " + " + std::to_string(r.next() % 4096) +
             "; // " + b + " of " + a + "\n";
  }
  return out;
}

fs::path make_tree() {
  const char* tmp = std::getenv("TMPDIR");
  const fs::path root = fs::path(tmp && *tmp ? tmp : "/tmp") / "editd-search-tree-v1";
  if (fs::exists(root / ".complete")) return root;
  fs::remove_all(root);
  fs::create_directories(root / ".git" / "objects");
  fs::create_directories(root / ".git" / "refs");
  std::ofstream(root / ".git" / "HEAD") << "ref: refs/heads/main\n";
  std::ofstream(root / ".gitignore") << "*.log\nbuild/\n";
  Lcg r{57};
  int n = 0;
  for (int d = 0; d < kDirs; ++d) {
    const fs::path dir = root / ("mod" + std::to_string(d / 25)) / ("pkg" + std::to_string(d));
    fs::create_directories(dir);
    for (int f = 0; f < kFilesPerDir; ++f, ++n)
      std::ofstream(dir / ("file" + std::to_string(f) + ".c"), std::ios::binary) << make_file(r, n);
    // Ignored by the .gitignore: both must skip these.
    if (d % 50 == 0) std::ofstream(dir / "trace.log") << "needle_marker handle_x_123(y);\n";
  }
  fs::create_directories(root / "build");
  std::ofstream(root / "build" / "out.c") << "needle_marker\n";
  std::ofstream(root / ".complete") << "done\n";
  return root;
}

// What `argv` prints on stdout (its exit status 0 or 1: rg's "no match").
std::string run_capture(std::vector<std::string> argv) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) fail("pipe2");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid;
  if (::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) fail("spawn rg");
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) fail("rg failed");
  return text;
}

// rg -c's "path:count" lines, summed.
std::uint64_t rg_count(const fs::path& root, const std::string& pattern, bool regex, double& ms) {
  std::vector<std::string> argv{"rg", "--no-config", "-c"};
  if (!regex) argv.push_back("-F");
  argv.insert(argv.end(), {"-e", pattern, root.string()});
  const auto t = Clock::now();
  const std::string out = run_capture(argv);
  ms = ms_since(t);
  std::uint64_t total = 0;
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t nl = out.find('\n', at);
    const std::string line = out.substr(at, nl - at);
    total += std::stoull(line.substr(line.rfind(':') + 1));
    at = nl == std::string::npos ? out.size() : nl + 1;
  }
  return total;
}

// editd's search, every page, summed.
std::uint64_t editd_count(Child& editd, const std::string& pattern, bool regex, double& ms) {
  static int id = 0;
  std::uint64_t total = 0;
  std::optional<std::string> cursor;
  const auto t = Clock::now();
  do {
    json params{{"pattern", pattern}, {"regex", regex}, {"limit", 1000}, {"timeoutMs", 60000}};
    if (cursor) params["cursor"] = *cursor;
    editd.send(request(++id, "search", params));
    const std::string line = editd.line();
    json reply = json::parse(line, nullptr, false);
    if (!reply.is_object() || !reply.contains("result")) fail("search: " + line.substr(0, 400));
    const json& r = reply["result"];
    total += r["hits"].size();
    cursor.reset();
    if (r.contains("nextCursor")) {
      if (r.value("truncatedBy", "") != "limit" && r.value("truncatedBy", "") != "bytes")
        fail("search stopped by " + r.value("truncatedBy", std::string("?")));
      cursor = r["nextCursor"];
    }
  } while (cursor);
  ms = ms_since(t);
  return total;
}

double p50(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
  g_bench = "search_bench";
  if (std::system("command -v rg >/dev/null") != 0) {
    std::printf("search_bench: skipped, no rg on PATH (apt-get install -y ripgrep)\n");
    return 0;
  }
  const fs::path root = make_tree();
  Child editd(binary, root.string());
  std::printf("search_bench: %d files in %s, %d runs each, warm cache\n", kDirs * kFilesPerDir,
              root.c_str(), runs);
  struct Case {
    const char* what;
    std::string pattern;
    bool regex;
  } cases[] = {{"literal", "needle_marker", false},
               {"regex", "handle_[a-z]+_[0-9]{3}\\(", true}};
  for (const Case& c : cases) {
    std::vector<double> e_ms, r_ms;
    std::uint64_t e_hits = 0, r_hits = 0;
    double ms;
    editd_count(editd, c.pattern, c.regex, ms);  // warm-up: the page cache, libgit2, JIT
    rg_count(root, c.pattern, c.regex, ms);
    for (int i = 0; i < runs; ++i) {
      e_hits = editd_count(editd, c.pattern, c.regex, ms);
      e_ms.push_back(ms);
      r_hits = rg_count(root, c.pattern, c.regex, ms);
      r_ms.push_back(ms);
    }
    if (e_hits != r_hits)
      fail(std::string(c.what) + ": editd found " + std::to_string(e_hits) + " lines, rg " +
           std::to_string(r_hits));
    const double e = p50(e_ms), r = p50(r_ms);
    std::printf("  %-8s %-28s %6llu lines  editd p50 %8.1f ms  rg p50 %8.1f ms  ratio %.2fx\n",
                c.what, c.pattern.c_str(), static_cast<unsigned long long>(e_hits), e, r, e / r);
  }
  return 0;
}
