// The edit methods through the real binary against a real directory.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "helpers/process.h"

using namespace editd::test;

TEST_CASE("read_text returns content, fingerprint and line counts") {
  TempDir root;
  root.write("a.txt", "one\ntwo\nthree\n");
  auto p = spawn_editd(root);
  json r = p.ok("read_text", {{"path", "a.txt"}});
  CHECK(r["content"] == "one\ntwo\nthree\n");
  CHECK(r["totalLines"] == 3);
  CHECK(r["line"] == 1);
  CHECK(r["lineCount"] == 3);
  CHECK(r["fingerprint"].get<std::string>().rfind("xxh3:", 0) == 0);
}

TEST_CASE("read_text slices by line and limit and keeps the whole file's fingerprint") {
  TempDir root;
  root.write("a.txt", "1\r\n2\r\n3\r\n4\r\n");
  auto p = spawn_editd(root);
  json whole = p.ok("read_text", {{"path", "a.txt"}});
  json r = p.ok("read_text", {{"path", "a.txt"}, {"line", 2}, {"limit", 2}});
  CHECK(r["content"] == "2\r\n3\r\n");
  CHECK(r["line"] == 2);
  CHECK(r["lineCount"] == 2);
  CHECK(r["totalLines"] == 4);
  CHECK(r["fingerprint"] == whole["fingerprint"]);
  json tail = p.ok("read_text", {{"path", "a.txt"}, {"line", 4}, {"limit", 10}});
  CHECK(tail["content"] == "4\r\n");
  json e = p.fails("read_text", {{"path", "a.txt"}, {"line", 5}});
  CHECK(e["code"] == -32036);
  CHECK(e["data"]["kind"] == "line_out_of_range");
  CHECK(e["data"]["totalLines"] == 4);
}

TEST_CASE("read_text counts lines as documented and strips a BOM") {
  TempDir root;
  root.write("empty", "");
  root.write("nl", "\n");
  root.write("nofinal", "a\nb");
  root.write("bom", "\xEF\xBB\xBFhi\n");
  auto p = spawn_editd(root);
  CHECK(p.ok("read_text", {{"path", "empty"}})["totalLines"] == 0);
  CHECK(p.ok("read_text", {{"path", "nl"}})["totalLines"] == 1);
  CHECK(p.ok("read_text", {{"path", "nofinal"}})["totalLines"] == 2);
  CHECK(p.ok("read_text", {{"path", "bom"}})["content"] == "hi\n");
}

TEST_CASE("errors for missing files, directories, binary files and special files") {
  TempDir root;
  root.write("bin", std::string("a\0b", 3));
  root.write("latin1", "caf\xe9\n");
  root.write("file", "x\n");
  ::mkfifo((root.path() / "fifo").c_str(), 0600);
  std::filesystem::create_directory(root.path() / "dir");
  auto p = spawn_editd(root);
  CHECK(p.fails("read_text", {{"path", "missing.txt"}})["code"] == -32002);
  CHECK(p.fails("read_text", {{"path", "dir"}})["data"]["kind"] == "is_directory");
  CHECK(p.fails("read_text", {{"path", "."}})["data"]["kind"] == "is_directory");
  CHECK(p.fails("read_text", {{"path", "bin"}})["data"]["kind"] == "not_text");
  CHECK(p.fails("read_text", {{"path", "latin1"}})["data"]["kind"] == "not_text");
  CHECK(p.fails("read_text", {{"path", "fifo"}})["data"]["kind"] == "not_text");
  CHECK(p.fails("read_text", {{"path", "file/child"}})["data"]["kind"] == "not_found");
  // Refused files are never written back.
  CHECK(p.fails("str_replace", {{"path", "latin1"}, {"oldText", "caf"}, {"newText", "tea"}})["data"]["kind"] == "not_text");
  CHECK(root.read("latin1") == "caf\xe9\n");
}

TEST_CASE("paths outside the root are refused, even through links and dot-dot") {
  TempDir outside;
  outside.write("secret.txt", "s\n");
  TempDir root;
  root.write("a.txt", "a\n");
  std::filesystem::create_symlink(outside.path(), root.path() / "out");
  std::filesystem::create_symlink(outside.path() / "new.txt", root.path() / "dangling");
  auto p = spawn_editd(root);
  CHECK(p.fails("read_text", {{"path", "../x"}})["data"]["kind"] == "outside_root");
  CHECK(p.fails("read_text", {{"path", "out/secret.txt"}})["code"] == -32031);
  CHECK(p.fails("write_text", {{"path", "out/new.txt"}, {"content", "x"}})["data"]["kind"] == "outside_root");
  CHECK(p.fails("write_text", {{"path", "dangling"}, {"content", "x"}})["data"]["kind"] == "outside_root");
  CHECK(p.fails("read_text", {{"path", outside.str() + "/secret.txt"}})["data"]["kind"] == "outside_root");
  CHECK_FALSE(outside.exists("new.txt"));
  // Leaving and coming back is judged after resolution.
  std::string back = "../" + root.path().filename().string() + "/a.txt";
  CHECK(p.ok("read_text", {{"path", back}})["content"] == "a\n");
  CHECK(p.ok("read_text", {{"path", root.str() + "/a.txt"}})["content"] == "a\n");
}

TEST_CASE("a link inside the root is edited through: the target changes, the link stays") {
  TempDir root;
  root.write("target.txt", "old\n");
  std::filesystem::create_symlink("target.txt", root.path() / "link.txt");
  auto p = spawn_editd(root);
  p.ok("str_replace", {{"path", "link.txt"}, {"oldText", "old"}, {"newText", "new"}});
  CHECK(std::filesystem::is_symlink(root.path() / "link.txt"));
  CHECK(root.read("target.txt") == "new\n");
}

TEST_CASE("a symlink loop is an io error naming ELOOP") {
  TempDir root;
  std::filesystem::create_symlink("b", root.path() / "a");
  std::filesystem::create_symlink("a", root.path() / "b");
  auto p = spawn_editd(root);
  json e = p.fails("read_text", {{"path", "a"}});
  CHECK(e["data"]["kind"] == "io");
  CHECK(e["data"]["errno"] == "ELOOP");
}

TEST_CASE("write_text creates files and parents and reports a diff") {
  TempDir root;
  auto p = spawn_editd(root);
  json r = p.ok("write_text", {{"path", "new/dir/a.txt"}, {"content", "x\ny\n"}});
  CHECK(r["created"] == true);
  CHECK(r["added"] == 2);
  CHECK(r["removed"] == 0);
  CHECK(r["diff"] == "--- /dev/null\n+++ b/new/dir/a.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n");
  CHECK(root.read("new/dir/a.txt") == "x\ny\n");
  json again = p.ok("write_text", {{"path", "new/dir/a.txt"}, {"content", "x\nz\n"}});
  CHECK(again["created"] == false);
  CHECK(again["diff"] == "--- a/new/dir/a.txt\n+++ b/new/dir/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n");
  CHECK(again["fingerprint"] == p.ok("fingerprint", {{"path", "new/dir/a.txt"}})["fingerprint"]);
}

TEST_CASE("write_text onto an existing file keeps its line endings and BOM") {
  TempDir root;
  root.write("crlf.txt", "\xEF\xBB\xBF" "a\r\nb\r\n");
  auto p = spawn_editd(root);
  p.ok("write_text", {{"path", "crlf.txt"}, {"content", "a\nc\nd\n"}});
  CHECK(root.read("crlf.txt") == "\xEF\xBB\xBF" "a\r\nc\r\nd\r\n");
}

TEST_CASE("writes keep the file's mode and leave no temporary file") {
  TempDir root;
  root.write("run.sh", "echo hi\n");
  ::chmod((root.path() / "run.sh").c_str(), 0751);
  auto p = spawn_editd(root);
  p.ok("str_replace", {{"path", "run.sh"}, {"oldText", "hi"}, {"newText", "bye"}});
  struct stat st;
  REQUIRE(::stat((root.path() / "run.sh").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0751);
  CHECK(root.files() == std::vector<std::string>{"run.sh"});
}

TEST_CASE("create refuses existing files and directories") {
  TempDir root;
  root.write("a.txt", "a\n");
  std::filesystem::create_directory(root.path() / "d");
  auto p = spawn_editd(root);
  CHECK(p.fails("create", {{"path", "a.txt"}, {"content", "x"}})["code"] == -32030);
  CHECK(p.fails("create", {{"path", "d"}, {"content", "x"}})["data"]["kind"] == "exists");
  json r = p.ok("create", {{"path", "sub/b.txt"}, {"content", "b"}});
  CHECK(r["created"] == true);
  CHECK(root.read("sub/b.txt") == "b");
  CHECK(root.read("a.txt") == "a\n");
}

TEST_CASE("a parent that is a regular file is not_found") {
  TempDir root;
  root.write("file", "x\n");
  auto p = spawn_editd(root);
  CHECK(p.fails("write_text", {{"path", "file/a.txt"}, {"content", "x"}})["data"]["kind"] == "not_found");
}

TEST_CASE("insert adds whole lines after a line, with the file's endings") {
  TempDir root;
  root.write("a.txt", "one\r\ntwo\r\n");
  root.write("b.txt", "one\ntwo");
  auto p = spawn_editd(root);
  json r = p.ok("insert", {{"path", "a.txt"}, {"line", 1}, {"text", "mid"}});
  CHECK(root.read("a.txt") == "one\r\nmid\r\ntwo\r\n");
  CHECK(r["lines"] == json::parse(R"([{"startLine":2,"endLine":2}])"));
  p.ok("insert", {{"path", "a.txt"}, {"line", 0}, {"text", "top\nagain\n"}});
  CHECK(root.read("a.txt") == "top\r\nagain\r\none\r\nmid\r\ntwo\r\n");
  p.ok("insert", {{"path", "b.txt"}, {"line", 2}, {"text", "three"}});
  CHECK(root.read("b.txt") == "one\ntwo\nthree");
  json e = p.fails("insert", {{"path", "b.txt"}, {"line", 9}, {"text", "x"}});
  CHECK(e["data"]["kind"] == "line_out_of_range");
  CHECK(p.fails("insert", {{"path", "b.txt"}, {"line", 1}, {"text", ""}})["data"]["param"] == "text");
}

TEST_CASE("str_replace replaces one exact hit and reports where") {
  TempDir root;
  root.write("a.c", "int a;\nint b;\nint c;\n");
  auto p = spawn_editd(root);
  json r = p.ok("str_replace", {{"path", "a.c"}, {"oldText", "int b;"}, {"newText", "long b;\nlong b2;"}});
  CHECK(r["replacements"] == 1);
  CHECK(r["lines"] == json::parse(R"([{"startLine":2,"endLine":3}])"));
  CHECK(r["added"] == 2);
  CHECK(r["removed"] == 1);
  CHECK(root.read("a.c") == "int a;\nlong b;\nlong b2;\nint c;\n");
}

TEST_CASE("str_replace refuses ambiguity, misses and no-ops, changing nothing") {
  TempDir root;
  root.write("a.c", "x = 1;\ny = 2;\nx = 1;\n");
  auto p = spawn_editd(root);
  json amb = p.fails("str_replace", {{"path", "a.c"}, {"oldText", "x = 1;"}, {"newText", "x = 3;"}});
  CHECK(amb["code"] == -32021);
  CHECK(amb["data"]["lines"] == json::array({1, 3}));
  CHECK(amb["data"]["candidates"][1]["text"] == "x = 1;");
  json miss = p.fails("str_replace", {{"path", "a.c"}, {"oldText", "y = 3;"}, {"newText", "y = 4;"}});
  CHECK(miss["code"] == -32020);
  CHECK(miss["data"]["closest"]["startLine"] == 2);
  CHECK(miss["data"]["closest"]["text"] == "y = 2;");
  CHECK(p.fails("str_replace", {{"path", "a.c"}, {"oldText", "y"}, {"newText", "y"}})["data"]["kind"] == "no_change");
  json cnt = p.fails("str_replace", {{"path", "a.c"}, {"oldText", "x = 1;"}, {"newText", "z"}, {"replaceAll", true}, {"expectedReplacements", 3}});
  CHECK(cnt["data"]["kind"] == "ambiguous");
  CHECK(root.read("a.c") == "x = 1;\ny = 2;\nx = 1;\n");
  json all = p.ok("str_replace", {{"path", "a.c"}, {"oldText", "x = 1;"}, {"newText", "z"}, {"replaceAll", true}, {"expectedReplacements", 2}});
  CHECK(all["replacements"] == 2);
  CHECK(root.read("a.c") == "z\ny = 2;\nz\n");
}

TEST_CASE("a miss on a file that changed since this connection read it says so") {
  TempDir root;
  root.write("a.py", "def f():\n    return 1\n");
  auto p = spawn_editd(root);
  json read = p.ok("read_text", {{"path", "a.py"}});
  root.write("a.py", "def f():\n    return 2\n");  // another writer
  json miss = p.fails("str_replace", {{"path", "a.py"}, {"oldText", "    return 1\n"}, {"newText", "    return 3\n"}});
  CHECK(miss["data"]["kind"] == "no_match");
  std::string hint = miss["data"]["hint"];
  CHECK(hint.find("changed since this connection last read") != std::string::npos);
  CHECK(hint.find(read["fingerprint"].get<std::string>()) != std::string::npos);
  // A miss on a file the connection has seen as it is carries no such hint.
  p.ok("read_text", {{"path", "a.py"}});
  json again = p.fails("str_replace", {{"path", "a.py"}, {"oldText", "    return 1\n"}, {"newText", "    return 3\n"}});
  CHECK(again["data"].value("hint", "").find("changed since") == std::string::npos);
}

TEST_CASE("str_replace keeps CRLF, BOM, a missing final newline, tabs and literal dollars") {
  TempDir root;
  root.write("w.txt", "\xEF\xBB\xBF" "if (a) {\r\n\tfoo();\r\n}");
  auto p = spawn_editd(root);
  p.ok("str_replace", {{"path", "w.txt"}, {"oldText", "\tfoo();\n}"}, {"newText", "\tbar($1, $&, \\1);\n\tbaz();\n}"}});
  CHECK(root.read("w.txt") == "\xEF\xBB\xBF" "if (a) {\r\n\tbar($1, $&, \\1);\r\n\tbaz();\r\n}");
}

TEST_CASE("expectedFingerprint detects conflicts and writes nothing") {
  TempDir root;
  root.write("a.txt", "v1\n");
  auto p = spawn_editd(root);
  std::string fp = p.ok("read_text", {{"path", "a.txt"}})["fingerprint"];
  root.write("a.txt", "v2\n");
  json e = p.fails("write_text", {{"path", "a.txt"}, {"content", "mine\n"}, {"expectedFingerprint", fp}});
  CHECK(e["code"] == -32010);
  CHECK(e["data"]["kind"] == "conflict");
  CHECK(e["data"]["currentFingerprint"] == p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"]);
  CHECK(root.read("a.txt") == "v2\n");
  std::string fp2 = e["data"]["currentFingerprint"];
  json ok = p.ok("write_text", {{"path", "a.txt"}, {"content", "mine\n"}, {"expectedFingerprint", fp2}});
  CHECK(root.read("a.txt") == "mine\n");
  CHECK(ok["fingerprint"] != fp2);
}

TEST_CASE("dryRun returns what the real call would and writes nothing") {
  TempDir root;
  root.write("a.txt", "hello world\n");
  auto p = spawn_editd(root);
  json params = {{"path", "a.txt"}, {"oldText", "world"}, {"newText", "there"}};
  json dry_params = params;
  dry_params["dryRun"] = true;
  json dry = p.ok("str_replace", dry_params);
  CHECK(root.read("a.txt") == "hello world\n");
  json real = p.ok("str_replace", params);
  CHECK(real.contains("undoId"));  // the members a dry run lacks
  CHECK(real.contains("changeId"));
  real.erase("undoId");
  real.erase("changeId");
  CHECK(dry == real);
  CHECK(p.ok("create", {{"path", "n.txt"}, {"content", "x"}, {"dryRun", true}})["created"] == true);
  CHECK_FALSE(root.exists("n.txt"));
}

TEST_CASE("--read-only refuses every mutation with denied") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root, {"--read-only"});
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "a\n");
  CHECK(p.fails("write_text", {{"path", "a.txt"}, {"content", "b"}})["code"] == -32032);
  CHECK(p.fails("create", {{"path", "b.txt"}, {"content", "b"}})["data"]["kind"] == "denied");
  CHECK(p.fails("insert", {{"path", "a.txt"}, {"line", 0}, {"text", "b"}})["data"]["kind"] == "denied");
  CHECK(p.fails("str_replace", {{"path", "a.txt"}, {"oldText", "a"}, {"newText", "b"}})["data"]["kind"] == "denied");
  CHECK(root.read("a.txt") == "a\n");
}

TEST_CASE("--max-file-bytes refuses larger files with too_large") {
  TempDir root;
  root.write("big.txt", std::string(2000, 'x'));
  auto p = spawn_editd(root, {"--max-file-bytes", "1000"});
  json e = p.fails("read_text", {{"path", "big.txt"}});
  CHECK(e["code"] == -32034);
  CHECK(e["data"]["limit"] == 1000);
  CHECK(p.fails("write_text", {{"path", "n.txt"}, {"content", std::string(1500, 'y')}})["data"]["kind"] == "too_large");
}

TEST_CASE("content with a NUL byte is refused as not_text") {
  TempDir root;
  auto p = spawn_editd(root);
  json e = p.fails("write_text", {{"path", "a.txt"}, {"content", std::string("a\0b", 3)}});
  CHECK(e["data"]["kind"] == "not_text");
  CHECK(e["data"]["param"] == "content");
  CHECK_FALSE(root.exists("a.txt"));
}

TEST_CASE("fingerprints are stable across processes") {
  TempDir root;
  root.write("a.txt", "same bytes\n");
  std::string first, second;
  {
    auto p = spawn_editd(root);
    first = p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"];
    CHECK(p.ok("fingerprint", {{"path", "a.txt"}})["size"] == 11);
  }
  {
    auto p = spawn_editd(root);
    second = p.ok("read_text", {{"path", "a.txt"}})["fingerprint"];
  }
  CHECK(first == second);
}

TEST_CASE("set_format converts line endings, the BOM and the final newline; dry run and undo") {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir root;
  root.write("win.txt", bom + "a\r\nb\r\nc\r\n");
  auto p = spawn_editd(root);
  const json before = p.ok("fingerprint", {{"path", "win.txt"}})["fingerprint"];
  json dry = p.ok("set_format", {{"path", "win.txt"}, {"lineEndings", "lf"}, {"dryRun", true}});
  CHECK_FALSE(dry.contains("undoId"));
  CHECK(dry["diff"].get<std::string>().find("-a\r\n") != std::string::npos);
  CHECK(root.read("win.txt") == bom + "a\r\nb\r\nc\r\n");
  json r = p.ok("set_format", {{"path", "win.txt"},
                               {"lineEndings", "lf"},
                               {"bom", false},
                               {"finalNewline", false},
                               {"expectedFingerprint", before}});
  CHECK(root.read("win.txt") == "a\nb\nc");
  CHECK(r["fingerprint"] == p.ok("fingerprint", {{"path", "win.txt"}})["fingerprint"]);
  json again = p.fails("set_format", {{"path", "win.txt"}, {"lineEndings", "lf"}, {"bom", false}});
  CHECK(again["data"]["kind"] == "no_change");
  CHECK(p.fails("set_format", {{"path", "win.txt"},
                               {"bom", true},
                               {"expectedFingerprint", before}})["data"]["kind"] == "conflict");
  p.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(root.read("win.txt") == bom + "a\r\nb\r\nc\r\n");
  p.ok("set_format", {{"path", "win.txt"}, {"lineEndings", "lf"}, {"finalNewline", true}});
  CHECK(root.read("win.txt") == bom + "a\nb\nc\n");
  // A BOM added or removed is a change of line 1 in the diff, as git shows it.
  json unbom = p.ok("set_format", {{"path", "win.txt"}, {"bom", false}});
  CHECK(unbom["diff"].get<std::string>().find("-" + bom + "a\n+a\n") != std::string::npos);
  CHECK(unbom["added"] == 1);
  CHECK(unbom["removed"] == 1);
  CHECK(root.read("win.txt") == "a\nb\nc\n");
  json rebom = p.ok("set_format", {{"path", "win.txt"}, {"bom", true}});
  CHECK(rebom["diff"].get<std::string>().find("-a\n+" + bom + "a\n") != std::string::npos);
  CHECK(root.read("win.txt") == bom + "a\nb\nc\n");
  CHECK(p.fails("set_format", {{"path", "win.txt"}})["data"]["kind"] == "invalid_params");
  CHECK(p.fails("set_format", {{"path", "win.txt"}, {"lineEndings", "cr"}})["data"]["kind"] ==
        "invalid_params");
  CHECK(p.fails("set_format", {{"path", "none.txt"}, {"bom", true}})["data"]["kind"] ==
        "not_found");
}

TEST_CASE("set_format keeps the text or refuses, changing nothing: CRs that are content, U+FEFF") {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir root;
  root.write("cr.txt", "a\nb\r\r\n");
  root.write("mid.txt", "a\r\r\nb\n");
  root.write("feff.txt", bom + bom + "x\n");
  root.write("blank.txt", "a\n\n");
  auto p = spawn_editd(root);
  // The CR before the CRLF is the text of line 2: removing the break keeps it.
  p.ok("set_format", {{"path", "cr.txt"}, {"lineEndings", "lf"}, {"finalNewline", false}});
  CHECK(root.read("cr.txt") == "a\nb\r");
  // Line 1's text ends with a CR, which an LF after it would turn into a CRLF.
  json e = p.fails("set_format", {{"path", "mid.txt"}, {"lineEndings", "lf"}});
  CHECK(e["data"]["kind"] == "invalid_params");
  CHECK(e["data"]["param"] == "lineEndings");
  CHECK(e["data"]["reason"] == "cr_before_lf");
  CHECK(e["data"]["line"] == 1);
  CHECK(e["data"]["path"] == "mid.txt");
  CHECK(e["message"].get<std::string>().find("line 1 of mid.txt") != std::string::npos);
  CHECK(root.read("mid.txt") == "a\r\r\nb\n");
  p.ok("set_format", {{"path", "mid.txt"}, {"lineEndings", "crlf"}});
  CHECK(root.read("mid.txt") == "a\r\r\nb\r\n");
  // The text starts with U+FEFF: without the BOM it would become the BOM.
  json f = p.fails("set_format", {{"path", "feff.txt"}, {"bom", false}, {"dryRun", true}});
  CHECK(f["data"]["param"] == "bom");
  CHECK(f["data"]["reason"] == "text_starts_with_feff");
  CHECK(p.fails("set_format", {{"path", "feff.txt"}, {"bom", false}})["data"]["kind"] ==
        "invalid_params");
  CHECK(root.read("feff.txt") == bom + bom + "x\n");
  // An empty last line is a line only by its break.
  json b = p.fails("set_format", {{"path", "blank.txt"}, {"finalNewline", false}});
  CHECK(b["data"]["reason"] == "last_line_empty");
  CHECK(b["data"]["line"] == 2);
  CHECK(root.read("blank.txt") == "a\n\n");
}

TEST_CASE(
    "an edit that leaves the bytes as they were answers no_change naming the rule and set_format") {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir root;
  root.write("nofinal.txt", "a\nb");
  root.write("crlf.txt", "a\r\nb\r\n");
  root.write("bom.txt", bom + "x\n");
  auto p = spawn_editd(root);
  json e = p.fails("str_replace", {{"path", "nofinal.txt"}, {"oldText", "b"}, {"newText", "b\n"}});
  CHECK(e["data"]["kind"] == "no_change");
  std::string m = e["message"];
  CHECK(m.find("final newline") != std::string::npos);
  CHECK(m.find("set_format") != std::string::npos);
  e = p.fails("str_replace", {{"path", "crlf.txt"}, {"oldText", "a\r\n"}, {"newText", "a\n"}});
  CHECK(e["data"]["kind"] == "no_change");
  m = e["message"];
  CHECK(m.find("line endings") != std::string::npos);
  CHECK(m.find("set_format") != std::string::npos);
  e = p.fails("write_text", {{"path", "crlf.txt"}, {"content", "a\nb\n"}});
  CHECK(e["data"]["kind"] == "no_change");
  CHECK(e["message"].get<std::string>().find("line endings") != std::string::npos);
  e = p.fails("str_replace", {{"path", "bom.txt"}, {"oldText", bom + "x"}, {"newText", "x"}});
  CHECK(e["data"]["kind"] == "no_change");
  CHECK(e["message"].get<std::string>().find("a BOM") != std::string::npos);
  e = p.fails("str_replace",
              {{"path", "nofinal.txt"}, {"oldText", "b"}, {"newText", "b\n"}, {"dryRun", true}});
  CHECK(e["data"]["kind"] == "no_change");
  CHECK(root.read("nofinal.txt") == "a\nb");
  CHECK(root.read("crlf.txt") == "a\r\nb\r\n");
  CHECK(root.read("bom.txt") == bom + "x\n");
  // Writing back what read_text shows is no request for a change: plain success, no undoId.
  CHECK_FALSE(p.ok("write_text", {{"path", "bom.txt"}, {"content", "x\n"}}).contains("undoId"));
}

TEST_CASE("--require-read keeps a bounded record of the files read; a forgotten one is read again") {
  // 400 files under a path of about 3,800 bytes: more records than the
  // connection's 1 MiB holds, counted with their paths.
  TempDir root;
  std::string dir;
  for (int i = 0; i < 15; ++i) dir += std::string(250, static_cast<char>('a' + i)) + "/";
  const int files = 400;
  for (int i = 0; i < files; ++i) root.write(dir + std::to_string(i) + ".txt", "one\n");
  auto p = spawn_editd(root, {"--require-read"});
  for (int i = 0; i < files; ++i) p.ok("read_text", {{"path", dir + std::to_string(i) + ".txt"}});
  auto replace = [&](int i) {
    return json{{"path", dir + std::to_string(i) + ".txt"}, {"oldText", "one"}, {"newText", "two"}};
  };
  // The least recently read file's record was forgotten: never written over unseen.
  json e = p.fails("str_replace", replace(0));
  CHECK(e["data"]["kind"] == "stale");
  CHECK(e["data"]["knownFingerprint"].is_null());
  CHECK(std::string(e["message"]).find("its record was forgotten") != std::string::npos);
  CHECK(root.read(dir + "0.txt") == "one\n");
  // The most recent is known; the forgotten one is edited once read again, or
  // with the version it expects.
  p.ok("str_replace", replace(files - 1));
  json fp = p.ok("read_text", {{"path", dir + "0.txt"}})["fingerprint"];
  p.ok("str_replace", replace(0));
  CHECK(root.read(dir + "0.txt") == "two\n");
  json expected = replace(1);
  expected["expectedFingerprint"] = fp;  // 1.txt holds what 0.txt held: the same fingerprint
  p.ok("str_replace", expected);
  CHECK(root.read(dir + "1.txt") == "two\n");
}
