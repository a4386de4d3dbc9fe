#include "server/doors/mcp.h"

#include <algorithm>

#include "server/doors/tool_text.h"

namespace editd::mcp {

using nlohmann::json;

const std::vector<std::string>& supported_versions() {
  static const std::vector<std::string> versions = {"2025-11-25", "2025-06-18"};
  return versions;
}

const std::vector<std::string>& host_added_arguments() {
  static const std::vector<std::string> names = {"wait_for_previous"};
  return names;
}

bool is_mcp_initialize(const json& params) {
  auto it = params.find("protocolVersion");
  return it != params.end() && it->is_string();
}

json initialize_result(const json& params) {
  const auto& versions = supported_versions();
  std::string version = versions.front();
  if (auto it = params.find("protocolVersion"); it != params.end() && it->is_string())
    if (std::find(versions.begin(), versions.end(), it->get<std::string>()) != versions.end())
      version = it->get<std::string>();
  return json{
      {"protocolVersion", version},
      {"capabilities", {{"tools", {{"listChanged", false}}}}},
      {"serverInfo", {{"name", "editd"}, {"title", "editd"}, {"version", EDITD_VERSION}}},
      {"instructions",
       "editd edits the text files under one root directory. read_text first; edit with "
       "str_replace (one exact region), insert, apply_patch (several places or files) or "
       "write_text (a whole file); pass the fingerprint you read as expectedFingerprint so that "
       "a file changed meanwhile is refused (conflict) instead of overwritten. Failed calls say "
       "what to do next."}};
}

json tool(const Method& m) {
  return json{{"name", m.name},
              {"title", m.title},
              {"description", m.description},
              {"inputSchema", m.input_schema},
              {"outputSchema", m.output_schema},
              {"annotations",
               {{"title", m.title},
                {"readOnlyHint", !m.mutates},
                {"destructiveHint", m.destructive},
                {"idempotentHint", m.idempotent},
                {"openWorldHint", false}}}};
}

json tools_list(const Registry& registry, bool host_tools) {
  json tools = json::array();
  for (const Method& m : registry.methods())
    if (host_tools || !m.provider_native) tools.push_back(tool(m));
  return json{{"tools", std::move(tools)}};
}

Result<json> prepare_arguments(const Method& m, const json& arguments) {
  json params = arguments.is_null() ? json::object() : arguments;
  if (!params.is_object())
    return Error(ErrorKind::kInvalidParams, "invalid param 'arguments': must be an object",
                 {{"param", "arguments"}});
  const json& known = m.input_schema["properties"];
  for (const std::string& added : host_added_arguments())
    if (!known.contains(added)) params.erase(added);
  std::vector<std::string> unknown;
  for (auto it = params.begin(); it != params.end(); ++it)
    if (!known.contains(it.key())) unknown.push_back(it.key());
  if (!unknown.empty()) {
    std::string names, takes;
    for (const std::string& u : unknown) names += (names.empty() ? "'" : ", '") + u + "'";
    for (auto k = known.begin(); k != known.end(); ++k)
      takes += (takes.empty() ? "" : ", ") + k.key();
    const bool one = unknown.size() == 1;
    return Error(ErrorKind::kInvalidParams,
                 std::string(one ? "invalid param " : "invalid params ") + names + ": " + m.name +
                     " takes no such " + (one ? "argument" : "arguments") + " (it takes " + takes +
                     ")",
                 {{"param", unknown.front()}, {"unknown", unknown}});
  }
  if (m.paged && (!params.contains("limit") || params["limit"].is_null()))
    params["limit"] = kPageLines;
  return params;
}

void page(json& result) {
  auto content = result.find("content");
  if (content == result.end() || !content->is_string()) return;
  const std::string& text = content->get_ref<const std::string&>();
  if (text.size() <= kPageBytes) return;
  // The last line end within the page; else the end of the first line.
  std::size_t cut = text.rfind('\n', kPageBytes - 1);
  if (cut == std::string::npos) cut = text.find('\n');
  if (cut == std::string::npos || cut + 1 >= text.size()) return;
  std::string kept = text.substr(0, cut + 1);
  result["lineCount"] = static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), '\n'));
  *content = std::move(kept);
}

json tool_result(const Method& m, const json& params, const Result<json>& result) {
  if (!result) {
    return json{
        {"content", json::array({{{"type", "text"}, {"text", render_error(result.error())}}})},
        {"isError", true}};
  }
  // Provider-native tools carry their failures in their result (is_error,
  // status "failed"): the host's model sees them as failed calls too.
  const bool failed = result->is_object() && (result->value("is_error", false) ||
                                              (result->value("type", "") == "apply_patch_call_output" &&
                                               result->value("status", "") == "failed"));
  return json{{"content", json::array({{{"type", "text"}, {"text", m.render(params, *result)}}})},
              {"structuredContent", *result},
              {"isError", failed}};
}

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
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"error",
               {{"code", error_code(error.kind)},
                {"message", error.message},
                {"data", error.wire_data()}}}};
}

}  // namespace editd::mcp
