#include "server/doors/mcp_errors.h"

#include "server/methods/texts.h"

namespace editd::mcp {

using nlohmann::json;

int error_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParseError:
    case ErrorKind::kInvalidRequest:
    case ErrorKind::kMethodNotFound:
    case ErrorKind::kInvalidParams:
    case ErrorKind::kInternal:
      return kind_code(kind);
    case ErrorKind::kUnauthenticated:
      return kind_code(ErrorKind::kInvalidRequest);
    default:
      return kind_code(ErrorKind::kInternal);
  }
}

json make_error(const json& id, const Error& error) {
  Error named = error;  // editd's names for what the door did not name
  name_inputs(named);
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"error",
               {{"code", error_code(named.kind)},
                {"message", std::move(named.message)},
                {"data", named.wire_data()}}}};
}

bool cancelled_by_client(const Result<json>& result, const CancelState& cancel) {
  return !result && result.error().kind == ErrorKind::kCancelled && cancel.by_client;
}

json tool_error(const Error& error) {
  return json{{"content", json::array({{{"type", "text"}, {"text", render_error(error)}}})},
              {"isError", true}};
}

bool reports_failure(const json& result) {
  return result.is_object() && (result.value("is_error", false) ||
                                (result.value("type", "") == "apply_patch_call_output" &&
                                 result.value("status", "") == "failed"));
}

Error missing_tool_name() { return invalid_param("name", "missing (a tool name is required)"); }

Error tool_name_not_string() { return invalid_param("name", "must be a string (a tool's name)"); }

Error unknown_tool(const std::string& name) {
  return Error(ErrorKind::kInvalidParams, "unknown tool: " + name + " (tools/list lists the tools)",
               {{"param", "name"}, {"tool", name}});
}

}  // namespace editd::mcp
