// A connection's transport: framing, the read and write loops, and
// back-pressure, over its Stream.
//
// Contract: messages are never sent concurrently. There is one reader
// coroutine and one writer coroutine; send() only queues a whole line, and the
// writer writes the queue in order, so lines never interleave and need no
// mutex. Every call is made on the connection's I/O thread.
//
// What it holds, and the bounds (server/session/connection_limits.h):
// - the line being read, up to Receiver::line_limit(); a longer one is skipped
//   unread (Receiver::on_oversize). A line longer than kInlineParseBytes is
//   parsed on the pool and counts in the server-wide message budget until its
//   request finishes; while that budget is full the reader waits, except that
//   while editd waits for this client's answers one line may be taken past it
//   (it may be such an answer).
// - requests: at --max-inflight in flight the reader stops reading until one
//   finishes. Requests read while every slot is taken and the client owes
//   answers are parked in order (at most --max-inflight of them, then reading
//   pauses) and started as slots free.
// - replies: the bytes queued for the client are bounded by --max-queued-bytes:
//   at the bound the reader stops reading and no parked request starts until
//   the client has read enough. Requests in flight still queue their replies,
//   so a request starts only while the queue has room for it and for those in
//   flight, each counted at the size of the largest recent reply (the first
//   request of a connection runs alone). A single reply larger than the bound
//   is still sent whole.
// - the replies queued for all clients together count in one server-wide
//   budget (--max-queued-bytes-total, ServerContext::replies()): while it is
//   full no request of any connection starts (parked ones start when a
//   give-back leaves room: ByteBudget::when_room, no timer), and a connection whose client
//   takes in less than kWriteSlice of its replies within --reply-stall-timeout
//   meanwhile is cut off: its replies and the connection are dropped.
// Never a dropped request or reply, but for a client cut off with its
// connection (a stall, fail_output()).
//
// Idle (server/session/memory.h): kIdleTrimDelay after the last write, with
// nothing queued and no request in flight, memory goes back to the system,
// once until the next write.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "protocol/message.h"
#include "server/session/connection_limits.h"
#include "server/session/stream.h"
#include "support/byte_budget.h"

namespace editd {

class ServerContext;

// What a long message holds in the server's message budget, kept by its
// request until it finishes. `overdraft` is set for the one request line a
// connection may hold past the budget while editd waits for its client's
// answer.
struct MessageHold {
  ByteBudget::Hold bytes;
  std::shared_ptr<void> overdraft;
};

class Transport {
 public:
  // What the transport hands the messages it reads to: the connection.
  class Receiver {
   public:
    virtual ~Receiver() = default;
    // A message that is not a request (an answer, a notification, or a line
    // that could not be read as a request), in the order read.
    virtual void on_message(protocol::Incoming in) = 0;
    // A line longer than `limit` was skipped unread.
    virtual void on_oversize(std::size_t limit) = 0;
    // Runs a request to its one reply, sent with send(); the reply's bytes
    // (0 if none went out). Called in the order requests start; the
    // awaitable's arguments are bound at the call.
    virtual boost::asio::awaitable<std::size_t> serve(protocol::Incoming in, MessageHold hold) = 0;
    // Answers a request that will not run because the server is shutting down.
    virtual void refuse(const protocol::Incoming& in) = 0;
    // The longest line accepted now.
    virtual std::uint64_t line_limit() const = 0;
    // Whether editd waits for this client's answers to its calls.
    virtual bool awaits_answers() const = 0;
    // Whether a message is an answer to one of editd's calls to the client.
    virtual bool is_answer(const protocol::Incoming& in) const = 0;
    // The input ended: no answer to a call can come any more.
    virtual void on_input_end() = 0;
  };

  // `receiver` must outlive this.
  Transport(ServerContext& server, boost::asio::io_context& io, std::unique_ptr<Stream> stream,
            Receiver& receiver);
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Reads and writes until the input ends or stop(); then lets the requests
  // that have begun finish, writes every reply whole and finishes the stream.
  // Meanwhile it watches the replies (--reply-stall-timeout) and gives memory
  // back when idle. `owner` (the connection) is kept alive by each watcher and
  // timer until it sees the transport finished.
  boost::asio::awaitable<void> run(std::shared_ptr<void> owner);

  // Closes the input: nothing more is read. Requests in flight and parked ones
  // still run and their replies go out.
  void stop();
  // Requests not started yet (parked, or read from now on) are refused
  // (Receiver::refuse) without running; answers are still read; once every
  // started request has answered and its reply is written, the stream closes.
  void refuse_new();
  // From now on, a client that takes in less than kWriteSlice of its queued
  // replies within `limit` loses them and the connection: a reply may then be
  // cut short.
  void limit_stall(std::chrono::steady_clock::duration limit);
  // The client is gone or abandoned: queued and future output is dropped,
  // parked requests with it, and reading stops.
  void fail_output(const std::string& why);
  // Ends the stream at once (Stream::abort).
  void abort() { stream_->abort(); }

  // Queues one line for the writer; its size in bytes (0 if dropped).
  std::size_t send(const nlohmann::json& message);
  // A reader waiting for room looks again (a call to the client was sent:
  // its answer must be read).
  void wake_reader() { slot_signal_.cancel(); }

  bool reading() const { return reading_; }
  bool refusing() const { return refusing_; }
  bool output_failed() const { return output_failed_; }
  // run() has ended.
  bool finished() const { return finished_; }
  std::string peer() const { return stream_->peer(); }

 private:
  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  // The connection ended: the watchers stop.
  void finish();
  boost::asio::awaitable<void> watch_stall(std::shared_ptr<void> owner);
  // Cuts the connection off when its client stalls while the server-wide
  // reply budget is full (--reply-stall-timeout).
  boost::asio::awaitable<void> watch_replies(std::shared_ptr<void> owner);
  boost::asio::awaitable<void> trim_when_idle(std::shared_ptr<void> owner);
  // The hold of a long line's bytes in the server's message budget, once
  // there is room; `over` when it was taken past the budget instead.
  boost::asio::awaitable<ByteBudget::Hold> hold_message(std::size_t line_bytes, bool& over);
  // A message taken past the budget that is not an answer: held until the
  // budget has room for it or this connection's overdraft is free.
  boost::asio::awaitable<void> wait_overdraft();
  // Wakes slot_signal_ at the first give-back to `budget` that leaves room,
  // while the token lives.
  std::shared_ptr<void> wake_on_room(ByteBudget& budget);
  boost::asio::awaitable<void> wait_for_slot();
  void on_message(protocol::Incoming in, MessageHold hold = {});
  // Whether the server-wide reply budget lets one more request start.
  bool replies_room() const;
  // Starts the parked requests again once the server-wide reply budget falls
  // under its limit (other connections' clients read): ByteBudget::when_room.
  void retry_parked_on_room();
  // Whether a parked request may start now (--max-inflight, --max-queued-bytes).
  bool may_start() const;
  void start_parked();
  // Runs a started request and frees its slot.
  boost::asio::awaitable<void> run_request(boost::asio::awaitable<std::size_t> request);
  void wake(boost::asio::steady_timer& timer) { timer.cancel(); }

  ServerContext& server_;
  boost::asio::io_context& io_;
  std::unique_ptr<Stream> stream_;
  Receiver& receiver_;
  const ConnectionLimits limits_;
  std::weak_ptr<void> owner_;  // run()'s

  bool reading_ = true;
  bool refusing_ = false;       // refuse_new(): requests not started are refused
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
  boost::asio::steady_timer reply_stall_timer_;
  std::shared_ptr<void> room_wait_;  // retry_parked_on_room()'s, while it waits
  std::uint64_t room_waits_ = 0;     // room_wait_'s registrations so far
  bool idle_parked_ = false;  // trim_when_idle() waits for the next write

  // Requests read while every slot is taken and calls to the client wait.
  struct Parked {
    protocol::Incoming in;
    MessageHold hold;
  };
  std::deque<Parked> parked_;
  // The request line held past the message budget, while it lives (expired:
  // none).
  std::weak_ptr<void> overdraft_;
};

}  // namespace editd
