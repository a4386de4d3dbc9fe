// The MCP door: ping, tools/list and tools/call on a connection whose
// initialize asked for MCP (a string protocolVersion).
//
// Each registry method is one tool (server/doors/mcp.h: the tool list, the
// arguments, paging, the CallToolResult); a tool call runs its method with
// the context the ACP door gives every request of the connection (the local
// backend: server/doors/acp_door.h). Every error and isError shape
// is server/doors/mcp_errors.h's.
//
// Under --approve ask, a mutation asks the user once, before anything is
// written, with every file the call changes (elicitation/create:
// server/doors/mcp_approvals.h), when the client offered form elicitation
// at initialize; otherwise every mutation is refused (denied, reason
// no_elicitation). Reads and dry runs never ask. At most
// mcp::kMaxWaitingApprovals questions wait at once per connection; each waits
// at most --approve-timeout, and ends when its tools/call is cancelled.
#pragma once

#include <chrono>
#include <cstddef>

#include "server/doors/acp_door.h"
#include "server/doors/door.h"
#include "server/doors/registry.h"
#include "server/ops/known_fingerprints.h"

namespace editd {

// The MCP door's way to its client: a request that waits for the answer,
// and stops waiting when the request it is made for (`cancel`) is cancelled
// (then cancelled; the client is told with notifications/cancelled, as when
// `timeout` passes: then timeout). Other failures as ClientChannel::call's.
class McpClient {
 public:
  virtual ~McpClient() = default;
  virtual boost::asio::awaitable<Result<nlohmann::json>> ask(
      std::string method, nlohmann::json params, std::chrono::milliseconds timeout,
      std::shared_ptr<CancelState> cancel) = 0;
};

class McpDoor : public Door {
 public:
  // All must outlive this; `known` is the connection's, `client` the
  // connection itself.
  McpDoor(const DoorOptions& options, const Registry& registry, AcpDoor& acp,
          KnownFingerprints& known, McpClient& client);

  // The MCP initialize's params: whether the client can ask its user
  // (capabilities.elicitation, form mode).
  void initialize(const nlohmann::json& params);

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

  // --approve ask: the approval of one call's changes, asked of the user
  // (or refused when the client cannot ask).
  decltype(RequestContext::approve_all) approver(std::string tool,
                                                 std::shared_ptr<CancelState> cancel);
  boost::asio::awaitable<Result<void>> ask_approval(std::string tool,
                                                    std::vector<PendingChange> changes,
                                                    std::shared_ptr<CancelState> cancel);

  const DoorOptions& options_;
  const Registry& registry_;
  AcpDoor& acp_;
  KnownFingerprints& known_;
  McpClient& client_;
  bool elicitation_ = false;  // the client offered form elicitation
  std::size_t waiting_ = 0;   // questions waiting for the user
};

}  // namespace editd
