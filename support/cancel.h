// The cancellation state of one request, shared between the connection that
// can cancel it ($/cancel_request, MCP's notifications/cancelled, shutdown)
// and the operation that runs it. An operation checks `cancelled` after it
// holds its files and before it writes, and sets `committed` when the write
// begins: from then on the request completes and answers normally.
#pragma once

namespace editd {

struct CancelState {
  bool cancelled = false;
  bool committed = false;  // the write has begun: too late to cancel
  // Cancelled by the client (MCP's notifications/cancelled), not by shutdown:
  // on MCP such a request gets no answer.
  bool by_client = false;
};

}  // namespace editd
