#include "server/connection.h"

#include <spdlog/spdlog.h>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "protocol/framing.h"
#include "protocol/methods.h"
#include "server/server.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;
using protocol::Incoming;

namespace {

constexpr int kMaxAuthFailures = 3;
constexpr std::size_t kReadChunk = 64 * 1024;

// Constant-time comparison: the time taken does not depend on where the strings differ.
bool same_token(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return b.size() > 0 && diff == 0;
}

Error unauthenticated(int failures) {
  return Error(ErrorKind::kUnauthenticated,
               "unauthenticated: the first request must be initialize with a valid authToken",
               {{"failures", failures}, {"maxFailures", kMaxAuthFailures}});
}

Error method_not_found(const std::string& method) {
  return Error(ErrorKind::kMethodNotFound, "method not found: " + method, {{"method", method}});
}

Error oversize_error(std::size_t limit) {
  return Error(ErrorKind::kInvalidRequest,
               "message longer than " + std::to_string(limit) +
                   " bytes (--max-message-bytes): skipped",
               {{"limit", limit}});
}

Error internal_error(const std::string& what) {
  return Error(ErrorKind::kInternal, "internal error: " + what);
}

}  // namespace

struct Connection::PendingCall {
  std::optional<asio::any_completion_handler<void(Result<json>)>> handler;
};

namespace {

// A plain function, not a lambda inside co_await (GCC 12, see lock_chain.cpp).
template <class Pending>
asio::awaitable<Result<json>> wait_answer(Pending* pending) {
  struct Initiation {
    Pending* pending;
    void operator()(asio::any_completion_handler<void(Result<json>)> handler) const {
      pending->handler.emplace(std::move(handler));
    }
  };
  return asio::async_initiate<const asio::use_awaitable_t<>, void(Result<json>)>(
      Initiation{pending}, asio::use_awaitable);
}

}  // namespace

Connection::Connection(ServerContext& server, std::unique_ptr<Stream> stream, Settings settings)
    : server_(server),
      stream_(std::move(stream)),
      settings_(settings),
      out_signal_(server.io()),
      slot_signal_(server.io()) {
  out_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  slot_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  authenticated_ = !settings_.needs_auth;
}

Connection::~Connection() = default;

asio::awaitable<void> Connection::run() {
  using namespace asio::experimental::awaitable_operators;
  auto self = shared_from_this();
  spdlog::debug("connection {} opened", stream_->peer());
  co_await (read_loop() && write_loop());
  stream_->close();
  spdlog::debug("connection {} closed", stream_->peer());
}

void Connection::stop() {
  if (!reading_) return;
  reading_ = false;
  stream_->close();
  wake(slot_signal_);
}

asio::awaitable<void> Connection::read_loop() {
  protocol::LineFramer framer(server_.options().max_message_bytes);
  std::vector<char> buf(kReadChunk);
  // Lines and oversize events of one chunk, in order (nullopt: oversize).
  std::vector<std::optional<std::string>> events;
  protocol::LineFramer::Sink sink{
      [&](std::string line) { events.emplace_back(std::move(line)); },
      [&](std::size_t) { events.emplace_back(std::nullopt); }};
  bool eof = false;
  while (reading_ && !eof) {
    boost::system::error_code ec;
    std::size_t n = co_await stream_->read_some(std::span<char>(buf), ec);
    if (!reading_) break;
    events.clear();
    framer.feed(std::string_view(buf.data(), n), sink);
    if (ec) {
      if (ec != asio::error::eof) spdlog::debug("connection {}: read: {}", stream_->peer(), ec.message());
      framer.finish(sink);
      eof = true;
    }
    for (auto& e : events) {
      if (!reading_) break;
      if (!e) {
        on_oversize(server_.options().max_message_bytes);
        continue;
      }
      co_await wait_for_slot();
      on_line(std::move(*e));
    }
  }
  reading_ = false;
  // Let requests in flight finish, then let the writer drain and stop.
  while (inflight_ > 0) {
    auto [ignored] = co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  // Calls to the client can no longer be answered.
  for (auto& [id, call] : pending_)
    if (call->handler) {
      auto h = std::move(*call->handler);
      call->handler.reset();
      Result<json> closed = Error(ErrorKind::kDelegateFailed, "the client connection closed");
      asio::post(server_.io(), [h = std::move(h), closed]() mutable { std::move(h)(closed); });
    }
  closing_ = true;
  wake(out_signal_);
}

asio::awaitable<void> Connection::wait_for_slot() {
  while (inflight_ >= server_.options().max_inflight && reading_) {
    auto [ignored] = co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> Connection::write_loop() {
  std::string batch;
  while (true) {
    if (!out_.empty()) {
      batch.clear();
      while (!out_.empty() && batch.size() < (1u << 20)) {
        batch += out_.front();
        out_.pop_front();
      }
      writing_ = true;
      boost::system::error_code ec;
      co_await stream_->write_all(batch, ec);
      writing_ = false;
      if (ec) {
        spdlog::debug("connection {}: write: {}", stream_->peer(), ec.message());
        out_.clear();
        stop();
      }
      continue;
    }
    if (closing_) break;
    out_signal_.expires_at(std::chrono::steady_clock::time_point::max());
    auto [ignored] = co_await out_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

void Connection::send(const json& message) {
  std::string line = protocol::serialize(message);
  line.push_back('\n');
  out_.push_back(std::move(line));
  wake(out_signal_);
}

void Connection::on_oversize(std::size_t limit) {
  spdlog::warn("connection {}: skipped a message over {} bytes", stream_->peer(), limit);
  send(protocol::make_error(nullptr, oversize_error(limit)));
}

void Connection::on_line(std::string line) {
  Incoming in = protocol::parse_message(line);
  switch (in.type) {
    case Incoming::Type::kInvalid:
      send(protocol::make_error(in.id, *in.error));
      break;
    case Incoming::Type::kResponse:
      on_response(std::move(in));
      break;
    case Incoming::Type::kNotification:
      on_notification(in);
      break;
    case Incoming::Type::kRequest: {
      ++inflight_;
      asio::co_spawn(server_.io(), handle(std::move(in)), asio::detached);
      break;
    }
  }
}

void Connection::on_notification(const Incoming& in) {
  std::string_view method = Dispatcher::bare_method(in.method);
  if (method == "$/cancel_request" || method == "$/cancelRequest") {
    auto id = in.params.find("requestId");
    if (id == in.params.end()) id = in.params.find("id");
    if (id == in.params.end()) return;
    auto it = requests_.find(id->dump());
    if (it != requests_.end() && !it->second->committed) it->second->cancelled = true;
    return;
  }
  spdlog::debug("connection {}: ignored notification {}", stream_->peer(), in.method);
}

void Connection::on_response(Incoming in) {
  if (!in.id.is_number_integer()) return;
  auto it = pending_.find(in.id.get<std::int64_t>());
  if (it == pending_.end()) return;
  auto call = it->second;
  pending_.erase(it);
  if (!call->handler) return;
  auto h = std::move(*call->handler);
  call->handler.reset();
  Result<json> r = in.error ? Result<json>(*in.error) : Result<json>(std::move(in.result));
  std::move(h)(std::move(r));
}

asio::awaitable<void> Connection::handle(Incoming in) {
  auto self = shared_from_this();
  auto started = std::chrono::steady_clock::now();
  auto cancel = std::make_shared<CancelState>();
  const std::string key = in.id.dump();
  requests_[key] = cancel;
  RequestContext ctx{server_.local_backend(), cancel, &known_, nullptr};

  json reply;
  try {
    Result<json> result = co_await dispatch(in, ctx);
    reply = result ? protocol::make_result(in.id, std::move(*result))
                   : protocol::make_error(in.id, result.error());
  } catch (const std::exception& e) {
    spdlog::error("request {} {} failed: {}", in.method, key, e.what());
    reply = protocol::make_error(in.id, internal_error(e.what()));
  }
  send(reply);
  if (auto it = requests_.find(key); it != requests_.end() && it->second == cancel) requests_.erase(it);
  --inflight_;
  wake(slot_signal_);
  if (spdlog::should_log(spdlog::level::debug)) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - started)
                  .count();
    spdlog::debug("{} id={} {} in {} us", in.method, key,
                  reply.contains("error") ? reply["error"]["data"]["kind"].get<std::string>() : "ok",
                  us);
  }
}

asio::awaitable<Result<json>> Connection::dispatch(Incoming& in, RequestContext& ctx) {
  std::string_view method = Dispatcher::bare_method(in.method);
  if (method == "initialize") co_return initialize(in.params);
  if (!authenticated_) {
    if (++auth_failures_ >= kMaxAuthFailures) {
      spdlog::warn("connection {}: closed after {} unauthenticated requests", stream_->peer(),
                   auth_failures_);
      stop();
    }
    co_return unauthenticated(auth_failures_);
  }
  const Dispatcher::Handler* handler = server_.dispatcher().find(method);
  if (!handler) co_return method_not_found(in.method);
  co_return co_await (*handler)(ctx, in.params);
}

Result<json> Connection::initialize(const json& params) {
  auto p = protocol::decode_initialize(params);
  if (!p) {
    if (!authenticated_ && ++auth_failures_ >= kMaxAuthFailures) stop();
    return p.error();
  }
  if (!authenticated_) {
    const auto& token = server_.token();
    if (!token || !p->auth_token || !same_token(*p->auth_token, *token)) {
      if (++auth_failures_ >= kMaxAuthFailures) stop();
      return unauthenticated(auth_failures_);
    }
    authenticated_ = true;
  }
  initialized_ = true;
  client_capabilities_ = p->client_capabilities;
  json methods = server_.dispatcher().methods();
  json editd_meta = {{"methods", methods}, {"backend", "local"}, {"version", EDITD_VERSION}};
  return json{{"protocolVersion", 1},
              {"agentInfo", {{"name", "editd"}, {"title", "editd"}, {"version", EDITD_VERSION}}},
              {"agentCapabilities",
               {{"loadSession", false}, {"_meta", {{"editd", editd_meta}}}}},
              {"authMethods", json::array()}};
}

asio::awaitable<Result<json>> Connection::call(std::string method, json params,
                                               std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  if (!reading_ && closing_) co_return Error(ErrorKind::kDelegateFailed, "the client connection closed");
  const std::int64_t id = next_call_id_++;
  auto pending = std::make_shared<PendingCall>();
  pending_[id] = pending;
  send(protocol::make_request(id, method, std::move(params)));

  asio::steady_timer timer(server_.io());
  timer.expires_after(timeout);
  timer.async_wait([this, self, id, pending, method, timeout](boost::system::error_code ec) {
    if (ec || !pending->handler) return;
    pending_.erase(id);
    auto h = std::move(*pending->handler);
    pending->handler.reset();
    Result<json> r = Error(ErrorKind::kTimeout,
                           "the client did not answer " + method + " within " +
                               std::to_string(timeout.count()) + " ms (--delegate-timeout)",
                           {{"method", method}, {"timeoutMs", timeout.count()}});
    std::move(h)(std::move(r));
  });
  Result<json> r = co_await wait_answer(pending.get());
  timer.cancel();
  co_return r;
}

void Connection::notify(std::string method, json params) {
  send(protocol::make_notification(method, std::move(params)));
}

}  // namespace editd
