// Benchmarks of str_replace's matching engine (edit/match/replace.h) on synthetic C-like
// source: a 40-line miss through the whole ladder and the closest-region search,
// an exact hit in an 8 MB file, and hits found by the indentation and block tiers.
// Then the bounded cost (docs/protocol.md, Matching, Cost): the miss on 8 MB and
// 64 MB files in every mode (64 MB also with its peak memory, in a child
// process), and the shapes that used to cost O(n x k) or ignore their budget.
// Each case checks that the engine gives the intended outcome before it is
// timed. Prints one line per figure; docs/performance.md records them with the
// command that produced them.
//
// usage: match_bench [cost | big [MODE]]  (cost: only the bounded-cost cases;
//        big: only the misses on 8 MiB and 64 MiB, in one mode if given, for a profiler)
#include <malloc.h>  // malloc_trim
#include <string.h>  // memmem
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "edit/match/replace.h"
#include "edit/patch/patch.h"
#include "protocol/params.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace match = editd::match;

// splitmix64: the same sequence on every platform, unlike std:: distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

constexpr const char* kVerbs[] = {"parse",   "load",   "flush",  "merge", "scan",  "emit",
                                  "resolve", "encode", "decode", "index", "sort",  "hash",
                                  "render",  "check",  "update", "drain", "split", "fold"};
constexpr const char* kNouns[] = {"buffer", "header", "record", "token",   "entry",  "node",
                                  "chunk",  "frame",  "packet", "segment", "symbol", "table",
                                  "queue",  "cursor", "range",  "slot",    "page",   "block"};
constexpr const char* kVars[] = {"count", "total",  "len",   "offset", "pos",   "limit",
                                 "flags", "status", "width", "depth",  "index", "size"};
constexpr const char* kTypes[] = {"int", "size_t", "long", "unsigned", "uint32_t", "int64_t"};
constexpr const char* kOps[] = {"<", ">", "<=", ">=", "==", "!="};
constexpr const char* kWords[] = {"the",   "next",   "entry", "is",     "skipped", "when",
                                  "empty", "keep",   "order", "stable", "for",     "callers",
                                  "this",  "cannot", "fail",  "after",  "reset",   "see"};

struct Source {
  std::string text;
  std::vector<std::string> lines;
  std::vector<std::size_t> function_starts;  // 0-based line of each signature
};

// C-like functions with varied identifiers, each unique by its numbered name.
// Stops after `max_lines` lines or `max_bytes` bytes, whichever comes first.
Source generate(std::size_t max_lines, std::size_t max_bytes, std::uint64_t seed) {
  Rng rng(seed);
  Source s;
  std::size_t bytes = 0;
  // Braced lists evaluate in order, so the draws do not depend on the compiler.
  auto add = [&](std::initializer_list<std::string> parts) {
    std::string line;
    for (const std::string& p : parts) line += p;
    bytes += line.size() + 1;
    s.lines.push_back(std::move(line));
  };
  auto pick = [&](const auto& items) -> std::string { return items[rng.below(std::size(items))]; };
  auto num = [&](std::size_t n) { return std::to_string(rng.below(n)); };
  auto var = [&] { return pick(kVars); };
  auto callee = [&] {
    std::string v = pick(kVerbs), n = pick(kNouns);
    return v + "_" + n + "_" + num(5000);
  };
  auto comment = [&] {
    std::string c = "//";
    for (std::size_t n = 3 + rng.below(6); n > 0; --n) c += " " + pick(kWords);
    return c;
  };
  add({"/* Generated for match_bench \xE2\x80\x94 layout follows the reference decoder. */"});
  add({"#include <stdio.h>"});
  add({""});
  for (std::size_t f = 0; s.lines.size() < max_lines && bytes < max_bytes; ++f) {
    const std::string name = [&] {
      std::string v = pick(kVerbs), n = pick(kNouns);
      return v + "_" + n + "_" + std::to_string(f);
    }();
    const std::string noun = pick(kNouns);
    s.function_starts.push_back(s.lines.size());
    add({"static int ", name, "(struct ", noun, " *", noun, ", size_t n) {"});
    add({"    ", pick(kTypes), " ", var(), " = 0;"});
    for (std::size_t stmt = 2 + rng.below(5); stmt > 0; --stmt) {
      switch (rng.below(6)) {
        case 0:
          add({"    ", comment()});
          add({"    ", var(), " = ", callee(), "(", noun, ", ", var(), ");"});
          break;
        case 1:
          add({"    if (", var(), " ", pick(kOps), " ", num(256), ") {"});
          add({"        ", var(), " += ", callee(), "(", noun, "->", var(), ");"});
          add({"        printf(\"", name, ": ", var(), "=%d\\n\", (int)", var(), ");"});
          add({"    }"});
          break;
        case 2:
          add({"    for (size_t i = 0; i < n; ++i) {"});
          add({"        if (", noun, "[i].", var(), " ", pick(kOps), " ", var(), ") {"});
          add({"            ", var(), " = ", callee(), "(&", noun, "[i]);"});
          add({"            continue;"});
          add({"        }"});
          add({"        ", var(), " ^= ", noun, "[i].", var(), ";"});
          add({"    }"});
          break;
        case 3:
          add({"    ", pick(kTypes), " ", var(), "_", num(100), " = ", noun, "->", var(), " * ",
               std::to_string(1 + rng.below(64)), ";"});
          break;
        case 4:
          add({"    while (", var(), " ", pick(kOps), " n) {"});
          add({"        ", var(), " = ", callee(), "(", noun, ", ", var(), " + 1);"});
          add({"    }"});
          break;
        default:
          add({""});
          add({"    ", comment()});
          break;
      }
    }
    add({"    return ", var(), ";"});
    add({"}"});
    add({""});
  }
  if (s.lines.size() > max_lines) s.lines.resize(max_lines);
  while (!s.function_starts.empty() && s.function_starts.back() >= s.lines.size())
    s.function_starts.pop_back();
  for (const std::string& l : s.lines) {
    s.text += l;
    s.text += '\n';
  }
  return s;
}

std::string join(const std::vector<std::string>& lines, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin) out += '\n';
    out += lines[i];
  }
  return out;
}

[[noreturn]] void fail(const char* what, const std::string& why) {
  std::fprintf(stderr, "match_bench: %s: %s\n", what, why.c_str());
  std::abort();
}

// The first function that starts at or after `fraction` of the file and has at
// least `span` lines left after its start.
std::size_t function_near(const Source& s, double fraction, std::size_t span) {
  const auto at = static_cast<std::size_t>(fraction * static_cast<double>(s.lines.size()));
  for (std::size_t start : s.function_starts)
    if (start >= at && start + span <= s.lines.size()) return start;
  fail("function_near", "no function fits");
}

// A request for one replacement, with no expected count.
match::Request request(std::string_view text, std::string_view old_text, std::string_view new_text,
                       match::Mode mode) {
  match::Request r;
  r.text = text;
  r.old_text = old_text;
  r.new_text = new_text;
  r.mode = mode;
  return r;
}

void expect_hit(const char* what, const editd::Result<match::Plan>& r, std::string_view tier) {
  if (r.has_error()) fail(what, "expected a hit, got " + r.error().message);
  if (r->tier != tier) fail(what, "expected tier " + std::string(tier) + ", got " + r->tier);
  if (r->replacements != 1) fail(what, "expected 1 replacement");
}

void expect_miss(const char* what, const editd::Result<match::Plan>& r) {
  if (!r.has_error()) fail(what, "expected no_match, got a hit by tier " + r->tier);
  if (r.error().kind != editd::ErrorKind::kNoMatch)
    fail(what, "expected no_match, got " + r.error().message);
  if (!r.error().data.contains("closest")) fail(what, "no_match without data.closest");
}

struct Stats {
  double median, min, max;
  int runs;
  double cpu_median;  // CPU time of the process (one thread), which load barely moves
};

double cpu_ms() {
  timespec ts;
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// One untimed warm-up, then `runs` timed calls.
template <class F>
Stats measure(int runs, F f) {
  f();
  std::vector<double> ms, cpu;
  for (int i = 0; i < runs; ++i) {
    auto t = Clock::now();
    const double c = cpu_ms();
    f();
    cpu.push_back(cpu_ms() - c);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), runs, cpu[cpu.size() / 2]};
}

void report(const char* name, const Stats& s) {
  std::printf("%-58s median %8.3f ms (min %.3f, max %.3f, %d runs; cpu median %.3f ms)\n", name,
              s.median, s.min, s.max, s.runs, s.cpu_median);
}

volatile std::size_t sink;

// A 40-line region as a model might remember it after the file moved on: one
// identifier renamed and one statement rewritten, first and last lines intact.
// No tier forgives that, so every tier runs, then the closest-region search.
// The file is not ASCII and the region holds a printf("...\n"), so that the
// unicode tier and the miss's reading of written-out escapes do not skip
// themselves.
void miss_cases(const Source& src) {
  const std::size_t start = function_near(src, 0.5, 40);
  std::vector<std::string> old_lines(src.lines.begin() + static_cast<std::ptrdiff_t>(start),
                                     src.lines.begin() + static_cast<std::ptrdiff_t>(start + 40));
  std::size_t rename = 10;
  while (old_lines[rename].find_first_not_of(' ') == std::string::npos) ++rename;
  old_lines[rename].insert(old_lines[rename].find_first_not_of(' '), "old_");
  old_lines[25] = "        retry_budget = reset_retry_budget(ctx, retry_budget * 2);";
  const std::string old_text = join(old_lines, 0, old_lines.size());
  old_lines[1] += "  // checked";
  const std::string new_text = join(old_lines, 0, old_lines.size());
  if (old_text.find("\\n") == std::string::npos) fail("miss", "no escape in oldText");
  if (std::all_of(src.text.begin(), src.text.end(), [](char c) { return (c & 0x80) == 0; }))
    fail("miss", "the file is ASCII");

  for (match::Mode mode : {match::Mode::kFuzzy, match::Mode::kStandard}) {
    const match::Request req = request(src.text, old_text, new_text, mode);
    auto r = match::plan_replace(req);
    expect_miss("miss", r);
    const nlohmann::json closest = r.error().data["closest"];
    std::string name = "miss, 40 lines, 10k-line file, " + std::string(match::mode_name(mode));
    report(name.c_str(), measure(50, [&] { sink = match::plan_replace(req).has_error(); }));
    std::printf("  (closest: lines %zu-%zu, similarity %.3f; the region edited was %zu-%zu)\n",
                closest["startLine"].get<std::size_t>(), closest["endLine"].get<std::size_t>(),
                closest["similarity"].get<double>(), start + 1, start + 40);
  }

  auto c = match::closest_region(src.text, old_text);
  if (!c) fail("closest_region", "nullopt on a non-empty file");
  report("closest_region alone, 40 lines, 10k-line file",
         measure(50, [&] { sink = match::closest_region(src.text, old_text)->lines.start_line; }));
}

// A 10-line region sent with 2-space indentation where the file has 4.
void indentation_case(const Source& src) {
  const std::size_t start = function_near(src, 0.7, 10);
  std::vector<std::string> old_lines;
  for (std::size_t i = start; i < start + 10; ++i) {
    const std::string& l = src.lines[i];
    const std::size_t indent = std::min(l.find_first_not_of(' '), l.size());
    old_lines.push_back(std::string(indent / 2, ' ') + l.substr(indent));
  }
  const std::string old_text = join(old_lines, 0, old_lines.size());
  old_lines[1] += "  // checked";
  const std::string new_text = join(old_lines, 0, old_lines.size());
  const match::Request req = request(src.text, old_text, new_text, match::Mode::kStandard);
  expect_hit("indentation hit", match::plan_replace(req), "indentation");
  report("indentation-tier hit, 10 lines, 10k-line file, standard",
         measure(50, [&] { sink = match::plan_replace(req)->replacements; }));
}

// A 12-line region whose longest middle line drifted by one character; the edit
// changes another line, one that is equal in the file.
void block_case(const Source& src) {
  const std::size_t start = function_near(src, 0.3, 12);
  std::vector<std::string> old_lines(src.lines.begin() + static_cast<std::ptrdiff_t>(start),
                                     src.lines.begin() + static_cast<std::ptrdiff_t>(start + 12));
  std::size_t drift = 2;
  for (std::size_t j = 2; j + 2 < old_lines.size(); ++j)
    if (old_lines[j].size() > old_lines[drift].size()) drift = j;
  std::string& line = old_lines[drift];
  const std::size_t at = line.find_first_of("abcdefghijklmnopqrstuvwxy", line.size() / 2);
  if (at == std::string::npos) fail("block hit", "no letter to drift");
  ++line[at];
  const std::string old_text = join(old_lines, 0, old_lines.size());
  old_lines[1] += "  // checked";
  const std::string new_text = join(old_lines, 0, old_lines.size());
  const match::Request req = request(src.text, old_text, new_text, match::Mode::kFuzzy);
  expect_hit("block hit", match::plan_replace(req), "block");
  report("block-tier hit, 12 lines, 1 drifted, 10k-line file, fuzzy",
         measure(50, [&] { sink = match::plan_replace(req)->replacements; }));
}

// A 5-line region found verbatim near the end of an 8 MB file, against the
// cost of one memmem scan over the whole file and one copy of it.
void exact_case() {
  const Source src = generate(SIZE_MAX, std::size_t{8} << 20, 8);
  const std::size_t start = function_near(src, 0.9, 5);
  const std::string old_text = join(src.lines, start, start + 5);
  const std::string new_text = join(src.lines, start, start + 4) + "\n    /* checked */";
  const match::Request req = request(src.text, old_text, new_text, match::Mode::kFuzzy);
  expect_hit("exact hit", match::plan_replace(req), "exact");

  const double mb = static_cast<double>(src.text.size()) / (1 << 20);
  std::printf("8 MB file: %zu bytes, %zu lines; oldText %zu bytes at line %zu\n", src.text.size(),
              src.lines.size(), old_text.size(), start + 1);
  Stats hit = measure(20, [&] { sink = match::plan_replace(req)->replacements; });
  report("exact hit, 5 lines, 8 MB file, fuzzy", hit);
  std::printf("  = %.0f MB/s at the median\n", mb / (hit.median / 1000));
  report("  for comparison: memmem of oldText over the whole file", measure(20, [&] {
           std::size_t n = 0;
           const char* p = src.text.data();
           const char* end = p + src.text.size();
           while (const void* q = memmem(p, static_cast<std::size_t>(end - p), old_text.data(),
                                         old_text.size())) {
             ++n;
             p = static_cast<const char*>(q) + old_text.size();
           }
           sink = n;
         }));
  report("  for comparison: copy of the file into a new std::string",
         measure(20, [&] { sink = std::string(src.text).size(); }));
  report("  for comparison: counting the file's newlines", measure(20, [&] {
           sink = static_cast<std::size_t>(std::count(src.text.begin(), src.text.end(), '\n'));
         }));
}

// ---------------------------------------------------------------------------
// Bounded cost.

// The 40-line miss of miss_cases, in `src`.
std::pair<std::string, std::string> drifted_region(const Source& src) {
  const std::size_t start = function_near(src, 0.5, 40);
  std::vector<std::string> old_lines(src.lines.begin() + static_cast<std::ptrdiff_t>(start),
                                     src.lines.begin() + static_cast<std::ptrdiff_t>(start + 40));
  std::size_t rename = 10;
  while (old_lines[rename].find_first_not_of(' ') == std::string::npos) ++rename;
  old_lines[rename].insert(old_lines[rename].find_first_not_of(' '), "old_");
  old_lines[25] = "        retry_budget = reset_retry_budget(ctx, retry_budget * 2);";
  std::string old_text = join(old_lines, 0, old_lines.size());
  old_lines[1] += "  // checked";
  return {old_text, join(old_lines, 0, old_lines.size())};
}

// A /proc/self/status field in KiB.
long status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
  return -1;
}

// Runs f in a child process and prints what it prints, with the child's peak
// RSS above its RSS when f started (VmHWM reset through /proc/self/clear_refs).
template <class F>
void in_child(F f) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork", std::strerror(errno));
  if (pid == 0) {
    f();
    std::fflush(stdout);
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail("child", "did not exit cleanly");
}

void peak_reset() { std::ofstream("/proc/self/clear_refs") << "5"; }

// The miss on a big file, in every mode, each in a child process of its own,
// so that the peak memory of one call is not hidden by memory an earlier case
// freed (glibc keeps it).
void big_miss_cases(std::size_t mib, int runs, std::optional<match::Mode> only = std::nullopt) {
  for (match::Mode mode : {match::Mode::kExact, match::Mode::kStandard, match::Mode::kFuzzy}) {
    if (only && mode != *only) continue;
    in_child([&] {
      Source src = generate(SIZE_MAX, mib << 20, 8);
      const auto [old_text, new_text] = drifted_region(src);
      src.lines.clear();
      src.lines.shrink_to_fit();
      if (mode == match::Mode::kExact) {
        std::printf("%zu MiB file: %zu bytes\n", mib, src.text.size());
        // A floor to scale the figures by on a loaded machine: one pass.
        report("  for comparison: counting the file's newlines", measure(runs, [&] {
                 sink =
                     static_cast<std::size_t>(std::count(src.text.begin(), src.text.end(), '\n'));
               }));
      }
      const match::Request req = request(src.text, old_text, new_text, mode);
      ::malloc_trim(0);  // heap freed while building the file must not hide the call's peak
      peak_reset();
      const long rss = status_kib("VmRSS:");
      auto r = match::plan_replace(req);
      const long peak = status_kib("VmHWM:");
      expect_miss("big miss", r);
      std::string name = "miss, 40 lines, " + std::to_string(mib) + " MiB file, " +
                         std::string(match::mode_name(mode));
      report(name.c_str(), measure(runs, [&] { sink = match::plan_replace(req).has_error(); }));
      std::printf("  peak RSS of the first call above the file: %.1f MiB (%.1fx the file)\n",
                  static_cast<double>(peak - rss) / 1024,
                  static_cast<double>(peak - rss) * 1024 / static_cast<double>(src.text.size()));
      // Every line changed: no trimmed line places the region, and the
      // closest-region search votes by tokens as well.
      std::string changed;
      for (std::string_view rest = old_text; !rest.empty();) {
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        changed += std::string(line) + (line.empty() ? "\n" : " /* changed */\n");
        rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
      }
      const match::Request all_changed = request(src.text, changed, new_text, mode);
      expect_miss("big miss, every line changed", match::plan_replace(all_changed));
      name = "miss, 40 lines each changed, " + std::to_string(mib) + " MiB file, " +
             std::string(match::mode_name(mode));
      report(name.c_str(),
             measure(runs, [&] { sink = match::plan_replace(all_changed).has_error(); }));
    });
  }
}

std::string repeat(std::string_view line, std::size_t n) {
  std::string out;
  out.reserve((line.size() + 1) * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += line;
    out += '\n';
  }
  return out;
}

// The shapes of issue 13: each used to take seconds.
void pathological_cases() {
  // One 50 KB line of oldText against a 51 KB file of short lines: the band of
  // an edit distance must cover the difference in length.
  {
    std::string text;
    for (std::size_t i = 0; text.size() < 51 * 1024; ++i)
      text += "line " + std::to_string(i) + " of a file of short lines\n";
    std::string old_text;
    for (std::size_t i = 0; old_text.size() < 50 * 1024; ++i)
      old_text += "word" + std::to_string(i) + " ";
    for (match::Mode mode : {match::Mode::kExact, match::Mode::kFuzzy}) {
      const match::Request req = request(text, old_text, "x", mode);
      expect_miss("one long line", match::plan_replace(req));
      std::string name = "miss, one 50 KB line, 51 KB file, " + std::string(match::mode_name(mode));
      report(name.c_str(), measure(5, [&] { sink = match::plan_replace(req).has_error(); }));
    }
  }
  // 100,000 lines `a` (200 KB) and an oldText of 50,000 of them with one other
  // line in the middle: every window starts like oldText.
  {
    const std::string text = repeat("a", 100000);
    const std::string old_text = repeat("a", 25000) + "b\n" + repeat("a", 24999);
    for (match::Mode mode : {match::Mode::kExact, match::Mode::kStandard, match::Mode::kFuzzy}) {
      const match::Request req = request(text, old_text, "x\n", mode);
      auto r = match::plan_replace(req);
      expect_miss("repeated lines", r);
      std::string name =
          "miss, 50k repeated lines, 100k-line file, " + std::string(match::mode_name(mode));
      report(name.c_str(), measure(5, [&] { sink = match::plan_replace(req).has_error(); }));
      std::printf("  hint: %s\n", r.error().data.value("hint", std::string("-")).c_str());
    }
  }
  // apply_patch: a 36 KB file of `a` lines and a 28 KB chunk of them that ends
  // with a line the file lacks; both formats.
  {
    std::map<std::string, editd::patch::FileInput> inputs;
    inputs["f.txt"] = {editd::patch::FileInput::State::kFile, repeat("a", 18000)};
    std::string codex = "*** Begin Patch\n*** Update File: f.txt\n@@\n";
    std::string unified = "--- a/f.txt\n+++ b/f.txt\n@@ -1,14001 +1,14000 @@\n";
    for (int i = 0; i < 14000; ++i) {
      codex += " a\n";
      unified += " a\n";
    }
    codex += "-b\n*** End Patch\n";
    unified += "-b\n";
    for (const auto& [name, text] : {std::pair<const char*, std::string>{"codex", codex},
                                     std::pair<const char*, std::string>{"unified", unified}}) {
      auto parsed = editd::patch::parse(text, editd::protocol::path_problem);
      if (!parsed) fail("patch parse", parsed.error().message);
      auto r = editd::patch::apply(*parsed, inputs);
      if (r.has_value() || r.error().kind != editd::ErrorKind::kPatchApply)
        fail("patch seek", "expected patch_apply");
      std::string label = std::string("apply_patch miss, 14k-line chunk, 18k `a` lines, ") + name;
      report(label.c_str(),
             measure(5, [&] { sink = editd::patch::apply(*parsed, inputs).has_value(); }));
    }
  }
}

void cost_cases() {
  pathological_cases();
  big_miss_cases(8, 20);
  big_miss_cases(64, 3);
}

}  // namespace

// apply_patch on an 8 MiB file with 64 chunks that each match only at the
// folding tier (the file has curly quotes, the patch straight ones): each chunk
// passes the three stricter tiers over the rest of the file first.
void folded_chunks_case() {
  std::string text;
  std::size_t lines = 0;
  while (text.size() < (std::size_t{8} << 20)) {
    text +=
        "key_" + std::to_string(lines) + " = \u201Cvalue " + std::to_string(lines) + "\u201D;\n";
    ++lines;
  }
  std::map<std::string, editd::patch::FileInput> inputs;
  inputs["f.txt"] = {editd::patch::FileInput::State::kFile, text};
  std::string codex = "*** Begin Patch\n*** Update File: f.txt\n";
  std::string unified = "--- a/f.txt\n+++ b/f.txt\n";
  for (std::size_t c = 0; c < 64; ++c) {
    const std::size_t i = (c * 2 + 1) * lines / 128;
    const std::string key = "key_" + std::to_string(i), value = "value " + std::to_string(i);
    codex += "@@\n-" + key + " = \"" + value + "\";\n+" + key + " = \"" + value + "!\";\n";
    unified += "@@ -" + std::to_string(i + 1) + " +" + std::to_string(i + 1) + " @@\n-" + key +
               " = \"" + value + "\";\n+" + key + " = \"" + value + "!\";\n";
  }
  codex += "*** End Patch\n";
  std::printf("%zu-line file (%zu bytes), 64 chunks found at the folding tier:\n", lines,
              text.size());
  for (const auto& [name, patch] : {std::pair<const char*, std::string>{"codex", codex},
                                    std::pair<const char*, std::string>{"unified", unified}}) {
    auto parsed = editd::patch::parse(patch, editd::protocol::path_problem);
    if (!parsed) fail("patch parse", parsed.error().message);
    auto r = editd::patch::apply(*parsed, inputs);
    if (!r) fail("folded chunks", r.error().message);
    if (r->front().new_bytes->find("!\u201D;") == std::string::npos)
      fail("folded chunks", "the change did not land with the file's quotes");
    std::string label = std::string("apply_patch, 64 folded chunks, 8 MiB, ") + name;
    report(label.c_str(),
           measure(3, [&] { sink = editd::patch::apply(*parsed, inputs).has_value(); }));
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "patch") {
    folded_chunks_case();
    return 0;
  }
  if (argc > 1 && std::string_view(argv[1]) == "cost") {
    cost_cases();
    return 0;
  }
  if (argc > 1 && std::string_view(argv[1]) == "big") {
    const auto only = argc > 2 ? match::parse_mode(argv[2]) : std::nullopt;
    big_miss_cases(8, 20, only);
    big_miss_cases(64, 3, only);
    return 0;
  }
  const Source src = generate(10000, SIZE_MAX, 10);
  std::printf("10k-line file: %zu bytes, %zu lines, %zu functions\n", src.text.size(),
              src.lines.size(), src.function_starts.size());
  miss_cases(src);
  indentation_case(src);
  block_case(src);
  exact_case();
  cost_cases();
  folded_chunks_case();
}
