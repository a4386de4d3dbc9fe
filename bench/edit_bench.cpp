// What one edit costs against the file it touches: a one-line str_replace in a
// 2,000-line (60 KB), an 8 MiB and a 64 MiB file, and a replaceAll over 10,000
// lines of a 238 KB file, each through the real binary over stdio and side by
// side with its floor: this process reading the whole file and rewriting it
// atomically at editd's default durability (temporary file in the same
// directory, fsync, rename over, fsync of the directory). Each workload gets a
// fresh editd, so that its peak RSS (VmHWM) is that workload's own. Edits
// alternate (marker_A <-> marker_B, hit <-> HIT) so that the file changes every
// time, and editd and the floor take turns on the same file. Prints one line
// per workload; docs/performance.md records them with the command.
//
// usage: edit_bench [EDITD_BINARY]
#include <fcntl.h>
#include <sys/stat.h>
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
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/child.h"
#include "bench/scratch.h"

namespace {

using editd::bench::Child;
using editd::bench::Clock;
using editd::bench::fail;
using editd::bench::g_root;
using editd::bench::ms_since;
using editd::bench::request;
using nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void fail_errno(const std::string& what, const std::string& path) {
  fail(what + " " + path + ": " + std::strerror(errno));
}

// A workload: a file, the two texts an edit toggles between, and the bytes
// that differ between the two states, so that the floor can make the same
// change without searching for it.
struct Workload {
  std::string name;
  std::string file;
  std::string content;         // in state A
  std::string text_a, text_b;  // oldText/newText of the A -> B edit
  bool replace_all = false;
  std::size_t replacements = 1;      // expected in every reply
  std::vector<std::size_t> flip_at;  // offsets of the bytes that differ
  unsigned char flip_mask = 0;       // byte in A ^ byte in B
  int runs = 0;
};

// C-like lines, 30 bytes on average: line i is kLines[i % 8] with i between its
// two parts (or alone). None contains "marker" or "hit", in either case.
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

void c_line(std::string& out, std::size_t i) {
  const LineTemplate& t = kLines[i % std::size(kLines)];
  out += t.before;
  if (t.numbered) out += std::to_string(i);
  out += t.after;
  out += '\n';
}

constexpr std::string_view kMarkerA = "    int marker_A = 1; /* edit_bench toggles this line */";
constexpr std::string_view kMarkerB = "    int marker_B = 1; /* edit_bench toggles this line */";

// C-like lines up to `max_lines` lines or `max_bytes` bytes, whichever comes
// first, with the marker line in the middle.
Workload one_line(std::string name, std::string file, std::size_t max_lines, std::size_t max_bytes,
                  int runs) {
  Workload w;
  w.name = std::move(name);
  w.file = std::move(file);
  w.runs = runs;
  w.text_a = kMarkerA;
  w.text_b = kMarkerB;
  std::string body;
  std::vector<std::size_t> starts;
  const std::size_t room = max_bytes - kMarkerA.size() - 1;
  for (std::size_t i = 0; starts.size() + 1 < max_lines; ++i) {
    const std::size_t before = body.size();
    c_line(body, i);
    if (body.size() > room) {
      body.resize(before);
      break;
    }
    starts.push_back(before);
  }
  const std::size_t at = starts[starts.size() / 2];
  w.content = body.substr(0, at);
  w.content += kMarkerA;
  w.content += '\n';
  w.content.append(body, at);
  w.flip_at = {at + kMarkerA.find('A')};
  w.flip_mask = 'A' ^ 'B';
  return w;
}

// 10,000 lines "hit N" among as many C-like ones, 238 KB in all.
Workload replace_all(int runs) {
  Workload w;
  w.name = "replaceAll hit->HIT, 10,000 lines";
  w.file = "hits.c";
  w.runs = runs;
  w.text_a = "hit";
  w.text_b = "HIT";
  w.replace_all = true;
  w.replacements = 10000;
  w.flip_mask = 'h' ^ 'H';
  for (std::size_t i = 0; i < 10000; ++i) {
    const std::size_t at = w.content.size();
    w.content += "hit " + std::to_string(i) + "\n";
    for (std::size_t k = 0; k < 3; ++k) w.flip_at.push_back(at + k);
    w.content += "    s += " + std::to_string(i) + ";\n";
  }
  return w;
}

// Turns the bytes of state A into those of state B, and back.
void flip(std::string& bytes, const Workload& w) {
  for (std::size_t at : w.flip_at) bytes[at] = static_cast<char>(bytes[at] ^ w.flip_mask);
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail("cannot write " + path.string());
}

std::string read_file(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_errno("open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) fail_errno("fstat", path);
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno("read", path);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  ::close(fd);
  return out;
}

// The floor: read the whole file, make the edit in place, and replace the file
// atomically with editd's default durability.
void floor_rewrite(const fs::path& path, const Workload& w) {
  std::string bytes = read_file(path);
  flip(bytes, w);
  std::string tmp =
      (path.parent_path() / ("." + path.filename().string() + ".floor-XXXXXX")).string();
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) fail_errno("mkostemp", tmp);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno("write", tmp);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail_errno("fsync", tmp);
  if (::close(fd) != 0) fail_errno("close", tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail_errno("rename", tmp);
  int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0) fail_errno("fsync directory", path.parent_path());
  ::close(dir);
}

// utime + stime of every thread of `pid`, in clock ticks (/proc/PID/stat
// fields 14 and 15).
long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) fail("cannot parse /proc/" + std::to_string(pid) + "/stat");
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

// VmHWM of `pid` in MiB.
double peak_rss_mib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  fail("no VmHWM in /proc/" + std::to_string(pid) + "/status");
}

// Sends the `id`th edit (even: A -> B) and checks that its reply is a success
// with the expected number of replacements.
void edit(Child& editd, const Workload& w, int id) {
  const bool forward = id % 2 == 0;
  json params{{"path", w.file},
              {"oldText", forward ? w.text_a : w.text_b},
              {"newText", forward ? w.text_b : w.text_a}};
  if (w.replace_all) params["replaceAll"] = true;
  editd.send(request(id, "str_replace", std::move(params)));
  const std::string line = editd.line();
  const json reply = json::parse(line, nullptr, false);
  if (reply.is_discarded() || !reply.contains("result") || reply.value("id", -1) != id ||
      reply["result"].value("replacements", std::size_t{0}) != w.replacements)
    fail(w.name + ": str_replace #" + std::to_string(id) +
         " did not succeed: " + line.substr(0, 400));
}

struct Figures {
  std::vector<double> editd_ms, floor_ms;
  double cpu_ms_per_edit;
  double peak_mib;
};

Figures run(const std::string& binary, const Workload& w) {
  const fs::path path = g_root / w.file;
  write_file(path, w.content);
  Figures f;
  Child editd(binary, g_root.string());
  int id = 0;
  // Untimed warm-up: the first edit of each, and its undo by the floor.
  edit(editd, w, id++);
  floor_rewrite(path, w);
  id++;
  const long ticks_before = cpu_ticks(editd.pid());
  for (int i = 0; i < w.runs; ++i) {
    auto t = Clock::now();
    edit(editd, w, id++);
    f.editd_ms.push_back(ms_since(t));
    t = Clock::now();
    floor_rewrite(path, w);
    f.floor_ms.push_back(ms_since(t));
    id++;
  }
  const long ticks = cpu_ticks(editd.pid()) - ticks_before;
  f.cpu_ms_per_edit =
      1000.0 * static_cast<double>(ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK)) / w.runs;
  f.peak_mib = peak_rss_mib(editd.pid());
  // An even number of edits, each undone: the file is back in state A.
  if (read_file(path) != w.content) fail(w.name + ": the file does not hold what the edits made");
  fs::remove(path);
  return f;
}

double percentile(std::vector<double> v, int p) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) * static_cast<std::size_t>(p) / 100];
}

std::string size_text(std::size_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  return buf;
}

// editd's peak RSS after one protocol round trip.
double idle_peak_mib(const std::string& binary) {
  Child editd(binary, g_root.string());
  editd.send(request(0, "no_such_method", json::object()));
  editd.line();
  return peak_rss_mib(editd.pid());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  editd::bench::g_bench = "edit_bench";
  g_root = fs::temp_directory_path() / ("editd-edit-bench-" + std::to_string(::getpid()));
  fs::create_directories(g_root);

  const double idle = idle_peak_mib(binary);
  std::string load;
  std::getline(std::ifstream("/proc/loadavg"), load);
  std::printf(
      "editd: %s\nload average before the run: %s\nidle peak RSS (VmHWM) of a fresh editd: %.1f "
      "MiB\n",
      binary.c_str(), load.c_str(), idle);
  std::printf("%-36s %10s %4s %9s %9s %9s %9s %8s %9s %9s %16s\n", "workload", "file", "n",
              "editd p50", "p90", "cpu/edit", "floor p50", "ed/floor", "peak RSS", "peak/file",
              "(peak-idle)/file");
  std::fflush(stdout);

  const std::vector<Workload> workloads = [] {
    std::vector<Workload> v;
    v.push_back(one_line("str_replace 1 line, 2,000 lines", "small.c", 2000, SIZE_MAX, 200));
    v.push_back(
        one_line("str_replace 1 line, 8 MiB", "big8.c", SIZE_MAX, std::size_t{8} << 20, 30));
    v.push_back(
        one_line("str_replace 1 line, 64 MiB", "big64.c", SIZE_MAX, std::size_t{64} << 20, 5));
    v.push_back(replace_all(100));
    return v;
  }();
  for (const Workload& w : workloads) {
    const Figures f = run(binary, w);
    const double file_mib = static_cast<double>(w.content.size()) / (1 << 20);
    const double editd_p50 = percentile(f.editd_ms, 50), floor_p50 = percentile(f.floor_ms, 50);
    char p90[16] = "-";
    if (f.editd_ms.size() >= 10) std::snprintf(p90, sizeof p90, "%.2f", percentile(f.editd_ms, 90));
    std::printf("%-36s %10s %4d %9.2f %9s %9.2f %9.2f %7.1fx %5.1f MiB %8.1fx %15.1fx\n",
                w.name.c_str(), size_text(w.content.size()).c_str(), w.runs, editd_p50, p90,
                f.cpu_ms_per_edit, floor_p50, editd_p50 / floor_p50, f.peak_mib,
                f.peak_mib / file_mib, (f.peak_mib - idle) / file_mib);
    std::fflush(stdout);
  }
  std::printf("times in ms per edit; cpu/edit = editd's utime+stime over the n timed edits / n\n");
  fs::remove_all(g_root);
}
