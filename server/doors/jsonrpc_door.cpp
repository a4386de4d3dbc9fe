#include "server/doors/jsonrpc_door.h"

#include "protocol/acp.h"
#include "server/doors/outside_changes.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;

JsonRpcDoor::JsonRpcDoor(const Registry& registry, AcpDoor& acp, KnownFingerprints& known)
    : registry_(registry), acp_(acp), known_(known) {}

asio::awaitable<Result<json>> JsonRpcDoor::dispatch(const protocol::Incoming& in,
                                                    std::shared_ptr<CancelState> cancel,
                                                    Arrivals::Place& place) {
  std::string_view method = Registry::bare_method(in.method);
  if (method == acp::kSessionNew) co_return acp_.new_session(in.params);
  const Method* m = registry_.find(method);
  if (!m) co_return method_not_found(in.method);
  auto call = acp_.prepare(*m, in.params, std::move(cancel), &known_, &place);
  if (call) (*call)->context->actor.request_id = in.id.dump();
  if (!call) co_return call.error();
  Result<json> result = co_await registry_.run(*m, *(*call)->context, in.params);
  acp_.report(**call, *m, result);
  co_return result;
}

json JsonRpcDoor::reply(const json& id, Result<json> result, const CancelState&) const {
  if (result) return protocol::make_result(id, std::move(*result));
  return protocol::make_error(id, result.error());
}

json JsonRpcDoor::error_reply(const json& id, const Error& error) const {
  return protocol::make_error(id, error);
}

bool JsonRpcDoor::attach_outside(json& reply, const std::vector<ops::OutsideChange>& changes,
                                 bool truncated) const {
  return outside::attach_plain(reply, changes, truncated);
}

}  // namespace editd
