#include "server/doors/mcp.h"

#include <algorithm>

#include "protocol/fast_json.h"
#include "server/doors/mcp_errors.h"
#include "server/methods/texts.h"

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
       "editd edits the text files under one root directory. read_text first (long files come "
       "in pages: nextLine says where to read on); edit with str_replace (one exact region), "
       "edit_lines (lines named by the anchors read_text shows with format hashline), insert, "
       "apply_patch (several places or files), write_text (a whole file) or create (a new "
       "file); set_format alone changes line endings, BOM or final newline. Pass the "
       "fingerprint you read as expectedFingerprint so that a file changed meanwhile is refused "
       "(conflict) instead of overwritten (fingerprint tells whether a file changed without "
       "reading it). Each edit that writes returns an undoId: undo with it puts the files back. "
       "changes lists every change on record (anyone's, across restarts) with its hunks; "
       "revert takes back a change or one hunk without touching later work. "
       "move, copy and delete rename, duplicate and remove files (move and delete also "
       "directories), with an undoId like any edit. "
       "list shows a directory's entries; search finds lines by a literal or a regular "
       "expression, each with the anchor edit_lines takes. "
       "Failed calls say what to do next."}};
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
    if ((host_tools || !m.provider_native) &&
        (!m.needs_language_server || registry.has_language_servers()))
      tools.push_back(tool(m));
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
  // A read by symbol names its lines itself (and may not be given a limit).
  const bool by_symbol = params.contains("symbol") && !params["symbol"].is_null();
  if (m.paged && !by_symbol && (!params.contains("limit") || params["limit"].is_null()))
    params["limit"] = kPageLines;
  return params;
}

namespace {

// The bytes a character takes in a JSON string (editd's, nlohmann's, serde_json's and
// JSON.stringify's escapes alike); UTF-8 bytes count one each.
std::size_t json_bytes(char c) {
  switch (c) {
    case '"':
    case '\\':
    case '\n':
    case '\r':
    case '\t':
    case '\b':
    case '\f':
      return 2;
    default:
      return static_cast<unsigned char>(c) < 0x20 ? 6 : 1;
  }
}

std::uint64_t count_at(const json& result, const char* key) {
  auto it = result.find(key);
  return it != result.end() && it->is_number_integer() ? it->get<std::uint64_t>() : 0;
}

// The paging facts, in the order a paged structuredContent shows them.
constexpr const char* kPagingFacts[] = {"line",   "lineCount",    "totalLines",
                                        "nextLine", "offset",     "totalSymbols",
                                        "nextOffset"};

// A paged result as JSON text: the paging facts, the other members by name, content last.
std::string paged_json(const json& result) {
  std::string out = "{";
  auto member = [&](const std::string& key, const json& value) {
    if (out.size() > 1) out.push_back(',');
    out += protocol::fast_json::dump(json(key)) + ":" + protocol::fast_json::dump(value);
  };
  for (const char* key : kPagingFacts)
    if (auto it = result.find(key); it != result.end()) member(key, *it);
  for (auto it = result.begin(); it != result.end(); ++it)
    if (it.key() != "content" && std::find(std::begin(kPagingFacts), std::end(kPagingFacts),
                                           it.key()) == std::end(kPagingFacts))
      member(it.key(), it.value());
  if (auto it = result.find("content"); it != result.end()) member("content", *it);
  return out + "}";
}

}  // namespace

void page(json& result) {
  if (auto symbols = result.find("symbols"); symbols != result.end() && symbols->is_array()) {
    std::size_t used = 0, kept = 0;
    for (const json& s : *symbols) {
      used += protocol::fast_json::dump(s).size() + 1;
      if (kept > 0 && used > kPageBytes) break;
      ++kept;
    }
    if (kept < symbols->size()) {
      symbols->erase(symbols->begin() + static_cast<std::ptrdiff_t>(kept), symbols->end());
      result["nextOffset"] = count_at(result, "offset") + kept;
    }
    return;
  }
  bool cut_short = false;
  auto content = result.find("content");
  if (content != result.end() && content->is_string()) {
    const std::string& text = content->get_ref<const std::string&>();
    // The last line end within the budget; else the end of the first line.
    std::size_t used = 0, cut = std::string::npos, i = 0;
    for (; i < text.size(); ++i) {
      used += json_bytes(text[i]);
      if (used > kPageBytes) break;
      if (text[i] == '\n') cut = i;
    }
    if (i < text.size()) {
      if (cut == std::string::npos) cut = text.find('\n');
      if (cut != std::string::npos && cut + 1 < text.size()) {
        std::string kept = text.substr(0, cut + 1);
        result["lineCount"] =
            static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), '\n'));
        *content = std::move(kept);
        cut_short = true;
      }
    }
  }
  // A symbol's lines read whole have nothing after them to read on to.
  if (result.contains("symbol") && !cut_short) return;
  const std::uint64_t first = count_at(result, "line"), count = count_at(result, "lineCount");
  if (count > 0 && first + count - 1 < count_at(result, "totalLines"))
    result["nextLine"] = first + count;
}

json tool_result(const Method& m, const json& params, const Result<json>& result) {
  if (!result) return tool_error(result.error());
  // Provider-native tools carry their failures in their result (is_error,
  // status "failed"): the host's model sees them as failed calls too.
  const bool failed = reports_failure(*result);
  return json{{"content", json::array({{{"type", "text"}, {"text", m.render(params, *result)}}})},
              {"structuredContent", m.paged && result->is_object()
                                        ? protocol::fast_json::verbatim(paged_json(*result))
                                        : *result},
              {"isError", failed}};
}

}  // namespace editd::mcp
