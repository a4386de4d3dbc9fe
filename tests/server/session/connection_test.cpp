// A whole connection in-process, over a stream in memory (no binary, no
// socket): one reply per request, cancellation, MCP's error shapes and the
// authentication rule, as the client sees them on the wire.
#include "server/session/connection.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>
#include <fstream>

#include "backends/local/local_backend.h"
#include "server/session/server_context.h"
#include "helpers/memory_stream.h"

using namespace editd;
using nlohmann::json;

namespace {

namespace asio = boost::asio;

using editd::test::request;

json notification(std::string method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", std::move(method)}, {"params", std::move(params)}};
}

json mcp_initialize(json id = 0) {
  return request(std::move(id), "initialize",
                 {{"protocolVersion", "2025-06-18"}, {"capabilities", json::object()}});
}

struct Served {
  explicit Served(DoorOptions doors = {}, bool needs_auth = false) {
    char dir[] = "/tmp/editd-session-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    root = dir;
    std::ofstream(root / "a.txt") << "one\n";
    LocalBackendOptions local;
    local.root = root.string();
    local.runtime_dir = (root / ".run").string();
    local.durable = false;
    auto backend = make_local_backend(local, pool);
    REQUIRE(backend.has_value());
    OpsOptions ops;
    ops.root = root.string();
    server.emplace(SessionOptions{}, doors, ops, std::vector<asio::io_context*>{&io}, pool,
                   std::move(*backend));
    if (needs_auth) {
      server->set_token("secret");
      REQUIRE(server->admit_unauthenticated());
    }
    pipe = std::make_shared<test::Pipe>(io);
    connection = std::make_shared<Connection>(
        *server, io, std::make_unique<test::MemoryStream>(pipe), Connection::Settings{needs_auth});
    asio::co_spawn(io, connection->run(), [this](std::exception_ptr e) {
      ended = true;
      failed = e != nullptr;
    });
  }
  ~Served() {
    pipe->close_input();
    pipe->run_until([&] { return ended; });
    connection.reset();
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }

  // Sends `message` and waits until the connection has written `count`
  // messages with its id.
  std::vector<json> exchange(const json& message, std::size_t count = 1) {
    pipe->feed(message);
    pipe->run_until([&] { return pipe->with_id(message["id"]).size() >= count; });
    return pipe->with_id(message["id"]);
  }
  // editd's call of `method` to the client, once it has been written.
  json await_call(const std::string& method) {
    json call;
    REQUIRE(pipe->run_until([&] {
      for (auto& m : pipe->messages())
        if (m.value("method", "") == method) call = m;
      return !call.is_null();
    }));
    return call;
  }
  // Answers a session/request_permission call: allow this write.
  void allow_once(const json& call) {
    pipe->feed(
        json{{"jsonrpc", "2.0"},
             {"id", call["id"]},
             {"result", {{"outcome", {{"outcome", "selected"}, {"optionId", "allow_once"}}}}}});
  }
  // The one message with `id` the connection has written: its reply.
  json reply(const json& id) {
    auto all = pipe->with_id(id);
    REQUIRE(all.size() == 1);
    return all.front();
  }

  asio::io_context io;
  asio::thread_pool pool{2};
  std::filesystem::path root;
  std::optional<ServerContext> server;
  std::shared_ptr<test::Pipe> pipe;
  std::shared_ptr<Connection> connection;
  bool ended = false;
  bool failed = false;
};

}  // namespace

TEST_CASE("every request gets exactly one reply: a result, a failed handler, an unknown method") {
  Served s;
  const auto mistakes = ReplyOnce::mistakes();
  s.exchange(request(1, "initialize", {{"protocolVersion", 1}}));
  CHECK(s.reply(1).contains("result"));
  s.exchange(request(2, "read_text", {{"path", "a.txt"}}));
  CHECK(s.reply(2)["result"]["content"] == "one\n");
  s.exchange(request(3, "read_text", {{"path", "missing.txt"}}));
  CHECK(s.reply(3)["error"]["data"]["kind"] == "not_found");
  s.exchange(request(4, "no_such_method"));
  CHECK(s.reply(4)["error"]["code"] == -32601);
  s.exchange(request(5, "read_text", {{"path", 5}}));
  CHECK(s.reply(5)["error"]["code"] == -32602);
  // Pipelined, the same id twice: each request its own reply.
  s.pipe->feed(request(6, "fingerprint", {{"path", "a.txt"}}));
  s.exchange(request(6, "fingerprint", {{"path", "a.txt"}}), 2);
  // Give a second reply time to show, if there were one.
  s.pipe->run_until([] { return false; }, std::chrono::milliseconds(50));
  CHECK(s.pipe->with_id(6).size() == 2);
  for (int id = 1; id <= 5; ++id) CHECK(s.pipe->with_id(id).size() == 1);
  CHECK(ReplyOnce::mistakes() == mistakes);
}

TEST_CASE("$/cancel_request cancels a request waiting for the client: one reply, cancelled") {
  DoorOptions doors;
  doors.approve = Approval::kAsk;
  Served s(doors);
  s.exchange(request(1, "initialize", {{"protocolVersion", 1}}));
  // The write asks the client for permission: editd's call waits.
  s.pipe->feed(request(2, "write_text", {{"path", "a.txt"}, {"content", "two\n"}}));
  const json call = s.await_call("session/request_permission");
  s.pipe->feed(notification("$/cancel_request", {{"id", 2}}));
  s.allow_once(call);
  REQUIRE(s.pipe->run_until([&] { return s.pipe->with_id(2).size() == 1; }));
  CHECK(s.reply(2)["error"]["data"]["kind"] == "cancelled");
  std::ifstream in(s.root / "a.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "one\n");
}

TEST_CASE("MCP: a request the client cancelled gets no answer, and the connection goes on") {
  DoorOptions doors;
  doors.approve = Approval::kAsk;
  Served s(doors);
  s.exchange(request(0, "initialize",
                     {{"protocolVersion", "2025-06-18"},
                      {"capabilities", {{"elicitation", json::object()}}}}));
  s.pipe->feed(
      request(2, "tools/call",
              {{"name", "write_text"}, {"arguments", {{"path", "a.txt"}, {"content", "two\n"}}}}));
  const json call = s.await_call("elicitation/create");
  s.pipe->feed(notification("notifications/cancelled", {{"requestId", 2}}));
  // The wait ends at once: editd tells the client its question is abandoned.
  const json abandoned = s.await_call("notifications/cancelled");
  CHECK(abandoned["params"]["requestId"] == call["id"]);
  CHECK(abandoned["params"]["reason"] == "cancelled");
  // A late answer is ignored.
  s.pipe->feed(json{{"jsonrpc", "2.0"}, {"id", call["id"]}, {"result", {{"action", "accept"}}}});
  s.exchange(request(3, "ping"));
  CHECK(s.reply(3)["result"] == json::object());
  s.pipe->run_until([] { return false; }, std::chrono::milliseconds(50));
  REQUIRE(call["id"] != 2);
  CHECK(s.pipe->with_id(2).empty());
  std::ifstream in(s.root / "a.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "one\n");
}

TEST_CASE("MCP's error shapes: standard codes, data.kind kept, failed tools as isError results") {
  Served s;
  const json init = s.exchange(mcp_initialize()).front();
  CHECK(init["result"]["protocolVersion"] == "2025-06-18");
  // A method MCP does not have: method not found.
  s.exchange(request(1, "read_text", {{"path", "a.txt"}}));
  CHECK(s.reply(1)["error"]["code"] == -32601);
  CHECK(s.reply(1)["error"]["data"]["kind"] == "method_not_found");
  // A second initialize: invalid request, in MCP's codes.
  s.exchange(mcp_initialize(2));
  CHECK(s.reply(2)["error"]["code"] == -32600);
  // An unknown tool: invalid params naming it.
  s.exchange(request(3, "tools/call", {{"name", "nope"}}));
  CHECK(s.reply(3)["error"]["code"] == -32602);
  CHECK(s.reply(3)["error"]["data"]["tool"] == "nope");
  s.exchange(request(4, "tools/call", json::object()));
  CHECK(s.reply(4)["error"]["code"] == -32602);
  // A failed operation: a result with isError and the error as text.
  s.exchange(
      request(5, "tools/call", {{"name", "read_text"}, {"arguments", {{"path", "missing.txt"}}}}));
  const json failed = s.reply(5)["result"];
  CHECK(failed["isError"] == true);
  CHECK(failed["content"][0]["type"] == "text");
  CHECK(failed["content"][0]["text"].get<std::string>().find("not_found") != std::string::npos);
  // Bad arguments are a failed call too.
  s.exchange(request(6, "tools/call", {{"name", "read_text"}, {"arguments", {{"nope", 1}}}}));
  CHECK(s.reply(6)["result"]["isError"] == true);
  // editd's own kinds never go out as their codes: internal, data.kind kept.
  s.exchange(request(7, "tools/call", {{"name", "read_text"}, {"arguments", {{"path", "a.txt"}}}}));
  CHECK(s.reply(7)["result"]["isError"] == false);
  CHECK(s.reply(7)["result"]["structuredContent"]["content"] == "one\n");
}

TEST_CASE("TCP: three lines without authenticating close the connection") {
  Served s(DoorOptions{}, true);
  s.exchange(request(1, "read_text", {{"path", "a.txt"}}));
  CHECK(s.reply(1)["error"]["data"]["kind"] == "unauthenticated");
  CHECK(s.reply(1)["error"]["data"]["failures"] == 1);
  s.exchange(request(2, "initialize", {{"protocolVersion", 1}, {"authToken", "wrong"}}));
  CHECK(s.reply(2)["error"]["data"]["failures"] == 2);
  s.exchange(request(3, "initialize", {{"protocolVersion", 1}}));
  CHECK(s.reply(3)["error"]["data"]["failures"] == 3);
  CHECK(s.reply(3)["error"]["data"]["maxFailures"] == 3);
  REQUIRE(s.pipe->run_until([&] { return s.ended; }));
  CHECK_FALSE(s.failed);
  // Nothing more is read: a valid initialize now gets no answer.
  s.pipe->feed(request(4, "initialize", {{"protocolVersion", 1}, {"authToken", "secret"}}));
  s.pipe->run_until([] { return false; }, std::chrono::milliseconds(50));
  CHECK(s.pipe->with_id(4).empty());
}

TEST_CASE("TCP: the token authenticates, and lines are no longer limited as before") {
  Served s(DoorOptions{}, true);
  s.exchange(request(1, "initialize", {{"protocolVersion", 1}, {"authToken", "secret"}}));
  CHECK(s.reply(1).contains("result"));
  const std::string big(100 * 1024, 'x');
  s.exchange(request(2, "write_text", {{"path", "b.txt"}, {"content", big}}));
  CHECK(s.reply(2).contains("result"));
}
