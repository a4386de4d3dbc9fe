// list and search through the real binary (issue 57): literal and regular
// expressions, case, context, globs, paging, bounds, .gitignore (and a
// hostile repository's config that must have no effect), links never
// followed, binary files skipped, and search's anchors taken by edit_lines.
#include <doctest/doctest.h>

#include <set>

#include "helpers/process.h"

using namespace editd::test;

namespace {

// The "path:line" of each hit, in order.
std::vector<std::string> hit_places(const json& r) {
  std::vector<std::string> out;
  for (const json& h : r["hits"])
    out.push_back(h["path"].get<std::string>() + ":" + std::to_string(h["line"].get<int>()));
  return out;
}

std::set<std::string> listed_paths(const json& r) {
  std::set<std::string> out;
  for (const json& e : r["entries"]) out.insert(e["path"].get<std::string>());
  return out;
}

// A root that is a git repository (a .git directory).
void make_repo(const TempDir& root) {
  fs::create_directories(root.path() / ".git" / "info");
  root.write(".git/HEAD", "ref: refs/heads/main\n");
  fs::create_directories(root.path() / ".git" / "objects");
  fs::create_directories(root.path() / ".git" / "refs");
}

}  // namespace

TEST_CASE("search: a literal is found in every file, with line numbers and anchors") {
  TempDir root;
  root.write("a.txt", "one\ntwo needle\nthree\n");
  root.write("src/b.cpp", "needle at start\nnothing\n(needle) [x]\n");
  auto p = spawn_editd(root);
  json r = p.ok("search", {{"pattern", "needle"}});
  CHECK(hit_places(r) == std::vector<std::string>{"a.txt:2", "src/b.cpp:1", "src/b.cpp:3"});
  CHECK(r["hits"][0]["text"] == "two needle");
  const std::string anchor = r["hits"][0]["anchor"];
  CHECK(anchor.starts_with("2~"));
  CHECK(r["filesScanned"] == 2);
  CHECK(r["filesWithHits"] == 2);
  CHECK_FALSE(r.contains("nextCursor"));
  CHECK_FALSE(r.contains("truncated"));
  // A literal's regex characters are literal.
  json lit = p.ok("search", {{"pattern", "(needle) [x]"}});
  CHECK(hit_places(lit) == std::vector<std::string>{"src/b.cpp:3"});
}

TEST_CASE("search: a regular expression, and a bad one names pattern with PCRE2's offset") {
  TempDir root;
  root.write("a.c", "int foo(void);\nint  bar (int x);\nchar *baz;\n");
  auto p = spawn_editd(root);
  json r = p.ok("search", {{"pattern", "^int\\s+\\w+\\s*\\("}, {"regex", true}});
  CHECK(hit_places(r) == std::vector<std::string>{"a.c:1", "a.c:2"});
  json e = p.fails("search", {{"pattern", "foo(bar"}, {"regex", true}});
  CHECK(e["code"] == -32602);
  CHECK(e["data"]["param"] == "pattern");
  CHECK(e["data"]["offset"] == 7);
  CHECK(std::string(e["message"]).find("missing closing parenthesis") != std::string::npos);
}

TEST_CASE("search: case-insensitive when asked, for literals and expressions") {
  TempDir root;
  root.write("a.txt", "Hello\nHELLO\nhello\nhelp\n");
  auto p = spawn_editd(root);
  CHECK(p.ok("search", {{"pattern", "hello"}})["hits"].size() == 1);
  CHECK(p.ok("search", {{"pattern", "hello"}, {"ignoreCase", true}})["hits"].size() == 3);
  CHECK(p.ok("search", {{"pattern", "hel+o"}, {"regex", true}, {"caseSensitive", false}})["hits"]
            .size() == 3);
}

TEST_CASE("search: context lines before and after each hit, bounded") {
  TempDir root;
  root.write("a.txt", "l1\nl2\nl3 hit\nl4\nl5\n");
  auto p = spawn_editd(root);
  json r = p.ok("search", {{"pattern", "hit"}, {"before", 1}, {"after", 2}});
  REQUIRE(r["hits"].size() == 1);
  const json& h = r["hits"][0];
  REQUIRE(h["before"].size() == 1);
  CHECK(h["before"][0]["line"] == 2);
  CHECK(h["before"][0]["text"] == "l2");
  REQUIRE(h["after"].size() == 2);
  CHECK(h["after"][1]["text"] == "l5");
  CHECK(p.fails("search", {{"pattern", "hit"}, {"context", 11}})["data"]["param"] == "context");
}

TEST_CASE("search: glob chooses files, exclude skips files and directories") {
  TempDir root;
  root.write("a.cpp", "x\n");
  root.write("a.h", "x\n");
  root.write("gen/b.cpp", "x\n");
  root.write("src/c.py", "x\n");
  auto p = spawn_editd(root);
  CHECK(hit_places(p.ok("search", {{"pattern", "x"}, {"glob", {"*.cpp"}}})) ==
        std::vector<std::string>{"a.cpp:1", "gen/b.cpp:1"});
  CHECK(hit_places(p.ok("search", {{"pattern", "x"}, {"glob", {"*.cpp"}}, {"exclude", {"gen"}}})) ==
        std::vector<std::string>{"a.cpp:1"});
  CHECK(hit_places(p.ok("search", {{"pattern", "x"}, {"glob", {"src/*"}}})) ==
        std::vector<std::string>{"src/c.py:1"});
}

TEST_CASE("search: pages with a cursor go on where the last stopped, missing nothing") {
  TempDir root;
  std::string many;
  for (int i = 1; i <= 7; ++i) many += "hit " + std::to_string(i) + "\n";
  root.write("a.txt", many);
  root.write("b.txt", "hit b\n");
  root.write("c.txt", "hit c1\nhit c2\n");
  auto p = spawn_editd(root);
  std::vector<std::string> all;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    json params = {{"pattern", "hit"}, {"limit", 3}};
    if (cursor) params["cursor"] = *cursor;
    json r = p.ok("search", params);
    for (const std::string& s : hit_places(r)) all.push_back(s);
    cursor.reset();
    if (r.contains("nextCursor")) {
      CHECK(r["truncatedBy"] == "limit");
      cursor = r["nextCursor"];
    }
    REQUIRE(++pages < 10);
  } while (cursor);
  CHECK(all.size() == 10);
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == 10);
  CHECK(all.front() == "a.txt:1");
  CHECK(all.back() == "c.txt:2");
  CHECK(p.fails("search", {{"pattern", "hit"}, {"cursor", "nonsense"}})["data"]["param"] ==
        "cursor");
}

TEST_CASE("search: a bound that stops the search says so, with a cursor to go on") {
  TempDir root;
  for (int i = 0; i < 5; ++i) root.write("f" + std::to_string(i) + ".txt", "hit\n");
  auto p = spawn_editd(root);
  json r = p.ok("search", {{"pattern", "hit"}, {"maxFiles", 2}});
  CHECK(r["hits"].size() == 2);
  CHECK(r["truncated"] == true);
  CHECK(r["truncatedBy"] == "files");
  REQUIRE(r.contains("nextCursor"));
  json next = p.ok("search", {{"pattern", "hit"}, {"maxFiles", 10}, {"cursor", r["nextCursor"]}});
  CHECK(hit_places(next) == std::vector<std::string>{"f2.txt:1", "f3.txt:1", "f4.txt:1"});
  CHECK(p.fails("search", {{"pattern", "hit"}, {"limit", 1001}})["data"]["param"] == "limit");
}

TEST_CASE("search and list: .gitignore honoured in a repository, nested ones too; includeIgnored") {
  TempDir root;
  make_repo(root);
  root.write(".gitignore", "*.log\nbuild/\n");
  root.write("a.txt", "hit\n");
  root.write("debug.log", "hit\n");
  root.write("build/out.txt", "hit\n");
  // A negation that re-includes what a parent's .gitignore ignores is not
  // honoured by libgit2 1.5 (git does honour it): within one file it is.
  root.write("sub/.gitignore", "*.txt\n!other.txt\n");
  root.write("sub/secret.txt", "hit\n");
  root.write("sub/keep.log", "hit\n");
  root.write("sub/other.txt", "hit\n");
  root.write(".git/info/exclude", "excluded.txt\n");
  root.write("excluded.txt", "hit\n");
  auto p = spawn_editd(root);
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}})) ==
        std::vector<std::string>{"a.txt:1", "sub/other.txt:1"});
  CHECK(p.ok("search", {{"pattern", "hit"}, {"includeIgnored", true}})["hits"].size() == 7);
  CHECK(listed_paths(p.ok("list", {{"depth", 2}})) ==
        std::set<std::string>{"a.txt", "sub", "sub/other.txt"});
  CHECK(listed_paths(p.ok("list", {{"includeIgnored", true}})) ==
        std::set<std::string>{"a.txt", "build", "debug.log", "excluded.txt", "sub"});
}

TEST_CASE("search: outside a repository .gitignore is not honoured (as ripgrep)") {
  TempDir root;
  root.write(".gitignore", "*.log\n");
  root.write("debug.log", "hit\n");
  auto p = spawn_editd(root);
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}})) ==
        std::vector<std::string>{"debug.log:1"});
}

TEST_CASE("search: a hostile .git/config (core.excludesFile, include.path) has no effect") {
  TempDir root;
  TempDir outside;
  outside.write("ignore-all", "*\n");
  make_repo(root);
  root.write(".git/config", "[core]\n\texcludesFile = " + outside.str() +
                                "/ignore-all\n[include]\n\tpath = " + outside.str() +
                                "/ignore-all\n");
  root.write("a.txt", "hit\n");
  auto p = spawn_editd(root);
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}})) == std::vector<std::string>{"a.txt:1"});
}

TEST_CASE("search: a .gitignore that is a link out of the root is never read") {
  TempDir root;
  TempDir outside;
  outside.write("rules", "*.txt\n");
  make_repo(root);
  fs::create_directories(root.path() / "sub");
  fs::create_symlink(outside.path() / "rules", root.path() / "sub" / ".gitignore");
  root.write("sub/a.txt", "hit\n");
  auto p = spawn_editd(root);
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}})) ==
        std::vector<std::string>{"sub/a.txt:1"});
}

TEST_CASE("search and list: links are listed, never followed, in or out of the root") {
  TempDir root;
  TempDir outside;
  outside.write("secret.txt", "hit outside\n");
  root.write("in.txt", "hit inside\n");
  fs::create_symlink(outside.path() / "secret.txt", root.path() / "file-link");
  fs::create_symlink(outside.path(), root.path() / "dir-link");
  fs::create_symlink(root.path() / "in.txt", root.path() / "inner-link");
  auto p = spawn_editd(root);
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}})) == std::vector<std::string>{"in.txt:1"});
  json l = p.ok("list", {{"depth", 3}});
  std::map<std::string, std::string> kinds;
  for (const json& e : l["entries"]) kinds[e["path"]] = e["kind"];
  CHECK(kinds == std::map<std::string, std::string>{{"dir-link", "symlink"},
                                                    {"file-link", "symlink"},
                                                    {"in.txt", "file"},
                                                    {"inner-link", "symlink"}});
}

TEST_CASE("search: binary and non-UTF-8 files are skipped and counted; list tells text") {
  TempDir root;
  root.write("bin.dat", std::string("hit\0\x01\x02", 6));
  root.write("latin1.txt", "hit caf\xe9\n");
  root.write("ok.txt", "hit\n");
  auto p = spawn_editd(root);
  json r = p.ok("search", {{"pattern", "hit"}});
  CHECK(hit_places(r) == std::vector<std::string>{"ok.txt:1"});
  CHECK(r["skipped"]["binary"] == 2);
  json l = p.ok("list", json::object());
  std::map<std::string, bool> text;
  for (const json& e : l["entries"]) text[e["path"]] = e["text"];
  CHECK(text == std::map<std::string, bool>{{"bin.dat", false}, {"latin1.txt", false},
                                            {"ok.txt", true}});
}

TEST_CASE("search: anchors it returns are taken by edit_lines, also after a read of the file") {
  TempDir root;
  root.write("a.py", "def f():\n    return 1\n\ndef g():\n    return 2\n");
  auto p = spawn_editd(root);
  json r = p.ok("search", {{"pattern", "return 2"}});
  REQUIRE(r["hits"].size() == 1);
  const std::string anchor = r["hits"][0]["anchor"];
  p.ok("edit_lines",
       {{"path", "a.py"}, {"edits", {{{"replace", {{"start", anchor}}}, {"newText", "    return 3"}}}}});
  CHECK(root.read("a.py") == "def f():\n    return 1\n\ndef g():\n    return 3\n");
  // A connection that read another part of the file first: the search's
  // view vouches for its anchors.
  auto q = spawn_editd(root);
  q.ok("read_text", {{"path", "a.py"}, {"line", 1}, {"limit", 2}, {"format", "hashline"}});
  json s = q.ok("search", {{"pattern", "return 3"}});
  REQUIRE(s["hits"].size() == 1);
  q.ok("edit_lines", {{"path", "a.py"},
                      {"edits", {{{"replace", {{"start", s["hits"][0]["anchor"]}}},
                                  {"newText", "    return 4"}}}}});
  CHECK(root.read("a.py") == "def f():\n    return 1\n\ndef g():\n    return 4\n");
}

TEST_CASE("search and list: a path outside the root is refused; a sub-path or a file is searched") {
  TempDir root;
  root.write("a/x.txt", "hit\n");
  root.write("b/y.txt", "hit\n");
  auto p = spawn_editd(root);
  CHECK(p.fails("search", {{"pattern", "hit"}, {"path", "../"}})["data"]["kind"] == "outside_root");
  CHECK(p.fails("list", {{"path", "/etc"}})["data"]["kind"] == "outside_root");
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}, {"path", "b"}})) ==
        std::vector<std::string>{"b/y.txt:1"});
  CHECK(hit_places(p.ok("search", {{"pattern", "hit"}, {"path", "a/x.txt"}})) ==
        std::vector<std::string>{"a/x.txt:1"});
  CHECK(listed_paths(p.ok("list", {{"path", "b"}})) == std::set<std::string>{"b/y.txt"});
}

TEST_CASE("list: depth, glob, hidden names, editd's state, and pages with a cursor") {
  TempDir root;
  root.write("a.txt", "1");
  root.write("d/b.txt", "22");
  root.write("d/e/c.md", "333");
  root.write(".hidden", "x");
  root.write(".editd/journal/x", "x");
  auto p = spawn_editd(root);
  json one = p.ok("list", json::object());
  CHECK(listed_paths(one) == std::set<std::string>{"a.txt", "d"});
  CHECK(one["entries"][0]["size"] == 1);
  CHECK(listed_paths(p.ok("list", {{"depth", 3}})) ==
        std::set<std::string>{"a.txt", "d", "d/b.txt", "d/e", "d/e/c.md"});
  CHECK(listed_paths(p.ok("list", {{"depth", 3}, {"glob", "*.txt"}})) ==
        std::set<std::string>{"a.txt", "d/b.txt"});
  CHECK(listed_paths(p.ok("list", {{"includeHidden", true}})) ==
        std::set<std::string>{".hidden", "a.txt", "d"});
  std::vector<std::string> paged;
  std::optional<std::string> cursor;
  for (int i = 0; i < 10; ++i) {
    json params = {{"depth", 3}, {"limit", 2}};
    if (cursor) params["cursor"] = *cursor;
    json r = p.ok("list", params);
    for (const json& e : r["entries"]) paged.push_back(e["path"]);
    if (!r.contains("nextCursor")) break;
    cursor = r["nextCursor"];
  }
  CHECK(paged == std::vector<std::string>{"a.txt", "d", "d/b.txt", "d/e", "d/e/c.md"});
  CHECK(p.fails("list", {{"depth", 17}})["data"]["param"] == "depth");
}
