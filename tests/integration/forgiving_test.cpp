// Forgiving matching through the real binary (docs/protocol.md, "Matching"):
// a change found by folding is made on the file's own characters, repeated text
// that can be read in overlapping ways is refused, and a U+FEFF copied into
// newText never reaches the body.
#include <doctest/doctest.h>

#include "helpers/mcp_session.h"
#include "helpers/process.h"

using namespace editd::test;

TEST_CASE("a change matched by folding typography keeps the file's characters") {
  TempDir root;
  root.write("greet.py", "def greet(name):\n    return f\"It\u2019s {name}\u2019s turn\"\n");
  root.write(
      "pkg.json",
      "{\n  \u201cname\u201d: \u201ceditd\u201d,\n  \u201cversion\u201d: \u201c1.0\u201d\n}\n");
  root.write("run.sh", "#!/bin/sh\ncurl -sS -X POST \"$URL\"\n");
  auto p = spawn_editd(root);
  json py = p.ok("str_replace", {{"path", "greet.py"},
                                 {"oldText", "return f\"It's {name}'s turn\""},
                                 {"newText", "return f\"It's {name}'s turn now\""}});
  CHECK(py["matchedBy"] == "unicode");
  CHECK(root.read("greet.py") ==
        "def greet(name):\n    return f\"It\u2019s {name}\u2019s turn now\"\n");
  p.ok("str_replace", {{"path", "pkg.json"},
                       {"oldText", "\"version\": \"1.0\""},
                       {"newText", "\"version\": \"1.1\""}});
  CHECK(root.read("pkg.json") ==
        "{\n  \u201cname\u201d: \u201ceditd\u201d,\n  \u201cversion\u201d: \u201c1.1\u201d\n}\n");
  p.ok("str_replace", {{"path", "run.sh"},
                       {"oldText", "curl \u2013sS \u2013X POST \"$URL\""},
                       {"newText", "curl \u2013sS \u2013X PUT \"$URL\""}});
  CHECK(root.read("run.sh") == "#!/bin/sh\ncurl -sS -X PUT \"$URL\"\n");
}

TEST_CASE("a file indented with no-break spaces keeps them where the model wrote spaces") {
  TempDir root;
  const std::string nbsp4 = "\u00a0\u00a0\u00a0\u00a0";
  const std::string before = "def f():\n" + nbsp4 + "a = 1\n" + nbsp4 + "return a\n";
  root.write("edit.py", before);
  root.write("patch.py", before);
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "edit.py"},
                                {"oldText", "def f():\n    a = 1\n    return a"},
                                {"newText", "def f():\n    a = 2\n    return a"}});
  CHECK(r["matchedBy"] == "unicode");
  CHECK(root.read("edit.py") == "def f():\n" + nbsp4 + "a = 2\n" + nbsp4 + "return a\n");
  p.ok("apply_patch", {{"patch",
                        "*** Begin Patch\n*** Update File: patch.py\n def f():\n-    a = 1\n"
                        "+    a = 2\n     return a\n*** End Patch\n"}});
  CHECK(root.read("patch.py") == "def f():\n" + nbsp4 + "a = 2\n" + nbsp4 + "return a\n");
}

TEST_CASE("repeated lines read in overlapping ways are ambiguous, even with replaceAll") {
  TempDir root;
  const std::string table =
      "var cases = []struct{ in, want int }{\n\t{1, 1},\n\t{1, 1},\n\t{1, 1},\n}\n";
  root.write("t_test.go", table);
  auto p = spawn_editd(root);
  for (bool all : {false, true}) {
    CAPTURE(all);
    json e = p.fails("str_replace", {{"path", "t_test.go"},
                                     {"oldText", "\t{1, 1},\n\t{1, 1},\n"},
                                     {"newText", "\t{1, 2},\n"},
                                     {"replaceAll", all}});
    CHECK(e["data"]["kind"] == "ambiguous");
    CHECK(e["data"]["overlapping"] == true);
    CHECK(e["data"]["lines"] == json::array({2, 3}));
    CHECK(e["data"]["candidates"].size() == 2);
  }
  CHECK(root.read("t_test.go") == table);
  // A line that tells the readings apart makes it one.
  p.ok("str_replace", {{"path", "t_test.go"},
                       {"oldText", "\t{1, 1},\n\t{1, 1},\n}"},
                       {"newText", "\t{1, 1},\n\t{1, 2},\n}"}});
  CHECK(root.read("t_test.go") ==
        "var cases = []struct{ in, want int }{\n\t{1, 1},\n\t{1, 1},\n\t{1, 2},\n}\n");
}

TEST_CASE("a BOM copied into oldText and newText does not become a second BOM") {
  TempDir root;
  root.write("a.py", "\xEF\xBB\xBFimport os\nimport re\n");
  auto p = spawn_editd(root);
  json r =
      p.ok("str_replace",
           {{"path", "a.py"}, {"oldText", "\ufeffimport os"}, {"newText", "\ufeffimport sys"}});
  CHECK(r["matchedBy"] == "exact");
  CHECK(root.read("a.py") == "\xEF\xBB\xBFimport sys\nimport re\n");
  p.ok("str_replace",
       {{"path", "a.py"}, {"oldText", "import re"}, {"newText", "\ufeffimport json"}});
  CHECK(root.read("a.py") == "\xEF\xBB\xBFimport sys\nimport json\n");
}

TEST_CASE("escapes written out are never applied: the region is shown for one retry") {
  // The C string holds a real \n escape; the model sent its lines once more
  // serialised, with an intended "\n" in newText's string.
  TempDir root;
  const std::string c = "int main(void) {\n  printf(\"done\\n\");\n  return 0;\n}\n";
  root.write("main.c", c);
  root.write("notes.md", "| Task | State |\n| --- | --- |\n| Build | Planning |\n");
  auto p = spawn_editd(root);
  json e = p.fails("str_replace", {{"path", "main.c"},
                                   {"oldText", "  printf(\\\"done\\\\n\\\");\\n  return 0;"},
                                   {"newText", "  printf(\\\"ok\\\\n\\\");\\n  return 1;"}});
  CHECK(e["data"]["kind"] == "no_match");
  CHECK(e["data"]["escapes"] ==
        json({{"startLine", 2}, {"endLine", 3}, {"text", "  printf(\"done\\n\");\n  return 0;"}}));
  CHECK(e["message"].get<std::string>().find("matches lines 2-3") != std::string::npos);
  CHECK(root.read("main.c") == c);
  // The retry the error asks for applies, matched exactly.
  json r = p.ok("str_replace", {{"path", "main.c"},
                                {"oldText", e["data"]["escapes"]["text"]},
                                {"newText", "  printf(\"ok\\n\");\n  return 1;"}});
  CHECK(r["matchedBy"] == "exact");
  CHECK(root.read("main.c") == "int main(void) {\n  printf(\"ok\\n\");\n  return 1;\n}\n");

  // A table row read through \n: refused in every mode, the file untouched.
  for (const char* mode : {"exact", "standard", "fuzzy"}) {
    CAPTURE(mode);
    json t = p.fails("str_replace", {{"path", "notes.md"},
                                     {"oldText", "| --- | --- |\\n| Build | Planning |"},
                                     {"newText", "| --- | --- |\\n| Build | Ready |"},
                                     {"matching", mode}});
    CHECK(t["data"]["escapes"]["startLine"] == 2);
    CHECK(t["data"]["hint"].get<std::string>().find("real line breaks") != std::string::npos);
  }
  CHECK(root.read("notes.md") == "| Task | State |\n| --- | --- |\n| Build | Planning |\n");
}

TEST_CASE("over MCP, the region escapes written out would match is shown as text") {
  TempDir root;
  root.write("a.py", "def f():\n    return 1\n");
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json r = call(p, "str_replace",
                {{"path", "a.py"}, {"oldText", "def f():\\n    return 1"}, {"newText", "def f():\\n    return 2"}});
  CHECK(r["isError"] == true);
  const std::string text = text_of(r);
  CAPTURE(text);
  CHECK(text.find("Region it matches with its escapes read as characters (data.escapes), lines "
                  "1-2:\ndef f():\n    return 1\n") != std::string::npos);
  CHECK(root.read("a.py") == "def f():\n    return 1\n");
}
