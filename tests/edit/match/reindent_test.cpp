// Re-indentation by the forgiving line tiers (edit/match/reindent.h), one class of
// finding at a time, each in several languages. Every case goes through
// plan_replace, as str_replace does.
#include "edit/match/reindent.h"

#include <doctest/doctest.h>

#include <string>

#include "edit/match/replace.h"
#include "helpers/replace.h"
#include "edit/text/text.h"

using namespace editd;
using namespace editd::match;
using editd::test::standard_plan;

namespace {

// The file after the edit; a refusal fails the test. Each case exercises
// re-indentation: no exact match.
std::string reindented(std::string_view text, std::string_view old_text,
                       std::string_view new_text) {
  return editd::test::edited_by(text, old_text, new_text, "exact", /*not_tier=*/true);
}

// The refusal; an applied edit fails the test.
Error refusal(std::string_view text, std::string_view old_text, std::string_view new_text) {
  auto p = standard_plan(text, old_text, new_text);
  if (p) {
    FAIL_CHECK("applied, giving " << splice::apply_edits(text, p->edits));
    return Error();
  }
  return p.error();
}

void check_refused_for_indentation(const Error& e) {
  CHECK(e.kind == ErrorKind::kInvalidParams);
  CHECK(e.input == Input::kNewText);
  CHECK(e.data.value("hint", "").find("exact indentation") != std::string::npos);
  CHECK(e.message.find("cannot be mapped") != std::string::npos);
}

}  // namespace

// --- The step comes from the file around the match, not from its depth.

TEST_CASE("python: a block nested under a match at one depth is one step deeper, not two") {
  const std::string file =
      "class Greeter:\n"
      "    def greet(self, name):\n"
      "        message = \"hi \" + name\n"
      "        print(message)\n"
      "        return message\n";
  CHECK(reindented(file, "message = \"hi \" + name\nprint(message)",
                   "message = \"hi \" + name\nif name:\n    print(message)") ==
        "class Greeter:\n"
        "    def greet(self, name):\n"
        "        message = \"hi \" + name\n"
        "        if name:\n"
        "            print(message)\n"
        "        return message\n");
}

TEST_CASE("rust: oldText at the file's own depth keeps newText's columns (12, not 16)") {
  const std::string file =
      "impl Store {\n"
      "    fn load(&self) {\n"
      "        let x = self.read();   \n"
      "        self.cache(x);\n"
      "    }\n"
      "}\n";
  CHECK(reindented(file, "        let x = self.read();\n        self.cache(x);",
                   "        let x = self.read();\n        if x.is_ok() {\n            "
                   "self.cache(x);\n        }") ==
        "impl Store {\n"
        "    fn load(&self) {\n"
        "        let x = self.read();   \n"
        "        if x.is_ok() {\n"
        "            self.cache(x);\n"
        "        }\n"
        "    }\n"
        "}\n");
}

TEST_CASE("typescript: a 2-space file gets 2-space nesting under a flattened match") {
  const std::string file =
      "export class Store {\n"
      "  load(id: string) {\n"
      "    const item = this.items.get(id);\n"
      "    return item;\n"
      "  }\n"
      "}\n";
  CHECK(reindented(file, "const item = this.items.get(id);\nreturn item;",
                   "const item = this.items.get(id);\nif (!item) {\n  throw new Error(id);\n}\n"
                   "return item;") ==
        "export class Store {\n"
        "  load(id: string) {\n"
        "    const item = this.items.get(id);\n"
        "    if (!item) {\n"
        "      throw new Error(id);\n"
        "    }\n"
        "    return item;\n"
        "  }\n"
        "}\n");
}

TEST_CASE("json: a nested object added to a flattened match follows the file's 2 spaces") {
  const std::string file =
      "{\n"
      "  \"name\": \"app\",\n"
      "  \"scripts\": {\n"
      "    \"build\": \"tsc\",\n"
      "    \"test\": \"jest\"\n"
      "  }\n"
      "}\n";
  CHECK(reindented(file, "\"build\": \"tsc\",\n\"test\": \"jest\"",
                   "\"build\": \"tsc\",\n\"test\": \"jest\",\n\"lint\": {\n  \"fix\": true\n}") ==
        "{\n"
        "  \"name\": \"app\",\n"
        "  \"scripts\": {\n"
        "    \"build\": \"tsc\",\n"
        "    \"test\": \"jest\",\n"
        "    \"lint\": {\n"
        "      \"fix\": true\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("yaml: a model's 4-space oldText maps onto a 2-space file step for step") {
  const std::string file =
      "server:\n"
      "  http:\n"
      "    listen:\n"
      "      port: 80\n"
      "      host: localhost\n";
  CHECK(reindented(file, "http:\n    listen:\n        port: 80\n        host: localhost",
                   "http:\n    listen:\n        port: 80\n        host: localhost\n        tls:\n"
                   "            cert: a.pem") ==
        "server:\n"
        "  http:\n"
        "    listen:\n"
        "      port: 80\n"
        "      host: localhost\n"
        "      tls:\n"
        "        cert: a.pem\n");
}

TEST_CASE("the file's step comes from the enclosing line when the lines nearby share one depth") {
  std::string file = "def main():\n";
  for (int i = 0; i < 80; ++i) file += "    call_" + std::to_string(i) + "()\n";
  std::string want = "def main():\n";
  for (int i = 0; i < 80; ++i) {
    if (i == 75)
      want += "    if ready:\n        call_75()\n";
    else
      want += "    call_" + std::to_string(i) + "()\n";
  }
  CHECK(reindented(file, "call_74()\ncall_75()", "call_74()\nif ready:\n  call_75()") == want);
}

// --- A line shallower than the block loses one step, not the block's depth.

TEST_CASE("python: a method added after a body is one step shallower") {
  const std::string file =
      "class A:\n"
      "    def f(self):\n"
      "        a = 1\n"
      "        b = 2\n";
  CHECK(reindented(file, "    a = 1\n    b = 2",
                   "    a = 1\n    b = 2\n\ndef g(self):\n    return 3") ==
        "class A:\n"
        "    def f(self):\n"
        "        a = 1\n"
        "        b = 2\n"
        "\n"
        "    def g(self):\n"
        "        return 3\n");
}

TEST_CASE("python: oldText at the file's depths dedents a new line by one step") {
  const std::string file =
      "class A:\n"
      "    def f(self):\n"
      "        a = 1  \n"
      "        b = 2\n";
  CHECK(reindented(file, "        a = 1\n        b = 2",
                   "        a = 1\n        b = 2\n    def g(self):\n        return 3") ==
        "class A:\n"
        "    def f(self):\n"
        "        a = 1  \n"
        "        b = 2\n"
        "    def g(self):\n"
        "        return 3\n");
}

TEST_CASE("go: a statement after a loop body lands one tab shallower") {
  const std::string file =
      "func main() {\n"
      "\tfor i := 0; i < 3; i++ {\n"
      "\t\tfmt.Println(i)\n"
      "\t}\n"
      "}\n";
  CHECK(reindented(file, "        fmt.Println(i)\n    }",
                   "        fmt.Println(i)\n    }\n    fmt.Println(\"done\")") ==
        "func main() {\n"
        "\tfor i := 0; i < 3; i++ {\n"
        "\t\tfmt.Println(i)\n"
        "\t}\n"
        "\tfmt.Println(\"done\")\n"
        "}\n");
}

TEST_CASE("yaml: a sibling key shallower than the match") {
  const std::string file =
      "services:\n"
      "  web:\n"
      "    image: nginx\n"
      "    ports:\n"
      "      - \"80:80\"\n"
      "  db:\n"
      "    image: postgres\n";
  CHECK(reindented(file, "  image: nginx\n  ports:\n    - \"80:80\"",
                   "  image: nginx\n  ports:\n    - \"80:80\"\ncache:\n  image: redis") ==
        "services:\n"
        "  web:\n"
        "    image: nginx\n"
        "    ports:\n"
        "      - \"80:80\"\n"
        "  cache:\n"
        "    image: redis\n"
        "  db:\n"
        "    image: postgres\n");
}

// --- oldText flattened to column 0: each line keeps the depth of the line it replaces.

TEST_CASE("markdown: a changed item of a flattened nested list keeps its own depth") {
  const std::string file =
      "# Tasks\n"
      "\n"
      "- groceries\n"
      "  - milk\n"
      "  - eggs\n"
      "- chores\n"
      "  - laundry\n";
  CHECK(reindented(file, "- groceries\n- milk\n- eggs\n- chores",
                   "- groceries\n- milk\n- bread\n- chores") ==
        "# Tasks\n\n- groceries\n  - milk\n  - bread\n- chores\n  - laundry\n");
  CHECK(reindented(file, "- groceries\n- milk\n- eggs\n- chores",
                   "- groceries\n- milk\n- butter\n- eggs\n- chores") ==
        "# Tasks\n\n- groceries\n  - milk\n  - butter\n  - eggs\n- chores\n  - laundry\n");
}

TEST_CASE("markdown: an item inserted between two depths of a flattened list is refused") {
  const std::string file = "- groceries\n  - milk\n  - eggs\n- chores\n";
  Error e = refusal(file, "- groceries\n- milk\n- eggs\n- chores",
                    "- groceries\n- milk\n- eggs\n- soap\n- chores");
  check_refused_for_indentation(e);
  CHECK(e.data["startLine"] == 1);
  CHECK(e.data["endLine"] == 4);
  CHECK(e.message.find("line 4") != std::string::npos);
}

TEST_CASE("yaml: a changed entry of a flattened mapping keeps its own depth") {
  const std::string file =
      "jobs:\n"
      "  build:\n"
      "    runs-on: ubuntu-latest\n"
      "    steps:\n"
      "      - run: make\n";
  CHECK(reindented(file, "build:\nruns-on: ubuntu-latest\nsteps:\n- run: make",
                   "build:\nruns-on: ubuntu-22.04\nsteps:\n- run: make test") ==
        "jobs:\n"
        "  build:\n"
        "    runs-on: ubuntu-22.04\n"
        "    steps:\n"
        "      - run: make test\n");
}

TEST_CASE("python: a flattened oldText changes a line at its own depth, and refuses a guess") {
  const std::string file =
      "def f(x):\n"
      "    if x:\n"
      "        return 1\n"
      "    return 0\n";
  CHECK(reindented(file, "if x:\nreturn 1\nreturn 0", "if x:\nreturn 2\nreturn 0") ==
        "def f(x):\n    if x:\n        return 2\n    return 0\n");
  check_refused_for_indentation(
      refusal(file, "if x:\nreturn 1\nreturn 0", "if x:\nreturn 1\nlog(x)\nreturn 0"));
}

TEST_CASE("python: oldText whose relative depths are wrong never moves a line into a block") {
  const std::string file = "if a:\n    x = 1\ny = 2\n";
  CHECK(reindented(file, "if a:\n    x = 1\n    y = 2", "if a:\n    x = 1\n    y = 3") ==
        "if a:\n    x = 1\ny = 3\n");
}

// --- GNU style: a tab stands for 8 columns, then spaces.

const std::string kGnu =
    "void\n"
    "f (int x)\n"
    "{\n"
    "  if (x)\n"
    "    {\n"
    "      prepare ();\n"
    "      finish ();\n"
    "    }\n"
    "  else\n"
    "    {\n"
    "      if (x < 0)\n"
    "\t{\n"
    "\t  fail ();\n"
    "\t}\n"
    "    }\n"
    "}\n";

TEST_CASE("gnu c: a line two columns deeper than a tab is a tab and two spaces") {
  CHECK(reindented(kGnu, "if (x < 0)\n  {\n    fail ();\n  }",
                   "if (x < 0)\n  {\n    fail ();\n    if (x < -1)\n      abort ();\n  }") ==
        "void\nf (int x)\n{\n  if (x)\n    {\n      prepare ();\n      finish ();\n    }\n"
        "  else\n    {\n      if (x < 0)\n\t{\n\t  fail ();\n\t  if (x < -1)\n\t    abort ();\n"
        "\t}\n    }\n}\n");
}

TEST_CASE("gnu c: nesting under a match at one depth crosses a tab stop as a tab") {
  CHECK(reindented(kGnu, "prepare ();\nfinish ();", "prepare ();\nif (ready ())\n  finish ();") ==
        "void\nf (int x)\n{\n  if (x)\n    {\n      prepare ();\n      if (ready ())\n"
        "\tfinish ();\n    }\n  else\n    {\n      if (x < 0)\n\t{\n\t  fail ();\n\t}\n    }\n}\n");
}

TEST_CASE("c: comment alignment (one column) survives, and the step stays the file's") {
  const std::string file =
      "struct S {\n"
      "    /**\n"
      "     * Returns the size.\n"
      "     */\n"
      "    int size() const;\n"
      "};\n";
  CHECK(reindented(file, "/**\n * Returns the size.\n */\nint size() const;",
                   "/**\n * Returns the size.\n * Never negative.\n */\nint size() const;") ==
        "struct S {\n    /**\n     * Returns the size.\n     * Never negative.\n     */\n"
        "    int size() const;\n};\n");
}

// --- Tabs: a Makefile's recipe lines stay tabs when the model wrote spaces.

TEST_CASE("makefile: recipe lines written with spaces are written with a tab") {
  const std::string file =
      "CC = cc\n"
      "\n"
      "app: main.o util.o\n"
      "\t$(CC) -o app main.o util.o\n"
      "\n"
      "clean:\n"
      "\trm -f app *.o\n";
  CHECK(reindented(file, "clean:\n    rm -f app *.o",
                   "clean:\n    rm -f app *.o\n    rm -rf build") ==
        "CC = cc\n\napp: main.o util.o\n\t$(CC) -o app main.o util.o\n\nclean:\n"
        "\trm -f app *.o\n\trm -rf build\n");
  CHECK(reindented(file, "app: main.o util.o\n    $(CC) -o app main.o util.o",
                   "app: main.o util.o\n    $(CC) $(LDFLAGS) -o app main.o util.o") ==
        "CC = cc\n\napp: main.o util.o\n\t$(CC) $(LDFLAGS) -o app main.o util.o\n\nclean:\n"
        "\trm -f app *.o\n");
}

// --- Special spaces the unicode tier folds are indentation too.

TEST_CASE("python indented with no-break spaces keeps them on the lines the edit changes") {
  const std::string nbsp4 = "\u00a0\u00a0\u00a0\u00a0";
  const std::string file = "def f():\n" + nbsp4 + "a = 1\n" + nbsp4 + "return a\n";
  auto p =
      standard_plan(file, "def f():\n    a = 1\n    return a", "def f():\n    a = 2\n    return a");
  REQUIRE(p.has_value());
  CHECK(p->tier == "unicode");
  CHECK(splice::apply_edits(file, p->edits) ==
        "def f():\n" + nbsp4 + "a = 2\n" + nbsp4 + "return a\n");
  // A line added at a depth the match shows is indented as the file's line of that depth.
  CHECK(reindented(file, "def f():\n    a = 1\n    return a",
                   "def f():\n    a = 1\n    b = a\n    return b") ==
        "def f():\n" + nbsp4 + "a = 1\n" + nbsp4 + "b = a\n" + nbsp4 + "return b\n");
  // A depth no line near the match has, with oldText at the file's own depths:
  // as deep as newText says, written as the model wrote it.
  CHECK(reindented(file, "def f():\n    a = 1\n    return a",
                   "def f():\n    a = 1\n    if a:\n        return a") ==
        "def f():\n" + nbsp4 + "a = 1\n" + nbsp4 + "if a:\n        return a\n");
}

TEST_CASE("markdown: a list indented with ideographic spaces keeps them on a changed item") {
  const std::string sp = "\u3000\u3000";
  const std::string file = "Steps:\n" + sp + "- open the valve\n" + sp + "- close the door\n";
  CHECK(reindented(file, "Steps:\n  - open the valve\n  - close the door",
                   "Steps:\n  - open the valve slowly\n  - close the door") ==
        "Steps:\n" + sp + "- open the valve slowly\n" + sp + "- close the door\n");
}

// --- Where the map is unknown, the edit is refused.

TEST_CASE("no step anywhere near a shifted match: a deeper line is refused") {
  check_refused_for_indentation(
      refusal("    a = 1\n    b = 2\n", "a = 1\nb = 2", "a = 1\nif b:\n    b = 2"));
}

TEST_CASE("no step near a shifted match: lines at oldText's depth are still mapped") {
  CHECK(reindented("    a = 1\n    b = 2\n", "a = 1\nb = 2", "a = 1\nb = 3\nc = 4") ==
        "    a = 1\n    b = 3\n    c = 4\n");
}

TEST_CASE("tabs and spaces mixed near the match: a depth no line has is refused") {
  const std::string file =
      "class A {\n"
      "    void f() {\n"
      "        g();\n"
      "\tif (a) {\n"
      "\t    b();\n"
      "\t}\n"
      "    }\n"
      "}\n";
  CHECK(reindented(file, "if (a) {\n    b();\n}", "if (a) {\n    b();\n    c();\n}") ==
        "class A {\n    void f() {\n        g();\n\tif (a) {\n\t    b();\n\t    c();\n\t}\n    "
        "}\n}\n");
  check_refused_for_indentation(refusal(
      file, "if (a) {\n    b();\n}", "if (a) {\n    b();\n    if (c) {\n        d();\n    }\n}"));
}

TEST_CASE("an indentation refusal comes after ambiguity") {
  const std::string file = "- a\n  - b\n- c\n  - d\n";
  auto p = standard_plan(file, "- a\n- b\n- c\n- d", "- a\n- b\n- x\n- c\n- d");
  REQUIRE(p.has_error());
  check_refused_for_indentation(p.error());
  auto twice = standard_plan(file + "\n" + file, "- a\n- b\n- c\n- d", "- a\n- b\n- x\n- c\n- d");
  REQUIRE(twice.has_error());
  CHECK(twice.error().kind == ErrorKind::kAmbiguous);
}

// --- Lines the edit keeps keep their bytes, whatever their indentation.

TEST_CASE("kept lines keep odd indentation and trailing blanks while new lines are mapped") {
  const std::string file =
      "fn f() {\n"
      "    let a = 1;\t \n"
      "  \t let b = 2;\n"
      "    let c = 3;\n"
      "}\n";
  CHECK(reindented(file, "let a = 1;\nlet b = 2;\nlet c = 3;",
                   "let a = 1;\nlet b = 2;\nlet c = 4;") ==
        "fn f() {\n    let a = 1;\t \n  \t let b = 2;\n    let c = 4;\n}\n");
}

TEST_CASE("reindent maps the lines of each block and keeps blank lines as written") {
  const std::vector<std::string_view> file = {"def f():", "    a = 1", "    b = 2"};
  const std::vector<std::string_view> old_lines = {"a = 1", "b = 2"};
  const std::vector<std::string_view> new_lines = {"a = 1", "  ", "if a:", "    b = 2"};
  auto blocks = diff::diff_lines(old_lines, new_lines);
  auto lines = reindent(Window{file, 1, old_lines}, new_lines, blocks);
  REQUIRE(lines.has_value());
  CHECK(*lines == std::vector<std::string>{"  ", "    if a:", "        b = 2"});
}

// --- Two steps deeper, through both maps at once.

TEST_CASE("typescript: a model's 4-space lines two levels deeper land two 2-space steps deeper") {
  const std::string file =
      "function f(xs: number[]) {\n"
      "  for (const x of xs) {\n"
      "    use(x);\n"
      "  }\n"
      "}\n";
  CHECK(reindented(
            file, "for (const x of xs) {\n    use(x);\n}",
            "for (const x of xs) {\n    use(x);\n    if (x > 0) {\n        log(x);\n    }\n}") ==
        "function f(xs: number[]) {\n"
        "  for (const x of xs) {\n"
        "    use(x);\n"
        "    if (x > 0) {\n"
        "      log(x);\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("c: a tab-indented file gets tabs for a model's 4-space nesting") {
  const std::string file =
      "int f(int x)\n"
      "{\n"
      "\tif (x) {\n"
      "\t\treturn 1;\n"
      "\t}\n"
      "\treturn 0;\n"
      "}\n";
  CHECK(reindented(file, "    if (x) {\n        return 1;\n    }",
                   "    if (x) {\n        if (x > 1) {\n            return 2;\n        }\n"
                   "        return 1;\n    }") ==
        "int f(int x)\n"
        "{\n"
        "\tif (x) {\n"
        "\t\tif (x > 1) {\n"
        "\t\t\treturn 2;\n"
        "\t\t}\n"
        "\t\treturn 1;\n"
        "\t}\n"
        "\treturn 0;\n"
        "}\n");
}
