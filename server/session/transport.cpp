#include "server/session/transport.h"

#include "server/session/dispatcher.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "protocol/framing.h"
#include "server/session/memory.h"
#include "server/session/server_context.h"
#include "support/offload.h"

namespace editd {

namespace asio = boost::asio;
using nlohmann::json;
using protocol::Incoming;

namespace {

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

Transport::Transport(ServerContext& server, asio::io_context& io, std::unique_ptr<Stream> stream,
                     Receiver& receiver)
    : server_(server),
      io_(io),
      stream_(std::move(stream)),
      receiver_(receiver),
      limits_(ConnectionLimits::from(server.session_options())),
      queued_hold_(server.replies().take(0)),
      reply_estimate_(limits_.max_queued_bytes),
      last_progress_(std::chrono::steady_clock::now()),
      out_signal_(io),
      slot_signal_(io),
      stall_timer_(io),
      idle_timer_(io),
      reply_stall_timer_(io) {
  out_signal_.expires_at(std::chrono::steady_clock::time_point::max());
  slot_signal_.expires_at(std::chrono::steady_clock::time_point::max());
}

asio::awaitable<void> Transport::run(std::shared_ptr<void> owner) {
  using namespace asio::experimental::awaitable_operators;
  owner_ = owner;
  asio::co_spawn(io_, trim_when_idle(owner),
                 [](std::exception_ptr e) { log_failure("trimming an idle connection", e); });
  // The watchers hold the connection until they see it finished, exception or not.
  asio::co_spawn(io_, watch_replies(owner),
                 [](std::exception_ptr e) { log_failure("watching a connection's replies", e); });
  try {
    co_await (read_loop() && write_loop());
    if (!output_failed_) co_await stream_->finish(kLinger);
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

void Transport::finish() {
  finished_ = true;
  stall_timer_.cancel();
  idle_timer_.cancel();
  reply_stall_timer_.cancel();
  room_wait_.reset();
}

void Transport::stop() {
  if (!reading_) return;
  reading_ = false;
  stream_->cancel_read();
  wake(slot_signal_);
}

void Transport::refuse_new() {
  if (refusing_) return;
  refusing_ = true;
  for (const Parked& p : parked_) receiver_.refuse(p.in);
  parked_.clear();
  // The reader stays for the answers to calls of requests in flight.
  if (inflight_ == 0) stream_->cancel_read();
  wake(slot_signal_);
}

void Transport::limit_stall(std::chrono::steady_clock::duration limit) {
  if (stall_limit_ || finished_) return;
  stall_limit_ = limit;
  last_progress_ = std::max(last_progress_, std::chrono::steady_clock::now());
  asio::co_spawn(io_, watch_stall(owner_.lock()),
                 [](std::exception_ptr e) { log_failure("watching a connection's output", e); });
}

asio::awaitable<void> Transport::watch_stall(std::shared_ptr<void> owner) {
  while (!finished_ && !output_failed_) {
    const auto now = std::chrono::steady_clock::now();
    if (queued_bytes_ > 0 && now - last_progress_ >= *stall_limit_) {
      spdlog::warn(
          "connection {}: the client took in too little of its replies in {} ms of "
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

asio::awaitable<void> Transport::watch_replies(std::shared_ptr<void> owner) {
  const auto limit = limits_.reply_stall_timeout;
  ByteBudget& replies = server_.replies();
  while (!finished_ && !output_failed_) {
    const auto now = std::chrono::steady_clock::now();
    const bool stalled = queued_bytes_ > 0 && now - last_progress_ >= limit;
    if (stalled && replies.used() >= replies.limit()) {
      spdlog::warn(
          "connection {}: cut off: the client took in less than 1 MiB of its replies in "
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

// Idle (server/session/memory.h): kIdleTrimDelay after the last write, with nothing
// queued and no request in flight, memory goes back, once until the next
// write. The heap is asked what it holds only then, never on a request's
// path. A write only stamps last_progress_: the timer is armed at most once
// per delay (armed per reply, it cost a timerfd_settime a request).
asio::awaitable<void> Transport::trim_when_idle(std::shared_ptr<void> owner) {
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

asio::awaitable<void> Transport::read_loop() {
  protocol::LineFramer framer(limits_.max_message_bytes);
  std::vector<char> buf(kReadChunk);
  // Lines and oversize events of one chunk, in order (nullopt: oversize).
  std::vector<std::optional<protocol::Line>> events;
  protocol::LineFramer::Sink sink{
      [&](protocol::Line line) { events.emplace_back(std::move(line)); },
      [&](std::size_t) { events.emplace_back(std::nullopt); }};
  bool eof = false;
  // After refuse_new() the reader refuses requests and takes the answers to
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
    framer.set_limit(receiver_.line_limit());
    framer.feed(std::string_view(buf.data(), n), sink);
    if (ec) {
      if (ec != asio::error::eof)
        spdlog::debug("connection {}: read: {}", stream_->peer(), ec.message());
      eof = true;
    }
    for (auto& e : events) {
      if (!reading_) break;
      if (!e) {
        receiver_.on_oversize(framer.limit());
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
        if (over && !receiver_.is_answer(in)) {
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
  receiver_.on_input_end();
  // Let requests in flight (and parked ones) finish, then let the writer drain and stop.
  while (inflight_ > 0 || !parked_.empty()) {
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
  closing_ = true;
  wake(out_signal_);
}

// While the message budget is full, this connection reads no further (the
// line already read is all it holds besides), until a give-back leaves room
// (ByteBudget::when_room): the budget's holders are requests, which finish
// without waiting for a reader. Except a
// request that waits for this client's answer: while editd waits for one, a
// line is taken in past the budget (`over`), as it may be that answer; read_loop
// holds back the reader after it when it is not.
asio::awaitable<ByteBudget::Hold> Transport::hold_message(std::size_t line_bytes, bool& over) {
  ByteBudget& budget = server_.messages();
  const std::uint64_t bytes = std::min<std::uint64_t>(2 * line_bytes, budget.limit());
  for (;;) {
    // wake_reader() wakes the signal, and so does room made after this look.
    const std::shared_ptr<void> room = wake_on_room(budget);
    if (auto granted = budget.try_acquire(bytes)) co_return std::move(*granted);
    if (receiver_.awaits_answers() || !reading_) {
      over = true;
      co_return budget.take(bytes);
    }
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

std::shared_ptr<void> Transport::wake_on_room(ByteBudget& budget) {
  return budget.when_room(io_.get_executor(), [this, owner = owner_] {
    if (const std::shared_ptr<void> alive = owner.lock()) wake(slot_signal_);
  });
}

asio::awaitable<void> Transport::wait_overdraft() {
  ByteBudget& budget = server_.messages();
  // Shutting down, the line is refused unrun: nothing to wait for.
  // The end of the overdraft's request, stop() and refuse_new() wake the
  // signal too.
  for (;;) {
    const std::shared_ptr<void> room = wake_on_room(budget);
    if (!reading_ || refusing_ || overdraft_.expired() || budget.used() <= budget.limit()) break;
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

// Reading waits while the queued replies reach --max-queued-bytes, and while
// requests are parked, unless calls to the client wait (their answers may come
// after the parked requests) and no more than --max-inflight are parked.
asio::awaitable<void> Transport::wait_for_slot() {
  while (reading_ && (queued_bytes_ >= limits_.max_queued_bytes ||
                      (!parked_.empty() &&
                       (!receiver_.awaits_answers() || parked_.size() > limits_.max_inflight)))) {
    co_await slot_signal_.async_wait(asio::as_tuple(asio::use_awaitable));
  }
}

void Transport::on_message(Incoming in, MessageHold hold) {
  if (in.type != Incoming::Type::kRequest) {
    receiver_.on_message(std::move(in));
    return;
  }
  if (refusing_) {
    receiver_.refuse(in);
    return;
  }
  parked_.push_back(Parked{std::move(in), std::move(hold)});
  start_parked();
}

bool Transport::replies_room() const {
  ByteBudget& replies = server_.replies();
  const std::uint64_t used = replies.used();
  if (used >= replies.limit()) return false;
  // A connection's first request may start while there is any room; each more
  // one needs room for a reply as large as the recent ones.
  return inflight_ == 0 || reply_estimate_ <= replies.limit() - used;
}

void Transport::retry_parked_on_room() {
  if (room_wait_ || finished_) return;
  // A wake of an older registration may run after a newer one: it retries,
  // but leaves the newer one waiting.
  auto retry = [this, owner = owner_, wait = ++room_waits_] {
    const std::shared_ptr<void> alive = owner.lock();
    if (!alive) return;
    if (wait == room_waits_) room_wait_.reset();
    if (finished_) return;
    start_parked();
    wake(slot_signal_);
  };
  room_wait_ = server_.replies().when_room(io_.get_executor(), retry);
  // Room that came between the look and the registration woke no one.
  if (replies_room()) asio::post(io_, retry);
}

bool Transport::may_start() const {
  if (inflight_ >= limits_.max_inflight || queued_bytes_ >= limits_.max_queued_bytes) return false;
  if (!replies_room()) return false;
  // Each request in flight is expected to queue about as much as the largest
  // recent reply; one request may always run.
  return inflight_ == 0 ||
         reply_estimate_ <= (limits_.max_queued_bytes - queued_bytes_) / (inflight_ + 1);
}

// Starts parked requests, in the order they arrived, while may_start().
void Transport::start_parked() {
  while (!parked_.empty() && may_start()) {
    // Popped first: the request may run to completion inside co_spawn and
    // start the next parked one itself.
    Parked p = std::move(parked_.front());
    parked_.pop_front();
    ++inflight_;
    asio::co_spawn(io_, run_request(receiver_.serve(std::move(p.in), std::move(p.hold))),
                   [](std::exception_ptr e) { log_failure("a request", e); });
  }
  if (!parked_.empty() && !replies_room()) retry_parked_on_room();
}

asio::awaitable<void> Transport::run_request(asio::awaitable<std::size_t> request) {
  const std::size_t bytes = co_await std::move(request);
  reply_estimate_ = std::max(bytes, reply_estimate_ / 2);
  --inflight_;
  start_parked();
  wake(slot_signal_);
  if (refusing_ && inflight_ == 0) stream_->cancel_read();
}

asio::awaitable<void> Transport::write_loop() {
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

std::size_t Transport::send(const json& message) {
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

void Transport::fail_output(const std::string& why) {
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

}  // namespace editd
