// Format-aware edits (--format, issue 56) through the real binary: black and
// clang-format from Debian and prettier from npm (tests/clients/formatters)
// format only the lines an edit wrote, with CRLF, a BOM, tabs and a missing
// final newline left as they were; the hostile formatters of
// tests/integration/formatters (one that hangs, crashes, prints nothing, prints
// bytes that are not UTF-8, floods, rewrites every line) never block or change
// an edit; format: false, dryRun, undo, the ledger, apply_patch and a new file;
// and a program the tree could choose is refused at start.
//
// Each expectation is checked against the formatter itself: the test runs it on
// the whole text the model's call made, as editd does, and takes the lines of
// its output that the edit wrote. A real formatter that is missing fails the
// test (make deps and make formatters-deps install them), it never skips.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "helpers/process.h"
#include "helpers/unified_diff.h"

using namespace editd::test;

namespace {

const std::string kFormatterScripts = EDITD_SOURCE_DIR "/tests/integration/formatters/";
// The bin link of the pinned prettier: editd refuses a program inside its root,
// and the root of these tests is a temporary directory, not the source tree.
const std::string kPrettierBin =
    EDITD_SOURCE_DIR "/tests/clients/formatters/node_modules/.bin/prettier";

// What a real formatter may take on a loaded machine (Node.js starting under a
// sanitizer build), and the wait for a reply above it: a slow machine makes a
// slow test, never a failed one.
const std::vector<std::string> kRealFormatterTimeout = {"--format-timeout", "60"};
constexpr std::chrono::seconds kRealFormatterWait{90};

// editd serving `root` with the real formatter `format` (GLOB=COMMAND); its
// caller sets reply_wait to kRealFormatterWait.
Process serve_formatting(const TempDir& root, const std::string& format) {
  std::vector<std::string> args{"--format", format};
  args.insert(args.end(), kRealFormatterTimeout.begin(), kRealFormatterTimeout.end());
  return spawn_editd(root, args);
}

// The absolute path of `name` on PATH; the test fails without it.
std::string program_on_path(const std::string& name) {
  INFO(name << " is missing: make deps installs it (the Makefile's DEBIAN_PACKAGES)");
  Run r = run_program("/bin/sh", {"-c", "command -v \"$0\"", name});
  REQUIRE(r.code == 0);
  std::string path = r.out.substr(0, r.out.find('\n'));
  REQUIRE(path.starts_with('/'));
  return path;
}

std::string prettier_bin() {
  INFO("prettier is missing: make formatters-deps (make test does) installs it");
  REQUIRE(fs::exists(kPrettierBin));
  return kPrettierBin;
}

// What `argv` writes on stdout for `input` on stdin, run in `cwd` as editd runs
// a formatter, byte for byte (run_program reads lines); it must exit 0.
std::string formatter_run(const std::vector<std::string>& argv, const std::string& cwd,
                          const std::string& input) {
  TempDir io;
  io.write("in", input);
  std::vector<std::string> args{"-c", "\"$@\" < \"$0/in\" > \"$0/out\"", io.str()};
  args.insert(args.end(), argv.begin(), argv.end());
  Run r = run_program("/bin/sh", args, cwd);
  INFO(argv[0] << " failed: " << r.err);
  REQUIRE(r.code == 0);
  return io.read("out");
}

// `text` as editd gives it to a formatter: no BOM, LF line breaks.
std::string normalized_text(std::string text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out += text[i];
  return out;
}

// `s` without the whitespace format_scope ignores when it pairs lines.
std::string without_space(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v' && c != '\n') out += c;
  return out;
}

// The one line of `formatted` (without its line break) that holds what
// `model_lines` hold but for whitespace: what the formatter alone makes of them.
std::string line_like(const std::string& formatted, const std::string& model_lines) {
  std::vector<std::string> found;
  std::istringstream in(formatted);
  for (std::string line; std::getline(in, line);)
    if (without_space(line) == without_space(model_lines)) found.push_back(line);
  INFO("formatter output:\n" << formatted);
  REQUIRE(found.size() == 1);
  return found[0];
}

// `text` with its one occurrence of `from` replaced by `to`.
std::string replace_once(const std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << from << "' in:\n" << text);
  REQUIRE_MESSAGE(text.find(from, at + 1) == std::string::npos, "'" << from << "' twice");
  return text.substr(0, at) + to + text.substr(at + from.size());
}

// The lines a unified diff adds and removes.
std::pair<int, int> diff_line_counts(const std::string& diff) {
  int added = 0, removed = 0;
  bool in_hunk = false;
  std::istringstream in(diff);
  for (std::string row; std::getline(in, row);) {
    if (row.starts_with("@@")) in_hunk = true;
    else if (in_hunk && row.starts_with('+')) ++added;
    else if (in_hunk && row.starts_with('-')) ++removed;
  }
  return {added, removed};
}

json line_range(int start, int end) { return {{"startLine", start}, {"endLine", end}}; }

// What every reply of a formatted mutation of `path` holds, whatever the
// formatter did: the fingerprint is the file's as written, the model's own
// diff goes from `before` to `model` (the text the call made), and, when the
// formatter's hunks were kept, its diff goes from `model` to the bytes on disk.
void check_reply(Process& p, const TempDir& root, const std::string& path, const json& r,
                 const std::string& before, const std::string& model) {
  INFO(path << ": " << r.dump());
  const std::string disk = root.read(path);
  CHECK(r["fingerprint"] == p.ok("fingerprint", {{"path", path}})["fingerprint"]);
  CHECK(apply_unified_diff(before, r["diff"]) == model);
  CHECK(std::pair(r["added"].get<int>(), r["removed"].get<int>()) == diff_line_counts(r["diff"]));
  if (r.contains("formatted")) {
    const json& f = r["formatted"];
    REQUIRE(r["formatStatus"] == "ok");
    const std::string diff = f["diff"];
    CHECK(diff.starts_with("--- a/" + path + "\n+++ b/" + path + "\n"));
    CHECK(apply_unified_diff(model, diff) == disk);
    CHECK(std::pair(f["added"].get<int>(), f["removed"].get<int>()) == diff_line_counts(diff));
    CHECK(f["dropped"].is_number_unsigned());
    // The hashline anchors are the file's as written: each is a line of the
    // file's own hashline view (the last line of a file without a final
    // newline ends without one in both).
    const std::string view = p.ok("read_text", {{"path", path}, {"format", "hashline"}})["content"];
    const std::string shown = f["hashline"];
    std::istringstream rows(shown);
    for (std::string row; std::getline(rows, row);)
      CHECK_MESSAGE(("\n" + view + "\n").find("\n" + row + "\n") != std::string::npos,
                    row << " is not in:\n" << view);
  } else {
    CHECK(disk == model);
  }
}

// The anchor ("12~ab") at the start of a hashline row ("12~ab|text").
std::string anchor_of_row(const std::string& row) { return row.substr(0, row.find('|')); }

}  // namespace

TEST_CASE("black formats only the lines a str_replace wrote; every other byte stays") {
  const std::string black = program_on_path("black");
  TempDir root;
  // Badly formatted throughout: black would add blank lines, respace the
  // signature, join the list and requote the dict.
  const std::string before =
      "import os\n"
      "def  f( a,b ):\n"
      "    y = a+b\n"
      "    return y\n"
      "z = [1,2,\n"
      "  3]\n"
      "def g():\n"
      "    return {'k':1}\n";
  root.write("m.py", before);
  auto p = serve_formatting(root, "*.py=black -q -");
  p.reply_wait = kRealFormatterWait;
  // Three badly formatted lines for one: black joins them.
  const std::string model =
      replace_once(before, "    y = a+b\n", "    y = f(\n        a,\n  b)\n");
  json r = p.ok("str_replace",
                {{"path", "m.py"}, {"oldText", "    y = a+b\n"}, {"newText", "    y = f(\n        a,\n  b)\n"}});
  INFO(r.dump());
  REQUIRE(r["formatStatus"] == "ok");
  CHECK_FALSE(r.contains("formatDetail"));
  const std::string line = line_like(formatter_run({black, "-q", "-"}, root.str(), model),
                                     "    y = f(\n        a,\n  b)\n");
  CHECK(line == "    y = f(a, b)");
  CHECK(root.read("m.py") == replace_once(before, "    y = a+b\n", line + "\n"));
  // The model's lines, and the formatter's, in the file as written.
  CHECK(r["lines"] == json::array({line_range(3, 3)}));
  CHECK(r["formatted"]["lines"] == json::array({line_range(3, 3)}));
  // Left out: the blank lines and the signature above, the list, the dict.
  CHECK(r["formatted"]["dropped"] == 3);
  CHECK(r["formatted"]["removed"] == 3);
  CHECK(r["formatted"]["added"] == 1);
  check_reply(p, root, "m.py", r, before, model);

  // The reply's anchors are a view: edit_lines takes them as they are. A line
  // black leaves as it is keeps no formatter hunk: ok, and no `formatted`.
  const std::string row = r["formatted"]["hashline"];
  CHECK(row == anchor_of_row(row) + "|    y = f(a, b)\n");
  const std::string written = root.read("m.py");
  json again = p.ok("edit_lines", {{"path", "m.py"},
                                   {"edits",
                                    {{{"replace", {{"start", anchor_of_row(row)}}},
                                      {"newText", "    y = f(a, b)  # summed"}}}}});
  INFO(again.dump());
  CHECK(again["formatStatus"] == "ok");
  CHECK_FALSE(again.contains("formatted"));
  CHECK(root.read("m.py") == replace_once(written, "    y = f(a, b)\n", "    y = f(a, b)  # summed\n"));
}

TEST_CASE("clang-format with CRLF, a BOM, tabs and no final newline: only the edit's lines change") {
  const std::string clang_format = program_on_path("clang-format");
  // Tab-indented, with the braces on lines of their own: clang-format's
  // default (LLVM) style reindents with spaces and joins the braces.
  const std::string base =
      "#include <stdio.h>\n"
      "int add(int a, int b)\n"
      "{\n"
      "\treturn a+b;\n"
      "}\n"
      "int main(void)\n"
      "{\n"
      "\tint x = add(1,2);\n"
      "\tprintf(\"%d\\n\", x);\n"
      "\treturn 0;\n"
      "}\n"
      "int   last=1;\n";
  struct Variant {
    const char* name;
    bool crlf, bom, final_newline;
  };
  for (const Variant v : {Variant{"LF", false, false, true}, Variant{"CRLF", true, false, true},
                          Variant{"BOM", false, true, true}, Variant{"BOM and CRLF", true, true, true},
                          Variant{"no final newline", false, false, false},
                          Variant{"CRLF, no final newline", true, false, false}}) {
    INFO(v.name);
    std::string bytes = base;
    if (!v.final_newline) bytes.pop_back();
    if (v.crlf) {
      std::string crlf;
      for (char c : bytes) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
      bytes = crlf;
    }
    if (v.bom) bytes = "\xEF\xBB\xBF" + bytes;
    TempDir root;
    root.write("src/m.c", bytes);
    auto p = serve_formatting(root, "*.c=clang-format --assume-filename {file}");
    p.reply_wait = kRealFormatterWait;
    // One line in the middle, then the last line (which keeps its ending, or
    // its lack of one).
    const std::vector<std::pair<std::string, std::string>> edits = {
        {"\tint x = add(1,2);", "\tint   x=add( 1 ,2 )*2;"},
        {"int   last=1;", "int   last =  2;"}};
    for (const auto& [from, to] : edits) {
      INFO(to);
      const std::string before = root.read("src/m.c");
      const std::string model = replace_once(before, from, to);
      json r = p.ok("str_replace", {{"path", "src/m.c"}, {"oldText", from}, {"newText", to}});
      REQUIRE(r["formatStatus"] == "ok");
      // What clang-format alone makes of the line, given the whole file as
      // editd gives it (it names the file ./src/m.c).
      const std::string line = line_like(
          formatter_run({clang_format, "--assume-filename", "./src/m.c"}, root.str(),
                        normalized_text(model)),
          to);
      CHECK(line == (to.starts_with('\t') ? "  int x = add(1, 2) * 2;" : "int last = 2;"));
      const std::string disk = root.read("src/m.c");
      CHECK(disk == replace_once(model, to, line));
      CHECK(disk.starts_with("\xEF\xBB\xBF") == v.bom);
      CHECK(disk.ends_with(v.crlf ? "\r\n" : "\n") == v.final_newline);
      check_reply(p, root, "src/m.c", r, before, model);
    }
    // The tabs of every other line are still there.
    CHECK(root.read("src/m.c").find(v.crlf ? "\treturn a+b;\r\n" : "\treturn a+b;\n") !=
          std::string::npos);
  }
}

TEST_CASE("prettier formats a TypeScript edit's lines, joined into one; the rest stays") {
  const std::string prettier = prettier_bin();
  TempDir root;
  const std::string before =
      "function add(a:number,b:number){\n"
      "    return a+b;\n"
      "}\n"
      "const   y = add(3,4);\n"
      "export {y};\n";
  root.write("app.ts", before);
  auto p = serve_formatting(root, "*.ts=" + prettier + " --stdin-filepath {file}");
  p.reply_wait = kRealFormatterWait;
  const std::string from = "const   y = add(3,4);\n", to = "const   y = add(\n  3,\n4 )*2;\n";
  const std::string model = replace_once(before, from, to);
  json r = p.ok("str_replace", {{"path", "app.ts"}, {"oldText", from}, {"newText", to}});
  INFO(r.dump());
  REQUIRE(r["formatStatus"] == "ok");
  const std::string line =
      line_like(formatter_run({prettier, "--stdin-filepath", "./app.ts"}, root.str(), model), to);
  CHECK(line == "const y = add(3, 4) * 2;");
  CHECK(root.read("app.ts") == replace_once(before, from, line + "\n"));
  CHECK(r["lines"] == json::array({line_range(4, 4)}));
  CHECK(r["formatted"]["lines"] == json::array({line_range(4, 4)}));
  check_reply(p, root, "app.ts", r, before, model);
}

TEST_CASE("--format @lsp: clangd's range formatting of the edit's lines, its positions in UTF-16") {
  program_on_path("clangd");
  TempDir root;
  // Asked for line 9 alone, clangd also reindents the lines around it, and
  // indents line 9 to the column of line 8's tab, not as it formats a whole
  // file (checked by hand: 8 spaces); its positions on line 9 count "😀" as
  // two UTF-16 units: counted otherwise, its deletions of the spaces after
  // the string would hit other characters.
  const std::string before =
      "#include <stdio.h>\n"
      "int add(int a, int b)\n"
      "{\n"
      "\treturn a+b;\n"
      "}\n"
      "int main(void)\n"
      "{\n"
      "\tint x = add(1,2);\n"
      "\tprintf(\"\xC3\xA9\xF0\x9F\x98\x80 %d\", x);\n"
      "\treturn 0;\n"
      "}\n";
  root.write("src/m.c", before);
  auto p = spawn_editd(root, {"--lsp", "*.c=clangd --log=error", "--format", "*.c=@lsp",
                              "--check-timeout", "60", "--format-timeout", "60"});
  p.reply_wait = kRealFormatterWait;
  const std::string from = "\tprintf(\"\xC3\xA9\xF0\x9F\x98\x80 %d\", x);";
  const std::string to = "\tprintf( \"\xC3\xA9\xF0\x9F\x98\x80 %d\" ,x );";
  const std::string model = replace_once(before, from, to);
  json r = p.ok("str_replace", {{"path", "src/m.c"}, {"oldText", from}, {"newText", to}});
  INFO(r.dump());
  REQUIRE(r["formatStatus"] == "ok");
  const std::string disk = root.read("src/m.c");
  // Lines 1-8 and 10-11 as they were; line 9 respaced, indented with spaces.
  const std::size_t start = before.find(from), end = start + from.size();
  REQUIRE(disk.size() > end);
  CHECK(disk.substr(0, start) == before.substr(0, start));
  CHECK(disk.ends_with(before.substr(end)));
  const std::string line = disk.substr(start, disk.size() - (before.size() - end) - start);
  const std::size_t indent = line.find_first_not_of(' ');
  CHECK(indent > 0);
  CHECK(line.substr(indent) == "printf(\"\xC3\xA9\xF0\x9F\x98\x80 %d\", x);");
  CHECK(r["formatted"]["lines"] == json::array({line_range(9, 9)}));
  check_reply(p, root, "src/m.c", r, before, model);
}

TEST_CASE("--format @lsp with a language server that offers no range formatting: failed, the edit lands") {
  TempDir root, logs;
  auto p = spawn_editd(root, {"--lsp",
                              "*.x=python3 " EDITD_SOURCE_DIR "/tests/helpers/fake_lsp.py no-symbols " +
                                  (logs.path() / "starts.log").string(),
                              "--format", "*.x=@lsp", "--check-timeout", "30"});
  p.reply_wait = kRealFormatterWait;
  root.write("a.x", "one\ntwo\n");
  json r = p.ok("str_replace", {{"path", "a.x"}, {"oldText", "two"}, {"newText", "TWO  2"}});
  INFO(r.dump());
  CHECK(r["formatStatus"] == "failed");
  CHECK_FALSE(r["formatDetail"].get<std::string>().empty());
  CHECK_FALSE(r.contains("formatted"));
  CHECK(root.read("a.x") == "one\nTWO  2\n");
}

TEST_CASE("a formatter that rewrites every line: each mutation method formats its own lines only") {
  TempDir root;
  auto p = spawn_editd(root, {"--format", "*.txt=" + kFormatterScripts + "reindent.sh"});
  const std::string before = "one\ntwo\nthree\nfour\nfive\nsix\n";

  SUBCASE("str_replace of one line") {
    root.write("a.txt", before);
    json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "three"}, {"newText", "THREE"}});
    CHECK(r["formatStatus"] == "ok");
    CHECK(root.read("a.txt") == "one\ntwo\n  THREE\nfour\nfive\nsix\n");
    CHECK(r["formatted"]["lines"] == json::array({line_range(3, 3)}));
    CHECK(r["formatted"]["dropped"] == 2);  // lines 1-2 and lines 4-6
    check_reply(p, root, "a.txt", r, before, replace_once(before, "three", "THREE"));
  }
  SUBCASE("str_replace of two lines by three") {
    root.write("a.txt", before);
    json r = p.ok("str_replace",
                  {{"path", "a.txt"}, {"oldText", "three\nfour\n"}, {"newText", "3\n3.5\n4\n"}});
    CHECK(root.read("a.txt") == "one\ntwo\n  3\n  3.5\n  4\nfive\nsix\n");
    CHECK(r["lines"] == json::array({line_range(3, 5)}));
    CHECK(r["formatted"]["lines"] == json::array({line_range(3, 5)}));
    check_reply(p, root, "a.txt", r, before, "one\ntwo\n3\n3.5\n4\nfive\nsix\n");
  }
  SUBCASE("insert") {
    root.write("a.txt", before);
    json r = p.ok("insert", {{"path", "a.txt"}, {"line", 2}, {"text", "two and a half"}});
    CHECK(root.read("a.txt") == "one\ntwo\n  two and a half\nthree\nfour\nfive\nsix\n");
    check_reply(p, root, "a.txt", r, before, "one\ntwo\ntwo and a half\nthree\nfour\nfive\nsix\n");
  }
  SUBCASE("edit_lines") {
    root.write("a.txt", before);
    const std::string view =
        p.ok("read_text", {{"path", "a.txt"}, {"line", 5}, {"limit", 1}, {"format", "hashline"}})
            ["content"];
    json r = p.ok("edit_lines", {{"path", "a.txt"},
                                 {"edits", {{{"replace", {{"start", anchor_of_row(view)}}},
                                             {"newText", "FIVE"}}}}});
    CHECK(root.read("a.txt") == "one\ntwo\nthree\nfour\n  FIVE\nsix\n");
    check_reply(p, root, "a.txt", r, before, "one\ntwo\nthree\nfour\nFIVE\nsix\n");
  }
  SUBCASE("create and write_text of a new file: every line is the edit's") {
    json r = p.ok("create", {{"path", "new.txt"}, {"content", "a\nb\n"}});
    CHECK(r["formatStatus"] == "ok");
    CHECK(root.read("new.txt") == "  a\n  b\n");
    CHECK(r["formatted"]["dropped"] == 0);
    r = p.ok("write_text", {{"path", "other.txt"}, {"content", "c\n\nd"}});
    CHECK(r["formatStatus"] == "ok");
    CHECK(root.read("other.txt") == "  c\n\n  d");
  }
  SUBCASE("anthropic_text_editor's str_replace and insert") {
    root.write("a.txt", before);
    json r = p.ok("anthropic_text_editor",
                  {{"command", "str_replace"}, {"path", "a.txt"}, {"old_str", "four"}, {"new_str", "FOUR"}});
    INFO(r.dump());
    CHECK_FALSE(r.contains("is_error"));
    CHECK(root.read("a.txt") == "one\ntwo\nthree\n  FOUR\nfive\nsix\n");
    r = p.ok("anthropic_text_editor",
             {{"command", "insert"}, {"path", "a.txt"}, {"insert_line", 6}, {"insert_text", "seven"}});
    CHECK(root.read("a.txt") == "one\ntwo\nthree\n  FOUR\nfive\nsix\n  seven\n");
  }
  SUBCASE("format: false writes the model's text and says nothing of a formatter") {
    root.write("a.txt", before);
    json r = p.ok("str_replace",
                  {{"path", "a.txt"}, {"oldText", "three"}, {"newText", "THREE"}, {"format", false}});
    CHECK(root.read("a.txt") == replace_once(before, "three", "THREE"));
    CHECK_FALSE(r.contains("formatStatus"));
    CHECK_FALSE(r.contains("formatted"));
    CHECK_FALSE(r.contains("formatDetail"));
    r = p.ok("write_text", {{"path", "b.txt"}, {"content", "x\n"}, {"format", false}});
    CHECK(root.read("b.txt") == "x\n");
    CHECK_FALSE(r.contains("formatStatus"));
  }
  SUBCASE("dryRun shows what the formatter would change and writes nothing") {
    root.write("a.txt", before);
    const json params = {{"path", "a.txt"}, {"oldText", "three"}, {"newText", "THREE"}};
    json dry_params = params;
    dry_params["dryRun"] = true;
    json dry = p.ok("str_replace", dry_params);
    INFO(dry.dump());
    CHECK(root.read("a.txt") == before);
    REQUIRE(dry["formatStatus"] == "ok");
    CHECK(apply_unified_diff(before, dry["diff"]) == replace_once(before, "three", "THREE"));
    CHECK(apply_unified_diff(replace_once(before, "three", "THREE"), dry["formatted"]["diff"]) ==
          "one\ntwo\n  THREE\nfour\nfive\nsix\n");
    // The same call for real writes what the dry run showed.
    json r = p.ok("str_replace", params);
    CHECK(r["fingerprint"] == dry["fingerprint"]);
    CHECK(r["diff"] == dry["diff"]);
    CHECK(r["formatted"]["diff"] == dry["formatted"]["diff"]);
    CHECK(r["formatted"]["lines"] == dry["formatted"]["lines"]);
    CHECK(root.read("a.txt") == "one\ntwo\n  THREE\nfour\nfive\nsix\n");
  }
  SUBCASE("undo takes back the model's change and the formatter's") {
    root.write("a.txt", before);
    json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "three"}, {"newText", "THREE"}});
    REQUIRE(root.read("a.txt") == "one\ntwo\n  THREE\nfour\nfive\nsix\n");
    json u = p.ok("undo", {{"undoId", r["undoId"]}});
    INFO(u.dump());
    CHECK(root.read("a.txt") == before);
    // An undo is not formatted (it would format the original lines back).
    CHECK_FALSE(u.contains("formatStatus"));
    for (const json& f : u.value("files", json::array())) CHECK_FALSE(f.contains("formatStatus"));
  }
}

TEST_CASE("the ledger records the formatter's hunks under their own origin; revert takes back both") {
  TempDir root, state;  // the ledger in a state directory of the test's own
  const std::string before = "one\ntwo\nthree\nfour\n";
  root.write("a.txt", before);
  auto p = spawn_editd(root, {"--state-dir", state.str(), "--format",
                              "*.txt=" + kFormatterScripts + "reindent.sh"});
  json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "TWO"}});
  REQUIRE(root.read("a.txt") == "one\n  TWO\nthree\nfour\n");
  json page = p.ok("changes", {{"path", "a.txt"}});
  INFO(page.dump());
  REQUIRE(page["changes"].size() == 1);
  const json& file = page["changes"][0]["files"][0];
  // The entry's hunks go from the bytes before to the bytes as written.
  REQUIRE(file["hunks"].size() == 1);
  CHECK(file["hunks"][0]["old"] == "two\n");
  CHECK(file["hunks"][0]["new"] == "  TWO\n");
  // The formatter's: from the model's text to the bytes as written.
  REQUIRE(file["formatted"].size() == 1);
  const json& hunk = file["formatted"][0];
  CHECK(hunk["origin"] == "format");
  CHECK_FALSE(hunk.contains("id"));
  CHECK(hunk["old"] == "TWO\n");
  CHECK(hunk["new"] == "  TWO\n");
  CHECK(hunk["newStart"] == 2);
  CHECK(hunk["newLines"] == 1);

  json reverted = p.ok("revert", {{"changes", json::array({r["changeId"]})}});
  INFO(reverted.dump());
  CHECK(root.read("a.txt") == before);
  CHECK_FALSE(reverted.contains("formatStatus"));
}

TEST_CASE("apply_patch: each file's formatStatus, and the formatter keeps to the patch's lines") {
  const std::string black = program_on_path("black");
  TempDir root;
  const std::string before =
      "import os\n"
      "def  f( a,b ):\n"
      "    y = a+b\n"
      "    return y\n"
      "z = [1,2,\n"
      "  3]\n";
  root.write("m.py", before);
  root.write("notes.txt", "old\n");
  auto p = serve_formatting(root, "*.py=black -q -");
  p.reply_wait = kRealFormatterWait;
  json r = p.ok("apply_patch", {{"patch",
                                 "*** Begin Patch\n"
                                 "*** Update File: m.py\n"
                                 "@@\n"
                                 "     y = a+b\n"
                                 "+    w = [ y,y ]\n"
                                 "     return y\n"
                                 "*** Add File: n.py\n"
                                 "+def  h( ):\n"
                                 "+  return [1,2]\n"
                                 "*** Update File: notes.txt\n"
                                 "@@\n"
                                 "-old\n"
                                 "+new\n"
                                 "*** End Patch"}});
  INFO(r.dump());
  std::set<std::string> seen;
  for (const json& f : r["files"]) {
    const std::string path = f["path"];
    seen.insert(path);
    if (path == "m.py") {
      CHECK(f["formatStatus"] == "ok");
      const std::string model = replace_once(before, "    y = a+b\n", "    y = a+b\n    w = [ y,y ]\n");
      const std::string line =
          line_like(formatter_run({black, "-q", "-"}, root.str(), model), "    w = [ y,y ]");
      CHECK(line == "    w = [y, y]");
      // The line above it, which black would respace too, is not the patch's.
      CHECK(root.read("m.py") == replace_once(before, "    y = a+b\n", "    y = a+b\n" + line + "\n"));
      CHECK(f["formatted"]["lines"] == json::array({line_range(4, 4)}));
      CHECK(f["fingerprint"] == p.ok("fingerprint", {{"path", "m.py"}})["fingerprint"]);
    } else if (path == "n.py") {
      // An added file is all the patch's: formatted whole.
      CHECK(f["formatStatus"] == "ok");
      const std::string whole = formatter_run({black, "-q", "-"}, root.str(), "def  h( ):\n  return [1,2]\n");
      CHECK(whole == "def h():\n    return [1, 2]\n");
      CHECK(root.read("n.py") == whole);
      CHECK(f["formatted"]["dropped"] == 0);
    } else {
      CHECK(path == "notes.txt");
      CHECK_FALSE(f.contains("formatStatus"));
      CHECK_FALSE(f.contains("formatted"));
      CHECK(root.read("notes.txt") == "new\n");
    }
  }
  CHECK(seen == std::set<std::string>{"m.py", "n.py", "notes.txt"});
  // Undo takes the three files back, formatter's lines and all.
  p.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(root.read("m.py") == before);
  CHECK_FALSE(root.exists("n.py"));
  CHECK(root.read("notes.txt") == "old\n");
}

TEST_CASE("write_text of a new file with black: the whole file is formatted") {
  const std::string black = program_on_path("black");
  TempDir root;
  auto p = serve_formatting(root, "*.py=black -q -");
  p.reply_wait = kRealFormatterWait;
  const std::string content = "import os\ndef  h( ):\n  return [1,2]\nx = {'a':1}\n";
  json r = p.ok("write_text", {{"path", "pkg/new.py"}, {"content", content}});
  INFO(r.dump());
  REQUIRE(r["formatStatus"] == "ok");
  const std::string whole = formatter_run({black, "-q", "-"}, root.str(), content);
  CHECK(whole == "import os\n\n\ndef h():\n    return [1, 2]\n\n\nx = {\"a\": 1}\n");
  CHECK(root.read("pkg/new.py") == whole);
  CHECK(r["formatted"]["dropped"] == 0);
  CHECK(r["fingerprint"] == p.ok("fingerprint", {{"path", "pkg/new.py"}})["fingerprint"]);
  CHECK(apply_unified_diff(content, r["formatted"]["diff"]) == whole);
}

TEST_CASE("a formatter that fails, hangs, floods or writes no text: the edit lands as the model wrote it") {
  TempDir root, logs;
  const std::string pids = (logs.path() / "pids").string();
  // The hanging formatter says where its processes are (editd's children
  // inherit its environment).
  ::setenv("EDITD_TEST_PIDS", pids.c_str(), 1);
  auto p = spawn_editd(root, {"--format", "*.hang=" + kFormatterScripts + "hang.sh",
                              "--format", "*.crash=" + kFormatterScripts + "crash.sh",
                              "--format", "*.segv=" + kFormatterScripts + "segv.sh",
                              "--format", "*.silent=" + kFormatterScripts + "silent.sh",
                              "--format", "*.latin=" + kFormatterScripts + "not_utf8.sh",
                              "--format", "*.flood=" + kFormatterScripts + "flood.sh",
                              "--format", "*.gone=/nonexistent/editd-formatter",
                              "--format", "*.same=" + kFormatterScripts + "echo.sh",
                              "--format-timeout", "1",
                              // The flood passes the byte limit at once.
                              "--max-file-bytes", "4194304"});
  ::unsetenv("EDITD_TEST_PIDS");
  struct Case {
    std::string ext;
    std::set<std::string> status;  // what formatStatus may be
    std::string detail;            // what formatDetail mentions ("" for anything)
  };
  // A flood is killed past the byte limit: the contract has it "failed" in
  // Checks::format and "rejected (too large)" in the reply's list; either says it.
  const std::vector<Case> cases = {
      {"hang", {"timeout"}, "--format-timeout"},
      {"crash", {"failed"}, "boom"},
      {"segv", {"failed"}, ""},
      {"silent", {"rejected"}, ""},
      {"latin", {"rejected"}, ""},
      {"flood", {"failed", "rejected"}, ""},
      {"gone", {"failed"}, "/nonexistent/editd-formatter"},
      {"same", {"ok"}, ""}};
  for (const Case& c : cases) {
    INFO(c.ext);
    const std::string path = "src/a." + c.ext;
    std::string before = "first line\nsecond line\nthird line\n";
    // The formatter that dies before it reads gets a text larger than a pipe
    // holds: editd's write to it fails, editd does not.
    if (c.ext == "segv")
      for (int i = 0; i < 20000; ++i) before += "padding line " + std::to_string(i) + "\n";
    root.write(path, before);
    const std::string model = replace_once(before, "second line", "SECOND  line");
    json r = p.ok("str_replace", {{"path", path}, {"oldText", "second line"}, {"newText", "SECOND  line"}});
    INFO(r.dump().substr(0, 4000));
    CHECK(c.status.contains(r["formatStatus"].get<std::string>()));
    CHECK(root.read(path) == model);
    CHECK_FALSE(r.contains("formatted"));
    if (c.ext == "same") {
      CHECK_FALSE(r.contains("formatDetail"));
    } else {
      REQUIRE(r["formatDetail"].is_string());
      const std::string detail = r["formatDetail"];
      CHECK_FALSE(detail.empty());
      // A bounded excerpt of stderr: crash.sh writes 100 KB of it after "boom".
      CHECK(detail.size() < 4096);
      if (!c.detail.empty()) CHECK(detail.find(c.detail) != std::string::npos);
    }
    check_reply(p, root, path, r, before, model);
    // The server answers the next request, of the same file.
    CHECK(p.ok("read_text", {{"path", path}, {"limit", 1}})["content"] == "first line\n");
  }
  // The hanging formatter and the child holding its output were killed, and
  // reaped: neither is left, not even as a zombie.
  std::istringstream in(logs.read("pids"));
  std::vector<std::string> left;
  for (std::string pid; in >> pid;) left.push_back(pid);
  CHECK(left.size() == 2);
  for (int i = 0; i < 500 && !left.empty(); ++i) {
    std::erase_if(left, [](const std::string& pid) { return !fs::exists("/proc/" + pid); });
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(left.empty());
}

TEST_CASE("while a formatter hangs on one file, an edit of another file answers") {
  TempDir root;
  root.write("warm.txt", "w\n");
  auto p = spawn_editd(root, {"--format", "slow.txt=" + kFormatterScripts + "hang.sh",
                              "--format-timeout", "3"});
  // A connection runs its first request alone until a reply tells it how big
  // replies are (server/session/transport.h): one answered request first.
  p.ok("read_text", {{"path", "warm.txt"}});
  p.send({{"jsonrpc", "2.0"},
          {"id", "slow"},
          {"method", "write_text"},
          {"params", {{"path", "slow.txt"}, {"content", "b\n"}}}});
  p.send({{"jsonrpc", "2.0"},
          {"id", "fast"},
          {"method", "write_text"},
          {"params", {{"path", "fast.txt"}, {"content", "c\n"}}}});
  json first = p.read_message();
  CHECK(first["id"] == "fast");
  json slow = first["id"] == "slow" ? first : p.response_to("slow");
  INFO(slow.dump());
  REQUIRE(slow.contains("result"));
  CHECK(slow["result"]["formatStatus"] == "timeout");
  CHECK(root.read("slow.txt") == "b\n");
  CHECK(root.read("fast.txt") == "c\n");
}

TEST_CASE("black runs in the root, tuned by its pyproject.toml, and never the tree's black") {
  program_on_path("black");
  TempDir root, outside;
  root.write("pyproject.toml", "[tool.black]\nline-length = 40\n");
  // A black of the tree's, on a PATH the deployer gave: it would leave a mark.
  root.write("bin/black", "#!/bin/sh\ntouch " + (outside.path() / "ran").string() + "\ncat\n");
  fs::permissions(root.path() / "bin/black", fs::perms::owner_all);
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", (root.str() + "/bin:" + path).c_str(), 1);
  auto p = serve_formatting(root, "*.py=black -q -");
  p.reply_wait = kRealFormatterWait;
  ::setenv("PATH", path.c_str(), 1);
  root.write("a.py", "def f():\n    return 1\n");
  json r = p.ok("str_replace", {{"path", "a.py"},
                                {"oldText", "return 1"},
                                {"newText", "return some_function_name(argument_one, argument_two)"}});
  INFO(r.dump());
  REQUIRE(r["formatStatus"] == "ok");
  // 40 columns, not black's 88.
  CHECK(root.read("a.py") ==
        "def f():\n"
        "    return some_function_name(\n"
        "        argument_one, argument_two\n"
        "    )\n");
  CHECK(r["formatted"]["lines"] == json::array({line_range(2, 4)}));
  CHECK_FALSE(outside.exists("ran"));
}

TEST_CASE("prettier never runs the tree's code: a prettier.config.mjs or a plugin a .prettierrc names") {
  // prettier executes a JavaScript configuration file it finds (and imports the
  // plugins a configuration names): a cloned repository's configuration would
  // replace the formatter, not tune it. editd may refuse the command at start
  // or run prettier so that it loads neither; the tree's code must not run.
  const std::string prettier = prettier_bin();
  TempDir outside;
  const std::string marker = (outside.path() / "ran").string();
  const std::string code = "import fs from 'node:fs';\nfs.writeFileSync(" + json(marker).dump() +
                           ", 'ran');\n";
  struct Tree {
    const char* name;
    std::vector<std::pair<std::string, std::string>> files;
  };
  for (const Tree& tree :
       {Tree{"prettier.config.mjs", {{"prettier.config.mjs", code + "export default {};\n"}}},
        Tree{".prettierrc.json plugin",
             {{".prettierrc.json", "{\"plugins\": [\"./plugin.mjs\"]}\n"},
              {"plugin.mjs", code + "export const languages = [];\n"}}}}) {
    INFO(tree.name);
    TempDir root;
    for (const auto& [path, content] : tree.files) root.write(path, content);
    root.write("a.ts", "const a = 1;\n");
    // Whether editd takes the command: with no input, it serves and ends at once.
    const Run start = run_editd({"--root", root.str(), "--format",
                                 "*.ts=" + prettier + " --stdin-filepath {file}"});
    if (start.code == 2) {
      // Refused: the reason names prettier.
      CHECK(start.err.find("prettier") != std::string::npos);
    } else {
      CHECK(start.code == 0);
      auto p = serve_formatting(root, "*.ts=" + prettier + " --stdin-filepath {file}");
      p.reply_wait = kRealFormatterWait;
      json r = p.ok("str_replace",
                    {{"path", "a.ts"}, {"oldText", "const a = 1;"}, {"newText", "const  a=2"}});
      INFO(r.dump());
      CHECK(root.read("a.ts") != "const a = 1;\n");
    }
    CHECK_FALSE(outside.exists("ran"));
  }
}

TEST_CASE("a --format program the tree could provide, or a bad --format, is refused at start") {
  TempDir root;
  root.write("tools/fmt", "#!/bin/sh\ncat\n");
  fs::permissions(root.path() / "tools/fmt", fs::perms::owner_all);
  root.write("evil", "#!/bin/sh\ncat\n");
  fs::permissions(root.path() / "evil", fs::perms::owner_all);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"*.py=./evil", "relative path"},
      {"*.py=tools/fmt -", "relative path"},
      {"*.py=" + (root.path() / "tools/fmt").string(), "inside the root"},
      {"*.py={file}", "{file}"},
      {"*.py=sh -c 'black {file}'", "{file}"},
      {"no-equals-sign", "--format"}};
  for (const auto& [format, why] : refused) {
    INFO(format);
    auto r = run_editd({"--root", root.str(), "--format", format});
    CHECK(r.code == 2);
    CHECK(r.err.find("--format") != std::string::npos);
    CHECK(r.err.find(why) != std::string::npos);
  }
  auto r = run_editd({"--root", root.str(), "--format-timeout", "0"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--format-timeout") != std::string::npos);
}
