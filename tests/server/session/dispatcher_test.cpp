// The dispatcher's guarantees in isolation: one reply per request, the cancel
// table, and the bounded table of calls to the client.
#include "server/session/dispatcher.h"

#include <doctest/doctest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>
#include <vector>

using namespace editd;
using nlohmann::json;

namespace {

namespace asio = boost::asio;

// A call started on `io`; `result` is set once it completes.
void start_call(asio::io_context& io, OutgoingCalls& calls, std::string method,
                std::chrono::milliseconds timeout, std::optional<Result<json>>& result) {
  asio::co_spawn(
      io,
      [&calls, method, timeout, &result]() -> asio::awaitable<void> {
        Result<json> r = co_await calls.call(method, json::object(), timeout);
        result = std::move(r);
      },
      asio::detached);
}

protocol::Incoming answer(std::int64_t id, json result) {
  protocol::Incoming in;
  in.type = protocol::Incoming::Type::kResponse;
  in.id = id;
  in.result = std::move(result);
  return in;
}

}  // namespace

TEST_CASE("a request's second reply is not sent, and a missing one is noticed") {
  std::vector<json> sent;
  // The mistakes provoked here are counted, not asserted (debug builds).
  struct Quiet {
    bool was = ReplyOnce::assert_on_mistake(false);
    ~Quiet() { ReplyOnce::assert_on_mistake(was); }
  } quiet;
  const auto before = ReplyOnce::mistakes();
  {
    ReplyOnce once("read_text", "1", [&](const json& r) { sent.push_back(r); });
    CHECK_FALSE(once.done());
    once.reply(json{{"id", 1}, {"result", 1}});
    CHECK(once.done());
    once.reply(json{{"id", 1}, {"result", 2}});
  }
  REQUIRE(sent.size() == 1);
  CHECK(sent[0]["result"] == 1);
  CHECK(ReplyOnce::mistakes() == before + 1);
  {
    ReplyOnce dropped("read_text", "2", [&](const json& r) { sent.push_back(r); });
  }
  CHECK(ReplyOnce::mistakes() == before + 2);
  {
    ReplyOnce withheld("tools/call", "3", [&](const json& r) { sent.push_back(r); });
    withheld.withhold();
  }
  CHECK(ReplyOnce::mistakes() == before + 2);
  CHECK(sent.size() == 1);
}

TEST_CASE(
    "the client cancels by requestId or id every request with it that has not begun writing") {
  CancelTable table;
  auto a = table.add(7);
  auto b = table.add(7);
  auto c = table.add("7");
  auto d = table.add(8);
  CancelTable::state(b)->committed = true;
  table.cancel_by_client({{"requestId", 7}});
  CHECK(CancelTable::state(a)->cancelled);
  CHECK(CancelTable::state(a)->by_client);
  CHECK_FALSE(CancelTable::state(b)->cancelled);
  CHECK_FALSE(CancelTable::state(c)->cancelled);  // "7" is another id than 7
  CHECK_FALSE(CancelTable::state(d)->cancelled);
  table.cancel_by_client({{"id", 8}});
  CHECK(CancelTable::state(d)->cancelled);
  table.cancel_by_client({{"requestId", 99}});
  table.cancel_by_client(json::object());
  CHECK(CancelTable::is_cancel("$/cancel_request"));
  CHECK(CancelTable::is_cancel("$/cancelRequest"));
  CHECK(CancelTable::is_cancel("notifications/cancelled"));
  CHECK_FALSE(CancelTable::is_cancel("notifications/initialized"));
  table.remove(a);
  CHECK(table.size() == 3);
}

TEST_CASE(
    "shutdown cancels the requests in flight that have not begun writing, not by the client") {
  CancelTable table;
  auto a = table.add(1);
  auto b = table.add(2);
  CancelTable::state(b)->committed = true;
  table.cancel_uncommitted();
  CHECK(CancelTable::state(a)->cancelled);
  CHECK_FALSE(CancelTable::state(a)->by_client);
  CHECK_FALSE(CancelTable::state(b)->cancelled);
}

TEST_CASE("an answer completes the call with its id; unknown ids are ignored") {
  asio::io_context io;
  std::vector<json> sent;
  OutgoingCalls calls(io, 4, [&](const json& r) { sent.push_back(r); });
  std::optional<Result<json>> first, second;
  start_call(io, calls, "fs/read_text_file", std::chrono::seconds(10), first);
  start_call(io, calls, "fs/write_text_file", std::chrono::seconds(10), second);
  io.run_for(std::chrono::milliseconds(20));
  REQUIRE(sent.size() == 2);
  CHECK(sent[0]["method"] == "fs/read_text_file");
  CHECK(sent[0]["jsonrpc"] == "2.0");
  CHECK(calls.size() == 2);
  CHECK(calls.expects(sent[1]["id"]));
  CHECK_FALSE(calls.expects(99));
  CHECK_FALSE(calls.expects("1"));

  CHECK_FALSE(calls.answer(answer(99, json{{"content", "x"}})));
  CHECK(calls.answer(answer(sent[1]["id"].get<std::int64_t>(), json::object())));
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
  CHECK_FALSE(first.has_value());
  REQUIRE(second.has_value());
  CHECK(second->has_value());

  protocol::Incoming failed = answer(sent[0]["id"].get<std::int64_t>(), nullptr);
  failed.error = Error(ErrorKind::kDelegateFailed, "no", {{"code", -32603}});
  CHECK(calls.answer(failed));
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
  REQUIRE(first.has_value());
  REQUIRE_FALSE(first->has_value());
  CHECK(first->error().data["code"] == -32603);
  CHECK(calls.empty());
}

TEST_CASE("the call past the cap fails at once with delegate_failed and sends nothing") {
  asio::io_context io;
  std::vector<json> sent;
  OutgoingCalls calls(io, 2, [&](const json& r) { sent.push_back(r); });
  std::optional<Result<json>> a, b, c;
  start_call(io, calls, "fs/read_text_file", std::chrono::seconds(10), a);
  start_call(io, calls, "fs/read_text_file", std::chrono::seconds(10), b);
  start_call(io, calls, "session/request_permission", std::chrono::seconds(10), c);
  io.run_for(std::chrono::milliseconds(20));
  CHECK(sent.size() == 2);
  CHECK(calls.size() == 2);
  CHECK_FALSE(a.has_value());
  REQUIRE(c.has_value());
  REQUIRE_FALSE(c->has_value());
  CHECK(c->error().kind == ErrorKind::kDelegateFailed);
  CHECK(c->error().data["limit"] == 2);
  CHECK(c->error().data["method"] == "session/request_permission");

  // Once one is answered, there is room again.
  CHECK(calls.answer(answer(sent[0]["id"].get<std::int64_t>(), json::object())));
  std::optional<Result<json>> d;
  start_call(io, calls, "fs/read_text_file", std::chrono::seconds(10), d);
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
  CHECK(sent.size() == 3);
  CHECK_FALSE(d.has_value());
  calls.close();
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
}

TEST_CASE("a call times out with timeout, and its late answer is ignored") {
  asio::io_context io;
  std::vector<json> sent;
  OutgoingCalls calls(io, 4, [&](const json& r) { sent.push_back(r); });
  std::optional<Result<json>> r;
  start_call(io, calls, "fs/read_text_file", std::chrono::milliseconds(10), r);
  io.run_for(std::chrono::milliseconds(200));
  REQUIRE(r.has_value());
  REQUIRE_FALSE(r->has_value());
  CHECK(r->error().kind == ErrorKind::kTimeout);
  CHECK(r->error().data["timeoutMs"] == 10);
  CHECK(r->error().data["method"] == "fs/read_text_file");
  CHECK(calls.empty());
  REQUIRE(sent.size() == 1);
  CHECK_FALSE(calls.answer(answer(sent[0]["id"].get<std::int64_t>(), json::object())));
  CHECK_FALSE(r->has_value());
}

TEST_CASE("closing fails every waiting call with delegate_failed, and every later one") {
  asio::io_context io;
  std::vector<json> sent;
  OutgoingCalls calls(io, 4, [&](const json& r) { sent.push_back(r); });
  std::optional<Result<json>> a, b;
  start_call(io, calls, "fs/read_text_file", std::chrono::seconds(10), a);
  io.run_for(std::chrono::milliseconds(20));
  calls.close();
  CHECK_FALSE(a.has_value());  // posted, not run inside close()
  start_call(io, calls, "fs/read_text_file", std::chrono::seconds(10), b);
  io.restart();
  io.run_for(std::chrono::milliseconds(20));
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(a->error().kind == ErrorKind::kDelegateFailed);
  CHECK(a->error().message == "the client connection closed");
  CHECK(b->error().kind == ErrorKind::kDelegateFailed);
  CHECK(sent.size() == 1);
}
