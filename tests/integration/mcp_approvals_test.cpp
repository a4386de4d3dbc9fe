// --approve ask over MCP through the real binary: each mutation asks the user
// once with elicitation/create before anything is written; decline, cancel,
// an error answer and no answer write nothing; a client without the
// capability gets every mutation refused; reads and dry runs never ask.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "helpers/mcp_session.h"

using namespace editd::test;

namespace {

// Initializes `p` as an MCP host whose capabilities are `caps`.
void initialize_with(Process& p, json caps) {
  json params = mcp_initialize_params("2025-11-25");
  params["capabilities"] = std::move(caps);
  REQUIRE(p.ok("initialize", params)["protocolVersion"] == "2025-11-25");
  p.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}

json form_elicitation() { return {{"elicitation", {{"form", json::object()}}}}; }

void send_call(Process& p, const json& id, const std::string& tool, json arguments) {
  p.send({{"jsonrpc", "2.0"},
          {"id", id},
          {"method", "tools/call"},
          {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}});
}

// The next elicitation/create editd sends; other messages are kept.
json await_question(Process& p) {
  while (true) {
    json m = p.read_message();
    if (m.value("method", "") == "elicitation/create") return m;
    p.other.push_back(std::move(m));
  }
}

void answer(Process& p, const json& question, json result) {
  p.send({{"jsonrpc", "2.0"}, {"id", question["id"]}, {"result", std::move(result)}});
}

std::size_t questions_in(const std::vector<json>& messages) {
  std::size_t n = 0;
  for (const json& m : messages)
    if (m.value("method", "") == "elicitation/create") ++n;
  return n;
}

std::string message_of(const json& question) {
  return question["params"]["message"].get<std::string>();
}

}  // namespace

TEST_CASE("MCP --approve ask: accept writes, after one question showing the path and the diff") {
  TempDir root;
  root.write("a.txt", "one\ntwo\n");
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  send_call(p, "w", "str_replace", {{"path", "a.txt"}, {"oldText", "two"}, {"newText", "TWO"}});
  const json q = await_question(p);
  CHECK(root.read("a.txt") == "one\ntwo\n");  // nothing written while it waits
  const std::string msg = message_of(q);
  CHECK(msg.find("str_replace") != std::string::npos);
  CHECK(msg.find("changed \"a.txt\" (+1 -1)") != std::string::npos);
  CHECK(msg.find("\n-two\n+TWO\n") != std::string::npos);
  // A flat object schema with one boolean, on by default.
  const json& schema = q["params"]["requestedSchema"];
  CHECK(schema["type"] == "object");
  CHECK(schema["properties"]["approve"]["type"] == "boolean");
  CHECK(schema["properties"]["approve"]["default"] == true);
  answer(p, q, {{"action", "accept"}, {"content", {{"approve", true}}}});
  json r = p.response_to("w")["result"];
  CHECK(r["isError"] == false);
  CHECK(root.read("a.txt") == "one\nTWO\n");

  // Accepted without content (a host's own auto-approval) approves too.
  send_call(p, "w2", "write_text", {{"path", "b.txt"}, {"content", "new\n"}});
  const json q2 = await_question(p);
  CHECK(message_of(q2).find("new \"b.txt\" (+1 -0)") != std::string::npos);
  answer(p, q2, {{"action", "accept"}});
  CHECK(p.response_to("w2")["result"]["isError"] == false);
  CHECK(root.read("b.txt") == "new\n");
}

TEST_CASE("MCP --approve ask: decline, cancel, approve off and an error answer write nothing") {
  TempDir root;
  const std::string before = "keep\r\nme\r\n";
  root.write("a.txt", before);
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  struct Case {
    json answer;  // a result, or {"error": ...}
    std::string reason;
  };
  const std::vector<Case> cases = {
      {{{"action", "decline"}}, "declined"},
      {{{"action", "cancel"}}, "cancelled"},
      {{{"action", "accept"}, {"content", {{"approve", false}}}}, "declined"},
      {{{"error", {{"code", -32601}, {"message", "Method not found"}}}}, "error"},
      {{{"action", "maybe"}}, "invalid_answer"},
  };
  int n = 0;
  for (const Case& c : cases) {
    CAPTURE(c.reason);
    const std::string id = "c" + std::to_string(n++);
    send_call(p, id, "write_text", {{"path", "a.txt"}, {"content", "gone\n"}});
    const json q = await_question(p);
    if (c.answer.contains("error"))
      p.send({{"jsonrpc", "2.0"}, {"id", q["id"]}, {"error", c.answer["error"]}});
    else
      answer(p, q, c.answer);
    json r = p.response_to(id)["result"];
    CHECK(r["isError"] == true);
    const std::string text = text_of(r);
    CHECK(text.rfind("Error (denied):", 0) == 0);
    CHECK(text.find("nothing was written") != std::string::npos);
    CHECK(text.find("\"reason\":\"" + c.reason + "\"") != std::string::npos);
    CHECK(root.read("a.txt") == before);
  }
}

TEST_CASE("MCP --approve ask: no answer within --approve-timeout is a timeout, and the client is told") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root, {"--approve", "ask", "--approve-timeout", "0.2"});
  initialize_with(p, form_elicitation());
  send_call(p, "t", "write_text", {{"path", "a.txt"}, {"content", "y\n"}});
  const json q = await_question(p);
  json r = p.response_to("t")["result"];
  CHECK(r["isError"] == true);
  CHECK(text_of(r).find("\"reason\":\"timeout\"") != std::string::npos);
  CHECK(root.read("a.txt") == "x\n");
  bool told = false;
  for (const json& m : p.other)
    if (m.value("method", "") == "notifications/cancelled")
      told = m["params"]["requestId"] == q["id"] && m["params"]["reason"] == "timeout";
  CHECK(told);
  // A late answer is ignored, and the connection goes on.
  answer(p, q, {{"action", "accept"}});
  CHECK(p.ok("ping", json::object()) == json::object());
  CHECK(root.read("a.txt") == "x\n");
}

TEST_CASE("MCP --approve ask: a tools/call cancelled while it waits ends the wait, writes nothing") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  send_call(p, "k", "write_text", {{"path", "a.txt"}, {"content", "y\n"}});
  const json q = await_question(p);
  p.send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "k"}}}});
  // editd abandons its question (the host may close its dialog)...
  json told;
  while (told.is_null()) {
    json m = p.read_message();
    CHECK_FALSE(m.contains("id"));  // ... and the cancelled call gets no answer
    if (m.value("method", "") == "notifications/cancelled") told = m;
  }
  CHECK(told["params"]["requestId"] == q["id"]);
  CHECK(told["params"]["reason"] == "cancelled");
  CHECK(p.ok("ping", json::object()) == json::object());
  CHECK(root.read("a.txt") == "x\n");
}

TEST_CASE("MCP --approve ask: a huge change's question is cut, with a note; controls show escaped") {
  TempDir root;
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "line " + std::to_string(i) + " of a long new file\n";
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  send_call(p, "h", "write_text", {{"path", "big.txt"}, {"content", big}});
  const json q = await_question(p);
  const std::string msg = message_of(q);
  CHECK(msg.size() < 12 * 1024);
  CHECK(msg.find("new \"big.txt\" (+5000 -0)") != std::string::npos);
  CHECK(msg.find("+line 0 of a long new file\n") != std::string::npos);
  CHECK(msg.find("line 4999") == std::string::npos);
  CHECK(msg.find("[diff cut here: ") != std::string::npos);
  CHECK(msg.find("more lines (") != std::string::npos);
  answer(p, q, {{"action", "decline"}});
  CHECK(p.response_to("h")["result"]["isError"] == true);
  CHECK_FALSE(root.exists("big.txt"));

  // Text that would act on a terminal is shown as data.
  send_call(p, "e", "write_text",
            {{"path", "e.txt"}, {"content", "red \x1b[31m\xe2\x80\xae" "gnp.exe\n"}});
  const std::string shown = message_of(await_question(p));
  CHECK(shown.find('\x1b') == std::string::npos);
  CHECK(shown.find("\xe2\x80\xae") == std::string::npos);
  CHECK(shown.find("+red \\x1b[31m\\u202egnp.exe") != std::string::npos);
}

TEST_CASE("MCP --approve ask: reads and dry runs never ask") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  CHECK(call(p, "read_text", {{"path", "a.txt"}})["isError"] == false);
  CHECK(call(p, "fingerprint", {{"path", "a.txt"}})["isError"] == false);
  json dry = call(p, "write_text", {{"path", "a.txt"}, {"content", "y\n"}, {"dryRun", true}});
  CHECK(dry["isError"] == false);
  json dry_patch = call(p, "apply_patch",
                        {{"patch", "*** Begin Patch\n*** Add File: n.txt\n+n\n*** End Patch\n"},
                         {"dryRun", true}});
  CHECK(dry_patch["isError"] == false);
  CHECK(questions_in(p.other) == 0);
  CHECK(root.read("a.txt") == "x\n");
  CHECK_FALSE(root.exists("n.txt"));
}

TEST_CASE("MCP --approve ask: a multi-file apply_patch asks once, listing every file") {
  TempDir root;
  root.write("a.txt", "a\n");
  root.write("gone.txt", "bye\n");
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  const std::string patch =
      "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new.txt\n+n\n"
      "*** Delete File: gone.txt\n*** End Patch\n";
  send_call(p, "m", "apply_patch", {{"patch", patch}});
  const json q = await_question(p);
  const std::string msg = message_of(q);
  CHECK(msg.find("3 files:") != std::string::npos);
  CHECK(msg.find("changed \"a.txt\"") != std::string::npos);
  CHECK(msg.find("new \"new.txt\"") != std::string::npos);
  CHECK(msg.find("removed \"gone.txt\"") != std::string::npos);
  answer(p, q, {{"action", "accept"}, {"content", {{"approve", true}}}});
  json r = p.response_to("m")["result"];
  CHECK(r["isError"] == false);
  CHECK(questions_in(p.other) == 0);  // no second question
  CHECK(root.read("a.txt") == "A\n");
  CHECK(root.read("new.txt") == "n\n");
  CHECK_FALSE(root.exists("gone.txt"));
}

TEST_CASE("MCP --approve ask: a client without form elicitation gets every mutation refused") {
  TempDir root;
  root.write("a.txt", "x\n");
  for (const json& caps : {json::object(), json{{"elicitation", {{"url", json::object()}}}}}) {
    CAPTURE(caps.dump());
    auto p = spawn_editd(root, {"--approve", "ask"});
    initialize_with(p, caps);
    json r = call(p, "write_text", {{"path", "a.txt"}, {"content", "y\n"}});
    CHECK(r["isError"] == true);
    const std::string text = text_of(r);
    CHECK(text.rfind("Error (denied):", 0) == 0);
    CHECK(text.find("cannot ask its user") != std::string::npos);
    CHECK(text.find("\"reason\":\"no_elicitation\"") != std::string::npos);
    CHECK(root.read("a.txt") == "x\n");
    CHECK(questions_in(p.other) == 0);
    // Reads and dry runs go on.
    CHECK(call(p, "read_text", {{"path", "a.txt"}})["isError"] == false);
    CHECK(call(p, "write_text", {{"path", "a.txt"}, {"content", "y\n"}, {"dryRun", true}})["isError"] ==
          false);
  }
  // 2025-06-18's shape, `elicitation: {}`, offers forms.
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, {{"elicitation", json::object()}});
  send_call(p, "o", "write_text", {{"path", "a.txt"}, {"content", "y\n"}});
  answer(p, await_question(p), {{"action", "accept"}});
  CHECK(p.response_to("o")["result"]["isError"] == false);
  CHECK(root.read("a.txt") == "y\n");
}

TEST_CASE("MCP --approve ask: questions waiting at once are bounded per connection") {
  TempDir root;
  constexpr int kCalls = 9;  // one more than mcp::kMaxWaitingApprovals
  for (int i = 0; i < kCalls; ++i) root.write("f" + std::to_string(i) + ".txt", "old\n");
  auto p = spawn_editd(root, {"--approve", "ask"});
  initialize_with(p, form_elicitation());
  // Small replies first: a new connection runs few requests at once until
  // its replies are known to be small (server/session/transport.h).
  for (int i = 0; i < 30; ++i) p.ok("ping", json::object());
  for (int i = 0; i < kCalls; ++i)
    send_call(p, "b" + std::to_string(i), "write_text",
              {{"path", "f" + std::to_string(i) + ".txt"}, {"content", "x\n"}});
  std::vector<json> questions;
  json busy;
  while (questions.size() < kCalls - 1 || busy.is_null()) {
    json m = p.read_message();
    if (m.value("method", "") == "elicitation/create")
      questions.push_back(m);
    else if (m.contains("result"))
      busy = m;
  }
  CHECK(busy["result"]["isError"] == true);
  CHECK(text_of(busy["result"]).find("\"reason\":\"busy\"") != std::string::npos);
  for (const json& q : questions) answer(p, q, {{"action", "decline"}});
  // The declined calls' replies, in whatever order they end.
  std::map<std::string, json> replies;
  while (replies.size() < kCalls - 1) {
    json m = p.read_message();
    if (m.contains("id") && m["id"].is_string() && !m.contains("method"))
      replies[m["id"].get<std::string>()] = m;
  }
  for (int i = 0; i < kCalls; ++i) {
    const std::string id = "b" + std::to_string(i);
    if (busy["id"] != id) {
      REQUIRE(replies.count(id) == 1);
      CHECK(replies[id]["result"]["isError"] == true);
    }
    CHECK(root.read("f" + std::to_string(i) + ".txt") == "old\n");
  }
}
