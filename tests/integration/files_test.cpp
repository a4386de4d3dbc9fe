// move, copy and delete through the real binary, on real directories: files
// and directory trees, overwrite, bounds, fingerprints, dry runs, undo,
// symbolic links and paths outside the root, binary files, --read-only.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <vector>

#include "helpers/mcp_session.h"
#include "helpers/process.h"
#include "helpers/xattrs.h"

using namespace editd::test;

namespace {

std::string files_undo_id(const json& result) {
  REQUIRE_MESSAGE(result.contains("undoId"), result.dump());
  return result["undoId"];
}

std::string fingerprint_of(Process& p, const std::string& path) {
  return p.ok("fingerprint", {{"path", path}})["fingerprint"];
}

// The first bytes of a PNG and a few more, NUL and high bytes among them.
constexpr char kPngBytes[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\xff\xfe";
const std::string kPng(kPngBytes, sizeof kPngBytes - 1);  // without the literal's own NUL

}  // namespace

TEST_CASE("move renames a file with its bytes and mode, and undo puts it back under its name") {
  TempDir root;
  root.write("src/a.txt", "one\r\ntwo\r\n");
  fs::permissions(root.path() / "src/a.txt", fs::perms(0751));
  const bool xattrs = set_xattr(root.path() / "src/a.txt", "user.origin", "kept");
  auto p = spawn_editd(root);
  json r = p.ok("move", {{"from", "src/a.txt"}, {"to", "dst/b.txt"}});
  CHECK_FALSE(root.exists("src/a.txt"));
  CHECK(root.read("dst/b.txt") == "one\r\ntwo\r\n");
  CHECK(mode_of(root, "dst/b.txt") == 0751);
  if (xattrs)
    CHECK(xattrs_of(root.path() / "dst/b.txt") ==
          std::map<std::string, std::string>{{"user.origin", "kept"}});
  REQUIRE(r["files"].size() == 1);
  CHECK(r["files"][0]["action"] == "move");
  CHECK(r["files"][0]["path"] == "src/a.txt");
  CHECK(r["files"][0]["movedTo"] == "dst/b.txt");
  CHECK(r["files"][0]["fingerprint"] == fingerprint_of(p, "dst/b.txt"));
  CHECK(r.contains("changeId"));

  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK(root.read("src/a.txt") == "one\r\ntwo\r\n");
  CHECK(mode_of(root, "src/a.txt") == 0751);
  CHECK_FALSE(root.exists("dst/b.txt"));
}

TEST_CASE("move onto an existing file: exists without overwrite, replaced with it, undone whole") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  auto p = spawn_editd(root);
  json e = p.fails("move", {{"from", "a.txt"}, {"to", "b.txt"}});
  CHECK(e["data"]["kind"] == "exists");
  CHECK(e["data"]["path"] == "b.txt");
  CHECK(e["message"].get<std::string>().find("overwrite") != std::string::npos);
  CHECK(root.read("a.txt") == "a\n");
  CHECK(root.read("b.txt") == "b\n");

  json r = p.ok("move", {{"from", "a.txt"}, {"to", "b.txt"}, {"overwrite", true}});
  CHECK(r["files"][0]["overwritten"] == true);
  CHECK_FALSE(root.exists("a.txt"));
  CHECK(root.read("b.txt") == "a\n");
  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK(root.read("a.txt") == "a\n");
  CHECK(root.read("b.txt") == "b\n");
}

TEST_CASE("move takes a directory tree, hidden files included, and undo brings it back") {
  TempDir root;
  root.write("pkg/a.txt", "a\n");
  root.write("pkg/.hidden", "h\n");
  root.write("pkg/sub/deep/c.txt", "c\n");
  auto p = spawn_editd(root);
  json r = p.ok("move", {{"from", "pkg"}, {"to", "lib/pkg2"}});
  CHECK_FALSE(root.exists("pkg"));
  CHECK(root.read("lib/pkg2/a.txt") == "a\n");
  CHECK(root.read("lib/pkg2/.hidden") == "h\n");
  CHECK(root.read("lib/pkg2/sub/deep/c.txt") == "c\n");
  CHECK(r["files"].size() == 3);
  CHECK(r["removedDirectories"] == json{"pkg/sub/deep", "pkg/sub", "pkg"});

  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK(root.read("pkg/a.txt") == "a\n");
  CHECK(root.read("pkg/.hidden") == "h\n");
  CHECK(root.read("pkg/sub/deep/c.txt") == "c\n");
  CHECK_FALSE(root.exists("lib/pkg2/a.txt"));

  // A directory goes only where nothing is, and never into itself.
  root.write("other/x.txt", "x\n");
  json e = p.fails("move", {{"from", "pkg"}, {"to", "other"}, {"overwrite", true}});
  CHECK(e["data"]["kind"] == "exists");
  e = p.fails("move", {{"from", "pkg"}, {"to", "pkg/sub/inner"}});
  CHECK(e["data"]["kind"] == "invalid_params");
  CHECK(root.read("pkg/a.txt") == "a\n");
  CHECK(root.read("other/x.txt") == "x\n");
}

TEST_CASE("a directory's move past maxFiles is refused with the counts, nothing moved") {
  TempDir root;
  for (int i = 0; i < 3; ++i) root.write("d/f" + std::to_string(i) + ".txt", "x\n");
  auto p = spawn_editd(root);
  json e = p.fails("move", {{"from", "d"}, {"to", "e"}, {"maxFiles", 2}});
  CHECK(e["data"]["kind"] == "too_large");
  CHECK(e["data"]["maxFiles"] == 2);
  CHECK(e["data"]["files"].get<int>() >= 3);
  CHECK(root.exists("d/f2.txt"));
  CHECK_FALSE(root.exists("e"));
}

TEST_CASE("move refuses itself, a missing source, paths outside the root and a parent that is a file") {
  TempDir root;
  TempDir outside;
  root.write("a.txt", "a\n");
  root.write("file", "f\n");
  outside.write("secret.txt", "s\n");
  const auto before = root.files();
  auto p = spawn_editd(root);
  CHECK(p.fails("move", {{"from", "a.txt"}, {"to", "./a.txt"}})["data"]["kind"] ==
        "invalid_params");
  json e = p.fails("move", {{"from", "nope.txt"}, {"to", "b.txt"}});
  CHECK(e["data"]["kind"] == "not_found");
  CHECK(p.fails("move", {{"from", "a.txt"}, {"to", "../escaped.txt"}})["data"]["kind"] ==
        "outside_root");
  CHECK(p.fails("move", {{"from", (outside.path() / "secret.txt").string()}, {"to", "s.txt"}})
            ["data"]["kind"] == "outside_root");
  e = p.fails("move", {{"from", "a.txt"}, {"to", "file/a.txt"}});
  CHECK(e["data"]["kind"] == "not_found");
  CHECK(e["message"].get<std::string>().find("cannot move a.txt to file/a.txt") !=
        std::string::npos);
  CHECK(root.files() == before);
  CHECK(outside.read("secret.txt") == "s\n");
  CHECK_FALSE(fs::exists(root.path().parent_path() / "escaped.txt"));
}

TEST_CASE("symbolic links are never followed, moved or removed") {
  TempDir root;
  TempDir outside;
  outside.write("secret.txt", "s\n");
  root.write("target.txt", "t\n");
  root.write("tree/a.txt", "a\n");
  fs::create_symlink(root.path() / "target.txt", root.path() / "link.txt");
  fs::create_symlink(outside.path() / "secret.txt", root.path() / "out.txt");
  fs::create_directory_symlink(outside.path(), root.path() / "outdir");
  fs::create_symlink("../target.txt", root.path() / "tree/inner-link");
  auto p = spawn_editd(root);

  json e = p.fails("move", {{"from", "link.txt"}, {"to", "moved.txt"}});
  CHECK(e["data"]["kind"] == "unsupported");
  CHECK(e["data"]["reason"] == "symlink");
  CHECK(p.fails("delete", {{"path", "link.txt"}})["data"]["kind"] == "unsupported");
  CHECK(p.fails("copy", {{"from", "link.txt"}, {"to", "c.txt"}})["data"]["kind"] ==
        "unsupported");
  CHECK(p.fails("move", {{"from", "out.txt"}, {"to", "moved.txt"}})["data"]["kind"] ==
        "outside_root");
  CHECK(p.fails("delete", {{"path", "out.txt"}})["data"]["kind"] == "outside_root");
  // `to` whose parent is a link out of the root.
  CHECK(p.fails("move", {{"from", "target.txt"}, {"to", "outdir/t.txt"}})["data"]["kind"] ==
        "outside_root");
  CHECK(p.fails("copy", {{"from", "target.txt"}, {"to", "outdir/t.txt"}})["data"]["kind"] ==
        "outside_root");
  // A link inside a directory refuses the directory's move and removal.
  e = p.fails("move", {{"from", "tree"}, {"to", "tree2"}});
  CHECK(e["data"]["kind"] == "unsupported");
  CHECK(e["data"]["path"] == "tree/inner-link");
  CHECK(p.fails("delete", {{"path", "tree"}, {"recursive", true}})["data"]["kind"] ==
        "unsupported");

  CHECK(fs::is_symlink(root.path() / "link.txt"));
  CHECK(fs::is_symlink(root.path() / "out.txt"));
  CHECK(fs::is_symlink(root.path() / "tree/inner-link"));
  CHECK(root.read("target.txt") == "t\n");
  CHECK(root.read("tree/a.txt") == "a\n");
  CHECK_FALSE(root.exists("moved.txt"));
  CHECK_FALSE(root.exists("tree2"));
  CHECK(outside.read("secret.txt") == "s\n");
  CHECK_FALSE(fs::exists(outside.path() / "t.txt"));
}

TEST_CASE("copy writes the source's bytes and executable bit at a new path; undo removes it") {
  TempDir root;
  root.write("run.sh", "#!/bin/sh\necho hi\n");
  fs::permissions(root.path() / "run.sh", fs::perms(0755));
  root.write("taken.sh", "old\n");
  auto p = spawn_editd(root);
  json r = p.ok("copy", {{"from", "run.sh"}, {"to", "bin/run2.sh"}});
  CHECK(root.read("bin/run2.sh") == "#!/bin/sh\necho hi\n");
  CHECK((mode_of(root, "bin/run2.sh") & 0100) != 0);
  CHECK(root.read("run.sh") == "#!/bin/sh\necho hi\n");
  REQUIRE(r["files"].size() == 1);
  CHECK(r["files"][0]["action"] == "add");
  CHECK(r["files"][0]["path"] == "bin/run2.sh");
  CHECK(r["diff"].get<std::string>().find("+echo hi") != std::string::npos);

  json e = p.fails("copy", {{"from", "run.sh"}, {"to", "taken.sh"}});
  CHECK(e["data"]["kind"] == "exists");
  CHECK(root.read("taken.sh") == "old\n");
  json o = p.ok("copy", {{"from", "run.sh"}, {"to", "taken.sh"}, {"overwrite", true}});
  CHECK(root.read("taken.sh") == "#!/bin/sh\necho hi\n");
  p.ok("undo", {{"undoId", files_undo_id(o)}});
  CHECK(root.read("taken.sh") == "old\n");

  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK_FALSE(root.exists("bin/run2.sh"));
  CHECK(root.read("run.sh") == "#!/bin/sh\necho hi\n");
  CHECK(p.fails("copy", {{"from", "bin"}, {"to", "bin3"}})["data"]["kind"] != "");
}

TEST_CASE("delete removes a file, and undo gives it back") {
  TempDir root;
  root.write("a.txt", "a\n");
  fs::permissions(root.path() / "a.txt", fs::perms(0640));
  auto p = spawn_editd(root);
  json r = p.ok("delete", {{"path", "a.txt"}});
  CHECK_FALSE(root.exists("a.txt"));
  CHECK(r["files"][0]["action"] == "delete");
  CHECK(r["diff"].get<std::string>().find("-a") != std::string::npos);
  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK(root.read("a.txt") == "a\n");
  CHECK(mode_of(root, "a.txt") == 0640);
  CHECK(p.fails("delete", {{"path", "gone.txt"}})["data"]["kind"] == "not_found");
  CHECK(p.fails("delete", {{"path", "."}, {"recursive", true}})["data"]["kind"] == "denied");
}

TEST_CASE("delete of a directory: empty, refused when not without recursive, bounded with it") {
  TempDir root;
  fs::create_directories(root.path() / "empty");
  root.write("full/a.txt", "a\n");
  root.write("full/sub/b.txt", "b\n");
  root.write("full/sub/c.txt", "c\n");
  auto p = spawn_editd(root);

  json r = p.ok("delete", {{"path", "empty"}});
  CHECK_FALSE(root.exists("empty"));
  CHECK(r["removedDirectories"] == json{"empty"});

  json e = p.fails("delete", {{"path", "full"}});
  CHECK(e["data"]["kind"] == "denied");
  CHECK(e["data"]["reason"] == "not_empty");
  CHECK(e["message"].get<std::string>().find("recursive") != std::string::npos);
  CHECK(root.exists("full/sub/c.txt"));

  e = p.fails("delete", {{"path", "full"}, {"recursive", true}, {"maxFiles", 2}});
  CHECK(e["data"]["kind"] == "too_large");
  CHECK(e["data"]["maxFiles"] == 2);
  CHECK(e["message"].get<std::string>().find("past the bound of 2 files") != std::string::npos);
  e = p.fails("delete", {{"path", "full"}, {"recursive", true}, {"maxBytes", 5}});
  CHECK(e["data"]["kind"] == "too_large");
  CHECK(e["data"]["maxBytes"] == 5);
  CHECK(root.read("full/a.txt") == "a\n");
  CHECK(root.read("full/sub/b.txt") == "b\n");
  CHECK(root.read("full/sub/c.txt") == "c\n");

  r = p.ok("delete", {{"path", "full"}, {"recursive", true}, {"maxFiles", 3}});
  CHECK_FALSE(root.exists("full"));
  CHECK(r["files"].size() == 3);
  CHECK(r["removedDirectories"] == json{"full/sub", "full"});
  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK(root.read("full/a.txt") == "a\n");
  CHECK(root.read("full/sub/b.txt") == "b\n");
  CHECK(root.read("full/sub/c.txt") == "c\n");
}

TEST_CASE("expectedFingerprint: a changed file is neither moved, copied nor deleted") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root);
  const std::string fp = fingerprint_of(p, "a.txt");
  root.write("a.txt", "changed\n");
  for (const char* method : {"move", "copy"}) {
    json e = p.fails(method, {{"from", "a.txt"}, {"to", "b.txt"}, {"expectedFingerprint", fp}});
    CHECK(e["data"]["kind"] == "conflict");
  }
  CHECK(p.fails("delete", {{"path", "a.txt"}, {"expectedFingerprint", fp}})["data"]["kind"] ==
        "conflict");
  CHECK(root.read("a.txt") == "changed\n");
  CHECK_FALSE(root.exists("b.txt"));
  p.ok("move", {{"from", "a.txt"}, {"to", "b.txt"},
                {"expectedFingerprint", fingerprint_of(p, "a.txt")}});
  CHECK(root.read("b.txt") == "changed\n");
}

TEST_CASE("dryRun says what would happen and writes nothing") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("d/x.txt", "x\n");
  root.write("d/e/y.txt", "y\n");
  const auto before = root.files();
  auto p = spawn_editd(root);
  json r = p.ok("move", {{"from", "a.txt"}, {"to", "b.txt"}, {"dryRun", true}});
  CHECK(r["files"][0]["movedTo"] == "b.txt");
  CHECK_FALSE(r.contains("undoId"));
  r = p.ok("move", {{"from", "d"}, {"to", "d2"}, {"dryRun", true}});
  CHECK(r["files"].size() == 2);
  CHECK(r["removedDirectories"] == json{"d/e", "d"});
  r = p.ok("copy", {{"from", "a.txt"}, {"to", "c.txt"}, {"dryRun", true}});
  CHECK(r["files"][0]["path"] == "c.txt");
  r = p.ok("delete", {{"path", "d"}, {"recursive", true}, {"dryRun", true}});
  CHECK(r["files"].size() == 2);
  r = p.ok("delete", {{"path", "a.txt"}, {"dryRun", true}});
  CHECK(r["files"][0]["action"] == "delete");
  CHECK(root.files() == before);
}

TEST_CASE("a binary file is moved, copied and deleted byte for byte, and undone") {
  TempDir root;
  root.write("img/logo.png", kPng);
  auto p = spawn_editd(root);
  json r = p.ok("move", {{"from", "img/logo.png"}, {"to", "assets/logo.png"}});
  CHECK(root.read("assets/logo.png") == kPng);
  CHECK_FALSE(root.exists("img/logo.png"));
  json c = p.ok("copy", {{"from", "assets/logo.png"}, {"to", "assets/copy.png"}});
  CHECK(root.read("assets/copy.png") == kPng);
  CHECK(c["diff"] == "Binary files /dev/null and b/assets/copy.png differ\n");
  json d = p.ok("delete", {{"path", "assets/copy.png"}});
  CHECK_FALSE(root.exists("assets/copy.png"));
  CHECK(d["diff"] == "Binary files a/assets/copy.png and /dev/null differ\n");
  p.ok("undo", {{"undoId", files_undo_id(d)}});
  CHECK(root.read("assets/copy.png") == kPng);
  p.ok("undo", {{"undoId", files_undo_id(r)}});
  CHECK(root.read("img/logo.png") == kPng);
  CHECK_FALSE(root.exists("assets/logo.png"));
  // The ledger keeps them on record.
  json changes = p.ok("changes", json::object());
  CHECK(changes.dump().find("assets/copy.png") != std::string::npos);
}

TEST_CASE("--read-only refuses move, copy and delete, changing nothing") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("d/x.txt", "x\n");
  auto p = spawn_editd(root, {"--read-only"});
  CHECK(p.fails("move", {{"from", "a.txt"}, {"to", "b.txt"}})["data"]["kind"] == "denied");
  CHECK(p.fails("copy", {{"from", "a.txt"}, {"to", "b.txt"}})["data"]["kind"] == "denied");
  CHECK(p.fails("delete", {{"path", "a.txt"}})["data"]["kind"] == "denied");
  CHECK(p.fails("delete", {{"path", "d"}, {"recursive", true}})["data"]["kind"] == "denied");
  CHECK(root.read("a.txt") == "a\n");
  CHECK(root.read("d/x.txt") == "x\n");
  CHECK_FALSE(root.exists("b.txt"));
}

TEST_CASE("`to` naming a symbolic link is refused, and the link's target is untouched") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("target.txt", "t\n");
  fs::create_symlink(root.path() / "target.txt", root.path() / "to-link.txt");
  auto p = spawn_editd(root);
  for (const char* method : {"move", "copy"}) {
    json e = p.fails(method, {{"from", "a.txt"}, {"to", "to-link.txt"}, {"overwrite", true}});
    CHECK(e["data"]["kind"] == "unsupported");
    CHECK(e["data"]["param"] == "to");
  }
  CHECK(root.read("target.txt") == "t\n");
  CHECK(root.read("a.txt") == "a\n");
  CHECK(fs::is_symlink(root.path() / "to-link.txt"));
}

TEST_CASE("over MCP, move's text says what moved and where, and the directories removed") {
  TempDir root;
  root.write("d/a.txt", "a\n");
  auto p = spawn_editd(root);
  mcp_initialize(p);
  json r = call(p, "move", {{"from", "d"}, {"to", "e"}});
  REQUIRE(r["isError"] == false);
  const std::string text = text_of(r);
  CHECK(text.find("move: 1 file: move d/a.txt -> e/a.txt") == 0);
  CHECK(text.find("Directories removed: d\n") != std::string::npos);
  json d = call(p, "delete", {{"path", "e"}});
  CHECK(d["isError"] == true);
  CHECK(text_of(d).find("Error (denied)") == 0);
}

TEST_CASE("a deleted binary file comes back byte for byte from the ledger after a restart") {
  TempDir root;
  root.write("logo.png", kPng);
  std::string id;
  {
    auto p = spawn_editd(root);
    id = files_undo_id(p.ok("delete", {{"path", "logo.png"}}));
  }
  CHECK_FALSE(root.exists("logo.png"));
  auto q = spawn_editd(root);
  q.ok("undo", {{"undoId", id}});
  CHECK(root.read("logo.png") == kPng);
}
