// Provider-native tool calls through the real binary: Anthropic's text editor
// tool and OpenAI's apply_patch tool, fed the inputs their documentation shows
// and answering with the documented result shapes and texts.
#include <doctest/doctest.h>

#include <map>

#include "helpers/process.h"

using namespace editd::test;

namespace {

// Anthropic's documented example file (the text editor tool's walkthrough):
// line 19 lacks its colon.
const std::string kPrimes =
    "def is_prime(n):\n"
    "    \"\"\"Check if a number is prime.\"\"\"\n"
    "    if n <= 1:\n"
    "        return False\n"
    "    if n <= 3:\n"
    "        return True\n"
    "    if n % 2 == 0 or n % 3 == 0:\n"
    "        return False\n"
    "    i = 5\n"
    "    while i * i <= n:\n"
    "        if n % i == 0 or n % (i + 2) == 0:\n"
    "            return False\n"
    "        i += 6\n"
    "    return True\n"
    "\n"
    "def get_primes(limit):\n"
    "    \"\"\"Generate a list of prime numbers up to the given limit.\"\"\"\n"
    "    primes = []\n"
    "    for num in range(2, limit + 1)\n"
    "        if is_prime(num):\n"
    "            primes.append(num)\n"
    "    return primes\n";

json editor(Process& p, json input) { return p.ok("anthropic_text_editor", std::move(input)); }

}  // namespace

TEST_CASE("text editor: the documented walkthrough, view then str_replace, with its texts") {
  TempDir root;
  root.write("primes.py", kPrimes);
  auto p = spawn_editd(root);
  json view = editor(p, {{"command", "view"},
                         {"path", "primes.py"},
                         {"tool_use_id", "toolu_01AbCdEfGhIjKlMnOpQrStU"}});
  CHECK(view["type"] == "tool_result");
  CHECK(view["tool_use_id"] == "toolu_01AbCdEfGhIjKlMnOpQrStU");
  CHECK_FALSE(view.contains("is_error"));
  const std::string content = view["content"];
  // As the documentation shows it: "1: def is_prime(n):\n2:     ...", "15: " for the blank line.
  CHECK(content.rfind("1: def is_prime(n):\n2:     \"\"\"Check if a number is prime.\"\"\"\n", 0) ==
        0);
  CHECK(content.find("\n15: \n16: def get_primes(limit):\n") != std::string::npos);
  CHECK(content.find("\n19:     for num in range(2, limit + 1)\n") != std::string::npos);
  CHECK(content.ends_with("22:     return primes"));

  json fix = editor(p, {{"command", "str_replace"},
                        {"path", "primes.py"},
                        {"old_str", "    for num in range(2, limit + 1)"},
                        {"new_str", "    for num in range(2, limit + 1):"}});
  CHECK(fix["content"] == "Successfully replaced text at exactly one location.");
  CHECK_FALSE(fix.contains("is_error"));
  std::string fixed = kPrimes;
  fixed.replace(fixed.find("limit + 1)\n"), 11, "limit + 1):\n");
  CHECK(root.read("primes.py") == fixed);
}

TEST_CASE("text editor: the checks' report follows the success line, only what the edit introduced") {
  TempDir root;
  root.write("m.py", "import os\n");
  auto p = spawn_editd(root, {"--check", "*.py=pyflakes3 {file}"});
  json r = editor(p, {{"command", "str_replace"},
                      {"path", "m.py"},
                      {"old_str", "import os\n"},
                      {"new_str", "import os\nprint(nope)\n"}});
  const std::string content = r["content"];
  INFO(content);
  CHECK_FALSE(r.contains("is_error"));
  CHECK(content.rfind("Successfully replaced text at exactly one location.\nDiagnostics of m.py "
                      "after the edit (ok): 2 in all, 1 introduced by this edit\n",
                      0) == 0);
  CHECK(content.find("line 2:7: error: undefined name 'nope' [pyflakes3]") != std::string::npos);
  CHECK(content.find("imported but unused") == std::string::npos);
  // No diff in the tool's text: the tool says what it did, as Anthropic's does.
  CHECK(content.find("+print(nope)") == std::string::npos);
}

TEST_CASE("text editor: documented errors first, then editd's hints; nothing written") {
  TempDir root;
  root.write("primes.py", kPrimes);
  auto p = spawn_editd(root);
  json missing = editor(p, {{"command", "view"}, {"path", "nope.py"}});
  CHECK(missing["is_error"] == true);
  CHECK(missing["content"].get<std::string>().rfind("Error: File not found", 0) == 0);

  json none = editor(p, {{"command", "str_replace"},
                         {"path", "primes.py"},
                         {"old_str", "    for num in range(3, limit)"},
                         {"new_str", "x"}});
  CHECK(none["is_error"] == true);
  const std::string no_match = none["content"];
  CHECK(no_match.rfind(
            "Error: No match found for replacement. Please check your text and try again.", 0) ==
        0);
  CHECK(no_match.find("Closest region, line 19") != std::string::npos);

  json many = editor(p, {{"command", "str_replace"},
                         {"path", "primes.py"},
                         {"old_str", "        return False\n"},
                         {"new_str", "        return 0\n"}});
  CHECK(many["is_error"] == true);
  CHECK(many["content"].get<std::string>().rfind(
            "Error: Found 3 matches for replacement text. Please provide more context to make a "
            "unique match.",
            0) == 0);
  CHECK(root.read("primes.py") == kPrimes);

  json unknown = editor(p, {{"command", "undo_edit"}, {"path", "primes.py"}});
  CHECK(unknown["is_error"] == true);
  json bad = editor(p, {{"command", "insert"}, {"path", "primes.py"}, {"insert_text", "x"}});
  CHECK(bad["content"].get<std::string>().find("insert_line") != std::string::npos);
  json no_path = editor(p, {{"command", "view"}});
  CHECK(no_path["is_error"] == true);
  // Integers out of range are named, whatever JSON number holds them.
  for (const char* v : {"0", "-1", "9223372036854775808", "18446744073709551615", "1e300"}) {
    CAPTURE(v);
    json input = {{"command", "view"}, {"path", "primes.py"}};
    input["max_characters"] = json::parse(v);
    json r = editor(p, input);
    CHECK(r["is_error"] == true);
    CHECK(r["content"].get<std::string>().find("max_characters") != std::string::npos);
  }
  json far = editor(p, {{"command", "insert"},
                        {"path", "primes.py"},
                        {"insert_line", json::parse("9223372036854775808")},
                        {"insert_text", "x"}});
  CHECK(far["content"].get<std::string>().find("must be at most 9223372036854775807") !=
        std::string::npos);
  CHECK(editor(p, {{"command", "view"}, {"path", "primes.py"}, {"max_characters", 2.0}})
            .value("is_error", false) == false);
  // view_range's elements too: 2^64-1 is not read as -1 (the whole file).
  for (const char* range : {"[1, 18446744073709551615]", "[9223372036854775808, -1]",
                            "[1, 1e300]"}) {
    CAPTURE(range);
    json r = editor(p, {{"command", "view"}, {"path", "primes.py"},
                        {"view_range", json::parse(range)}});
    CHECK(r["is_error"] == true);
    CHECK(r["content"].get<std::string>().find("view_range") != std::string::npos);
  }
  CHECK(editor(p, {{"command", "view"}, {"path", "primes.py"}, {"view_range", {1.0, 2.0}}})
            .value("is_error", false) == false);
  CHECK(root.read("primes.py") == kPrimes);
}

TEST_CASE("text editor: editd's messages name the inputs old_str and new_str, as the tool does") {
  TempDir root;
  root.write("primes.py", kPrimes);
  auto p = spawn_editd(root);
  const std::string miss = editor(p, {{"command", "str_replace"},
                                      {"path", "primes.py"},
                                      {"old_str", "    for num in range(3, limit)"},
                                      {"new_str", "    primes = []"}})["content"];
  CAPTURE(miss);
  CHECK(miss.find("Error (no_match): old_str was not found in the file") != std::string::npos);
  CHECK(miss.find("copy old_str from there exactly") != std::string::npos);
  // The new text is in the file already (line 18): the hint names it too.
  CHECK(miss.find("new_str is already in the file at line 18") != std::string::npos);
  CHECK(miss.find("oldText") == std::string::npos);
  CHECK(miss.find("newText") == std::string::npos);
  CHECK(miss.find("\xef\xb7\x90") == std::string::npos);

  const std::string many = editor(p, {{"command", "str_replace"},
                                      {"path", "primes.py"},
                                      {"old_str", "        return False\n"},
                                      {"new_str", "        return 0\n"}})["content"];
  CHECK(many.find("old_str matches 3 regions") != std::string::npos);
  CHECK(many.find("oldText") == std::string::npos);

  const std::string empty = editor(p, {{"command", "str_replace"},
                                       {"path", "primes.py"},
                                       {"old_str", ""},
                                       {"new_str", "x"}})["content"];
  CHECK(empty.find("invalid param 'old_str': must not be empty") != std::string::npos);
  CHECK(empty.find("\"param\":\"old_str\"") != std::string::npos);
  CHECK(root.read("primes.py") == kPrimes);
}

TEST_CASE("the same miss through editd's own str_replace names oldText and newText") {
  TempDir root;
  root.write("primes.py", kPrimes);
  auto p = spawn_editd(root);
  json miss = p.fails("str_replace", {{"path", "primes.py"},
                                      {"oldText", "    for num in range(3, limit)"},
                                      {"newText", "    primes = []"}});
  CHECK(miss["data"]["kind"] == "no_match");
  const std::string message = miss["message"];
  CHECK(message.rfind("oldText was not found in the file", 0) == 0);
  CHECK(message.find("copy oldText from there exactly") != std::string::npos);
  CHECK(miss["data"]["hint"].get<std::string>().find(
            "newText is already in the file at line 18") != std::string::npos);
  CHECK(miss.dump().find("old_str") == std::string::npos);
  CHECK(miss.dump().find("\xef\xb7\x90") == std::string::npos);
  json empty = p.fails("str_replace", {{"path", "primes.py"}, {"oldText", ""}, {"newText", "x"}});
  CHECK(empty["message"].get<std::string>().rfind("invalid param 'oldText': must not be empty", 0) ==
        0);
  CHECK(empty["data"]["param"] == "oldText");
}

TEST_CASE("text editor: create, both insert spellings, view_range and a directory view") {
  TempDir root;
  root.write("w.txt", "one\r\ntwo\r\n");
  root.write("src/a.c", "int a;\n");
  root.write("src/deep/b.c", "int b;\n");
  root.write(".git/config", "x\n");
  auto p = spawn_editd(root);
  json created =
      editor(p, {{"command", "create"}, {"path", "pkg/new.py"}, {"file_text", "x = 1\n"}});
  CHECK(created["content"] == "File created successfully at: pkg/new.py");
  CHECK(root.read("pkg/new.py") == "x = 1\n");
  // text_editor_20250728 names the text insert_text, text_editor_20250429 new_str.
  json a = editor(
      p, {{"command", "insert"}, {"path", "w.txt"}, {"insert_line", 1}, {"insert_text", "1.5"}});
  CHECK(a["content"] == "Successfully inserted text after line 1.");
  json b = editor(
      p, {{"command", "insert"}, {"path", "w.txt"}, {"insert_line", 0}, {"new_str", "zero"}});
  CHECK(b["content"] == "Successfully inserted text at the beginning of the file.");
  CHECK(root.read("w.txt") == "zero\r\none\r\n1.5\r\ntwo\r\n");  // the file's CRLF kept

  json range = editor(p, {{"command", "view"}, {"path", "w.txt"}, {"view_range", {2, 3}}});
  CHECK(range["content"] == "2: one\n3: 1.5");
  json to_end = editor(p, {{"command", "view"}, {"path", "w.txt"}, {"view_range", {3, -1}}});
  CHECK(to_end["content"] == "3: 1.5\n4: two");
  json past = editor(p, {{"command", "view"}, {"path", "w.txt"}, {"view_range", {9, -1}}});
  CHECK(past["is_error"] == true);

  json dir = editor(p, {{"command", "view"}, {"path", "."}});
  CHECK(dir["content"] ==
        "Files and directories up to 2 levels deep in ., excluding hidden items:\n"
        "pkg/\npkg/new.py\nsrc/\nsrc/a.c\nsrc/deep/\nw.txt");
}

TEST_CASE("text editor: a view pipelined after creates sees the new files, listed and viewed") {
  TempDir root;
  root.write("d/old.txt", "o\n");
  auto p = spawn_editd(root);
  auto line = [](const std::string& id, const char* method, json params) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}
               .dump() +
           "\n";
  };
  // Small replies first, so that what follows may run together (the first
  // requests of a connection run alone).
  for (int i = 0; i < 8; ++i)
    p.write_raw(line("warm" + std::to_string(i), "fingerprint", {{"path", "d/old.txt"}}));
  for (int i = 0; i < 8; ++i) REQUIRE(p.read_message().contains("result"));
  // Each create waits for its fsyncs on the pool; the views come right after.
  p.write_raw(
      line("c1", "create", {{"path", "d/new.txt"}, {"content", "x\n"}}) +
      line("list", "anthropic_text_editor", {{"command", "view"}, {"path", "d"}}) +
      line("c2", "create", {{"path", "d/e/deep.txt"}, {"content", "y\n"}}) +
      line("view", "anthropic_text_editor", {{"command", "view"}, {"path", "d/e/deep.txt"}}));
  std::map<std::string, json> replies;
  for (int i = 0; i < 4; ++i) {
    json m = p.read_message();
    replies[m["id"].get<std::string>()] = m;
  }
  CHECK(replies["c1"].contains("result"));
  CHECK(replies["c2"].contains("result"));
  CHECK_MESSAGE(
      replies["list"]["result"]["content"].get<std::string>().find("new.txt") != std::string::npos,
      replies["list"].dump());
  CHECK_MESSAGE(replies["view"]["result"]["content"] == "1: y", replies["view"].dump());
}

TEST_CASE("text editor: a long file is viewed a page at a time, and says how to read on") {
  TempDir root;
  std::string big;
  for (int i = 1; i <= 2500; ++i) big += "line " + std::to_string(i) + "\n";
  root.write("big.txt", big);
  auto p = spawn_editd(root);
  const std::string first = editor(p, {{"command", "view"}, {"path", "big.txt"}})["content"];
  CHECK(first.find("\n2000: line 2000\n") != std::string::npos);
  CHECK(first.find("2001: line") == std::string::npos);
  CHECK(first.ends_with("[lines 2001-2500 not shown: view with view_range [2001, -1] to read on]"));
  const std::string rest =
      editor(p, {{"command", "view"}, {"path", "big.txt"}, {"view_range", {2001, -1}}})["content"];
  CHECK(rest.rfind("2001: line 2001\n", 0) == 0);
  CHECK(rest.ends_with("2500: line 2500"));
}

TEST_CASE("OpenAI apply_patch: the documented operations, and the output item to send back") {
  TempDir root;
  root.write("src/main.ts", "function main() {\n}\n");
  auto p = spawn_editd(root);
  // The documented update_file operation (its path made relative to the root).
  json up = p.ok("openai_apply_patch",
                 {{"call_id", "call_1"},
                  {"operation",
                   {{"type", "update_file"},
                    {"path", "src/main.ts"},
                    {"diff", "@@ function main() {\n+  console.log(\"hi\");\n }"}}}});
  CHECK(up["type"] == "apply_patch_call_output");
  CHECK(up["call_id"] == "call_1");
  CHECK(up["status"] == "completed");
  CHECK(up["output"].get<std::string>().find("update src/main.ts") != std::string::npos);
  CHECK(root.read("src/main.ts") == "function main() {\n  console.log(\"hi\");\n}\n");

  json add = p.ok("openai_apply_patch", {{"operation",
                                          {{"type", "create_file"},
                                           {"path", "lib/fib.py"},
                                           {"diff", "+def fib(n):\n+\n+    return n"}}}});
  CHECK(add["status"] == "completed");
  CHECK_FALSE(add.contains("call_id"));
  CHECK(root.read("lib/fib.py") == "def fib(n):\n\n    return n\n");

  json del = p.ok("openai_apply_patch",
                  {{"operation", {{"type", "delete_file"}, {"path", "lib/fib.py"}}}});
  CHECK(del["status"] == "completed");
  CHECK_FALSE(root.exists("lib/fib.py"));

  json stale = p.ok(
      "openai_apply_patch",
      {{"operation",
        {{"type", "update_file"}, {"path", "src/main.ts"}, {"diff", "@@\n-not there\n+x\n"}}}});
  CHECK(stale["status"] == "failed");
  CHECK(stale["output"].get<std::string>().find("patch_apply") != std::string::npos);
  json bad =
      p.ok("openai_apply_patch",
           {{"operation", {{"type", "create_file"}, {"path", "x.txt"}, {"diff", "no plus"}}}});
  CHECK(bad["status"] == "failed");
  CHECK_FALSE(root.exists("x.txt"));
  json kind = p.ok("openai_apply_patch", {{"operation", {{"type", "rename_file"}, {"path", "x"}}}});
  CHECK(kind["status"] == "failed");
  CHECK(root.read("src/main.ts") == "function main() {\n  console.log(\"hi\");\n}\n");
}
