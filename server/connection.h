// One client connection: framing, message routing, replies and calls to the client.
//
// A connection has one reader coroutine and one writer coroutine (sends never
// overlap and need no mutex). The reader frames lines, answers malformed ones
// at once, and spawns one coroutine per request, so that many requests are in
// flight and replies go out as they finish. At --max-inflight requests in
// flight the reader stops reading until one finishes: back-pressure, never a
// dropped request. Every request gets exactly one reply.
//
// An ACP client that offers fs/read_text_file and fs/write_text_file gets the
// delegated backend (backends/delegated_backend.h): the connection answers the
// backend's requests to the client itself (call()). While requests wait for
// the client's answers the reader goes on reading, so that those answers are
// seen even when every slot is taken: requests read meanwhile are parked in
// order (up to --max-inflight of them, then reading pauses) and started as
// slots free.
// With a session (session/new) each mutation is announced to the client with
// session/update notifications, and with --approve ask the client is asked
// (session/request_permission) before each write.
//
// Threading: everything here runs on the server's single I/O thread.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "backends/delegated_backend.h"
#include "protocol/message.h"
#include "server/dispatcher.h"
#include "server/operations.h"
#include "server/stream.h"

namespace editd {

class ServerContext;

class Connection : public std::enable_shared_from_this<Connection>, public ClientChannel {
 public:
  struct Settings {
    bool needs_auth = false;  // TCP: the first request must be initialize with authToken
  };

  Connection(ServerContext& server, std::unique_ptr<Stream> stream, Settings settings);
  ~Connection();

  // Serves until the client closes (or stop() is called), then lets requests in
  // flight finish, flushes the replies and returns.
  boost::asio::awaitable<void> run();

  // Stops reading new requests; requests in flight still complete.
  void stop();
  // True when nothing is in flight and every reply has been written.
  bool idle() const { return inflight_ == 0 && parked_.empty() && out_.empty() && !writing_; }
  std::string peer() const { return stream_->peer(); }

  // Calls a method on the client and waits for its answer (ACP reverse
  // requests, e.g. fs/read_text_file). timeout -> timeout error; a client error
  // keeps its code and message in data.
  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout) override;
  void notify(std::string method, nlohmann::json params);

 private:
  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> wait_for_slot();
  void start_parked();
  void on_line(std::string line);
  void on_oversize(std::size_t limit);
  void on_response(protocol::Incoming in);
  void on_notification(const protocol::Incoming& in);
  boost::asio::awaitable<void> handle(protocol::Incoming in);
  boost::asio::awaitable<Result<nlohmann::json>> dispatch(protocol::Incoming& in,
                                                          std::shared_ptr<CancelState> cancel);
  // An edit method, with its session's backend, approvals and announcements.
  boost::asio::awaitable<Result<nlohmann::json>> edit(const Dispatcher::Handler& handler,
                                                      protocol::Incoming& in,
                                                      std::shared_ptr<CancelState> cancel);
  Result<nlohmann::json> initialize(const nlohmann::json& params);
  Result<nlohmann::json> new_session(const nlohmann::json& params);
  // The session a request names (sessionId), else the latest, else the connection's own id.
  Result<std::string> session_for(const nlohmann::json& params);
  std::unique_ptr<FsBackend> delegated_backend(const std::string& session_id);
  boost::asio::awaitable<Result<void>> request_permission(std::string session_id,
                                                          std::string tool_call_id,
                                                          std::string shown, std::string path,
                                                          std::optional<std::string> old_text,
                                                          std::string new_text);
  Result<void> permission_outcome(const std::string& session_id, const std::string& shown,
                                  const Result<nlohmann::json>& answer);
  // The approve hook of a request: asks the client unless the session chose allow_always.
  decltype(RequestContext::approve) approver(std::string session_id, std::string tool_call_id,
                                             FsBackend& backend);
  void send(const nlohmann::json& message);
  void wake(boost::asio::steady_timer& timer) { timer.cancel(); }

  ServerContext& server_;
  std::unique_ptr<Stream> stream_;
  Settings settings_;

  bool reading_ = true;
  bool closing_ = false;
  bool writing_ = false;
  std::size_t inflight_ = 0;
  std::deque<std::string> out_;
  boost::asio::steady_timer out_signal_;
  boost::asio::steady_timer slot_signal_;

  // Requests in flight, by id (JSON-serialised), for $/cancel_request.
  std::map<std::string, std::shared_ptr<CancelState>> requests_;
  KnownFingerprints known_;

  bool authenticated_ = false;
  int auth_failures_ = 0;
  bool initialized_ = false;
  nlohmann::json client_capabilities_ = nlohmann::json::object();

  // Requests read while every slot is taken and calls to the client wait.
  std::deque<protocol::Incoming> parked_;

  // ACP: where files live, sessions (session/new), approvals.
  bool delegated_ = false;
  std::string root_;  // the canonical root, for the delegated backend
  std::set<std::string> sessions_;
  std::string latest_session_;
  std::string own_session_;               // used before any session/new
  std::set<std::string> always_allowed_;  // sessions that chose allow_always
  std::string id_prefix_;
  std::uint64_t next_session_ = 1;
  std::uint64_t next_tool_call_ = 1;

  // Calls to the client waiting for their answers, by our request id.
  struct PendingCall;
  std::map<std::int64_t, std::shared_ptr<PendingCall>> pending_;
  std::int64_t next_call_id_ = 1;
};

}  // namespace editd
