// JSON in and out: the request and reply lines editd reads and writes for file
// text, through nlohmann and through protocol/fast_json, in one run.
//
// Each figure is the best of several rounds (ns per byte of the line and MB/s).
// For counts that do not move with the machine's load, run one mode under
// callgrind: `valgrind --tool=callgrind build/bench/json_bench parse-fast 100000`
// (modes: parse-nlohmann, parse-fast, dump-nlohmann, dump-fast, and setup, which
// only builds the inputs and is subtracted; the number is the text's size in bytes).
//
// usage: json_bench [MODE SIZE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/fast_json.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fast_json = editd::protocol::fast_json;

// Source-like text: indented lines of code with quotes, tabs and a little UTF-8.
std::string code_text(std::size_t bytes) {
  static const char* kLines[] = {
      "    if (value == \"name\") {\n",
      "\treturn compute(left, right) + 1;  // r\xC3\xA9sum\xC3\xA9\n",
      "  const path = \"C:\\\\tmp\\\\file.txt\";\n",
      "}\n",
  };
  std::string s;
  for (std::size_t i = 0; s.size() < bytes; ++i) s += kLines[i % 4];
  s.resize(bytes);
  while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
  if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
  return s;
}

std::string request_line(std::size_t bytes) {
  return json{{"jsonrpc", "2.0"},
              {"id", 7},
              {"method", "write_text"},
              {"params", {{"path", "src/main.cpp"}, {"content", code_text(bytes)}}}}
      .dump();
}

json reply_value(std::size_t bytes) {
  return json{{"jsonrpc", "2.0"},
              {"id", 7},
              {"result",
               {{"content", code_text(bytes)},
                {"fingerprint", "xxh3:0123456789abcdef"},
                {"line", 1},
                {"lineCount", bytes / 30},
                {"totalLines", bytes / 30}}}};
}

std::size_t run(const std::string& mode, const std::string& line, const json& value) {
  if (mode == "setup") return line.size();  // building the inputs alone, to subtract
  if (mode == "parse-nlohmann") return json::parse(line).size();
  if (mode == "parse-fast") return fast_json::parse(line)->size();
  if (mode == "dump-nlohmann") return value.dump(-1, ' ', false, json::error_handler_t::replace).size();
  if (mode == "dump-fast") return fast_json::dump(value).size();
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  std::exit(2);
}

void measure(const std::string& mode, std::size_t bytes) {
  std::string line = request_line(bytes);
  json value = reply_value(bytes);
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
  std::printf("%-15s %9zu B  %9.1f us  %6.2f ns/B  %7.0f MB/s\n", mode.c_str(), size, best / 1000,
              best / static_cast<double>(size), static_cast<double>(size) / best * 1000);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3) {
    std::string mode = argv[1];
    std::size_t bytes = std::strtoull(argv[2], nullptr, 10);
    std::printf("%zu\n", run(mode, request_line(bytes), reply_value(bytes)));
    return 0;
  }
  for (std::size_t bytes : {11'000UL, 100'000UL, 8'000'000UL})
    for (const char* mode : {"parse-nlohmann", "parse-fast", "dump-nlohmann", "dump-fast"})
      measure(mode, bytes);
}
