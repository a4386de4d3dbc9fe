// Test support: editd on stdio spoken to as an MCP host speaks (initialize with
// a string protocolVersion, then tools/call).
#pragma once

#include <string>

#include "helpers/process.h"

namespace editd::test {

inline json mcp_initialize_params(const std::string& version, const std::string& client = "mcp-test") {
  return {{"protocolVersion", version},
          {"capabilities", json::object()},
          {"clientInfo", {{"name", client}, {"version", "0"}}}};
}

// Initializes editd on stdio as MCP.
inline void mcp_initialize(Process& p, const std::string& client = "mcp-test") {
  json init = p.ok("initialize", mcp_initialize_params("2025-11-25", client));
  REQUIRE(init["protocolVersion"] == "2025-11-25");
  p.send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}

// tools/call's result (a failed tool is a result too, with isError).
inline json call(Process& p, const std::string& tool, json arguments) {
  return p.ok("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}});
}

// The one text block of a tool result, a last block telling of changes made
// outside the session aside (docs/protocol.md, "Changes made outside").
inline std::string text_of(const json& result) {
  const json& content = result["content"];
  const bool outside = content.size() == 2 && content[1].value("text", "").rfind(
                                                  "Changed outside this session:", 0) == 0;
  REQUIRE(content.size() == (outside ? 2u : 1u));
  REQUIRE(result["content"][0]["type"] == "text");
  return result["content"][0]["text"].get<std::string>();
}

}  // namespace editd::test
