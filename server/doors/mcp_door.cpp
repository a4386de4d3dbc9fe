#include "server/doors/mcp_door.h"

#include "protocol/fast_json.h"
#include "server/doors/mcp.h"
#include "server/doors/mcp_approvals.h"
#include "server/doors/mcp_errors.h"
#include "server/doors/outside_changes.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;

McpDoor::McpDoor(const DoorOptions& options, const Registry& registry, AcpDoor& acp,
                 KnownFingerprints& known, McpClient& client)
    : options_(options), registry_(registry), acp_(acp), known_(known), client_(client) {}

void McpDoor::initialize(const json& params) {
  elicitation_ = mcp::offers_form_elicitation(params);
}

asio::awaitable<Result<json>> McpDoor::dispatch(const protocol::Incoming& in,
                                                std::shared_ptr<CancelState> cancel,
                                                Arrivals::Place& place) {
  if (in.method == "ping") co_return json::object();
  if (in.method == "tools/list") co_return mcp::tools_list(registry_, options_.mcp_tools == McpTools::kAll);
  if (in.method == "tools/call") co_return co_await call_tool(in.params, in.id, std::move(cancel), place);
  co_return method_not_found(in.method);
}

asio::awaitable<Result<json>> McpDoor::call_tool(const json& params, const json& id,
                                                 std::shared_ptr<CancelState> cancel,
                                                 Arrivals::Place& place) {
  auto name = params.find("name");
  if (name == params.end() || name->is_null()) co_return mcp::missing_tool_name();
  if (!name->is_string()) co_return mcp::tool_name_not_string();
  const Method* m = registry_.find(name->get_ref<const std::string&>());
  if (!m || m->name != name->get_ref<const std::string&>())
    co_return mcp::unknown_tool(name->get<std::string>());
  const json arguments = params.contains("arguments") ? params["arguments"] : json();
  Result<json> prepared = mcp::prepare_arguments(*m, arguments);
  if (!prepared) co_return mcp::tool_result(*m, arguments, prepared);
  auto call = acp_.prepare(*m, *prepared, cancel, &known_, &place);
  if (!call) co_return mcp::tool_result(*m, *prepared, call.error());
  (*call)->context->actor.request_id = id.dump();
  if (options_.approve == Approval::kAsk) {
    // MCP's question, one for the call, instead of ACP's per file.
    (*call)->context->approve = nullptr;
    (*call)->context->approve_all = approver(m->name, cancel);
  }
  Result<json> result = co_await registry_.run(*m, *(*call)->context, *prepared);
  acp_.report(**call, *m, result);
  if (mcp::cancelled_by_client(result, *cancel)) co_return result.error();
  if (result && m->paged) mcp::page(*result);
  co_return mcp::tool_result(*m, *prepared, result);
}

decltype(RequestContext::approve_all) McpDoor::approver(std::string tool,
                                                      std::shared_ptr<CancelState> cancel) {
  // Not a coroutine: it returns ask_approval's awaitable.
  return [this, tool = std::move(tool), cancel = std::move(cancel)](
             std::vector<PendingChange> changes) {
    return ask_approval(tool, std::move(changes), cancel);
  };
}

asio::awaitable<Result<void>> McpDoor::ask_approval(std::string tool,
                                                    std::vector<PendingChange> changes,
                                                    std::shared_ptr<CancelState> cancel) {
  if (!elicitation_) co_return mcp::no_elicitation(changes);
  if (waiting_ >= mcp::kMaxWaitingApprovals) co_return mcp::approvals_busy(changes);
  json params = mcp::elicitation_params(mcp::approval_message(tool, changes));
  struct Waiting {
    std::size_t& n;
    explicit Waiting(std::size_t& count) : n(count) { ++n; }
    ~Waiting() { --n; }
  } waiting(waiting_);
  Result<json> answer = co_await client_.ask(std::string(mcp::kElicitationCreate),
                                             std::move(params), options_.approve_timeout, cancel);
  co_return mcp::approval_outcome(answer, changes);
}

json McpDoor::reply(const json& id, Result<json> result, const CancelState& cancel) const {
  if (result) return protocol::make_result(id, std::move(*result));
  if (mcp::cancelled_by_client(result, cancel)) return nullptr;
  return mcp::make_error(id, result.error());
}

json McpDoor::error_reply(const json& id, const Error& error) const {
  return mcp::make_error(id, error);
}

// Tool results only (a text block, and structuredContent.outsideChanges when
// the result has structuredContent): what a model sees. Other replies (ping,
// tools/list, protocol errors) leave them for the next tool result.
bool McpDoor::attach_outside(json& reply, const std::vector<ops::OutsideChange>& changes,
                             bool truncated) const {
  auto result = reply.find("result");
  if (result == reply.end() || !result->is_object()) return false;
  auto content = result->find("content");
  if (content == result->end() || !content->is_array()) return false;
  content->push_back({{"type", "text"}, {"text", outside::text(changes, truncated)}});
  auto sc = result->find("structuredContent");
  if (sc == result->end()) return true;
  if (sc->is_object()) {
    (*sc)["outsideChanges"] = outside::notices(changes);
    if (truncated) (*sc)["outsideChangesTruncated"] = true;
  } else if (sc->is_binary() && sc->get_binary().has_subtype() &&
             sc->get_binary().subtype() == protocol::fast_json::kVerbatimSubtype) {
    // An object kept as its text (its members in their order): the
    // notices go in before its closing brace.
    const auto& bytes = sc->get_binary();
    std::string text(bytes.begin(), bytes.end());
    const std::size_t close = text.find_last_of('}');
    if (close == std::string::npos) return true;
    const std::size_t open = text.find('{');
    const bool empty = text.find_first_not_of(" \t\r\n", open + 1) == close;
    std::string members = "\"outsideChanges\":" + protocol::fast_json::dump(outside::notices(changes));
    if (truncated) members += ",\"outsideChangesTruncated\":true";
    text.insert(close, (empty ? "" : ",") + members);
    *sc = protocol::fast_json::verbatim(text);
  }
  return true;
}

}  // namespace editd
