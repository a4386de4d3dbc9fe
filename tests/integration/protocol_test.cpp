// The JSON-RPC surface of the real binary: framing, ids, error codes and kinds.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "helpers/process.h"

using namespace editd::test;

TEST_CASE("initialize answers protocol version 1 and lists every method") {
  TempDir root;
  auto p = spawn_editd(root);
  json r = p.ok("initialize", {{"protocolVersion", 1}, {"clientCapabilities", json::object()}});
  CHECK(r["protocolVersion"] == 1);
  CHECK(r["agentInfo"]["name"] == "editd");
  CHECK(r["authMethods"] == json::array());
  json methods = r["agentCapabilities"]["_meta"]["editd"]["methods"];
  for (const char* m : {"read_text", "write_text", "create", "insert", "str_replace", "fingerprint"})
    CHECK_MESSAGE(std::find(methods.begin(), methods.end(), m) != methods.end(), m);
}

TEST_CASE("initialize answers 1 to an unsupported version and refuses a missing one") {
  TempDir root;
  // Refused ones first: one initialize succeeds per connection.
  auto p = spawn_editd(root);
  json e = p.fails("initialize", json::object());
  CHECK(e["code"] == -32602);
  CHECK(e["data"]["param"] == "protocolVersion");
  json s = p.fails("initialize", {{"protocolVersion", true}});
  CHECK(s["data"]["kind"] == "invalid_params");
  CHECK(p.ok("initialize", {{"protocolVersion", 99}})["protocolVersion"] == 1);
  // A string is MCP's protocolVersion (mcp_test.cpp), never an error.
  auto mcp = spawn_editd(root);
  CHECK(mcp.ok("initialize", {{"protocolVersion", "1"}})["protocolVersion"] == "2025-11-25");
}

TEST_CASE("an unparsable line is a parse error with id null and the connection keeps working") {
  TempDir root;
  root.write("a.txt", "hi\n");
  auto p = spawn_editd(root);
  p.write_raw("{not json\n");
  json m = p.read_message();
  CHECK(m["id"].is_null());
  CHECK(m["error"]["code"] == -32700);
  CHECK(m["error"]["data"]["kind"] == "parse_error");
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "hi\n");
}

TEST_CASE("batches, non-objects and bad ids are invalid requests") {
  TempDir root;
  auto p = spawn_editd(root);
  p.write_raw("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read_text\"}]\n");
  json m = p.read_message();
  CHECK(m["error"]["code"] == -32600);
  CHECK(m["id"].is_null());
  p.write_raw("42\n");
  CHECK(p.read_message()["error"]["data"]["kind"] == "invalid_request");
  p.write_raw("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"read_text\"}\n");
  m = p.read_message();
  CHECK(m["error"]["code"] == -32600);
  CHECK(m["id"].is_null());
  // A readable id is echoed on an invalid request.
  p.write_raw("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"read_text\"}\n");
  m = p.read_message();
  CHECK(m["error"]["code"] == -32600);
  CHECK(m["id"] == 7);
}

TEST_CASE("ids come back exactly, type included") {
  TempDir root;
  root.write("a.txt", "x");
  auto p = spawn_editd(root);
  p.write_raw("{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"fingerprint\",\"params\":{\"path\":\"a.txt\"}}\n");
  std::string line = *p.read_line();
  CHECK(line.find("\"id\":9007199254740993") != std::string::npos);
  for (json id : {json(""), json(-5), json("abc"), json(1.5)}) {
    p.send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "fingerprint"}, {"params", {{"path", "a.txt"}}}});
    json m = p.read_message();
    CHECK(m["id"] == id);
    CHECK(m["id"].type() == id.type());
    CHECK(m.size() == 3);  // jsonrpc, id, result
  }
}

namespace {

// Number ids a 64-bit integer or a double would not write back as sent (and 1.0, which it does).
const std::vector<std::string> kOddIds = {"100000000000000000000000000000",
                                          "-9223372036854775809",
                                          "18446744073709551616",
                                          "1.0",
                                          "1e3",
                                          "1E+3",
                                          "-0",
                                          "0.10",
                                          "1.5e-7"};

// The reply line to `line` carries `id` as its very text.
void echoes(Process& p, const std::string& line, const std::string& id) {
  CAPTURE(line);
  p.write_raw(line + "\n");
  const std::optional<std::string> reply = p.read_line();
  REQUIRE(reply.has_value());
  CAPTURE(*reply);
  CHECK(reply->find("\"id\":" + id + ",") != std::string::npos);
}

}  // namespace

TEST_CASE("number ids beyond 64 bits, with a fraction or an exponent, or -0 come back as sent") {
  TempDir root;
  root.write("a.txt", "x");
  SUBCASE("plain JSON-RPC and ACP: results, errors, invalid requests, too deep") {
    auto p = spawn_editd(root);
    for (const std::string& id : kOddIds) {
      echoes(p,
             R"({"jsonrpc":"2.0","id":)" + id +
                 R"(,"method":"fingerprint","params":{"path":"a.txt"}})",
             id);
      echoes(p, R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"read_text","params":{}})", id);
      echoes(p, R"({"jsonrpc":"1.0","id":)" + id + R"(,"method":"read_text"})", id);
      echoes(
          p,
          R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"read_text","params":{"path":"\ud800"}})",
          id);
      echoes(p,
             R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"m","params":{"a":)" +
                 std::string(130, '[') + std::string(130, ']') + "}}",
             id);
    }
    // The first initialize (ACP: an integer protocolVersion) and what follows it.
    echoes(p, R"({"jsonrpc":"2.0","id":1e3,"method":"initialize","params":{"protocolVersion":1}})",
           "1e3");
    echoes(p,
           R"({"jsonrpc":"2.0","id":-0,"method":"session/new","params":{"cwd":")" +
               root.path().string() + R"(","mcpServers":[]}})",
           "-0");
    echoes(
        p,
        R"({"jsonrpc":"2.0","id":100000000000000000000000000000,"method":"initialize","params":{"protocolVersion":1}})",
        "100000000000000000000000000000");
  }
  SUBCASE("MCP: initialize, tools/call results and errors") {
    auto p = spawn_editd(root);
    echoes(
        p,
        R"({"jsonrpc":"2.0","id":-0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}})",
        "-0");
    p.write_raw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for (const std::string& id : kOddIds) {
      echoes(
          p,
          R"({"jsonrpc":"2.0","id":)" + id +
              R"(,"method":"tools/call","params":{"name":"fingerprint","arguments":{"path":"a.txt"}}})",
          id);
      echoes(
          p,
          R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"tools/call","params":{"arguments":{}}})",
          id);
      echoes(p, R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"no/such"})", id);
    }
  }
}

TEST_CASE("unknown methods, notifications and unknown params") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root);
  json e = p.fails("no_such_method", json::object());
  CHECK(e["code"] == -32601);
  CHECK(e["data"]["kind"] == "method_not_found");
  // A notification gets no reply: the next reply is for the following request.
  p.send({{"jsonrpc", "2.0"}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}});
  // Nor does one whose params are an array (a JSON-RPC request may have them;
  // editd's methods take named params).
  for (const char* method : {"read_text", "$/cancel_request", "notifications/cancelled"})
    p.send({{"jsonrpc", "2.0"}, {"method", method}, {"params", json::array({1})}});
  json r = p.ok("read_text", {{"path", "a.txt"}, {"sessionId", "s1"}, {"_meta", {{"x", 1}}}});
  CHECK(r["content"] == "x\n");
  CHECK(p.other.empty());
}

TEST_CASE("methods are accepted with the _edit/ and edit/ prefixes") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root);
  CHECK(p.ok("_edit/read_text", {{"path", "a.txt"}})["content"] == "x\n");
  CHECK(p.ok("edit/read_text", {{"path", "a.txt"}})["content"] == "x\n");
}

TEST_CASE("bad params name the param") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root);
  json e = p.fails("read_text", json::object());
  CHECK(e["code"] == -32602);
  CHECK(e["data"]["param"] == "path");
  CHECK(e["message"].get<std::string>().find("path") != std::string::npos);
  CHECK(p.fails("read_text", {{"path", 5}})["data"]["param"] == "path");
  CHECK(p.fails("read_text", {{"path", "a.txt"}, {"line", 0}})["data"]["param"] == "line");
  CHECK(p.fails("read_text", {{"path", "a.txt"}, {"limit", 0}})["data"]["param"] == "limit");
  CHECK(p.fails("read_text", {{"path", "a.txt"}, {"line", -1}})["data"]["param"] == "line");
  CHECK(p.fails("read_text", {{"path", ""}})["data"]["kind"] == "invalid_params");
  CHECK(p.fails("read_text", {{"path", std::string("a\0b", 3)}})["data"]["param"] == "path");
  CHECK(p.fails("str_replace", {{"path", "a.txt"}, {"oldText", ""}, {"newText", "y"}})["data"]["param"] == "oldText");
  CHECK(p.fails("write_text", {{"path", "a.txt"}})["data"]["param"] == "content");
}

TEST_CASE("a params array is invalid params") {
  TempDir root;
  auto p = spawn_editd(root);
  p.write_raw("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"read_text\",\"params\":[\"a.txt\"]}\n");
  json m = p.read_message();
  CHECK(m["id"] == 3);
  CHECK(m["error"]["code"] == -32602);
}

TEST_CASE("invalid UTF-8 in a message is a parse error and a lone surrogate is invalid params") {
  TempDir root;
  auto p = spawn_editd(root);
  p.write_raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write_text\",\"params\":{\"path\":\"a.txt\",\"content\":\"\xff\"}}\n");
  json m = p.read_message();
  CHECK(m["error"]["code"] == -32700);
  p.write_raw("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"write_text\",\"params\":{\"path\":\"a.txt\",\"content\":\"x\\udc00y\"}}\n");
  m = p.read_message();
  CHECK(m["id"] == 2);
  CHECK(m["error"]["code"] == -32602);
  CHECK(m["error"]["data"]["param"] == "content");
  CHECK_FALSE(root.exists("a.txt"));
}

TEST_CASE("CRLF framing and blank lines are tolerated") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root);
  p.write_raw("\n\r\n   \n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"read_text\",\"params\":{\"path\":\"a.txt\"}}\r\n");
  json m = p.read_message();
  CHECK(m["id"] == 1);
  CHECK(m["result"]["content"] == "x\n");
}

TEST_CASE("a line over --max-message-bytes is answered and skipped without breaking the stream") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root, {"--max-message-bytes", "1000"});
  std::string big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"write_text\",\"params\":{\"path\":\"b.txt\",\"content\":\"" +
                    std::string(5000, 'a') + "\"}}\n";
  p.write_raw(big);
  json m = p.read_message();
  CHECK(m["id"].is_null());
  CHECK(m["error"]["code"] == -32600);
  CHECK(m["error"]["data"]["limit"] == 1000);
  CHECK(p.ok("read_text", {{"path", "a.txt"}})["content"] == "x\n");
  CHECK_FALSE(root.exists("b.txt"));
}

TEST_CASE("pipelined requests each get exactly one response") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root);
  std::string batch;
  for (int i = 0; i < 200; ++i)
    batch += json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "read_text"}, {"params", {{"path", "a.txt"}}}}.dump() + "\n";
  p.write_raw(batch);
  std::vector<int> seen(200, 0);
  for (int i = 0; i < 200; ++i) {
    json m = p.read_message();
    REQUIRE(m["id"].is_number_integer());
    seen[m["id"].get<int>()]++;
  }
  for (int i = 0; i < 200; ++i) CHECK(seen[i] == 1);
  p.close_stdin();
  CHECK(p.wait() == 0);
  CHECK_FALSE(p.read_line(std::chrono::milliseconds(100)).has_value());
}

TEST_CASE("stdout carries protocol only, even at debug log level") {
  TempDir root;
  root.write("a.txt", "x\n");
  auto p = spawn_editd(root, {"--log-level", "debug"});
  json r = p.request("read_text", {{"path", "a.txt"}});
  CHECK(r.contains("result"));
  p.close_stdin();
  CHECK(p.wait() == 0);
  std::string err = p.stderr_text();
  CHECK(err.find("read_text") != std::string::npos);
  CHECK(err.find("id=1") != std::string::npos);
}
