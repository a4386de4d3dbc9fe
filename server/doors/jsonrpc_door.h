// The plain JSON-RPC door: editd's own methods, and ACP's session/new, on a
// connection that did not ask for MCP.
//
// A request names a registry method (server/doors/registry.h, with or without
// the "_edit/" and "edit/" prefixes) and gets its result, or a JSON-RPC error
// with editd's own code for its kind (protocol/error.h). Each method runs with
// the context the ACP door gives it (server/doors/acp_door.h: the request's
// session and backend, approvals, session/update).
#pragma once

#include "server/doors/acp_door.h"
#include "server/doors/door.h"
#include "server/doors/registry.h"
#include "server/ops/known_fingerprints.h"

namespace editd {

class JsonRpcDoor : public Door {
 public:
  // All must outlive this; `known` is the connection's.
  JsonRpcDoor(const Registry& registry, AcpDoor& acp, KnownFingerprints& known);

  boost::asio::awaitable<Result<nlohmann::json>> dispatch(const protocol::Incoming& in,
                                                          std::shared_ptr<CancelState> cancel,
                                                          Arrivals::Place& place) override;
  nlohmann::json reply(const nlohmann::json& id, Result<nlohmann::json> result,
                       const CancelState& cancel) const override;
  nlohmann::json error_reply(const nlohmann::json& id, const Error& error) const override;
  bool attach_outside(nlohmann::json& reply, const std::vector<ops::OutsideChange>& changes,
                      bool truncated) const override;

 private:
  const Registry& registry_;
  AcpDoor& acp_;
  KnownFingerprints& known_;
};

}  // namespace editd
