#include "server/session/connection.h"

#include <spdlog/spdlog.h>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "backends/offload.h"
#include "protocol/acp.h"
#include "protocol/framing.h"
#include "protocol/methods.h"
#include "server/doors/mcp.h"
#include "server/session/memory.h"
#include "server/session/server_context.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;
using protocol::Incoming;

namespace {

constexpr int kMaxAuthFailures = 3;
constexpr std::size_t kReadChunk = 64 * 1024;
// The longest line a TCP connection may send before it authenticates: an
// initialize with a token and capabilities needs a few hundred bytes. Not
// smaller than kReadChunk (read_loop).
constexpr std::size_t kUnauthenticatedLineBytes = 64 * 1024;
static_assert(kUnauthenticatedLineBytes >= kReadChunk);
// Lines longer than this are parsed on the pool, not on the I/O thread. A line
// parsed inline holds the connections sharing the thread for at most about
// 2 ms (a 64 KiB line refused by the parser, the slowest path; 0.3 ms when it
// parses; docs/performance.md).
constexpr std::size_t kInlineParseBytes = 64 * 1024;
// How often a reader held back by a full message budget looks for room.
constexpr std::chrono::milliseconds kMessageBudgetPoll{5};
// The most the writer copies and hands to the stream at once.
constexpr std::size_t kWriteSlice = 1 << 20;
// How long a closing connection discards input while its client takes in the
// last replies (Stream::finish).
constexpr std::chrono::seconds kLinger{2};

// The key of a request id in requests_, whatever bytes the id holds.
std::string request_key(const json& id) { return protocol::id_key(id); }

// "ok", or the kind of a reply's error, for logs.
std::string outcome(const json& reply) {
  auto error = reply.find("error");
  if (error == reply.end()) return "ok";
  auto data = error->find("data");
  if (data == error->end() || !data->is_object()) return "error";
  auto kind = data->find("kind");
  return kind != data->end() && kind->is_string() ? kind->get<std::string>() : "error";
}

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

Error oversize_error(std::size_t limit, bool authenticated) {
  return Error(ErrorKind::kInvalidRequest,
               "message longer than " + std::to_string(limit) + " bytes " +
                   (authenticated ? "(--max-message-bytes)" : "(the limit before authentication)") +
                   ": skipped",
               {{"limit", limit}});
}

Error internal_error(const std::string& what) {
  return Error(ErrorKind::kInternal, "internal error: " + what);
}

Error shutting_down() {
  return Error(ErrorKind::kCancelled,
               "editd is shutting down: the request was not started and changed nothing",
               {{"reason", "shutdown"}});
}

// What goes out instead of a message that could not be encoded (memory ran
// out): for a reply, an internal error with its id; else nothing.
std::string unencodable_reply(const json& message, const std::string& what) {
  auto id = message.find("id");
  if (id == message.end() || message.contains("method")) return {};
  try {
    return protocol::serialize(
        protocol::make_error(*id, internal_error("the reply could not be encoded: " + what)));
  } catch (const std::exception&) {
    return {};
  }
}

Error connection_closed() {
  return Error(ErrorKind::kDelegateFailed, "the client connection closed");
}

Error unknown_tool(const std::string& name) {
  return Error(ErrorKind::kInvalidParams, "unknown tool: " + name + " (tools/list lists the tools)",
               {{"param", "name"}, {"tool", name}});
}

Error initialized_already() {
  return Error(ErrorKind::kInvalidRequest,
               "initialize was already answered on this connection: its dialect, capabilities "
               "and backend hold until it closes (open a new connection to start over)",
               {{"method", "initialize"}});
}

Error missing_tool_name() { return invalid_param("name", "missing (a tool name is required)"); }

// A line whose parse failed outside parse_message (which never throws): the
// error to answer it with.
Incoming invalid_line(Error error) {
  Incoming in;
  in.type = Incoming::Type::kInvalid;
  in.id = nullptr;
  in.error = std::move(error);
  return in;
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

Connection::Connection(ServerContext& server, asio::io_context& io, std::unique_ptr<Stream> stream,
                       Settings settings)
    : server_(server),
      io_(io),
      stream_(std::move(stream)),
      settings_(settings),
      queued_hold_(server.replies().take(0)),
      reply_estimate_(server.options().max_queued_bytes),
      last_progress_(std::chrono::steady_clock::now()),
      out_signal_(io),
      slot_signal_(io),
      stall_timer_(io),
      idle_timer_(io),
      auth_timer_(io),
      reply_stall_timer_(io),
      retry_timer_(io),
      acp_(server.options(), server.operations(), server.local_backend(), server.registry(), *this,
           [this](std::string method, json params) {
             notify(std::move(method), std::move(params));
           }) {
  out_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  slot_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  authenticated_ = !settings_.needs_auth;
  admitted_ = settings_.needs_auth;
}

Connection::~Connection() { release_admission(); }

void Connection::release_admission() {
  if (!admitted_) return;
  admitted_ = false;
  server_.release_unauthenticated();
}

asio::awaitable<void> Connection::run() {
  using namespace asio::experimental::awaitable_operators;
  auto self = shared_from_this();
  asio::co_spawn(io_, trim_when_idle(),
                 [](std::exception_ptr e) { log_failure("trimming an idle connection", e); });
  // The watchers hold the connection until they see it finished, exception or not.
  asio::co_spawn(io_, watch_replies(),
                 [](std::exception_ptr e) { log_failure("watching a connection's replies", e); });
  if (!authenticated_)
    asio::co_spawn(io_, watch_auth(),
                   [](std::exception_ptr e) { log_failure("the authentication deadline", e); });
  auto finish = [this] {
    finished_ = true;
    stall_timer_.cancel();
    idle_timer_.cancel();
    auth_timer_.cancel();
    reply_stall_timer_.cancel();
    retry_timer_.cancel();
    release_admission();
  };
  try {
    co_await (read_loop() && write_loop());
    if (!output_failed_) co_await stream_->finish(kLinger);
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

void Connection::stop() {
  if (!reading_) return;
  reading_ = false;
  stream_->cancel_read();
  wake(slot_signal_);
}

void Connection::shut_down() {
  if (refusing_) return;
  refusing_ = true;
  for (const Parked& p : parked_) refuse(p.in);
  parked_.clear();
  // The reader stays for the answers to calls of requests in flight.
  if (inflight_ == 0) stream_->cancel_read();
  wake(slot_signal_);
}

void Connection::cancel_uncommitted() {
  for (auto& [key, state] : requests_)
    if (!state->committed) state->cancelled = true;
}

void Connection::limit_stall(std::chrono::steady_clock::duration limit) {
  if (stall_limit_ || finished_) return;
  stall_limit_ = limit;
  last_progress_ = std::max(last_progress_, std::chrono::steady_clock::now());
  asio::co_spawn(io_, watch_stall(),
                 [](std::exception_ptr e) { log_failure("watching a connection's output", e); });
}

asio::awaitable<void> Connection::watch_stall() {
  auto self = shared_from_this();
  while (!finished_ && !output_failed_) {
    const auto now = std::chrono::steady_clock::now();
    if (queued_bytes_ > 0 && now - last_progress_ >= *stall_limit_) {
      spdlog::warn("connection {}: the client took in too little of its replies in {} ms of "
                   "shutdown: {} bytes dropped",
                   stream_->peer(),
                   std::chrono::duration_cast<std::chrono::milliseconds>(*stall_limit_).count(),
                   queued_bytes_);
      fail_output("stalled during shutdown");
      stream_->abort();
      break;
    }
    stall_timer_.expires_at((queued_bytes_ > 0 ? last_progress_ : now) + *stall_limit_);
    co_await stall_timer_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> Connection::watch_replies() {
  auto self = shared_from_this();
  const auto limit = server_.options().reply_stall_timeout;
  ByteBudget& replies = server_.replies();
  while (!finished_ && !output_failed_) {
    const auto now = std::chrono::steady_clock::now();
    const bool stalled = queued_bytes_ > 0 && now - last_progress_ >= limit;
    if (stalled && replies.used() >= replies.limit()) {
      spdlog::warn("connection {}: cut off: the client took in less than 1 MiB of its replies in "
                   "{} ms (--reply-stall-timeout) while the replies queued for all clients "
                   "reached {} bytes (--max-queued-bytes-total): {} bytes dropped",
                   stream_->peer(), limit.count(), replies.limit(), queued_bytes_);
      fail_output("cut off: stalled with the server's reply budget full");
      stream_->abort();
      break;
    }
    // Stalled, with room in the budget: looked at again a few times a period.
    reply_stall_timer_.expires_at(stalled ? now + std::max<std::chrono::milliseconds>(
                                                    limit / 4, std::chrono::milliseconds(10))
                                  : queued_bytes_ > 0 ? last_progress_ + limit
                                                      : now + limit);
    co_await reply_stall_timer_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

asio::awaitable<void> Connection::watch_auth() {
  auto self = shared_from_this();
  auth_timer_.expires_after(server_.options().auth_timeout);
  co_await auth_timer_.async_wait(asio::as_tuple(asio::use_awaitable));
  if (finished_ || authenticated_) co_return;
  spdlog::warn("connection {}: closed: not authenticated within {} ms (--auth-timeout)",
               stream_->peer(), server_.options().auth_timeout.count());
  fail_output("not authenticated in time");
  stream_->abort();
}

void Connection::count_unauthenticated_line() {
  if (authenticated_ || !reading_) return;
  if (++auth_failures_ >= kMaxAuthFailures) {
    spdlog::warn("connection {}: closed after {} lines without authenticating", stream_->peer(),
                 auth_failures_);
    stop();
  }
}

// Idle (server/session/memory.h): kIdleTrimDelay after the last write, with nothing
// queued and no request in flight, memory goes back, once until the next
// write. The heap is asked what it holds only then, never on a request's
// path. A write only stamps last_progress_: the timer is armed at most once
// per delay (armed per reply, it cost a timerfd_settime a request).
asio::awaitable<void> Connection::trim_when_idle() {
  auto self = shared_from_this();
  bool trimmed = false;
  while (!finished_) {
    const auto now = std::chrono::steady_clock::now();
    if (trimmed) {
      idle_parked_ = true;  // until the writer's next write
      idle_timer_.expires_at(std::chrono::steady_clock::time_point::max());
    } else if (now - last_progress_ >= kIdleTrimDelay && out_.empty() && inflight_ == 0 &&
               !closing_) {
      trimmed = true;
      if (release_idle_memory())
        spdlog::debug("connection {}: idle, freed memory returned", stream_->peer());
      continue;
    } else {
      idle_timer_.expires_at(std::max(last_progress_, now) + kIdleTrimDelay);
    }
    co_await idle_timer_.async_wait(asio::as_tuple(asio::use_awaitable));
    if (trimmed && !idle_parked_) trimmed = false;
  }
}

asio::awaitable<void> Connection::read_loop() {
  protocol::LineFramer framer(server_.options().max_message_bytes);
  std::vector<char> buf(kReadChunk);
  // Lines and oversize events of one chunk, in order (nullopt: oversize).
  std::vector<std::optional<protocol::Line>> events;
  protocol::LineFramer::Sink sink{
      [&](protocol::Line line) { events.emplace_back(std::move(line)); },
      [&](std::size_t) { events.emplace_back(std::nullopt); }};
  bool eof = false;
  // After shut_down() the reader refuses requests and takes the answers to
  // calls until no request it started is left.
  while (reading_ && !eof && !(refusing_ && inflight_ == 0)) {
    boost::system::error_code ec;
    std::size_t n = co_await stream_->read_some(std::span<char>(buf), ec);
    if (!reading_) break;
    if (ec == asio::error::operation_aborted) continue;
    events.clear();
    // Until the connection authenticates, a line longer than an initialize
    // needs is refused unread. The limit of a chunk is the one in force when
    // it arrives: as it is no smaller than a chunk, a request pipelined after
    // initialize is cut by the small limit only if it ends in initialize's
    // own chunk, which it cannot.
    framer.set_limit(authenticated_ ? server_.options().max_message_bytes
                                    : std::min<std::uint64_t>(server_.options().max_message_bytes,
                                                              kUnauthenticatedLineBytes));
    framer.feed(std::string_view(buf.data(), n), sink);
    if (ec) {
      if (ec != asio::error::eof) spdlog::debug("connection {}: read: {}", stream_->peer(), ec.message());
      eof = true;
    }
    for (auto& e : events) {
      if (!reading_) break;
      if (!e) {
        on_oversize(framer.limit());
      } else if (e->pieces.size() == 1 && e->size() <= kInlineParseBytes) {
        on_message(protocol::parse_message(e->pieces.front()));
      } else {
        // A long line is joined, parsed and freed on the pool: the I/O thread
        // goes on serving the other connections meanwhile. The lambda is
        // named, not a temporary in the co_await expression (GCC 12
        // coroutines).
        //
        // Its bytes, as read and then as parsed, count in the server-wide
        // message budget until its request finishes.
        bool over = false;
        ByteBudget::Hold hold = co_await hold_message(e->size(), over);
        if (!reading_) break;
        auto parse = [line = std::move(*e)]() mutable -> Result<Incoming> {
          std::string bytes = std::move(line).join();
          return protocol::parse_message(bytes);
        };
        auto parsed = co_await offload(server_.pool(), std::move(parse));
        if (!reading_) break;
        Incoming in = parsed ? std::move(*parsed) : invalid_line(parsed.error());
        MessageHold message{std::move(hold), nullptr};
        // Taken past the budget as it might have been an answer, and it is
        // not: it counts against the budget (others wait the longer), and
        // this connection reads on only while it is the one line held so.
        // Past that one the reader stops, this line in hand, until there is
        // room or that line's request has finished.
        if (over && !is_answer(in)) {
          if (!overdraft_.expired()) co_await wait_overdraft();
          if (!reading_) break;
          if (server_.messages().used() > server_.messages().limit()) {
            message.overdraft = std::make_shared<int>(0);
            overdraft_ = message.overdraft;
          }
        }
        on_message(std::move(in), std::move(message));
      }
      co_await wait_for_slot();
    }
  }
  // A line under way is dropped unread: its sender left before its end, or
  // nothing more will be read.
  if (std::size_t dropped = framer.finish())
    spdlog::info("connection {}: the input ended inside a line: {} bytes dropped unread",
                 stream_->peer(), dropped);
  reading_ = false;
  // Calls to the client can no longer be answered: fail them now rather than
  // let the requests waiting on them run into --delegate-timeout.
  for (auto& [id, call] : pending_)
    if (call->handler) {
      auto h = std::move(*call->handler);
      call->handler.reset();
      Result<json> closed = Error(ErrorKind::kDelegateFailed, "the client connection closed");
      asio::post(io_, [h = std::move(h), closed]() mutable { std::move(h)(closed); });
    }
  pending_.clear();
  // Let requests in flight (and parked ones) finish, then let the writer drain and stop.
  while (inflight_ > 0 || !parked_.empty()) {
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  closing_ = true;
  wake(out_signal_);
}

// While the message budget is full, this connection reads no further (the
// line already read is all it holds besides), polling for room: the budget's
// holders are requests, which finish without waiting for a reader. Except a
// request that waits for this client's answer: while editd waits for one, a
// line is taken in past the budget (`over`), as it may be that answer; read_loop
// holds back the reader after it when it is not.
asio::awaitable<ByteBudget::Hold> Connection::hold_message(std::size_t line_bytes, bool& over) {
  ByteBudget& budget = server_.messages();
  const std::uint64_t bytes = std::min<std::uint64_t>(2 * line_bytes, budget.limit());
  for (;;) {
    if (auto granted = budget.try_acquire(bytes)) co_return std::move(*granted);
    if (!pending_.empty() || !reading_) {
      over = true;
      co_return budget.take(bytes);
    }
    // call() wakes the signal; room is polled for.
    slot_signal_.expires_after(kMessageBudgetPoll);
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
    slot_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  }
}

asio::awaitable<void> Connection::wait_overdraft() {
  ByteBudget& budget = server_.messages();
  // Shutting down, the line is refused unrun: nothing to wait for.
  while (reading_ && !refusing_ && !overdraft_.expired() && budget.used() > budget.limit()) {
    slot_signal_.expires_after(kMessageBudgetPoll);
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
    slot_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  }
}

bool Connection::is_answer(const Incoming& in) const {
  if (in.type == Incoming::Type::kResponse) return true;
  return in.type == Incoming::Type::kInvalid && in.no_method && in.id.is_number_integer() &&
         pending_.count(in.id.get<std::int64_t>()) != 0;
}

// Reading waits while the queued replies reach --max-queued-bytes, and while
// requests are parked, unless calls to the client wait (their answers may come
// after the parked requests) and no more than --max-inflight are parked.
asio::awaitable<void> Connection::wait_for_slot() {
  const ServerOptions& o = server_.options();
  while (reading_ && (queued_bytes_ >= o.max_queued_bytes ||
                      (!parked_.empty() && (pending_.empty() || parked_.size() > o.max_inflight)))) {
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

bool Connection::replies_room() const {
  ByteBudget& replies = server_.replies();
  const std::uint64_t used = replies.used();
  if (used >= replies.limit()) return false;
  // A connection's first request may start while there is any room; each more
  // one needs room for a reply as large as the recent ones.
  return inflight_ == 0 || reply_estimate_ <= replies.limit() - used;
}

void Connection::retry_parked_soon() {
  if (retry_armed_ || finished_) return;
  retry_armed_ = true;
  retry_timer_.expires_after(kMessageBudgetPoll);
  retry_timer_.async_wait([this, self = shared_from_this()](boost::system::error_code) {
    retry_armed_ = false;
    if (finished_) return;
    start_parked();
    wake(slot_signal_);
  });
}

bool Connection::may_start() const {
  const ServerOptions& o = server_.options();
  if (inflight_ >= o.max_inflight || queued_bytes_ >= o.max_queued_bytes) return false;
  if (!replies_room()) return false;
  // Each request in flight is expected to queue about as much as the largest
  // recent reply; one request may always run.
  return inflight_ == 0 ||
         reply_estimate_ <= (o.max_queued_bytes - queued_bytes_) / (inflight_ + 1);
}

// Starts parked requests, in the order they arrived, while may_start().
void Connection::start_parked() {
  while (!parked_.empty() && may_start()) {
    // Popped first: the request may run to completion inside co_spawn and
    // start the next parked one itself.
    Parked p = std::move(parked_.front());
    parked_.pop_front();
    ++inflight_;
    asio::co_spawn(io_, handle(std::move(p.in), arrivals_->take(), std::move(p.hold)),
                   [](std::exception_ptr e) { log_failure("a request", e); });
  }
  if (!parked_.empty() && !replies_room()) retry_parked_soon();
}

asio::awaitable<void> Connection::write_loop() {
  std::string batch;
  while (true) {
    if (!out_.empty()) {
      // Lines in order: short ones batched, a long one in slices, so that the
      // copy stays small and progress shows (limit_stall).
      // A line alone is written from its own buffer, not copied.
      batch.clear();
      if (out_.size() == 1 && front_written_ == 0 && out_.front().size() <= kWriteSlice) {
        batch.swap(out_.front());
        out_.pop_front();
      }
      while (!out_.empty() && batch.size() < kWriteSlice) {
        std::string_view rest = std::string_view(out_.front()).substr(front_written_);
        std::size_t take = std::min(rest.size(), kWriteSlice - batch.size());
        batch.append(rest.substr(0, take));
        front_written_ += take;
        if (front_written_ == out_.front().size()) {
          out_.pop_front();
          front_written_ = 0;
        }
      }
      boost::system::error_code ec;
      co_await stream_->write_all(batch, ec);
      if (output_failed_) continue;
      if (ec) {
        // The client going away is routine; any other failure loses replies.
        if (ec != boost::asio::error::broken_pipe && ec != boost::asio::error::connection_reset)
          spdlog::warn("connection {}: replies cannot be written: {}", stream_->peer(),
                       ec.message());
        fail_output("write: " + ec.message());
        continue;
      }
      queued_bytes_ -= batch.size();
      queued_hold_.shrink_to(queued_bytes_);
      last_progress_ = std::chrono::steady_clock::now();
      if (idle_parked_) {
        idle_parked_ = false;
        wake(idle_timer_);
      }
      start_parked();
      wake(slot_signal_);
      continue;
    }
    if (closing_) break;
    co_await out_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

std::size_t Connection::send(const json& message) {
  if (output_failed_) return 0;
  std::string line;
  try {
    line = protocol::serialize(message);
  } catch (const std::exception& e) {
    spdlog::error("connection {}: a message could not be encoded: {}", stream_->peer(), e.what());
    line = unencodable_reply(message, e.what());
    if (line.empty()) return 0;
  }
  line.push_back('\n');
  const std::size_t bytes = line.size();
  if (queued_bytes_ == 0) last_progress_ = std::chrono::steady_clock::now();
  queued_bytes_ += bytes;
  queued_hold_.grow_to(queued_bytes_);
  out_.push_back(std::move(line));
  wake(out_signal_);
  return bytes;
}

void Connection::fail_output(const std::string& why) {
  if (output_failed_) return;
  output_failed_ = true;
  spdlog::debug("connection {}: {}: {} reply bytes and {} requests not started dropped",
                stream_->peer(), why, queued_bytes_, parked_.size());
  out_.clear();
  front_written_ = 0;
  queued_bytes_ = 0;
  queued_hold_.shrink_to(0);
  parked_.clear();
  stop();
}

void Connection::on_oversize(std::size_t limit) {
  spdlog::warn("connection {}: skipped a message over {} bytes", stream_->peer(), limit);
  send(error_reply(nullptr, oversize_error(limit, authenticated_)));
  count_unauthenticated_line();
}

void Connection::on_message(Incoming in, MessageHold hold) {
  switch (in.type) {
    case Incoming::Type::kInvalid:
      // A malformed answer to one of editd's calls fails that call; it is
      // not a request to answer.
      if (in.no_method && in.id.is_number_integer() &&
          pending_.count(in.id.get<std::int64_t>()) != 0) {
        Incoming answer;
        answer.type = Incoming::Type::kResponse;
        answer.id = in.id;
        answer.error =
            Error(ErrorKind::kDelegateFailed,
                  "the client's answer is not a JSON-RPC response: " + in.error->message);
        on_response(std::move(answer));
        break;
      }
      send(error_reply(in.id, *in.error));
      count_unauthenticated_line();
      break;
    case Incoming::Type::kResponse:
      count_unauthenticated_line();
      on_response(std::move(in));
      break;
    case Incoming::Type::kNotification:
      count_unauthenticated_line();
      on_notification(in);
      break;
    case Incoming::Type::kRequest:
      if (refusing_) {
        refuse(in);
        break;
      }
      parked_.push_back(Parked{std::move(in), std::move(hold)});
      start_parked();
      break;
  }
}

void Connection::refuse(const Incoming& in) { send(error_reply(in.id, shutting_down())); }

json Connection::error_reply(const json& id, const Error& error) const {
  return error_reply(id, error, dialect_);
}

json Connection::error_reply(const json& id, const Error& error, Dialect dialect) {
  return dialect == Dialect::kMcp ? mcp::make_error(id, error) : protocol::make_error(id, error);
}

void Connection::on_notification(const Incoming& in) {
  std::string_view method = Registry::bare_method(in.method);
  if (method == "$/cancel_request" || method == "$/cancelRequest" ||
      method == "notifications/cancelled") {
    auto id = in.params.find("requestId");
    if (id == in.params.end()) id = in.params.find("id");
    if (id == in.params.end()) return;
    auto [first, last] = requests_.equal_range(request_key(*id));
    for (auto it = first; it != last; ++it) {
      if (it->second->committed) continue;
      it->second->cancelled = true;
      it->second->by_client = true;
    }
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

asio::awaitable<void> Connection::handle(Incoming in, Arrivals::Place place,
                                         MessageHold hold) {
  auto self = shared_from_this();
  const auto started = std::chrono::steady_clock::now();
  auto cancel = std::make_shared<CancelState>();
  const std::string key = request_key(in.id);
  auto entry = requests_.emplace(key, cancel);
  // The reply speaks the dialect the request started under, whatever an
  // initialize running meanwhile chooses; a first initialize answers in the
  // dialect it asks for, successful or not.
  Dialect dialect = dialect_;
  if (!initialized_ && Registry::bare_method(in.method) == "initialize")
    dialect = mcp::is_mcp_initialize(in.params) ? Dialect::kMcp : Dialect::kPlain;
  json reply;
  try {
    Result<json> result = co_await dispatch(in, cancel, place);
    // A request that took no chain lets the next go on now, not when its
    // reply is queued (finish_request may start the next).
    place.pass();
    // MCP: a request the client cancelled gets no answer.
    const bool unanswered = dialect == Dialect::kMcp && !result && cancel->by_client &&
                            result.error().kind == ErrorKind::kCancelled;
    if (result)
      reply = protocol::make_result(in.id, std::move(*result));
    else if (!unanswered)
      reply = error_reply(in.id, result.error(), dialect);
  } catch (const std::exception& e) {
    spdlog::error("request {} {} failed: {}", in.method, key, e.what());
    reply = error_reply(in.id, internal_error(e.what()), dialect);
  }
  requests_.erase(entry);
  finish_request(in, key, reply, started);
}

void Connection::finish_request(const Incoming& in, const std::string& key, const json& reply,
                                std::chrono::steady_clock::time_point started) {
  const std::size_t bytes = reply.is_null() ? 0 : send(reply);
  reply_estimate_ = std::max(bytes, reply_estimate_ / 2);
  --inflight_;
  start_parked();
  wake(slot_signal_);
  if (refusing_ && inflight_ == 0) stream_->cancel_read();
  if (spdlog::should_log(spdlog::level::debug)) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::steady_clock::now() - started)
                  .count();
    spdlog::debug("{} id={} {} in {} us", in.method, key, outcome(reply), us);
  }
}

asio::awaitable<Result<json>> Connection::dispatch(Incoming& in,
                                                   std::shared_ptr<CancelState> cancel,
                                                   Arrivals::Place& place) {
  std::string_view method = Registry::bare_method(in.method);
  if (method == "initialize") co_return initialize(in.params);
  if (!authenticated_) {
    if (++auth_failures_ >= kMaxAuthFailures) {
      spdlog::warn("connection {}: closed after {} unauthenticated requests", stream_->peer(),
                   auth_failures_);
      stop();
    }
    co_return unauthenticated(auth_failures_);
  }
  if (dialect_ == Dialect::kMcp) {
    if (in.method == "ping") co_return json::object();
    if (in.method == "tools/list")
      co_return mcp::tools_list(server_.registry(), server_.options().mcp_tools == "all");
    if (in.method == "tools/call")
      co_return co_await call_tool(in.params, std::move(cancel), place);
    co_return method_not_found(in.method);
  }
  if (method == acp::kSessionNew) co_return acp_.new_session(in.params);
  const Method* m = server_.registry().find(method);
  if (!m) co_return method_not_found(in.method);
  co_return co_await acp_.run(*m, in.params, std::move(cancel), &known_, &place);
}

asio::awaitable<Result<json>> Connection::call_tool(const json& params,
                                                    std::shared_ptr<CancelState> cancel,
                                                    Arrivals::Place& place) {
  auto name = params.find("name");
  if (name == params.end() || name->is_null()) co_return missing_tool_name();
  if (!name->is_string()) co_return invalid_param("name", "must be a string (a tool's name)");
  const Method* m = server_.registry().find(name->get_ref<const std::string&>());
  if (!m || m->name != name->get_ref<const std::string&>())
    co_return unknown_tool(name->get<std::string>());
  const json arguments = params.contains("arguments") ? params["arguments"] : json();
  Result<json> prepared = mcp::prepare_arguments(*m, arguments);
  if (!prepared) co_return mcp::tool_result(*m, arguments, prepared);
  Result<json> result = co_await acp_.run(*m, *prepared, cancel, &known_, &place);
  if (!result && result.error().kind == ErrorKind::kCancelled && cancel->by_client)
    co_return result.error();
  if (result && m->paged) mcp::page(*result);
  co_return mcp::tool_result(*m, *prepared, result);
}

Result<void> Connection::authenticate(const std::optional<std::string>& token) {
  if (authenticated_) return {};
  const auto& expected = server_.token();
  if (!expected || !token || !same_token(*token, *expected)) {
    if (++auth_failures_ >= kMaxAuthFailures) stop();
    return unauthenticated(auth_failures_);
  }
  authenticated_ = true;
  auth_timer_.cancel();
  release_admission();
  return {};
}

Result<json> Connection::initialize(const json& params) {
  if (initialized_) return initialized_already();
  if (mcp::is_mcp_initialize(params)) {
    std::optional<std::string> token;
    if (auto t = params.find("authToken"); t != params.end() && t->is_string()) token = t->get<std::string>();
    if (auto ok = authenticate(token); !ok) return ok.error();
    dialect_ = Dialect::kMcp;
    initialized_ = true;
    return mcp::initialize_result(params);
  }
  auto p = protocol::decode_initialize(params);
  if (!p) {
    if (!authenticated_ && ++auth_failures_ >= kMaxAuthFailures) stop();
    return p.error();
  }
  if (auto ok = authenticate(p->auth_token); !ok) return ok.error();
  Result<json> r = acp_.initialize(p->client_capabilities);
  if (r) {
    dialect_ = Dialect::kPlain;
    initialized_ = true;
  }
  return r;
}

asio::awaitable<Result<json>> Connection::call(std::string method, json params,
                                               std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  if (!reading_) co_return connection_closed();
  const std::int64_t id = next_call_id_++;
  auto pending = std::make_shared<PendingCall>();
  pending_[id] = pending;
  send(protocol::make_request(id, method, std::move(params)));
  wake(slot_signal_);  // a reader held back by parked requests may read on (wait_for_slot)

  asio::steady_timer timer(io_);
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
