// The MCP front door: initialize, tools/list and tools/call over the method registry.
//
// A connection speaks MCP when its initialize carries a string
// protocolVersion (server/session/connection.h routes it here); everything an MCP
// exchange needs that is not transport lives here, as pure functions of JSON.
// Each registry method is one tool: its inputSchema, outputSchema and
// annotations come from the declaration; tools/call runs the plain method, its
// structuredContent is the method's whole result and its text content is
// complete on its own (server/doors/tool_text.h). A failed operation, bad arguments
// included, is a result with isError; editd's own error codes never go out as
// JSON-RPC errors (MCP reserves that range): error_code() maps every kind to a
// standard JSON-RPC code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"
#include "server/doors/registry.h"

namespace editd::mcp {

// read_text pages by default: at most this many lines when the call gives no
// limit, and at most this many bytes of text whatever the limit (cut at a line
// end; a single longer line comes whole).
inline constexpr std::uint64_t kPageLines = 2000;
inline constexpr std::size_t kPageBytes = 256 * 1024;

// The arguments hosts add to every tool on their own, which editd accepts and
// ignores in tools/call (today Gemini CLI's `wait_for_previous`, which it tells
// its model to set on dependent calls; editd answers a connection's calls to
// one file in arrival order anyway). docs/protocol.md#tools lists them.
const std::vector<std::string>& host_added_arguments();

// The protocol versions editd speaks, newest first.
const std::vector<std::string>& supported_versions();

// Whether initialize params ask for MCP (a string protocolVersion).
bool is_mcp_initialize(const nlohmann::json& params);

// The initialize result: the requested version when supported, else the newest.
nlohmann::json initialize_result(const nlohmann::json& params);

nlohmann::json tool(const Method& method);
// The tools meant for a model; with `host_tools` also the provider-native ones
// (anthropic_text_editor, openai_apply_patch), which take a provider's tool
// input verbatim and duplicate str_replace and apply_patch for a model. Either
// way tools/call runs every tool by its name.
nlohmann::json tools_list(const Registry& registry, bool host_tools);

// The params a tool call runs the method with: `arguments` (absent: {}) must
// be an object whose members the tool's inputSchema lists (invalid_params
// otherwise), apart from host_added_arguments(), which are dropped; a paged
// method gets kPageLines as its limit unless one is given.
Result<nlohmann::json> prepare_arguments(const Method& method, const nlohmann::json& arguments);

// A paged result cut to kPageBytes of content; lineCount follows.
void page(nlohmann::json& result);

// The CallToolResult of a finished call.
nlohmann::json tool_result(const Method& method, const nlohmann::json& params,
                           const Result<nlohmann::json>& result);

// The JSON-RPC error code of a kind on an MCP connection: the standard codes
// stay, unauthenticated is invalid_request, every other kind is internal
// (data.kind keeps the kind).
int error_code(ErrorKind kind);
nlohmann::json make_error(const nlohmann::json& id, const Error& error);

}  // namespace editd::mcp
