// One client connection: framing, message routing, replies and calls to the client.
//
// A connection has one reader coroutine and one writer coroutine (sends never
// overlap and need no mutex). The reader frames lines, answers malformed ones
// at once, and spawns one coroutine per request, so that many requests are in
// flight and replies go out as they finish. At --max-inflight requests in
// flight the reader stops reading until one finishes: back-pressure, never a
// dropped request. Every request gets exactly one reply.
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
#include <string>

#include "protocol/message.h"
#include "server/operations.h"
#include "server/stream.h"

namespace editd {

class ServerContext;

class Connection : public std::enable_shared_from_this<Connection> {
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
  bool idle() const { return inflight_ == 0 && out_.empty() && !writing_; }
  std::string peer() const { return stream_->peer(); }

  // Calls a method on the client and waits for its answer (ACP reverse
  // requests, e.g. fs/read_text_file). timeout -> timeout error; a client error
  // keeps its code and message in data.
  boost::asio::awaitable<Result<nlohmann::json>> call(std::string method, nlohmann::json params,
                                                      std::chrono::milliseconds timeout);
  void notify(std::string method, nlohmann::json params);

 private:
  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> wait_for_slot();
  void on_line(std::string line);
  void on_oversize(std::size_t limit);
  void on_response(protocol::Incoming in);
  void on_notification(const protocol::Incoming& in);
  boost::asio::awaitable<void> handle(protocol::Incoming in);
  boost::asio::awaitable<Result<nlohmann::json>> dispatch(protocol::Incoming& in,
                                                          RequestContext& ctx);
  Result<nlohmann::json> initialize(const nlohmann::json& params);
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

  // Calls to the client waiting for their answers, by our request id.
  struct PendingCall;
  std::map<std::int64_t, std::shared_ptr<PendingCall>> pending_;
  std::int64_t next_call_id_ = 1;
};

}  // namespace editd
