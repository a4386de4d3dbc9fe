// One client connection: the wiring of its transport, its authentication, its
// dispatcher and its dialect's door.
//
// - server/session/transport.h frames lines, reads and writes them and holds
//   back-pressure (what one connection may hold: connection_limits.h);
// - server/session/auth.h checks a TCP connection's token;
// - server/session/dispatcher.h guarantees one reply per request, keeps the
//   cancel table and the bounded table of calls to the client;
// - the door answers requests in the connection's dialect.
//
// The dialect is chosen per connection by initialize: a string protocolVersion
// means MCP (server/doors/mcp_door.h: tools/list, tools/call, ping; editd's own
// error codes never go out, a request cancelled by notifications/cancelled
// gets no answer: server/doors/mcp_errors.h); an integer, or no initialize at
// all, means the plain methods and ACP (server/doors/jsonrpc_door.h,
// server/doors/acp_door.h: sessions, the delegated backend, approvals,
// session/update), for which the connection serves as the channel to the
// client (call(), notify()). Each door (server/doors/door.h) shapes its
// dialect's replies and errors. Only one initialize succeeds per connection
// (later ones are refused), and a reply speaks the dialect its request
// started under.
//
// Before each request other than initialize, the connection looks for
// changes made outside it to the files it knows (server/session/outside_watch.h
// says which may have changed; Operations::outside_changes which did), and
// its door adds them to that request's reply, or to the next one that can
// carry them (docs/protocol.md, "Changes made outside").
//
// Threading: everything here runs on the connection's own I/O thread, the one
// whose io_context it was given (server/server.h); other threads reach it by a
// post there.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "backends/delegated/delegated_backend.h"
#include "protocol/message.h"
#include "server/doors/acp_door.h"
#include "server/doors/jsonrpc_door.h"
#include "server/doors/mcp_door.h"
#include "server/doors/registry.h"
#include "server/ops/operations.h"
#include "server/session/auth.h"
#include "server/session/dispatcher.h"
#include "server/session/outside_watch.h"
#include "server/session/stream.h"
#include "server/session/transport.h"

namespace editd {

class ServerContext;

class Connection : public std::enable_shared_from_this<Connection>,
                   public ClientChannel,
                   public McpClient,
                   private Transport::Receiver {
 public:
  struct Settings {
    // TCP: the first request must be initialize with authToken, within
    // --auth-timeout (server/session/auth.h). The connection holds one of the
    // server's unauthenticated admissions until it authenticates or ends.
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
  void stop() { transport_.stop(); }
  // The server is shutting down: requests not started yet (parked, or read
  // from now on) answer `cancelled` without running; answers to calls to the
  // client are still read; once every started request has answered and its
  // reply is written, the connection closes.
  void shut_down() { transport_.refuse_new(); }
  // Cancels every request in flight that has not begun writing: it answers
  // `cancelled` at its next check and changes nothing. Requests already
  // writing complete normally.
  void cancel_uncommitted() { requests_.cancel_uncommitted(); }
  // From now on, a client that takes in less than a write slice (1 MiB) of
  // its queued replies within `limit` loses them and the connection: a reply
  // may then be cut short.
  void limit_stall(std::chrono::steady_clock::duration limit) { transport_.limit_stall(limit); }
  std::string peer() const { return transport_.peer(); }
  boost::asio::io_context& io() const { return io_; }

  // Calls a method on the client and waits for its answer (ACP reverse
  // requests, e.g. fs/read_text_file): server/session/dispatcher.h's
  // OutgoingCalls::call.
  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout) override;
  // McpClient: a call that ends when `cancel` is cancelled, and tells the
  // client it was abandoned (notifications/cancelled) on a timeout or cancel.
  boost::asio::awaitable<Result<nlohmann::json>> ask(std::string method, nlohmann::json params,
                                                     std::chrono::milliseconds timeout,
                                                     std::shared_ptr<CancelState> cancel) override;
  void notify(std::string method, nlohmann::json params);

 private:
  // Transport::Receiver.
  void on_message(protocol::Incoming in) override;
  void on_oversize(std::size_t limit) override;
  boost::asio::awaitable<std::size_t> serve(protocol::Incoming in, MessageHold hold) override;
  void refuse(const protocol::Incoming& in) override;
  std::uint64_t line_limit() const override;
  bool awaits_answers() const override { return !calls_.empty(); }
  bool is_answer(const protocol::Incoming& in) const override;
  void on_input_end() override { calls_.close(); }

  // Closes the connection if it has not authenticated within --auth-timeout.
  boost::asio::awaitable<void> watch_auth();
  // A line before authentication that is not an initialize request: one
  // failure more.
  void count_unauthenticated_line();
  void on_notification(const protocol::Incoming& in);
  // `place`: the request's among this connection's (support/lock_chain.h),
  // taken as it starts.
  boost::asio::awaitable<std::size_t> handle(protocol::Incoming in, Arrivals::Place place,
                                             MessageHold hold);
  // initialize and authentication here, then the door of the connection's dialect.
  boost::asio::awaitable<Result<nlohmann::json>> dispatch(protocol::Incoming& in,
                                                          std::shared_ptr<CancelState> cancel,
                                                          Arrivals::Place& place);
  // Checks the token (TCP), then answers in the dialect the params ask for,
  // which holds from then on. Once one has succeeded, every later initialize
  // is refused (invalid_request) and changes nothing.
  Result<nlohmann::json> initialize(const nlohmann::json& params);
  Result<void> authenticate(const std::optional<std::string>& token);
  enum class Dialect { kPlain, kMcp };
  Door& door(Dialect dialect);
  // The error reply to a request, in this connection's dialect.
  nlohmann::json error_reply(const nlohmann::json& id, const Error& error);

  // Changes made outside this connection: whether a request of `method`
  // looks for them and is told them (not initialize, not before
  // authentication, not on a connection whose files are the client's);
  // the look, which leaves what it found in pending_outside_; the notices
  // added to `reply` by `door`, if it can carry them.
  bool looks_outside(std::string_view method) const;
  boost::asio::awaitable<void> look_outside();
  void tell_outside(nlohmann::json& reply, const Door& door);
  // After a request: the directories of the files it taught the connection
  // watched, each file to be looked at once by the next look.
  void watch_learned();
  // A known file whose directory is not watched: stat-checked on each look.
  void unwatched(const std::string& canonical);

  ServerContext& server_;
  boost::asio::io_context& io_;
  Transport transport_;
  Auth auth_;
  CancelTable requests_;
  OutgoingCalls calls_;
  KnownFingerprints known_;
  // Changes made outside: this connection's inbox in the server's watch,
  // the known files whose directory it does not watch (at most
  // kMaxUnwatched; past it, scan_recent_: the most recently used are
  // stat-checked on every look), the notices not told yet (at most
  // kMaxOutsideNotices) and whether more wait.
  std::shared_ptr<OutsideWatch::Inbox> inbox_;
  std::set<std::string> unwatched_;
  bool scan_recent_ = false;
  std::vector<ops::OutsideChange> pending_outside_;
  bool pending_truncated_ = false;
  // The order in which this connection's requests join the lock chains.
  std::shared_ptr<Arrivals> arrivals_ = Arrivals::make();

  bool initialized_ = false;  // an initialize has succeeded
  Dialect dialect_ = Dialect::kPlain;

  // ACP: where files live, sessions (session/new), approvals, announcements.
  AcpDoor acp_;
  JsonRpcDoor plain_door_;
  McpDoor mcp_door_;
};

}  // namespace editd
