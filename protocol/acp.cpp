#include "protocol/acp.h"

#include "protocol/params.h"

namespace editd::acp {
namespace {

json diff_content(const Diff& d) {
  json c = {{"type", "diff"}, {"path", d.path}, {"newText", d.new_text}};
  if (d.old_text) c["oldText"] = *d.old_text;
  return c;
}

json location(const std::string& path, std::optional<std::uint64_t> line) {
  json l = {{"path", path}};
  if (line) l["line"] = *line;
  return l;
}

json session_update(const std::string& session_id, json update) {
  return json{{"sessionId", session_id}, {"update", std::move(update)}};
}

}  // namespace

bool offers_fs(const json& client_capabilities) {
  if (!client_capabilities.is_object()) return false;
  auto fs = client_capabilities.find("fs");
  if (fs == client_capabilities.end() || !fs->is_object()) return false;
  auto offered = [&](const char* name) {
    auto it = fs->find(name);
    return it != fs->end() && it->is_boolean() && it->get<bool>();
  };
  return offered("readTextFile") && offered("writeTextFile");
}

json initialize_result(const json& methods, bool delegated, std::string_view version) {
  json editd_meta = {
      {"methods", methods}, {"backend", delegated ? "delegated" : "local"}, {"version", version}};
  return json{{"protocolVersion", 1},
              {"agentInfo", {{"name", "editd"}, {"title", "editd"}, {"version", version}}},
              {"agentCapabilities", {{"loadSession", false}, {"_meta", {{"editd", editd_meta}}}}},
              {"authMethods", json::array()}};
}

Result<NewSessionParams> decode_new_session(const json& params) {
  if (!params.is_object()) return invalid_param("cwd", "missing (an absolute path is required)");
  auto cwd = params.find("cwd");
  if (cwd == params.end() || !cwd->is_string())
    return invalid_param("cwd", "missing (an absolute path is required)");
  const std::string& dir = cwd->get_ref<const std::string&>();
  if (dir.empty() || dir.front() != '/') return invalid_param("cwd", "must be an absolute path");
  if (auto problem = protocol::path_problem(dir)) return invalid_param("cwd", *problem);
  if (auto m = params.find("mcpServers"); m != params.end() && !m->is_array() && !m->is_null())
    return invalid_param("mcpServers", "must be an array");
  return NewSessionParams{dir};
}

json new_session_result(const std::string& session_id) { return json{{"sessionId", session_id}}; }

json read_text_file_params(const std::string& session_id, const std::string& path) {
  return json{{"sessionId", session_id}, {"path", path}};
}

std::optional<std::string> take_content(json& result) {
  if (!result.is_object()) return std::nullopt;
  auto content = result.find("content");
  if (content == result.end() || !content->is_string()) return std::nullopt;
  return std::move(content->get_ref<std::string&>());
}

json write_text_file_params(const std::string& session_id, const std::string& path,
                            std::string content) {
  return json{{"sessionId", session_id}, {"path", path}, {"content", std::move(content)}};
}

json tool_call_started(const std::string& session_id, const std::string& tool_call_id,
                       const std::string& title, const std::vector<std::string>& paths) {
  json locations = json::array();
  for (const std::string& p : paths) locations.push_back(location(p, std::nullopt));
  return session_update(session_id, {{"sessionUpdate", "tool_call"},
                                     {"toolCallId", tool_call_id},
                                     {"title", title},
                                     {"kind", "edit"},
                                     {"status", "pending"},
                                     {"locations", std::move(locations)}});
}

json tool_call_completed(const std::string& session_id, const std::string& tool_call_id,
                         const json& result, const std::vector<Diff>& diffs) {
  json content = json::array(), locations = json::array();
  for (const Diff& d : diffs) {
    content.push_back(diff_content(d));
    locations.push_back(location(d.path, d.line));
  }
  return session_update(session_id, {{"sessionUpdate", "tool_call_update"},
                                     {"toolCallId", tool_call_id},
                                     {"status", "completed"},
                                     {"content", std::move(content)},
                                     {"locations", std::move(locations)},
                                     {"rawOutput", result}});
}

json outside_change(const std::string& session_id, const std::string& tool_call_id,
                    const std::string& path, const std::string& title, const std::string& text,
                    const json& notice) {
  json content = {{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}};
  return session_update(session_id, {{"sessionUpdate", "tool_call"},
                                     {"toolCallId", tool_call_id},
                                     {"title", title},
                                     {"kind", "other"},
                                     {"status", "completed"},
                                     {"content", json::array({std::move(content)})},
                                     {"locations", json::array({location(path, std::nullopt)})},
                                     {"rawOutput", notice}});
}

json tool_call_failed(const std::string& session_id, const std::string& tool_call_id,
                      const Error& unnamed) {
  Error error = unnamed;  // editd's names: ACP carries editd's own params
  name_inputs(error);
  json text = {{"type", "content"}, {"content", {{"type", "text"}, {"text", error.message}}}};
  json raw = {
      {"code", kind_code(error.kind)}, {"message", error.message}, {"data", error.wire_data()}};
  return session_update(session_id, {{"sessionUpdate", "tool_call_update"},
                                     {"toolCallId", tool_call_id},
                                     {"status", "failed"},
                                     {"content", json::array({std::move(text)})},
                                     {"rawOutput", {{"error", std::move(raw)}}}});
}

json tool_call_failed(const std::string& session_id, const std::string& tool_call_id,
                      const std::string& text, const json& result) {
  json content = {{"type", "content"}, {"content", {{"type", "text"}, {"text", text}}}};
  return session_update(session_id, {{"sessionUpdate", "tool_call_update"},
                                     {"toolCallId", tool_call_id},
                                     {"status", "failed"},
                                     {"content", json::array({std::move(content)})},
                                     {"rawOutput", result}});
}

json permission_params(const std::string& session_id, const std::string& tool_call_id,
                       const std::string& shown, const Diff& diff) {
  json tool_call = {{"toolCallId", tool_call_id},
                    {"title", "edit " + shown},
                    {"kind", "edit"},
                    {"status", "pending"},
                    {"content", json::array({diff_content(diff)})},
                    {"locations", json::array({location(diff.path, std::nullopt)})}};
  json options =
      json::array({{{"optionId", kAllowOnce}, {"name", "Allow"}, {"kind", kAllowOnce}},
                   {{"optionId", kAllowAlways},
                    {"name", "Always allow in this session"},
                    {"kind", kAllowAlways}},
                   {{"optionId", kRejectOnce}, {"name", "Reject"}, {"kind", kRejectOnce}}});
  return json{{"sessionId", session_id},
              {"toolCall", std::move(tool_call)},
              {"options", std::move(options)}};
}

PermissionOutcome decode_permission_outcome(const json& result) {
  PermissionOutcome out;
  if (!result.is_object()) return out;
  auto outcome = result.find("outcome");
  if (outcome == result.end() || !outcome->is_object()) return out;
  auto kind = outcome->find("outcome");
  if (kind == outcome->end() || !kind->is_string()) return out;
  if (*kind == "cancelled") {
    out.kind = PermissionOutcome::Kind::kCancelled;
  } else if (*kind == "selected") {
    out.kind = PermissionOutcome::Kind::kSelected;
    out.option_id = outcome->value("optionId", json(nullptr));
  }
  return out;
}

}  // namespace editd::acp
