// The cancellation state of one request, shared between the connection that
// can cancel it ($/cancel_request, MCP's notifications/cancelled, shutdown)
// and the operation that runs it. An operation checks `cancelled` after it
// holds its files and before it writes, and sets `committed` when the write
// begins: from then on the request completes and answers normally.
#pragma once

#include <functional>

namespace editd {

struct CancelState {
  bool cancelled = false;
  bool committed = false;  // the write has begun: too late to cancel
  // Cancelled by the client (MCP's notifications/cancelled), not by shutdown:
  // on MCP such a request gets no answer.
  bool by_client = false;
  // Set by whoever waits on the request's behalf (a call to the client):
  // run once when the request is cancelled, to end the wait. It must not
  // resume the request inline (post the resumption).
  std::function<void()> on_cancel;

  // Cancels the request, and wakes what waits for it.
  void cancel(bool client) {
    cancelled = true;
    if (client) by_client = true;
    if (on_cancel) {
      auto wake = std::move(on_cancel);
      on_cancel = nullptr;
      wake();
    }
  }
};

}  // namespace editd
