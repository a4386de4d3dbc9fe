// editd's own state out of every client's reach, with the real binary: no
// method and no front door reaches ROOT/.editd or a temporary file's name, a
// journal that a tree ships is never acted on, and a tree cannot turn a
// multi-file patch's crash safety off.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "helpers/process.h"

using namespace editd::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// What a cloned repository, or a client of an older editd, could leave: a
// journal whose records name paths outside the root, and committed removals
// and moves of files inside and outside it.
void ship_hostile_journals(const TempDir& root, const TempDir& outside) {
  struct stat st;
  REQUIRE(::stat((outside.path() / "victim.txt").c_str(), &st) == 0);
  const std::string victim_ino = std::to_string(st.st_ino);
  REQUIRE(::stat((root.path() / "keep.txt").c_str(), &st) == 0);
  const std::string keep_ino = std::to_string(st.st_ino);
  const std::string rel_out = fs::relative(outside.path(), root.path()).string();
  // The shape, and its like in every record a journal has.
  root.write(".editd/journal/b-1-x", "editd-journal 1\ntmp . ../" + rel_out + "/victim.txt\n");
  root.write(".editd/journal/b-2-x", "editd-journal 2 00\ntmp . ../" + rel_out + "/victim.txt 00\n");
  root.write(".editd/journal/b-3-x", "editd-journal 1\nrm " + rel_out + " victim.txt " + victim_ino +
                                         "\ncommit 1\n");
  root.write(".editd/journal/b-4-x", "editd-journal 1\nrm . keep.txt " + keep_ino + "\ncommit 1\n");
  root.write(".editd/journal/b-5-x", "editd-journal 1\nmv . " + outside.str() +
                                         "/victim.txt stolen.txt " + victim_ino + " -\ncommit 1\n");
  root.write(".editd/journal/b-6-x", "editd-journal 1\ndir " + outside.str() + "/made\n");
}

void check_untouched(const TempDir& root, const TempDir& outside) {
  CHECK(outside.read("victim.txt") == "outside\n");
  CHECK(root.read("keep.txt") == "keep\n");
  CHECK_FALSE(root.exists("stolen.txt"));
  CHECK_FALSE(fs::exists(outside.path() / "made"));
  // Left in place, for whoever knows what they are.
  for (int i = 1; i <= 6; ++i) CHECK(root.exists(".editd/journal/b-" + std::to_string(i) + "-x"));
}

std::string two_file_patch() {
  return "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n"
         "*** End Patch\n";
}

}  // namespace

TEST_CASE("no method reaches .editd at the top of the root, nor a temporary file's name: denied") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root);
  const std::vector<std::string> paths = {".editd",
                                          ".editd/journal/b-1-x",
                                          "./.editd/journal",
                                          "sub/../.editd/x",
                                          ".EDITD/journal/b-1-x",
                                          ".eDiTd",
                                          root.str() + "/.editd/journal/b-1-x",
                                          ".a.txt.editd-AAAAAA",
                                          "sub/.x.editd-Zz0123"};
  for (const std::string& path : paths) {
    CAPTURE(path);
    for (const char* method : {"write_text", "create"}) {
      CAPTURE(method);
      json e = p.fails(method, {{"path", path}, {"content", "editd-journal 1\n"}});
      CHECK(e["data"]["kind"] == "denied");
      CHECK(e["message"].get<std::string>().find("editd's own") != std::string::npos);
    }
    json r = p.fails("read_text", {{"path", path}});
    CHECK(r["data"]["kind"] == "denied");
  }
  // A patch's Add, Move and Delete, and the provider-native tools.
  for (const std::string& patch :
       {std::string("*** Begin Patch\n*** Add File: .editd/journal/b-1-x\n+x\n*** End Patch\n"),
        std::string("*** Begin Patch\n*** Update File: a.txt\n*** Move to: .editd/x\n@@\n-a\n+b\n"
                    "*** End Patch\n"),
        std::string("*** Begin Patch\n*** Delete File: .editd\n*** End Patch\n")}) {
    CAPTURE(patch);
    json e = p.fails("apply_patch", {{"patch", patch}});
    CHECK(e["data"]["kind"] == "denied");
  }
  json anthropic = p.request("anthropic_text_editor", {{"command", "create"},
                                                       {"path", ".editd/journal/b-1-x"},
                                                       {"file_text", "x\n"}});
  CHECK(anthropic.dump().find("editd's own") != std::string::npos);
  json openai = p.request(
      "openai_apply_patch",
      {{"operation", {{"type", "create_file"}, {"path", ".editd/journal/b-1-x"}, {"diff", "+x"}}}});
  CHECK(openai.dump().find("editd's own") != std::string::npos);
  // A link in the tree to .editd is judged where it leads.
  fs::create_directories(root.path() / ".editd");
  fs::create_symlink(".editd", root.path() / "state");
  json link = p.fails("write_text", {{"path", "state/journal"}, {"content", "x\n"}});
  CHECK(link["data"]["kind"] == "denied");
  // .editd below the top is an ordinary name.
  p.ok("write_text", {{"path", "sub/.editd/notes.txt"}, {"content", "mine\n"}});
  CHECK(root.read("sub/.editd/notes.txt") == "mine\n");
  CHECK(root.read("a.txt") == "a\n");
  CHECK_FALSE(root.exists(".editd/journal"));
  CHECK_FALSE(root.exists(".a.txt.editd-AAAAAA"));
}

TEST_CASE("journals a tree ships are never acted on: left in place, logged, outside files kept") {
  TempDir root, outside;
  outside.write("victim.txt", "outside\n");
  root.write("keep.txt", "keep\n");
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  ship_hostile_journals(root, outside);
  {
    auto p = spawn_editd(root);
    // Recovery runs before the first reply; the server then works as ever.
    p.ok("apply_patch", {{"patch", two_file_patch()}});
    CHECK(root.read("a.txt") == "A\n");
    CHECK(root.read("b.txt") == "B\n");
    CHECK(p.await_log("b-1-x: not a journal this user's editd wrote").has_value());
    p.close_stdin();
    CHECK(p.wait() == 0);
  }
  check_untouched(root, outside);
  // And again at the next start: nothing is ever followed.
  run_editd({"--root", root.str()}, "", "");
  check_untouched(root, outside);
}

TEST_CASE("the apply_patch command never follows a journal a tree ships") {
  TempDir links, root, outside;
  fs::create_symlink(EDITD_BINARY, links.path() / "apply_patch");
  outside.write("victim.txt", "outside\n");
  root.write("keep.txt", "keep\n");
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  ship_hostile_journals(root, outside);
  for (int run = 0; run < 2; ++run) {
    Run r = run_program((links.path() / "apply_patch").string(),
                        {run == 0 ? two_file_patch()
                                  : "*** Begin Patch\n*** Update File: a.txt\n@@\n-A\n+AA\n*** End "
                                    "Patch\n"},
                        root.str());
    CAPTURE(r.err);
    CHECK(r.code == 0);
  }
  CHECK(root.read("a.txt") == "AA\n");
  check_untouched(root, outside);
}

TEST_CASE("a tree cannot turn a multi-file patch's journal off: refused as io, nothing changes") {
  for (const char* shape : {"file", "journal file", "link"}) {
    CAPTURE(shape);
    TempDir root, elsewhere;
    root.write("a.txt", "a\n");
    root.write("b.txt", "b\n");
    if (std::string(shape) == "file") root.write(".editd", "not a directory\n");
    if (std::string(shape) == "journal file") root.write(".editd/journal", "not a directory\n");
    if (std::string(shape) == "link") fs::create_symlink(elsewhere.path(), root.path() / ".editd");
    auto p = spawn_editd(root);
    json e = p.fails("apply_patch", {{"patch", two_file_patch()}});
    CHECK(e["data"]["kind"] == "io");
    CHECK(e["data"]["path"] == root.str() + "/.editd/journal");
    CHECK(e["message"].get<std::string>().find("nothing was changed") != std::string::npos);
    CHECK(root.read("a.txt") == "a\n");
    CHECK(root.read("b.txt") == "b\n");
    CHECK(fs::is_empty(elsewhere.path()));
    // One file needs no journal: a rename is atomic.
    p.ok("apply_patch",
         {{"patch", "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n"}});
    CHECK(root.read("a.txt") == "A\n");
  }
  // Unless the operator chose no durability.
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("b.txt", "b\n");
  root.write(".editd", "not a directory\n");
  auto p = spawn_editd(root, {"--durability", "none"});
  p.ok("apply_patch", {{"patch", two_file_patch()}});
  CHECK(root.read("a.txt") == "A\n");
  CHECK(root.read("b.txt") == "B\n");
}

TEST_CASE("a state directory inside the root is editd's own too") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root, {"--state-dir", root.str() + "/var/state"});
  p.ok("read_text", {{"path", "a.txt"}});
  REQUIRE(root.exists("var/state/journal-key"));
  for (const char* path : {"var/state/journal-key", "var/state", "var/state/x"}) {
    CAPTURE(path);
    CHECK(p.fails("read_text", {{"path", path}})["data"]["kind"] == "denied");
    CHECK(p.fails("write_text", {{"path", path}, {"content", "x"}})["data"]["kind"] == "denied");
  }
  p.ok("write_text", {{"path", "var/other.txt"}, {"content", "x\n"}});
}

TEST_CASE("another user's /tmp/editd-UID never turns the cross-process locks off: editd refuses") {
  // editd runs as a user of its own (an unused uid), so that no other test's
  // /tmp/editd-UID is touched; nobody made that user's directory first.
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to run editd as another user");
    return;
  }
  const uid_t uid = 200000 + static_cast<uid_t>(::getpid() % 100000);
  const std::string id = std::to_string(uid);
  const std::string taken = "/tmp/editd-" + id;
  fs::remove_all(taken);
  REQUIRE(fs::create_directory(taken));
  REQUIRE(::chown(taken.c_str(), 65534, 65534) == 0);
  ::chmod(taken.c_str(), 0700);
  TempDir root;
  root.write("a.txt", "a\n");
  for (const fs::path& p : {root.path(), root.path() / "a.txt"})
    REQUIRE(::chown(p.c_str(), uid, uid) == 0);
  auto run_as_user = [&] {
    return run_program(
        "/usr/bin/setpriv",
        {"--reuid=" + id, "--regid=" + id, "--clear-groups", EDITD_BINARY, "--root", root.str()},
        "",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read_text\",\"params\":"
        "{\"path\":\"a.txt\"}}\n");
  };
  Run refused = run_as_user();
  CAPTURE(refused.err);
  CHECK(refused.code != 0);
  CHECK(refused.out.empty());
  CHECK(refused.err.find(taken + " belongs to uid 65534, not to this user (uid " + id + ")") !=
        std::string::npos);
  CHECK(refused.err.find("never serves without them") != std::string::npos);
  // The control: once it is gone, the same user is served, with its own.
  fs::remove_all(taken);
  Run served = run_as_user();
  CAPTURE(served.err);
  CHECK(served.code == 0);
  CHECK(served.out.find("\"result\"") != std::string::npos);
  struct stat st;
  CHECK((::lstat(taken.c_str(), &st) == 0 && st.st_uid == uid));
  fs::remove_all(taken);
  CHECK(root.read("a.txt") == "a\n");
}
