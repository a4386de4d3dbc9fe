// The ACP door: sessions, where files live, approvals and announcements.
//
// ACP is served on the plain dialect's connections (server/doors/jsonrpc_door.h).
// Each registry method a door runs gets its request's context from prepare()
// and is reported with report(); between the two the door runs the method:
// - Files live on the local backend, or, when the client offered
//   fs/read_text_file and fs/write_text_file at initialize (and the server is
//   not --backend local), in the client's buffers through a delegated backend
//   made per request with the request's session id.
// - session/new makes a session; a request names one with sessionId, or gets
//   the latest. A delegated connection with no session uses an id of its own
//   (ACP clients refuse fs/* requests without one).
// - With a session, each mutation that is not a dry run is announced with
//   session/update: a pending tool_call before it runs (prepare), a
//   tool_call_update (completed with each file's diff, or failed) after
//   (report).
// - Under --approve ask, each write first asks the client
//   (session/request_permission); allow_always holds for the rest of the
//   session. MCP connections ask their own way instead (server/doors/mcp_door.h).
// The wire shapes are protocol/acp.h's; this class holds the state.
//
// Threading: the connection's I/O thread, like the connection.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/delegated/delegated_backend.h"
#include "protocol/error.h"
#include "server/doors/door_options.h"
#include "server/doors/registry.h"
#include "server/ops/operations.h"

namespace editd {

// One request's run: its session, backend and context, from prepare() to report().
struct AcpCall {
  std::string session;
  std::string tool_call_id;
  bool announce = false;
  std::unique_ptr<FsBackend> delegated;  // the request's backend, when files are the client's
  std::vector<ChangeReport> changes;
  std::optional<RequestContext> context;  // the method runs with this
};

class AcpDoor {
 public:
  using Notify = std::function<void(std::string method, nlohmann::json params)>;

  // `options`, `operations`, `local` (the local backend) and `registry` are
  // the server's, shared by every connection; `client` makes calls to the
  // client and `notify` sends it notifications, both the connection's. All
  // must outlive this.
  AcpDoor(const DoorOptions& options, Operations& operations, FsBackend& local,
          const Registry& registry, ClientChannel& client, Notify notify);
  // Forgets the views this connection read (server/ops/views.h).
  ~AcpDoor();
  AcpDoor(const AcpDoor&) = delete;
  AcpDoor& operator=(const AcpDoor&) = delete;

  // The ACP initialize (already authenticated): decides from the client's
  // capabilities where files live, and returns the initialize result.
  Result<nlohmann::json> initialize(const nlohmann::json& client_capabilities);
  // session/new.
  Result<nlohmann::json> new_session(const nlohmann::json& params);
  // Who the client says it is at initialize (clientInfo), the dialect it
  // speaks and its socket peer: what the ledger records of its changes.
  void set_client(const nlohmann::json& client_info, std::string door, std::string peer);
  // The run of a registry method on the request's session (sessionId in
  // `params`, else the latest): its backend, approvals and, for a mutation
  // that writes on a session, the pending tool_call announced. An unknown
  // session is not_found.
  Result<std::unique_ptr<AcpCall>> prepare(const Method& method, const nlohmann::json& params,
                                           std::shared_ptr<CancelState> cancel,
                                           KnownFingerprints* known, Arrivals::Place* place);
  // After the method ran: announces how the call ended, if it was announced.
  void report(const AcpCall& call, const Method& method, const Result<nlohmann::json>& result);

  // Whether files live in the client's buffers (fs/* offered at initialize).
  bool delegated() const { return delegated_; }
  // With a session: tells the latest session of each file changed outside
  // the connection (session/update, protocol/acp.h's outside_change).
  void announce_outside(const std::vector<ops::OutsideChange>& changes);

 private:
  // The session a request names (sessionId), else the latest, else our own id.
  Result<std::string> session_for(const nlohmann::json& params);
  std::unique_ptr<FsBackend> delegated_backend(const std::string& session_id);
  // The approve hook of a request: asks the client unless the session chose allow_always.
  decltype(RequestContext::approve) approver(std::string session_id, std::string tool_call_id,
                                             FsBackend& backend);
  boost::asio::awaitable<Result<void>> request_permission(std::string session_id,
                                                          std::string tool_call_id,
                                                          std::string shown, std::string path,
                                                          std::optional<std::string> old_text,
                                                          std::string new_text);
  Result<void> permission_outcome(const std::string& session_id, const std::string& shown,
                                  const Result<nlohmann::json>& answer);

  const DoorOptions& options_;
  Operations& operations_;
  FsBackend& local_;
  const Registry& registry_;
  ClientChannel& client_;
  Notify notify_;

  bool delegated_ = false;
  std::string root_;       // the canonical root, for the delegated backend
  std::string id_prefix_;  // random: ids of one connection differ from another's
  std::uint64_t reader_;   // this connection in the view store (RequestContext::reader)
  ledger::Actor who_;  // set_client()'s
  std::set<std::string> sessions_;
  std::string latest_session_;
  std::string own_session_;               // used before any session/new
  std::set<std::string> always_allowed_;  // sessions that chose allow_always
  std::uint64_t next_session_ = 1;
  std::uint64_t next_tool_call_ = 1;
};

}  // namespace editd
