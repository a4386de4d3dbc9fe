// str_replace's forgiving tiers through the real binary: re-indentation of the
// lines newText adds, and line-number prefixes copied from numbered views
// (docs/protocol.md, "Matching").
#include <doctest/doctest.h>

#include "helpers/process.h"

using namespace editd::test;

TEST_CASE("re-indentation: nesting under a match takes the file's step, and a guess is refused") {
  TempDir root;
  const std::string py =
      "class Greeter:\n"
      "    def greet(self, name):\n"
      "        message = \"hi \" + name\n"
      "        print(message)\n";
  const std::string gnu =
      "void\nf (int x)\n{\n  if (x)\n    {\n      prepare ();\n    }\n  else\n    {\n"
      "      if (x < 0)\n\t{\n\t  fail ();\n\t}\n    }\n}\n";
  const std::string md = "- groceries\n  - milk\n  - eggs\n- chores\n";
  root.write("g.py", py);
  root.write("f.c", gnu);
  root.write("todo.md", md);
  auto p = spawn_editd(root);

  json r =
      p.ok("str_replace", {{"path", "g.py"},
                           {"oldText", "message = \"hi \" + name\nprint(message)"},
                           {"newText", "message = \"hi \" + name\nif name:\n    print(message)"}});
  CHECK(r["matchedBy"] == "indentation");
  CHECK(root.read("g.py") ==
        "class Greeter:\n"
        "    def greet(self, name):\n"
        "        message = \"hi \" + name\n"
        "        if name:\n"
        "            print(message)\n");

  p.ok("str_replace", {{"path", "f.c"},
                       {"oldText", "if (x < 0)\n  {\n    fail ();\n  }"},
                       {"newText", "if (x < 0)\n  {\n    fail ();\n    abort ();\n  }"}});
  CHECK(root.read("f.c") ==
        "void\nf (int x)\n{\n  if (x)\n    {\n      prepare ();\n    }\n  else\n    {\n"
        "      if (x < 0)\n\t{\n\t  fail ();\n\t  abort ();\n\t}\n    }\n}\n");

  json e = p.fails("str_replace", {{"path", "todo.md"},
                                   {"oldText", "- groceries\n- milk\n- eggs\n- chores"},
                                   {"newText", "- groceries\n- milk\n- eggs\n- soap\n- chores"}});
  CHECK(e["data"]["kind"] == "invalid_params");
  CHECK(e["data"]["param"] == "newText");
  CHECK(e["data"]["startLine"] == 1);
  CHECK(e["data"]["endLine"] == 4);
  CHECK(e["data"]["hint"].get<std::string>().find("exact indentation") != std::string::npos);
  CHECK(root.read("todo.md") == md);
}

TEST_CASE(
    "line-number prefixes: grep -n and cat -n views are stripped as written, times are text") {
  TempDir root;
  const std::string py = "def f(y):\n    x = 1\n    y = 2\n    return x\n";
  const std::string md = "# Day\n\n- standup\n- lunch\n";
  const std::string json_file = "{\n  \"at\": \"00 standup\",\n  \"then\": \"00 lunch\"\n}\n";
  root.write("f.py", py);
  root.write("day.md", md);
  root.write("at.json", json_file);
  auto p = spawn_editd(root);

  json r = p.ok("str_replace", {{"path", "f.py"},
                                {"oldText", "2:    x = 1\n3:    y = 2"},
                                {"newText", "2:    x = 1\n3:    if y:\n4:        y = 3"}});
  CHECK(r["matchedBy"] == "line_numbers");
  CHECK(root.read("f.py") == "def f(y):\n    x = 1\n    if y:\n        y = 3\n    return x\n");

  r = p.ok("str_replace", {{"path", "f.py"},
                           {"oldText", "     4\t        y = 3\n     5\t    return x"},
                           {"newText", "     4\t        y = 3\n     5\t    return x + y"}});
  CHECK(r["matchedBy"] == "line_numbers");
  CHECK(root.read("f.py") == "def f(y):\n    x = 1\n    if y:\n        y = 3\n    return x + y\n");

  p.ok("str_replace", {{"path", "day.md"},
                       {"oldText", "3:- standup\n4:- lunch"},
                       {"newText", "10:00 standup\n11:00 lunch"}});
  CHECK(root.read("day.md") == "# Day\n\n10:00 standup\n11:00 lunch\n");

  json e = p.fails("str_replace", {{"path", "at.json"},
                                   {"oldText", "10:00 standup\",\n11:  \"then\": \"00 lunch\""},
                                   {"newText", "x"}});
  CHECK(e["data"]["kind"] == "no_match");
  CHECK(root.read("at.json") == json_file);
}

TEST_CASE("re-indentation: a line shallower than the match loses one step, in tabs") {
  TempDir root;
  root.write("main.go", "func main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}\n}\n");
  auto p = spawn_editd(root);
  p.ok("str_replace", {{"path", "main.go"},
                       {"oldText", "        fmt.Println(i)\n    }"},
                       {"newText", "        fmt.Println(i)\n    }\n    fmt.Println(\"done\")"}});
  CHECK(root.read("main.go") ==
        "func main() {\n\tfor i := 0; i < 3; i++ {\n\t\tfmt.Println(i)\n\t}\n"
        "\tfmt.Println(\"done\")\n}\n");
}

TEST_CASE("line-number prefixes: Claude Code's arrow view, and YAML keys that look numbered") {
  TempDir root;
  root.write("a.ts", "export function f() {\n  return 1;\n}\n");
  root.write("api.yaml", "responses:\n  default:\n    description: error\n");
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "a.ts"},
                                {"oldText",
                                 "     1\xE2\x86\x92"
                                 "export function f() {\n     2\xE2\x86\x92  return 1;"},
                                {"newText",
                                 "     1\xE2\x86\x92"
                                 "export function f() {\n     2\xE2\x86\x92  return 2;"}});
  CHECK(r["matchedBy"] == "line_numbers");
  CHECK(root.read("a.ts") == "export function f() {\n  return 2;\n}\n");
  p.ok("str_replace", {{"path", "api.yaml"},
                       {"oldText", "2:  default:\n3:    description: error"},
                       {"newText",
                        "  200:\n    description: ok\n  201:\n    description: created\n"
                        "  default:\n    description: error"}});
  CHECK(root.read("api.yaml") ==
        "responses:\n  200:\n    description: ok\n  201:\n    description: created\n  default:\n"
        "    description: error\n");
}
