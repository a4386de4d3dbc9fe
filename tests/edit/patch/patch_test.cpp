#include "edit/patch/patch.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <tuple>

#include "edit/match/replace.h"
#include "edit/patch/seek.h"
#include "edit/text/chars.h"
#include "protocol/params.h"
#include "helpers/conformance.h"

using namespace editd;
using namespace editd::patch;

namespace {

using Tree = std::map<std::string, std::string>;
using Inputs = std::map<std::string, FileInput>;

Inputs inputs_of(const Tree& tree) {
  Inputs in;
  for (const auto& [path, bytes] : tree) in[path] = {FileInput::State::kFile, bytes};
  return in;
}

Patch parsed(std::string_view text) {
  auto p = parse(text, protocol::path_problem);
  if (!p) FAIL_CHECK(p.error().message);
  REQUIRE(p.has_value());
  return std::move(*p);
}

Error parse_failure(std::string_view text) {
  auto p = parse(text, protocol::path_problem);
  REQUIRE(p.has_error());
  CHECK(p.error().kind == ErrorKind::kPatchParse);
  return p.error();
}

Result<std::vector<FileOutcome>> run(std::string_view text, const Inputs& inputs) {
  auto p = parse(text, protocol::path_problem);
  if (!p) return p.error();
  return patch::apply(*p, inputs);
}

// Writes the outcomes into `tree` as the server would.
Tree written(Tree tree, const std::vector<FileOutcome>& outcomes) {
  for (const FileOutcome& o : outcomes) {
    if (o.moved_to) {
      tree.erase(o.path);
      tree[*o.moved_to] = *o.new_bytes;
    } else if (o.new_bytes) {
      tree[o.path] = *o.new_bytes;
    } else {
      tree.erase(o.path);
    }
  }
  return tree;
}

// The tree after `text`, which must apply.
Tree patched(std::string_view text, const Tree& tree) {
  auto out = run(text, inputs_of(tree));
  if (!out) FAIL_CHECK(out.error().message);
  REQUIRE(out.has_value());
  return written(tree, *out);
}

Error apply_failure(std::string_view text, const Inputs& inputs, ErrorKind kind) {
  auto out = run(text, inputs);
  REQUIRE(out.has_error());
  CHECK(out.error().kind == kind);
  return out.error();
}

std::string codex(std::string_view body) {
  return "*** Begin Patch\n" + std::string(body) + "*** End Patch\n";
}

}  // namespace

// ---------------------------------------------------------------------------
// Codex format: parsing

TEST_CASE("a Codex patch parses into its file operations in order") {
  Patch p =
      parsed(codex("*** Add File: path/add.py\n+abc\n+def\n"
                   "*** Delete File: path/delete.py\n"
                   "*** Update File: path/update.py\n*** Move to: path/update2.py\n"
                   "@@ def f():\n-    pass\n+    return 123\n"));
  CHECK(p.format == Format::kCodex);
  REQUIRE(p.files.size() == 3);
  CHECK(p.files[0].action == Action::kAdd);
  CHECK(p.files[0].content == "abc\ndef\n");
  CHECK(p.files[0].patch_line == 2);
  CHECK(p.files[1].action == Action::kDelete);
  CHECK(p.files[1].path == "path/delete.py");
  CHECK(p.files[2].action == Action::kMove);
  CHECK(p.files[2].path == "path/update.py");
  CHECK(p.files[2].move_to == "path/update2.py");
  REQUIRE(p.files[2].chunks.size() == 1);
  const Chunk& c = p.files[2].chunks[0];
  CHECK(c.anchor == "def f():");
  REQUIRE(c.lines.size() == 2);
  CHECK(c.lines[0].kind == ChunkLine::Kind::kRemoved);
  CHECK(c.lines[0].text == "    pass");
  CHECK(c.lines[1].kind == ChunkLine::Kind::kAdded);
  CHECK(touched_paths(p) == std::vector<std::string>{"path/add.py", "path/delete.py",
                                                     "path/update.py", "path/update2.py"});
}

TEST_CASE("touched paths list every source and destination once, in order of mention") {
  Patch p =
      parsed(codex("*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n"
                   "*** Update File: b\n@@\n-y\n+z\n"
                   "*** Add File: a\n+again\n"));
  CHECK(touched_paths(p) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("the first chunk of an update may omit its @@ line") {
  Patch p = parsed(codex("*** Update File: f\n import foo\n+bar\n"));
  REQUIRE(p.files[0].chunks.size() == 1);
  CHECK_FALSE(p.files[0].chunks[0].anchor);
  CHECK(p.files[0].chunks[0].lines.size() == 2);
}

TEST_CASE("an empty line inside a chunk is an empty context line") {
  Patch p = parsed(codex("*** Update File: f\n@@\n a\n\n-b\n"));
  const auto& lines = p.files[0].chunks[0].lines;
  REQUIRE(lines.size() == 3);
  CHECK(lines[1].kind == ChunkLine::Kind::kContext);
  CHECK(lines[1].text.empty());
}

TEST_CASE("whitespace around markers and headers, CRLF and blank lines are accepted") {
  Patch p = parsed(
      "\n  *** Begin Patch  \r\n"
      "   *** Update File:   f.txt  \r\n"
      "@@\r\n-one\r\n+two\r\n"
      "\r\n"
      "@@ \r\n-three\r\n+four\r\n"
      "*** End of File \t\r\n"
      "\n*** Add File: g.txt  \n+g\n"
      " *** End Patch \n\n");
  REQUIRE(p.files.size() == 2);
  CHECK(p.files[0].path == "f.txt");
  REQUIRE(p.files[0].chunks.size() == 2);
  CHECK_FALSE(p.files[0].chunks[1].anchor);
  CHECK(p.files[0].chunks[1].end_of_file);
  CHECK(p.files[0].chunks[0].lines[0].text == "one");
  CHECK(p.files[1].path == "g.txt");
}

TEST_CASE("a heredoc wrapper around the patch is stripped") {
  for (std::string open :
       {"<<'EOF'", "<<EOF", "<<\"EOF\"", "apply_patch <<'EOF'", "apply_patch <<\"PATCH\""}) {
    std::string delim = open.find("PATCH") != std::string::npos ? "PATCH" : "EOF";
    CAPTURE(open);
    Patch p = parsed(open + "\n" + codex("*** Add File: a\n+x\n") + delim + "\n");
    REQUIRE(p.files.size() == 1);
    CHECK(p.files[0].path == "a");
  }
  Error e = parse_failure("<<'EOF'\n" + codex("*** Add File: a\n+x\n") + "EOT\n");
  CHECK(e.data["line"] == 6);
  CHECK(e.data["expected"] == "the heredoc terminator 'EOF' as the last line");
}

TEST_CASE("a Markdown code fence around the patch is stripped") {
  Patch p = parsed("```\n" + codex("*** Add File: a\n+x\n") + "```\n");
  CHECK(p.files.size() == 1);
}

TEST_CASE("a unified hunk header in a Codex patch is read as a bare @@") {
  Patch p = parsed(codex("*** Update File: f\n@@ -3,2 +3,2 @@\n-a\n+b\n"));
  CHECK_FALSE(p.files[0].chunks[0].anchor);
}

TEST_CASE("Codex parse errors name the line and what was expected there") {
  SUBCASE("an empty text") {
    Error e = parse_failure("  \n\n");
    CHECK(e.data["line"] == 1);
  }
  SUBCASE("no Begin Patch") {
    Error e = parse_failure("hello\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n");
    CHECK(e.data["line"] == 1);
    CHECK(e.data["expected"] == "'*** Begin Patch' as the first line");
    CHECK(e.data["found"] == "hello");
    CHECK(e.message.find("line 1") != std::string::npos);
  }
  SUBCASE("neither format") {
    Error e = parse_failure("just some text\n");
    CHECK(e.data["line"] == 1);
    CHECK(e.data["expected"].get<std::string>().find("unified diff") != std::string::npos);
  }
  SUBCASE("no End Patch") {
    Error e = parse_failure("*** Begin Patch\n*** Add File: a\n+x\n");
    CHECK(e.data["line"] == 3);
    CHECK(e.data["expected"] == "'*** End Patch' as the last line");
  }
  SUBCASE("no file operation") {
    Error e = parse_failure("*** Begin Patch\n*** End Patch\n");
    CHECK(e.data["line"] == 2);
    CHECK(e.data["found"] == "*** End Patch");
  }
  SUBCASE("an unknown header") {
    Error e = parse_failure(codex("*** Add File: a\n+x\n*** Frobnicate File: foo\n"));
    CHECK(e.data["line"] == 4);
    CHECK(e.data["found"] == "*** Frobnicate File: foo");
    CHECK(e.data["expected"].get<std::string>().find("*** Update File: <path>") !=
          std::string::npos);
    CHECK(e.message.find("'*** Frobnicate File: foo'") != std::string::npos);
  }
  SUBCASE("an update without chunks") {
    Error e = parse_failure(codex("*** Update File: foo.txt\n"));
    CHECK(e.data["line"] == 3);
    CHECK(e.data["expected"].get<std::string>().find("a chunk for 'foo.txt'") == 0);
  }
  SUBCASE("a header without a path") {
    Error e = parse_failure(codex("*** Delete File:   \n"));
    CHECK(e.data["line"] == 2);
    CHECK(e.data["expected"] == "a path after '*** Delete File: '");
  }
  SUBCASE("a chunk line without a prefix") {
    Error e = parse_failure(codex("*** Update File: f\n@@\n-a\n+b\nc\n"));
    CHECK(e.data["line"] == 6);
    CHECK(e.data["found"] == "c");
  }
  SUBCASE("an @@ line with nothing under it") {
    Error e = parse_failure(codex("*** Update File: f\n@@\n@@\n-a\n"));
    CHECK(e.data["line"] == 4);
  }
  SUBCASE("End of File with nothing before it") {
    Error e = parse_failure(codex("*** Update File: f\n@@\n*** End of File\n"));
    CHECK(e.data["line"] == 4);
  }
  SUBCASE("text after End Patch") {
    Error e = parse_failure(codex("*** Add File: a\n+x\n") + "trailing\n");
    CHECK(e.data["line"] == 5);
  }
}

// Codex reads an indented header inside a chunk as a context line (and then
// refuses the patch, unless the file has that line); taking it for a header
// would split the chunk. editd refuses it as patch_parse at its line.
TEST_CASE("a file header or marker indented inside a chunk is refused at its line") {
  struct Case {
    const char* name;
    std::string body;
    std::size_t line;  // in the whole patch
    std::string found;
  };
  const std::vector<Case> cases = {
      {"Python: Update File after a chunk",
       "*** Update File: app.py\n@@ def main():\n-    run()\n+    run(fast=True)\n"
       "  *** Update File: lib.py\n@@\n-x = 1\n+x = 2\n",
       6, "  *** Update File: lib.py"},
      {"TypeScript: Add File after a blank line in a chunk",
       "*** Update File: src/app.ts\n@@\n-const a = 1;\n+const a = 2;\n\n"
       " *** Add File: src/new.ts\n+export {};\n",
       7, " *** Add File: src/new.ts"},
      {"Go: Delete File with a tab",
       "*** Update File: main.go\n@@ func main() {\n-\tfmt.Println(1)\n+\tfmt.Println(2)\n"
       "\t*** Delete File: old.go\n",
       6, "\t*** Delete File: old.go"},
      {"Rust: End of File indented",
       "*** Update File: src/lib.rs\n@@\n-pub fn f() {}\n+pub fn f() -> u8 { 0 }\n"
       "    *** End of File\n",
       6, "    *** End of File"},
      {"C: Move to indented after a chunk",
       "*** Update File: a.c\n@@\n-int x;\n+long x;\n  *** Move to: b.c\n", 6,
       "  *** Move to: b.c"},
      {"YAML: End Patch indented in the middle",
       "*** Update File: ci.yml\n@@\n-on: push\n+on: [push, pull_request]\n  *** End Patch\n"
       "*** Add File: x.yml\n+a: 1\n",
       6, "  *** End Patch"},
      {"Markdown: a header after End of File, indented",
       "*** Update File: README.md\n@@\n-# Title\n+# New title\n*** End of File\n"
       "  *** Update File: CHANGES.md\n@@\n-old\n+new\n",
       7, "  *** Update File: CHANGES.md"},
      {"JSON: the first chunk's first line",
       "*** Update File: package.json\n  *** Update File: tsconfig.json\n@@\n-{}\n+{ }\n", 3,
       "  *** Update File: tsconfig.json"},
      {"Makefile: Begin Patch indented in a chunk",
       "*** Update File: Makefile\n@@ all:\n-\tcc -o app app.c\n+\tcc -O2 -o app app.c\n"
       " *** Begin Patch\n",
       6, " *** Begin Patch"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    Error e = parse_failure(codex(c.body));
    CHECK(e.data["line"] == c.line);
    CHECK(e.data["found"] == c.found);
    CHECK(e.message.find("line " + std::to_string(c.line)) != std::string::npos);
    CHECK(e.message.find("indented inside a chunk") != std::string::npos);
    CHECK(e.data["expected"].get<std::string>().find("at the start of its line") !=
          std::string::npos);
  }
}

TEST_CASE("indented headers between file operations are accepted, as in Codex") {
  // (An indented `*** Move to:` and spaces after `*** End of File` are editd's
  // own leniencies.)
  Patch p = parsed(codex(
      "  *** Add File: notes.md\n+# Notes\n\t*** Update File: app.py\n   *** Move to: main.py\n"
      "@@\n-a\n+b\n*** End of File  \n\n*** Delete File: old.txt\n   *** Update File: c.go\n"
      "@@\n-x\n+y\n"));
  REQUIRE(p.files.size() == 4);
  CHECK(p.files[0].action == Action::kAdd);
  CHECK(p.files[1].action == Action::kMove);
  CHECK(*p.files[1].move_to == "main.py");
  CHECK(p.files[1].chunks[0].end_of_file);
  CHECK(p.files[2].action == Action::kDelete);
  CHECK(p.files[3].path == "c.go");
  // A context line that only looks like a comment banner stays a context line.
  Patch c = parsed(codex("*** Update File: a.c\n@@\n /*\n  *** WARNING ***\n- */\n+ **/\n"));
  CHECK(c.files[0].chunks[0].lines[1].text == " *** WARNING ***");
}

TEST_CASE("a header or marker without its exact spelling is refused with the right form") {
  struct Case {
    std::string body;
    std::size_t line;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"*** Update File foo.py\n@@\n-a\n+b\n", 2, "'*** Update File: <path>'"},
      {"*** Add File: a.ts\n+x\n*** add file: b.ts\n+y\n", 4, "'*** Add File: <path>'"},
      {"***Delete File: main.go\n", 2, "'*** Delete File: <path>'"},
      {"*** Update File: lib.rs\n@@\n-a\n+b\n** Update File: mod.rs\n@@\n-c\n+d\n", 6,
       "'*** Update File: <path>'"},
      {"*** Update File: a.yml\n@@\n-a: 1\n+a: 2\n*** End of file\n", 6, "'*** End of File'"},
      {"*** Update File: Makefile\n*** Move to Makefile.old\n@@\n-all:\n+all: app\n", 3,
       "'*** Move to: <path>'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.body);
    Error e = parse_failure(codex(c.body));
    CHECK(e.data["line"] == c.line);
    CHECK(e.data["expected"] == c.expected);
    CHECK(e.message.find("spelled exactly") != std::string::npos);
  }
  SUBCASE("an unknown header keeps the list of headers") {
    Error e = parse_failure(codex("*** Frobnicate: x\n"));
    CHECK(e.data["line"] == 2);
    CHECK(e.data["expected"].get<std::string>().find("*** Update File: <path>") !=
          std::string::npos);
  }
  SUBCASE("a marker in the wrong place says where it goes") {
    Error e = parse_failure(codex("*** Add File: a.md\n+x\n*** Move to: b.md\n"));
    CHECK(e.data["line"] == 4);
    CHECK(e.message.find("right after its '*** Update File: <path>' line") != std::string::npos);
    Error end =
        parse_failure(codex("*** Add File: a.json\n+{}\n*** End Patch\n*** Add File: b\n+\n"));
    CHECK(end.data["line"] == 4);
    CHECK(end.message.find("only the patch's last line") != std::string::npos);
  }
}

// ---------------------------------------------------------------------------
// Codex format: applying

TEST_CASE("Add writes each + line with a newline, and replacing a file is reported") {
  // (The outcomes view the inputs' bytes: the inputs outlive them.)
  const Inputs inputs = inputs_of({{"old.txt", "previous\n"}});
  auto out =
      run(codex("*** Add File: new.txt\n+one\n+\n+three\n*** Add File: old.txt\n+x\n"), inputs);
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].action == Action::kAdd);
  CHECK((*out)[0].new_bytes == "one\n\nthree\n");
  CHECK_FALSE((*out)[0].old_bytes);
  CHECK_FALSE((*out)[0].overwritten);
  CHECK((*out)[0].added == 3);
  CHECK((*out)[1].overwritten);
  CHECK((*out)[1].old_bytes == "previous\n");
  CHECK((*out)[1].added == 1);
  CHECK((*out)[1].removed == 1);
}

TEST_CASE("an @@ context line narrows the search to the lines after it") {
  Tree t = {{"f.py", "def a():\n    return 1\n\ndef b():\n    return 1\n"}};
  Tree r = patched(codex("*** Update File: f.py\n@@ def b():\n-    return 1\n+    return 2\n"), t);
  CHECK(r["f.py"] == "def a():\n    return 1\n\ndef b():\n    return 2\n");
}

TEST_CASE("the @@ context line may also be the chunk's first line") {
  Tree t = {{"f.py", "x = 1\ndef b():\n    pass\n"}};
  Tree r = patched(
      codex("*** Update File: f.py\n@@ def b():\n def b():\n-    pass\n+    return 2\n"), t);
  CHECK(r["f.py"] == "x = 1\ndef b():\n    return 2\n");
}

TEST_CASE("chunks are found in order, each after the previous one") {
  Tree t = {{"f", "x\ny\nx\ny\n"}};
  Tree r = patched(codex("*** Update File: f\n@@\n-x\n+X1\n@@\n-x\n+X2\n"), t);
  CHECK(r["f"] == "X1\ny\nX2\ny\n");
}

TEST_CASE("End of File anchors a chunk to the end of the file") {
  Tree t = {{"f", "end\nmiddle\nend\n"}};
  Tree r = patched(codex("*** Update File: f\n@@\n-end\n+END\n*** End of File\n"), t);
  CHECK(r["f"] == "end\nmiddle\nEND\n");
}

TEST_CASE("a pure addition appends at the end, or after its @@ context line") {
  Tree t = {{"f", "class A:\n    pass\nclass B:\n    pass\n"}};
  Tree end = patched(codex("*** Update File: f\n@@\n+tail\n"), t);
  CHECK(end["f"] == "class A:\n    pass\nclass B:\n    pass\ntail\n");
  Tree after = patched(codex("*** Update File: f\n@@ class A:\n+    x = 1\n"), t);
  CHECK(after["f"] == "class A:\n    x = 1\n    pass\nclass B:\n    pass\n");
}

TEST_CASE("matching forgives whitespace and typographic punctuation, in that order") {
  SUBCASE("trailing whitespace") {
    Tree r = patched(codex("*** Update File: f\n@@\n a\n-b\n+B\n"), {{"f", "a  \nb\t\n"}});
    CHECK(r["f"] == "a  \nB\n");  // the context line keeps the file's own bytes
  }
  SUBCASE("indentation") {
    Tree r = patched(codex("*** Update File: f\n@@\n a\n-b\n+B\n"), {{"f", "    a\n  b\n"}});
    CHECK(r["f"] == "    a\nB\n");
  }
  SUBCASE("dashes, quotes and non-breaking spaces") {
    Tree r = patched(codex("*** Update File: f\n@@\n-say \"hi\" - 'now'\n+done\n"),
                     {{"f", "say \u201Chi\u201D\u00A0\u2014 \u2018now\u2019\n"}});
    CHECK(r["f"] == "done\n");
  }
  SUBCASE("an exact match later wins over a loose one earlier") {
    Tree r = patched(codex("*** Update File: f\n@@\n-a\n+A\n"), {{"f", " a\na\n"}});
    CHECK(r["f"] == " a\nA\n");
  }
}

// One folding table and one rule (edit/text/chars.h) for str_replace's unicode tier and
// apply_patch's fold tier: for every pair of a file line and a model's line,
// both find it or both do not.
TEST_CASE("apply_patch folds exactly what str_replace's unicode tier folds, by the same rule") {
  struct Pair {
    const char* language;
    std::string file_line;
    std::string model_line;
    bool folds;  // long enough and equal once folded
  };
  const std::vector<Pair> pairs = {
      {"Python", "print(\u201Chello, world\u201D)", "print(\"hello, world\")", true},
      {"TypeScript", "const s = \u2018it\u2019s\u2019;", "const s = 'it's';", true},
      {"Go", "x := a \u2212 b\u00A0// diff", "x := a - b // diff", true},
      {"Rust", "// wait\u2026 done", "// wait... done", true},
      {"C", "int\u2002count\u200B = 1;", "int count = 1;", true},
      {"YAML", "title: \u201CA\u2014B\u201D", "title: \"A-B\"", true},
      {"Markdown", "\u2014", "-", false},                       // 1 character: too short
      {"JSON", "\"k\": \u201Cv\u201D", "\"k\": \"v\"", false},  // 7 characters
      {"Makefile", "\t@echo \u201Cdone\u201D", "\t@echo \"done\"", true},
      {"not folded", "a \u2192 b and more", "a -> b and more", false},
  };
  for (const Pair& p : pairs) {
    CAPTURE(std::string(p.language));
    const std::string file = "before\n" + p.file_line + "\nafter\n";
    match::Request request;
    request.text = file;
    request.old_text = p.model_line;
    request.new_text = "REPLACED";
    auto plan = match::plan_replace(request);
    CHECK(plan.has_value() == p.folds);
    if (plan) CHECK(plan->tier == "unicode");
    auto out = run(codex("*** Update File: f\n@@\n-" + p.model_line + "\n+REPLACED\n"),
                   inputs_of({{"f", file}}));
    CHECK(out.has_value() == p.folds);
    if (out) CHECK(*(*out)[0].new_bytes == "before\nREPLACED\nafter\n");
    if (!out) CHECK(out.error().kind == ErrorKind::kPatchApply);
    auto unified = run("--- a/f\n+++ b/f\n@@ -2 +2 @@\n-" + p.model_line + "\n+REPLACED\n",
                       inputs_of({{"f", file}}));
    CHECK(unified.has_value() == p.folds);
  }
  // The rule counts the whole pattern: a short line folds inside a longer chunk.
  Tree r = patched(codex("*** Update File: f\n@@\n before it\n-\u2014\n+X\n"),
                   {{"f", "before it\n-\nafter\n"}});
  CHECK(r["f"] == "before it\nX\nafter\n");
  CHECK_FALSE(seek::forward({"\u2014"}, {"-"}, 0, false));
  CHECK(seek::forward({"\u201Chello, world\u201D"}, {"\"hello, world\""}, 0, false)->tier ==
        match::TierId::kUnicode);
}

TEST_CASE("a trailing empty context line is dropped when it keeps a chunk from matching") {
  Tree r = patched(codex("*** Update File: f\n@@\n-last\n+LAST\n\n"), {{"f", "first\nlast\n"}});
  CHECK(r["f"] == "first\nLAST\n");
}

TEST_CASE("a CRLF file keeps CRLF endings and added lines take them") {
  Tree r = patched(codex("*** Update File: f\n@@\n a\n-b\n+B\n+C\n"), {{"f", "a\r\nb\r\nc\r\n"}});
  CHECK(r["f"] == "a\r\nB\r\nC\r\nc\r\n");
}

TEST_CASE("mixed endings: kept lines keep their own, new lines take the dominant one") {
  Tree r = patched(codex("*** Update File: f\n@@\n x\n+new\n y\n"), {{"f", "x\r\ny\nz\r\nw\r\n"}});
  CHECK(r["f"] == "x\r\nnew\r\ny\nz\r\nw\r\n");
}

TEST_CASE("a BOM and the absence of a final newline survive an update") {
  Tree r = patched(codex("*** Update File: f\n@@\n-b\n+B\n"), {{"f",
                                                                "\xEF\xBB\xBF"
                                                                "a\nb"}});
  CHECK(r["f"] ==
        "\xEF\xBB\xBF"
        "a\nB");
}

TEST_CASE("non-ASCII text is matched and written byte for byte") {
  Tree r = patched(codex("*** Update File: f\n@@\n-naïve café\n+naïve café ✅\n"),
                   {{"f", "line1\nnaïve café\n"}});
  CHECK(r["f"] == "line1\nnaïve café ✅\n");
}

TEST_CASE("removing every line leaves an empty file") {
  Tree r = patched(codex("*** Update File: f\n@@\n-a\n-b\n"), {{"f", "a\nb\n"}});
  CHECK(r["f"] == "");
}

TEST_CASE("a move writes the destination and removes the source") {
  const Inputs inputs = inputs_of({{"old/a.txt", "x\n"}});
  auto out = run(codex("*** Update File: old/a.txt\n*** Move to: new/a.txt\n@@\n-x\n+y\n"), inputs);
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  const FileOutcome& o = (*out)[0];
  CHECK(o.action == Action::kMove);
  CHECK(o.path == "old/a.txt");
  CHECK(o.moved_to == "new/a.txt");
  CHECK(o.old_bytes == "x\n");
  CHECK(o.new_bytes == "y\n");
  CHECK_FALSE(o.overwritten);
  CHECK(o.added == 1);
  CHECK(o.removed == 1);
}

TEST_CASE("a move onto an existing file replaces it") {
  auto out = run(codex("*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n"),
                 inputs_of({{"a", "x\n"}, {"b", "old b\n"}}));
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  CHECK((*out)[0].action == Action::kMove);
  CHECK((*out)[0].overwritten);
  CHECK(written({{"a", "x\n"}, {"b", "old b\n"}}, *out) == Tree{{"b", "y\n"}});
}

TEST_CASE("a move onto its own path is an update, not a deletion") {
  auto out =
      run(codex("*** Update File: a\n*** Move to: a\n@@\n-x\n+y\n"), inputs_of({{"a", "x\n"}}));
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  CHECK((*out)[0].action == Action::kUpdate);
  CHECK((*out)[0].new_bytes == "y\n");
  CHECK_FALSE((*out)[0].moved_to);
}

TEST_CASE("a file touched several times yields its final state once") {
  SUBCASE("two updates") {
    auto out = run(codex("*** Update File: a\n@@\n-1\n+2\n*** Update File: a\n@@\n-2\n+3\n"),
                   inputs_of({{"a", "1\n"}}));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    CHECK((*out)[0].action == Action::kUpdate);
    CHECK((*out)[0].new_bytes == "3\n");
  }
  SUBCASE("a move, then an update of the destination") {
    auto out = run(codex("*** Update File: a\n*** Move to: b\n@@\n-1\n+2\n"
                         "*** Update File: b\n@@\n-2\n+3\n"),
                   inputs_of({{"a", "1\n"}}));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    CHECK((*out)[0].action == Action::kMove);
    CHECK((*out)[0].moved_to == "b");
    CHECK((*out)[0].new_bytes == "3\n");
  }
  SUBCASE("an add, then a delete") {
    auto out = run(codex("*** Add File: a\n+x\n*** Delete File: a\n"), {});
    REQUIRE(out.has_value());
    CHECK(out->empty());
  }
  SUBCASE("a delete, then an add") {
    auto out = run(codex("*** Delete File: a\n*** Add File: a\n+new\n"), inputs_of({{"a", "x\n"}}));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    CHECK((*out)[0].action == Action::kAdd);
    CHECK((*out)[0].overwritten);
  }
  SUBCASE("a swap through a temporary name") {
    Tree t = {{"a", "A\n"}, {"b", "B\n"}};
    auto out = run(codex("*** Update File: a\n*** Move to: tmp\n@@\n A\n"
                         "*** Update File: b\n*** Move to: a\n@@\n B\n"
                         "*** Update File: tmp\n*** Move to: b\n@@\n A\n"),
                   inputs_of(t));
    REQUIRE(out.has_value());
    CHECK(written(t, *out) == Tree{{"a", "B\n"}, {"b", "A\n"}});
  }
}

TEST_CASE("outcomes come in patch order") {
  auto out = run(codex("*** Add File: z\n+z\n*** Delete File: m\n*** Update File: a\n@@\n-a\n+b\n"),
                 inputs_of({{"m", "m\n"}, {"a", "a\n"}}));
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 3);
  CHECK((*out)[0].path == "z");
  CHECK((*out)[1].path == "m");
  CHECK((*out)[1].action == Action::kDelete);
  CHECK_FALSE((*out)[1].new_bytes);
  CHECK((*out)[1].removed == 1);
  CHECK((*out)[2].path == "a");
}

TEST_CASE("Codex apply errors say which file, which hunk and what was not found") {
  SUBCASE("a delete of a missing file") {
    Error e = apply_failure(codex("*** Delete File: gone.txt\n"), {}, ErrorKind::kNotFound);
    CHECK(e.data["path"] == "gone.txt");
  }
  SUBCASE("an update of a missing file") {
    Error e =
        apply_failure(codex("*** Update File: gone.txt\n@@\n-a\n+b\n"), {}, ErrorKind::kNotFound);
    CHECK(e.data["path"] == "gone.txt");
  }
  SUBCASE("a delete of a directory") {
    Error e = apply_failure(codex("*** Delete File: dir\n"),
                            {{"dir", {FileInput::State::kDirectory, ""}}}, ErrorKind::kIsDirectory);
    CHECK(e.data["path"] == "dir");
  }
  SUBCASE("a move onto a directory") {
    Inputs in = inputs_of({{"a", "x\n"}});
    in["d"] = {FileInput::State::kDirectory, ""};
    Error e = apply_failure(codex("*** Update File: a\n*** Move to: d\n@@\n-x\n+y\n"), in,
                            ErrorKind::kIsDirectory);
    CHECK(e.data["path"] == "d");
  }
  SUBCASE("an update of a binary file") {
    Error e = apply_failure(codex("*** Update File: bin\n@@\n-a\n+b\n"),
                            inputs_of({{"bin", std::string("a\0b\n", 4)}}), ErrorKind::kNotText);
    CHECK(e.data["path"] == "bin");
  }
  SUBCASE("lines that are not in the file") {
    Error e =
        apply_failure(codex("*** Update File: f\n@@\n-line1\n+x\n@@\n alpha\n-betta\n+b\n"),
                      inputs_of({{"f", "line1\nalpha\nbeta\ngamma\n"}}), ErrorKind::kPatchApply);
    CHECK(e.data["path"] == "f");
    CHECK(e.data["hunk"] == 2);
    CHECK(e.data["patchLine"] == 6);
    CHECK(e.data["context"] == "alpha\nbetta");
    CHECK(e.data["fromLine"] == 2);
    REQUIRE(e.data.contains("closest"));
    CHECK(e.data["closest"]["startLine"] == 2);
    CHECK(e.data["closest"]["endLine"] == 3);
    CHECK(e.data["closest"]["text"] == "alpha\nbeta");
    CHECK(e.message.find("hunk 2 of 'f'") != std::string::npos);
  }
  SUBCASE("an @@ context line that is not in the file") {
    Error e = apply_failure(codex("*** Update File: f\n@@ def nope():\n-a\n+b\n"),
                            inputs_of({{"f", "a\n"}}), ErrorKind::kPatchApply);
    CHECK(e.data["hunk"] == 1);
    CHECK(e.data["context"] == "def nope():");
  }
  SUBCASE("a chunk that comes before the previous one") {
    Error e = apply_failure(codex("*** Update File: f\n@@\n-b\n+B\n@@\n-a\n+A\n"),
                            inputs_of({{"f", "a\nb\n"}}), ErrorKind::kPatchApply);
    CHECK(e.data["hunk"] == 2);
  }
  SUBCASE("an error anywhere means no outcome at all") {
    auto out = run(codex("*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n"
                         "@@\n-old\n+new\n"),
                   {});
    CHECK(out.has_error());
  }
}

// ---------------------------------------------------------------------------
// Unified diffs

TEST_CASE("a git diff with modified, new, deleted and renamed files parses") {
  Patch p = parsed(
      "diff --git a/src/mod.c b/src/mod.c\n"
      "index 1234567..89abcde 100644\n"
      "--- a/src/mod.c\n"
      "+++ b/src/mod.c\n"
      "@@ -1,3 +1,3 @@ int main()\n"
      " a\n-b\n+B\n c\n"
      "diff --git a/new.txt b/new.txt\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n"
      "--- /dev/null\n"
      "+++ b/new.txt\n"
      "@@ -0,0 +1,2 @@\n+one\n+two\n"
      "diff --git a/gone.txt b/gone.txt\n"
      "deleted file mode 100644\n"
      "--- a/gone.txt\n"
      "+++ /dev/null\n"
      "@@ -1 +0,0 @@\n-bye\n"
      "diff --git a/old name.txt b/new name.txt\n"
      "similarity index 90%\n"
      "rename from old name.txt\n"
      "rename to new name.txt\n"
      "--- a/old name.txt\t\n"
      "+++ b/new name.txt\t\n"
      "@@ -1 +1 @@\n-x\n+y\n"
      "diff --git a/same.txt b/moved.txt\n"
      "similarity index 100%\n"
      "rename from same.txt\n"
      "rename to moved.txt\n"
      "diff --git a/empty.txt b/empty.txt\n"
      "new file mode 100644\n"
      "index 0000000..e69de29\n"
      "diff --git a/script.sh b/script.sh\n"
      "old mode 100644\n"
      "new mode 100755\n");
  CHECK(p.format == Format::kUnified);
  REQUIRE(p.files.size() == 7);
  CHECK(p.files[0].action == Action::kUpdate);
  CHECK(p.files[0].path == "src/mod.c");
  CHECK(p.files[0].chunks[0].old_start == 1);
  CHECK(p.files[0].chunks[0].old_count == 3);
  CHECK(p.files[1].action == Action::kAdd);
  CHECK(p.files[1].path == "new.txt");
  CHECK(p.files[1].content == "one\ntwo\n");
  CHECK(p.files[2].action == Action::kDelete);
  CHECK(p.files[2].path == "gone.txt");
  CHECK(p.files[3].action == Action::kMove);
  CHECK(p.files[3].path == "old name.txt");
  CHECK(p.files[3].move_to == "new name.txt");
  CHECK(p.files[4].action == Action::kMove);
  CHECK(p.files[4].chunks.empty());
  CHECK(p.files[5].action == Action::kAdd);
  CHECK(p.files[5].path == "empty.txt");
  CHECK(p.files[5].content.empty());
  // A mode-only entry: an Update without chunks that makes the file executable.
  CHECK(p.files[6].action == Action::kUpdate);
  CHECK(p.files[6].path == "script.sh");
  CHECK(p.files[6].chunks.empty());
  CHECK(p.files[6].executable == true);
}

TEST_CASE("a git diff applies to every file it names") {
  Tree t = {
      {"src/mod.c", "a\nb\nc\n"}, {"gone.txt", "bye\n"}, {"same.txt", "s\n"}, {"keep.txt", "k\n"}};
  Tree r = patched(
      "diff --git a/src/mod.c b/src/mod.c\n--- a/src/mod.c\n+++ b/src/mod.c\n"
      "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
      "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n"
      "@@ -0,0 +1 @@\n+fresh\n"
      "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n"
      "+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
      "diff --git a/same.txt b/moved.txt\nsimilarity index 100%\nrename from same.txt\n"
      "rename to moved.txt\n",
      t);
  CHECK(r == Tree{{"src/mod.c", "a\nB\nc\n"},
                  {"new.txt", "fresh\n"},
                  {"moved.txt", "s\n"},
                  {"keep.txt", "k\n"}});
}

TEST_CASE("diff -u output with timestamps and without a/ b/ prefixes applies") {
  Tree r = patched(
      "--- hello.c\t2024-01-01 10:00:00.000000000 +0100\n"
      "+++ hello.c\t2024-01-02 10:00:00.000000000 +0100\n"
      "@@ -1,2 +1,2 @@\n-hi\n+hello\n world\n",
      {{"hello.c", "hi\nworld\n"}});
  CHECK(r["hello.c"] == "hello\nworld\n");
}

TEST_CASE("without a git header, differing names update the +++ file") {
  Patch p = parsed("--- f.c.orig\n+++ f.c\n@@ -1 +1 @@\n-a\n+b\n");
  CHECK(p.files[0].action == Action::kUpdate);
  CHECK(p.files[0].path == "f.c");
}

TEST_CASE("prose with << before a unified diff is not taken for a heredoc") {
  Patch p = parsed("Fix operator<< in foo\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n");
  CHECK(p.files.size() == 1);
}

TEST_CASE("prose around a unified diff is skipped") {
  Patch p = parsed(
      "Here is the fix:\n\nIndex: f\n=====\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
      "-- \n2.39.0\n");
  REQUIRE(p.files.size() == 1);
  CHECK(p.files[0].chunks[0].lines.size() == 2);
}

TEST_CASE("quoted git paths are unquoted") {
  Patch p = parsed(
      "diff --git \"a/t\\303\\244st.txt\" \"b/t\\303\\244st.txt\"\n"
      "--- \"a/t\\303\\244st.txt\"\n+++ \"b/t\\303\\244st.txt\"\n@@ -1 +1 @@\n-a\n+b\n");
  CHECK(p.files[0].path == "täst.txt");
}

TEST_CASE("hunks are found near their line numbers when the numbers are off") {
  std::string file;
  for (int i = 1; i <= 30; ++i) file += "line " + std::to_string(i) + "\n";
  SUBCASE("the file grew above the hunk") {
    Tree r = patched("--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n line 9\n-line 10\n+TEN\n line 11\n",
                     {{"f", file}});
    CHECK(r["f"].find("line 9\nTEN\nline 11\n") != std::string::npos);
  }
  SUBCASE("the file shrank above the hunk") {
    Tree r = patched("--- a/f\n+++ b/f\n@@ -25,1 +25,1 @@\n-line 20\n+TWENTY\n", {{"f", file}});
    CHECK(r["f"].find("line 19\nTWENTY\nline 21\n") != std::string::npos);
  }
  SUBCASE("of two equal places, the one nearer the hint wins") {
    Tree r = patched("--- a/f\n+++ b/f\n@@ -8,1 +8,1 @@\n-x\n+X\n",
                     {{"f", "x\n1\n2\n3\n4\n5\n6\n7\nx\n9\n"}});
    CHECK(r["f"] == "x\n1\n2\n3\n4\n5\n6\n7\nX\n9\n");
  }
  SUBCASE("the offset of one hunk carries to the next") {
    Tree r =
        patched("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-line 3\n+THREE\n@@ -4,0 +5,1 @@\n+inserted\n",
                {{"f", file}});
    CHECK(r["f"].find("line 6\ninserted\nline 7\n") != std::string::npos);
  }
}

TEST_CASE("the nearest search tries both directions outward from the hint") {
  seek::Lines lines = {"x", "a", "x", "b", "x"};
  seek::Lines pattern = {"x"};
  CHECK(seek::nearest(lines, pattern, 0, 1)->index == 2);  // after before before
  CHECK(seek::nearest(lines, pattern, 0, 3)->index == 4);
  CHECK(seek::nearest(lines, pattern, 3, 0)->index == 4);
  CHECK_FALSE(seek::nearest(lines, {"y"}, 0, 2));
  CHECK(seek::forward(lines, pattern, 1, false)->index == 2);
  CHECK(seek::forward(lines, pattern, 0, true)->index == 4);
  CHECK(seek::fold("\u00A0\u201Cq\u201D \u2013 \u2019s ") == "\"q\" - 's");
}

TEST_CASE("seek: searches through a file's shared table find what a linear search finds") {
  // A file over 2 x kLocalLines lines from a small vocabulary (lines repeat),
  // with the drift the tiers forgive; many searches through one Index, so that
  // it soon uses its table; each compared with a fresh Index's linear search.
  std::mt19937_64 rng(20261126);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<std::string> store;
  const std::size_t n = 3 * seek::kLocalLines;
  for (std::size_t i = 0; i < n; ++i) {
    std::string line = "v" + std::to_string(pick(i % 7 == 0 ? 4000 : 300));
    if (pick(5) == 0) line = "    " + line;
    if (pick(6) == 0) line += " = \u201Cq\u201D";
    if (pick(9) == 0) line += "  ";
    store.push_back(line);
  }
  const seek::Lines lines(store.begin(), store.end());
  seek::Index shared(lines);
  std::size_t table_queries = 0, hits = 0;
  for (int q = 0; q < 1500; ++q) {
    const std::size_t k = 1 + pick(4), at = pick(n - k);
    std::vector<std::string> pattern_store;
    for (std::size_t i = 0; i < k; ++i) {
      std::string l = store[at + i];
      switch (pick(6)) {
        case 0:
          l = std::string(chars::trim(l));
          break;
        case 1:
          l += "\t";
          break;
        case 2:
          l = seek::fold(l) + " ";
          break;
        case 3:
          if (pick(8) == 0) l += "x";
          break;  // no longer in the file, mostly
        default:
          break;
      }
      pattern_store.push_back(l);
    }
    const seek::Lines pattern(pattern_store.begin(), pattern_store.end());
    const std::size_t from = pick(n), hint = pick(n);
    const bool eof = pick(10) == 0;
    table_queries += shared.table_pays();
    auto want_f = seek::forward(lines, pattern, from, eof);
    auto got_f = seek::forward(shared, pattern, from, eof);
    REQUIRE(want_f.has_value() == got_f.has_value());
    if (want_f) {
      ++hits;
      CHECK(want_f->index == got_f->index);
      CHECK(want_f->tier == got_f->tier);
    }
    auto want_n = seek::nearest(lines, pattern, from, hint);
    auto got_n = seek::nearest(shared, pattern, from, hint);
    REQUIRE(want_n.has_value() == got_n.has_value());
    if (want_n) {
      CHECK(want_n->index == got_n->index);
      CHECK(want_n->tier == got_n->tier);
    }
  }
  CHECK(table_queries > 1000);  // the table was what most searches used
  CHECK(hits > 300);
}

TEST_CASE("seek: the table's edges: a window just past the local scan, and ties in distance") {
  const std::size_t n = 3 * seek::kLocalLines;
  auto file_with = [&](std::initializer_list<std::size_t> at) {
    std::vector<std::string> store;
    for (std::size_t i = 0; i < n; ++i) store.push_back("filler " + std::to_string(i % 50));
    for (std::size_t a : at) {
      store[a] = "needle a";
      store[a + 1] = "needle b";
    }
    return store;
  };
  const seek::Lines pattern = {"needle a", "needle b"};
  auto warmed = [](seek::Index& index) {
    while (!index.table_pays()) CHECK_FALSE(seek::forward(index, {"absent"}, 0, false));
  };
  SUBCASE("forward: the first window past the scanned lines") {
    const std::size_t from = 10;
    for (std::size_t at :
         {from + seek::kLocalLines, from + seek::kLocalLines + 1, from + seek::kLocalLines + 2}) {
      const std::vector<std::string> store = file_with({at});
      const seek::Lines lines(store.begin(), store.end());
      seek::Index index(lines);
      warmed(index);
      auto hit = seek::forward(index, pattern, from, false);
      REQUIRE(hit);
      CHECK(hit->index == at);
      CHECK_FALSE(seek::forward(index, pattern, at + 1, false));
    }
  }
  SUBCASE("nearest: after before before at equal distance, past the scanned lines") {
    const std::size_t hint = 6000, d = seek::kLocalLines + 400;
    for (auto [up, down, want] :
         {std::tuple{hint + d, hint - d, hint + d}, std::tuple{hint + d + 1, hint - d, hint - d},
          std::tuple{hint + d, hint - d - 1, hint + d}}) {
      const std::vector<std::string> store = file_with({up, down});
      const seek::Lines lines(store.begin(), store.end());
      seek::Index index(lines);
      warmed(index);
      auto hit = seek::nearest(index, pattern, 0, hint);
      REQUIRE(hit);
      CHECK(hit->index == want);
      CHECK(seek::nearest(lines, pattern, 0, hint)->index == want);
    }
  }
}

TEST_CASE("No newline at end of file markers set the new final-newline state") {
  SUBCASE("removing the final newline") {
    Tree r =
        patched("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
                {{"f", "a\nb\n"}});
    CHECK(r["f"] == "a\nb");
  }
  SUBCASE("adding a final newline") {
    Tree r =
        patched("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
                {{"f", "a\nb"}});
    CHECK(r["f"] == "a\nb\n");
  }
  SUBCASE("a change at the end of a file without a final newline") {
    Tree r = patched(
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
        "\\ No newline at end of file\n",
        {{"f", "a\r\nb"}});
    CHECK(r["f"] == "a\r\nc");
  }
  SUBCASE("a new file without a final newline") {
    Tree r = patched(
        "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n", {});
    CHECK(r["n"] == "x\ny");
  }
  SUBCASE("lines added to an empty file, the last without a newline") {
    Tree r = patched("--- a/e\n+++ b/e\n@@ -0,0 +1,2 @@\n+x\n+++\n\\ No newline at end of file\n",
                     {{"e", ""}});
    CHECK(r["e"] == "x\n++");
    Tree plain = patched("--- a/e\n+++ b/e\n@@ -0,0 +1,2 @@\n+x\n+y\n", {{"e", ""}});
    CHECK(plain["e"] == "x\ny\n");
  }
  SUBCASE("the marker takes away the newline alone, as git apply reads it") {
    // "+B\r\n" then the marker: the file ends with "B\r". An update and a new
    // file read it alike, and that is how editd's own diffs show such a file.
    const std::string body = "@@ -1,2 +1,2 @@\n-a\n-b\n+y\n+B\r\n\\ No newline at end of file\n";
    Tree updated = patched("--- a/f\n+++ b/f\n" + body, {{"f", "a\nb\n"}});
    CHECK(updated["f"] == "y\nB\r");
    Tree added = patched(
        "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+y\n+B\r\n\\ No newline at end of file\n", {});
    CHECK(added["n"] == "y\nB\r");
    Tree inserted = patched(
        "--- a/e\n+++ b/e\n@@ -0,0 +1,2 @@\n+y\n+B\r\n\\ No newline at end of file\n", {{"e", ""}});
    CHECK(inserted["e"] == "y\nB\r");
    // Without the marker, the CR is the line's CRLF ending.
    Tree ended =
        patched("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n-b\n+y\n+B\r\n", {{"f", "a\nb\n"}});
    CHECK(ended["f"] == "y\nB\r\n");
    // An empty last line before the marker: the break before it stays.
    Tree empty_last =
        patched("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n-b\n+y\n+\n\\ No newline at end of file\n",
                {{"f", "a\nb\n"}});
    CHECK(empty_last["f"] == "y\n");
  }
  SUBCASE("no markers: the file keeps its state") {
    Tree r = patched("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", {{"f", "a\nb"}});
    CHECK(r["f"] == "a\nc");
  }
}

TEST_CASE("a unified diff keeps a CRLF file's endings and its BOM") {
  Tree r =
      patched("--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c\n", {{"f",
                                                                            "\xEF\xBB\xBF"
                                                                            "a\r\nb\r\nc\r\n"}});
  CHECK(r["f"] ==
        "\xEF\xBB\xBF"
        "a\r\nB\r\nB2\r\nc\r\n");
}

// A patch's trailing blank lines are trimmed before it is read, and a hunk
// short of its counts at the very end takes them back as context: a context
// line of blanks (" " after its ' ') must come back as it was, not empty,
// or the hunk lands one line off. (Found by the fidelity property test.)
TEST_CASE("a last context line of blanks keeps its blanks when the patch ends with it") {
  const std::string file = "A\nB\n \n \n\nC\n";
  Tree r = patched("--- a/f\n+++ b/f\n@@ -3,2 +3,4 @@\n  \n+\n+\n  \n", {{"f", file}});
  CHECK(r["f"] == "A\nB\n \n\n\n \n\nC\n");
  // An empty line there is still an empty context line (GNU patch's reading).
  Tree e = patched("--- a/f\n+++ b/f\n@@ -4,2 +4,3 @@\n  \n+x\n\n", {{"f", file}});
  CHECK(e["f"] == "A\nB\n \n \nx\n\nC\n");
}

// One chunk removes a CRLF line of a mostly-LF file and the next adds a line
// where it was: together they replace it, so the new line takes its CRLF, as
// it would from one chunk; and the diff of the result (one -/+ run) applies
// back to the same bytes. (Found by fuzz_patch: the two chunks wrote LF, the
// diff CRLF.)
TEST_CASE("chunks that meet replace lines together and keep the replaced lines' endings") {
  const std::string file = "first\nold\r\nkeep\nend\n";
  for (const std::string& patch :
       {std::string(
            "--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n first\n-old\n@@ -3,1 +2,2 @@\n+new\n keep\n"),
        codex("*** Update File: f\n@@\n first\n-old\n@@\n+new\n keep\n")}) {
    Tree r = patched(patch, {{"f", file}});
    CHECK_MESSAGE(r["f"] == "first\nnew\r\nkeep\nend\n", patch);
  }
  // Where they do not meet, an added line takes the file's dominant ending.
  Tree apart =
      patched("--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n first\n-old\n@@ -4,1 +3,2 @@\n+new\n end\n",
              {{"f", file}});
  CHECK(apart["f"] == "first\nkeep\nnew\nend\n");
}

// Two Update sections of one file apply one after the other, each keeping
// endings on the file as the one before left it: a line the first adds before
// a CRLF line that the second removes was added between two lines, so it takes
// the dominant ending. The diff of the file is one -/+ run, which applied again
// would give it the CRLF (docs/patch.md; found by fuzz_patch).
TEST_CASE("sections of one file keep endings one after the other") {
  Tree r =
      patched(codex("*** Update File: f\n@@\n+zero\n one\n*** Update File: f\n@@\n-one\n two\n"),
              {{"f", "one\r\ntwo\nthree\n"}});
  CHECK(r["f"] == "zero\ntwo\nthree\n");
}

// git apply and GNU patch refuse a hunk whose @@ counts disagree with its
// body; reading it either way would be a guess (lines past the counts taken,
// or left out), so editd refuses it at the hunk's line with both counts.
TEST_CASE("a hunk whose counts disagree with its body is refused at its header") {
  struct Case {
    const char* name;
    std::string patch;
    std::size_t line;
    std::size_t expected_old, expected_new, found_old, found_new;
  };
  const std::vector<Case> cases = {
      {"Python: body longer than both counts",
       "--- a/app.py\n+++ b/app.py\n@@ -1,1 +1,1 @@\n def f():\n-    return 1\n+    return 2\n", 3,
       1, 1, 2, 2},
      {"TypeScript: an added line past the counts is not dropped",
       "--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n import x from 'x';\n-x();\n+x(1);\n+x(2);\n", 3,
       2, 2, 2, 3},
      {"Go: body shorter, the next hunk starts",
       "--- a/main.go\n+++ b/main.go\n@@ -1,4 +1,4 @@\n package main\n-var a = 1\n+var a = 2\n"
       "@@ -10,1 +10,1 @@\n-var b = 1\n+var b = 2\n",
       3, 4, 4, 2, 2},
      {"Rust: body shorter at the end of the patch",
       "diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n"
       "@@ -3,5 +3,5 @@\n fn a() {}\n-fn b() {}\n+fn b() -> u8 { 0 }\n",
       4, 5, 5, 2, 2},
      {"C: more lines after a blank line",
       "--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,2 @@\n #include <stdio.h>\n-int x;\n+long x;\n\n+int y;\n",
       3, 2, 2, 3, 4},
      {"YAML: old side over while the new side is short",
       "--- a/ci.yml\n+++ b/ci.yml\n@@ -1,1 +1,2 @@\n-on: push\n-jobs:\n+on: [push]\n+jobs:\n", 3,
       1, 2, 2, 2},
      {"Markdown: body shorter, prose follows",
       "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Title\n-old\n+new\nThat's all.\n", 3,
       3, 3, 2, 2},
      {"JSON: zero counts with a body",
       "--- a/p.json\n+++ b/p.json\n@@ -2,0 +3,0 @@\n+  \"a\": 1,\n", 3, 0, 0, 0, 1},
      {"Makefile: the second hunk of a file",
       "--- a/Makefile\n+++ b/Makefile\n@@ -1 +1 @@\n-all:\n+all: app\n@@ -5,2 +5,2 @@\n "
       "clean:\n-\trm app\n+\trm -f app\n \trm -f *.o\n",
       6, 2, 2, 3, 3},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    Error e = parse_failure(c.patch);
    CHECK(e.data["line"] == c.line);
    CHECK(e.data["counts"]["expected"]["old"] == c.expected_old);
    CHECK(e.data["counts"]["expected"]["new"] == c.expected_new);
    CHECK(e.data["counts"]["found"]["old"] == c.found_old);
    CHECK(e.data["counts"]["found"]["new"] == c.found_new);
    CHECK(e.message.find("line " + std::to_string(c.line)) != std::string::npos);
    CHECK(e.message.find("correct the counts") != std::string::npos);
  }
}

TEST_CASE("hunks whose counts match their body are still read as before") {
  SUBCASE("an empty context line whose space was lost") {
    Tree r =
        patched("--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n", {{"f.py", "a\n\nb\n"}});
    CHECK(r["f.py"] == "a\n\nB\n");
  }
  SUBCASE("empty context lines trimmed off the end of the patch") {
    Tree r = patched("--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n \n",
                     {{"f.go", "a\nb\n\nc\n"}});
    CHECK(r["f.go"] == "A\nb\n\nc\n");
  }
  SUBCASE("a bare @@ has no counts: its body ends at the first line that is not a hunk line") {
    Tree r = patched("--- a/f\n+++ b/f\n@@\n a\n\n-b\n+B\n", {{"f", "a\n\nb\n"}});
    CHECK(r["f"] == "a\n\nB\n");
  }
  SUBCASE("a mail signature, prose and a blank line after the last hunk") {
    Tree r = patched("--- a/f.rs\n+++ b/f.rs\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.0\n\nThanks!\n",
                     {{"f.rs", "a\n"}});
    CHECK(r["f.rs"] == "b\n");
  }
  SUBCASE("No newline markers after the counts are reached") {
    Tree r = patched(
        "--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n"
        "\\ No newline at end of file\n",
        {{"f.c", "a"}});
    CHECK(r["f.c"] == "b");
  }
  SUBCASE("a truncated patch is not padded") {
    Error e = parse_failure("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n");
    CHECK(e.data["counts"]["found"]["old"] == 2);
  }
}

TEST_CASE("a stray line inside a file's headers is refused, as git apply refuses it") {
  struct Case {
    const char* name;
    std::string patch;
    std::size_t line;
    std::string found;
  };
  const std::vector<Case> cases = {
      {"between diff --git and index",
       "diff --git a/app.py b/app.py\nthis line is stray\nindex 1..2 100644\n--- a/app.py\n"
       "+++ b/app.py\n@@ -1 +1 @@\n-a\n+b\n",
       2, "this line is stray"},
      {"after a mode change, before the file header",
       "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\nstray\n--- a/run.sh\n"
       "+++ b/run.sh\n@@ -1 +1 @@\n-echo a\n+echo b\n",
       4, "stray"},
      {"after deleted file mode",
       "diff --git a/old.go b/old.go\ndeleted file mode 100644\nNOTE: gone\n--- a/old.go\n"
       "+++ /dev/null\n@@ -1 +0,0 @@\n-package old\n",
       3, "NOTE: gone"},
      {"after new file mode",
       "diff --git a/n.ts b/n.ts\nnew file mode 100644\n\n--- /dev/null\n+++ b/n.ts\n"
       "@@ -0,0 +1 @@\n+export {};\n",
       3, ""},
      {"after the rename lines",
       "diff --git a/a.rs b/b.rs\nsimilarity index 90%\nrename from a.rs\nrename to b.rs\n"
       "index 1..2\n(renamed)\n--- a/a.rs\n+++ b/b.rs\n@@ -1 +1 @@\n-a\n+b\n",
       6, "(renamed)"},
      {"between --- and +++",
       "--- a/config.yml\n# comment\n+++ b/config.yml\n@@ -1 +1 @@\n-a: 1\n+a: 2\n", 2,
       "# comment"},
      {"between --- and +++ after diff --git",
       "diff --git a/README.md b/README.md\n--- a/README.md\nstray\n+++ b/README.md\n@@ -1 +1 @@\n"
       "-# A\n+# B\n",
       3, "stray"},
      {"between +++ and the first hunk",
       "--- a/data.json\n+++ b/data.json\n(JSON)\n@@ -1 +1 @@\n-{}\n+{ }\n", 3, "(JSON)"},
      {"between +++ and the first hunk of a new file",
       "--- /dev/null\n+++ b/Makefile\nstray\n@@ -0,0 +1 @@\n+all:\n", 3, "stray"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    Error e = parse_failure(c.patch);
    CHECK(e.data["line"] == c.line);
    CHECK(e.data["found"] == c.found);
    CHECK(e.message.find("line " + std::to_string(c.line)) != std::string::npos);
  }
  SUBCASE("header-only entries followed by prose are accepted, as git apply accepts them") {
    Patch p = parsed(
        "diff --git a/a.c b/b.c\nsimilarity index 100%\nrename from a.c\nrename to b.c\n\n"
        "The file was renamed.\n");
    REQUIRE(p.files.size() == 1);
    CHECK(p.files[0].action == Action::kMove);
  }
  SUBCASE("every git extended header line is known") {
    Patch p = parsed(
        "diff --git a/a.c b/b.c\nold mode 100644\nnew mode 100755\nsimilarity index 80%\n"
        "dissimilarity index 20%\nrename from a.c\nrename to b.c\nindex 1..2 100755\n--- a/a.c\n"
        "+++ b/b.c\n@@ -1 +1 @@\n-a\n+b\n");
    CHECK(p.files[0].action == Action::kMove);
  }
}

TEST_CASE("a zero-context insertion goes after the line it names") {
  Tree r = patched("--- a/f\n+++ b/f\n@@ -2,0 +3,1 @@\n+new\n", {{"f", "1\n2\n3\n"}});
  CHECK(r["f"] == "1\n2\nnew\n3\n");
}

TEST_CASE("unified parse errors name the line and what was expected") {
  SUBCASE("a hunk before any file header") {
    Error e = parse_failure("@@ -1 +1 @@\n-a\n+b\n");
    CHECK(e.data["line"] == 1);
  }
  SUBCASE("a binary patch") {
    Error e = parse_failure(
        "diff --git a/x.png b/x.png\nindex 1..2 100644\n"
        "Binary files a/x.png and b/x.png differ\n");
    CHECK(e.data["line"] == 3);
    CHECK(e.message.find("binary") != std::string::npos);
  }
  SUBCASE("a copy") {
    Error e = parse_failure("diff --git a/x b/y\nsimilarity index 100%\ncopy from x\ncopy to y\n");
    CHECK(e.data["line"] == 3);
  }
  SUBCASE("a file header without hunks") {
    Error e = parse_failure("--- a/f\n+++ b/f\nnothing\n");
    CHECK(e.data["line"] == 3);
    CHECK(e.data["expected"].get<std::string>().find("for 'f'") != std::string::npos);
  }
  SUBCASE("a hunk header without lines") {
    Error e = parse_failure("--- a/f\n+++ b/f\n@@ -1 +1 @@\n");
    CHECK(e.data["line"] == 3);
    CHECK(e.data["counts"]["found"]["old"] == 0);
    Error bare = parse_failure("--- a/f\n+++ b/f\n@@\n");
    CHECK(bare.data["line"] == 4);
  }
  SUBCASE("a new file with old lines") {
    Error e = parse_failure("--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n a\n+b\n");
    CHECK(e.data["line"] == 3);
  }
}

TEST_CASE("apply_patch's folding tier keeps the file's characters on the lines it changes") {
  SUBCASE("Python: a string's curly quotes survive a change to its words") {
    Tree r = patched(codex("*** Update File: m.py\n@@\n-msg = \"it's done\"  # note\n"
                           "+msg = \"it's finished\"  # note\n"),
                     {{"m.py", "msg = \u201Cit\u2019s done\u201D  # note\n"}});
    CHECK(r["m.py"] == "msg = \u201Cit\u2019s finished\u201D  # note\n");
  }
  SUBCASE("a shell line: the file's en dash stays, the model's new flag is its own") {
    Tree r = patched(
        "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n-tool \u2013x input.txt\n+tool \u2013x "
        "--fast "
        "input.txt\n echo done\n",
        {{"run.sh", "tool \u2013x input.txt\necho done\n"}});
    CHECK(r["run.sh"] == "tool \u2013x --fast input.txt\necho done\n");
    Tree folded = patched(
        "--- a/run.sh\n+++ b/run.sh\n@@ -1,2 +1,2 @@\n-tool -x input.txt\n+tool -x --fast "
        "input.txt\n echo done\n",
        {{"run.sh", "tool \u2013x input.txt\necho done\n"}});
    CHECK(folded["run.sh"] == "tool \u2013x --fast input.txt\necho done\n");
  }
  SUBCASE("Markdown: an em dash and a non-breaking space stay, CRLF too") {
    Tree r = patched(codex("*** Update File: README.md\n@@\n-Fast - really fast.\n"
                           "+Fast - really, really fast.\n"),
                     {{"README.md", "# T\r\nFast\u00A0\u2014 really fast.\r\n"}});
    CHECK(r["README.md"] == "# T\r\nFast\u00A0\u2014 really, really fast.\r\n");
  }
}

TEST_CASE("a chunk too short to fold says why it was refused") {
  // 5 non-blank characters: typography is not forgiven, and the error says so.
  const Tree file = {{"f.py", "x = 1\ns = \u201Ca\u201D\ny = 2\n"}};
  SUBCASE("Codex") {
    Error e = apply_failure(codex("*** Update File: f.py\n@@\n-s = \"a\"\n+s = \"b\"\n"),
                            inputs_of(file), ErrorKind::kPatchApply);
    REQUIRE(e.data.contains("hint"));
    const std::string hint = e.data["hint"];
    CHECK(hint.find("at line 2 only in typographic characters") != std::string::npos);
    CHECK(hint.find("fewer than 8 non-blank characters") != std::string::npos);
    CHECK(e.message.find("typographic") != std::string::npos);
  }
  SUBCASE("unified") {
    Error e = apply_failure("--- a/f.py\n+++ b/f.py\n@@ -2 +2 @@\n-s = \"a\"\n+s = \"b\"\n",
                            inputs_of(file), ErrorKind::kPatchApply);
    REQUIRE(e.data.contains("hint"));
    CHECK(e.data["hint"].get<std::string>().find("at line 2") != std::string::npos);
  }
  SUBCASE("long enough: the fold tier applies it, keeping the file's quotes") {
    Tree r =
        patched(codex("*** Update File: f.py\n@@\n-s = \"a\"\n+s = \"a\"\n+t = 3\n y = 2\n"), file);
    CHECK(r["f.py"] == "x = 1\ns = \u201Ca\u201D\nt = 3\ny = 2\n");
  }
  SUBCASE("a plain miss has no such hint") {
    Error e = apply_failure(codex("*** Update File: f.py\n@@\n-q = 9\n+q = 8\n"), inputs_of(file),
                            ErrorKind::kPatchApply);
    CHECK_FALSE(e.data.contains("hint"));
  }
}

TEST_CASE("unified apply errors report the hunk, its context and the closest region") {
  SUBCASE("context not found") {
    Error e = apply_failure("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n alpha\n-gamma\n+G\n",
                            inputs_of({{"f", "alpha\nbeta\n"}}), ErrorKind::kPatchApply);
    CHECK(e.data["path"] == "f");
    CHECK(e.data["hunk"] == 1);
    CHECK(e.data["patchLine"] == 3);
    CHECK(e.data["context"] == "alpha\ngamma");
    CHECK(e.data.contains("closest"));
  }
  SUBCASE("deleted lines that are not the whole file") {
    Error e = apply_failure("--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
                            inputs_of({{"f", "a\nb\n"}}), ErrorKind::kPatchApply);
    CHECK(e.data["path"] == "f");
  }
  SUBCASE("a new file over a directory") {
    apply_failure("--- /dev/null\n+++ b/d\n@@ -0,0 +1 @@\n+x\n",
                  {{"d", {FileInput::State::kDirectory, ""}}}, ErrorKind::kIsDirectory);
  }
}

// ---------------------------------------------------------------------------
// Codex's own scenarios (shared/conformance/codex-apply-patch), run in memory.

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Files and directories under `root`, keyed by their relative path.
void load_tree(const fs::path& root, Tree& files, std::vector<std::string>& dirs) {
  if (!fs::exists(root)) return;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    std::string rel = entry.path().lexically_relative(root).generic_string();
    if (entry.is_directory()) {
      dirs.push_back(rel);
    } else {
      files[rel] = slurp(entry.path());
    }
  }
}

}  // namespace

TEST_CASE("every Codex conformance scenario ends with the expected tree" *
          doctest::test_suite("conformance")) {
  // Scenarios where Codex exits with an error, and the error editd gives.
  const std::map<std::string, ErrorKind> failing = {
      {"005_rejects_empty_patch", ErrorKind::kPatchParse},
      {"006_rejects_missing_context", ErrorKind::kPatchApply},
      {"007_rejects_missing_file_delete", ErrorKind::kNotFound},
      {"008_rejects_empty_update_hunk", ErrorKind::kPatchParse},
      {"009_requires_existing_file_for_update", ErrorKind::kNotFound},
      {"012_delete_directory_fails", ErrorKind::kIsDirectory},
      {"013_rejects_invalid_hunk_header", ErrorKind::kPatchParse},
      {"015_failure_after_partial_success_leaves_changes", ErrorKind::kNotFound},
  };
  const auto data = editd::test::conformance_dir("codex-apply-patch");
  if (!data) return;
  const fs::path root = *data / "scenarios";
  REQUIRE(fs::is_directory(root));
  std::vector<fs::path> scenarios;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory()) scenarios.push_back(entry.path());
  std::sort(scenarios.begin(), scenarios.end());
  CHECK(scenarios.size() == 23);

  for (const fs::path& dir : scenarios) {
    const std::string name = dir.filename().string();
    CAPTURE(name);
    Tree input, expected;
    std::vector<std::string> input_dirs, expected_dirs;
    load_tree(dir / "input", input, input_dirs);
    load_tree(dir / "expected", expected, expected_dirs);
    Inputs inputs = inputs_of(input);
    for (const std::string& d : input_dirs) inputs[d] = {FileInput::State::kDirectory, ""};

    auto outcomes = run(slurp(dir / "patch.txt"), inputs);
    Tree result = input;
    if (auto it = failing.find(name); it != failing.end()) {
      REQUIRE_MESSAGE(outcomes.has_error(), "expected " << kind_name(it->second));
      CHECK(outcomes.error().kind == it->second);
    } else {
      if (outcomes.has_error()) FAIL_CHECK(outcomes.error().message);
      REQUIRE(outcomes.has_value());
      result = written(input, *outcomes);
    }
    if (name == "015_failure_after_partial_success_leaves_changes") {
      // Codex keeps the Add that preceded the failure; editd applies nothing.
      CHECK(result.empty());
      continue;
    }
    CHECK(result == expected);
  }
}

TEST_CASE("mangled patches are rejected or applied, never crash") {
  const std::vector<std::string> seeds = {
      codex("*** Update File: f\n@@ a\n a\n-b\n+B\n*** End of File\n*** Add File: g\n+x\n"),
      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of "
      "file\n+B\n",
      "<<'EOF'\n" + codex("*** Delete File: f\n*** Update File: g\n*** Move to: f\n@@\n+z\n") +
          "EOF\n",
  };
  const Inputs inputs = inputs_of({{"f", "a\nb\n"}, {"g", "a\r\nb"}});
  std::uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const std::string alphabet = " +-@*\\\n\ta/b:EOF<'\"";
  for (int round = 0; round < 3000; ++round) {
    std::string s = seeds[next() % seeds.size()];
    for (int edits = 1 + next() % 4; edits > 0; --edits) {
      std::size_t at = next() % (s.size() + 1);
      switch (next() % 3) {
        case 0:
          s.insert(at, 1, alphabet[next() % alphabet.size()]);
          break;
        case 1:
          if (at < s.size()) s.erase(at, 1 + next() % 8);
          break;
        default:
          if (at < s.size()) s[at] = alphabet[next() % alphabet.size()];
      }
    }
    auto out = run(s, inputs);
    if (out) {
      for (const FileOutcome& o : *out) CHECK(!o.path.empty());
    } else {
      CHECK(!out.error().message.empty());
    }
  }
}

// ---------------------------------------------------------------------------
// Hostile patches: whatever the bytes, a patch parses or is refused with an
// error naming its line; nothing is undefined.

TEST_CASE("short and odd 'diff --git' headers are parse errors, never exceptions") {
  for (std::string header :
       {"diff --git a b", "diff --git a", "diff --git ", "diff --git ab c", "diff --git a  b",
        "diff --git \"a", "diff --git a \"b", "diff --git a/x b/", "diff --git  x  "}) {
    auto p = parse(header + "\n", protocol::path_problem);
    REQUIRE_MESSAGE(p.has_error(), header);
    CHECK(p.error().kind == ErrorKind::kPatchParse);
    CHECK(p.error().data.contains("line"));
  }
  // The same name on both sides, when it is short.
  Patch p = parsed(
      "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+y\n");
  CHECK(p.files[0].path == "x");
}

TEST_CASE("huge hunk line numbers are hints capped at the file, with no overflow") {
  const Tree tree = {{"f", "a\nb\nc\nd\n"}};
  for (std::string start : {"9223372036854775807", "9223372036854775808", "18446744073709551615",
                            "18446744073709551616", "99999999999999999999999999999999"}) {
    // One hunk far past the end, then one whose offset is computed from it.
    Tree t = patched("--- a/f\n+++ b/f\n@@ -" + start + ",1 +" + start + ",1 @@\n-c\n+C\n@@ -" +
                         start + ",1 +1,1 @@\n-d\n+D\n",
                     tree);
    CHECK_MESSAGE(t["f"] == "a\nb\nC\nD\n", start);
    Tree before = patched("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+A\n@@ -" + start + ",1 +" +
                              start + ",1 @@\n-d\n+D\n",
                          tree);
    CHECK(before["f"] == "A\nb\nc\nD\n");
    // A pure insertion at such a line goes to the end.
    Tree insertion =
        patched("--- a/f\n+++ b/f\n@@ -" + start + ",0 +" + start + ",1 @@\n+e\n", tree);
    CHECK(insertion["f"] == "a\nb\nc\nd\ne\n");
  }
  Error e = apply_failure("--- a/f\n+++ b/f\n@@ -9223372036854775807,1 +1 @@\n-zz\n+y\n",
                          inputs_of(tree), ErrorKind::kPatchApply);
  CHECK(e.data["hunk"] == 1);
}

TEST_CASE("a patch path with a NUL byte or invalid UTF-8 is a parse error naming its line") {
  using namespace std::string_literals;
  for (std::string body : {"*** Delete File: a.txt\0zz\n"s, "*** Add File: a\0\n+x\n"s,
                           "*** Update File: a.txt\0\n@@\n-a\n+b\n"s,
                           "*** Update File: a.txt\n*** Move to: b\0.txt\n@@\n-a\n+b\n"s,
                           "*** Delete File: a\xff.txt\n"s}) {
    Error e = parse_failure(codex(body));
    const std::size_t line = body.starts_with("*** Update File: a.txt\n*** Move") ? 3 : 2;
    CHECK_MESSAGE(e.data["line"] == line, e.message);
    CHECK(e.message.find("the path must") != std::string::npos);
  }
  for (std::string diff : {"--- a/x\\000y\n+++ b/x\\000y\n@@ -1 +1 @@\n-a\n+b\n"s,
                           "--- \"a/x\\000y\"\n+++ \"b/x\\000y\"\n@@ -1 +1 @@\n-a\n+b\n"s,
                           "--- \"a/x\\377\"\n+++ \"b/x\\377\"\n@@ -1 +1 @@\n-a\n+b\n"s,
                           "diff --git a/x b/y\nrename from x\nrename to y\0z\n"s,
                           "diff --git a/x b/y\nrename from x\nrename to \n"s}) {
    auto p = parse(diff, protocol::path_problem);
    if (diff.starts_with("--- a/x\\000")) {
      // Unquoted, a backslash is a backslash.
      REQUIRE(p.has_value());
      CHECK(p->files[0].path == "x\\000y");
      continue;
    }
    REQUIRE_MESSAGE(p.has_error(), diff);
    CHECK(p.error().kind == ErrorKind::kPatchParse);
    CHECK(p.error().message.find("the path must") != std::string::npos);
  }
  Error rename =
      parse_failure("diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\0z\n"s);
  CHECK(rename.data["line"] == 4);
  Error label = parse_failure("--- \"a/x\\000y\"\n+++ \"b/x\\000y\"\n@@ -1 +1 @@\n-a\n+b\n");
  CHECK(label.data["line"] == 2);
}

TEST_CASE("an added line with a NUL byte or invalid UTF-8 refuses the patch as not_text") {
  using namespace std::string_literals;
  struct Case {
    std::string patch;
    std::size_t line;
    std::string path;
  };
  for (const Case& c : std::vector<Case>{
           {codex("*** Add File: n.txt\n+ok\n+a\0b\n"s), 4, "n.txt"},
           {codex("*** Update File: f\n@@\n-a\n+x\0\n"s), 5, "f"},
           {codex("*** Update File: f\n*** Move to: g\n@@\n a\n+\xc3\n"s), 6, "g"},
           {"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+\0\n"s, 5, "f"},
           {"--- /dev/null\n+++ b/new\n@@ -0,0 +1 @@\n+\0\n"s, 4, "new"},
       }) {
    auto p = parse(c.patch, protocol::path_problem);
    REQUIRE(p.has_error());
    CHECK(p.error().kind == ErrorKind::kNotText);
    CHECK_MESSAGE(p.error().data["line"] == c.line, p.error().message);
    CHECK(p.error().data["path"] == c.path);
    CHECK(p.error().message.find("patch line " + std::to_string(c.line)) != std::string::npos);
  }
  // NUL bytes on lines that are not written never reach a file: they only fail to match.
  Error e = apply_failure(codex("*** Update File: f\n@@\n-a\0\n+b\n"s), inputs_of({{"f", "a\n"}}),
                          ErrorKind::kPatchApply);
  CHECK(e.data["path"] == "f");
}

// ---------------------------------------------------------------------------
// Bounded cost (issue 13): a long chunk among repeated lines is found, or
// refused, by a search linear in the lines it passes.

namespace {

std::string repeated_lines(std::string_view line, int n, std::string_view prefix = "") {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += prefix;
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

TEST_CASE("a long Codex chunk of repeated lines applies at its one place") {
  const std::string file = repeated_lines("a", 10000) + "b\n" + repeated_lines("a", 10000);
  const std::string patch = codex("*** Update File: f\n@@\n" + repeated_lines("a", 4000, " ") +
                                  "-b\n+c\n" + repeated_lines("a", 4000, " "));
  Tree r = patched(patch, {{"f", file}});
  CHECK(r["f"] == repeated_lines("a", 10000) + "c\n" + repeated_lines("a", 10000));
}

TEST_CASE("a long chunk of repeated lines that the file lacks is refused in both formats") {
  const Inputs in = inputs_of({{"f", repeated_lines("a", 18000)}});
  const std::string body = repeated_lines("a", 14000, " ") + "-b\n";
  Error codex_error =
      apply_failure(codex("*** Update File: f\n@@\n" + body), in, ErrorKind::kPatchApply);
  CHECK(codex_error.data["hunk"] == 1);
  CHECK(codex_error.data.contains("closest"));
  Error unified_error = apply_failure("--- a/f\n+++ b/f\n@@ -1,14001 +1,14000 @@\n" + body, in,
                                      ErrorKind::kPatchApply);
  CHECK(unified_error.data["hunk"] == 1);
  CHECK(unified_error.data.contains("closest"));
}

TEST_CASE("a unified hunk among repeated lines is found nearest its line number, by each tier") {
  // `a` lines, with `b` at lines 3001 and 9001 (0-based 3000 and 9000).
  std::string file = repeated_lines("a", 3000) + "b\n" + repeated_lines("a", 5999) + "b\n" +
                     repeated_lines("a", 3000);
  const std::string body =
      repeated_lines("a", 2000, " ") + "-b\n+c\n" + repeated_lines("a", 2000, " ");
  // The hunk says line 6001: the window of the `b` at 9001 (from 7001) is
  // nearer than the one of the `b` at 3001 (from 1001).
  Tree r = patched("--- a/f\n+++ b/f\n@@ -6001,4001 +6001,4001 @@\n" + body, {{"f", file}});
  CHECK(r["f"].find("c\n") == 9000 * 2);
  CHECK(r["f"].find("b\n") == 3000 * 2);
  // With trailing blanks in the file, the second tier finds the same place.
  std::string padded;
  for (std::size_t at = 0; at < file.size(); at = file.find('\n', at) + 1)
    padded += file.substr(at, file.find('\n', at) - at) + "  \n";
  Tree t = patched("--- a/f\n+++ b/f\n@@ -6001,4001 +6001,4001 @@\n" + body, {{"f", padded}});
  CHECK(t["f"].find("c\n") == 9000 * 4);
}

TEST_CASE("Codex chunks adding at the end of a file without a final newline add one break") {
  CHECK(patched(codex("*** Update File: f\n@@\n+x\n@@\n+y\n"), {{"f", "a"}})["f"] == "a\nx\ny");
  CHECK(patched(codex("*** Update File: f\n@@\n-L1\n@@\n+ \n"), {{"f", "L1"}})["f"] == " ");
  CHECK(patched(codex("*** Update File: f\n@@\n+x\n"), {{"f", "a"}})["f"] == "a\nx");
  CHECK(patched(codex("*** Update File: f\n@@\n+x\n@@\n+y\n"), {{"f", "a\n"}})["f"] == "a\nx\ny\n");
}

TEST_CASE("an added line ending in CR over a line holding a CR, at a file's unterminated end") {
  // The CR of the added line's "\r\n" is part of its break, which the file's
  // missing final newline takes away whole: never an exception.
  Tree r = patched("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\rb\n+a\r\n", {{"f", "a\rb"}});
  CHECK(r["f"] == "a");
  CHECK(patched(codex("*** Update File: f\n@@\n-a\rb\n+a\r\n"), {{"f", "a\rb"}})["f"] == "a");
  Tree kept = patched("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\rb\n+a\r\n", {{"f", "a\rb\n"}});
  CHECK(kept["f"] == "a\r\n");
}

TEST_CASE("a U+FEFF starting line 1's old text in a file with a BOM is the BOM, in both dialects") {
  const std::string bom = "\xEF\xBB\xBF";
  const Tree file = {{"f", bom + "ab\ncd\n"}};
  // git diff shows the BOM as part of line 1; the hunk is too short to fold.
  CHECK(patched("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-" + bom + "ab\n+" + bom + "xy\n cd\n",
                file)["f"] == bom + "xy\ncd\n");
  CHECK(patched(codex("*** Update File: f\n@@\n-" + bom + "ab\n+xy\n"), file)["f"] ==
        bom + "xy\ncd\n");
  CHECK(patched(codex("*** Update File: f\n@@\n " + bom + "ab\n+new\n"), file)["f"] ==
        bom + "ab\nnew\ncd\n");
  // A change of the first character after the BOM lands, never folded away.
  const Tree curly = {{"f", bom + "\xE2\x80\x9Cquoted\xE2\x80\x9D line\nrest\n"}};
  CHECK(patched("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-" + bom +
                    "\xE2\x80\x9Cquoted\xE2\x80\x9D line\n+" + bom + "\"quoted\" line\n",
                curly)["f"] == bom + "\"quoted\" line\nrest\n");
  // Without a BOM in the file, U+FEFF is text to match.
  apply_failure(codex("*** Update File: f\n@@\n-" + bom + "ab\n+xy\n"),
                inputs_of({{"f", "ab\ncd\n"}}), ErrorKind::kPatchApply);
}

TEST_CASE("git mode lines: a mode-only entry is an Update without chunks that sets the mode") {
  Patch p = parsed(
      "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
      "diff --git a/old.sh b/bin/new.sh\nold mode 100755\nnew mode 100644\nsimilarity index 100%\n"
      "rename from old.sh\nrename to bin/new.sh\n"
      "diff --git a/x.sh b/x.sh\nnew file mode 100755\nindex 0000000..1111111\n--- /dev/null\n"
      "+++ b/x.sh\n@@ -0,0 +1 @@\n+x\n"
      "diff --git a/link b/link\nold mode 100644\nnew mode 120000\n");
  REQUIRE(p.files.size() == 3);
  CHECK(p.files[0].action == Action::kUpdate);
  CHECK(p.files[0].chunks.empty());
  CHECK(p.files[0].executable == true);
  CHECK(p.files[1].action == Action::kMove);
  CHECK(p.files[1].executable == false);
  CHECK(p.files[2].action == Action::kAdd);
  CHECK(p.files[2].executable == true);
  const Inputs in = inputs_of({{"run.sh", "#!/bin/sh\n"}, {"old.sh", "o\n"}});
  auto out = patch::apply(p, in);
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 3);
  CHECK((*out)[0].action == Action::kUpdate);
  CHECK((*out)[0].new_bytes == "#!/bin/sh\n");
  CHECK((*out)[0].executable == true);
  CHECK((*out)[1].executable == false);
  CHECK((*out)[2].executable == true);
}

TEST_CASE("a Codex envelope with CRLF lines writes what the same envelope with LF lines writes") {
  const std::string crlf =
      "*** Begin Patch\r\n*** Update File: f\r\n@@\r\n a\r\n-b\r\n+B\r\n+C\r\n*** Add File: n\r\n"
      "+x\r\n+y\r\n*** End Patch\r\n";
  Tree r = patched(crlf, {{"f", "a\nb\nc\n"}, {"w", "a\r\nb\r\n"}});
  CHECK(r["f"] == "a\nB\nC\nc\n");
  CHECK(r["n"] == "x\ny\n");
  // In a CRLF file the added lines take its CRLF, by the fidelity rules.
  Tree w = patched("*** Begin Patch\r\n*** Update File: w\r\n@@\r\n a\r\n+m\r\n*** End Patch\r\n",
                   {{"w", "a\r\nb\r\n"}});
  CHECK(w["w"] == "a\r\nm\r\nb\r\n");
}

TEST_CASE(
    "git's own diff lands byte for byte; one whose lines are not the file's bytes by the rules") {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string head = "diff --git a/f b/f\nindex 1111111..2222222 100644\n--- a/f\n+++ b/f\n";
  // BOM removal and CRLF -> LF, as git diff shows them.
  CHECK(patched(head + "@@ -1,2 +1,2 @@\n-" + bom + "a\r\n-b\r\n+a\n+b\n",
                {{"f", bom + "a\r\nb\r\n"}})["f"] == "a\nb\n");
  // A final newline added and one taken away.
  CHECK(patched(head + "@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n",
                {{"f", "x\ny"}})["f"] == "x\ny\n");
  CHECK(patched(head + "@@ -1,2 +1,2 @@\n x\n-y\n+z\n\\ No newline at end of file\n",
                {{"f", "x\ny\n"}})["f"] == "x\nz");
  // LF lines added to a mostly-CRLF file stay LF.
  CHECK(patched(head + "@@ -1,2 +1,3 @@\n a\r\n+n\n b\r\n", {{"f", "a\r\nb\r\n"}})["f"] ==
        "a\r\nn\nb\r\n");
  // Without the index line (or with lines that are not the file's bytes: an LF
  // diff of a CRLF file), the fidelity rules apply it.
  CHECK(patched("--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\r\n+n\n b\r\n",
                {{"f", "a\r\nb\r\n"}})["f"] == "a\r\nn\r\nb\r\n");
  CHECK(patched(head + "@@ -1,2 +1,2 @@\n-a\n+x\n b\n", {{"f", "a\r\nb\r\n"}})["f"] ==
        "x\r\nb\r\n");
}
