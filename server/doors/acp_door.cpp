#include "server/doors/acp_door.h"

#include <cstdio>
#include <random>
#include <vector>

#include "protocol/acp.h"
#include "server/doors/outside_changes.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

Error unknown_session(const std::string& id) {
  return Error(
      ErrorKind::kNotFound,
      "unknown session " + id + ": use a sessionId returned by session/new on this connection",
      {{"sessionId", id}, {"param", "sessionId"}});
}

// The error of a failed call to the client, as reported to the requester.
Error client_call_failure(const Error& e, std::string_view method, const std::string& shown) {
  if (!e.data.is_object() || !e.data.contains("code")) {
    Error out = e;
    if (!out.data.is_object()) out.data = json::object();
    out.data["path"] = shown;
    return out;
  }
  json client = {{"code", e.data["code"]}, {"message", e.message}};
  if (e.data.contains("data")) client["data"] = e.data["data"];
  return Error(ErrorKind::kDelegateFailed,
               "the client failed " + std::string(method) + " for " + shown + ": " + e.message,
               {{"path", shown}, {"method", method}, {"clientError", client}});
}

Error permission_refused(const std::string& shown, std::string_view outcome, const json& option) {
  json data = {{"path", shown}, {"outcome", outcome}};
  if (!option.is_null()) data["optionId"] = option;
  return Error(ErrorKind::kDenied,
               "the client refused permission to change " + shown + " (" + std::string(outcome) +
                   "): nothing was written",
               std::move(data));
}

acp::Diff to_diff(const ChangeReport& c) {
  return acp::Diff{c.canonical, c.old_text, c.new_text, c.line};
}

// The tool call announced before a method runs: titled with the method and
// its path, located at the path when the backend resolves it.
json tool_call_started(const std::string& session, const std::string& tool_call_id,
                       const std::string& method, const json& params, const FsBackend& backend) {
  std::string title = method;
  std::vector<std::string> paths;
  if (auto p = params.find("path"); p != params.end() && p->is_string()) {
    const std::string& path = p->get_ref<const std::string&>();
    title += " " + path;
    // Params are not decoded yet: resolve only what the decoder would accept.
    if (!path.empty() && path.find('\0') == std::string::npos)
      if (auto abs = backend.resolve(path)) paths.push_back(*abs);
  }
  return acp::tool_call_started(session, tool_call_id, title, paths);
}

// The text a provider-native result gives when it reports a failure (the text
// editor's is_error, apply_patch_call_output's status "failed"), for the
// failed tool_call_update; nullopt for any other result.
std::optional<std::string> failure_in(const Method& m, const json& result) {
  if (!m.provider_native || !result.is_object()) return std::nullopt;
  auto text = [&](const char* key) {
    auto it = result.find(key);
    return it != result.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (auto e = result.find("is_error"); e != result.end() && *e == true) return text("content");
  if (auto s = result.find("status"); s != result.end() && *s == "failed") return text("output");
  return std::nullopt;
}

json tool_call_finished(const std::string& session, const std::string& tool_call_id,
                        const Method& m, const Result<json>& result,
                        const std::vector<ChangeReport>& changes) {
  if (!result) return acp::tool_call_failed(session, tool_call_id, result.error());
  if (auto text = failure_in(m, *result))
    return acp::tool_call_failed(session, tool_call_id, *text, *result);
  std::vector<acp::Diff> diffs;
  diffs.reserve(changes.size());
  for (const ChangeReport& c : changes) diffs.push_back(to_diff(c));
  return acp::tool_call_completed(session, tool_call_id, *result, diffs);
}

Result<void> allowed() { return {}; }

}  // namespace

AcpDoor::AcpDoor(const DoorOptions& options, Operations& operations, FsBackend& local,
                 const Registry& registry, ClientChannel& client, Notify notify)
    : options_(options),
      operations_(operations),
      local_(local),
      registry_(registry),
      client_(client),
      notify_(std::move(notify)),
      reader_(operations.views().open_reader()) {
  std::random_device rd;
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%08x", static_cast<unsigned>(rd()));
  id_prefix_ = prefix;
}

AcpDoor::~AcpDoor() { operations_.views().close_reader(reader_); }

Result<json> AcpDoor::initialize(const json& client_capabilities) {
  delegated_ = options_.backend != BackendChoice::kLocal && acp::offers_fs(client_capabilities);
  if (delegated_ && root_.empty()) {
    auto root = local_.resolve(".");
    if (!root) return root.error();
    root_ = *root;
  }
  return acp::initialize_result(registry_.names(), delegated_, EDITD_VERSION);
}

Result<json> AcpDoor::new_session(const json& params) {
  Result<acp::NewSessionParams> p = acp::decode_new_session(params);
  if (!p) return p.error();
  std::string id = "editd-" + id_prefix_ + "-" + std::to_string(next_session_++);
  // The cwd is only checked: paths stay relative to the root.
  std::unique_ptr<FsBackend> delegated;
  if (delegated_) delegated = delegated_backend(id);
  auto inside = (delegated ? *delegated : local_).resolve(p->cwd);
  if (!inside) return inside.error();
  sessions_.insert(id);
  latest_session_ = id;
  return acp::new_session_result(id);
}

void AcpDoor::set_client(const json& client_info, std::string door, std::string peer) {
  // Bounded: a client's name is recorded with every change it makes.
  auto field = [&](const char* key) {
    std::string v;
    if (client_info.is_object())
      if (auto f = client_info.find(key); f != client_info.end() && f->is_string()) v = *f;
    if (v.size() > 256) v.resize(256);
    return v;
  };
  who_.client = field("name");
  who_.client_version = field("version");
  who_.door = std::move(door);
  who_.peer = std::move(peer);
}

Result<std::string> AcpDoor::session_for(const json& params) {
  if (auto sid = params.find("sessionId"); sid != params.end() && sid->is_string()) {
    const std::string& id = sid->get_ref<const std::string&>();
    if (sessions_.count(id)) return id;
    // A local connection without sessions has no use for the id: ignored, as before ACP.
    if (delegated_ || !sessions_.empty()) return unknown_session(id);
  }
  if (!latest_session_.empty()) return latest_session_;
  // The SDK refuses fs/* requests without a sessionId: use one of our own.
  if (own_session_.empty()) own_session_ = "editd-" + id_prefix_ + "-connection";
  return own_session_;
}

std::unique_ptr<FsBackend> AcpDoor::delegated_backend(const std::string& session_id) {
  const DoorOptions& o = options_;
  DelegatedBackendOptions options;
  options.root = root_;
  options.session_id = session_id;
  options.timeout = o.delegate_timeout;
  options.max_file_bytes = operations_.options().max_file_bytes;
  options.read_only = operations_.options().read_only;
  return make_delegated_backend(std::move(options), client_);
}

Result<std::unique_ptr<AcpCall>> AcpDoor::prepare(const Method& m, const json& params,
                                                  std::shared_ptr<CancelState> cancel,
                                                  KnownFingerprints* known,
                                                  Arrivals::Place* place) {
  Result<std::string> session = session_for(params);
  if (!session) return session.error();
  auto call = std::make_unique<AcpCall>();
  call->session = *session;
  if (delegated_) call->delegated = delegated_backend(*session);
  FsBackend& backend = call->delegated ? *call->delegated : local_;
  RequestContext& ctx =
      call->context.emplace(RequestContext{backend, std::move(cancel), known, nullptr});
  if (call->delegated) ctx.scope = Scope::delegated(id_prefix_);
  ctx.place = place;
  ctx.reader = reader_;
  ctx.actor = who_;
  ctx.actor.method = m.name;
  if (!sessions_.empty() || call->delegated) {
    ctx.actor.session = call->session;
    ctx.actor.door = "acp";
  }

  call->tool_call_id = "editd-call-" + std::to_string(next_tool_call_++);
  call->announce = !sessions_.empty() && !m.writes_nothing(params);
  if (call->announce) {
    ctx.changes = &call->changes;
    notify_(std::string(acp::kSessionUpdate),
            tool_call_started(call->session, call->tool_call_id, m.name, params, backend));
  }
  if (options_.approve == Approval::kAsk) ctx.approve = approver(call->session, call->tool_call_id, backend);
  return call;
}

void AcpDoor::report(const AcpCall& call, const Method& m, const Result<json>& result) {
  if (call.announce)
    notify_(std::string(acp::kSessionUpdate),
            tool_call_finished(call.session, call.tool_call_id, m, result, call.changes));
}

void AcpDoor::announce_outside(const std::vector<ops::OutsideChange>& changes) {
  if (sessions_.empty()) return;
  for (const ops::OutsideChange& c : changes)
    notify_(std::string(acp::kSessionUpdate),
            acp::outside_change(latest_session_, "editd-outside-" + std::to_string(next_tool_call_++),
                                c.canonical, "Changed outside this session: " + c.shown,
                                outside::text(c), outside::notice(c)));
}

decltype(RequestContext::approve) AcpDoor::approver(std::string session_id,
                                                    std::string tool_call_id, FsBackend& backend) {
  // Not a coroutine: it returns request_permission's awaitable.
  return [this, session_id, tool_call_id, &backend](const std::string& shown,
                                                    const std::optional<std::string>& old_text,
                                                    const std::string& new_text) {
    auto abs = backend.resolve(shown);
    return request_permission(session_id, tool_call_id, shown, abs ? *abs : shown, old_text,
                              new_text);
  };
}

asio::awaitable<Result<void>> AcpDoor::request_permission(std::string session_id,
                                                          std::string tool_call_id,
                                                          std::string shown, std::string path,
                                                          std::optional<std::string> old_text,
                                                          std::string new_text) {
  if (always_allowed_.count(session_id)) co_return allowed();
  acp::Diff diff{path, std::move(old_text), std::move(new_text), std::nullopt};
  json params = acp::permission_params(session_id, tool_call_id, shown, diff);
  Result<json> answer = co_await client_.call(std::string(acp::kRequestPermission),
                                              std::move(params), options_.delegate_timeout);
  co_return permission_outcome(session_id, shown, answer);
}

Result<void> AcpDoor::permission_outcome(const std::string& session_id, const std::string& shown,
                                         const Result<json>& answer) {
  if (!answer) return client_call_failure(answer.error(), acp::kRequestPermission, shown);
  const acp::PermissionOutcome outcome = acp::decode_permission_outcome(*answer);
  using Kind = acp::PermissionOutcome::Kind;
  if (outcome.kind == Kind::kCancelled) return permission_refused(shown, "cancelled", nullptr);
  if (outcome.kind == Kind::kSelected) {
    if (outcome.option_id == acp::kAllowOnce) return allowed();
    if (outcome.option_id == acp::kAllowAlways) {
      always_allowed_.insert(session_id);
      return allowed();
    }
    return permission_refused(shown, "selected", outcome.option_id);
  }
  return Error(
      ErrorKind::kDelegateFailed,
      "the client answered session/request_permission for " + shown + " without a valid outcome",
      {{"path", shown}, {"method", acp::kRequestPermission}, {"answer", *answer}});
}

}  // namespace editd
