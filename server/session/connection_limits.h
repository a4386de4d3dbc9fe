// What one connection may hold, and the bound of each.
//
// A connection reads lines, runs requests, queues replies and waits for its
// client's answers; each of these is bounded, by an option or by a constant
// here, so that no client can make editd hold more for it than this file says:
// - a line: --max-message-bytes (kUnauthenticatedLineBytes before a TCP
//   connection authenticates); a longer one is skipped unread and answered
//   invalid_request. Lines longer than kInlineParseBytes are parsed on the
//   pool and count in the server-wide message budget
//   (--max-message-bytes-in-flight) until their request finishes.
// - a read: kReadChunk bytes at a time.
// - requests in flight: --max-inflight; then the reader pauses.
// - parked requests (read while every slot is taken and calls to the client
//   wait): --max-inflight of them; then the reader pauses.
// - replies queued for the client: --max-queued-bytes for this connection
//   (then the reader pauses and no parked request starts) and
//   --max-queued-bytes-total for all connections together; a client that
//   takes in less than kWriteSlice of them within --reply-stall-timeout while
//   that budget is full is cut off.
// - calls to the client waiting for answers (fs/*, session/request_permission,
//   elicitation/create: at most mcp::kMaxWaitingApprovals of those):
//   --max-inflight of them (each request calls the client one call at a time);
//   one more fails at once with delegate_failed, nothing sent. Each waits at
//   most --delegate-timeout (then timeout).
// - authentication (TCP): --auth-timeout and kMaxAuthFailures failed lines.
// - at close: kLinger of discarded input while the client takes in the last replies.
// - changes made outside it (server/session/outside_watch.h): at most
//   kMaxOutsideNotices told in one reply (the rest on the next), each diff
//   cut at kMaxOutsideDiffBytes; kMaxUnwatched files it knows whose directory
//   is not watched, stat-checked on every request (past it, or without
//   inotify, the kOutsideScan most recently used files it knows are).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "server/session/session_options.h"

namespace editd {

inline constexpr int kMaxAuthFailures = 3;
inline constexpr std::size_t kReadChunk = 64 * 1024;
// The longest line a TCP connection may send before it authenticates: an
// initialize with a token and capabilities needs a few hundred bytes. Not
// smaller than kReadChunk (Transport::read_loop).
inline constexpr std::size_t kUnauthenticatedLineBytes = 64 * 1024;
static_assert(kUnauthenticatedLineBytes >= kReadChunk);
// Lines longer than this are parsed on the pool, not on the I/O thread. A line
// parsed inline holds the connections sharing the thread for at most about
// 2 ms (a 64 KiB line refused by the parser, the slowest path; 0.3 ms when it
// parses; docs/performance.md).
inline constexpr std::size_t kInlineParseBytes = 64 * 1024;
// The most the writer copies and hands to the stream at once.
inline constexpr std::size_t kWriteSlice = 1 << 20;
// How long a closing connection discards input while its client takes in the
// last replies (Stream::finish).
inline constexpr std::chrono::seconds kLinger{2};
inline constexpr std::size_t kMaxOutsideNotices = 32;
inline constexpr std::size_t kMaxOutsideDiffBytes = 16 << 10;
inline constexpr std::size_t kMaxUnwatched = 64;
inline constexpr std::size_t kOutsideScan = 64;

// The option-given bounds of one connection, as the transport and the
// dispatcher take them.
struct ConnectionLimits {
  std::uint64_t max_message_bytes = 64ull << 20;
  std::uint64_t max_inflight = 64;  // requests in flight, and parked ones
  std::uint64_t max_queued_bytes = 64ull << 20;
  std::size_t max_outgoing_calls = 64;  // calls to the client waiting at once
  std::chrono::milliseconds reply_stall_timeout{30'000};
  std::chrono::milliseconds auth_timeout{5'000};

  static ConnectionLimits from(const SessionOptions& o) {
    ConnectionLimits l;
    l.max_message_bytes = o.max_message_bytes;
    l.max_inflight = o.max_inflight;
    l.max_queued_bytes = o.max_queued_bytes;
    l.max_outgoing_calls = static_cast<std::size_t>(o.max_inflight);
    l.reply_stall_timeout = o.reply_stall_timeout;
    l.auth_timeout = o.auth_timeout;
    return l;
  }
};

}  // namespace editd
