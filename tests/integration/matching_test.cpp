// str_replace's forgiving tiers through the real binary: re-indentation of the
// lines newText adds, and line-number prefixes copied from numbered views
// (docs/protocol.md, "Matching").
#include <doctest/doctest.h>

#include "support/process.h"

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

  json r = p.ok("str_replace", {{"path", "g.py"},
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
