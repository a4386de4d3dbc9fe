// JSON in and out: the request and reply lines editd reads and writes for file
// text, through nlohmann and through protocol/fast_json, in one run.
//
// Each figure is the best of several rounds (ns per byte of the line and MB/s).
// For counts that do not move with the machine's load, run one mode under
// callgrind: `valgrind --tool=callgrind build/bench/json_bench parse-fast 100000`
// (modes: parse-nlohmann, parse-fast, dump-nlohmann, dump-fast, and setup, which
// only builds the inputs and is subtracted; the number is the text's size in bytes).
//
// usage: json_bench [MODE SIZE [TEXT]]   (TEXT: code, the default; varied; cjk)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "protocol/fast_json.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fast_json = editd::protocol::fast_json;

// Cuts `s` to at most `bytes` without splitting a UTF-8 sequence.
std::string cut(std::string s, std::size_t bytes) {
  if (s.size() <= bytes) return s;
  s.resize(bytes);
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
  if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
  return s;
}

// The texts, by kind:
// - "code": four lines of code with quotes, tabs and a little UTF-8, repeated;
//   a branch predictor learns where their escapes fall.
// - "varied": lines of code drawn at random (a fixed seed), so that the escapes
//   fall where they would in a real file: every 20-40 bytes, irregularly.
// - "cjk": the same with Japanese comments and strings, three-byte UTF-8
//   sequences in runs.
std::string text(const std::string& kind, std::size_t bytes) {
  std::string s;
  if (kind == "code") {
    static const char* kLines[] = {
        "    if (value == \"name\") {\n",
        "\treturn compute(left, right) + 1;  // r\xC3\xA9sum\xC3\xA9\n",
        "  const path = \"C:\\\\tmp\\\\file.txt\";\n",
        "}\n",
    };
    for (std::size_t i = 0; s.size() < bytes; ++i) s += kLines[i % 4];
    return cut(std::move(s), bytes);
  }
  const bool cjk = kind == "cjk";
  if (!cjk && kind != "varied") {
    std::fprintf(stderr, "unknown text %s (code, varied, cjk)\n", kind.c_str());
    std::exit(2);
  }
  std::mt19937 rng(20261127);
  auto below = [&](unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng); };
  auto word = [&] {
    std::string w;
    if (cjk)  // hiragana and kanji, three bytes each
      for (unsigned i = 0, n = 2 + below(10); i < n; ++i) {
        const unsigned cp = below(2) ? 0x3041 + below(83) : 0x4E00 + below(2000);
        w += static_cast<char>(0xE0 | (cp >> 12));
        w += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        w += static_cast<char>(0x80 | (cp & 0x3F));
      }
    else
      for (unsigned i = 0, n = 2 + below(10); i < n; ++i) w += static_cast<char>('a' + below(26));
    return w;
  };
  static const char* kIndents[] = {"", "  ", "    ", "      ", "\t", "\t\t"};
  while (s.size() < bytes) {
    s += kIndents[below(6)];
    switch (below(6)) {
      case 0:
        s += "if (" + word() + " == \"" + word() + "\") {";
        break;
      case 1:
        s += "return " + word() + "(" + word() + ", " + std::to_string(below(1000)) + ");";
        break;
      case 2:
        s += "// " + word() + " " + word() + " " + word() + ".";
        break;
      case 3:
        s += "const char* " + word() + " = \"" + word() + "\\n\";";
        break;
      case 4:
        s += "}";
        break;
      default:
        s += word() + " = " + word() + "." + word() + "();";
    }
    s += '\n';
  }
  return cut(std::move(s), bytes);
}

std::string request_line(const std::string& kind, std::size_t bytes) {
  return json{{"jsonrpc", "2.0"},
              {"id", 7},
              {"method", "write_text"},
              {"params", {{"path", "src/main.cpp"}, {"content", text(kind, bytes)}}}}
      .dump();
}

json reply_value(const std::string& kind, std::size_t bytes) {
  return json{{"jsonrpc", "2.0"},
              {"id", 7},
              {"result",
               {{"content", text(kind, bytes)},
                {"fingerprint", "xxh3:0123456789abcdef"},
                {"line", 1},
                {"lineCount", bytes / 30},
                {"totalLines", bytes / 30}}}};
}

std::size_t run(const std::string& mode, const std::string& line, const json& value) {
  if (mode == "setup") return line.size();  // building the inputs alone, to subtract
  if (mode == "parse-nlohmann") return json::parse(line).size();
  if (mode == "parse-fast") return fast_json::parse(line)->size();
  if (mode == "dump-nlohmann")
    return value.dump(-1, ' ', false, json::error_handler_t::replace).size();
  if (mode == "dump-fast") return fast_json::dump(value).size();
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  std::exit(2);
}

void measure(const std::string& mode, const std::string& kind, std::size_t bytes) {
  std::string line = request_line(kind, bytes);
  json value = reply_value(kind, bytes);
  std::size_t size = mode.starts_with("parse") ? line.size() : run("dump-fast", line, value);
  int reps = static_cast<int>(std::max<std::size_t>(1, 20'000'000 / (bytes + 1000)));
  double best = 1e300;
  for (int round = 0; round < 5; ++round) {
    auto t = Clock::now();
    std::size_t sink = 0;
    for (int i = 0; i < reps; ++i) sink += run(mode, line, value);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t).count() / reps;
    best = std::min(best, ns);
    if (sink == 0) std::puts("");
  }
  std::printf("%-15s %-7s %9zu B  %9.1f us  %6.2f ns/B  %7.0f MB/s\n", mode.c_str(), kind.c_str(),
              size, best / 1000, best / static_cast<double>(size),
              static_cast<double>(size) / best * 1000);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 || argc == 4) {
    std::string mode = argv[1];
    std::size_t bytes = std::strtoull(argv[2], nullptr, 10);
    std::string kind = argc == 4 ? argv[3] : "code";
    std::printf("%zu\n", run(mode, request_line(kind, bytes), reply_value(kind, bytes)));
    return 0;
  }
  for (std::size_t bytes : {11'000UL, 100'000UL, 8'000'000UL})
    for (const char* mode : {"parse-nlohmann", "parse-fast", "dump-nlohmann", "dump-fast"})
      measure(mode, "code", bytes);
  for (const char* kind : {"varied", "cjk"})
    for (std::size_t bytes : {11'000UL, 100'000UL})
      for (const char* mode : {"parse-fast", "dump-fast"}) measure(mode, kind, bytes);
}
