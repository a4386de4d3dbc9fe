// Robustness through the real binary: memory stays bounded for a client that
// reads none of its replies, accepting backs off when descriptors run out,
// SIGHUP changes nothing, and shutdown under load cuts neither a patch nor a
// reply.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <atomic>
#include <functional>
#include <set>
#include <thread>

#include "helpers/proc.h"
#include "helpers/socket_client.h"
#include "helpers/unix_server.h"

using namespace editd::test;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

json request(const json& id, const std::string& method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

// About `bytes` bytes of distinct ASCII lines, each naming `tag`.
std::string numbered_lines(std::size_t bytes, const std::string& tag) {
  std::string out;
  out.reserve(bytes + 64);
  for (std::size_t i = 0; out.size() < bytes; ++i)
    out += tag + " line " + std::to_string(i) + " lorem ipsum dolor sit amet\n";
  return out;
}


std::string kind_of(const json& reply) {
  if (!reply.contains("error")) return "ok";
  return reply["error"]["data"].value("kind", "");
}

// A Unix socket client that sees every byte the server sends, a cut line too.
class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;

  bool send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Hands each complete line to on_line until the server closes the
  // connection or the deadline passes; returns what followed the last line
  // break (empty unless a line was cut).
  std::string read_until_close(const std::function<void(const std::string&)>& on_line,
                               std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    std::string buf;
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return buf + "<deadline>";
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) continue;
      char chunk[65536];
      ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return buf;
      buf.append(chunk, static_cast<std::size_t>(n));
      for (auto nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n')) {
        on_line(buf.substr(0, nl));
        buf.erase(0, nl + 1);
      }
    }
  }

 private:
  int fd_ = -1;
};

}  // namespace

TEST_CASE("a client that reads no replies holds about --max-queued-bytes of them while others are served") {
  constexpr std::uint64_t kBound = 16 * kMiB;
  constexpr int kRequests = 24;  // unbounded, their replies would take 24 x 8 MiB
  UnixServer s({"--max-queued-bytes", std::to_string(kBound)});
  const std::string big = numbered_lines(8 * kMiB, "big");
  s.root.write("big.txt", big);
  s.root.write("small.txt", "small\n");
  const pid_t pid = s.process.pid();

  auto other = s.client();
  auto warm = other.call("read_text", {{"path", "big.txt"}});
  REQUIRE(warm.has_value());
  REQUIRE((*warm)["result"]["content"] == big);
  const std::uint64_t base_kib = vm_kib(pid, "VmRSS").value_or(0);

  auto silent = s.client();
  std::string batch;
  for (int i = 0; i < kRequests; ++i) batch += request(i, "read_text", {{"path", "big.txt"}}).dump() + "\n";
  REQUIRE(silent.send_raw(batch));

  // Until editd's memory has been steady for half a second: it stopped reading.
  std::uint64_t last = 0;
  for (int i = 0, steady = 0; i < 200 && steady < 10; ++i) {
    std::this_thread::sleep_for(50ms);
    std::uint64_t rss = vm_kib(pid, "VmRSS").value_or(0);
    steady = (rss > last ? rss - last : last - rss) < 1024 ? steady + 1 : 0;
    last = rss;
  }
  auto small = other.call("read_text", {{"path", "small.txt"}});
  REQUIRE(small.has_value());
  CHECK((*small)["result"]["content"] == "small\n");

  const std::uint64_t peak_kib = vm_kib(pid, "VmHWM").value_or(0);
  MESSAGE("editd RSS: " << base_kib / 1024 << " MiB after one read, " << last / 1024
                        << " MiB with a silent client, peak " << peak_kib / 1024 << " MiB (bound "
                        << kBound / kMiB << " MiB)");
#ifndef EDITD_SANITIZED  // a sanitizer's shadow memory and quarantine are not editd's
  CHECK(peak_kib < base_kib + 3 * kBound / 1024);
#endif

  // The silent client reads at last: every reply, whole.
  std::set<int> ids;
  for (int i = 0; i < kRequests; ++i) {
    auto line = silent.read_line();
    REQUIRE(line.has_value());
    json m = json::parse(*line);
    REQUIRE(m.contains("result"));
    CHECK(m["result"]["content"] == big);
    ids.insert(m["id"].get<int>());
  }
  CHECK(ids.size() == kRequests);
}

TEST_CASE("memory a big request used goes back to the system once the connection is idle") {
  // A miss on a 48 MiB file passes every tier and the closest-region search.
  // After a big read, glibc kept what the miss freed in its heap (39 MiB above
  // idle after a 58 MiB miss) until editd trimmed it when its connections go
  // idle (server/session/memory.h).
  TempDir root;
  root.write("big.txt", numbered_lines(48 * kMiB, "big"));
  root.write("small.txt", "small\n");
  auto p = spawn_editd(root, {"--undo-history-entries", "0"});
  p.ok("read_text", {{"path", "small.txt"}});
  const pid_t pid = p.pid();
  const std::uint64_t idle_kib = vm_kib(pid, "VmRSS").value_or(0);
  // A read first: freeing its file-sized buffer raises glibc's threshold for
  // mapping big blocks, so that the miss's buffers come from the heap.
  p.ok("read_text", {{"path", "big.txt"}});
  json e = p.fails("str_replace", {{"path", "big.txt"},
                                   {"oldText", "no such line\nnor this one\nnor a third"},
                                   {"newText", "x"}});
  CHECK(e["data"]["kind"] == "no_match");
  const std::uint64_t peak_kib = vm_kib(pid, "VmHWM").value_or(0);
  CHECK(peak_kib > idle_kib + 48 * 1024);  // the file was in memory
  // Polled, with a generous deadline: the trim comes after a second idle.
  std::uint64_t rss = 0;
  for (int i = 0; i < 200; ++i) {
    rss = vm_kib(pid, "VmRSS").value_or(0);
    if (rss < idle_kib + 12 * 1024) break;
    std::this_thread::sleep_for(50ms);
  }
  MESSAGE("editd RSS: " << idle_kib / 1024 << " MiB idle, peak " << peak_kib / 1024
                        << " MiB, then " << rss / 1024 << " MiB");
#ifndef EDITD_SANITIZED  // a sanitizer's allocator keeps memory of its own
  CHECK(rss < idle_kib + 12 * 1024);
#endif
  // And the server still serves.
  CHECK(p.ok("read_text", {{"path", "small.txt"}})["content"] == "small\n");
}

TEST_CASE("a reply larger than --max-queued-bytes is still sent whole, and reading goes on") {
  TempDir root;
  const std::string big = numbered_lines(kMiB, "x");
  root.write("big.txt", big);
  auto p = spawn_editd(root, {"--max-queued-bytes", "4096"});
  std::string batch;
  for (int i = 0; i < 3; ++i) batch += request(i, "read_text", {{"path", "big.txt"}}).dump() + "\n";
  batch += request(3, "fingerprint", {{"path", "big.txt"}}).dump() + "\n";
  p.write_raw(batch);
  std::set<int> ids;
  for (int i = 0; i < 4; ++i) {
    json m = p.read_message();
    REQUIRE(m.contains("result"));
    if (m["id"] != 3) CHECK(m["result"]["content"] == big);
    ids.insert(m["id"].get<int>());
  }
  CHECK(ids.size() == 4);
}

TEST_CASE("out of descriptors, accepting backs off with two log lines and resumes when they free up") {
  UnixServer s;
  const pid_t pid = s.process.pid();
  const json init = {{"protocolVersion", 1}};
  {
    auto warm = s.client();
    REQUIRE(warm.call("initialize", init).has_value());
  }
  // The warm-up connection closes on editd's side too.
  std::size_t descriptors = 0;
  for (int i = 0, steady = 0; i < 100 && steady < 3; ++i) {
    std::this_thread::sleep_for(20ms);
    std::size_t n = open_descriptors(pid);
    steady = n == descriptors ? steady + 1 : 0;
    descriptors = n;
  }
  rlimit before{};
  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, nullptr, &before) == 0);
  rlimit low = before;
  low.rlim_cur = descriptors + 3;
  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr) == 0);

  // Connections until one is not accepted (it waits in the listen backlog).
  std::vector<SocketClient> served;
  std::optional<SocketClient> waiting;
  for (int i = 0; i < 20 && !waiting; ++i) {
    auto c = SocketClient::unix_socket(s.socket);
    REQUIRE(c.has_value());
    REQUIRE(c->send(request(1, "initialize", init)));
    if (c->read_line(1000ms))
      served.push_back(std::move(*c));
    else
      waiting.emplace(std::move(*c));
  }
  REQUIRE(waiting.has_value());
  REQUIRE(served.size() >= 2);

  // stderr is drained meanwhile: a full pipe would block a spinning logger.
  const std::uint64_t ticks = cpu_ticks(pid);
  for (int i = 0; i < 1000; ++i) {
    std::this_thread::sleep_for(1ms);
    s.process.stderr_text();
  }
  const std::uint64_t used = cpu_ticks(pid) - ticks;
  const long hz = ::sysconf(_SC_CLK_TCK);
  std::string log = s.process.stderr_text();
  MESSAGE("while out of descriptors for 1 s: " << used << " CPU ticks of " << hz << " a second, "
                                               << count_of(log, "accept on") << " accept log lines");
  CHECK(used < static_cast<std::uint64_t>(hz / 5));
  CHECK(count_of(log, "accept on") == 1);
  CHECK(log.find("Too many open files") != std::string::npos);

  served.clear();
  auto answer = waiting->read_line(10s);
  REQUIRE(answer.has_value());
  CHECK(json::parse(*answer).contains("result"));
  auto fresh = s.client();
  auto r = fresh.call("initialize", init);
  REQUIRE(r.has_value());
  CHECK(r->contains("result"));
  log = s.process.stderr_text();
  CHECK(count_of(log, "accept on") == 2);
  CHECK(log.find("works again") != std::string::npos);

  REQUIRE(::prlimit(pid, RLIMIT_NOFILE, &before, nullptr) == 0);
  ::kill(pid, SIGTERM);
  CHECK(s.process.wait() == 0);
}

TEST_CASE("started with stdin closed, editd reads the end of input and exits 0") {
  // Its own descriptors took the number 0, and stdio waited on one of them.
  TempDir root;
  root.write("a.txt", "a\n");
  Process p("/bin/sh",
            {"-c", "exec 0<&- 2>&-; exec \"$0\" --root \"$1\"", EDITD_BINARY, root.str()});
  CHECK(p.wait(std::chrono::milliseconds(10000)) == 0);
  CHECK_FALSE(p.read_line().has_value());
  CHECK(root.files() == std::vector<std::string>{"a.txt"});
  CHECK(root.read("a.txt") == "a\n");
}

TEST_CASE("SIGHUP is ignored on stdio: editd goes on serving, then ends at EOF with 0") {
  TempDir root;
  root.write("a.txt", "a\n");
  auto p = spawn_editd(root);
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "a\n");
  ::kill(p.pid(), SIGHUP);
  ::kill(p.pid(), SIGHUP);
  CHECK(p.ok("str_replace", {{"path", "a.txt"}, {"oldText", "a"}, {"newText", "b"}})["replacements"] == 1);
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "b\n");
  p.close_stdin();
  CHECK(p.wait() == 0);
  CHECK(p.stderr_text().find("SIGHUP ignored") != std::string::npos);
}

TEST_CASE("SIGHUP is ignored on a socket server: the socket stays and new clients are served") {
  UnixServer s;
  s.root.write("a.txt", "a\n");
  auto before = s.client();
  CHECK((*before.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "a\n");
  ::kill(s.process.pid(), SIGHUP);
  CHECK((*before.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "a\n");
  CHECK(std::filesystem::exists(s.socket));
  auto after = s.client();
  CHECK((*after.call("read_text", {{"path", "a.txt"}}))["result"]["content"] == "a\n");
  ::kill(s.process.pid(), SIGTERM);
  CHECK(s.process.wait() == 0);
  CHECK_FALSE(std::filesystem::exists(s.socket));
}

TEST_CASE("SIGTERM during multi-file patches from several clients: exit 0, whole lines, whole patches") {
  constexpr int kClients = 4, kFiles = 3, kPatches = 30;
  // No grace: every request that has not begun writing is cancelled at once,
  // the harshest case for the patches caught between their writes.
  UnixServer s({"--shutdown-grace", "0"});
  auto file = [](int c, int f) { return "c" + std::to_string(c) + "/f" + std::to_string(f) + ".txt"; };
  for (int c = 0; c < kClients; ++c)
    for (int f = 0; f < kFiles; ++f) s.root.write(file(c, f), "version 0\n" + numbered_lines(256 * 1024, file(c, f)));
  auto patch = [&](int c, int k) {
    std::string p = "*** Begin Patch\n";
    for (int f = 0; f < kFiles; ++f)
      p += "*** Update File: " + file(c, f) + "\n@@\n-version " + std::to_string(k) + "\n+version " +
           std::to_string(k + 1) + "\n";
    return p + "*** End Patch\n";
  };

  std::atomic<int> applied{0};
  std::vector<int> successes(kClients, 0), answers(kClients, 0), unexpected(kClients, 0);
  std::vector<std::string> cut(kClients);
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      RawClient client(s.socket);
      std::string batch;
      for (int k = 0; k < kPatches; ++k) batch += request(k, "apply_patch", {{"patch", patch(c, k)}}).dump() + "\n";
      if (!client.send(batch)) return;
      cut[c] = client.read_until_close(
          [&](const std::string& line) {
            json m = json::parse(line, nullptr, false);
            ++answers[c];
            std::string kind = m.is_discarded() ? "garbled" : kind_of(m);
            if (kind == "ok") {
              ++successes[c];
              ++applied;
            } else if (kind != "cancelled" && kind != "patch_apply") {
              ++unexpected[c];
            }
          },
          30s);
    });
  }
  for (int i = 0; i < 2000 && applied < kClients; ++i) std::this_thread::sleep_for(5ms);
  ::kill(s.process.pid(), SIGTERM);
  for (auto& t : threads) t.join();
  CHECK(s.process.wait() == 0);

  std::vector<std::string> expected;
  for (int c = 0; c < kClients; ++c) {
    CAPTURE(c);
    CHECK(cut[c].empty());
    CHECK(unexpected[c] == 0);
    CHECK(answers[c] == kPatches);
    expected.push_back("c" + std::to_string(c) + "/");
    // Every file of the client at the version its acknowledged patches reached.
    for (int f = 0; f < kFiles; ++f) {
      std::string text = s.root.read(file(c, f));
      CHECK(text.substr(0, text.find('\n')) == "version " + std::to_string(successes[c]));
      expected.push_back(file(c, f));
    }
  }
  std::sort(expected.begin(), expected.end());
  CHECK(s.root.files() == expected);
  MESSAGE("patches applied before the exit: " << applied.load() << " of " << kClients * kPatches);
}

TEST_CASE("SIGTERM on stdio with replies still to write: every request is answered with whole lines") {
  TempDir root;
  const std::string big = numbered_lines(4 * kMiB, "big");
  root.write("big.txt", big);
  auto p = spawn_editd(root);
  REQUIRE(p.ok("fingerprint", {{"path", "big.txt"}}).contains("fingerprint"));
  std::string batch;
  for (int i = 0; i < 10; ++i) batch += request(i, "read_text", {{"path", "big.txt"}}).dump() + "\n";
  p.write_raw(batch);
  ::kill(p.pid(), SIGTERM);
  std::set<int> ids;
  while (auto line = p.read_line()) {
    json m = json::parse(*line, nullptr, false);
    REQUIRE_FALSE(m.is_discarded());
    std::string kind = kind_of(m);
    CHECK((kind == "ok" || kind == "cancelled"));
    if (kind == "ok") CHECK(m["result"]["content"] == big);
    ids.insert(m["id"].get<int>());
  }
  CHECK(ids.size() == 10);
  CHECK(p.wait() == 0);
}

TEST_CASE("write_text replacing every line of a 1 MiB file: peak memory stays linear") {
  TempDir root;
  const std::string before = numbered_lines(kMiB, "old");
  const std::string after = numbered_lines(kMiB, "new");
  root.write("f.txt", before);
  auto p = spawn_editd(root);
  REQUIRE(p.ok("read_text", {{"path", "f.txt"}})["content"] == before);
  const std::uint64_t peak_before = vm_kib(p.pid(), "VmHWM").value_or(0);
  json r = p.ok("write_text", {{"path", "f.txt"}, {"content", after}});
  const std::uint64_t peak_after = vm_kib(p.pid(), "VmHWM").value_or(0);
  MESSAGE("write_text of " << std::count(after.begin(), after.end(), '\n') << " new lines: peak RSS "
                           << peak_before / 1024 << " MiB before, " << peak_after / 1024 << " MiB after");
  CHECK(root.read("f.txt") == after);
  CHECK(r["removed"] == std::count(before.begin(), before.end(), '\n'));
  CHECK(peak_after < peak_before + 64 * 1024);
}

TEST_CASE("a large newText at many regions is too_large before it is built; memory stays small") {
  TempDir root;
  std::string file;
  for (int i = 0; i < 4000; ++i) file += "a  \n";
  root.write("f.txt", file);
  // 4,000 regions x 256 KiB would be 1 GiB, over the default 64 MiB limit:
  // found by the exact tier ("a"), and by a line tier ("a\n" matches each
  // line once its trailing blanks are ignored, and each window would get a
  // replacement of its own).
  const std::string big(256 * 1024, 'b');
  auto p = spawn_editd(root);
  REQUIRE(p.ok("read_text", {{"path", "f.txt"}})["content"] == file);
  const std::uint64_t peak_before = vm_kib(p.pid(), "VmHWM").value_or(0);
  for (const std::string old_text : {"a", "a\n"}) {
    CAPTURE(old_text);
    json all = p.request("str_replace", {{"path", "f.txt"}, {"oldText", old_text},
                                         {"newText", big + "\n"}, {"replaceAll", true}});
    REQUIRE(all.contains("error"));
    CHECK(all["error"]["data"]["kind"] == "too_large");
    CHECK(all["error"]["data"]["replacements"] == 4000);
    json one = p.request("str_replace",
                         {{"path", "f.txt"}, {"oldText", old_text}, {"newText", big + "\n"}});
    REQUIRE(one.contains("error"));
    CHECK(one["error"]["data"]["kind"] == "ambiguous");
    CHECK(one["error"]["data"]["found"] == 4000);
    CHECK(one["error"]["data"]["lines"].size() == 1000);  // the first 1,000
  }
  const std::uint64_t peak_after = vm_kib(p.pid(), "VmHWM").value_or(0);
  MESSAGE("peak RSS " << peak_before / 1024 << " MiB before, " << peak_after / 1024 << " MiB after");
  // Each request holds its 256 KiB newText a few times over (the message,
  // the params, the normalised copy), never once per region (1 GiB here).
  // Under AddressSanitizer freed copies linger in its quarantine: hence 64 MiB.
  CHECK(peak_after < peak_before + 64 * 1024);
  CHECK(root.read("f.txt") == file);
  CHECK(p.ok("read_text", {{"path", "f.txt"}})["content"] == file);
}

TEST_CASE("file bytes held by the requests in flight stay within --max-file-bytes-in-flight") {
  TempDir root;
  constexpr int kFiles = 16;
  for (int i = 0; i < kFiles; ++i)
    root.write("f" + std::to_string(i) + ".txt", numbered_lines(4 * kMiB, "f" + std::to_string(i)));
  // One 4 MiB edit holds 12 MiB: the budget lets one run at a time.
  auto p = spawn_editd(root, {"--durability", "none", "--max-file-bytes-in-flight", std::to_string(16 * kMiB)});
  // Replies first (a connection's first request runs alone), then every
  // edit sent at once, each of its own file, so the chains hold none back.
  for (int i = 0; i < 4; ++i) REQUIRE(p.ok("fingerprint", {{"path", "f0.txt"}}).contains("fingerprint"));
  const std::uint64_t resident_before = vm_kib(p.pid(), "VmHWM").value_or(0);
  std::string batch;
  for (int i = 0; i < kFiles; ++i)
    batch += json{{"jsonrpc", "2.0"},
                  {"id", i},
                  {"method", "str_replace"},
                  {"params",
                   {{"path", "f" + std::to_string(i) + ".txt"},
                    {"oldText", "f" + std::to_string(i) + " line 1 "},
                    {"newText", "edited line 1 "}}}}
                 .dump() +
             "\n";
  p.write_raw(batch);
  for (int i = 0; i < kFiles; ++i) {  // in any order
    json r = p.read_message();
    INFO(r.dump().substr(0, 500));
    CHECK(r.contains("result"));
  }
  const std::uint64_t peak = vm_kib(p.pid(), "VmHWM").value_or(0);
  MESSAGE(kFiles << " pipelined edits of 4 MiB files: peak RSS " << resident_before / 1024
                 << " MiB before, " << peak / 1024 << " MiB after");
  for (int i = 0; i < kFiles; ++i)
    CHECK(root.read("f" + std::to_string(i) + ".txt").find("edited line 1 ") != std::string::npos);
#ifndef EDITD_SANITIZED  // a sanitizer's allocator keeps memory of its own
  // All at once they would hold 16 x 12 MiB; within the budget, about 16 MiB
  // and what the allocator keeps.
  CHECK(peak < resident_before + 48 * 1024);
#endif

  // A file that could never fit is refused at once, naming the option.
  auto small = spawn_editd(root, {"--max-file-bytes-in-flight", std::to_string(kMiB)});
  json e = small.fails("str_replace", {{"path", "f1.txt"}, {"oldText", "f1"}, {"newText", "x"}});
  CHECK(e["data"]["kind"] == "too_large");
  CHECK(e["message"].get<std::string>().find("--max-file-bytes-in-flight") != std::string::npos);
  CHECK(small.ok("write_text", {{"path", "small.txt"}, {"content", "fits\n"}}).contains("fingerprint"));
}
