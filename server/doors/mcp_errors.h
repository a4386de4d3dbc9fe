// How MCP reports an error: every error shape an MCP connection sends.
//
// MCP reserves the JSON-RPC codes editd uses for its own kinds, so on an MCP
// connection:
// - a request MCP cannot answer (no such method, a bad tools/call, a second
//   initialize, unauthenticated, a line that is not a request) is a JSON-RPC
//   error with a standard code: error_code() keeps the standard ones, makes
//   unauthenticated invalid_request and every other kind internal; data.kind
//   keeps the kind;
// - a tool call that fails (a failed operation, bad arguments included) is a
//   CallToolResult with isError and the error as text complete on its own
//   (server/methods/texts.h); a provider-native tool's result that reports
//   a failure (the text editor's is_error, apply_patch_call_output's status
//   "failed") is isError too;
// - a request the client cancelled (notifications/cancelled) gets no answer.
// Pure functions of JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "protocol/error.h"
#include "support/cancel.h"

namespace editd::mcp {

// The JSON-RPC error code of a kind on an MCP connection.
int error_code(ErrorKind kind);
// The JSON-RPC error reply to the request `id`.
nlohmann::json make_error(const nlohmann::json& id, const Error& error);

// A request the client cancelled, which gets no answer: it failed cancelled,
// and the cancellation was the client's.
bool cancelled_by_client(const Result<nlohmann::json>& result, const CancelState& cancel);

// The CallToolResult of a failed tool call.
nlohmann::json tool_error(const Error& error);
// Whether a tool's result reports a failure of its own (provider-native tools).
bool reports_failure(const nlohmann::json& result);

// tools/call's own errors (JSON-RPC errors, invalid_params naming `name`).
Error missing_tool_name();
Error tool_name_not_string();
Error unknown_tool(const std::string& name);

}  // namespace editd::mcp
