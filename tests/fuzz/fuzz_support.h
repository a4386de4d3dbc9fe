// Shared by the libFuzzer targets in this directory: splitting an input into
// parts, checking an invariant, and bounding the cost of one input.
//
// A broken invariant prints what broke and aborts, so that libFuzzer saves the
// input as a crash; a target never relies on a crash alone to find a bug.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace editd::fuzz {

[[noreturn]] inline void violated(const char* invariant, std::string_view detail, const char* file,
                                  int line) {
  std::fprintf(stderr, "\n%s:%d: invariant violated: %s\n%.*s\n", file, line, invariant,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// `s` with control bytes and non-ASCII bytes escaped, for messages.
inline std::string shown(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

// The parts of `data` between `separator` bytes, at most `max_parts` (the last
// part keeps any further separators).
inline std::vector<std::string_view> split(std::string_view data, char separator,
                                           std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    std::size_t at = data.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(data.substr(0, at));
    data.remove_prefix(at + 1);
  }
  parts.push_back(data);
  return parts;
}

// Aborts when one step of a target takes longer than the budget: inputs are
// small (libFuzzer's -max_len), so a slow one is a cost bug. EDITD_FUZZ_BUDGET_MS
// overrides the budget (default 1000 ms; sanitizers make everything ~3x slower).
class Budget {
 public:
  explicit Budget(const char* what) : what_(what), start_(std::chrono::steady_clock::now()) {}
  void check(std::size_t input_size) const {
    static const long limit_ms = [] {
      const char* env = std::getenv("EDITD_FUZZ_BUDGET_MS");
      return env ? std::atol(env) : 1000L;
    }();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start_)
                  .count();
    if (ms > limit_ms)
      violated("cost within budget",
               std::string(what_) + " took " + std::to_string(ms) + " ms (budget " +
                   std::to_string(limit_ms) + " ms) on an input of " + std::to_string(input_size) +
                   " bytes",
               __FILE__, __LINE__);
  }

 private:
  const char* what_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace editd::fuzz

#define FUZZ_CHECK(condition, detail)                                                    \
  do {                                                                                   \
    if (!(condition)) ::editd::fuzz::violated(#condition, (detail), __FILE__, __LINE__); \
  } while (0)
