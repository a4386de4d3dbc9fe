// Many clients at once: sockets, authentication, lost updates, cancellation,
// back-pressure and shutdown, through the real binary.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "helpers/proc.h"
#include "helpers/socket_client.h"
#include "helpers/unix_server.h"

using namespace editd::test;

namespace {

// One request as a line, for several sent in one write.
std::string request_line(const std::string& id, const std::string& method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}
             .dump() +
         "\n";
}

// Small replies first, so that the requests sent next may run together (the
// first requests of a connection run alone).
void warm_up(Process& p, const std::string& path) {
  for (int i = 0; i < 8; ++i)
    p.send({{"jsonrpc", "2.0"},
            {"id", "warm" + std::to_string(i)},
            {"method", "fingerprint"},
            {"params", {{"path", path}}}});
  for (int i = 0; i < 8; ++i) REQUIRE(p.read_message().contains("result"));
}

// The next `n` replies, by their (string) ids.
std::map<std::string, json> replies_by_id(Process& p, int n) {
  std::map<std::string, json> replies;
  for (int i = 0; i < n; ++i) {
    json m = p.read_message();
    replies[m["id"].get<std::string>()] = m;
  }
  return replies;
}

}  // namespace

TEST_CASE("a Unix socket serves several connections, each its own session, with mode 0600") {
  UnixServer s;
  struct stat st;
  REQUIRE(::stat(s.socket.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  s.root.write("a.txt", "hello\n");
  auto a = s.client();
  auto b = s.client();
  CHECK((*a.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "hello\n");
  CHECK((*b.call("str_replace", {{"path", "a.txt"}, {"oldText", "hello"}, {"newText", "bye"}}))["result"]["replacements"] == 1);
  CHECK((*a.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "bye\n");
}

TEST_CASE("with --listen, stdin EOF does not stop the server; SIGTERM does, with exit 0") {
  UnixServer s;
  s.process.close_stdin();
  s.root.write("a.txt", "x\n");
  auto c = s.client();
  CHECK(c.call("read_text", {{"path", "a.txt"}}).has_value());
  ::kill(s.process.pid(), SIGTERM);
  CHECK(s.process.wait() == 0);
  CHECK_FALSE(std::filesystem::exists(s.socket));
}

TEST_CASE("an editd stopped after a newer one took its socket path leaves the newer one's socket") {
  TempDir root, run_dir;
  root.write("a.txt", "x\n");
  const std::string socket = (run_dir.path() / "editd.sock").string();
  const std::vector<std::string> args{"--root", root.str(), "--listen", "unix:" + socket};
  Process a(EDITD_BINARY, args);
  REQUIRE(wait_for_path(socket));
  struct stat first, second;
  REQUIRE(::stat(socket.c_str(), &first) == 0);
  // B replaces A's socket file with its own.
  Process b(EDITD_BINARY, args);
  REQUIRE(b.await_log("listening on unix:").has_value());
  REQUIRE(::stat(socket.c_str(), &second) == 0);
  REQUIRE(second.st_ino != first.st_ino);
  ::kill(a.pid(), SIGTERM);
  CHECK(a.wait() == 0);
  CHECK(a.stderr_text().find("left in place") != std::string::npos);
  // B is still reachable at the path.
  REQUIRE(std::filesystem::exists(socket));
  auto c = SocketClient::unix_socket(socket);
  REQUIRE(c.has_value());
  CHECK((*c->call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");
  CHECK(run_editd({"probe", "unix:" + socket}).code == 0);
  // B, stopped, removes its own socket.
  ::kill(b.pid(), SIGTERM);
  CHECK(b.wait() == 0);
  CHECK_FALSE(std::filesystem::exists(socket));
}

TEST_CASE("TCP without --token-file refuses to start with a clear message") {
  TempDir root;
  Process p(EDITD_BINARY, {"--root", root.str(), "--listen", "tcp:127.0.0.1:0"});
  auto code = p.wait();
  REQUIRE(code.has_value());
  CHECK(*code != 0);
  CHECK(p.stderr_text().find("--token-file") != std::string::npos);
}

TEST_CASE("TCP clients must initialize with the token; three failures close the connection") {
  TempDir root;
  root.write("a.txt", "x\n");
  TempDir secrets;
  secrets.write("token", "s3cret-token\n");
  Process p(EDITD_BINARY, {"--root", root.str(), "--listen", "tcp:127.0.0.1:0", "--token-file",
                           (secrets.path() / "token").string()});
  int port = logged_port(p);
  REQUIRE(port > 0);

  auto good = SocketClient::tcp(port);
  REQUIRE_MESSAGE(good, "port " << port << "; stderr: " << p.stderr_text());
  json early = *good->call("read_text", {{"path", "a.txt"}});
  CHECK(early["error"]["code"] == -32000);
  CHECK(early["error"]["data"]["kind"] == "unauthenticated");
  json init = *good->call("initialize", {{"protocolVersion", 1}, {"authToken", "s3cret-token"}});
  CHECK(init.contains("result"));
  CHECK((*good->call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");

  auto bad = SocketClient::tcp(port);
  REQUIRE(bad);
  CHECK((*bad->call("initialize", {{"protocolVersion", 1}, {"authToken", "wrong"}}))["error"]["code"] == -32000);
  CHECK((*bad->call("read_text", {{"path", "a.txt"}}))["error"]["code"] == -32000);
  CHECK((*bad->call("initialize", {{"protocolVersion", 1}, {"authToken", "s3cret-token-"}}))["error"]["code"] == -32000);
  // Closed: the next call gets no answer.
  CHECK_FALSE(bad->call("read_text", {{"path", "a.txt"}}).has_value());
  CHECK(p.stderr_text().find("s3cret") == std::string::npos);
  // Others are still served.
  CHECK((*good->call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");
}

// editd on a Unix socket and on TCP with a token, `extra` options added.
struct TcpServer {
  TempDir root, run_dir, secrets;
  std::string socket = (run_dir.path() / "editd.sock").string();
  std::string token_path;
  std::optional<Process> process;
  int port = -1;
  explicit TcpServer(std::vector<std::string> extra = {}) {
    secrets.write("token", "s3cret-token\n");
    token_path = (secrets.path() / "token").string();
    std::vector<std::string> args{"--root",   root.str(),   "--listen",     "unix:" + socket,
                                  "--listen", "tcp:127.0.0.1:0", "--token-file", token_path};
    args.insert(args.end(), extra.begin(), extra.end());
    process.emplace(EDITD_BINARY, args);
    port = logged_port(*process);
    REQUIRE_MESSAGE(port > 0, process->stderr_text());
    REQUIRE(wait_for_path(socket));
  }
  SocketClient tcp() {
    auto c = SocketClient::tcp(port);
    REQUIRE(c.has_value());
    return std::move(*c);
  }
  // A TCP client that has authenticated.
  SocketClient authenticated() {
    auto c = tcp();
    auto r = c.call("initialize", {{"protocolVersion", 1}, {"authToken", "s3cret-token"}});
    REQUIRE(r.has_value());
    REQUIRE_MESSAGE(r->contains("result"), r->dump());
    return c;
  }
};

TEST_CASE("TCP: a peer that has not authenticated within --auth-timeout is closed; others stay") {
  TcpServer s({"--auth-timeout", "1"});
  s.root.write("a.txt", "x\n");
  auto idle = s.tcp();
  auto good = s.authenticated();
  // The idle peer's connection ends: EOF, well before the generous deadline.
  CHECK_FALSE(idle.read_line(std::chrono::seconds(15)).has_value());
  CHECK(s.process->await_log("not authenticated within 1000 ms").has_value());
  // Past the deadline, the authenticated one is served as before.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  CHECK((*good.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");
  CHECK(s.process->stderr_text().find("not authenticated within") ==
        s.process->stderr_text().rfind("not authenticated within"));
}

TEST_CASE(
    "TCP before authentication: every line counts toward the three failures, and lines are short") {
  TcpServer s;
  s.root.write("a.txt", "x\n");
  // A notification, a malformed line and a response: closed after the third.
  auto noisy = s.tcp();
  REQUIRE(noisy.send(
      json{{"jsonrpc", "2.0"}, {"method", "$/cancel_request"}, {"params", {{"id", 1}}}}));
  REQUIRE(noisy.send_raw("{oops\n"));
  auto malformed = noisy.read_line();
  REQUIRE(malformed.has_value());
  CHECK(json::parse(*malformed)["error"]["code"] == -32700);
  REQUIRE(noisy.send(json{{"jsonrpc", "2.0"}, {"id", 5}, {"result", 1}}));
  CHECK_FALSE(noisy.read_line(std::chrono::seconds(15)).has_value());
  CHECK(s.process->await_log("closed after 3 lines without authenticating").has_value());

  // A line longer than an initialize needs is refused unread; once
  // authenticated, --max-message-bytes applies.
  auto c = s.tcp();
  const std::string big(100 * 1024, 'y');
  REQUIRE(c.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "write_text"},
                      {"params", {{"path", "b.txt"}, {"content", big}}}}));
  auto refused = c.read_line();
  REQUIRE(refused.has_value());
  json r = json::parse(*refused);
  CHECK(r["error"]["code"] == -32600);
  CHECK(r["error"]["data"]["limit"] == 65536);
  json init = *c.call("initialize", {{"protocolVersion", 1}, {"authToken", "s3cret-token"}});
  REQUIRE(init.contains("result"));
  json w = *c.call("write_text", {{"path", "b.txt"}, {"content", big}});
  CHECK(w.contains("result"));
  CHECK(s.root.read("b.txt") == big);
}

TEST_CASE(
    "TCP: at most --max-unauthenticated peers wait to authenticate; the rest are closed at once") {
  TcpServer s({"--max-unauthenticated", "3", "--auth-timeout", "60"});
  s.root.write("a.txt", "x\n");
  // Three peers, each seen served (its request refused, one failure of three).
  std::vector<SocketClient> waiting;
  for (int i = 0; i < 3; ++i) {
    waiting.push_back(s.tcp());
    auto r = waiting.back().call("read_text", {{"path", "a.txt"}});
    REQUIRE(r.has_value());
    CHECK((*r)["error"]["data"]["kind"] == "unauthenticated");
  }
  // A fourth is closed without an answer.
  auto fourth = s.tcp();
  CHECK_FALSE(fourth.call("read_text", {{"path", "a.txt"}}).has_value());
  CHECK(s.process->await_log("wait to authenticate").has_value());
  // Unix clients and the health check are served meanwhile.
  auto local = SocketClient::unix_socket(s.socket);
  REQUIRE(local.has_value());
  CHECK((*local->call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");
  CHECK(run_editd({"probe", "unix:" + s.socket}).code == 0);
  // One authenticates: its place goes to the next peer.
  CHECK(waiting[0].call("initialize", {{"protocolVersion", 1}, {"authToken", "s3cret-token"}})
            ->contains("result"));
  auto next = s.tcp();
  auto r = next.call("read_text", {{"path", "a.txt"}});
  REQUIRE(r.has_value());
  CHECK((*r)["error"]["data"]["kind"] == "unauthenticated");
}

TEST_CASE(
    "TCP peers without the token cannot take the descriptors that clients and the probe need") {
  TcpServer s;
  s.root.write("a.txt", "x\n");
  const pid_t pid = s.process->pid();
  auto open_descriptors = [pid] {
    std::size_t n = 0;
    for (auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
      (void)e;
      ++n;
    }
    return n;
  };
  // editd may open 60 descriptors more than it holds now.
  rlimit low{};
  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, nullptr, &low) == 0);
  low.rlim_cur = open_descriptors() + 60;
  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr) == 0);
  // Far more idle peers than that.
  std::vector<SocketClient> peers;
  for (int i = 0; i < 300; ++i)
    if (auto c = SocketClient::tcp(s.port)) peers.push_back(std::move(*c));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto local = SocketClient::unix_socket(s.socket);
  REQUIRE(local.has_value());
  json w = *local->call("write_text", {{"path", "b.txt"}, {"content", "written\n"}});
  CHECK_MESSAGE(w.contains("result"), w.dump());
  CHECK(s.root.read("b.txt") == "written\n");
  CHECK(run_editd({"probe", "unix:" + s.socket}).code == 0);
}

namespace {

// A patch adding `n` files under `dir`.
std::string add_files_patch(const std::string& dir, int n) {
  std::string patch = "*** Begin Patch\n";
  for (int i = 0; i < n; ++i)
    patch += "*** Add File: " + dir + "/f" + std::to_string(i) + ".txt\n+file " +
             std::to_string(i) + "\n";
  return patch + "*** End Patch\n";
}

}  // namespace

TEST_CASE("a patch never takes the descriptors other clients need: too many files is too_large") {
  UnixServer s({"--threads", "3"});
  s.root.write("a.txt", "x\n");
  const pid_t pid = s.process.pid();
  rlimit limit{};
  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, nullptr, &limit) == 0);
  REQUIRE((limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= 1024));
  limit.rlim_cur = 1024;
  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, &limit, nullptr) == 0);

  // 1,200 new files need more descriptors at once than a change may hold:
  // refused before anything changes, and said why.
  auto a = s.client();
  json big = *a.call("apply_patch", {{"patch", add_files_patch("many", 1200)}});
  REQUIRE_MESSAGE(big.contains("error"), big.dump());
  CHECK(big["error"]["data"]["kind"] == "too_large");
  CHECK(big["error"]["data"]["descriptors"].get<int>() > 1200);
  CHECK(big["error"]["data"]["limit"] == 512);
  CHECK(big["error"]["message"].get<std::string>().find("ulimit -n") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s.root.path() / "many"));

  // Three patches of 400 files at once (1,200 descriptors if they ran
  // together) take turns, and a reader is served meanwhile.
  std::vector<SocketClient> patchers;
  for (int i = 0; i < 3; ++i) {
    patchers.push_back(s.client());
    REQUIRE(patchers.back().send(
        json{{"jsonrpc", "2.0"},
             {"id", i},
             {"method", "apply_patch"},
             {"params", {{"patch", add_files_patch("d" + std::to_string(i), 400)}}}}));
  }
  auto reader = s.client();
  for (int i = 0; i < 50; ++i) {
    json r = *reader.call("read_text", {{"path", "a.txt"}});
    REQUIRE_MESSAGE(r.contains("result"), r.dump());
  }
  for (auto& p : patchers) {
    auto line = p.read_line(std::chrono::seconds(60));
    REQUIRE(line.has_value());
    json r = json::parse(*line);
    CHECK_MESSAGE(r.contains("result"), r.dump());
  }
  for (int i = 0; i < 3; ++i)
    CHECK(s.root.read("d" + std::to_string(i) + "/f399.txt") == "file 399\n");
  CHECK(run_editd({"probe", "unix:" + s.socket}).code == 0);
}

TEST_CASE("no update is lost: read-increment-write loops with expectedFingerprint") {
  UnixServer s({"--io-threads", "4"});
  s.root.write("counter.txt", "0\n");
  constexpr int kClients = 4, kIncrements = 25;
  std::atomic<int> successes{0}, conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&] {
      auto c = SocketClient::unix_socket(s.socket);
      if (!c) return;
      int done = 0;
      while (done < kIncrements) {
        auto r = c->call("read_text", {{"path", "counter.txt"}});
        if (!r || !r->contains("result")) return;
        int value = std::stoi((*r)["result"]["content"].get<std::string>());
        auto w = c->call("write_text", {{"path", "counter.txt"},
                                        {"content", std::to_string(value + 1) + "\n"},
                                        {"expectedFingerprint", (*r)["result"]["fingerprint"]}});
        if (!w) return;
        if (w->contains("result")) {
          ++done;
          ++successes;
        } else if ((*w)["error"]["data"]["kind"] == "conflict") {
          ++conflicts;
        } else {
          return;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(successes == kClients * kIncrements);
  CHECK(s.root.read("counter.txt") == std::to_string(successes.load()) + "\n");
}

TEST_CASE("no update is lost: parallel str_replace calls on distinct lines of one file") {
  UnixServer s({"--io-threads", "4"});
  constexpr int kClients = 4, kLines = 30;
  std::string content;
  for (int t = 0; t < kClients; ++t)
    for (int i = 0; i < kLines; ++i) content += "client" + std::to_string(t) + " line" + std::to_string(i) + " old\n";
  s.root.write("shared.txt", content);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      auto c = SocketClient::unix_socket(s.socket);
      if (!c) return;
      for (int i = 0; i < kLines; ++i) {
        std::string line = "client" + std::to_string(t) + " line" + std::to_string(i);
        auto r = c->call("str_replace", {{"path", "shared.txt"}, {"oldText", line + " old"}, {"newText", line + " new"}});
        if (r && r->contains("result")) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == kClients * kLines);
  std::string after = s.root.read("shared.txt");
  CHECK(after.find(" old\n") == std::string::npos);
  CHECK(std::count(after.begin(), after.end(), '\n') == kClients * kLines);
}

TEST_CASE("--io-threads N: connections are served by N threads") {
  UnixServer s({"--io-threads", "3"});
  auto a = s.client();
  CHECK(a.call("read_text", {{"path", "."}}).has_value());
  // The main thread and editd-io-1, editd-io-2 (the pool's threads are not named so).
  std::set<std::string> names;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(s.process.pid()) + "/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name.starts_with("editd-io-")) names.insert(name);
  }
  CHECK(names == std::set<std::string>{"editd-io-1", "editd-io-2"});
}

TEST_CASE("listening sockets and connections are close-on-exec: no child of editd inherits them") {
  TempDir secrets;
  secrets.write("token", "s3cret-token\n");
  UnixServer s({"--listen", "tcp:127.0.0.1:0", "--token-file", (secrets.path() / "token").string()});
  const int port = logged_port(s.process);
  REQUIRE(port > 0);
  auto a = s.client();
  REQUIRE(a.call("read_text", {{"path", "."}}).has_value());
  auto t = SocketClient::tcp(port);
  REQUIRE(t);
  REQUIRE(t->call("initialize", {{"protocolVersion", 1}, {"authToken", "s3cret-token"}}));
  // Two listeners and two connections, each with O_CLOEXEC in its flags.
  const std::string proc = "/proc/" + std::to_string(s.process.pid());
  int sockets = 0;
  for (const auto& fd : std::filesystem::directory_iterator(proc + "/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(fd.path(), ec);
    if (ec || !target.string().starts_with("socket:")) continue;
    std::ifstream info(proc + "/fdinfo/" + fd.path().filename().string());
    std::string key, flags;
    while (info >> key >> flags && key != "flags:") {
    }
    CAPTURE(fd.path().string());
    CHECK((std::stoul(flags, nullptr, 8) & O_CLOEXEC) != 0);
    ++sockets;
  }
  CHECK(sockets >= 4);
}

TEST_CASE("on stdio, editd's own copies of stdin and stdout are close-on-exec") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root);
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "a\n");
  const std::string proc = "/proc/" + std::to_string(p.pid());
  const auto in = std::filesystem::read_symlink(proc + "/fd/0");
  const auto out = std::filesystem::read_symlink(proc + "/fd/1");
  int copies = 0;
  for (const auto& fd : std::filesystem::directory_iterator(proc + "/fd")) {
    const std::string n = fd.path().filename().string();
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(fd.path(), ec);
    if (ec || n == "0" || n == "1" || n == "2" || (target != in && target != out)) continue;
    std::ifstream info(proc + "/fdinfo/" + n);
    std::string key, flags;
    while (info >> key >> flags && key != "flags:") {
    }
    CAPTURE(n);
    CHECK((std::stoul(flags, nullptr, 8) & O_CLOEXEC) != 0);
    ++copies;
  }
  CHECK(copies == 2);
}

TEST_CASE("while editd waits for a client's answer, that client's long requests count in the message budget") {
  constexpr std::size_t kMiB = 1024 * 1024;
  constexpr int kLines = 12;
  // The client never answers fs/read_text_file: every write_text waits.
  UnixServer s({"--max-message-bytes-in-flight", std::to_string(8 * kMiB), "--delegate-timeout",
                "600"});
  auto c = s.client();
  json init = *c.call("initialize", {{"protocolVersion", 1},
                                     {"clientCapabilities",
                                      {{"fs", {{"readTextFile", true}, {"writeTextFile", true}}}}}});
  REQUIRE(init["result"]["agentCapabilities"]["_meta"]["editd"]["backend"] == "delegated");
  const std::string content(6 * kMiB, 'x');
  std::vector<std::string> lines;
  for (int i = 0; i < kLines; ++i)
    lines.push_back(request_line(std::to_string(i), "write_text",
                                 {{"path", "w" + std::to_string(i) + ".txt"}, {"content", content}}));
  const std::size_t line_bytes = lines.front().size();
  const std::uint64_t before = vm_kib(s.process.pid(), "VmRSS").value_or(0);
  std::atomic<std::size_t> sent{0};
  std::atomic<bool> done{false};
  std::thread sender([&] {
    constexpr std::size_t kPiece = 64 * 1024;
    for (const std::string& line : lines)
      for (std::size_t at = 0; at < line.size(); at += kPiece) {
        const std::size_t n = std::min(kPiece, line.size() - at);
        if (!c.send_raw(std::string_view(line).substr(at, n))) return;
        sent += n;
      }
    done = true;
  });
  // Until everything is sent, or nothing more goes for 3 s: editd stopped reading.
  std::size_t last = 0;
  for (int still = 0; !done && still < 6;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const std::size_t now = sent;
    still = now == last ? still + 1 : 0;
    last = now;
  }
  const std::uint64_t after = vm_kib(s.process.pid(), "VmRSS").value_or(0);
  const std::size_t taken_mib = sent.load() / kMiB, all_mib = kLines * line_bytes / kMiB;
  MESSAGE(taken_mib << " MiB of " << all_mib << " MiB taken in; RSS " << before / 1024
                    << " MiB before, " << after / 1024 << " MiB after");
  // One line within the budget, one past it (it might have been the answer),
  // and the one read after it, held: then reading stops.
  CHECK_FALSE(done.load());
  CHECK(sent.load() < 4 * line_bytes);
  // The server still serves others.
  auto other = s.client();
  s.root.write("a.txt", "x\n");
  auto r = other.call("read_text", {{"path", "a.txt"}});
  CHECK((r && (*r)["result"]["content"] == "x\n"));
  ::kill(s.process.pid(), SIGKILL);
  sender.join();
}

namespace {

// editd with an 8 MiB reply total for all clients (--reply-stall-timeout
// `stall_ms`), a 6 MiB big.txt and a small a.txt; `fast` has been served once,
// then `slow` asks for `requests` replies of big.txt and reads none yet: past
// the second, the total is full.
struct FullReplies {
  static constexpr std::size_t kMiB = 1024 * 1024;
  UnixServer s;
  std::string big;
  SocketClient fast, slow;

  FullReplies(const std::string& stall_ms, int requests)
      : s({"--max-queued-bytes-total", std::to_string(8 * kMiB), "--reply-stall-timeout", stall_ms,
           "--log-level", "debug"}),
        big(big_text()),
        fast(write_files_then_connect()),
        slow(s.client()) {
    REQUIRE(fast.call("read_text", {{"path", "a.txt"}}).has_value());
    std::string batch;
    for (int i = 0; i < requests; ++i)
      batch += request_line("s" + std::to_string(i), "read_text", {{"path", "big.txt"}});
    REQUIRE(slow.send_raw(batch));
  }
  static std::string big_text() {
    std::string out;
    for (int i = 0; out.size() < 6 * kMiB; ++i) out += "line " + std::to_string(i) + "\n";
    return out;
  }
  SocketClient write_files_then_connect() {
    s.root.write("big.txt", big);
    s.root.write("a.txt", "x\n");
    return s.client();
  }
};

}  // namespace

TEST_CASE(
    "queued replies of all clients count in one budget: a client that stops reading is "
    "paused, then cut off, and the others are served") {
  // 20 replies of 6 MiB asked for, none read.
  FullReplies f("1", 20);
  UnixServer& s = f.s;
  SocketClient& fast = f.fast;
  // The slow client is cut off once its replies fill the budget and it takes nothing in.
  REQUIRE(s.process.await_log("cut off: the client took in less than 1 MiB").has_value());
  // Others are served, before and after.
  for (int i = 0; i < 5; ++i) {
    json r = *fast.call("read_text", {{"path", "a.txt"}});
    CHECK(r["result"]["content"] == "x\n");
  }
  // Paused first: past the budget no more of its requests started (two fit:
  // the first, and the second while the first's reply was below it).
  const std::string log = s.process.stderr_text();
  const std::regex ran("read_text id=\"s[0-9]+\"");
  const auto started = std::distance(std::sregex_iterator(log.begin(), log.end(), ran),
                                     std::sregex_iterator());
  MESSAGE(started << " of the slow client's 20 requests ran");
  CHECK(started <= 3);
}

TEST_CASE(
    "requests parked while all clients' replies fill the budget sleep, and start as soon "
    "as it falls") {
  // 10 replies of 6 MiB asked for, none read yet: once the second is queued
  // the budget is full, and the rest are parked.
  constexpr int kSlow = 10;
  FullReplies f("600000", kSlow);
  UnixServer& s = f.s;
  SocketClient &other = f.fast, &slow = f.slow;
  REQUIRE_MESSAGE(s.process.await_log("read_text id=\"s1\"").has_value(),
                  "waited for the slow client's second reply to be queued");
  // Parked behind the budget too.
  REQUIRE(other.send_raw(request_line("o1", "read_text", {{"path", "a.txt"}})));
  // Parked requests wait for an event, not a timer: editd's threads sleep.
  // (A 5 ms poll woke them some 200 times a second per parked connection.)
  const std::uint64_t before = sleeps(s.process.pid());
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    s.process.stderr_text();  // drained: a full pipe would block the logger
  }
  const std::uint64_t slept = sleeps(s.process.pid()) - before;
  MESSAGE("editd's threads went to sleep " << slept << " times in 1 s with 2 connections parked");
  CHECK(slept < 50);
  // The slow client reads: the budget falls, and every parked request runs.
  for (int i = 0; i < kSlow; ++i) {
    auto line = slow.read_line();
    REQUIRE_MESSAGE(line.has_value(), "waited for the slow client's reply " << i);
    CHECK(json::parse(*line)["result"]["content"] == f.big);
  }
  auto answer = other.read_line();
  REQUIRE_MESSAGE(answer.has_value(), "waited for the other client's parked request");
  CHECK(json::parse(*answer)["id"] == "o1");
  CHECK(json::parse(*answer)["result"]["content"] == "x\n");
}

TEST_CASE("long messages of many clients stay within --max-message-bytes-in-flight") {
  constexpr int kClients = 8, kEach = 4;
  constexpr std::size_t kMiB = 1024 * 1024;
  std::string content;
  for (int i = 0; content.size() < 2 * kMiB; ++i) content += "line " + std::to_string(i) + "\n";
  // A 2 MiB message counts 4 MiB (as read, as parsed): one at a time. The
  // files hold the content already, so each reply is small (no diff): what
  // editd holds is the messages.
  UnixServer s({"--durability", "none", "--max-message-bytes-in-flight", std::to_string(4 * kMiB)});
  for (int i = 0; i < kClients * kEach; ++i)
    s.root.write("w" + std::to_string(i) + ".txt", content);
  std::vector<SocketClient> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(s.client());
    REQUIRE(clients.back().call("fingerprint", {{"path", "w0.txt"}}).has_value());
  }
  const std::uint64_t before = vm_kib(s.process.pid(), "VmHWM").value_or(0);
  std::atomic<int> answered = 0;
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c)
    threads.emplace_back([&, c] {
      std::string batch;
      for (int i = 0; i < kEach; ++i)
        batch += request_line(
            std::to_string(i), "write_text",
            {{"path", "w" + std::to_string(c * kEach + i) + ".txt"}, {"content", content}});
      if (!clients[c].send_raw(batch)) return;
      for (int i = 0; i < kEach; ++i) {
        auto line = clients[c].read_line();
        if (line && json::parse(*line).contains("result")) ++answered;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(answered == kClients * kEach);
  const std::uint64_t peak = vm_kib(s.process.pid(), "VmHWM").value_or(0);
  MESSAGE(kClients << " clients x " << kEach << " pipelined write_text of 2 MiB: peak RSS "
                   << before / 1024 << " MiB before, " << peak / 1024 << " MiB after");
#ifndef EDITD_SANITIZED  // a sanitizer's allocator keeps memory of its own
  // All in flight at once they would hold 32 x 4 MiB of messages; within the
  // budget, one message, the line each connection has read, and one write.
  CHECK(peak < before + 64 * 1024);
#endif
}

TEST_CASE("a new connection goes to the I/O thread serving the fewest, whatever closed before") {
  UnixServer s({"--io-threads", "2", "--log-level", "debug"});
  s.root.write("a.txt", "x\n");
  // The I/O thread of each connection opened so far, in order, from the log.
  auto threads_logged = [&](std::size_t want) {
    std::vector<int> out;
    std::regex re("connection unix:\\S+ opened, on I/O thread ([0-9]+)");
    for (int i = 0; i < 2000; ++i) {
      out.clear();
      std::string err = s.process.stderr_text();
      for (std::sregex_iterator it(err.begin(), err.end(), re), end; it != end; ++it)
        out.push_back(std::stoi((*it)[1].str()));
      if (out.size() >= want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return out;
  };
  auto a = s.client();
  REQUIRE(a.call("read_text", {{"path", "a.txt"}}).has_value());
  {
    // A short connection, such as a health probe, opened and closed between two clients.
    auto probe = s.client();
    REQUIRE(probe.call("read_text", {{"path", "a.txt"}}).has_value());
  }
  REQUIRE(s.process.await_log("connection unix:\\S+ closed").has_value());
  auto b = s.client();
  REQUIRE(b.call("read_text", {{"path", "a.txt"}}).has_value());
  std::vector<int> placed = threads_logged(3);
  REQUIRE(placed.size() == 3);
  // In turn, b would have gone where a is.
  CHECK(placed[0] != placed[2]);
}

TEST_CASE("pipelined edits of one file from connections on different threads all land in order") {
  UnixServer s({"--io-threads", "4"});
  s.root.write("log.txt", "");
  constexpr int kClients = 4, kEdits = 50;
  std::vector<SocketClient> clients;
  for (int t = 0; t < kClients; ++t) clients.push_back(s.client());
  // Every client sends all its edits before reading any answer: each puts its
  // line first in the file, so the file ends with each client's lines in the
  // reverse of the order it sent them, interleaved however the chains ran.
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < kClients; ++t)
    threads.emplace_back([&, t] {
      std::string batch;
      for (int i = 0; i < kEdits; ++i)
        batch += json{{"jsonrpc", "2.0"},
                      {"id", i},
                      {"method", "insert"},
                      {"params",
                       {{"path", "log.txt"},
                        {"line", 0},
                        {"text", "c" + std::to_string(t) + " " + std::to_string(i)}}}}
                     .dump() +
                 "\n";
      if (!clients[t].send_raw(batch)) return;
      for (int i = 0; i < kEdits; ++i) {
        auto line = clients[t].read_line();
        if (line && json::parse(*line).contains("result")) ++ok;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(ok == kClients * kEdits);
  std::istringstream after(s.root.read("log.txt"));
  std::vector<int> last(kClients, kEdits);
  int lines = 0;
  for (std::string line; std::getline(after, line); ++lines) {
    int t = line[1] - '0', i = std::stoi(line.substr(3));
    CHECK_MESSAGE(i == last[t] - 1, line);
    last[t] = i;
  }
  CHECK(lines == kClients * kEdits);
}

TEST_CASE("a chain of dependent edits sent pipelined lands in order") {
  TempDir root;
  root.write("v.txt", "v0\n");
  auto p = spawn_editd(root);
  std::string batch;
  for (int i = 0; i < 100; ++i)
    batch += json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "str_replace"},
                  {"params", {{"path", "v.txt"}, {"oldText", "v" + std::to_string(i) + "\n"}, {"newText", "v" + std::to_string(i + 1) + "\n"}}}}.dump() + "\n";
  p.write_raw(batch);
  for (int i = 0; i < 100; ++i) CHECK(p.read_message().contains("result"));
  CHECK(root.read("v.txt") == "v100\n");
}

TEST_CASE("reads pipelined between edits each see the edit sent before them") {
  TempDir root;
  root.write("v.txt", "v0\n");
  auto p = spawn_editd(root);
  std::string batch;
  for (int i = 1; i <= 100; ++i) {
    batch += json{{"jsonrpc", "2.0"},
                  {"id", 2 * i},
                  {"method", "write_text"},
                  {"params", {{"path", "v.txt"}, {"content", "v" + std::to_string(i) + "\n"}}}}
                 .dump() +
             "\n";
    // Two reads each time: they may run together, never before the write.
    for (int r = 0; r < 2; ++r)
      batch += json{{"jsonrpc", "2.0"},
                    {"id", std::to_string(i) + "." + std::to_string(r)},
                    {"method", "read_text"},
                    {"params", {{"path", "v.txt"}}}}
                   .dump() +
               "\n";
  }
  p.write_raw(batch);
  for (int n = 0; n < 300; ++n) {
    json m = p.read_message();
    REQUIRE_MESSAGE(m.contains("result"), m.dump());
    if (m["id"].is_string()) {
      std::string id = m["id"];
      CHECK(m["result"]["content"] == "v" + id.substr(0, id.find('.')) + "\n");
    }
  }
}

TEST_CASE(
    "requests sent after an apply_patch that parses on the pool wait for it to take its files") {
  TempDir root;
  root.write("a.txt", "old\n");
  const std::string patch = large_patch_old_to_new();
  REQUIRE(patch.size() > 64 * 1024);
  auto p = spawn_editd(root);
  warm_up(p, "a.txt");
  p.write_raw(request_line("patch", "apply_patch", {{"patch", patch}}) +
              request_line("read", "read_text", {{"path", "a.txt"}}) +
              request_line("edit", "str_replace",
                           {{"path", "a.txt"}, {"oldText", "new"}, {"newText", "third"}}));
  std::map<std::string, json> replies = replies_by_id(p, 3);
  CHECK_MESSAGE(replies["patch"].contains("result"), replies["patch"].dump().substr(0, 300));
  CHECK(replies["read"]["result"]["content"] == "new\n");
  CHECK_MESSAGE(replies["edit"].contains("result"), replies["edit"].dump().substr(0, 300));
  CHECK(root.read("a.txt") == "third\n");
}

TEST_CASE(
    "a path is judged in its turn: a file deleted or moved just before may become a directory") {
  TempDir root;
  root.write("p", "a file where a directory will be\n");
  root.write("m", "moved away\n");
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root);
  warm_up(p, "a.txt");
  p.write_raw(
      request_line("delete", "apply_patch",
                   {{"patch", "*** Begin Patch\n*** Delete File: p\n*** End Patch\n"}}) +
      request_line("write", "write_text", {{"path", "p/g.txt"}, {"content", "g\n"}}) +
      request_line("read", "read_text", {{"path", "p/g.txt"}}) +
      request_line(
          "move", "apply_patch",
          {{"patch",
            "*** Begin Patch\n*** Update File: m\n*** Move to: m2\n@@\n-moved away\n+moved\n"
            "*** End Patch\n"}}) +
      request_line("create", "create", {{"path", "m/inner.txt"}, {"content", "in\n"}}) +
      request_line("patch", "apply_patch",
                   {{"patch", "*** Begin Patch\n*** Add File: m/other.txt\n+o\n*** End Patch\n"}}));
  std::map<std::string, json> replies = replies_by_id(p, 6);
  for (const char* id : {"delete", "write", "read", "move", "create", "patch"})
    CHECK_MESSAGE(replies[id].contains("result"), id, ": ", replies[id].dump().substr(0, 300));
  CHECK(replies["read"]["result"]["content"] == "g\n");
  CHECK(root.read("p/g.txt") == "g\n");
  CHECK(root.read("m2") == "moved\n");
  CHECK(root.read("m/inner.txt") == "in\n");
  CHECK(root.read("m/other.txt") == "o\n");
}

TEST_CASE("with --require-read, an edit sent right after a read of a big file finds it read") {
  // A read of a file over 64 KiB renders it on the pool; an edit sent after it
  // on the same connection must find the file known, however long that takes.
  TempDir root;
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "line " + std::to_string(i) + " of a big file\n";
  REQUIRE(big.size() > 2 * 1024 * 1024);
  for (int f = 0; f < 3; ++f) root.write("big" + std::to_string(f) + ".txt", big);
  auto p = spawn_editd(root, {"--require-read"});
  warm_up(p, "big0.txt");
  for (int f = 0; f < 3; ++f) {
    const std::string path = "big" + std::to_string(f) + ".txt";
    CAPTURE(path);
    p.write_raw(
        request_line("read", "read_text", {{"path", path}, {"format", "hashline"}}) +
        request_line("edit", "str_replace",
                     {{"path", path}, {"oldText", "line 5 of"}, {"newText", "line five of"}}) +
        request_line("again", "str_replace",
                     {{"path", path}, {"oldText", "line 7 of"}, {"newText", "line seven of"}}));
    std::map<std::string, json> replies = replies_by_id(p, 3);
    CHECK(replies["read"].contains("result"));
    CHECK_MESSAGE(replies["edit"].contains("result"), replies["edit"].dump().substr(0, 300));
    CHECK_MESSAGE(replies["again"].contains("result"), replies["again"].dump().substr(0, 300));
  }
}

TEST_CASE("$/cancel_request cancels a queued request, which changes nothing") {
  TempDir root;
  root.write("big.txt", "start\n");
  auto p = spawn_editd(root);
  // A long write holds the file's chain; the edit queued behind it is cancelled.
  std::string big(8 << 20, 'x');
  std::string lines =
      json{{"jsonrpc", "2.0"}, {"id", "w"}, {"method", "write_text"}, {"params", {{"path", "big.txt"}, {"content", big + "\nstart\n"}}}}.dump() + "\n" +
      json{{"jsonrpc", "2.0"}, {"id", "e"}, {"method", "str_replace"}, {"params", {{"path", "big.txt"}, {"oldText", "start"}, {"newText", "changed"}}}}.dump() + "\n" +
      json{{"jsonrpc", "2.0"}, {"method", "$/cancel_request"}, {"params", {{"requestId", "e"}}}}.dump() + "\n" +
      json{{"jsonrpc", "2.0"}, {"method", "$/cancel_request"}, {"params", {{"requestId", "unknown"}}}}.dump() + "\n";
  p.write_raw(lines);
  json first = p.read_message(), second = p.read_message();
  json w = first["id"] == "w" ? first : second;
  json e = first["id"] == "e" ? first : second;
  CHECK(w.contains("result"));
  REQUIRE(e.contains("error"));
  CHECK(e["error"]["code"] == -32800);
  CHECK(e["error"]["data"]["kind"] == "cancelled");
  CHECK(root.read("big.txt").find("changed") == std::string::npos);
  // The notifications themselves were never answered.
  CHECK_FALSE(p.read_line(std::chrono::milliseconds(200)).has_value());
}

TEST_CASE("--max-inflight applies back-pressure without dropping requests") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root, {"--max-inflight", "1"});
  std::string batch;
  for (int i = 0; i < 300; ++i)
    batch += json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}}.dump() + "\n";
  p.write_raw(batch);
  std::set<int> ids;
  for (int i = 0; i < 300; ++i) ids.insert(p.read_message()["id"].get<int>());
  CHECK(ids.size() == 300);
}

TEST_CASE("a client that disconnects mid-request does not disturb the others") {
  UnixServer s;
  s.root.write("a.txt", "x\n");
  {
    auto gone = s.client();
    std::string big(4 << 20, 'y');
    gone.send(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "write_text"}, {"params", {{"path", "b.txt"}, {"content", big}}}});
    gone.send_raw("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"read_te");
  }
  auto other = s.client();
  CHECK((*other.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "x\n");
}

// The first `bytes` bytes of a write_text request whose content never ends:
// what a client that leaves in the middle of a long line has sent. Parsed, it
// would cost seconds (the string is read to its end, then the error described).
std::string unfinished_request(std::size_t bytes) {
  std::string line =
      R"({"jsonrpc":"2.0","id":1,"method":"write_text","params":{"path":"x.txt","content":")";
  line.resize(bytes, 'a');
  return line;
}

// `n` clients, each on its own thread, send `bytes`; once the server has read
// them all, every client disconnects at once.
void leave_mid_line(const std::string& socket, int n, const std::string& bytes) {
  std::vector<std::optional<SocketClient>> clients(n);
  std::vector<std::thread> senders;
  for (int i = 0; i < n; ++i)
    senders.emplace_back([&, i] {
      auto c = SocketClient::unix_socket(socket);
      if (!c || !c->send_raw(bytes)) return;
      for (int k = 0; k < 60000 && c->unread_by_peer() > 0; ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      clients[i].emplace(std::move(*c));
    });
  for (auto& t : senders) t.join();
  for (auto& c : clients)
    if (c) c->close();
}


TEST_CASE("the partial lines of clients that leave mid-line are dropped unread; others are served") {
  // One I/O thread: the clients that leave share it with the one that stays.
  UnixServer s({"--io-threads", "1"});
  s.root.write("a.txt", "x\n");
  auto stays = s.client();
  REQUIRE(stays.call("read_text", {{"path", "a.txt"}}).has_value());
  constexpr int kLeavers = 4;
  const std::string partial = unfinished_request(std::size_t{48} << 20);
  const std::string dropped =
      "the input ended inside a line: " + std::to_string(partial.size()) + " bytes dropped unread";

  std::thread leaving([&] { leave_mid_line(s.socket, kLeavers, partial); });
  // Reads while they send and leave, and after: each is answered within a
  // bound generous enough for a loaded machine (a parse of one partial line
  // on the I/O thread took longer).
  int reads = 0;
  bool all_answered = true;
  for (int i = 0; i < 3000 && (reads < 20 || count_of(s.process.stderr_text(), dropped) < kLeavers);
       ++i, ++reads) {
    stays.send(json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}});
    auto line = stays.read_line(std::chrono::seconds(5));
    if (!line || json::parse(*line)["result"]["content"] != "x\n") {
      all_answered = false;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  leaving.join();
  CHECK(all_answered);
  CHECK(count_of(s.process.stderr_text(), dropped) == kLeavers);

  // Clients leaving just before SIGTERM do not hold the exit back.
  leave_mid_line(s.socket, kLeavers, partial);
  ::kill(s.process.pid(), SIGTERM);
  CHECK(s.process.wait(std::chrono::seconds(5)) == 0);
}

TEST_CASE("a long line is parsed off the I/O thread: a read sent after it is answered first") {
  UnixServer s({"--io-threads", "1"});
  s.root.write("a.txt", "x\n");
  auto a = s.client();
  auto b = s.client();
  // A whole line this time, costly to parse and refused when parsed.
  REQUIRE(a.send_raw(unfinished_request(std::size_t{48} << 20) + "\n"));
  for (int i = 0; i < 60000 && a.unread_by_peer() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(a.unread_by_peer() == 0);
  std::atomic<int> order{0};
  int a_at = -1, b_at = -1;
  std::optional<std::string> a_line;
  std::thread reader_a([&] {
    if (a.readable(std::chrono::seconds(60))) a_at = order++;
    a_line = a.read_line(std::chrono::seconds(60));
  });
  REQUIRE(b.send(json{
      {"jsonrpc", "2.0"}, {"id", "b"}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}}));
  auto b_line = b.read_line(std::chrono::seconds(60));
  if (b_line) b_at = order++;
  reader_a.join();
  REQUIRE(b_line.has_value());
  REQUIRE(a_line.has_value());
  CHECK(json::parse(*b_line)["result"]["content"] == "x\n");
  CHECK(b_at < a_at);
  // The refusal quotes a little of the line, not all of it.
  CHECK(a_line->size() < 2048);
  CHECK(json::parse(*a_line)["error"]["code"] == -32700);
}

TEST_CASE("SIGTERM with work in flight exits 0, tears no file and leaves no temporary file") {
  UnixServer s;
  s.root.write("a.txt", "0\n");
  auto c = s.client();
  std::string batch;
  for (int i = 0; i < 50; ++i)
    batch += json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "write_text"},
                  {"params", {{"path", "a.txt"}, {"content", std::string(100000, 'a' + i % 26) + "\n"}}}}.dump() + "\n";
  c.send_raw(batch);
  auto first = c.read_line();  // at least one write was acknowledged
  REQUIRE(first.has_value());
  ::kill(s.process.pid(), SIGTERM);
  CHECK(s.process.wait() == 0);
  std::string after = s.root.read("a.txt");
  REQUIRE(after.size() == 100001);
  CHECK(after.find_first_not_of(after[0]) == 100000);
  CHECK(s.root.files() == std::vector<std::string>{"a.txt"});
}

TEST_CASE("the undo history is shared by the server's connections") {
  UnixServer s;
  s.root.write("a.txt", "one\n");
  auto a = s.client();
  auto b = s.client();
  json w = *a.call("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "1"}});
  REQUIRE(w["result"].contains("undoId"));
  CHECK(s.root.read("a.txt") == "1\n");
  json u = *b.call("undo", {{"undoId", w["result"]["undoId"]}});
  REQUIRE_MESSAGE(u.contains("result"), u.dump());
  CHECK(s.root.read("a.txt") == "one\n");
  // Connection a can undo b's undo.
  json redo = *a.call("undo", {{"undoId", u["result"]["undoId"]}});
  REQUIRE_MESSAGE(redo.contains("result"), redo.dump());
  CHECK(s.root.read("a.txt") == "1\n");
}

TEST_CASE("an undoId of the local disk is refused on a connection whose files the client holds") {
  // Connection d is an ACP editor that offers fs/*: its edits go to its own
  // buffers, so an undo of a change made on the disk must not run there.
  UnixServer s;
  s.root.write("a.txt", "one\n");
  auto local = s.client();
  json w = *local.call("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "1"}});
  REQUIRE(w["result"].contains("undoId"));
  auto d = s.client();
  json init = *d.call("initialize", {{"protocolVersion", 1},
                                      {"clientCapabilities",
                                       {{"fs", {{"readTextFile", true}, {"writeTextFile", true}}}}},
                                      {"clientInfo", {{"name", "fake-editor"}}}});
  REQUIRE(init["result"]["agentCapabilities"]["_meta"]["editd"]["backend"] == "delegated");
  json refused = *d.call("undo", {{"undoId", w["result"]["undoId"]}});
  REQUIRE_MESSAGE(refused.contains("error"), refused.dump());
  CHECK(refused["error"]["data"]["kind"] == "not_found");
  CHECK(refused["error"]["data"]["reason"] == "other_backend");
  CHECK(refused["error"]["data"]["undoId"] == w["result"]["undoId"]);
  CHECK(s.root.read("a.txt") == "1\n");
  // The connection that shares the disk may still undo it.
  json u = *local.call("undo", {{"undoId", w["result"]["undoId"]}});
  REQUIRE_MESSAGE(u.contains("result"), u.dump());
  CHECK(s.root.read("a.txt") == "one\n");
}

TEST_CASE("a costly edit of a small file from one client does not hold up another client's read") {
  // A small file (under the 64 KiB that read_text decodes inline) and an
  // oldText of many megabytes that is not in it: the ladder and the
  // closest-region search pass over all of it. That work runs on the pool, so
  // B's read_text, sent after A's request was read, is answered first.
  UnixServer s;
  std::string small;
  for (int i = 0; small.size() < 50 * 1024; ++i)
    small += "line " + std::to_string(i) + " of a small file\n";
  s.root.write("small.txt", small);
  s.root.write("b.txt", "hello\n");
  std::string old_text;
  for (int i = 0; old_text.size() < (8 << 20); ++i)
    old_text += "line " + std::to_string(i) + " of another file\n";
  auto a = s.client();
  auto b = s.client();
  REQUIRE(
      a.send(json{{"jsonrpc", "2.0"},
                  {"id", "a"},
                  {"method", "str_replace"},
                  {"params", {{"path", "small.txt"}, {"oldText", old_text}, {"newText", "x"}}}}));
  // B's request goes out once the server has read all of A's.
  for (int i = 0; i < 60000 && a.unread_by_peer() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(a.unread_by_peer() == 0);
  std::atomic<int> order{0};
  int a_at = -1, b_at = -1;
  std::optional<json> a_reply, b_reply;
  std::thread reader_a([&] {
    if (auto line = a.read_line(std::chrono::seconds(60))) {
      a_at = order++;
      a_reply = json::parse(*line);
    }
  });
  REQUIRE(b.send(json{
      {"jsonrpc", "2.0"}, {"id", "b"}, {"method", "read_text"}, {"params", {{"path", "b.txt"}}}}));
  if (auto line = b.read_line(std::chrono::seconds(60))) {
    b_at = order++;
    b_reply = json::parse(*line);
  }
  reader_a.join();
  REQUIRE(a_reply.has_value());
  REQUIRE(b_reply.has_value());
  CHECK((*b_reply)["result"]["content"] == "hello\n");
  CHECK((*a_reply)["error"]["data"]["kind"] == "no_match");
  CHECK(b_at < a_at);
  CHECK(s.root.read("small.txt") == small);
}

TEST_CASE("checks and a language server answer connections served by different threads") {
  UnixServer s({"--io-threads", "3", "--lsp", "*.py=pylsp", "--check",
                "*.c=gcc -fsyntax-only {file}", "--check-timeout", "60"});
  constexpr int kClients = 3;
  for (int t = 0; t < kClients; ++t) {
    s.root.write("m" + std::to_string(t) + ".py", "import os\n");
    s.root.write("m" + std::to_string(t) + ".c", "int main(void) { return 0; }\n");
  }
  std::vector<SocketClient> clients;
  for (int t = 0; t < kClients; ++t) clients.push_back(s.client());
  std::vector<std::optional<json>> py(kClients), c(kClients);
  std::vector<std::thread> threads;
  for (int t = 0; t < kClients; ++t)
    threads.emplace_back([&, t] {
      std::string n = std::to_string(t);
      py[t] = clients[t].call("str_replace", {{"path", "m" + n + ".py"},
                                              {"oldText", "import os\n"},
                                              {"newText", "import os\nprint(nope" + n + ")\n"}});
      c[t] = clients[t].call("str_replace", {{"path", "m" + n + ".c"},
                                             {"oldText", "return 0;"},
                                             {"newText", "return undeclared" + n + ";"}});
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kClients; ++t) {
    std::string n = std::to_string(t);
    REQUIRE(py[t].has_value());
    REQUIRE(c[t].has_value());
    INFO((*py[t]).dump(), " ", (*c[t]).dump());
    const json& pr = (*py[t])["result"];
    const json& cr = (*c[t])["result"];
    CHECK(pr["diagnosticsStatus"] == "ok");
    CHECK(pr["introduced"].dump().find("undefined name 'nope" + n + "'") != std::string::npos);
    CHECK(cr["diagnosticsStatus"] == "ok");
    CHECK(cr["introduced"].dump().find("undeclared" + n) != std::string::npos);
  }
}

namespace {

// A cgroup with a CPU quota of one CPU, made for a test and removed after it:
// v1's cpu controller or v2's cpu.max, whichever this machine lets root make.
// Empty path when neither can be made here (not root, no cpu controller).
struct OneCpuCgroup {
  std::string dir;
  OneCpuCgroup() {
    const std::string name = "editd-test-" + std::to_string(::getpid());
    auto write = [](const std::string& path, const std::string& text) {
      std::ofstream out(path);
      out << text;
      out.flush();
      return static_cast<bool>(out);
    };
    std::error_code ec;
    if (std::filesystem::exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) {
      std::string d = "/sys/fs/cgroup/cpu/" + name;
      if (std::filesystem::create_directory(d, ec) && write(d + "/cpu.cfs_period_us", "100000") &&
          write(d + "/cpu.cfs_quota_us", "100000"))
        dir = d;
      else
        std::filesystem::remove(d, ec);
    } else if (std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers")) {
      std::string d = "/sys/fs/cgroup/" + name;
      if (std::filesystem::create_directory(d, ec) && write(d + "/cpu.max", "100000 100000"))
        dir = d;
      else
        std::filesystem::remove(d, ec);
    }
  }
  ~OneCpuCgroup() {
    if (dir.empty()) return;
    // Its processes have exited; an empty cgroup is removed with rmdir.
    for (int i = 0; i < 200 && ::rmdir(dir.c_str()) != 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
};

// The "(N I/O thread" of editd's start-up line, or -1.
int logged_io_threads(Process& p) {
  auto n = p.await_log("serving root .* \\(([0-9]+) I/O thread");
  return n ? std::stoi(*n) : -1;
}

}  // namespace

TEST_CASE("--io-threads defaults to the CPUs editd may use: its affinity, bounded by a quota") {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
  const int affinity = CPU_COUNT(&set);
  TempDir root, run_dir;
  int unbounded = -1;
  {
    Process p(EDITD_BINARY,
              {"--root", root.str(), "--listen", "unix:" + (run_dir.path() / "a.sock").string()});
    unbounded = logged_io_threads(p);
    // Fewer when a quota already bounds the cgroup these tests run in.
    CHECK(unbounded >= 1);
    CHECK(unbounded <= affinity);
    ::kill(p.pid(), SIGTERM);
    CHECK(p.wait() == 0);
  }
  if (unbounded < 2) {
    MESSAGE("one CPU for editd here: a quota of one CPU would change nothing; not tried");
    return;
  }
  OneCpuCgroup cgroup;
  if (cgroup.dir.empty()) {
    MESSAGE("no cgroup with a CPU quota can be made here (root and a cpu controller needed)");
    return;
  }
  {
    // The shell joins the cgroup, then becomes editd.
    std::string command = "echo $$ > " + cgroup.dir + "/cgroup.procs && exec " +
                          std::string(EDITD_BINARY) + " --root " + root.str() +
                          " --listen unix:" + (run_dir.path() / "b.sock").string();
    Process p("/bin/sh", {"-c", command});
    CHECK_MESSAGE(logged_io_threads(p) == 1, p.stderr_text());
    ::kill(p.pid(), SIGTERM);
    CHECK(p.wait() == 0);
  }
}
