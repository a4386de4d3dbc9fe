// The dispatcher's guarantees: exactly one reply per request, the cancel
// table, and the bounded table of calls to the client.
//
// As clangd's MessageHandler sits between the transport and the server, these
// sit between the connection's transport (server/session/transport.h) and its
// door (server/doors/door.h):
// - ReplyOnce: a request is answered once. A second reply is not sent, a
//   request dropped without any is noticed; either is a bug, asserted in debug
//   builds and logged in release ones. A reply deliberately withheld (MCP: a
//   request the client cancelled) says so.
// - CancelTable: the requests in flight by id, for $/cancel_request,
//   $/cancelRequest and MCP's notifications/cancelled (the client's), and for
//   cancel_uncommitted() (the server's shutdown). A client may reuse an id:
//   each request with it is cancelled.
// - OutgoingCalls: editd's requests to the client (the delegated backend's
//   fs/*, ACP's session/request_permission, MCP's elicitation/create), one typed entry per call waiting
//   for its answer, matched by id, at most ConnectionLimits::max_outgoing_calls
//   at once. Past the cap a call fails at once with delegate_failed, nothing
//   sent; a call not answered within its timeout fails with timeout; an answer
//   with an id that no call waits for (unknown, or late after a timeout) is
//   ignored; when the connection closes every waiting call fails at once with
//   delegate_failed (docs/protocol.md, "Errors from the client").
//
// Threading: the connection's I/O thread.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/error.h"
#include "protocol/message.h"
#include "support/cancel.h"

namespace editd {

// One request's reply, sent at most once. `send` queues a reply; it must
// outlive this.
class ReplyOnce {
 public:
  using Send = std::function<void(const nlohmann::json& reply)>;
  ReplyOnce(std::string method, std::string key, Send send);
  // Noticed (assert in debug, log in release) if neither reply() nor withhold() ran.
  ~ReplyOnce();
  ReplyOnce(const ReplyOnce&) = delete;
  ReplyOnce& operator=(const ReplyOnce&) = delete;

  // Sends `reply`, the request's one; a second reply (or one after
  // withhold()) is not sent, but noticed.
  void reply(const nlohmann::json& reply);
  // The request is deliberately left unanswered (MCP's cancelled requests).
  void withhold();
  bool done() const { return done_; }

  // How many replies were refused as second ones, or found missing, since the
  // start: 0 unless there is a bug (the tests look).
  static std::uint64_t mistakes();
  // Whether a mistake asserts (debug builds only; on by default). A test that
  // provokes mistakes turns it off meanwhile; the previous value is returned.
  static bool assert_on_mistake(bool on);

 private:
  std::string method_;
  std::string key_;
  Send send_;
  bool done_ = false;
};

class CancelTable {
 public:
  using Entry = std::multimap<std::string, std::shared_ptr<CancelState>>::iterator;

  // A request with `id` starts: its cancel state, until remove().
  Entry add(const nlohmann::json& id);
  void remove(Entry entry);
  static const std::shared_ptr<CancelState>& state(Entry entry) { return entry->second; }

  // Whether a notification method is a cancellation ($/cancel_request,
  // $/cancelRequest, notifications/cancelled; prefixes stripped already).
  static bool is_cancel(std::string_view method);
  // The client cancels the requests its params name (requestId, else id): each
  // one in flight that has not begun writing answers cancelled (by_client).
  // Unknown ids are ignored.
  void cancel_by_client(const nlohmann::json& params);
  // Every request in flight that has not begun writing answers cancelled.
  void cancel_uncommitted();
  std::size_t size() const { return requests_.size(); }

 private:
  std::multimap<std::string, std::shared_ptr<CancelState>> requests_;
};

// One call to the client waiting for its answer.
struct OutgoingCall {
  std::string method;
  std::chrono::milliseconds timeout{0};
  // Completes the caller; empty once completed (answered, timed out, failed).
  std::optional<boost::asio::any_completion_handler<void(Result<nlohmann::json>)>> handler;
};

class OutgoingCalls {
 public:
  // `send` queues a request line for the client; it must outlive this.
  using Send = std::function<void(const nlohmann::json& request)>;
  OutgoingCalls(boost::asio::io_context& io, std::size_t cap, Send send);
  OutgoingCalls(const OutgoingCalls&) = delete;
  OutgoingCalls& operator=(const OutgoingCalls&) = delete;

  // Sends `method` to the client and waits for its answer: the answer's
  // result; its error (a client error keeps its code and message in data);
  // timeout after `timeout`; delegate_failed at once when `cap` calls wait
  // already, or after close(). With `cancel` (the request the call is made
  // for), cancelling that request ends the wait at once: cancelled. With
  // `abandoned` (e.g. MCP's notifications/cancelled), a call ended by its
  // timeout or its request's cancellation tells the client so: that
  // notification, with requestId and reason. The owner of this must outlive
  // the wait.
  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout,
                                                      std::shared_ptr<CancelState> cancel = nullptr,
                                                      std::string abandoned = {});
  // Whether a call waits for an answer with this id.
  bool expects(const nlohmann::json& id) const;
  bool empty() const { return pending_.empty(); }
  std::size_t size() const { return pending_.size(); }
  std::size_t cap() const { return cap_; }
  // Completes the call the answer `in` (a response, or an invalid message
  // turned into one) is for; false when no call waits for its id (ignored).
  bool answer(protocol::Incoming in);
  // The client can no longer answer: every waiting call fails with
  // delegate_failed (posted, not run inside this), and later calls fail at once.
  void close();

 private:
  boost::asio::io_context& io_;
  std::size_t cap_;
  Send send_;
  bool closed_ = false;
  std::map<std::int64_t, std::shared_ptr<OutgoingCall>> pending_;
  std::int64_t next_id_ = 1;
};

// A fault of editd's own (an exception where none was expected): internal.
Error internal_error(const std::string& what);

// What a call to the client, or a request that needs one, gets once the
// client's connection is closed: delegate_failed.
Error connection_closed();

}  // namespace editd
