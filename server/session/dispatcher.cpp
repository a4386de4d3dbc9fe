#include "server/session/dispatcher.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cassert>

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

std::atomic<std::uint64_t> reply_mistakes{0};
std::atomic<bool> assert_mistakes{true};

void reply_mistake(const char* what, const std::string& method, const std::string& key) {
  reply_mistakes.fetch_add(1, std::memory_order_relaxed);
  spdlog::error("request {} id={}: {}", method, key, what);
  assert(!assert_mistakes.load(std::memory_order_relaxed) &&
         "a request must get exactly one reply");
}

Error too_many_calls(const std::string& method, std::size_t cap) {
  return Error(ErrorKind::kDelegateFailed,
               "too many calls to the client wait for answers (" + std::to_string(cap) +
                   ", --max-inflight): " + method + " was not sent",
               {{"method", method}, {"limit", cap}});
}

Error call_timed_out(const std::string& method, std::chrono::milliseconds timeout) {
  return Error(ErrorKind::kTimeout,
               "the client did not answer " + method + " within " +
                   std::to_string(timeout.count()) + " ms (--delegate-timeout)",
               {{"method", method}, {"timeoutMs", timeout.count()}});
}

Error call_cancelled(const std::string& method) {
  return Error(ErrorKind::kCancelled,
               "the request was cancelled while it waited for the client's answer to " + method,
               {{"method", method}});
}

// The notification that tells the client a call of editd's is abandoned.
json abandon_notice(const std::string& method, std::int64_t id, const char* reason) {
  return protocol::make_notification(method, json{{"requestId", id}, {"reason", reason}});
}

// Completes a waiting call once; false if it was completed already.
bool complete(OutgoingCall& call, Result<json> r) {
  if (!call.handler) return false;
  auto h = std::move(*call.handler);
  call.handler.reset();
  std::move(h)(std::move(r));
  return true;
}

// A plain function, not a lambda inside co_await (GCC 12, see lock_chain.cpp).
asio::awaitable<Result<json>> wait_answer(OutgoingCall* call) {
  struct Initiation {
    OutgoingCall* call;
    void operator()(asio::any_completion_handler<void(Result<json>)> handler) const {
      call->handler.emplace(std::move(handler));
    }
  };
  return asio::async_initiate<const asio::use_awaitable_t<>, void(Result<json>)>(
      Initiation{call}, asio::use_awaitable);
}

}  // namespace

Error internal_error(const std::string& what) {
  return Error(ErrorKind::kInternal, "internal error: " + what);
}

Error connection_closed() {
  return Error(ErrorKind::kDelegateFailed, "the client connection closed");
}

ReplyOnce::ReplyOnce(std::string method, std::string key, Send send)
    : method_(std::move(method)), key_(std::move(key)), send_(std::move(send)) {}

ReplyOnce::~ReplyOnce() {
  if (!done_) reply_mistake("ended without a reply", method_, key_);
}

void ReplyOnce::reply(const json& reply) {
  if (done_) {
    reply_mistake("a second reply was not sent", method_, key_);
    return;
  }
  done_ = true;
  send_(reply);
}

void ReplyOnce::withhold() {
  if (done_) reply_mistake("withheld after its reply", method_, key_);
  done_ = true;
}

std::uint64_t ReplyOnce::mistakes() { return reply_mistakes.load(std::memory_order_relaxed); }

bool ReplyOnce::assert_on_mistake(bool on) { return assert_mistakes.exchange(on); }

CancelTable::Entry CancelTable::add(const json& id) {
  return requests_.emplace(protocol::id_key(id), std::make_shared<CancelState>());
}

void CancelTable::remove(Entry entry) { requests_.erase(entry); }

bool CancelTable::is_cancel(std::string_view method) {
  return method == "$/cancel_request" || method == "$/cancelRequest" ||
         method == "notifications/cancelled";
}

void CancelTable::cancel_by_client(const json& params) {
  auto id = params.find("requestId");
  if (id == params.end()) id = params.find("id");
  if (id == params.end()) return;
  auto [first, last] = requests_.equal_range(protocol::id_key(*id));
  for (auto it = first; it != last; ++it) {
    if (it->second->committed) continue;
    it->second->cancel(true);
  }
}

void CancelTable::cancel_uncommitted() {
  for (auto& [key, state] : requests_)
    if (!state->committed) state->cancel(false);
}

OutgoingCalls::OutgoingCalls(asio::io_context& io, std::size_t cap, Send send)
    : io_(io), cap_(cap), send_(std::move(send)) {}

asio::awaitable<Result<json>> OutgoingCalls::call(std::string method, json params,
                                                  std::chrono::milliseconds timeout,
                                                  std::shared_ptr<CancelState> cancel,
                                                  std::string abandoned) {
  if (closed_) co_return connection_closed();
  if (cancel && cancel->cancelled) co_return call_cancelled(method);
  if (pending_.size() >= cap_) co_return too_many_calls(method, cap_);
  const std::int64_t id = next_id_++;
  auto pending = std::make_shared<OutgoingCall>();
  pending->method = method;
  pending->timeout = timeout;
  pending_[id] = pending;
  send_(protocol::make_request(id, method, std::move(params)));

  asio::steady_timer timer(io_);
  timer.expires_after(timeout);
  // `this` is touched only while the call waits, which its owner outlives.
  timer.async_wait([this, id, pending, abandoned](boost::system::error_code ec) {
    if (ec || !pending->handler) return;
    pending_.erase(id);
    if (!abandoned.empty()) send_(abandon_notice(abandoned, id, "timeout"));
    complete(*pending, call_timed_out(pending->method, pending->timeout));
  });
  if (cancel) {
    // Run from the cancel table's loop: the caller resumes later, posted.
    cancel->on_cancel = [this, id, pending, abandoned] {
      if (!pending->handler) return;
      pending_.erase(id);
      if (!abandoned.empty()) send_(abandon_notice(abandoned, id, "cancelled"));
      auto h = std::move(*pending->handler);
      pending->handler.reset();
      Result<json> r = call_cancelled(pending->method);
      asio::post(io_, [h = std::move(h), r]() mutable { std::move(h)(r); });
    };
  }
  Result<json> r = co_await wait_answer(pending.get());
  timer.cancel();
  if (cancel) cancel->on_cancel = nullptr;
  co_return r;
}

bool OutgoingCalls::expects(const json& id) const {
  return id.is_number_integer() && pending_.count(id.get<std::int64_t>()) != 0;
}

bool OutgoingCalls::answer(protocol::Incoming in) {
  if (!in.id.is_number_integer()) return false;
  auto it = pending_.find(in.id.get<std::int64_t>());
  if (it == pending_.end()) return false;
  auto call = it->second;
  pending_.erase(it);
  Result<json> r = in.error ? Result<json>(*in.error) : Result<json>(std::move(in.result));
  return complete(*call, std::move(r));
}

void OutgoingCalls::close() {
  closed_ = true;
  for (auto& [id, call] : pending_)
    if (call->handler) {
      auto h = std::move(*call->handler);
      call->handler.reset();
      Result<json> closed = connection_closed();
      asio::post(io_, [h = std::move(h), closed]() mutable { std::move(h)(closed); });
    }
  pending_.clear();
}

}  // namespace editd
