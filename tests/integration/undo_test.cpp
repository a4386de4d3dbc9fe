// undo through the real binary: every mutation's undoId, multi-file patches
// with moves, refusals after a later change, redo, and the history's bounds.
#include <doctest/doctest.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <map>
#include <set>
#include <thread>

#include "helpers/proc.h"
#include "helpers/process.h"

using namespace editd::test;

namespace {

std::string undo_id(const json& result) {
  REQUIRE_MESSAGE(result.contains("undoId"), result.dump());
  return result["undoId"];
}

bool on_tmpfs(const std::string& dir) {
  struct statfs fs;
  return ::statfs(dir.c_str(), &fs) == 0 &&
         (fs.f_type == TMPFS_MAGIC || fs.f_type == static_cast<decltype(fs.f_type)>(RAMFS_MAGIC));
}

// Where editd copies a large file's bytes before for the history: the first of
// /tmp/editd-EUID and the root not on a tmpfs; "" when it keeps them in memory
// (also when the copy would leave that disk less than 64 MiB free).
std::string copies_in(const TempDir& root, std::uint64_t size) {
  std::string dir = "/tmp/editd-" + std::to_string(::geteuid());
  if (on_tmpfs(dir)) dir = root.str();
  struct statvfs vfs;
  if (on_tmpfs(dir) || ::statvfs(dir.c_str(), &vfs) != 0) return "";
  if (static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize < size + (64ull << 20)) return "";
  return dir;
}

// The unlinked files editd holds in `dir` (the undo history's copies), once
// their count is `want` or kDeadline has passed.
std::size_t copies_once(pid_t pid, const std::string& dir, std::size_t want) {
  const auto until = std::chrono::steady_clock::now() + kDeadline;
  std::size_t n = unlinked_files_in(pid, dir);
  while (n != want && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    n = unlinked_files_in(pid, dir);
  }
  return n;
}

}  // namespace

TEST_CASE("every mutation that writes carries an undoId; dry runs and no-ops do not") {
  TempDir root;
  root.write("a.txt", "one\ntwo\n");
  auto p = spawn_editd(root);
  std::vector<std::string> ids;
  ids.push_back(undo_id(p.ok("write_text", {{"path", "w.txt"}, {"content", "w\n"}})));
  ids.push_back(undo_id(p.ok("create", {{"path", "c.txt"}, {"content", "c\n"}})));
  ids.push_back(undo_id(p.ok("insert", {{"path", "a.txt"}, {"line", 0}, {"text", "zero"}})));
  ids.push_back(
      undo_id(p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "2"}})));
  json view =
      p.ok("read_text", {{"path", "a.txt"}, {"line", 1}, {"limit", 1}, {"format", "hashline"}});
  std::string first = view["content"];
  ids.push_back(undo_id(
      p.ok("edit_lines",
           {{"path", "a.txt"},
            {"edits",
             {{{"replace", {{"start", first.substr(0, first.find('|'))}}}, {"newText", "0"}}}}})));
  ids.push_back(undo_id(
      p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch"}})));
  std::set<std::string> distinct(ids.begin(), ids.end());
  CHECK(distinct.size() == ids.size());
  for (const std::string& id : ids) CHECK(id.rfind("c", 0) == 0);  // the ledger's change ids
  CHECK_FALSE(p.ok("write_text", {{"path", "a.txt"}, {"content", "x\n"}, {"dryRun", true}})
                  .contains("undoId"));
  CHECK_FALSE(p.ok("write_text", {{"path", "w.txt"}, {"content", "w\n"}}).contains("undoId"));
}

TEST_CASE("undo restores the bytes a mutation replaced, and undoing the undo redoes") {
  TempDir root;
  const std::string original =
      "\xEF\xBB\xBF"
      "alpha\r\nbeta\r\ngamma";
  root.write("a.txt", original);
  auto p = spawn_editd(root);
  json edit =
      p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "beta"}, {"newText", "BETA\nmore"}});
  const std::string edited = root.read("a.txt");
  CHECK(edited != original);
  // A dry run shows the undo and changes nothing.
  json dry = p.ok("undo", {{"undoId", undo_id(edit)}, {"dryRun", true}});
  CHECK_FALSE(dry.contains("undoId"));
  CHECK(root.read("a.txt") == edited);
  json u = p.ok("undo", {{"undoId", undo_id(edit)}});
  CHECK(root.read("a.txt") == original);
  CHECK(u["diff"] == dry["diff"]);
  CHECK(u["diff"] ==
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,4 +1,3 @@\n alpha\r\n-BETA\r\n-more\r\n+beta\r\n "
        "gamma\n\\ No newline at end of file\n");
  CHECK(u["files"] ==
        json::parse(R"([{"path":"a.txt","action":"update","added":1,"removed":2,
                                       "fingerprint":")" +
                    p.ok("fingerprint", {{"path", "a.txt"}})["fingerprint"].get<std::string>() +
                    R"("}])"));
  // The undo is a mutation: undoing it redoes the edit.
  json redo = p.ok("undo", {{"undoId", undo_id(u)}});
  CHECK(root.read("a.txt") == edited);
  CHECK(redo["files"][0]["fingerprint"] == edit["fingerprint"]);
  // The original undo applies again now that the file is what the edit left.
  p.ok("undo", {{"undoId", undo_id(edit)}});
  CHECK(root.read("a.txt") == original);
}

TEST_CASE("undo of a multi-file patch with a move, an add and a delete restores the whole tree") {
  TempDir root;
  root.write("src/app.py", "def greet():\n    return 'hi'\n");
  root.write("old.txt", "bye\r\n");
  root.write("blob.bin", std::string("PK\x03\x04\0\0\xff", 7));
  root.write("lib/util.py", "X = 1\n");
  const auto before = root.files();
  auto p = spawn_editd(root);
  json r =
      p.ok("apply_patch",
           {{"patch",
             "*** Begin Patch\n"
             "*** Update File: src/app.py\n@@ def greet():\n-    return 'hi'\n+    return 'hello'\n"
             "*** Add File: docs/notes.md\n+# Notes\n"
             "*** Delete File: old.txt\n"
             "*** Delete File: blob.bin\n"
             "*** Update File: lib/util.py\n*** Move to: lib/helpers.py\n@@\n-X = 1\n+X = 2\n"
             "*** End Patch"}});
  CHECK_FALSE(root.exists("lib/util.py"));
  CHECK(root.read("lib/helpers.py") == "X = 2\n");
  json u = p.ok("undo", {{"undoId", undo_id(r)}});
  CHECK(root.files() == before);
  CHECK(root.read("blob.bin") == std::string("PK\x03\x04\0\0\xff", 7));
  CHECK(root.read("old.txt") == "bye\r\n");
  std::map<std::string, std::string> actions;
  for (const json& f : u["files"]) actions[f["path"]] = f["action"];
  CHECK(actions == std::map<std::string, std::string>{{"src/app.py", "update"},
                                                      {"docs/notes.md", "delete"},
                                                      {"old.txt", "add"},
                                                      {"blob.bin", "add"},
                                                      {"lib/helpers.py", "delete"},
                                                      {"lib/util.py", "add"}});
  CHECK(u["diff"].get<std::string>().find("Binary files /dev/null and b/blob.bin differ\n") !=
        std::string::npos);
  // Redo: the patch's result again.
  p.ok("undo", {{"undoId", undo_id(u)}});
  CHECK(root.read("lib/helpers.py") == "X = 2\n");
  CHECK_FALSE(root.exists("old.txt"));
  CHECK(root.read("docs/notes.md") == "# Notes\n");
}

TEST_CASE("undo is refused, touching nothing, when a file changed after the mutation") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  auto p = spawn_editd(root);
  json patch = p.ok("apply_patch", {{"patch",
                                     "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n"
                                     "*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch"}});
  // A later edit of b.txt (by editd or anyone else).
  json later = p.ok("write_text", {{"path", "b.txt"}, {"content", "B2\n"}});
  json e = p.fails("undo", {{"undoId", undo_id(patch)}});
  CHECK(e["code"] == -32010);
  CHECK(e["data"]["kind"] == "conflict");
  CHECK(e["data"]["path"] == "b.txt");
  CHECK(e["data"]["undoId"] == undo_id(patch));
  CHECK(e["data"]["currentFingerprint"] == later["fingerprint"]);
  CHECK(e["data"]["expectedFingerprint"] == patch["files"][1]["fingerprint"]);
  CHECK(root.read("a.txt") == "A\n");  // not restored: all or nothing
  CHECK(root.read("b.txt") == "B2\n");
  // A file the mutation created and someone removed, or one it removed and someone re-created.
  json created = p.ok("create", {{"path", "new.txt"}, {"content", "n\n"}});
  std::filesystem::remove(root.path() / "new.txt");
  CHECK(p.fails("undo", {{"undoId", undo_id(created)}})["data"]["kind"] == "conflict");
  json removed =
      p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}});
  root.write("a.txt", "again\n");
  json again = p.fails("undo", {{"undoId", undo_id(removed)}});
  CHECK(again["data"]["kind"] == "conflict");
  CHECK(again["data"]["expectedFingerprint"].is_null());
  CHECK(root.read("a.txt") == "again\n");
  // Undoing the later changes first makes the patch undoable again.
  std::filesystem::remove(root.path() / "a.txt");
  p.ok("undo", {{"undoId", undo_id(removed)}});
  CHECK(root.read("a.txt") == "A\n");
  p.ok("undo", {{"undoId", undo_id(later)}});
  p.ok("undo", {{"undoId", undo_id(patch)}});
  CHECK(root.read("a.txt") == "a\n");
  CHECK(root.read("b.txt") == "b\n");
}

TEST_CASE("undo of a file since replaced by a link or a FIFO is a conflict, not an error to retry") {
  TempDir root;
  root.write("target.txt", "elsewhere\n");
  auto p = spawn_editd(root);
  for (const std::string kind : {"link", "fifo"}) {
    CAPTURE(kind);
    json w = p.ok("write_text", {{"path", "a.txt"}, {"content", "mine\n"}});
    std::filesystem::remove(root.path() / "a.txt");
    if (kind == "link")
      std::filesystem::create_symlink("target.txt", root.path() / "a.txt");
    else
      REQUIRE(::mkfifo((root.path() / "a.txt").c_str(), 0600) == 0);
    json e = p.fails("undo", {{"undoId", undo_id(w)}});
    CHECK(e["data"]["kind"] == "conflict");
    CHECK(e["message"].get<std::string>().find("no longer a regular file") != std::string::npos);
    CHECK(root.read("target.txt") == "elsewhere\n");
    std::filesystem::remove(root.path() / "a.txt");
  }
}

TEST_CASE("undo of a file the mutation created removes it") {
  TempDir root;
  auto p = spawn_editd(root);
  json w = p.ok("write_text", {{"path", "dir/new.txt"}, {"content", "hi\n"}});
  json u = p.ok("undo", {{"undoId", undo_id(w)}});
  CHECK_FALSE(root.exists("dir/new.txt"));
  CHECK(u["files"][0]["action"] == "delete");
  CHECK(u["diff"] == "--- a/dir/new.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-hi\n");
  p.ok("undo", {{"undoId", undo_id(u)}});
  CHECK(root.read("dir/new.txt") == "hi\n");
}

// The memory history's own bounds, without the ledger (which keeps every
// change: tests/integration/ledger_test.cpp).
TEST_CASE("unknown, forgotten and pre-restart undoIds are not_found; bad params are invalid") {
  TempDir root;
  root.write("a.txt", "0\n");
  std::string id;
  {
    auto p = spawn_editd(root, {"--undo-history-entries", "2", "--ledger", "off"});
    id = undo_id(p.ok("write_text", {{"path", "a.txt"}, {"content", "1\n"}}));
    std::string second = undo_id(p.ok("write_text", {{"path", "a.txt"}, {"content", "2\n"}}));
    std::string third = undo_id(p.ok("write_text", {{"path", "a.txt"}, {"content", "3\n"}}));
    json e = p.fails("undo", {{"undoId", id}});
    CHECK(e["data"]["kind"] == "not_found");
    CHECK(e["data"]["undoId"] == id);
    p.ok("undo", {{"undoId", third}});
    CHECK(root.read("a.txt") == "2\n");
    CHECK(p.fails("undo", {{"undoId", "undo-00000000-1"}})["data"]["kind"] == "not_found");
    CHECK(p.fails("undo", json::object())["data"]["param"] == "undoId");
    CHECK(p.fails("undo", {{"undoId", 7}})["data"]["kind"] == "invalid_params");
    id = second;
  }
  // A restart forgets.
  auto p = spawn_editd(root, {"--ledger", "off"});
  CHECK(p.fails("undo", {{"undoId", id}})["data"]["kind"] == "not_found");
}

TEST_CASE("a change larger than --undo-history-bytes is not kept, and evicts nothing") {
  // The bound counts the bytes the history keeps: each file's content before.
  TempDir root;
  root.write("small.txt", "s\n");
  root.write("big.txt", std::string(2000, 'x'));
  for (const char* name : {"a.txt", "b.txt", "c.txt"}) root.write(name, std::string(400, '-'));
  auto p = spawn_editd(root, {"--undo-history-bytes", "1000", "--ledger", "off"});
  std::string small = undo_id(p.ok("write_text", {{"path", "small.txt"}, {"content", "S\n"}}));
  json big = p.ok("write_text", {{"path", "big.txt"}, {"content", "y\n"}});
  CHECK_FALSE(big.contains("undoId"));
  p.ok("undo", {{"undoId", small}});
  CHECK(root.read("small.txt") == "s\n");
  // A created file keeps nothing before: 2,000 new bytes fit a bound of 1,000.
  json made = p.ok("write_text", {{"path", "new.txt"}, {"content", std::string(2000, 'n')}});
  CHECK(made.contains("undoId"));
  // The byte bound evicts the oldest entries.
  std::string a =
      undo_id(p.ok("write_text", {{"path", "a.txt"}, {"content", std::string(400, 'a')}}));
  std::string b =
      undo_id(p.ok("write_text", {{"path", "b.txt"}, {"content", std::string(400, 'b')}}));
  std::string c =
      undo_id(p.ok("write_text", {{"path", "c.txt"}, {"content", std::string(400, 'c')}}));
  CHECK(p.fails("undo", {{"undoId", a}})["data"]["kind"] == "not_found");
  // (Each undo is recorded too, and evicts the oldest: b's undo drops b itself.)
  p.ok("undo", {{"undoId", b}});
  CHECK(root.read("b.txt") == std::string(400, '-'));
  p.ok("undo", {{"undoId", c}});
  CHECK(root.read("c.txt") == std::string(400, '-'));
  // With no history at all, nothing carries an undoId.
  auto none = spawn_editd(root, {"--undo-history-entries", "0", "--ledger", "off"});
  CHECK_FALSE(
      none.ok("write_text", {{"path", "small.txt"}, {"content", "t\n"}}).contains("undoId"));
}

TEST_CASE("a large file's bytes before go to disk, and undo reads them back exactly") {
  TempDir root;
  std::string original = "\xEF\xBB\xBF", rewritten;
  for (int i = 0; original.size() < 1200000; ++i) {
    original += "line " + std::to_string(i) + (i % 3 ? "\r\n" : "\n");
    rewritten += "LINE " + std::to_string(i) + "\n";
  }
  original += "no final newline";
  root.write("big.txt", original);
  root.write("small.txt", "s\n");
  auto p = spawn_editd(root, {"--undo-history-entries", "2", "--ledger", "off"});
  const std::string dir = copies_in(root, original.size());
  const std::size_t copies = dir.empty() ? 0 : 1;
  if (copies == 0) MESSAGE("/tmp and the root are tmpfs or nearly full: the history is in memory");
  // An edit of a few regions keeps what they held, and no copy of the file;
  // so does its undo, which changes the same region back.
  std::string edit = undo_id(p.ok("str_replace", {{"path", "big.txt"},
                                                  {"oldText", "line 7000\r\nline 7001"},
                                                  {"newText", "LINE"},
                                                  {"replaceAll", false}}));
  CHECK(copies_once(p.pid(), dir, 0) == 0);
  json undone = p.ok("undo", {{"undoId", edit}});
  CHECK(root.read("big.txt") == original);
  CHECK(undone["diff"].get<std::string>().find("-LINE") != std::string::npos);
  CHECK(copies_once(p.pid(), dir, 0) == 0);
  // A rewrite of the whole file keeps the whole of it: 1.2 MB is over the
  // 1 MiB kept in memory, an unnamed file of /tmp/editd-EUID (or of the root
  // where /tmp is a tmpfs; in memory where both are).
  std::string whole = undo_id(p.ok("write_text", {{"path", "big.txt"}, {"content", rewritten}}));
  CHECK(copies_once(p.pid(), dir, copies) == copies);
  undo_id(p.ok("write_text", {{"path", "small.txt"}, {"content", "S\n"}}));
  CHECK(copies_once(p.pid(), dir, copies) == copies);  // small files stay in memory
  // Four entries into a history of two: the edit's is gone.
  CHECK(p.fails("undo", {{"undoId", edit}})["data"]["kind"] == "not_found");
  // The copy is read back exactly; the undo, recorded in turn, keeps the
  // rewritten file whole and evicts the rewrite's entry, whose copy closes.
  p.ok("undo", {{"undoId", whole}});
  CHECK(root.read("big.txt") == original);
  CHECK(copies_once(p.pid(), dir, copies) == copies);
  // Two small entries later, nothing large is kept.
  p.ok("write_text", {{"path", "small.txt"}, {"content", "T\n"}});
  p.ok("write_text", {{"path", "small.txt"}, {"content", "U\n"}});
  CHECK(copies_once(p.pid(), dir, 0) == 0);
}

TEST_CASE("the undo of edits of a few regions puts back exactly what each region held") {
  // Restores of the bytes after, kept instead of the file: regions that grow,
  // shrink and vanish, at the start and the end, after a BOM, with CRLF.
  TempDir root;
  std::string original = "\xEF\xBB\xBF";
  const std::string pad(60, '.');  // the regions are then far less than half the file
  for (int i = 0; i < 3000; ++i) original += "row " + std::to_string(i % 7) + pad + "\r\n";
  original += "end";
  root.write("r.txt", original);
  auto p = spawn_editd(root);
  std::vector<std::string> ids, states{original};
  ids.push_back(undo_id(p.ok("str_replace", {{"path", "r.txt"},
                                             {"oldText", "row 3"},
                                             {"newText", "row three, longer\nand a line"},
                                             {"replaceAll", true}})));
  states.push_back(root.read("r.txt"));
  ids.push_back(undo_id(p.ok("str_replace", {{"path", "r.txt"},
                                             {"oldText", "row 5" + pad + "\n"},
                                             {"newText", ""},
                                             {"replaceAll", true}})));
  states.push_back(root.read("r.txt"));
  ids.push_back(undo_id(p.ok("insert", {{"path", "r.txt"}, {"line", 0}, {"text", "first\n"}})));
  states.push_back(root.read("r.txt"));
  ids.push_back(undo_id(
      p.ok("str_replace", {{"path", "r.txt"}, {"oldText", "end"}, {"newText", "the end\n"}})));
  states.push_back(root.read("r.txt"));
  // apply_patch keeps the one span where a file changed.
  ids.push_back(undo_id(p.ok(
      "apply_patch",
      {{"patch",
        "*** Begin Patch\n*** Update File: r.txt\n@@\n-the end\n+THE END\n*** End Patch\n"}})));
  states.push_back(root.read("r.txt"));
  for (std::size_t i = 1; i < states.size(); ++i) CHECK(states[i] != states[i - 1]);
  for (std::size_t i = ids.size(); i-- > 0;) {
    p.ok("undo", {{"undoId", ids[i]}});
    CHECK(root.read("r.txt") == states[i]);
  }
  CHECK(root.read("r.txt") == original);
}

TEST_CASE("undo honours --read-only") {
  TempDir root;
  root.write("a.txt", "a\n");
  std::string id;
  {
    auto p = spawn_editd(root);
    id = undo_id(p.ok("write_text", {{"path", "a.txt"}, {"content", "b\n"}}));
  }
  auto p = spawn_editd(root, {"--read-only"});
  CHECK(p.fails("undo", {{"undoId", id}})["data"]["kind"] == "denied");
}

TEST_CASE("undo of a delete or a move puts the file back with its mode, and redo keeps it") {
  TempDir root;
  root.write("secret.env", "KEY=1\n");
  root.write("run.sh", "#!/bin/sh\n");
  ::chmod((root.path() / "secret.env").c_str(), 0600);
  ::chmod((root.path() / "run.sh").c_str(), 0755);
  const mode_t umask_was = ::umask(022);  // editd inherits it: a new file would be 0644
  auto p = spawn_editd(root);
  ::umask(umask_was);

  const std::string deleted = undo_id(p.ok(
      "apply_patch", {{"patch", "*** Begin Patch\n*** Delete File: secret.env\n*** End Patch"}}));
  CHECK_FALSE(root.exists("secret.env"));
  const std::string restored = undo_id(p.ok("undo", {{"undoId", deleted}}));
  CHECK(root.read("secret.env") == "KEY=1\n");
  CHECK(mode_of(root, "secret.env") == 0600);
  p.ok("undo", {{"undoId", restored}});  // the delete again
  CHECK_FALSE(root.exists("secret.env"));

  const std::string moved = undo_id(
      p.ok("apply_patch", {{"patch",
                            "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n"
                            "@@\n-#!/bin/sh\n+#!/bin/bash\n*** End Patch"}}));
  CHECK(mode_of(root, "bin/run.sh") == 0755);
  const std::string back = undo_id(p.ok("undo", {{"undoId", moved}}));
  CHECK(root.read("run.sh") == "#!/bin/sh\n");
  CHECK(mode_of(root, "run.sh") == 0755);
  CHECK_FALSE(root.exists("bin/run.sh"));
  p.ok("undo", {{"undoId", back}});  // the move again
  CHECK(mode_of(root, "bin/run.sh") == 0755);
}
