// Changes made outside a connection, as its client sees them on the wire:
// whole connections in-process over streams in memory, sharing one server,
// on a real directory that the test also writes to as "another process".
// Each scenario runs with inotify and with stats alone (--outside-changes
// stat); nothing waits on time: a write that ended before a request was sent
// is seen by it.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>
#include <fstream>
#include <list>
#include <optional>

#include "backends/local/local_backend.h"
#include "edit/text/fingerprint.h"
#include "helpers/memory_stream.h"
#include "server/session/connection.h"
#include "server/session/server_context.h"

using namespace editd;
using nlohmann::json;

namespace {

namespace asio = boost::asio;

using editd::test::request;

// The test's context, which World shuts down itself: a connection still
// under way when a test ends is destroyed while the server it uses exists.
struct TestIo : asio::io_context {
  using asio::io_context::shutdown;
};

// A server over a temporary root, and its connections.
struct World {
  explicit World(OutsideChanges mode, bool require_read = false) {
    char dir[] = "/tmp/editd-outside-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    root = dir;
    write("a.txt", "one\ntwo\nthree\n");
    write("b.txt", "bee\n");
    LocalBackendOptions local;
    local.root = root.string();
    local.runtime_dir = (root / ".run").string();
    local.durable = false;
    auto backend = make_local_backend(local, pool);
    REQUIRE(backend.has_value());
    OpsOptions ops;
    ops.root = root.string();
    ops.require_read = require_read;
    SessionOptions session;
    session.outside_changes = mode;
    server.emplace(session, DoorOptions{}, ops, std::vector<asio::io_context*>{&io}, pool,
                   std::move(*backend));
  }
  ~World() {
    for (auto& c : clients) c.pipe->close_input();
    for (auto& c : clients) c.pipe->run_until([&] { return c.ended; });
    clients.clear();
    // What is still pending (a connection that did not end in time under a
    // sanitizer) is destroyed now, before the server it holds.
    io.shutdown();
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }

  struct Client {
    std::shared_ptr<test::Pipe> pipe;
    std::shared_ptr<Connection> connection;
    bool ended = false;
    int next_id = 1;

    // Sends a request and returns its one reply.
    json call(const std::string& method, json params = json::object()) {
      const int id = next_id++;
      pipe->feed(request(id, method, std::move(params)));
      REQUIRE(pipe->run_until([&] { return pipe->with_id(id).size() == 1; }));
      return pipe->with_id(id).front();
    }
  };

  Client& connect(json initialize = {{"protocolVersion", 1}}) {
    Client& c = clients.emplace_back();
    c.pipe = std::make_shared<test::Pipe>(io);
    c.connection = std::make_shared<Connection>(
        *server, io, std::make_unique<test::MemoryStream>(c.pipe), Connection::Settings{});
    asio::co_spawn(io, c.connection->run(), [&c](std::exception_ptr) { c.ended = true; });
    const json reply = c.call("initialize", std::move(initialize));
    REQUIRE(reply.contains("result"));
    CHECK_FALSE(reply["result"].contains("outsideChanges"));
    return c;
  }

  // Another process writes the file: a plain write, in place.
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream out(root / name, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  TestIo io;
  asio::thread_pool pool{2};
  std::filesystem::path root;
  std::optional<ServerContext> server;
  std::list<Client> clients;
};

std::string canonical_of(const World& w, const std::string& name) { return (w.root / name).string(); }

// The notices a plain reply carries (an empty array when none).
json notices(const json& reply) {
  if (reply.contains("result")) return reply["result"].value("outsideChanges", json::array());
  return reply["error"]["data"].value("outsideChanges", json::array());
}

const OutsideChanges kModes[] = {OutsideChanges::kWatch, OutsideChanges::kStat};

}  // namespace

TEST_CASE("a file read, then changed by another process, is told in the next reply, once") {
  for (OutsideChanges mode : kModes) {
    CAPTURE(static_cast<int>(mode));
    World w(mode);
    auto& a = w.connect();
    CHECK(notices(a.call("read_text", {{"path", "a.txt"}})).empty());
    w.write("a.txt", "one\n2\nthree\nfour\n");
    // Any request: here a read of another file.
    const json reply = a.call("read_text", {{"path", "b.txt"}});
    CHECK(reply["result"]["content"] == "bee\n");
    const json n = notices(reply);
    REQUIRE(n.size() == 1);
    CHECK(n[0]["path"] == "a.txt");
    CHECK(n[0]["fingerprint"] == fingerprint("one\n2\nthree\nfour\n"));
    CHECK(n[0]["previousFingerprint"] == fingerprint("one\ntwo\nthree\n"));
    const std::string diff = n[0]["diff"];
    CHECK(diff.find("--- a/a.txt\n+++ b/a.txt\n") != std::string::npos);
    CHECK(diff.find("-two\n+2\n") != std::string::npos);
    CHECK(diff.find("+four\n") != std::string::npos);
    CHECK(n[0]["diffTruncated"] == false);
    CHECK(n[0]["revertedOwnEdit"] == false);
    CHECK_FALSE(reply["result"].contains("outsideChangesTruncated"));
    // Told once.
    CHECK(notices(a.call("read_text", {{"path", "b.txt"}})).empty());
    CHECK(notices(a.call("fingerprint", {{"path", "a.txt"}})).empty());
    // A second change is a second notice, its diff against the first.
    w.write("a.txt", "one\n2\nthree\nfive\n");
    const json again = notices(a.call("fingerprint", {{"path", "b.txt"}}));
    REQUIRE(again.size() == 1);
    CHECK(again[0]["previousFingerprint"] == fingerprint("one\n2\nthree\nfour\n"));
    CHECK(std::string(again[0]["diff"]).find("-four\n+five\n") != std::string::npos);
  }
}

TEST_CASE("a file the connection never read or wrote is not told of") {
  for (OutsideChanges mode : kModes) {
    CAPTURE(static_cast<int>(mode));
    World w(mode);
    auto& a = w.connect();
    a.call("read_text", {{"path", "b.txt"}});
    w.write("a.txt", "changed\n");
    CHECK(notices(a.call("read_text", {{"path", "b.txt"}})).empty());
  }
}

TEST_CASE("a change that puts back what the connection's own edit replaced is a revert") {
  for (OutsideChanges mode : kModes) {
    CAPTURE(static_cast<int>(mode));
    World w(mode);
    auto& a = w.connect();
    a.call("read_text", {{"path", "a.txt"}});
    const json wrote = a.call("write_text", {{"path", "a.txt"}, {"content", "mine\n"}});
    REQUIRE(wrote.contains("result"));
    // Its own write is no outside change.
    CHECK(notices(wrote).empty());
    CHECK(notices(a.call("read_text", {{"path", "b.txt"}})).empty());
    // The user's editor saves its old buffer over it.
    w.write("a.txt", "one\ntwo\nthree\n");
    const json n = notices(a.call("read_text", {{"path", "b.txt"}}));
    REQUIRE(n.size() == 1);
    CHECK(n[0]["fingerprint"] == fingerprint("one\ntwo\nthree\n"));
    CHECK(n[0]["revertedOwnEdit"] == true);
    CHECK(std::string(n[0]["diff"]).find("-mine\n+one\n") != std::string::npos);
  }
}

TEST_CASE("another connection's edit is told to the connection that knew the file, not to its maker") {
  for (OutsideChanges mode : kModes) {
    CAPTURE(static_cast<int>(mode));
    World w(mode);
    auto& a = w.connect();
    auto& b = w.connect();
    a.call("read_text", {{"path", "a.txt"}});
    b.call("read_text", {{"path", "a.txt"}});
    const json edited =
        b.call("str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "TWO"}});
    REQUIRE(edited.contains("result"));
    CHECK(notices(edited).empty());
    CHECK(notices(b.call("read_text", {{"path", "b.txt"}})).empty());
    const json n = notices(a.call("read_text", {{"path", "b.txt"}}));
    REQUIRE(n.size() == 1);
    CHECK(n[0]["fingerprint"] == edited["result"]["fingerprint"]);
    CHECK(std::string(n[0]["diff"]).find("-two\n+TWO\n") != std::string::npos);
    CHECK(n[0]["revertedOwnEdit"] == false);
  }
}

TEST_CASE("an error reply carries the notices in error.data; a removed file has a null fingerprint") {
  for (OutsideChanges mode : kModes) {
    CAPTURE(static_cast<int>(mode));
    World w(mode);
    auto& a = w.connect();
    a.call("read_text", {{"path", "a.txt"}});
    std::filesystem::remove(w.root / "a.txt");
    const json reply = a.call("read_text", {{"path", "missing.txt"}});
    REQUIRE(reply.contains("error"));
    CHECK(reply["error"]["data"]["kind"] == "not_found");
    const json n = notices(reply);
    REQUIRE(n.size() == 1);
    CHECK(n[0]["path"] == "a.txt");
    CHECK(n[0]["fingerprint"].is_null());
    const std::string diff = n[0]["diff"];
    CHECK(diff.find("+++ /dev/null\n") != std::string::npos);
    CHECK(diff.find("\n-one\n-two\n-three\n") != std::string::npos);
    CHECK(notices(a.call("read_text", {{"path", "b.txt"}})).empty());
  }
}

TEST_CASE("MCP: a tool result tells the change in a text block and in structuredContent") {
  World w(OutsideChanges::kWatch);
  auto& a = w.connect({{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}});
  a.call("tools/call", {{"name", "read_text"}, {"arguments", {{"path", "a.txt"}}}});
  w.write("a.txt", "other\n");
  // ping cannot carry it: it waits for the next tool result.
  CHECK(a.call("ping")["result"] == json::object());
  const json reply =
      a.call("tools/call", {{"name", "read_text"}, {"arguments", {{"path", "b.txt"}}}});
  const json& content = reply["result"]["content"];
  REQUIRE(content.is_array());
  const std::string last = content.back()["text"];
  CHECK(last.rfind("Changed outside this session:\n", 0) == 0);
  CHECK(last.find("a.txt is now " + fingerprint("other\n")) != std::string::npos);
  CHECK(last.find("+other\n") != std::string::npos);
  // structuredContent too (read_text's keeps its members' order: verbatim text).
  const json& structured = reply["result"]["structuredContent"];
  REQUIRE(structured.contains("outsideChanges"));
  CHECK(structured["outsideChanges"][0]["path"] == "a.txt");
  CHECK(structured["content"] == "bee\n");
  const json next =
      a.call("tools/call", {{"name", "read_text"}, {"arguments", {{"path", "b.txt"}}}});
  for (const json& block : next["result"]["content"])
    CHECK(block.value("text", "").find("Changed outside") == std::string::npos);
}

TEST_CASE("--outside-changes off tells nothing") {
  World w(OutsideChanges::kOff);
  auto& a = w.connect();
  a.call("read_text", {{"path", "a.txt"}});
  w.write("a.txt", "changed\n");
  CHECK(notices(a.call("read_text", {{"path", "b.txt"}})).empty());
}

TEST_CASE("many changes at once: 32 in a reply, the rest in the next") {
  World w(OutsideChanges::kWatch);
  auto& a = w.connect();
  for (int i = 0; i < 40; ++i) w.write("f" + std::to_string(i) + ".txt", "x\n");
  for (int i = 0; i < 40; ++i) a.call("read_text", {{"path", "f" + std::to_string(i) + ".txt"}});
  for (int i = 0; i < 40; ++i) w.write("f" + std::to_string(i) + ".txt", "y\n");
  const json first = a.call("read_text", {{"path", "b.txt"}});
  CHECK(notices(first).size() == 32);
  CHECK(first["result"]["outsideChangesTruncated"] == true);
  const json second = a.call("read_text", {{"path", "b.txt"}});
  CHECK(notices(second).size() == 8);
  CHECK_FALSE(second["result"].contains("outsideChangesTruncated"));
  CHECK(notices(a.call("read_text", {{"path", "b.txt"}})).empty());
}

TEST_CASE("being told of a change is not reading it: --require-read refuses the edit until a read") {
  for (OutsideChanges mode : kModes) {
    CAPTURE(static_cast<int>(mode));
    World w(mode, /*require_read=*/true);
    auto& a = w.connect();
    a.call("read_text", {{"path", "a.txt"}});
    w.write("a.txt", "one\nTWO\nthree\n");
    // The edit was sent before the client saw the change: stale, and told why.
    const json edit =
        a.call("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "1"}});
    REQUIRE(edit.contains("error"));
    CHECK(edit["error"]["data"]["kind"] == "stale");
    CHECK(notices(edit).size() == 1);
    const json again =
        a.call("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "1"}});
    CHECK(again["error"]["data"]["kind"] == "stale");
    CHECK(notices(again).empty());
    a.call("read_text", {{"path", "a.txt"}});
    const json done =
        a.call("str_replace", {{"path", "a.txt"}, {"oldText", "one"}, {"newText", "1"}});
    CHECK(done.contains("result"));
    CHECK(notices(done).empty());
  }
}
