// MCP's shapes: the initialize result, tools/list, tool arguments, paging and
// the CallToolResult, over the method registry.
//
// A connection speaks MCP when its initialize carries a string
// protocolVersion (server/session/connection.h; server/doors/mcp_door.h answers
// its requests); the shapes an MCP exchange needs live here, as pure functions
// of JSON.
// Each registry method is one tool: its inputSchema, outputSchema and
// annotations come from the declaration; tools/call runs the plain method, its
// structuredContent is the method's whole result and its text content is
// complete on its own (server/methods/texts.h). How MCP reports an error,
// isError results included, is server/doors/mcp_errors.h.
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

// read_text pages by default: at most kPageLines lines when the call gives no
// limit, and whatever the limit at most kPageBytes of content as JSON writes it
// (a quote, backslash, tab or line break counts two bytes, another control
// character six), cut at a line end; a single longer line comes whole. So the
// whole structuredContent stays within about 10,200 bytes: the smallest limit of
// the hosts tested is Codex's 12,000 bytes (10,000 x 1.2) of serialised
// structuredContent, beyond which it cuts out the middle. docs/protocol.md#tools
// gives each host's limit.
inline constexpr std::uint64_t kPageLines = 2000;
inline constexpr std::size_t kPageBytes = 10000;

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

// A paged result cut to kPageBytes of content (lineCount follows), with
// nextLine, the `line` to read on from, unless the page reaches the last line.
// A symbol listing (read_symbols) is cut to the symbols whose JSON fits in
// kPageBytes (one at least), with nextOffset, the `offset` to list on from.
void page(nlohmann::json& result);

// The CallToolResult of a finished call. A paged method's structuredContent
// shows its paging facts first (line, lineCount, totalLines, nextLine), then
// the other members by name, then content: hosts that show a model only the
// start of a long result show it where to read on.
nlohmann::json tool_result(const Method& method, const nlohmann::json& params,
                           const Result<nlohmann::json>& result);

}  // namespace editd::mcp
