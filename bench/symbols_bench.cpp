// What an edit by symbol costs next to the same edit by quoted text: a
// 10,000-line file (classes of ten methods) in Python (pylsp), C++ (clangd) and
// TypeScript (typescript-language-server from tests/clients/lsp, when `make
// lsp-deps` has installed it), through the real binary over stdio with the
// language server that `--lsp` starts. For each: read_symbols on the first call
// (the server starting and parsing the file), after a change, and again on the
// same bytes (the server's answer kept); edit_symbol replacing one method in the
// middle (lookup, write, diagnostics) on bytes the server has not been asked
// about and right after a read_symbols of them; and str_replace making the very
// same change (the whole method quoted), with the same --lsp (so with the same
// diagnostics) and without one. The edits take turns on the same file, each
// turning the method's state A into B or back. Prints three lines per
// language; docs/performance.md records them with the command.
//
// usage: symbols_bench [EDITD_BINARY] [RUNS]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/child.h"
#include "bench/scratch.h"

namespace {

using namespace editd::bench;  // Child, and scratch.h: Clock, fail, g_root, ms_since, request
using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kLines = 10000;
constexpr int kMethods = 10;

// One language: the file's name, its --lsp, and how its code is written.
struct Language {
  std::string name, file, lsp;
  // A class's first lines and last ones.
  std::function<std::string(int cls)> open, close;
  // Method m of class c, at the indentation it has in the file; `b` is state B.
  std::function<std::string(int cls, int m, bool b)> method;
  std::string indent;  // of a method's first line
};

Language python() {
  Language l{"Python", "widgets.py", "*.py=pylsp", {}, {}, {}, "    "};
  l.open = [](int c) {
    return "class Widget" + std::to_string(c) + ":\n    \"\"\"Widget " + std::to_string(c) +
           ".\"\"\"\n\n";
  };
  l.close = [](int) { return std::string("\n"); };
  l.method = [](int c, int m, bool b) {
    const std::string mc = std::to_string(m), cc = std::to_string(c);
    return "    def method_" + mc + "(self, value):\n" + "        total = value * " + mc + " + " +
           cc + "\n" + "        if total > 100:\n" + "            total -= " + mc + "\n" +
           "        for i in range(3):\n" + "            total += i\n" +
           (b ? "        return total + 1\n" : "        return total\n");
  };
  return l;
}

// A C++ or TypeScript method: the same body but for how it declares things
// (`int` or `let`), after `signature` (its first line without the brace).
std::string braced_method(const std::string& signature, const std::string& let, int c, int m,
                          bool b) {
  const std::string mc = std::to_string(m), cc = std::to_string(c);
  return "  " + signature + " {\n" + "    " + let + " total = value * " + mc + " + " + cc + ";\n" +
         "    if (total > 100) total -= " + mc + ";\n" + "    for (" + let +
         " i = 0; i < 3; ++i) total += i;\n" +
         (b ? "    return total + 1;\n" : "    return total;\n") + "  }\n";
}

Language cpp() {
  Language l{"C++", "widgets.cpp", "*.cpp=clangd", {}, {}, {}, "  "};
  l.open = [](int c) { return "class Widget" + std::to_string(c) + " {\n public:\n"; };
  l.close = [](int) { return std::string("};\n\n"); };
  l.method = [](int c, int m, bool b) {
    return braced_method("int method_" + std::to_string(m) + "(int value) const", "int", c, m, b);
  };
  return l;
}

Language typescript(const std::string& bin) {
  const bool isolated = std::system("unshare --net true 2>/dev/null") == 0;
  Language l{"TypeScript", "widgets.ts",
             "*.ts=" + std::string(isolated ? "unshare --net -- " : "") + bin + "node " + bin +
                 "typescript-language-server --stdio",
             {}, {}, {}, "  "};
  l.open = [](int c) { return "export class Widget" + std::to_string(c) + " {\n"; };
  l.close = [](int) { return std::string("}\n\n"); };
  l.method = [](int c, int m, bool b) {
    return braced_method("method_" + std::to_string(m) + "(value: number): number", "let", c, m, b);
  };
  return l;
}

std::size_t count_lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// Whole classes while they fit in kLines, then one-line comments up to it.
// Returns the class whose method_5 the edits change (the middle one).
int write_source(const Language& l, const fs::path& path) {
  std::vector<std::string> classes;
  std::size_t lines = 0;
  for (int c = 0;; ++c) {
    std::string cls = l.open(c);
    for (int m = 0; m < kMethods; ++m) {
      if (m > 0) cls += "\n";
      cls += l.method(c, m, false);
    }
    cls += l.close(c);
    if (lines + count_lines(cls) > kLines) break;
    lines += count_lines(cls);
    classes.push_back(std::move(cls));
  }
  std::string text;
  for (const std::string& c : classes) text += c;
  const std::string comment = l.name == "Python" ? "# end\n" : "// end\n";
  for (; lines < kLines; ++lines) text += comment;
  std::ofstream(path, std::ios::binary) << text;
  return static_cast<int>(classes.size() / 2);
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

struct Samples {
  std::vector<double> ms;
  std::string text() {
    std::sort(ms.begin(), ms.end());
    char out[96];
    std::snprintf(out, sizeof out, "%.0f ms (%.0f-%.0f)", ms[ms.size() / 2], ms.front(), ms.back());
    return out;
  }
};

// The method's text a model sends to edit_symbol: as read_text returns it,
// at the indentation of the file (editd re-indents it for the symbol anyway).
void run(const Language& l, const std::string& binary, int runs) {
  const fs::path root = g_root / l.name;
  fs::create_directories(root);
  const int cls = write_source(l, root / l.file);
  const std::string symbol = "Widget" + std::to_string(cls) + "/method_5";
  const std::string text_a = l.method(cls, 5, false), text_b = l.method(cls, 5, true);

  Child editd(binary, root.string(), {"--lsp", l.lsp, "--check-timeout", "120"});
  double ms;
  json r = call(editd, "read_symbols", {{"path", l.file}}, ms);
  const double cold = ms;
  const std::size_t symbols = r["symbols"].size();
  // The symbol's lines are the method's, exactly: what both edits replace.
  r = call(editd, "read_text", {{"path", l.file}, {"symbol", symbol}}, ms);
  if (r["content"] != text_a) fail(l.name + ": the symbol's lines are not the method's: " +
                                   r["content"].dump());
  Samples read_changed, read_again, edit_asks, edit_kept, by_text, by_text_plain;
  std::string status;
  bool b = false;  // the method's state in the file
  // Each edit turns the method into the state it is not in.
  auto edit = [&](Child& c, bool by_symbol) {
    json params = by_symbol ? json{{"path", l.file}, {"symbol", symbol}, {"replace", b ? text_a : text_b}}
                            : json{{"path", l.file}, {"oldText", b ? text_b : text_a},
                                   {"newText", b ? text_a : text_b}};
    json result = call(c, by_symbol ? "edit_symbol" : "str_replace", params, ms);
    if (&c == &editd) status = result.value("diagnosticsStatus", "absent");
    b = !b;
    return ms;
  };
  for (int i = 0; i < runs; ++i) {
    by_text.ms.push_back(edit(editd, false));
    // Bytes the server has not been asked about: edit_symbol asks.
    edit_asks.ms.push_back(edit(editd, true));
    call(editd, "read_symbols", {{"path", l.file}}, ms);
    read_changed.ms.push_back(ms);
    call(editd, "read_symbols", {{"path", l.file}}, ms);
    read_again.ms.push_back(ms);
    // After a read_symbols of the same bytes: the server's answer is kept.
    edit_kept.ms.push_back(edit(editd, true));
  }
  {
    Child plain(binary, root.string());
    for (int i = 0; i < runs; ++i) by_text_plain.ms.push_back(edit(plain, false));
  }
  std::printf(
      "%-10s %d lines, %zu symbols, runs=%d, p50 (min-max):\n"
      "  read_symbols: first %.0f ms, after a change %s, again %s\n"
      "  edit_symbol, written: asking the server %s, after a read_symbols %s (diagnostics %s)\n"
      "  str_replace, the same change: with --lsp %s, without %s\n",
      l.name.c_str(), kLines, symbols, runs, cold, read_changed.text().c_str(),
      read_again.text().c_str(), edit_asks.text().c_str(), edit_kept.text().c_str(),
      status.c_str(), by_text.text().c_str(), by_text_plain.text().c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : EDITD_BINARY;
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  editd::bench::g_bench = "symbols_bench";
  g_root = fs::temp_directory_path() / ("editd-symbols-bench-" + std::to_string(::getpid()));
  fs::create_directories(g_root);
  std::vector<Language> languages;
  if (std::system("command -v pylsp >/dev/null") == 0) languages.push_back(python());
  if (std::system("command -v clangd >/dev/null") == 0) languages.push_back(cpp());
  const std::string ts = EDITD_SOURCE_DIR "/tests/clients/lsp/node_modules/.bin/";
  if (fs::exists(ts + "typescript-language-server")) languages.push_back(typescript(ts));
  if (languages.empty()) fail("no language server: make test-build installs pylsp and clangd");
  for (const Language& l : languages) run(l, binary, runs);
  fs::remove_all(g_root);
}
