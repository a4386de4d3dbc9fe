// The MCP door: ping, tools/list and tools/call on a connection whose
// initialize asked for MCP (a string protocolVersion).
//
// Each registry method is one tool (server/doors/mcp.h: the tool list, the
// arguments, paging, the CallToolResult); a tool call runs its method with
// the context the ACP door gives every request of the connection (the local
// backend, approvals: server/doors/acp_door.h). Every error and isError shape
// is server/doors/mcp_errors.h's.
#pragma once

#include "server/doors/acp_door.h"
#include "server/doors/door.h"
#include "server/doors/registry.h"
#include "server/ops/known_fingerprints.h"

namespace editd {

class McpDoor : public Door {
 public:
  // All must outlive this; `known` is the connection's.
  McpDoor(const DoorOptions& options, const Registry& registry, AcpDoor& acp,
          KnownFingerprints& known);

  boost::asio::awaitable<Result<nlohmann::json>> dispatch(const protocol::Incoming& in,
                                                          std::shared_ptr<CancelState> cancel,
                                                          Arrivals::Place& place) override;
  nlohmann::json reply(const nlohmann::json& id, Result<nlohmann::json> result,
                       const CancelState& cancel) const override;
  nlohmann::json error_reply(const nlohmann::json& id, const Error& error) const override;
  bool attach_outside(nlohmann::json& reply, const std::vector<ops::OutsideChange>& changes,
                      bool truncated) const override;

 private:
  // tools/call: a failed operation is a result with isError; a call the
  // client cancelled fails cancelled (and gets no answer).
  // `id`: the request's, for the ledger.
  boost::asio::awaitable<Result<nlohmann::json>> call_tool(const nlohmann::json& params,
                                                           const nlohmann::json& id,
                                                           std::shared_ptr<CancelState> cancel,
                                                           Arrivals::Place& place);

  const DoorOptions& options_;
  const Registry& registry_;
  AcpDoor& acp_;
  KnownFingerprints& known_;
};

}  // namespace editd
