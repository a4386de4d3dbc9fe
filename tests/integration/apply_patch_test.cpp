// apply_patch through the real binary: the JSON-RPC method and the
// `editd apply-patch` command, on real directories.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "helpers/conformance.h"
#include "helpers/process.h"

using namespace editd::test;

namespace {

// Every file and directory below `root`: relative path -> content, "/" for a directory.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(e.path(), root).string();
    if (e.is_directory()) {
      out[rel] = "/";
    } else {
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      out[rel] = ss.str();
    }
  }
  return out;
}

// `editd apply-patch ARGS...` in `cwd`, with `input` on stdin.
Run apply_patch_command(const std::vector<std::string>& args, const fs::path& cwd,
                        const std::string& input = "") {
  std::vector<std::string> argv{"apply-patch"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_editd(argv, cwd.string(), input);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("every Codex scenario applied by `editd apply-patch` ends with the expected tree" *
          doctest::test_suite("conformance")) {
  const auto data = editd::test::conformance_dir("codex-apply-patch");
  if (!data) return;
  const fs::path root = *data / "scenarios";
  REQUIRE(fs::is_directory(root));
  std::vector<fs::path> scenarios;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) scenarios.push_back(e.path());
  std::sort(scenarios.begin(), scenarios.end());
  REQUIRE(scenarios.size() == 23);
  for (const fs::path& dir : scenarios) {
    const std::string name = dir.filename().string();
    CAPTURE(name);
    TempDir work;
    if (fs::exists(dir / "input"))
      fs::copy(dir / "input", work.path(), fs::copy_options::recursive);
    auto before = snapshot(work.path());
    Run r = apply_patch_command({slurp(dir / "patch.txt")}, work.path());
    CAPTURE(r.err);
    if (name == "015_failure_after_partial_success_leaves_changes") {
      // Codex keeps the Add that came before the failure; editd applies nothing.
      CHECK(r.code == 1);
      CHECK(snapshot(work.path()) == before);
      continue;
    }
    CHECK(snapshot(work.path()) == snapshot(dir / "expected"));
    if (r.code == 0) {
      CHECK(r.out.rfind("Success. Updated the following files:\n", 0) == 0);
    } else {
      CHECK(r.code == 1);
      CHECK(r.out.empty());
      CHECK(!r.err.empty());
    }
  }
}

TEST_CASE("`editd apply-patch` prints Codex's summary and reads the patch from stdin") {
  TempDir work;
  work.write("m.txt", "a\nb\n");
  work.write("d.txt", "gone\n");
  work.write("old/name.txt", "x\n");
  const std::string patch =
      "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Update File: m.txt\n@@\n a\n-b\n+B\n"
      "*** Delete File: d.txt\n*** Update File: old/name.txt\n*** Move to: "
      "moved/name.txt\n@@\n-x\n+y\n"
      "*** End Patch\n";
  Run r = apply_patch_command({}, work.path(), patch);
  CHECK(r.code == 0);
  CHECK(r.out ==
        "Success. Updated the following files:\nA n.txt\nM m.txt\nM moved/name.txt\nD d.txt\n");
  CHECK(work.read("moved/name.txt") == "y\n");
  CHECK(!work.exists("old/name.txt"));

  Run bad = apply_patch_command({"--root", work.str(), "not a patch"}, "/");
  CHECK(bad.code == 1);
  CHECK(bad.err.find("invalid patch at line 1") != std::string::npos);
}

TEST_CASE(
    "apply_patch adds, updates, deletes and moves in one call, keeping each file's conventions") {
  TempDir root;
  root.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
  root.write("bom.txt",
             "\xEF\xBB\xBF"
             "alpha\nbeta");
  root.write("gone.txt", "bye\n");
  root.write("src/old.py", "def f():\n    return 1\n");
  auto p = spawn_editd(root);
  const std::string patch =
      "*** Begin Patch\n"
      "*** Update File: crlf.txt\n@@\n one\n-two\n+TWO\n+2.5\n"
      "*** Update File: bom.txt\n@@\n-beta\n+gamma\n"
      "*** Delete File: gone.txt\n"
      "*** Update File: src/old.py\n*** Move to: lib/new.py\n@@\n def f():\n-    return 1\n+    "
      "return 2\n"
      "*** Add File: docs/readme.md\n+# hi\n"
      "*** End Patch";
  json dry = p.ok("apply_patch", {{"patch", patch}, {"dryRun", true}});
  CHECK(root.read("crlf.txt") == "one\r\ntwo\r\nthree\r\n");
  CHECK(!root.exists("docs"));
  json r = p.ok("apply_patch", {{"patch", patch}});
  CHECK(r.contains("undoId"));  // the members a dry run lacks
  CHECK(r.contains("changeId"));
  r.erase("undoId");
  r.erase("changeId");
  CHECK(r == dry);
  CHECK(root.read("crlf.txt") == "one\r\nTWO\r\n2.5\r\nthree\r\n");
  CHECK(root.read("bom.txt") ==
        "\xEF\xBB\xBF"
        "alpha\ngamma");
  CHECK(!root.exists("gone.txt"));
  CHECK(!root.exists("src/old.py"));
  CHECK(root.read("lib/new.py") == "def f():\n    return 2\n");
  CHECK(root.read("docs/readme.md") == "# hi\n");

  REQUIRE(r["files"].size() == 5);
  CHECK(r["files"][0] ==
        json{{"path", "crlf.txt"},
             {"action", "update"},
             {"added", 2},
             {"removed", 1},
             {"fingerprint", p.ok("fingerprint", {{"path", "crlf.txt"}})["fingerprint"]}});
  CHECK(r["files"][2]["action"] == "delete");
  CHECK(!r["files"][2].contains("fingerprint"));
  CHECK(r["files"][3]["action"] == "move");
  CHECK(r["files"][3]["path"] == "src/old.py");
  CHECK(r["files"][3]["movedTo"] == "lib/new.py");
  std::string diff = r["diff"];
  CHECK(diff.find("--- a/src/old.py\n+++ b/lib/new.py\n") != std::string::npos);
  CHECK(diff.find("--- a/gone.txt\n+++ /dev/null\n") != std::string::npos);
  CHECK(diff.find("--- /dev/null\n+++ b/docs/readme.md\n") != std::string::npos);
}

TEST_CASE("apply_patch applies unified diffs as git writes them") {
  TempDir root;
  root.write("a.c", "int main() {\n  return 0;\n}\n");
  root.write("old.txt", "same\n");
  auto p = spawn_editd(root);
  const std::string patch =
      "diff --git a/a.c b/a.c\nindex 1..2 100644\n--- a/a.c\n+++ b/a.c\n"
      "@@ -1,3 +1,3 @@\n int main() {\n-  return 0;\n+  return 1;\n }\n"
      "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to "
      "new.txt\n"
      "diff --git a/fresh.txt b/fresh.txt\nnew file mode 100644\n--- /dev/null\n+++ b/fresh.txt\n"
      "@@ -0,0 +1 @@\n+fresh\n";
  json r = p.ok("apply_patch", {{"patch", patch}});
  CHECK(root.read("a.c") == "int main() {\n  return 1;\n}\n");
  CHECK(root.read("new.txt") == "same\n");
  CHECK(!root.exists("old.txt"));
  CHECK(root.read("fresh.txt") == "fresh\n");
  CHECK(r["files"].size() == 3);
}

TEST_CASE("a hunk that does not apply changes nothing and says where it looked") {
  TempDir root;
  root.write("a.txt", "one\ntwo\n");
  root.write("b.txt", "alpha\nbeta\n");
  auto p = spawn_editd(root);
  auto before = snapshot(root.path());
  json e = p.fails("apply_patch", {{"patch",
                                    "*** Begin Patch\n*** Add File: new/c.txt\n+c\n"
                                    "*** Update File: a.txt\n@@\n-one\n+ONE\n"
                                    "*** Update File: b.txt\n@@\n-gamma\n+delta\n*** End Patch"}});
  CHECK(e["data"]["kind"] == "patch_apply");
  CHECK(e["data"]["path"] == "b.txt");
  CHECK(e["data"]["hunk"] == 1);
  CHECK(e["data"]["context"] == "gamma");
  CHECK(e["data"]["closest"]["startLine"].is_number());
  CHECK(snapshot(root.path()) == before);
}

TEST_CASE(
    "malformed headers and hunk counts are patch_parse at their line, and nothing is written") {
  TempDir root;
  root.write("app.py", "def main():\n    run()\n");
  root.write("lib.py", "x = 1\n");
  root.write("main.go", "package main\n\nvar a = 1\n");
  root.write("ci.yml", "on: push\n");
  auto p = spawn_editd(root);
  const auto before = snapshot(root.path());
  struct Case {
    const char* name;
    std::string patch;
    int line;
  };
  const std::vector<Case> cases = {
      {"Codex: a header indented inside a chunk",
       "*** Begin Patch\n*** Update File: app.py\n@@ def main():\n-    run()\n+    run(fast=True)\n"
       "  *** Update File: lib.py\n@@\n-x = 1\n+x = 2\n*** End Patch",
       6},
      {"Codex: End of File indented",
       "*** Begin Patch\n*** Update File: lib.py\n@@\n-x = 1\n+x = 2\n  *** End of File\n"
       "*** End Patch",
       6},
      {"Codex: a header without its colon",
       "*** Begin Patch\n*** Update File: lib.py\n@@\n-x = 1\n+x = 2\n*** Update File app.py\n@@\n"
       "-    run()\n+    go()\n*** End Patch",
       6},
      {"unified: a body longer than its counts",
       "--- a/main.go\n+++ b/main.go\n@@ -3,1 +3,1 @@\n-var a = 1\n+var a = 2\n+var b = 3\n", 3},
      {"unified: a body shorter than its counts",
       "--- a/ci.yml\n+++ b/ci.yml\n@@ -1,3 +1,3 @@\n-on: push\n+on: [push]\n", 3},
      {"git: a stray line in the headers",
       "diff --git a/lib.py b/lib.py\nindex 1..2 100644\nstray\n--- a/lib.py\n+++ b/lib.py\n"
       "@@ -1 +1 @@\n-x = 1\n+x = 2\n",
       3},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.name));
    json e = p.fails("apply_patch", {{"patch", c.patch}});
    CHECK(e["code"] == -32040);
    CHECK(e["data"]["kind"] == "patch_parse");
    CHECK(e["data"]["line"] == c.line);
    CHECK(e["message"].get<std::string>().find("line " + std::to_string(c.line)) !=
          std::string::npos);
    CHECK(snapshot(root.path()) == before);
  }
  json counts = p.fails("apply_patch", {{"patch", cases[3].patch}});
  CHECK(counts["data"]["counts"] ==
        json{{"expected", {{"old", 1}, {"new", 1}}}, {"found", {{"old", 1}, {"new", 2}}}});
  // The same refusal from the command line: exit 1, nothing written.
  Run r = apply_patch_command({cases[0].patch}, root.path());
  CHECK(r.code == 1);
  CHECK(r.err.find("line 6") != std::string::npos);
  CHECK(snapshot(root.path()) == before);
}

TEST_CASE("a write that fails part-way is rolled back byte for byte, new directories included") {
  // Running as root, file modes do not stop a write; --max-file-bytes does:
  // big.txt is read under the limit and would be written over it.
  TempDir root;
  root.write("a.txt", "keep me\n");
  root.write("b.txt",
             "\xEF\xBB\xBF"
             "bom\r\n");
  root.write("d.txt", "deleted?\n");
  root.write("big.txt", std::string(90, 'x') + "\n");
  auto p = spawn_editd(root, {"--max-file-bytes", "100"});
  auto before = snapshot(root.path());
  json e = p.fails("apply_patch", {{"patch",
                                    "*** Begin Patch\n"
                                    "*** Update File: a.txt\n@@\n-keep me\n+changed\n"
                                    "*** Update File: b.txt\n@@\n-bom\n+BOM\n"
                                    "*** Delete File: d.txt\n"
                                    "*** Add File: deep/er/new.txt\n+new\n"
                                    "*** Update File: big.txt\n@@\n " +
                                        std::string(90, 'x') + "\n+" + std::string(20, 'y') +
                                        "\n"
                                        "*** End Patch"}});
  CHECK(e["data"]["kind"] == "too_large");
  CHECK(e["data"]["path"] == "big.txt");
  CHECK(e["data"]["rolledBack"] == true);
  CHECK(std::string(e["message"]).find("apply_patch changed nothing") == 0);
  CHECK(snapshot(root.path()) == before);
}

TEST_CASE("expectedFingerprints guard every file of a patch") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  auto p = spawn_editd(root);
  std::string fa = p.ok("read_text", {{"path", "a.txt"}})["fingerprint"];
  const std::string patch =
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: "
      "b.txt\n@@\n-b\n+B\n*** End Patch";
  json stale =
      p.fails("apply_patch",
              {{"patch", patch},
               {"expectedFingerprints", {{"a.txt", fa}, {"./b.txt", "xxh3:0000000000000000"}}}});
  CHECK(stale["data"]["kind"] == "conflict");
  CHECK(stale["data"]["path"] == "b.txt");
  CHECK(root.read("a.txt") == "a\n");
  json untouched =
      p.fails("apply_patch", {{"patch", patch}, {"expectedFingerprints", {{"c.txt", fa}}}});
  CHECK(untouched["data"]["kind"] == "invalid_params");
  CHECK(untouched["data"]["param"] == "expectedFingerprints");
  json ok = p.ok("apply_patch", {{"patch", patch}, {"expectedFingerprints", {{"a.txt", fa}}}});
  CHECK(ok["files"][0]["fingerprint"] == p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"]);
}

TEST_CASE(
    "apply_patch refuses paths outside the root and read-only servers before touching anything") {
  TempDir root;
  root.write("a.txt", "a\n");
  {
    auto p = spawn_editd(root);
    json e =
        p.fails("apply_patch",
                {{"patch", "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch"}});
    CHECK(e["data"]["kind"] == "outside_root");
    json parse = p.fails("apply_patch",
                         {{"patch", "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch"}});
    CHECK(parse["data"]["kind"] == "patch_parse");
    CHECK(parse["data"]["line"] == 2);
  }
  auto ro = spawn_editd(root, {"--read-only"});
  CHECK(ro.fails("apply_patch",
                 {{"patch",
                   "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}})["data"]["kind"] ==
        "denied");
  CHECK(root.read("a.txt") == "a\n");
}

TEST_CASE("--durability none serves every mutation as before; an unknown value is a usage error") {
  TempDir root;
  root.write("a.txt", "a\r\nb\r\n");
  {
    auto p = spawn_editd(root, {"--durability", "none"});
    p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "b"}, {"newText", "B"}});
    p.ok("apply_patch", {{"patch",
                          "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: "
                          "d/n.txt\n+n\n*** End Patch"}});
    p.ok("write_text", {{"path", "w.txt"}, {"content", "w\n"}});
  }
  CHECK(root.read("a.txt") == "A\r\nB\r\n");
  CHECK(root.read("d/n.txt") == "n\n");
  CHECK(root.read("w.txt") == "w\n");
  CHECK_FALSE(std::filesystem::exists(root.path() / ".editd"));
  auto bad = run_editd({"--durability", "sometimes"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--durability must be full or none") != std::string::npos);
}

TEST_CASE("--require-read applies to every existing file a patch touches") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root, {"--require-read"});
  const std::string patch =
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: n.txt\n+n\n*** End Patch";
  CHECK(p.fails("apply_patch", {{"patch", patch}})["data"]["kind"] == "stale");
  p.ok("read_text", {{"path", "a.txt"}});
  p.ok("apply_patch", {{"patch", patch}});
  // What the patch wrote counts as known: a follow-up edit needs no new read.
  p.ok("str_replace", {{"path", "n.txt"}, {"oldText", "n"}, {"newText", "N"}});
  p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "A"}, {"newText", "AA"}});
}

TEST_CASE("`editd apply-patch` takes the patch as an argument even when it starts with '-'") {
  // What `diff -u` writes: the patch's first line is "--- a/f.txt".
  const std::string unified = "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
  const std::string summary = "Success. Updated the following files:\nM f.txt\n";
  struct Way {
    std::string name;
    std::vector<std::string> args;
    std::string stdin_text;
  };
  TempDir files;
  files.write("p.diff", unified);
  const std::vector<Way> ways = {
      {"argument", {unified}, ""},
      {"after --", {"--", unified}, ""},
      {"-f FILE", {"-f", (files.path() / "p.diff").string()}, ""},
      {"--file FILE", {"--file", (files.path() / "p.diff").string()}, ""},
      {"-f - (stdin)", {"-f", "-"}, unified},
      {"- (stdin)", {"-"}, unified},
      {"stdin", {}, unified},
      {"--root then the argument", {"--root", "ROOT", unified}, ""},
  };
  for (const Way& way : ways) {
    CAPTURE(way.name);
    TempDir work;
    work.write("f.txt", "a\nb\n");
    std::vector<std::string> args = way.args;
    for (auto& a : args)
      if (a == "ROOT") a = work.str();
    Run r = apply_patch_command(args, work.path(), way.stdin_text);
    CAPTURE(r.err);
    CHECK(r.code == 0);
    CHECK(r.out == summary);
    CHECK(work.read("f.txt") == "a\nB\n");
  }
}

TEST_CASE("`editd apply-patch` usage errors exit 2 and change nothing; a refused patch exits 1") {
  TempDir work;
  work.write("f.txt", "a\n");
  const std::string patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n*** End Patch\n";
  struct Usage {
    std::vector<std::string> args;
    std::string stdin_text, says;
  };
  const std::vector<Usage> usages = {
      {{"-x"}, "", "unknown option '-x'"},
      {{patch, patch}, "", "exactly one patch"},
      {{"-f", (work.path() / "missing.diff").string()}, "", "cannot read the patch file"},
      {{"-f"}, "", "-f needs a file name"},
      {{"--"}, "", "must be followed by the patch"},
      {{}, "", "no patch on stdin"},
  };
  for (const Usage& u : usages) {
    CAPTURE(u.says);
    Run r = apply_patch_command(u.args, work.path(), u.stdin_text);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(u.says) != std::string::npos);
    CHECK(work.read("f.txt") == "a\n");
  }
  // An empty argument is a patch, and not a valid one (as with Codex).
  Run empty = apply_patch_command({""}, work.path());
  CHECK(empty.code == 1);
  CHECK(empty.err.find("invalid patch") != std::string::npos);
  CHECK(work.read("f.txt") == "a\n");
}

TEST_CASE("a link named apply_patch or applypatch to editd is Codex's apply_patch command") {
  TempDir links;
  fs::create_symlink(EDITD_BINARY, links.path() / "apply_patch");
  // A hard link where the file system allows one (the build tree may be elsewhere).
  std::error_code ec;
  fs::create_hard_link(EDITD_BINARY, links.path() / "applypatch", ec);
  if (ec) fs::create_symlink(EDITD_BINARY, links.path() / "applypatch");
  const std::string patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n*** End Patch\n";
  const std::string summary = "Success. Updated the following files:\nM f.txt\n";
  for (const char* name : {"apply_patch", "applypatch"}) {
    CAPTURE(name);
    const fs::path link = links.path() / name;
    struct Way {
      std::string name;
      std::vector<std::string> args;
      std::string stdin_text;
    };
    // The patch as the argument or on stdin, paths relative to the current directory.
    for (const Way& way : std::vector<Way>{{"argument", {patch}, ""},
                                           {"stdin", {}, patch},
                                           {"--preserve-crlf then the argument",
                                            {"--preserve-crlf", patch},
                                            ""}}) {
      CAPTURE(way.name);
      TempDir work;
      work.write("f.txt", "a\nb\n");
      Run r = run_program(link.string(), way.args, work.path(), way.stdin_text);
      CAPTURE(r.err);
      CHECK(r.code == 0);
      CHECK(r.out == summary);
      CHECK(work.read("f.txt") == "a\nB\n");
    }
    TempDir work;
    work.write("f.txt", "a\nb\n");
    // Whatever the first argument is, it is the patch, as Codex reads it: no
    // option of editd's (--root, --help) applies.
    for (const std::string not_a_patch : {"--help", "--root"}) {
      Run r = run_program(link.string(), {not_a_patch}, work.path());
      CHECK(r.code == 1);
      CHECK(r.out.empty());
      CHECK(r.err.find("invalid patch at line 1") != std::string::npos);
    }
    // A hunk that does not apply: refused, exit 1, nothing changed.
    Run refused = run_program(
        link.string(), {"*** Begin Patch\n*** Update File: f.txt\n@@\n-zzz\n+y\n*** End Patch\n"},
        work.path());
    CHECK(refused.code == 1);
    CHECK(refused.out.empty());
    CHECK(refused.err.find("does not apply") != std::string::npos);
    // Usage errors exit 2: a second argument, empty stdin.
    Run two = run_program(link.string(), {patch, patch}, work.path());
    CHECK(two.code == 2);
    CHECK(two.err.find(std::string(name) + " accepts exactly one PATCH argument") !=
          std::string::npos);
    Run none = run_program(link.string(), {}, work.path());
    CHECK(none.code == 2);
    CHECK(none.err.find(std::string(name) + ": no patch on stdin") != std::string::npos);
    CHECK(work.read("f.txt") == "a\nb\n");
  }
}

TEST_CASE("a moved file keeps its mode: a 0600 secret stays private, a 0755 script executable") {
  TempDir root;
  root.write("secret.env", "KEY=1\n");
  root.write("run.sh", "#!/bin/sh\necho hi\n");
  root.write("over.txt", "overwritten\n");
  ::chmod((root.path() / "secret.env").c_str(), 0600);
  ::chmod((root.path() / "run.sh").c_str(), 0755);
  ::chmod((root.path() / "over.txt").c_str(), 0644);
  const mode_t umask_was = ::umask(022);  // editd inherits it: a new file would be 0644
  auto p = spawn_editd(root);
  ::umask(umask_was);
  p.ok("apply_patch",
       {{"patch",
         "*** Begin Patch\n*** Update File: secret.env\n*** Move to: moved/secret.env\n"
         "@@\n-KEY=1\n+KEY=2\n*** Update File: run.sh\n*** Move to: over.txt\n"
         "@@\n-echo hi\n+echo ho\n*** End Patch"}});
  CHECK(root.read("moved/secret.env") == "KEY=2\n");
  CHECK(mode_of(root, "moved/secret.env") == 0600);
  CHECK(root.read("over.txt") == "#!/bin/sh\necho ho\n");
  CHECK(mode_of(root, "over.txt") == 0755);

  // A git rename, content unchanged, keeps it as well.
  root.write("tool", "x\n");
  ::chmod((root.path() / "tool").c_str(), 0700);
  p.ok("apply_patch", {{"patch",
                        "diff --git a/tool b/bin/tool\nsimilarity index 100%\nrename from tool\n"
                        "rename to bin/tool\n"}});
  CHECK(mode_of(root, "bin/tool") == 0700);
}

TEST_CASE(
    "Codex updates at the end of a file without a final newline: one break, no internal error") {
  TempDir root;
  root.write("two.txt", "a");
  root.write("cr.txt", "a\rb");
  auto p = spawn_editd(root);
  p.ok("apply_patch",
       {{"patch", "*** Begin Patch\n*** Update File: two.txt\n@@\n+x\n@@\n+y\n*** End Patch"}});
  CHECK(root.read("two.txt") == "a\nx\ny");
  p.ok("apply_patch",
       {{"patch", "*** Begin Patch\n*** Update File: cr.txt\n@@\n-a\rb\n+a\r\n*** End Patch"}});
  CHECK(root.read("cr.txt") == "a");
}

TEST_CASE("a hunk at line 1 of a BOM file, as git diff shows it, applies in both dialects") {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir root;
  root.write("a.cs", bom + "ab\r\ncd\r\n");
  root.write("q.txt", bom + "\xE2\x80\x9Cquoted\xE2\x80\x9D line\n");
  auto p = spawn_editd(root);
  p.ok("apply_patch", {{"patch",
                        "diff --git a/a.cs b/a.cs\nindex 1111111..2222222 100644\n"
                        "--- a/a.cs\n+++ b/a.cs\n@@ -1,2 +1,2 @@\n-" +
                            bom + "ab\r\n+" + bom + "xy\r\n cd\r\n"}});
  CHECK(root.read("a.cs") == bom + "xy\r\ncd\r\n");
  p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Update File: a.cs\n@@\n-" + bom +
                                     "xy\n+z\n*** End Patch"}});
  CHECK(root.read("a.cs") == bom + "z\r\ncd\r\n");
  p.ok("apply_patch",
       {{"patch", "--- a/q.txt\n+++ b/q.txt\n@@ -1 +1 @@\n-" + bom +
                      "\xE2\x80\x9Cquoted\xE2\x80\x9D line\n+" + bom + "\"quoted\" line\n"}});
  CHECK(root.read("q.txt") == bom + "\"quoted\" line\n");
}

TEST_CASE(
    "git mode changes apply: mode-only, with a rename, on a new file; undo gives the mode back") {
  TempDir root;
  root.write("run.sh", "#!/bin/sh\n");
  root.write("tool.sh", "t\n");
  ::chmod((root.path() / "run.sh").c_str(), 0644);
  ::chmod((root.path() / "tool.sh").c_str(), 0755);
  const mode_t umask_was = ::umask(022);
  auto p = spawn_editd(root);
  ::umask(umask_was);
  json r = p.ok("apply_patch",
                {{"patch", "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"}});
  CHECK(mode_of(root, "run.sh") == 0755);
  CHECK(root.read("run.sh") == "#!/bin/sh\n");
  REQUIRE(r["files"].size() == 1);
  CHECK(r["files"][0]["action"] == "update");
  CHECK(r["files"][0]["executable"] == true);
  CHECK_FALSE(r["files"][0].contains("modeSkipped"));
  REQUIRE(r.contains("undoId"));
  p.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(mode_of(root, "run.sh") == 0644);

  p.ok("apply_patch", {{"patch",
                        "diff --git a/tool.sh b/bin/tool.sh\nold mode 100755\nnew mode 100644\n"
                        "similarity index 100%\nrename from tool.sh\nrename to bin/tool.sh\n"
                        "diff --git a/x.sh b/x.sh\nnew file mode 100755\nindex 0000000..1111111\n"
                        "--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1 @@\n+x\n"}});
  CHECK(mode_of(root, "bin/tool.sh") == 0644);
  CHECK(mode_of(root, "x.sh") == 0755);
}

TEST_CASE("a CRLF Codex envelope adds LF lines to an LF file, as Codex reads it") {
  TempDir root;
  root.write("f.txt", "a\nb\n");
  auto p = spawn_editd(root);
  p.ok("apply_patch", {{"patch",
                        "*** Begin Patch\r\n*** Update File: f.txt\r\n@@\r\n a\r\n+x\r\n b\r\n"
                        "*** Add File: n.txt\r\n+n\r\n*** End Patch\r\n"}});
  CHECK(root.read("f.txt") == "a\nx\nb\n");
  CHECK(root.read("n.txt") == "n\n");
}

namespace {

// The standard output of `command` run by the shell; REQUIREs that it succeeds.
std::string shell(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  REQUIRE_MESSAGE(::pclose(pipe) == 0, command);
  return out;
}

// Every file under `dir` (relative path -> bytes, and whether it is executable).
std::map<std::string, std::pair<std::string, bool>> files_under(const TempDir& dir) {
  std::map<std::string, std::pair<std::string, bool>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (!e.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(e.path(), dir.path()).string();
    out[rel] = {dir.read(rel), (mode_of(dir, rel) & 0100) != 0};
  }
  return out;
}

}  // namespace

TEST_CASE("a replay of real git history: every file equals what git apply produces") {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir repo;
  const std::string git = "git -C '" + repo.str() + "' ";
  shell(git + "init -q && " + git + "config user.email t@t && " + git + "config user.name t && " +
        git + "config core.autocrlf false");
  auto commit = [&] { shell(git + "add -A && " + git + "commit -q -m c"); };
  repo.write("bom.cs", bom + "using A;\r\nclass B {}\r\n");
  repo.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
  repo.write("nonl.txt", "x\ny");
  repo.write("script.sh", "#!/bin/sh\necho\n");
  repo.write("short.txt", bom + "ab\ncd\n");
  repo.write("mixed.txt", "a\r\nb\r\nc\n");
  commit();
  repo.write("bom.cs", "using A;\r\nclass B {}\r\n");  // the BOM removed
  repo.write("crlf.txt", "one\ntwo\nthree\n");         // CRLF -> LF
  repo.write("nonl.txt", "x\ny\n");                    // a final newline added
  shell(git + "mv script.sh run.sh && chmod 755 '" + repo.str() + "/run.sh'");  // rename + mode
  repo.write("short.txt", bom + "xy\ncd\n");      // a hunk at line 1 of a BOM file
  repo.write("mixed.txt", "a\r\nnew\nb\r\nc\n");  // an LF line into CRLF lines
  commit();
  repo.write("nonl.txt", "x\nz");  // the final newline taken away
  repo.write("run.sh", "#!/bin/sh\necho hi\n");
  commit();
  const int commits = 3;
  for (int k = commits - 1; k >= 1; --k) {
    const std::string from = "HEAD~" + std::to_string(k), to = "HEAD~" + std::to_string(k - 1);
    CAPTURE(from);
    const std::string diff = shell(git + "diff " + from + " " + to);
    TempDir ours, theirs;
    for (const TempDir* d : {&ours, &theirs})
      shell(git + "archive " + from + " | tar -x -C '" + d->str() + "'");
    std::ofstream(theirs.path() / ".patch", std::ios::binary) << diff;
    shell("cd '" + theirs.str() + "' && git apply .patch && rm .patch");
    auto p = spawn_editd(ours);
    p.ok("apply_patch", {{"patch", diff}});
    CHECK(files_under(ours) == files_under(theirs));
  }
}

TEST_CASE("`editd apply-patch` lists what Codex lists when a patch touches a path twice") {
  TempDir work;
  work.write("f.txt", "a\nb\n");
  work.write("a.txt", "a\n");
  work.write("b.txt", "b\n");
  const std::string patch =
      "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n*** Update File: f.txt\n@@\n-b\n+B\n"
      "*** Delete File: b.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+moved\n"
      "*** End Patch\n";
  Run r = apply_patch_command({}, work.path(), patch);
  CHECK(r.code == 0);
  CHECK(r.out == "Success. Updated the following files:\nM f.txt\nM f.txt\nM b.txt\nD b.txt\n");
  CHECK(work.read("f.txt") == "A\nB\n");
  CHECK(work.read("b.txt") == "moved\n");
  CHECK(!work.exists("a.txt"));
}

TEST_CASE(
    "a patch that leaves every file's bytes as they were answers no_change naming set_format") {
  const std::string bom = "\xEF\xBB\xBF";
  TempDir root;
  root.write("b.txt", bom + "a\n");
  root.write("c.txt", "x\r\ny\r\n");
  auto p = spawn_editd(root);
  // Not git's own diff: the BOM stays by the fidelity rules, and so does CRLF.
  for (const std::string& patch :
       {"--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-" + bom + "a\n+a\n",
        std::string("*** Begin Patch\n*** Update File: c.txt\n@@\n-x\n+x\n*** End Patch")}) {
    json e = p.fails("apply_patch", {{"patch", patch}});
    CHECK(e["data"]["kind"] == "no_change");
    CHECK(e["message"].get<std::string>().find("set_format") != std::string::npos);
  }
  CHECK(root.read("b.txt") == bom + "a\n");
  CHECK(root.read("c.txt") == "x\r\ny\r\n");
}

TEST_CASE("a file a patch leaves as it was is marked unchanged and not written, the others are") {
  TempDir root;
  root.write("crlf.txt", "x\r\ny\r\n");
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root);
  const std::string before = p.ok("fingerprint", {{"path", "crlf.txt"}})["fingerprint"];
  json r = p.ok("apply_patch", {{"patch",
                                 "*** Begin Patch\n*** Update File: crlf.txt\n@@\n-x\n+x\n"
                                 "*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch"}});
  REQUIRE(r["files"].size() == 2);
  CHECK(r["files"][0]["path"] == "crlf.txt");
  CHECK(r["files"][0]["action"] == "update");
  CHECK(r["files"][0]["unchanged"] == true);
  CHECK(r["files"][0]["fingerprint"] == before);
  CHECK_FALSE(r["files"][1].contains("unchanged"));
  CHECK(r["diff"].get<std::string>().find("crlf.txt") == std::string::npos);
  CHECK(root.read("crlf.txt") == "x\r\ny\r\n");
  CHECK(root.read("a.txt") == "A\n");
  // The undo puts back what was written, and only that.
  root.write("crlf.txt", "changed since\n");
  p.ok("undo", {{"undoId", r["undoId"]}});
  CHECK(root.read("a.txt") == "a\n");
  CHECK(root.read("crlf.txt") == "changed since\n");
}
