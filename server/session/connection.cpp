#include "server/session/connection.h"

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>

#include "protocol/params.h"
#include "server/doors/mcp.h"
#include "server/session/connection_limits.h"
#include "server/session/server_context.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;
using protocol::Incoming;

namespace {

// "ok", or the kind of a reply's error, for logs.
std::string outcome(const json& reply) {
  auto error = reply.find("error");
  if (error == reply.end()) return "ok";
  auto data = error->find("data");
  if (data == error->end() || !data->is_object()) return "error";
  auto kind = data->find("kind");
  return kind != data->end() && kind->is_string() ? kind->get<std::string>() : "error";
}

Error oversize_error(std::size_t limit, bool authenticated) {
  return Error(ErrorKind::kInvalidRequest,
               "message longer than " + std::to_string(limit) + " bytes " +
                   (authenticated ? "(--max-message-bytes)" : "(the limit before authentication)") +
                   ": skipped",
               {{"limit", limit}});
}

Error shutting_down() {
  return Error(ErrorKind::kCancelled,
               "editd is shutting down: the request was not started and changed nothing",
               {{"reason", "shutdown"}});
}

Error initialized_already() {
  return Error(ErrorKind::kInvalidRequest,
               "initialize was already answered on this connection: its dialect, capabilities "
               "and backend hold until it closes (open a new connection to start over)",
               {{"method", "initialize"}});
}

}  // namespace

Connection::Connection(ServerContext& server, asio::io_context& io, std::unique_ptr<Stream> stream,
                       Settings settings)
    : server_(server),
      io_(io),
      transport_(server, io, std::move(stream), *this),
      auth_(server, io, settings.needs_auth),
      calls_(io, ConnectionLimits::from(server.session_options()).max_outgoing_calls,
             [this](const json& request) {
               transport_.send(request);
               // A reader held back by parked requests may read on (the answer).
               transport_.wake_reader();
             }),
      acp_(server.door_options(), server.operations(), server.local_backend(), server.registry(), *this,
           [this](std::string method, json params) {
             notify(std::move(method), std::move(params));
           }),
      inbox_(server.outside().subscribe()),
      plain_door_(server.registry(), acp_, known_),
      mcp_door_(server.door_options(), server.registry(), acp_, known_, *this) {}

Connection::~Connection() { auth_.release_admission(); }

asio::awaitable<void> Connection::run() {
  auto self = shared_from_this();
  if (!auth_.authenticated())
    asio::co_spawn(io_, watch_auth(),
                   [](std::exception_ptr e) { log_failure("the authentication deadline", e); });
  try {
    co_await transport_.run(self);
  } catch (...) {
    auth_.cancel_deadline();
    auth_.release_admission();
    throw;
  }
  auth_.cancel_deadline();
  auth_.release_admission();
}

asio::awaitable<void> Connection::watch_auth() {
  auto self = shared_from_this();
  const bool passed = co_await auth_.deadline_passed();
  if (!passed || transport_.finished()) co_return;
  spdlog::warn("connection {}: closed: not authenticated within {} ms (--auth-timeout)",
               transport_.peer(), server_.session_options().auth_timeout.count());
  transport_.fail_output("not authenticated in time");
  transport_.abort();
}

void Connection::count_unauthenticated_line() {
  if (auth_.authenticated() || !transport_.reading()) return;
  if (auth_.fail()) {
    spdlog::warn("connection {}: closed after {} lines without authenticating", transport_.peer(),
                 auth_.failures());
    stop();
  }
}

std::uint64_t Connection::line_limit() const {
  return auth_.line_limit(server_.session_options().max_message_bytes);
}

bool Connection::is_answer(const Incoming& in) const {
  if (in.type == Incoming::Type::kResponse) return true;
  return in.type == Incoming::Type::kInvalid && in.no_method && calls_.expects(in.id);
}

void Connection::on_oversize(std::size_t limit) {
  spdlog::warn("connection {}: skipped a message over {} bytes", transport_.peer(), limit);
  transport_.send(error_reply(nullptr, oversize_error(limit, auth_.authenticated())));
  count_unauthenticated_line();
}

void Connection::on_message(Incoming in) {
  switch (in.type) {
    case Incoming::Type::kInvalid:
      // A malformed answer to one of editd's calls fails that call; it is
      // not a request to answer.
      if (in.no_method && calls_.expects(in.id)) {
        Incoming answer;
        answer.type = Incoming::Type::kResponse;
        answer.id = in.id;
        answer.error =
            Error(ErrorKind::kDelegateFailed,
                  "the client's answer is not a JSON-RPC response: " + in.error->message);
        calls_.answer(std::move(answer));
        break;
      }
      transport_.send(error_reply(in.id, *in.error));
      count_unauthenticated_line();
      break;
    case Incoming::Type::kResponse:
      count_unauthenticated_line();
      calls_.answer(std::move(in));
      break;
    case Incoming::Type::kNotification:
      count_unauthenticated_line();
      on_notification(in);
      break;
    case Incoming::Type::kRequest:
      break;  // the transport serves requests
  }
}

void Connection::refuse(const Incoming& in) {
  transport_.send(error_reply(in.id, shutting_down()));
}

Door& Connection::door(Dialect dialect) {
  if (dialect == Dialect::kMcp) return mcp_door_;
  return plain_door_;
}

json Connection::error_reply(const json& id, const Error& error) {
  return door(dialect_).error_reply(id, error);
}

void Connection::on_notification(const Incoming& in) {
  if (CancelTable::is_cancel(Registry::bare_method(in.method))) {
    requests_.cancel_by_client(in.params);
    return;
  }
  spdlog::debug("connection {}: ignored notification {}", transport_.peer(), in.method);
}

asio::awaitable<std::size_t> Connection::serve(Incoming in, MessageHold hold) {
  return handle(std::move(in), arrivals_->take(), std::move(hold));
}

asio::awaitable<std::size_t> Connection::handle(Incoming in, Arrivals::Place place,
                                                MessageHold hold) {
  auto self = shared_from_this();
  const auto started = std::chrono::steady_clock::now();
  auto entry = requests_.add(in.id);
  std::shared_ptr<CancelState> cancel = CancelTable::state(entry);
  const std::string key = protocol::id_key(in.id);
  std::size_t bytes = 0;
  ReplyOnce once(in.method, key, [&](const json& reply) { bytes = transport_.send(reply); });
  // The reply speaks the dialect the request started under, whatever an
  // initialize running meanwhile chooses; a first initialize answers in the
  // dialect it asks for, successful or not.
  Dialect dialect = dialect_;
  if (!initialized_ && Registry::bare_method(in.method) == "initialize")
    dialect = mcp::is_mcp_initialize(in.params) ? Dialect::kMcp : Dialect::kPlain;
  Door& replies = door(dialect);
  const bool outside = looks_outside(in.method);
  json reply;
  try {
    if (outside) co_await look_outside();
    Result<json> result = co_await dispatch(in, cancel, place);
    if (outside) watch_learned();
    // A request that took no chain lets the next go on now, not when its
    // reply is queued (the transport may start the next).
    place.pass();
    // Null: the dialect answers nothing (MCP: a request the client cancelled).
    reply = replies.reply(in.id, std::move(result), *cancel);
  } catch (const std::exception& e) {
    spdlog::error("request {} {} failed: {}", in.method, key, e.what());
    reply = replies.error_reply(in.id, internal_error(e.what()));
  }
  requests_.remove(entry);
  if (outside) tell_outside(reply, replies);
  if (reply.is_null())
    once.withhold();
  else
    once.reply(reply);
  if (spdlog::should_log(spdlog::level::debug)) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - started)
                  .count();
    spdlog::debug("{} id={} {} in {} us", in.method, key, outcome(reply), us);
  }
  co_return bytes;
}

bool Connection::looks_outside(std::string_view method) const {
  return server_.session_options().outside_changes != OutsideChanges::kOff &&
         Registry::bare_method(method) != "initialize" && auth_.authenticated() &&
         !acp_.delegated();
}

void Connection::unwatched(const std::string& canonical) {
  if (unwatched_.size() < kMaxUnwatched)
    unwatched_.insert(canonical);
  else
    scan_recent_ = true;
}

asio::awaitable<void> Connection::look_outside() {
  auto self = shared_from_this();
  if (known_.size() == 0 || pending_outside_.size() >= kMaxOutsideNotices) co_return;
  OutsideWatch& watch = server_.outside();
  if (!watch.active())
    scan_recent_ = true;
  else
    watch.drain();
  OutsideWatch::Taken taken = watch.take(*inbox_);
  std::vector<std::string> paths = std::move(taken.dirty);
  std::set<std::string> listed(paths.begin(), paths.end());
  auto add = [&](const std::string& c) {
    if (listed.insert(c).second) paths.push_back(c);
  };
  for (auto it = unwatched_.begin(); it != unwatched_.end();) {
    if (!known_.knows(*it)) {
      it = unwatched_.erase(it);
      continue;
    }
    add(*it);
    ++it;
  }
  if (scan_recent_ || taken.overflowed) {
    for (const std::string& c : known_.recent(kOutsideScan)) {
      add(c);
      // A directory that went may be back: watched again.
      if (taken.overflowed && watch.active() && !watch.watch(*inbox_, c)) unwatched(c);
    }
  }
  if (paths.empty()) co_return;

  ops::OutsideRequest request;
  request.canonicals = std::move(paths);
  request.max_changes = kMaxOutsideNotices - pending_outside_.size();
  request.max_diff_bytes = kMaxOutsideDiffBytes;
  RequestContext ctx{server_.local_backend(), std::make_shared<CancelState>(), &known_, nullptr};
  ops::OutsideChanges found =
      co_await server_.operations().outside_changes(ctx, std::move(request));
  if (!found.deferred.empty()) watch.mark(*inbox_, found.deferred);
  pending_truncated_ = found.truncated;
  if (found.changes.empty()) co_return;
  acp_.announce_outside(found.changes);
  for (ops::OutsideChange& c : found.changes) {
    pending_outside_.push_back(std::move(c));
  }
}

void Connection::watch_learned() {
  if (known_.size() == 0) return;
  OutsideWatch& watch = server_.outside();
  const bool lost = known_.fresh_overflowed();
  std::vector<std::string> fresh = known_.take_fresh();
  if (!watch.active() || fresh.empty()) return;
  if (lost) fresh = known_.recent(OutsideWatch::kMaxDirsPerInbox);
  for (const std::string& c : fresh)
    if (!watch.watch(*inbox_, c)) unwatched(c);
  // A change between the read and the watch raised no event: each is
  // looked at once by the next request.
  watch.mark(*inbox_, fresh);
}

void Connection::tell_outside(json& reply, const Door& door) {
  if (pending_outside_.empty() || reply.is_null()) return;
  if (!door.attach_outside(reply, pending_outside_, pending_truncated_)) return;
  pending_outside_.clear();
  pending_truncated_ = false;
}

asio::awaitable<Result<json>> Connection::dispatch(Incoming& in,
                                                   std::shared_ptr<CancelState> cancel,
                                                   Arrivals::Place& place) {
  std::string_view method = Registry::bare_method(in.method);
  if (method == "initialize") co_return initialize(in.params);
  if (!auth_.authenticated()) {
    if (auth_.fail()) {
      spdlog::warn("connection {}: closed after {} unauthenticated requests", transport_.peer(),
                   auth_.failures());
      stop();
    }
    co_return auth_.unauthenticated();
  }
  co_return co_await door(dialect_).dispatch(in, std::move(cancel), place);
}

Result<void> Connection::authenticate(const std::optional<std::string>& token) {
  Result<void> ok = auth_.check(token);
  if (!ok && auth_.exhausted()) stop();
  return ok;
}

Result<json> Connection::initialize(const json& params) {
  if (initialized_) return initialized_already();
  if (mcp::is_mcp_initialize(params)) {
    std::optional<std::string> token;
    if (auto t = params.find("authToken"); t != params.end() && t->is_string())
      token = t->get<std::string>();
    if (auto ok = authenticate(token); !ok) return ok.error();
    dialect_ = Dialect::kMcp;
    initialized_ = true;
    acp_.set_client(params.value("clientInfo", json::object()), "mcp", peer());
    mcp_door_.initialize(params);
    return mcp::initialize_result(params);
  }
  auto p = protocol::decode_initialize(params);
  if (!p) {
    if (!auth_.authenticated() && auth_.fail()) stop();
    return p.error();
  }
  if (auto ok = authenticate(p->auth_token); !ok) return ok.error();
  Result<json> r = acp_.initialize(p->client_capabilities);
  if (r) {
    dialect_ = Dialect::kPlain;
    initialized_ = true;
    acp_.set_client(p->client_info, "jsonrpc", peer());
  }
  return r;
}

asio::awaitable<Result<json>> Connection::call(std::string method, json params,
                                               std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  if (!transport_.reading()) co_return connection_closed();
  Result<json> r = co_await calls_.call(std::move(method), std::move(params), timeout);
  co_return r;
}

asio::awaitable<Result<json>> Connection::ask(std::string method, json params,
                                              std::chrono::milliseconds timeout,
                                              std::shared_ptr<CancelState> cancel) {
  auto self = shared_from_this();
  if (!transport_.reading()) co_return connection_closed();
  Result<json> r = co_await calls_.call(std::move(method), std::move(params), timeout,
                                        std::move(cancel), "notifications/cancelled");
  co_return r;
}

void Connection::notify(std::string method, json params) {
  transport_.send(protocol::make_notification(method, std::move(params)));
}

}  // namespace editd
