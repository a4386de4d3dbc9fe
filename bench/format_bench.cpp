// What an edit formatted by the formatter costs next to the formatter alone
// (issue 56's benchmark): a 2,000-line Python module (dataclasses of ten
// methods, module functions), already as black writes it, edited in the middle
// through the real binary over stdio with `--format '*.py=black -q -'` (black
// from PATH; editd pins it at start). Each run, in turns:
//   (a) str_replace of two lines whose newText black rewrites (`total=scale(
//       value,5 )+C`), formatted: the reply's time;
//   (b) black alone, started by the bench (fork, exec, stdin and stdout on
//       pipes, in the root as editd runs it) on exactly the text editd gave it
//       (the file after the call's edit, before formatting), end to end,
//       before (a) on odd runs and after it on even ones;
//   (c) the same kind of str_replace with `"format": false`: the plain edit;
//   (d) on a copy of the file served by a second editd, the edit of (a)
//       formatted by a formatter that costs next to nothing: `cat` of black's
//       output for that very edit, written beforehand;
//   (e) that `cat` alone, started by the bench as (b) is. p50(d) - p50(e) is
//       editd's work with a formatter, free of black's spread.
// (a) and (c) take turns on the same two lines, so every call changes bytes and
// the file alternates between two states. After every call the file on disk is
// compared with what it must be (the bytes outside the edit unchanged, the
// edit's lines as black writes them, or as sent under format false), and black's
// own output in (b) with the file after (a): any difference ends the benchmark.
// One untimed round first (black's and editd's first start). Prints the p50 and
// max of each and p50(a) - p50(b), editd's work with the formatter, against
// the goal (5 ms), beside black's own spread (which, for a formatter
// that runs for seconds, can be far larger), and editd's own CPU time per call
// (its threads' schedstat), which black's spread does not blur;
// docs/performance.md records them with the command.
//
// usage: format_bench [EDITD_BINARY] [RUNS]   (RUNS: 30 by default)
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
constexpr int kMethods = 10;
constexpr const char* kFile = "inventory.py";
constexpr const char* kFormat = "*.py=black -q -";

std::size_t count_lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// Method m of class c, as black writes it: one of three bodies, so the file
// is not one block repeated. Every method_5 starts with the two lines the
// edits replace (`total = value * 5 + C` and the `if` after it).
std::string method(int c, int m) {
  const std::string mc = std::to_string(m), cc = std::to_string(c);
  std::string s = "    def method_" + mc + "(self, value):\n";
  switch (m % 3) {
    case 0:
      s += "        \"\"\"Method " + mc + " of widget " + cc + ".\"\"\"\n";
      s += "        parts = {\"name\": self.name, \"weight\": self.weight * " + mc + "}\n";
      s += "        if not self.parts:\n";
      s += "            return parts\n";
      s += "        return {**parts, \"parts\": [p.upper() for p in self.parts]}\n";
      break;
    case 1:
      s += "        try:\n";
      s += "            ratio = math.sqrt(value) / (self.weight + " + mc + ")\n";
      s += "        except (TypeError, ValueError) as err:\n";
      s += "            raise ValueError(f\"widget " + cc + ": bad value {value!r}\") from err\n";
      s += "        return round(ratio, " + std::to_string(m % 4 + 1) + ")\n";
      break;
    default:
      s += "        total = value * " + mc + " + " + cc + "\n";
      s += "        if total > 100:\n";
      s += "            total -= " + mc + "\n";
      s += "        for i in range(3):\n";
      s += "            total += i\n";
      s += "        return total\n";
  }
  return s;
}

std::string widget_class(int c) {
  const std::string cc = std::to_string(c);
  std::string s = "@dataclass\nclass Widget" + cc + ":\n";
  s += "    \"\"\"Widget " + cc + ": a name, a weight and its parts.\"\"\"\n\n";
  s += "    name: str\n    weight: float = 1.0\n    parts: list = field(default_factory=list)\n";
  for (int m = 0; m < kMethods; ++m) s += "\n" + method(c, m);
  s += "\n\ndef build_" + cc + "(names):\n";
  s += "    \"\"\"Widgets " + cc + " for each of `names`.\"\"\"\n";
  s += "    return [Widget" + cc + "(name=n, weight=len(n) * " + cc + ".5) for n in names]\n";
  return s;
}

// The module's head, then whole classes (each with its builder, two blank
// lines between them) while they fit in kLines, then comment lines up to it.
// Returns the text and the class whose method_5 the edits change (the middle).
std::string make_source(int& middle) {
  std::string text =
      "\"\"\"Widgets and their builders: the file format_bench edits.\"\"\"\n"
      "import math\n"
      "from dataclasses import dataclass, field\n"
      "\n\n"
      "def scale(value, factor):\n"
      "    \"\"\"`value` times `factor`, never below zero.\"\"\"\n"
      "    return max(0, value * factor)\n";
  std::vector<std::string> classes;
  for (int c = 0;; ++c) {
    std::string cls = "\n\n" + widget_class(c);
    if (count_lines(text) + count_lines(cls) > kLines - 1) break;
    text += cls;
    classes.push_back(std::move(cls));
  }
  text += "\n\n";  // black's two blank lines before a top-level comment
  while (count_lines(text) < kLines) text += "# end\n";
  middle = static_cast<int>(classes.size() / 2);
  return text;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `text` with the only occurrence of `from` replaced by `to`.
std::string replaced(const std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos)
    fail("the edit's old text is not in the file exactly once: " + from);
  return text.substr(0, at) + to + text.substr(at + from.size());
}

// Where two texts first differ, as a line number and both lines, for a failure.
std::string first_difference(const std::string& got, const std::string& want) {
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  const std::size_t start = want.rfind('\n', i == 0 ? 0 : i - 1);
  const std::size_t from = start == std::string::npos ? 0 : start + 1;
  auto line = [&](const std::string& s) {
    return from >= s.size() ? std::string("(end)") : s.substr(from, s.find('\n', from) - from);
  };
  return "line " + std::to_string(count_lines(want.substr(0, from)) + 1) + ": got " +
         json(line(got)).dump() + ", want " + json(line(want)).dump();
}

// One call, timed; a reply without a result ends the benchmark.
json call(Child& editd, const std::string& method, json params, double& ms) {
  static int id = 0;
  const auto t = Clock::now();
  editd.send(request(++id, method, params));
  const std::string line = editd.line();
  ms = ms_since(t);
  json reply = json::parse(line, nullptr, false);
  if (!reply.is_object() || !reply.contains("result"))
    fail(method + " " + params.dump().substr(0, 200) + ": " + line.substr(0, 400));
  return reply["result"];
}

// `argv` (argv[0] looked up on PATH) run in `cwd` with `input` on stdin; its
// stdout. Written and read through poll, so a text larger than a pipe cannot
// stall either side. Fails on a start failure or a non-zero exit.
std::string run_filter(const std::vector<std::string>& argv, const fs::path& cwd,
                       const std::string& input) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    fail(std::string("pipe2: ") + std::strerror(errno));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls until exec; black gets SIGPIPE back.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &dfl, nullptr);
    if (::chdir(cwd.c_str()) != 0 || ::dup2(in[0], 0) < 0 || ::dup2(out[1], 1) < 0) ::_exit(126);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::fcntl(in[1], F_SETFL, O_NONBLOCK);
  std::string result;
  std::size_t sent = 0;
  int to = in[1], from = out[0];
  if (input.empty()) ::close(to), to = -1;
  while (from >= 0) {
    pollfd fds[2] = {{from, POLLIN, 0}, {to, POLLOUT, 0}};
    if (::poll(fds, to >= 0 ? 2 : 1, -1) < 0) {
      if (errno == EINTR) continue;
      fail(std::string("poll: ") + std::strerror(errno));
    }
    if (to >= 0 && fds[1].revents) {
      const ssize_t n = ::write(to, input.data() + sent, input.size() - sent);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == input.size()) ::close(to), to = -1;
    }
    if (fds[0].revents) {
      char chunk[65536];
      const ssize_t n = ::read(from, chunk, sizeof chunk);
      if (n > 0) result.append(chunk, static_cast<std::size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR)) ::close(from), from = -1;
    }
  }
  if (to >= 0) ::close(to);
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    fail(argv[0] + " exited with status " + std::to_string(st));
  return result;
}

void run(const std::string& binary, int runs) {
  const fs::path root = g_root / "root", state = g_root / "state";
  fs::create_directories(root);
  fs::create_directory(state);
  fs::permissions(state, fs::perms::owner_all, fs::perm_options::replace);
  int cls = 0;
  const std::string source = make_source(cls);
  const std::vector<std::string> black{"black", "-q", "-"};
  // The file must be black's own output, or black would change lines the edit
  // did not touch and (b) would not be the formatter's run on that text.
  if (const std::string again = run_filter(black, root, source); again != source)
    fail("the generated file is not as black writes it, " + first_difference(again, source));
  std::ofstream(root / kFile, std::ios::binary) << source;

  // The two lines every edit replaces, in the middle class's method_5: as the
  // file has them (A), as the formatted edit writes them (B), and as the calls
  // send them (badly formatted, black rewrites both lines).
  const std::string cc = std::to_string(cls);
  const std::string a_fmt = "        total = value * 5 + " + cc + "\n        if total > 100:\n";
  const std::string a_bad = "        total=value*5+" + cc + "\n        if total>100 :\n";
  const std::string b_fmt = "        total = scale(value, 5) + " + cc + "\n        if total >= 100:\n";
  const std::string b_bad = "        total=scale( value,5 )+" + cc + "\n        if total>=100 :\n";

  Child editd(binary, root.string(),
              {"--state-dir", state.string(), "--format", kFormat});
  // (d) The same edit on a copy of the file, by a second editd whose
  // formatter costs next to nothing: `cat` of black's output for that very
  // edit, written beforehand (it never reads its stdin). Its time less (e),
  // that cat alone, is editd's work around a formatter, free of black's
  // spread.
  const fs::path root2 = g_root / "root2", state2 = g_root / "state2",
                 replay = g_root / "replay.py";
  fs::create_directories(root2);
  fs::create_directory(state2);
  fs::permissions(state2, fs::perms::owner_all, fs::perm_options::replace);
  std::ofstream(root2 / kFile, std::ios::binary) << source;
  const std::vector<std::string> cat{"cat", replay.string()};
  Child fast(binary, root2.string(),
             {"--state-dir", state2.string(), "--format", "*.py=cat " + replay.string()});
  Samples replayed, cat_alone;
  std::string file = source;  // what the file must hold after each call
  std::string old_text = a_fmt;
  Samples formatted, alone, plain, paired, formatted_cpu, plain_cpu;
  double ms;
  for (int i = -1; i < runs; ++i) {  // run -1: untimed
    const std::string given = replaced(file, old_text, b_bad);  // what editd hands black
    const std::string after = replaced(file, old_text, b_fmt);  // what it writes
    // (b) Black alone on the text editd gave it: the whole file as black
    // writes it, which is the file after (a). Before (a) on odd runs, after it
    // on even ones, so neither always runs on the caches the other warmed.
    double b_ms = 0;
    auto alone_run = [&] {
      const auto t = Clock::now();
      const std::string out = run_filter(black, root, given);
      b_ms = ms_since(t);
      if (out != after)
        fail("black alone does not write what editd wrote, " + first_difference(out, after));
    };
    if (i % 2 != 0) alone_run();

    // (a) Formatted: the lines as sent become black's.
    double cpu = cpu_ms(editd.pid());
    json r = call(editd, "str_replace",
                  {{"path", kFile}, {"oldText", old_text}, {"newText", b_bad}}, ms);
    const double a_ms = ms, a_cpu = cpu_ms(editd.pid()) - cpu;
    if (r.value("formatStatus", "absent") != "ok" || !r.contains("formatted"))
      fail("the formatted edit's reply: formatStatus " + r.value("formatStatus", "absent") +
           ", formatDetail " + r.value("formatDetail", "") + ", formatted " +
           (r.contains("formatted") ? "present" : "absent"));
    file = after;
    if (const std::string disk = read_file(root / kFile); disk != file)
      fail("after the formatted edit, " + first_difference(disk, file));
    if (i % 2 == 0) alone_run();

    // (d) and (e): the same edit, formatted by the replay, and the replay alone.
    std::ofstream(replay, std::ios::binary | std::ios::trunc) << after;
    double e_ms = 0;
    {
      const auto t = Clock::now();
      const std::string out = run_filter(cat, root2, given);
      e_ms = ms_since(t);
      if (out != after) fail("the replay does not write black's output");
    }
    r = call(fast, "str_replace", {{"path", kFile}, {"oldText", old_text}, {"newText", b_bad}}, ms);
    const double d_ms = ms;
    if (r.value("formatStatus", "absent") != "ok" || !r.contains("formatted"))
      fail("the replayed edit's reply: " + r.dump().substr(0, 400));
    if (const std::string disk = read_file(root2 / kFile); disk != file)
      fail("after the replayed edit, " + first_difference(disk, file));
    r = call(fast, "str_replace",
             {{"path", kFile}, {"oldText", b_fmt}, {"newText", a_bad}, {"format", false}}, ms);

    // (c) The plain edit of the same two lines, written as sent.
    cpu = cpu_ms(editd.pid());
    r = call(editd, "str_replace",
             {{"path", kFile}, {"oldText", b_fmt}, {"newText", a_bad}, {"format", false}}, ms);
    const double c_ms = ms, c_cpu = cpu_ms(editd.pid()) - cpu;
    if (r.contains("formatStatus") || r.contains("formatted"))
      fail("the edit with \"format\": false was formatted: " + r.dump().substr(0, 400));
    file = replaced(file, b_fmt, a_bad);
    if (const std::string disk = read_file(root / kFile); disk != file)
      fail("after the plain edit, " + first_difference(disk, file));
    old_text = a_bad;

    if (i < 0) continue;
    formatted.ms.push_back(a_ms);
    alone.ms.push_back(b_ms);
    plain.ms.push_back(c_ms);
    paired.ms.push_back(a_ms - b_ms);
    replayed.ms.push_back(d_ms);
    cat_alone.ms.push_back(e_ms);
    formatted_cpu.ms.push_back(a_cpu);
    plain_cpu.ms.push_back(c_cpu);
  }
  if (const int st = fast.end(); !WIFEXITED(st) || WEXITSTATUS(st) != 0)
    fail("the second editd ended with status " + std::to_string(st));
  const int status = editd.end();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail("editd ended with status " + std::to_string(status));

  const double work = formatted.p50() - alone.p50();
  std::printf(
      "Python, %d lines (%zu bytes), `--format '%s'`, runs=%d, in turns:\n"
      "  (a) str_replace, formatted by black:          %s\n"
      "  (b) black alone on the same text (fork+exec): %s\n"
      "  (c) str_replace, \"format\": false:             %s\n"
      "  editd's work with the formatter, p50(a) - p50(b): %.2f ms (goal <= 5 ms: %s;\n"
      "    black's own spread, max - p50 of (b): %.2f ms);\n"
      "    p50 of (a) - (b) run by run: %.2f ms\n"
      "  editd's own CPU time (its threads, not black's), formatted: %s\n"
      "                                                    plain:     %s\n"
      "  (d) str_replace, formatted by a replay of black's output (cat): %s\n"
      "  (e) that replay alone (fork+exec):                              %s\n"
      "  editd's work with a formatter, p50(d) - p50(e): %.2f ms (goal <= 5 ms: %s)\n",
      kLines, source.size(), kFormat, runs, formatted.text().c_str(), alone.text().c_str(),
      plain.text().c_str(), work, work <= 5.0 ? "met" : "NOT met", alone.max() - alone.p50(), paired.p50(),
      formatted_cpu.text().c_str(), plain_cpu.text().c_str(), replayed.text().c_str(),
      cat_alone.text().c_str(), replayed.p50() - cat_alone.p50(),
      replayed.p50() - cat_alone.p50() <= 5.0 ? "met" : "NOT met");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 30;
  editd::bench::g_bench = "format_bench";
  std::signal(SIGPIPE, SIG_IGN);  // a filter that exits early: a failure, not the bench's death
  // Skipped, not failed, where black is missing: bench/run.sh runs every bench.
  if (std::system("command -v black >/dev/null") != 0) {
    std::printf("format_bench: skipped, no black on PATH "
                "(apt-get install -y --no-install-recommends black)\n");
    return 0;
  }
  g_root = fs::temp_directory_path() / ("editd-format-bench-" + std::to_string(::getpid()));
  fs::create_directories(g_root);
  run(binary, runs);
  fs::remove_all(g_root);
}
