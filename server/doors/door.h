// A front door: how one dialect answers requests, and how its replies and
// errors look.
//
// A connection speaks one dialect, chosen by its initialize
// (server/session/connection.h): editd's plain JSON-RPC methods, with ACP on
// the same connection (server/doors/jsonrpc_door.h), or MCP
// (server/doors/mcp_door.h). The connection frames lines, authenticates,
// routes initialize and guarantees one reply per request
// (server/session/dispatcher.h); the door answers every other request and
// shapes every reply of its dialect, errors included.
//
// Threading: the connection's I/O thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "protocol/error.h"
#include "protocol/message.h"
#include "server/ops/requests.h"
#include "support/cancel.h"
#include "support/lock_chain.h"

namespace editd {

class Door {
 public:
  virtual ~Door() = default;

  // Answers an authenticated request other than initialize: its result, or
  // the error to reply with. `cancel` is the request's own (cancelled by the
  // client or by shutdown), `place` its place among the connection's requests
  // (support/lock_chain.h). Never throws for a request's fault; an
  // exception is a bug, answered as an internal error.
  virtual boost::asio::awaitable<Result<nlohmann::json>> dispatch(
      const protocol::Incoming& in, std::shared_ptr<CancelState> cancel,
      Arrivals::Place& place) = 0;

  // The reply to the request `id` that finished with `result`; null when the
  // dialect sends none (MCP: a request the client cancelled).
  virtual nlohmann::json reply(const nlohmann::json& id, Result<nlohmann::json> result,
                               const CancelState& cancel) const = 0;

  // The error reply to the request `id` (null id: a line that could not be
  // read as one), as this dialect shapes it.
  virtual nlohmann::json error_reply(const nlohmann::json& id, const Error& error) const = 0;

  // Adds the changes made outside the connection to `reply` (one of this
  // door's), as the dialect carries them (server/doors/outside_changes.h);
  // `truncated`: more follow. False when this reply cannot carry them: they
  // wait for the next.
  virtual bool attach_outside(nlohmann::json& reply,
                              const std::vector<ops::OutsideChange>& changes,
                              bool truncated) const = 0;
};

// No such method in the connection's dialect.
inline Error method_not_found(const std::string& method) {
  return Error(ErrorKind::kMethodNotFound, "method not found: " + method, {{"method", method}});
}

}  // namespace editd
