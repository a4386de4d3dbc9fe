// What a file carries besides its bytes, through the real binary: extended
// attributes and ACLs kept by every write, no default ACL leaked into an
// edited file, new files made as `touch` makes them, hard-linked files edited
// in place (docs/protocol.md, "Byte fidelity"). The filesystem of the
// temporary directories (ext4 here and in CI) takes user.* attributes and
// ACLs; a test that needs them says so and stops where it does not.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "helpers/process.h"
#include "helpers/tree.h"
#include "helpers/xattrs.h"

using namespace editd::test;

namespace {

ino_t inode_of(const fs::path& p) {
  struct stat st;
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st.st_ino;
}

std::string undo_id_of(const json& result) {
  REQUIRE_MESSAGE(result.contains("undoId"), result.dump());
  return result["undoId"];
}

}  // namespace

TEST_CASE("every write keeps a file's extended attributes and the ACL that grants another user") {
  TempDir root;
  SKIP_UNLESS_ACLS(root.path());
  root.write("a.txt", "one\ntwo\n");
  const fs::path a = root.path() / "a.txt";
  REQUIRE(set_xattr(a, "user.origin", "https://example.com"));
  REQUIRE(set_xattr(a, "system.posix_acl_access", acl_granting(4242, 0640)));
  const auto carried = xattrs_of(a);
  const unsigned mode = mode_of(a);
  auto p = spawn_editd(root);

  p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "ONE"}});
  CHECK(xattrs_of(a) == carried);
  p.ok("write_text", {{"path", "a.txt"}, {"content", "three\n"}});
  CHECK(xattrs_of(a) == carried);
  json r = p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Update File: a.txt\n@@\n-three\n"
                                          "+four\n*** Add File: b.txt\n+b\n*** End Patch\n"}});
  CHECK(root.read("a.txt") == "four\n");
  CHECK(xattrs_of(a) == carried);
  p.ok("undo", {{"undoId", undo_id_of(r)}});
  CHECK(root.read("a.txt") == "three\n");
  CHECK(xattrs_of(a) == carried);
  CHECK(mode_of(a) == mode);
}

TEST_CASE("a file moved by apply_patch keeps its extended attributes and ACL at its destination") {
  TempDir root;
  SKIP_UNLESS_ACLS(root.path());
  root.write("old.txt", "x\n");
  REQUIRE(set_xattr(root.path() / "old.txt", "user.origin", "kept"));
  REQUIRE(set_xattr(root.path() / "old.txt", "system.posix_acl_access", acl_granting(4242, 0600)));
  const auto carried = xattrs_of(root.path() / "old.txt");
  const unsigned mode = mode_of(root.path() / "old.txt");
  auto p = spawn_editd(root);
  p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Update File: old.txt\n*** Move to: "
                                 "sub/new.txt\n@@\n-x\n+y\n*** End Patch\n"}});
  CHECK(root.read("sub/new.txt") == "y\n");
  CHECK(xattrs_of(root.path() / "sub/new.txt") == carried);
  CHECK(mode_of(root.path() / "sub/new.txt") == mode);
}

TEST_CASE("an edited file does not take its directory's default ACL") {
  TempDir root;
  SKIP_UNLESS_ACLS(root.path());
  root.write("d/a.txt", "a\n");
  ::chmod((root.path() / "d/a.txt").c_str(), 0640);
  REQUIRE(set_xattr(root.path() / "d", "system.posix_acl_default", acl_granting(4242, 0755)));
  auto p = spawn_editd(root);
  p.ok("str_replace", {{"path", "d/a.txt"}, {"oldText", "a"}, {"newText", "A"}});
  CHECK(xattrs_of(root.path() / "d/a.txt").empty());
  CHECK(mode_of(root.path() / "d/a.txt") == 0640);
}

TEST_CASE("create, write_text and an Add make a new file as touch does: default ACL, else umask") {
  TempDir root;
  SKIP_UNLESS_ACLS(root.path());
  fs::create_directories(root.path() / "shared");
  REQUIRE(set_xattr(root.path() / "shared", "system.posix_acl_default",
                    posix_acl({{kAclUserObj, 7}, {kAclGroupObj, 7}, {kAclOther, 5}})));
  const mode_t old_umask = ::umask(027);  // editd inherits it
  auto p = spawn_editd(root);
  ::umask(old_umask);
  p.ok("create", {{"path", "shared/c.txt"}, {"content", "c\n"}});
  p.ok("write_text", {{"path", "shared/w.txt"}, {"content", "w\n"}});
  p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Add File: shared/p.txt\n+p\n"
                                 "*** Add File: q.txt\n+q\n*** End Patch\n"}});
  p.ok("create", {{"path", "u.txt"}, {"content", "u\n"}});
  for (const char* name : {"shared/c.txt", "shared/w.txt", "shared/p.txt"}) {
    CAPTURE(name);
    CHECK(mode_of(root.path() / name) == 0664);
  }
  CHECK(mode_of(root.path() / "q.txt") == 0640);
  CHECK(mode_of(root.path() / "u.txt") == 0640);
}

TEST_CASE("a hard-linked file is edited in place by every write, and undone in place") {
  TempDir root;
  root.write("a.txt", "one\ntwo\n");
  root.write("b.txt", "b\n");
  root.write("sub/keep.txt", "keep\n");
  fs::create_hard_link(root.path() / "a.txt", root.path() / "sub/link.txt");
  const ino_t ino = inode_of(root.path() / "a.txt");
  auto p = spawn_editd(root);

  json r = p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "ONE"}});
  CHECK(root.read("sub/link.txt") == "ONE\ntwo\n");
  p.ok("apply_patch", {{"patch", "*** Begin Patch\n*** Update File: sub/link.txt\n@@\n-two\n+TWO\n"
                                 "*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n"}});
  CHECK(root.read("a.txt") == "ONE\nTWO\n");
  CHECK(root.read("b.txt") == "B\n");
  p.ok("write_text", {{"path", "sub/link.txt"}, {"content", "short\n"}});
  CHECK(root.read("a.txt") == "short\n");
  CHECK(inode_of(root.path() / "a.txt") == ino);
  CHECK(inode_of(root.path() / "sub/link.txt") == ino);

  // Undoing the first edit conflicts (the file changed since); the last one's goes back.
  json w = p.ok("write_text", {{"path", "a.txt"}, {"content", "last\n"}});
  p.ok("undo", {{"undoId", undo_id_of(w)}});
  CHECK(root.read("sub/link.txt") == "short\n");
  CHECK(inode_of(root.path() / "a.txt") == ino);
  CHECK(p.fails("undo", {{"undoId", undo_id_of(r)}})["data"]["kind"] == "conflict");
  CHECK(editd_leftovers(tree_state(root.path())).empty());
}

TEST_CASE("a hard link to a file outside the root is not edited: the write is refused") {
  TempDir root, outside;
  root.write("a.txt", "in\n");
  std::error_code ec;
  fs::create_hard_link(root.path() / "a.txt", outside.path() / "secret.txt", ec);
  if (ec) {
    MESSAGE("skipped: " << outside.str() << " is on another filesystem than the root");
    return;
  }
  auto p = spawn_editd(root);
  json e = p.fails("str_replace", {{"path", "a.txt"}, {"oldText", "in"}, {"newText", "out"}});
  CHECK(e["data"]["kind"] == "denied");
  CHECK(e["data"]["reason"] == "hard_links_outside_root");
  CHECK(std::string(e["message"]).find("hard links") != std::string::npos);
  CHECK(outside.read("secret.txt") == "in\n");
  CHECK(root.read("a.txt") == "in\n");
}

TEST_CASE("editd apply-patch keeps extended attributes and hard links as the server does") {
  TempDir root;
  SKIP_UNLESS_ACLS(root.path());
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  fs::create_hard_link(root.path() / "a.txt", root.path() / "link.txt");
  REQUIRE(set_xattr(root.path() / "b.txt", "user.kept", "yes"));
  const ino_t ino = inode_of(root.path() / "a.txt");
  Run r = run_editd({"apply-patch", "--root", root.str(),
                     "*** Begin Patch\n*** Update File: link.txt\n@@\n-a\n+A\n"
                     "*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n"});
  REQUIRE_MESSAGE(r.code == 0, r.out << r.err);
  CHECK(root.read("a.txt") == "A\n");
  CHECK(inode_of(root.path() / "link.txt") == ino);
  CHECK(root.read("b.txt") == "B\n");
  CHECK(xattrs_of(root.path() / "b.txt") == std::map<std::string, std::string>{{"user.kept", "yes"}});
}
