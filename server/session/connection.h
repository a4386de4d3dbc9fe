// One client connection: framing, message routing, replies and calls to the client.
//
// A connection has one reader coroutine and one writer coroutine (sends never
// overlap and need no mutex). The reader frames lines, answers malformed ones
// at once, and spawns one coroutine per request, so that many requests are in
// flight and replies go out as they finish. Every request gets exactly one
// reply; a reply that cannot be encoded becomes an internal error with the
// same id, and never ends the connection.
//
// Back-pressure, never a dropped request or reply (but for a client cut off
// with its connection, below):
// - at --max-inflight requests in flight the reader stops reading until one
//   finishes;
// - the bytes of replies queued for the client are bounded by
//   --max-queued-bytes: at the bound the reader stops reading and no parked
//   request starts until the client has read enough. Requests already in
//   flight still queue their replies, so a request starts only while the queue
//   has room for it and for those in flight, each counted at the size of the
//   largest recent reply (the first request of a connection runs alone). A
//   single reply larger than the bound is still sent whole.
// - the replies queued for all clients together count in one server-wide
//   budget (--max-queued-bytes-total, ServerContext::replies()): while it is
//   full no request of any connection starts (parked ones wait, and so does
//   the reader), and a connection whose client takes in less than a write
//   slice of its replies within --reply-stall-timeout meanwhile is cut off:
//   its replies and the connection are dropped, so that one client that stops
//   reading cannot hold the others back for longer than that.
//
// The connection knows no dialect's methods beyond routing. The plain methods
// and ACP go to AcpSessions (server/doors/acp_sessions.h: sessions, the delegated
// backend, approvals, session/update); the connection serves as its channel
// to the client (call(), notify()). While requests wait for the client's
// answers the reader goes on reading, so that those answers are seen even
// when every slot is taken: requests read meanwhile are parked in order (up
// to --max-inflight of them, then reading pauses) and started as slots free.
//
// The dialect is chosen per connection by initialize: a string protocolVersion
// means MCP (server/doors/mcp.h: tools/list, tools/call, ping; editd's own error
// codes never go out, a request cancelled by notifications/cancelled gets no
// answer); an integer, or no initialize at all, means the plain methods and
// ACP as above. Only one initialize succeeds per connection (later ones are
// refused), and a reply speaks the dialect its request started under.
//
// Threading: everything here runs on the connection's own I/O thread, the one
// whose io_context it was given (server/server.h); other threads reach it by a
// post there.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "backends/delegated/delegated_backend.h"
#include "protocol/message.h"
#include "server/doors/acp_sessions.h"
#include "server/doors/registry.h"
#include "server/ops/byte_budget.h"
#include "server/ops/operations.h"
#include "server/session/stream.h"

namespace editd {

class ServerContext;

class Connection : public std::enable_shared_from_this<Connection>, public ClientChannel {
 public:
  struct Settings {
    // TCP: the first request must be initialize with authToken, within
    // --auth-timeout; until then lines are limited to kUnauthenticatedLineBytes
    // and every line that is not a successful initialize counts toward the
    // three failures that close the connection. The connection holds one of
    // the server's unauthenticated admissions until it authenticates or ends.
    bool needs_auth = false;
  };

  // `io`: the context that runs the connection, the one its stream is on.
  Connection(ServerContext& server, boost::asio::io_context& io, std::unique_ptr<Stream> stream,
             Settings settings);
  ~Connection();

  // Serves until the input ends, stop() or shut_down(); then lets the requests
  // that have begun finish, writes every reply whole and closes the stream.
  boost::asio::awaitable<void> run();

  // Closes the input: nothing more is read. Requests in flight and parked ones
  // still run and their replies go out.
  void stop();
  // The server is shutting down: requests not started yet (parked, or read
  // from now on) answer `cancelled` without running; answers to calls to the
  // client are still read; once every started request has answered and its
  // reply is written, the connection closes.
  void shut_down();
  // Cancels every request in flight that has not begun writing: it answers
  // `cancelled` at its next check and changes nothing. Requests already
  // writing complete normally.
  void cancel_uncommitted();
  // From now on, a client that takes in less than a write slice (1 MiB) of
  // its queued replies within `limit` loses them and the connection: a reply
  // may then be cut short.
  void limit_stall(std::chrono::steady_clock::duration limit);
  std::string peer() const { return stream_->peer(); }
  boost::asio::io_context& io() const { return io_; }

  // Calls a method on the client and waits for its answer (ACP reverse
  // requests, e.g. fs/read_text_file). timeout -> timeout error; a client error
  // keeps its code and message in data.
  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout) override;
  void notify(std::string method, nlohmann::json params);

 private:
  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> watch_stall();
  // Cuts the connection off when its client stalls while the server-wide
  // reply budget is full (--reply-stall-timeout).
  boost::asio::awaitable<void> watch_replies();
  // Whether the server-wide reply budget lets one more request of this
  // connection start.
  bool replies_room() const;
  // Retries the parked requests shortly: the server-wide reply budget frees
  // up as other connections' clients read, which no event here tells.
  void retry_parked_soon();
  // Closes the connection if it has not authenticated within --auth-timeout.
  boost::asio::awaitable<void> watch_auth();
  // A line before authentication that is not an initialize request: one
  // failure more.
  void count_unauthenticated_line();
  void release_admission();
  boost::asio::awaitable<void> trim_when_idle();
  boost::asio::awaitable<void> wait_for_slot();
  // Whether a parked request may start now (--max-inflight, --max-queued-bytes).
  bool may_start() const;
  void start_parked();
  // Answers a request that will not run because the server is shutting down.
  void refuse(const protocol::Incoming& in);
  // Sends the reply of a finished request and frees its slot.
  void finish_request(const protocol::Incoming& in, const std::string& key, const nlohmann::json& reply,
                      std::chrono::steady_clock::time_point started);
  // The client is gone or abandoned: queued and future output is dropped,
  // parked requests with it, and reading stops.
  void fail_output(const std::string& why);
  // What a long message holds in the server's message budget, kept by its
  // request until it finishes. `overdraft` is set for the one request line a
  // connection may hold past the budget while editd waits for its client's
  // answer (see read_loop).
  struct MessageHold {
    ByteBudget::Hold bytes;
    std::shared_ptr<void> overdraft;
  };
  void on_message(protocol::Incoming in, MessageHold hold = {});
  void on_oversize(std::size_t limit);
  // The hold of a long line's bytes in the server's message budget, once
  // there is room; `over` when it was taken past the budget instead, as
  // editd waits for this client's answer and the line may be it (see the
  // definition).
  boost::asio::awaitable<ByteBudget::Hold> hold_message(std::size_t line_bytes, bool& over);
  // A message taken past the budget that is not an answer: held until the
  // budget has room for it or this connection's overdraft is free.
  boost::asio::awaitable<void> wait_overdraft();
  // Whether a message is the answer to one of editd's calls to the client.
  bool is_answer(const protocol::Incoming& in) const;
  void on_response(protocol::Incoming in);
  void on_notification(const protocol::Incoming& in);
  // `place`: the request's among this connection's (server/ops/lock_chain.h),
  // taken as it starts.
  boost::asio::awaitable<void> handle(protocol::Incoming in, Arrivals::Place place,
                                      MessageHold hold);
  boost::asio::awaitable<Result<nlohmann::json>> dispatch(protocol::Incoming& in,
                                                          std::shared_ptr<CancelState> cancel,
                                                          Arrivals::Place& place);
  // MCP's tools/call: a failed operation is a result with isError.
  boost::asio::awaitable<Result<nlohmann::json>> call_tool(const nlohmann::json& params,
                                                           std::shared_ptr<CancelState> cancel,
                                                           Arrivals::Place& place);
  // Checks the token (TCP), then answers in the dialect the params ask for,
  // which holds from then on. Once one has succeeded, every later initialize
  // is refused (invalid_request) and changes nothing.
  Result<nlohmann::json> initialize(const nlohmann::json& params);
  Result<void> authenticate(const std::optional<std::string>& token);
  enum class Dialect { kPlain, kMcp };
  // The error reply to a request, in this connection's dialect, or in `dialect`.
  nlohmann::json error_reply(const nlohmann::json& id, const Error& error) const;
  static nlohmann::json error_reply(const nlohmann::json& id, const Error& error, Dialect dialect);
  // Queues one line for the writer; its size in bytes (0 if dropped).
  std::size_t send(const nlohmann::json& message);
  void wake(boost::asio::steady_timer& timer) { timer.cancel(); }

  ServerContext& server_;
  boost::asio::io_context& io_;
  std::unique_ptr<Stream> stream_;
  Settings settings_;

  bool reading_ = true;
  bool refusing_ = false;       // shut_down(): requests not started answer cancelled
  bool closing_ = false;        // nothing more will be queued: the writer ends when empty
  bool output_failed_ = false;  // fail_output(): replies are dropped
  bool finished_ = false;
  std::size_t inflight_ = 0;
  std::deque<std::string> out_;
  std::size_t front_written_ = 0;  // bytes of out_.front() already written
  std::size_t queued_bytes_ = 0;   // bytes in out_ and in the write under way
  ByteBudget::Hold queued_hold_;   // queued_bytes_, in the server's reply budget
  std::size_t reply_estimate_;     // bytes a request in flight is expected to queue
  std::chrono::steady_clock::time_point last_progress_;  // of the writer, while bytes are queued
  std::optional<std::chrono::steady_clock::duration> stall_limit_;
  boost::asio::steady_timer out_signal_;
  boost::asio::steady_timer slot_signal_;
  boost::asio::steady_timer stall_timer_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer auth_timer_;
  boost::asio::steady_timer reply_stall_timer_;
  boost::asio::steady_timer retry_timer_;
  bool retry_armed_ = false;
  bool idle_parked_ = false;  // trim_when_idle() waits for the next write

  // Requests in flight, by id (JSON-serialised), for $/cancel_request and
  // cancel_uncommitted(). A client may reuse an id.
  std::multimap<std::string, std::shared_ptr<CancelState>> requests_;
  KnownFingerprints known_;
  // The order in which this connection's requests join the lock chains.
  std::shared_ptr<Arrivals> arrivals_ = Arrivals::make();

  bool authenticated_ = false;
  bool admitted_ = false;  // holds one of the server's unauthenticated admissions
  int auth_failures_ = 0;
  bool initialized_ = false;  // an initialize has succeeded
  Dialect dialect_ = Dialect::kPlain;

  // Requests read while every slot is taken and calls to the client wait.
  struct Parked {
    protocol::Incoming in;
    MessageHold hold;
  };
  std::deque<Parked> parked_;
  // The request line held past the message budget, while it lives (expired:
  // none).
  std::weak_ptr<void> overdraft_;

  // ACP: where files live, sessions (session/new), approvals, announcements.
  AcpSessions acp_;

  // Calls to the client waiting for their answers, by our request id.
  struct PendingCall;
  std::map<std::int64_t, std::shared_ptr<PendingCall>> pending_;
  std::int64_t next_call_id_ = 1;
};

}  // namespace editd
