// How MCP reports an error: the JSON-RPC codes, the isError results and the
// unanswered cancellations.
#include "server/doors/mcp_errors.h"

#include <doctest/doctest.h>

using namespace editd;
using nlohmann::json;

TEST_CASE("on MCP only the standard JSON-RPC codes go out") {
  for (ErrorKind k :
       {ErrorKind::kConflict, ErrorKind::kNoChange, ErrorKind::kCancelled, ErrorKind::kTimeout})
    CHECK(mcp::error_code(k) == -32603);
  CHECK(mcp::error_code(ErrorKind::kUnauthenticated) == -32600);
  CHECK(mcp::error_code(ErrorKind::kInvalidParams) == -32602);
  CHECK(mcp::make_error(1, Error(ErrorKind::kNoMatch, "m"))["error"]["data"]["kind"] == "no_match");
  const json e = mcp::make_error("a", Error(ErrorKind::kMethodNotFound, "method not found: x"));
  CHECK(e["jsonrpc"] == "2.0");
  CHECK(e["id"] == "a");
  CHECK(e["error"]["code"] == -32601);
  CHECK(e["error"]["message"] == "method not found: x");
}

TEST_CASE("a failed tool call is an isError result whose text is the error's") {
  const json r = mcp::tool_error(Error(ErrorKind::kNotFound, "not found: a"));
  CHECK(r == json{{"content", json::array({{{"type", "text"},
                                            {"text", "Error (not_found): not found: a\n"}}})},
                  {"isError", true}});
  CHECK(mcp::reports_failure({{"is_error", true}}));
  CHECK(mcp::reports_failure({{"type", "apply_patch_call_output"}, {"status", "failed"}}));
  CHECK_FALSE(mcp::reports_failure({{"type", "apply_patch_call_output"}, {"status", "completed"}}));
  CHECK_FALSE(mcp::reports_failure({{"status", "failed"}}));
  CHECK_FALSE(mcp::reports_failure(json::array()));
}

TEST_CASE("only a request the client cancelled goes unanswered") {
  CancelState client;
  client.cancelled = client.by_client = true;
  CancelState shutdown;
  shutdown.cancelled = true;
  const Result<json> cancelled = Error(ErrorKind::kCancelled, "cancelled");
  CHECK(mcp::cancelled_by_client(cancelled, client));
  CHECK_FALSE(mcp::cancelled_by_client(cancelled, shutdown));
  CHECK_FALSE(mcp::cancelled_by_client(Error(ErrorKind::kNotFound, "x"), client));
  CHECK_FALSE(mcp::cancelled_by_client(json::object(), client));
}

TEST_CASE("tools/call's own errors name the param") {
  CHECK(mcp::missing_tool_name().data["param"] == "name");
  CHECK(mcp::tool_name_not_string().kind == ErrorKind::kInvalidParams);
  const Error unknown = mcp::unknown_tool("nope");
  CHECK(unknown.kind == ErrorKind::kInvalidParams);
  CHECK(unknown.data["tool"] == "nope");
  CHECK(unknown.message == "unknown tool: nope (tools/list lists the tools)");
}

TEST_CASE("MCP's error shapes name the inputs the engine mentioned, as MCP's params") {
  const Error e(ErrorKind::kNoMatch, mention(Input::kOldText) + " was not found",
                {{"hint", mention(Input::kNewText) + " is already in the file"}});
  const json shaped = mcp::make_error(1, e)["error"];
  CHECK(shaped["message"] == "oldText was not found");
  CHECK(shaped["data"]["hint"] == "newText is already in the file");
  const std::string text = mcp::tool_error(e)["content"][0]["text"];
  CHECK(text == "Error (no_match): oldText was not found\nHint: newText is already in the file\n");
}
