// Diagnostics after an edit, through the real binary: --check with a real
// compiler and pyflakes, --lsp with clangd and pylsp from Debian's packages,
// introduced versus pre-existing, a hanging checker, a checker that cannot
// run, apply_patch and undo, and a check that holds up no other file.
#include <doctest/doctest.h>

#include <cstdlib>
#include <set>

#include "helpers/process.h"
#include "helpers/socket_client.h"

using namespace editd::test;

namespace {

// The messages of a diagnostics list, in order.
std::vector<std::string> messages(const json& list) {
  std::vector<std::string> out;
  for (const json& d : list) out.push_back(d["message"]);
  return out;
}

bool mentions(const json& list, const std::string& needle) {
  for (const json& d : list)
    if (d["message"].get<std::string>().find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("--check gcc: the edit's new error is introduced, the shifted old warning is not") {
  TempDir root;
  root.write("a.c", "int main(void) {\n  int unused_old;\n  return 0;\n}\n");
  auto p = spawn_editd(root, {"--check", "*.{c,h}=gcc -fsyntax-only -Wall {file}"});
  json r = p.ok("str_replace", {{"path", "a.c"},
                                {"oldText", "int main(void) {\n"},
                                {"newText", "int main(void) {\n  int y = undeclared_new;\n"}});
  INFO(r.dump());
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(mentions(r["diagnostics"], "undeclared_new"));
  CHECK(mentions(r["diagnostics"], "unused_old"));
  CHECK(mentions(r["introduced"], "undeclared_new"));
  CHECK_FALSE(mentions(r["introduced"], "unused_old"));
  for (const json& d : r["diagnostics"]) {
    CHECK(d["source"] == "gcc");
    CHECK_FALSE(d.contains("file"));
    if (d["message"].get<std::string>().find("unused_old") != std::string::npos)
      CHECK(d["line"] == 3);  // moved down one line by the edit
  }
  // The file was written whatever the diagnostics say.
  CHECK(root.read("a.c").find("undeclared_new") != std::string::npos);

  // Fixing it: nothing introduced, the old warning stays.
  r = p.ok("str_replace",
           {{"path", "a.c"}, {"oldText", "  int y = undeclared_new;\n"}, {"newText", ""}});
  CHECK(r["introduced"].empty());
  CHECK(mentions(r["diagnostics"], "unused_old"));
  CHECK_FALSE(mentions(r["diagnostics"], "undeclared_new"));

  // A file no check covers has no diagnostics fields; nor has a dry run.
  r = p.ok("write_text", {{"path", "notes.txt"}, {"content", "x\n"}});
  CHECK_FALSE(r.contains("diagnostics"));
  r = p.ok("write_text", {{"path", "a.c"}, {"content", "broken(\n"}, {"dryRun", true}});
  CHECK_FALSE(r.contains("diagnostics"));
}

TEST_CASE("--check pyflakes3: a new file's diagnostics are all introduced; apply_patch per file") {
  TempDir root;
  auto p = spawn_editd(root, {"--check=*.py=pyflakes3 {file}"});
  json r = p.ok("create", {{"path", "pkg/m.py"}, {"content", "import os\n"}});
  INFO(r.dump());
  REQUIRE(r["diagnostics"].size() == 1);
  CHECK(r["diagnostics"][0]["line"] == 1);
  CHECK(r["diagnostics"][0]["source"] == "pyflakes3");
  CHECK(messages(r["introduced"]) == messages(r["diagnostics"]));

  // The new line goes above the old one: the old warning moves to line 2 and
  // is still not introduced (the check compares the file's texts before and
  // after the patch).
  json patch =
      p.ok("apply_patch",
           {{"patch",
             "*** Begin Patch\n*** Update File: pkg/m.py\n@@\n+print(undefined_name)\n import os\n"
             "*** Add File: readme.txt\n+hello\n*** End Patch"}});
  INFO(patch.dump());
  bool seen_py = false;
  for (const json& f : patch["files"]) {
    if (f["path"] == "pkg/m.py") {
      seen_py = true;
      CHECK(f["diagnosticsStatus"] == "ok");
      CHECK(mentions(f["diagnostics"], "imported but unused"));
      for (const json& d : f["diagnostics"])
        if (d["message"].get<std::string>().find("imported but unused") != std::string::npos)
          CHECK(d["line"] == 2);
      CHECK(mentions(f["introduced"], "undefined_name"));
      CHECK_FALSE(mentions(f["introduced"], "imported but unused"));
    } else {
      CHECK_FALSE(f.contains("diagnostics"));
    }
  }
  CHECK(seen_py);

  // Undo is a mutation like the others: its files are checked too.
  json undo = p.ok("undo", {{"undoId", patch["undoId"]}});
  for (const json& f : undo["files"])
    if (f["path"] == "pkg/m.py") CHECK(f["introduced"].empty());
}

TEST_CASE("a checker that hangs times out, the edit stands, and other files are not held up") {
  TempDir root;
  root.write("slow.txt", "a\n");
  auto p = spawn_editd(root, {"--check", "slow.txt=sleep 30", "--check-timeout", "3"});
  // A connection runs its first request alone until a reply tells it how big
  // replies are (server/session/transport.h): one answered request first.
  p.ok("read_text", {{"path", "slow.txt"}});
  json slow_id = 100, fast_id = 101;
  p.send({{"jsonrpc", "2.0"},
          {"id", slow_id},
          {"method", "write_text"},
          {"params", {{"path", "slow.txt"}, {"content", "b\n"}}}});
  p.send({{"jsonrpc", "2.0"},
          {"id", fast_id},
          {"method", "write_text"},
          {"params", {{"path", "fast.txt"}, {"content", "c\n"}}}});
  // The other file's edit answers while the check of slow.txt still runs.
  json first = p.read_message();
  CHECK(first["id"] == fast_id);
  json slow = p.response_to(slow_id);
  INFO(slow.dump());
  REQUIRE(slow.contains("result"));
  CHECK(slow["result"]["diagnosticsStatus"] == "timeout");
  CHECK(slow["result"]["diagnosticsDetail"].get<std::string>().find("--check-timeout") !=
        std::string::npos);
  CHECK(root.read("slow.txt") == "b\n");
}

TEST_CASE("while a check runs after a write, reads of the file answer and edits of it wait") {
  TempDir root;
  auto p = spawn_editd(root, {"--check", "slow.txt=sleep 30", "--check-timeout", "3"});
  root.write("warm.txt", "w\n");
  p.ok("read_text", {{"path", "warm.txt"}});  // a first answer first: see the test above
  auto request = [&p](const std::string& id, const std::string& method, json params) {
    p.send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  };
  // A new file: no check before the write, one after it.
  request("write", "write_text", {{"path", "slow.txt"}, {"content", "b\n"}});
  request("read", "read_text", {{"path", "slow.txt"}});
  request("edit", "str_replace", {{"path", "slow.txt"}, {"oldText", "b"}, {"newText", "c"}});
  json first = p.read_message();
  INFO(first.dump());
  CHECK(first["id"] == "read");
  CHECK(first["result"]["content"] == "b\n");  // sent after the write: sees it
  json second = p.read_message();
  CHECK(second["id"] == "write");
  CHECK(second["result"]["diagnosticsStatus"] == "timeout");
  json third = p.read_message();
  CHECK(third["id"] == "edit");
  CHECK(root.read("slow.txt") == "c\n");
}

TEST_CASE("a checker that cannot run or fails without file:line output is reported, not fatal") {
  TempDir root;
  auto p = spawn_editd(
      root, {"--check", "*.a=no-such-checker-for-editd {file}", "--check",
             "*.b=sh -c 'echo \"it broke\" >&2; exit 3'", "--check", "*.c=sh -c 'echo all fine'"});
  json a = p.ok("write_text", {{"path", "x.a"}, {"content", "1\n"}});
  CHECK(a["diagnosticsStatus"] == "failed");
  CHECK(a["diagnosticsDetail"].get<std::string>().find("no-such-checker-for-editd") !=
        std::string::npos);
  CHECK(root.read("x.a") == "1\n");
  json b = p.ok("write_text", {{"path", "x.b"}, {"content", "1\n"}});
  CHECK(b["diagnosticsStatus"] == "ok");
  REQUIRE(b["diagnostics"].size() == 1);
  CHECK(b["diagnostics"][0]["message"] == "it broke");
  CHECK_FALSE(b["diagnostics"][0].contains("line"));
  json c = p.ok("write_text", {{"path", "x.c"}, {"content", "1\n"}});
  CHECK(c["diagnostics"].empty());
}

TEST_CASE("a client's file name never reaches a checker as an option or as shell text") {
  TempDir root;
  // gcc reads an argument starting with '@' as a file of more options, and
  // -wrapper runs a program: a client that writes both files and names one
  // "@opts.c" would run a command, were the name passed as it is.
  root.write("x.c", "int y;\n");
  root.write("opts.c", "-wrapper /bin/sh,-c,touch${IFS}pwned-gcc x.c\n");
  // A script takes the name as a positional parameter, never pasted into it.
  auto p = spawn_editd(root, {"--check", "*.c=gcc -fsyntax-only -Wall {file}", "--check",
                              "*.py=sh -c 'echo \"$1:1: error: saw $1\"' sh {file}"});
  json r = p.ok("write_text", {{"path", "@opts.c"}, {"content", "int z;\n"}});
  INFO(r.dump());
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK_FALSE(root.exists("pwned-gcc"));
  r = p.ok("write_text", {{"path", "-fself-test.c"}, {"content", "int z\n"}});
  CHECK(mentions(r["introduced"], "expected"));  // checked as a file, not read as an option
  for (const std::string name : {"x;touch pwned-a;.py", "y$(touch pwned-b).py", "z`touch pwned-c`.py",
                                 "-c.py"}) {
    r = p.ok("write_text", {{"path", name}, {"content", "1\n"}});
    INFO(r.dump());
    REQUIRE(r["diagnostics"].size() == 1);
    CHECK(r["diagnostics"][0]["message"] == "saw ./" + name);
    CHECK(r["diagnostics"][0]["line"] == 1);
  }
  for (const char* marker : {"pwned-a", "pwned-b", "pwned-c"}) CHECK_FALSE(root.exists(marker));

  // A command that would paste the name into text is refused at start.
  for (const char* bad : {"*.py=sh -c 'pyflakes3 {file}'", "*.c=cc -o{file}.o {file}", "*.sh={file}"}) {
    auto run = run_editd({"--root", root.str(), "--check", bad});
    INFO(bad);
    CHECK(run.code == 2);
    CHECK(run.err.find("{file}") != std::string::npos);
  }
}

TEST_CASE("a checker gets stdin, stdout and stderr and no other descriptor of editd's") {
  TempDir root, run_dir;
  const std::string socket = (run_dir.path() / "editd.sock").string();
  // The checker counts the sockets among its descriptors: editd holds two
  // here, the listener and the client's connection.
  auto p = spawn_editd(root, {"--listen", "unix:" + socket, "--check",
                              "*.txt=sh -c 'n=0; for f in /proc/$$/fd/*; do case $(readlink $f) in "
                              "socket:*) n=$((n+1));; esac; done; echo \"$1:1: error: $n sockets\"' sh "
                              "{file}"});
  REQUIRE(wait_for_path(socket));
  auto client = SocketClient::unix_socket(socket);
  REQUIRE(client.has_value());
  auto r = client->call("write_text", {{"path", "a.txt"}, {"content", "x\n"}});
  REQUIRE(r.has_value());
  INFO(r->dump());
  CHECK(messages((*r)["result"]["diagnostics"]) == std::vector<std::string>{"0 sockets"});
}

TEST_CASE("what a checker leaves behind is editd's to reap: no zombie outlives it") {
  TempDir root;
  // The checker starts a daemon in a session of its own (out of reach of the
  // process group's kill), waits until it runs, says its pid and exits, as
  // dmypy or eslint_d do.
  auto p = spawn_editd(
      root, {"--check",
             "*.txt=sh -c 'setsid sh -c \"echo \\$\\$ > \\\"\\$0.pid\\\"; exec sleep 300\" \"$1\" "
             "</dev/null >/dev/null 2>&1 & while [ ! -s \"$1.pid\" ]; do sleep 0.01; done; "
             "echo \"$1:1: error: $(cat \"$1.pid\")\"' sh {file}"});
  auto daemon_of = [&p](const std::string& path) {
    json r = p.ok("write_text", {{"path", path}, {"content", "x\n"}});
    INFO(r.dump());
    REQUIRE(r["diagnostics"].size() == 1);
    return static_cast<pid_t>(std::stoi(r["diagnostics"][0]["message"].get<std::string>()));
  };
  auto parent_of = [](pid_t pid) -> std::optional<pid_t> {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) return std::nullopt;
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    return ppid;
  };
  const pid_t daemon = daemon_of("a.txt");
  REQUIRE(daemon > 0);
  // The orphan is editd's child now, not init's or the test's.
  CHECK(parent_of(daemon) == std::optional<pid_t>(p.pid()));
  // Once it exits it is reaped: it leaves /proc instead of staying a zombie.
  ::kill(daemon, SIGKILL);
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = !parent_of(daemon).has_value();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(gone);
  // editd's own checks still see their children's exit status.
  const pid_t second = daemon_of("b.txt");
  CHECK(parent_of(second) == std::optional<pid_t>(p.pid()));
  ::kill(second, SIGKILL);
}

TEST_CASE("diagnostics about files outside the root are dropped and counted, never shown") {
  TempDir root, outside;
  outside.write("secret.h", "secret_token_xyz here;\n");
  std::filesystem::create_symlink(outside.path() / "secret.h", root.path() / "link.h");
  root.write("inside.h", "inside_token_abc there;\n");
  auto p = spawn_editd(root, {"--check", "*.c=gcc -fsyntax-only {file}"});
  for (const std::string& include :
       {"\"" + (outside.path() / "secret.h").string() + "\"", std::string("\"link.h\""),
        std::string("\"../") + outside.path().filename().string() + "/secret.h\""}) {
    json r = p.ok("write_text",
                  {{"path", "a.c"}, {"content", "#include " + include + "\n#include \"inside.h\"\n"}});
    INFO(include, " ", r.dump());
    CHECK(r["diagnostics"].dump().find("secret_token_xyz") == std::string::npos);
    CHECK(r["diagnostics"].dump().find(outside.path().filename().string()) == std::string::npos);
    CHECK(r["diagnosticsDetail"].get<std::string>().find("outside the root not shown") !=
          std::string::npos);
    // A file under the root is still named.
    CHECK(mentions(r["diagnostics"], "inside_token_abc"));
  }
  // clangd says "In included file: unknown type name 'secret_token_xyz'" at
  // the #include line, pointing into the file.
  auto lsp = spawn_editd(root, {"--lsp", "*.c=clangd --log=error"});
  json r = lsp.ok("write_text", {{"path", "b.c"},
                                 {"content", "#include \"" + (outside.path() / "secret.h").string() +
                                                 "\"\n#include \"inside.h\"\n"}});
  INFO(r.dump());
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(r.dump().find("secret_token_xyz") == std::string::npos);
  CHECK(r["diagnosticsDetail"].get<std::string>().find("outside the root not shown") !=
        std::string::npos);
  CHECK(mentions(r["diagnostics"], "inside_token_abc"));
}

TEST_CASE("bad --check and --lsp options exit 2 with the reason") {
  TempDir root;
  auto r = run_editd({"--root", root.str(), "--check", "no-equals-sign"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--check") != std::string::npos);
  r = run_editd({"--root", root.str(), "--lsp", "*.py=pylsp 'unclosed"});
  CHECK(r.code == 2);
  CHECK(r.err.find("--lsp") != std::string::npos);
  r = run_editd({"--root", root.str(), "--check-timeout", "0"});
  CHECK(r.code == 2);
  r = run_editd({"apply-patch", "--root", root.str(), "--check", "*.c=cc {file}", "-f", "p.diff"});
  CHECK(r.code == 2);
  CHECK(r.err.find("apply-patch runs no checks") != std::string::npos);
}

TEST_CASE("a program in the root, or one a query lets the tree choose, is refused at start") {
  TempDir root;
  root.write("tools/check", "#!/bin/sh\n");
  fs::permissions(root.path() / "tools/check", fs::perms::owner_all);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"*.ts=node_modules/.bin/typescript-language-server --stdio", "relative path"},
      {"*.x=" + (root.path() / "tools/check").string(), "inside the root"},
      {"*.c=clangd --query-driver=/usr/bin/*", "--query-driver"},
      {"*.ts=node node_modules/typescript-language-server/lib/cli.mjs --stdio", "relative path"}};
  for (const auto& [lsp, why] : refused) {
    INFO(lsp);
    auto r = run_editd({"--root", root.str(), "--lsp", lsp});
    CHECK(r.code == 2);
    CHECK(r.err.find("--lsp " + lsp) != std::string::npos);
    CHECK(r.err.find(why) != std::string::npos);
  }
}

TEST_CASE("a program another user may replace is refused; root's entry of a sticky /tmp is not") {
  TempDir root, tools;  // tools: root's, 0700, in the sticky /tmp
  REQUIRE((fs::status(tools.path().parent_path()).permissions() & fs::perms::sticky_bit) !=
          fs::perms::none);
  for (const char* dir : {"open", "own"}) {
    tools.write(std::string(dir) + "/check", "#!/bin/sh\nexit 0\n");
    fs::permissions(tools.path() / dir / "check", fs::perms::owner_all);
  }
  fs::permissions(tools.path() / "open", fs::perms::all);  // o+w, not sticky
  const std::string open = (tools.path() / "open/check").string();
  auto refused = run_editd({"--root", root.str(), "--check", "*.x=" + open + " {file}"});
  CHECK(refused.code == 2);
  CHECK(refused.err.find((tools.path() / "open").string() + " may be changed by other users") !=
        std::string::npos);
  const std::string own = (tools.path() / "own/check").string();
  auto served = run_editd({"--root", root.str(), "--check", "*.x=" + own + " {file}"});
  CHECK_MESSAGE(served.code == 0, served.err);
}

TEST_CASE("a checker's program and modules are never the tree's: PATH entries in the root, python3 -m") {
  TempDir root, outside;
  // A pyflakes3 and a py_compile of the tree's, each leaving a marker outside it.
  const std::string script = "#!/bin/sh\ntouch " + (outside.path() / "ran").string() + "\n";
  for (const char* dir : {"node_modules/.bin", "bin"}) {
    root.write(std::string(dir) + "/pyflakes3", script);
    fs::permissions(root.path() / dir / "pyflakes3", fs::perms::owner_all);
  }
  root.write("py_compile.py", "open(" + json((outside.path() / "ran").string()).dump() +
                                  ", 'w').write('ran')\n");
  root.write("a.py", "x = 1\n");
  // The deployer's PATH names both (relative, and absolute in the root).
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", ("node_modules/.bin:" + root.str() + "/bin:" + path).c_str(), 1);
  auto p = spawn_editd(root, {"--check", "*.py=pyflakes3 {file}", "--check",
                              "*.py=python3 -m py_compile {file}", "--check-timeout", "30"});
  ::setenv("PATH", path.c_str(), 1);
  json r = p.ok("write_text", {{"path", "a.py"}, {"content", "import os\ndef f(:\n"}});
  INFO(r.dump());
  CHECK(r["diagnosticsStatus"] == "ok");
  std::set<std::string> sources;
  for (const json& d : r["introduced"]) sources.insert(d["source"].get<std::string>());
  CHECK(sources == std::set<std::string>{"pyflakes3", "python3"});
  CHECK_FALSE(outside.exists("ran"));
  CHECK(p.await_log("checks run without the PATH entry 'node_modules/.bin'"));
}

TEST_CASE("--lsp clangd: introduced versus pre-existing, kept across edits") {
  TempDir root;
  root.write("m.c", "int f(void) { return old_missing; }\n");
  auto p = spawn_editd(root, {"--lsp", "*.c=clangd", "--check-timeout", "60"});
  json r = p.ok("insert",
                {{"path", "m.c"}, {"line", 0}, {"text", "int g(void) { return new_missing; }"}});
  INFO(r.dump());
  REQUIRE(r["diagnosticsStatus"] == "ok");
  CHECK(mentions(r["diagnostics"], "old_missing"));
  CHECK(mentions(r["diagnostics"], "new_missing"));
  CHECK(mentions(r["introduced"], "new_missing"));
  CHECK_FALSE(mentions(r["introduced"], "old_missing"));
  for (const json& d : r["diagnostics"])
    if (mentions(json::array({d}), "old_missing")) CHECK(d["line"] == 2);

  // The server keeps the file open: the next edit compares with what it said.
  r = p.ok("str_replace",
           {{"path", "m.c"}, {"oldText", "return new_missing;"}, {"newText", "return 0;"}});
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(r["introduced"].empty());
  CHECK(mentions(r["diagnostics"], "old_missing"));
  CHECK_FALSE(mentions(r["diagnostics"], "new_missing"));
}

TEST_CASE("--lsp pylsp: diagnostics of the edited text, severity from the server") {
  TempDir root;
  root.write("s.py", "import os\n");
  auto p = spawn_editd(root, {"--lsp", "*.py=pylsp", "--check-timeout", "60"});
  json r =
      p.ok("str_replace",
           {{"path", "s.py"}, {"oldText", "import os\n"}, {"newText", "import os\nprint(nope)\n"}});
  INFO(r.dump());
  REQUIRE(r["diagnosticsStatus"] == "ok");
  CHECK(mentions(r["diagnostics"], "'os' imported but unused"));
  CHECK(mentions(r["introduced"], "undefined name 'nope'"));
  CHECK_FALSE(mentions(r["introduced"], "'os' imported but unused"));
  for (const json& d : r["introduced"])
    if (mentions(json::array({d}), "nope")) {
      CHECK(d["line"] == 2);
      CHECK(d["severity"] == "error");
    }
}

TEST_CASE("--lsp with a program that is not a language server fails the checks, not the edit") {
  TempDir root;
  auto p = spawn_editd(root, {"--lsp", "*.x=cat", "--check-timeout", "1"});
  json r = p.ok("write_text", {{"path", "a.x"}, {"content", "1\n"}});
  CHECK(r["diagnosticsStatus"] != "ok");
  CHECK(root.read("a.x") == "1\n");
  p.close_stdin();
  auto code = p.wait();
  REQUIRE(code.has_value());
  CHECK(*code == 0);
}

namespace {

// The language server of tests/helpers/fake_lsp.py in `mode`, covering *.x;
// it logs each start's process id to `log`.
std::vector<std::string> fake_lsp(const std::string& mode, const std::string& log) {
  return {"--lsp", "*.x=python3 " EDITD_SOURCE_DIR "/tests/helpers/fake_lsp.py " + mode + " " + log};
}

std::vector<pid_t> started(const TempDir& dir) {
  std::vector<pid_t> pids;
  std::istringstream in(dir.read("starts.log"));
  for (std::string line; std::getline(in, line);) pids.push_back(std::stoi(line));
  return pids;
}

}  // namespace

TEST_CASE("a language server that does not answer in time is stopped and started again") {
  for (const std::string mode : {"never-init", "stop-reading"}) {
    INFO(mode);
    TempDir root, logs;
    auto args = fake_lsp(mode, (logs.path() / "starts.log").string());
    // Long enough for python3 to start and log itself on a loaded machine:
    // a server stopped before it ran its first line would log nothing.
    args.insert(args.end(), {"--check-timeout", "5"});
    auto p = spawn_editd(root, args);
    // A big file: a server that stops reading leaves it queued in editd.
    const std::string big(4 << 20, 'a');
    std::size_t before = 0;
    for (int edit = 0; edit < 2; ++edit) {
      json r = p.ok("write_text", {{"path", "a.x"}, {"content", big + std::to_string(edit) + "\n"}});
      INFO(r.dump().substr(0, 2000));
      CHECK(r["diagnosticsStatus"] == "timeout");
      CHECK(r["diagnosticsDetail"].get<std::string>().find("was stopped") != std::string::npos);
      // Every check met a new server: the one that timed out is gone.
      std::vector<pid_t> pids = started(logs);
      CHECK(pids.size() > before);
      before = pids.size();
      for (std::size_t i = 0; i + 1 < pids.size(); ++i)
        CHECK(!std::filesystem::exists("/proc/" + std::to_string(pids[i])));
    }
    CHECK(root.read("a.x") == big + "1\n");
  }
}

TEST_CASE("a language server's diagnostics are capped at 200 a check, the rest counted") {
  TempDir root, logs;
  auto p = spawn_editd(root, fake_lsp("flood", (logs.path() / "starts.log").string()));
  json r = p.ok("write_text", {{"path", "a.x"}, {"content", "1\n2\n3\n4\n5\n"}});
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(r["diagnostics"].size() == 200);
  CHECK(r["diagnosticsDetail"].get<std::string>().find("19800 more diagnostics not shown") !=
        std::string::npos);
}

TEST_CASE("a language server that publishes nothing when a document stays clean: reopened, not waited out") {
  // As typescript-language-server: LSP does not oblige a server to publish
  // again for a change that leaves the diagnostics as they were.
  TempDir root, logs;
  auto args = fake_lsp("quiet-when-clean", (logs.path() / "starts.log").string());
  args.insert(args.end(), {"--check-timeout", "60"});
  auto p = spawn_editd(root, args);
  json r = p.ok("write_text", {{"path", "a.x"}, {"content", "one\n"}});
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(r["diagnostics"].empty());
  // Clean to clean, twice: the first finds out (no publish within the grace),
  // the second reopens at once; neither is a timeout.
  for (const auto& [from, to] : {std::pair{"one", "two"}, std::pair{"two", "three"}}) {
    INFO(from);
    r = p.ok("str_replace", {{"path", "a.x"}, {"oldText", from}, {"newText", to}});
    CHECK(r["diagnosticsStatus"] == "ok");
    CHECK(r["diagnostics"].empty());
    CHECK(!r.contains("diagnosticsDetail"));
  }
  // A reopened document's diagnostics are of the new text, not the empty list
  // the server publishes when it closes it.
  r = p.ok("str_replace", {{"path", "a.x"}, {"oldText", "three"}, {"newText", "ERROR"}});
  CHECK(r["diagnosticsStatus"] == "ok");
  REQUIRE(r["diagnostics"].size() == 1);
  CHECK(r["diagnostics"][0]["line"] == 1);
  CHECK(r["introduced"].size() == 1);
  r = p.ok("write_text", {{"path", "a.x"}, {"content", "four\nfive\n"}});
  CHECK(r["diagnosticsStatus"] == "ok");
  CHECK(r["diagnostics"].empty());
  r = p.ok("str_replace", {{"path", "a.x"}, {"oldText", "five"}, {"newText", "ERROR"}});
  REQUIRE(r["diagnostics"].size() == 1);
  CHECK(r["diagnostics"][0]["line"] == 2);
  // One server throughout: nothing timed out, nothing was restarted.
  CHECK(started(logs).size() == 1);
}
