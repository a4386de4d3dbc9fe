// Edits by symbol (read_symbols, read_text's symbol, edit_symbol) against the
// real binary and the real language servers make test installs (pylsp,
// clangd; typescript-language-server from tests/clients/lsp), and against
// language servers that hang, die or answer nonsense (tests/helpers/fake_lsp.py).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "helpers/mcp_session.h"
#include "helpers/process.h"
#include "helpers/socket_client.h"

using namespace editd::test;

namespace {

// What a real language server may take to start and answer on a loaded
// machine (editd's --check-timeout), and the wait for a reply, above it: a
// slow machine makes a slow test, never a failed one.
const std::string kServerTimeout = "150";
constexpr std::chrono::seconds kServerWait{200};

const std::vector<std::string> kPylsp = {"--lsp", "*.py=pylsp", "--check-timeout", kServerTimeout};


const char* kPython =
    "class Parser:\n"                     // 1
    "    \"\"\"Parses.\"\"\"\n"           // 2
    "\n"                                  // 3
    "    # Reads one command.\n"          // 4
    "    @staticmethod\n"                 // 5
    "    def parse_command(text):\n"      // 6
    "        return text.split()\n"       // 7
    "\n"                                  // 8
    "    @property\n"                     // 9
    "    def value(self):\n"              // 10
    "        return 1\n"                  // 11
    "\n"                                  // 12
    "    @value.setter\n"                 // 13
    "    def value(self, v):\n"           // 14
    "        self.v = v\n"                // 15
    "\n"                                  // 16
    "\n"                                  // 17
    "def main():\n"                       // 18
    "    return Parser.parse_command(\"a b\")\n";  // 19

std::string error_kind(const json& e) { return e["data"]["kind"].get<std::string>(); }

// typescript-language-server from tests/clients/lsp (make lsp-deps), in a
// network namespace of its own where the machine allows one.
const std::string kTsBin = EDITD_SOURCE_DIR "/tests/clients/lsp/node_modules/.bin/";
std::vector<std::string> typescript_server() {
  INFO("its npm packages: make lsp-deps (make test does)");
  REQUIRE(std::filesystem::exists(kTsBin + "typescript-language-server"));
  const bool isolated = std::system("unshare --net true 2>/dev/null") == 0;
  return {"--lsp",
          "*.ts=" + std::string(isolated ? "unshare --net -- " : "") + kTsBin + "node " + kTsBin +
              "typescript-language-server --stdio",
          "--check-timeout", kServerTimeout};
}

}  // namespace

TEST_CASE("pylsp: read_symbols, read_text by symbol, and edit_symbol's replace, insertBefore, insertAfter") {
  TempDir root;
  root.write("p.py", kPython);
  auto p = spawn_editd(root, kPylsp);
  p.reply_wait = kServerWait;

  json list = p.ok("read_symbols", {{"path", "p.py"}});
  INFO(list.dump());
  std::map<std::string, std::pair<int, int>> lines;
  for (const json& s : list["symbols"])
    lines[s["namePath"]] = {s["startLine"].get<int>(), s["endLine"].get<int>()};
  CHECK(lines["Parser"] == std::pair(1, 15));
  // Its decorator and the comment above it are the method's.
  CHECK(lines["Parser/parse_command"] == std::pair(4, 7));
  CHECK(lines["Parser/value[0]"] == std::pair(9, 11));
  CHECK(lines["Parser/value[1]"] == std::pair(13, 15));
  CHECK(lines["main"] == std::pair(18, 19));
  CHECK(list["totalLines"] == 19);
  json top = p.ok("read_symbols", {{"path", "p.py"}, {"depth", 0}});
  CHECK(top["symbols"].size() == 2);
  CHECK(top["totalSymbols"] == 2);
  CHECK_FALSE(top.contains("nextOffset"));
  // A part of the listing: offset and limit count in the listing at that depth.
  json part = p.ok("read_symbols", {{"path", "p.py"}, {"depth", 0}, {"offset", 1}, {"limit", 1}});
  REQUIRE(part["symbols"].size() == 1);
  CHECK(part["symbols"][0]["namePath"] == "main");
  CHECK(part["offset"] == 1);
  CHECK(part["totalSymbols"] == 2);
  CHECK_FALSE(part.contains("nextOffset"));
  part = p.ok("read_symbols", {{"path", "p.py"}, {"limit", 1}});
  CHECK(part["symbols"].size() == 1);
  CHECK(part["nextOffset"] == 1);
  json past = p.fails("read_symbols", {{"path", "p.py"}, {"depth", 0}, {"offset", 2}});
  CHECK(error_kind(past) == "invalid_params");
  CHECK(past["data"]["param"] == "offset");
  CHECK(past["data"]["totalSymbols"] == 2);

  // What read_text shows of a symbol is what edit_symbol replaces.
  json read = p.ok("read_text", {{"path", "p.py"}, {"symbol", "parse_command"}});
  CHECK(read["content"] ==
        "    # Reads one command.\n    @staticmethod\n    def parse_command(text):\n"
        "        return text.split()\n");
  CHECK(read["line"] == 4);
  CHECK(read["symbol"]["namePath"] == "Parser/parse_command");

  // The new text written unindented lands at the method's depth.
  json r = p.ok("edit_symbol",
                {{"path", "p.py"},
                 {"symbol", "Parser/parse_command"},
                 {"replace", "@staticmethod\ndef parse_command(text):\n    return text.split(\",\")\n"},
                 {"expectedFingerprint", read["fingerprint"]}});
  CHECK(r["symbol"]["startLine"] == 4);
  CHECK(root.read("p.py").find("    @staticmethod\n    def parse_command(text):\n"
                               "        return text.split(\",\")\n\n    @property") !=
        std::string::npos);
  CHECK(root.read("p.py").find("# Reads one command.") == std::string::npos);

  // Before a decorated method: above its decorator, never between.
  p.ok("edit_symbol", {{"path", "p.py"},
                       {"symbol", "value[0]"},
                       {"insertBefore", "def first(self):\n    return 0\n\n"}});
  CHECK(root.read("p.py").find("    def first(self):\n        return 0\n\n    @property\n    def value") !=
        std::string::npos);
  p.ok("edit_symbol",
       {{"path", "p.py"}, {"symbol", "/main"}, {"insertAfter", "\n\ndef other():\n    pass\n"}});
  CHECK(root.read("p.py").ends_with("\"a b\")\n\n\ndef other():\n    pass\n"));

  // Undo takes the last edit back; a dry run writes nothing.
  const std::string before = root.read("p.py");
  json dry = p.ok("edit_symbol", {{"path", "p.py"}, {"symbol", "other"}, {"replace", ""}, {"dryRun", true}});
  CHECK(dry["diff"].get<std::string>().find("-def other():") != std::string::npos);
  CHECK(root.read("p.py") == before);
  json del = p.ok("edit_symbol", {{"path", "p.py"}, {"symbol", "other"}, {"replace", ""}});
  CHECK(root.read("p.py").find("other") == std::string::npos);
  p.ok("undo", {{"undoId", del["undoId"]}});
  CHECK(root.read("p.py") == before);
}

TEST_CASE("pylsp: errors a model fixes in one retry, and nothing written") {
  TempDir root;
  root.write("p.py", kPython);
  auto p = spawn_editd(root, kPylsp);
  p.reply_wait = kServerWait;
  const std::string before = root.read("p.py");

  json e = p.fails("edit_symbol", {{"path", "p.py"}, {"symbol", "value"}, {"replace", "x = 1\n"}});
  CHECK(error_kind(e) == "ambiguous");
  REQUIRE(e["data"]["candidates"].size() == 2);
  CHECK(e["data"]["candidates"][0]["namePath"] == "Parser/value[0]");
  CHECK(e["data"]["candidates"][1]["namePath"] == "Parser/value[1]");

  e = p.fails("edit_symbol", {{"path", "p.py"}, {"symbol", "Parser/parse_comand"}, {"replace", "x\n"}});
  CHECK(error_kind(e) == "no_match");
  CHECK(e["data"]["closest"][0]["namePath"] == "Parser/parse_command");
  CHECK(e["message"].get<std::string>().find("Parser/parse_command (line 4)") != std::string::npos);

  e = p.fails("edit_symbol", {{"path", "p.py"}, {"symbol", "main"}});
  CHECK(error_kind(e) == "invalid_params");
  CHECK(e["data"]["param"] == "replace");
  e = p.fails("edit_symbol",
              {{"path", "p.py"}, {"symbol", "main"}, {"replace", "a\n"}, {"insertAfter", "b\n"}});
  CHECK(e["data"]["param"] == "insertAfter");
  e = p.fails("edit_symbol", {{"path", "p.py"}, {"symbol", "a//b"}, {"replace", "a\n"}});
  CHECK(e["data"]["param"] == "symbol");
  e = p.fails("edit_symbol", {{"path", "p.py"}, {"symbol", "main"}, {"insertBefore", ""}});
  CHECK(e["data"]["param"] == "insertBefore");
  e = p.fails("read_text", {{"path", "p.py"}, {"symbol", "main"}, {"line", 2}});
  CHECK(e["data"]["param"] == "symbol");
  e = p.fails("edit_symbol", {{"path", "p.py"}, {"symbol", "main"},
                              {"replace", "def main():\n    return Parser.parse_command(\"a b\")\n"}});
  CHECK(error_kind(e) == "no_change");
  CHECK(root.read("p.py") == before);

  // A file the server cannot parse: what the server reports is used, and
  // nothing is guessed from the text.
  root.write("broken.py", "def f(:\n    pass\n");
  json listed = p.ok("read_symbols", {{"path", "broken.py"}});
  bool has_f = false;
  for (const json& s : listed["symbols"]) has_f = has_f || s["namePath"] == "f";
  json edit = p.request("edit_symbol",
                        {{"path", "broken.py"}, {"symbol", "f"}, {"replace", "def f():\n    pass\n"}});
  INFO(listed.dump() << " " << edit.dump());
  if (has_f) {
    REQUIRE(edit.contains("result"));
    CHECK(root.read("broken.py").starts_with("def f():\n"));
  } else {
    REQUIRE(edit.contains("error"));
    CHECK(error_kind(edit["error"]) == "no_match");
    CHECK(root.read("broken.py") == "def f(:\n    pass\n");
  }
}

TEST_CASE("pylsp: CRLF and a BOM survive an edit by symbol") {
  TempDir root;
  root.write("w.py", "\xEF\xBB\xBF" "def a():\r\n    return 1\r\n\r\n\r\ndef b():\r\n    return 2\r\n");
  auto p = spawn_editd(root, kPylsp);
  p.reply_wait = kServerWait;
  p.ok("edit_symbol", {{"path", "w.py"}, {"symbol", "a"}, {"replace", "def a():\n    return 10\n"}});
  CHECK(root.read("w.py") ==
        "\xEF\xBB\xBF" "def a():\r\n    return 10\r\n\r\n\r\ndef b():\r\n    return 2\r\n");
  json read = p.ok("read_text", {{"path", "w.py"}, {"symbol", "b"}});
  CHECK(read["content"] == "def b():\r\n    return 2\r\n");
  CHECK(read["line"] == 5);
}

TEST_CASE("pylsp: a symbol read as a hashline view is a view edit_lines takes anchors from") {
  TempDir root;
  root.write("h.py", "class A:\n    def f(self):\n        return 1\n\n\ndef g():\n    return 2\n");
  auto p = spawn_editd(root, kPylsp);
  p.reply_wait = kServerWait;
  json read = p.ok("read_text", {{"path", "h.py"}, {"symbol", "A/f"}, {"format", "hashline"}});
  CHECK(read["line"] == 2);
  CHECK(read["lineCount"] == 2);
  const std::string view = read["content"].get<std::string>();
  REQUIRE(view.find("|        return 1\n") != std::string::npos);
  // The anchor of line 3, as the view shows it.
  const std::size_t at = view.find('\n') + 1;
  const std::string anchor = view.substr(at, view.find('|', at) - at);
  CHECK(anchor.starts_with("3~"));
  p.ok("edit_lines", {{"path", "h.py"},
                      {"edits", json::array({{{"replace", {{"start", anchor}}},
                                              {"newText", "        return 3"}}})}});
  CHECK(root.read("h.py") ==
        "class A:\n    def f(self):\n        return 3\n\n\ndef g():\n    return 2\n");
}

TEST_CASE("another client's edit between the read and the edit: the chain and the fingerprint decide") {
  TempDir root;
  root.write("p.py", kPython);
  auto a = spawn_editd(root, kPylsp);
  a.reply_wait = kServerWait;
  json list = a.ok("read_symbols", {{"path", "p.py"}});
  // Another writer (a second editd on the same root, as another process
  // would) moves every symbol down three lines.
  {
    auto b = spawn_editd(root);
    b.ok("insert", {{"path", "p.py"}, {"line", 0}, {"text", "import os\n\n\n"}});
  }
  // With the fingerprint of its read, A's edit is refused: nothing changes.
  json e = a.fails("edit_symbol", {{"path", "p.py"},
                                   {"symbol", "main"},
                                   {"replace", "def main():\n    return 0\n"},
                                   {"expectedFingerprint", list["fingerprint"]}});
  CHECK(error_kind(e) == "conflict");
  const std::string moved = root.read("p.py");
  CHECK(moved.starts_with("import os\n\n\nclass Parser:"));
  // Without it, the symbol is found in the bytes as they are now, never at
  // the lines of the earlier read.
  json r = a.ok("edit_symbol", {{"path", "p.py"}, {"symbol", "main"}, {"replace", "def main():\n    return 0\n"}});
  CHECK(r["symbol"]["startLine"] == 21);
  CHECK(root.read("p.py") ==
        moved.substr(0, moved.find("def main():")) + "def main():\n    return 0\n");
}

TEST_CASE("clangd: an overload by index, and symbols that share a line are refused") {
  TempDir root;
  root.write("c.cpp",
             "namespace ns {\n"
             "class Parser {\n"
             " public:\n"
             "  int parse(int x) { return x; }\n"
             "  int parse(const char* s) { return 0; }\n"
             "  Parser operator/(int d) const { return *this; }\n"
             "};\n"
             "int a = 1; int b = 2;\n"
             "}  // namespace ns\n");
  auto p = spawn_editd(root, {"--lsp", "*.cpp=clangd", "--check-timeout", kServerTimeout});
  p.reply_wait = kServerWait;
  // A name's own '/' is written with a backslash, and that name path edits it.
  json list = p.ok("read_symbols", {{"path", "c.cpp"}});
  std::set<std::string> names;
  for (const json& s : list["symbols"]) names.insert(s["namePath"].get<std::string>());
  INFO(list.dump());
  REQUIRE(names.count("ns/Parser/operator\\/") == 1);
  p.ok("edit_symbol", {{"path", "c.cpp"},
                       {"symbol", "Parser/operator\\/"},
                       {"replace", "Parser operator/(int) const { return *this; }\n"}});
  CHECK(root.read("c.cpp").find("\n  Parser operator/(int) const { return *this; }\n};") !=
        std::string::npos);
  p.ok("edit_symbol", {{"path", "c.cpp"},
                       {"symbol", "ns/Parser/parse[1]"},
                       {"replace", "int parse(const char* s) { return 1; }\n"}});
  CHECK(root.read("c.cpp").find("  int parse(const char* s) { return 1; }\n  Parser operator/") !=
        std::string::npos);
  json e = p.fails("edit_symbol", {{"path", "c.cpp"}, {"symbol", "ns/a"}, {"replace", "int a = 3;\n"}});
  CHECK(error_kind(e) == "unsupported");
  CHECK(e["data"]["reason"] == "shared_lines");
  CHECK(root.read("c.cpp").find("int a = 1; int b = 2;\n") != std::string::npos);
}

TEST_CASE("typescript-language-server: a method of a class, in a network namespace of its own") {
  TempDir root;
  root.write("t.ts",
             "export class Greeter {\n"
             "  greet(name: string): string {\n"
             "    return \"hi \" + name;\n"
             "  }\n"
             "}\n");
  auto p = spawn_editd(root, typescript_server());
  p.reply_wait = kServerWait;
  // Written, with the diagnostics of the same server: the file stays clean,
  // for which typescript-language-server publishes nothing after a change
  // (editd reopens the document), and then is not.
  json r = p.ok("edit_symbol", {{"path", "t.ts"},
                                {"symbol", "Greeter/greet"},
                                {"replace", "greet(name: string): string {\n  return `hello ${name}`;\n}\n"}});
  CHECK(r["symbol"]["startLine"] == 2);
  CHECK(r["symbol"]["endLine"] == 4);
  CHECK(r["diff"].get<std::string>().find("-    return \"hi \" + name;\n+    return `hello ${name}`;\n") !=
        std::string::npos);
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(r["diagnostics"].empty());
  r = p.ok("edit_symbol", {{"path", "t.ts"},
                           {"symbol", "greet"},
                           {"replace", "greet(name: string): string {\n  return name.length;\n}\n"}});
  CHECK(r["diagnosticsStatus"] == "ok");
  REQUIRE(r["introduced"].size() == 1);
  CHECK(r["introduced"][0]["line"] == 3);
  CHECK(r["introduced"][0]["severity"] == "error");
  CHECK(root.read("t.ts").find("    return name.length;\n") != std::string::npos);
}

TEST_CASE("typescript-language-server runs the TypeScript installed beside it, never one in the root or above it") {
  // A TypeScript of the tree's (a client writes it with two write_text calls)
  // and one in the directory above the root (a cloned parent, another user's
  // /tmp/node_modules): typescript-language-server would fork either's
  // tsserver.js with node. Each writes a marker, then runs the real tsserver,
  // so that every call would still succeed.
  TempDir top;
  const std::string real = EDITD_SOURCE_DIR "/tests/clients/lsp/node_modules/typescript/lib/tsserver.js";
  const std::string package = "{\"name\": \"typescript\", \"version\": \"5.9.3\"}\n";
  auto planted = [&](const std::string& marker) {
    return "require('fs').writeFileSync(" + json((top.path() / marker).string()).dump() +
           ", 'ran');\nrequire(" + json(real).dump() + ");\n";
  };
  top.write("node_modules/typescript/package.json", package);
  top.write("node_modules/typescript/lib/tsserver.js", planted("ran-above"));
  top.write("root/t.ts", "export class Greeter {\n  greet(name: string): string {\n    return name;\n  }\n}\n");
  std::vector<std::string> args{"--root", (top.path() / "root").string()};
  for (const std::string& a : typescript_server()) args.push_back(a);
  Process p(EDITD_BINARY, args);
  p.reply_wait = kServerWait;
  p.ok("write_text", {{"path", "node_modules/typescript/package.json"}, {"content", package}});
  p.ok("write_text", {{"path", "node_modules/typescript/lib/tsserver.js"}, {"content", planted("ran-root")}});

  json list = p.ok("read_symbols", {{"path", "t.ts"}});
  INFO(list.dump());
  std::set<std::string> names;
  for (const json& s : list["symbols"]) names.insert(s["namePath"].get<std::string>());
  CHECK(names == std::set<std::string>{"Greeter", "Greeter/greet"});
  CHECK_FALSE(top.exists("ran-root"));
  CHECK_FALSE(top.exists("ran-above"));
}

// tsserver ends lines at U+2028 and U+2029 too, which a string literal may
// hold: each one moves every position below it a line down from LSP's count.
const char* kSeparated =
    "const s = \"a\u2028b\";\n"  // 1: U+2028 in a string literal
    "function alpha() {\n"        // 2
    "  return 1;\n"                // 3
    "}\n"                          // 4
    "\n"                           // 5
    "function beta() {\n"         // 6
    "  return 2;\n"                // 7
    "}\n";                         // 8

// What read_text {symbol} and edit_symbol do on kSeparated, with `p` serving it as a.EXT.
void separated_lines_hold(Process& p, const TempDir& root, const std::string& file) {
  json beta = p.ok("read_text", {{"path", file}, {"symbol", "beta"}});
  CHECK(beta["line"] == 6);
  CHECK(beta["content"] == "function beta() {\n  return 2;\n}\n");
  p.ok("edit_symbol",
       {{"path", file}, {"symbol", "alpha"}, {"replace", "function alpha() {\n  return 10;\n}\n"}});
  CHECK(root.read(file) ==
        "const s = \"a\u2028b\";\nfunction alpha() {\n  return 10;\n}\n\n"
        "function beta() {\n  return 2;\n}\n");
}

TEST_CASE("typescript-language-server: a U+2028 in a string literal moves no symbol") {
  TempDir root;
  root.write("a.ts", kSeparated);
  auto p = spawn_editd(root, typescript_server());
  p.reply_wait = kServerWait;
  separated_lines_hold(p, root, "a.ts");
}

TEST_CASE("without a language server: unsupported, saying which option enables it; MCP lists no symbol tools") {
  TempDir root;
  root.write("p.py", kPython);
  {
    auto p = spawn_editd(root);
    json e = p.fails("read_symbols", {{"path", "p.py"}});
    CHECK(error_kind(e) == "unsupported");
    CHECK(e["data"]["reason"] == "no_language_server");
    CHECK(e["message"].get<std::string>().find("--lsp") != std::string::npos);
    e = p.fails("read_text", {{"path", "p.py"}, {"symbol", "main"}});
    CHECK(error_kind(e) == "unsupported");
    CHECK(e["code"] == -32060);
  }
  auto names = [&](std::vector<std::string> args) {
    auto p = spawn_editd(root, std::move(args));
    mcp_initialize(p);
    std::set<std::string> out;
    const json listed = p.ok("tools/list", json::object());
    for (const json& t : listed["tools"]) out.insert(t["name"].get<std::string>());
    return out;
  };
  auto plain = names({});
  CHECK(plain.count("read_symbols") == 0);
  CHECK(plain.count("edit_symbol") == 0);
  CHECK(plain.count("read_text") == 1);
  auto with = names(kPylsp);
  CHECK(with.count("read_symbols") == 1);
  CHECK(with.count("edit_symbol") == 1);
}

TEST_CASE("over MCP: a symbol's lines whole, with no page to read on") {
  TempDir root;
  root.write("p.py", kPython);
  auto p = spawn_editd(root, kPylsp);
  p.reply_wait = kServerWait;
  mcp_initialize(p);
  json r = call(p, "read_text", {{"path", "p.py"}, {"symbol", "main"}});
  CHECK_FALSE(r.value("isError", false));
  CHECK(text_of(r) == "p.py: main (function), lines 18-19 of 19, fingerprint " +
                          r["structuredContent"]["fingerprint"].get<std::string>() +
                          "\ndef main():\n    return Parser.parse_command(\"a b\")\n");
  CHECK_FALSE(r["structuredContent"].contains("nextLine"));
  json list = call(p, "read_symbols", {{"path", "p.py"}});
  const std::string outline = text_of(list);
  const auto at = outline.find("\n  Parser/parse_command (");
  REQUIRE(at != std::string::npos);
  CHECK(outline.substr(outline.find(')', at), 12) == ") lines 4-7\n");
  json miss = call(p, "edit_symbol", {{"path", "p.py"}, {"symbol", "nope"}, {"replace", "x\n"}});
  CHECK(miss["isError"] == true);
  CHECK(text_of(miss).find("Error (no_match)") != std::string::npos);
}

TEST_CASE("over MCP: a long listing comes in pages that fit the hosts' limits, each symbol once") {
  TempDir root;
  std::string text;
  for (int i = 0; i < 600; ++i)
    text += "def function_number_" + std::to_string(i) + "(value):\n    return value\n\n";
  root.write("many.py", text);
  auto p = spawn_editd(root, kPylsp);
  p.reply_wait = kServerWait;
  mcp_initialize(p);
  std::vector<std::string> seen;
  json args = {{"path", "many.py"}, {"depth", 0}};
  int pages = 0;
  while (true) {
    json r = call(p, "read_symbols", args);
    REQUIRE_FALSE(r.value("isError", false));
    const json& page = r["structuredContent"];
    // Within Codex's 12,000 bytes of structuredContent.
    CHECK(page.dump().size() <= 11000);
    CHECK(page["totalSymbols"] == 600);
    for (const json& s : page["symbols"]) seen.push_back(s["namePath"].get<std::string>());
    ++pages;
    if (!page.contains("nextOffset")) break;
    CHECK(text_of(r).find("more not shown: call read_symbols with offset " +
                          std::to_string(page["nextOffset"].get<int>())) != std::string::npos);
    args["offset"] = page["nextOffset"];
    REQUIRE(pages < 100);
  }
  CHECK(pages > 1);
  REQUIRE(seen.size() == 600);
  for (int i = 0; i < 600; ++i) CHECK(seen[i] == "function_number_" + std::to_string(i));
}

namespace {

std::vector<std::string> fake(const std::string& mode, const TempDir& logs,
                              const std::string& timeout = "2") {
  return {"--lsp",
          "*.x=python3 " EDITD_SOURCE_DIR "/tests/helpers/fake_lsp.py " + mode + " " +
              (logs.path() / "starts.log").string(),
          "--check-timeout", timeout};
}

std::size_t starts(const TempDir& logs) {
  std::istringstream in(logs.read("starts.log"));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST_CASE("a language server that hangs, dies, offers no symbols or answers nonsense") {
  SUBCASE("hangs: timeout, stopped, and started again on the next call") {
    TempDir root, logs;
    root.write("a.x", "one\ntwo\n");
    auto p = spawn_editd(root, fake("symbols-hang", logs));
    for (int call = 1; call <= 2; ++call) {
      json e = p.fails("read_symbols", {{"path", "a.x"}});
      CHECK(error_kind(e) == "timeout");
      CHECK(e["message"].get<std::string>().find("was stopped") != std::string::npos);
      CHECK(starts(logs) == static_cast<std::size_t>(call));
    }
    CHECK(root.read("a.x") == "one\ntwo\n");
  }
  SUBCASE("dies: unsupported (server_failed), and started again on the next call") {
    TempDir root, logs;
    root.write("a.x", "one\n");
    auto p = spawn_editd(root, fake("symbols-die", logs));
    json e = p.fails("edit_symbol", {{"path", "a.x"}, {"symbol", "one"}, {"replace", "1\n"}});
    CHECK(error_kind(e) == "unsupported");
    CHECK(e["data"]["reason"] == "server_failed");
    p.fails("read_symbols", {{"path", "a.x"}});
    CHECK(starts(logs) == 2);
    CHECK(root.read("a.x") == "one\n");
  }
  SUBCASE("the same bytes: the server's answer is used again; other bytes: asked again") {
    TempDir root, logs;
    root.write("a.x", "one\n");
    auto p = spawn_editd(root, fake("symbols-count", logs));
    auto first_name = [&p] {
      json list = p.ok("read_symbols", {{"path", "a.x"}});
      REQUIRE(list["symbols"].size() == 1);
      return list["symbols"][0]["namePath"].get<std::string>();
    };
    CHECK(first_name() == "asked1");
    CHECK(first_name() == "asked1");
    CHECK(p.ok("read_text", {{"path", "a.x"}, {"symbol", "asked1"}})["content"] == "one\n");
    json r = p.ok("edit_symbol",
                  {{"path", "a.x"}, {"symbol", "asked1"}, {"replace", "uno\n"}, {"dryRun", true}});
    CHECK(r["symbol"]["namePath"] == "asked1");
    root.write("a.x", "two\n");
    CHECK(first_name() == "asked2");
    CHECK(starts(logs) == 1);
  }
  SUBCASE("offers no documentSymbol: unsupported (no_document_symbols)") {
    TempDir root, logs;
    root.write("a.x", "one\n");
    auto p = spawn_editd(root, fake("no-symbols", logs));
    json e = p.fails("read_symbols", {{"path", "a.x"}});
    CHECK(error_kind(e) == "unsupported");
    CHECK(e["data"]["reason"] == "no_document_symbols");
  }
  SUBCASE("nonsense: bounded, clamped, and the server's lines are still editd's lines") {
    TempDir root, logs;
    root.write("a.x", "l0\nl1\nl2\nl3 x\n");
    auto p = spawn_editd(root, fake("symbols-junk", logs));
    json list = p.ok("read_symbols", {{"path", "a.x"}});
    std::size_t deepest = 0;
    for (const json& s : list["symbols"]) {
      CHECK(s["startLine"].get<int>() >= 1);
      CHECK(s["endLine"].get<int>() <= 4);
      CHECK(s["startLine"].get<int>() <= s["endLine"].get<int>());
      deepest = std::max<std::size_t>(deepest, s["depth"].get<std::size_t>());
    }
    CHECK(deepest == 64);
    p.ok("edit_symbol", {{"path", "a.x"}, {"symbol", "line2"}, {"replace", "L2\n"}});
    CHECK(root.read("a.x") == "l0\nl1\nL2\nl3 x\n");
    // The server still answers: editd did not break on it.
    p.ok("read_symbols", {{"path", "a.x"}, {"depth", 0}});
  }
}

namespace {

// The name paths read_symbols lists for `path`, asked over `c`.
std::vector<std::string> listed(SocketClient& c, const std::string& path) {
  auto r = c.call("read_symbols", {{"path", path}});
  REQUIRE_MESSAGE(r.has_value(), "no reply to read_symbols of " << path);
  INFO(r->dump());
  REQUIRE(r->contains("result"));
  std::vector<std::string> out;
  for (const json& s : (*r)["result"]["symbols"]) out.push_back(s["namePath"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("two clients wait on one document while a third crowds the server: each file keeps its own symbols") {
  // Clients A and B ask for slow.x's symbols; the server answers the first
  // once 66 other documents are open, the second three later: in between,
  // editd makes room among its 64 open documents, which must not take the one
  // a call still waits on (the sanitizer build sees any write into a freed entry).
  // The same bytes in every file: an answer written into another file's
  // entry would be kept there as that file's.
  TempDir root, logs, run;
  root.write("slow.x", "x\n");
  for (int i = 0; i < 70; ++i) root.write("f" + std::to_string(i) + ".x", "x\n");
  const std::string socket = (run.path() / "editd.sock").string();
  std::vector<std::string> args = fake("symbols-late", logs, "120");
  args.insert(args.end(), {"--listen", "unix:" + socket});
  auto p = spawn_editd(root, args);
  REQUIRE(wait_for_path(socket));
  auto a = SocketClient::unix_socket(socket), b = SocketClient::unix_socket(socket),
       c = SocketClient::unix_socket(socket);
  REQUIRE((a && b && c));
  const json slow = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", "read_symbols"}, {"params", {{"path", "slow.x"}}}};
  REQUIRE(a->send(slow));
  REQUIRE(b->send(slow));
  for (int i = 0; i < 70; ++i) {
    const std::string f = "f" + std::to_string(i);
    CHECK(listed(*c, f + ".x") == std::vector<std::string>{"sym_" + f});
  }
  for (SocketClient* waiting : {&*a, &*b}) {
    auto line = waiting->read_line(std::chrono::seconds(150));
    REQUIRE_MESSAGE(line.has_value(), "no reply to read_symbols of slow.x");
    const json r = json::parse(*line);
    INFO(r.dump());
    REQUIRE(r.contains("result"));
    REQUIRE(r["result"]["symbols"].size() == 1);
    CHECK(r["result"]["symbols"][0]["namePath"] == "sym_slow");
  }
  // The answers kept, each of its own file: the latest first, while they are kept.
  for (int i = 69; i >= 0; --i) {
    const std::string f = "f" + std::to_string(i);
    CHECK(listed(*c, f + ".x") == std::vector<std::string>{"sym_" + f});
  }
  CHECK(listed(*c, "slow.x") == std::vector<std::string>{"sym_slow"});
  CHECK(starts(logs) == 1);
}

TEST_CASE("a server that counts U+2028 as a line break: read and edited on the lines it means") {
  TempDir root, logs;
  root.write("a.x", kSeparated);
  auto p = spawn_editd(root, fake("symbols-u2028", logs, "60"));
  p.reply_wait = std::chrono::seconds(90);
  separated_lines_hold(p, root, "a.x");
  // Learnt for the server: the same count for the next file.
  root.write("b.x", kSeparated);
  separated_lines_hold(p, root, "b.x");
}

TEST_CASE("a server whose positions do not fit the bytes: refused, never a wrong edit") {
  TempDir root, logs;
  const std::string text =
      "function alpha() {\n"
      "  return 1;\n"
      "}\n"
      "function shifted_beta() {\n"
      "  return 2;\n"
      "}\n"
      "// the end\n";
  root.write("a.x", text);
  auto p = spawn_editd(root, fake("symbols-scan", logs, "60"));
  p.reply_wait = std::chrono::seconds(90);
  for (const char* name : {"shifted_beta", "far"}) {
    CAPTURE(name);
    json e = p.fails("edit_symbol", {{"path", "a.x"}, {"symbol", name}, {"replace", "x\n"}});
    CHECK(error_kind(e) == "unsupported");
    CHECK(e["data"]["reason"] == "misplaced_symbol");
    CHECK(e["message"].get<std::string>().find("edit them by text") != std::string::npos);
    e = p.fails("read_text", {{"path", "a.x"}, {"symbol", name}});
    CHECK(e["data"]["reason"] == "misplaced_symbol");
  }
  CHECK(root.read("a.x") == text);
  // Where the server's positions hold, the edit goes on.
  p.ok("edit_symbol", {{"path", "a.x"}, {"symbol", "alpha"}, {"replace", "function alpha() {}\n"}});
  CHECK(root.read("a.x") == "function alpha() {}\n" + text.substr(text.find("function shifted")));
}

TEST_CASE("huge answers: 165,000 symbols, and 10 MiB of empty objects, read in one pass") {
  // nlohmann::json's callback parser scanned an array after each element: 10
  // MiB of `{}` held editd's I/O thread over a minute, past any reply wait.
  TempDir root, logs;
  root.write("a.x", "a\nb\nc\n");
  SUBCASE("165,000 symbols: the first 100,000 kept, a page listed") {
    auto p = spawn_editd(root, fake("symbols-many", logs, "120"));
    p.reply_wait = std::chrono::seconds(150);
    json page = p.ok("read_symbols", {{"path", "a.x"}, {"limit", 1}});
    CHECK(page["totalSymbols"] == 100000);
    CHECK(page["truncated"] == true);
    REQUIRE(page["symbols"].size() == 1);
    CHECK(page["symbols"][0]["namePath"] == "symbol_number_0");
    json miss = p.fails("read_text", {{"path", "a.x"}, {"symbol", "symbol_number_x"}});
    CHECK(error_kind(miss) == "no_match");
    CHECK(miss["data"]["closest"].size() == 5);
  }
  SUBCASE("10 MiB of empty objects: no symbols") {
    auto p = spawn_editd(root, fake("symbols-empty", logs, "120"));
    // A minute: twenty times what the parse and the server take here under
    // load, and less than main's parse of it took on any machine.
    p.reply_wait = std::chrono::seconds(60);
    json page = p.ok("read_symbols", {{"path", "a.x"}});
    CHECK(page["totalSymbols"] == 0);
  }
}

TEST_CASE("a listing of long name paths comes in parts of bounded size") {
  // 63 nested names of 1,000 characters, then 2,000 symbols inside: each name
  // path is 64 KB, and all of them 128 MB.
  TempDir root, logs;
  root.write("a.x", "a\n");
  auto p = spawn_editd(root, fake("symbols-deep", logs, "60"));
  p.reply_wait = std::chrono::seconds(90);
  json page = p.ok("read_symbols", {{"path", "a.x"}});
  CHECK(page["totalSymbols"] == 2063);
  REQUIRE(page.contains("nextOffset"));
  CHECK(page.dump().size() < (2u << 20));
  json next = p.ok("read_symbols", {{"path", "a.x"}, {"offset", page["nextOffset"]}, {"limit", 1}});
  REQUIRE(next["symbols"].size() == 1);
  const std::string path = next["symbols"][0]["namePath"].get<std::string>();
  CHECK(path.size() > 1000 * page["nextOffset"].get<std::size_t>());
  CHECK(path.starts_with("n00x"));
}
