// The session's settings: what a connection may hold and how long it may take,
// read from the command line by server/options.cpp. What one connection may
// hold, bound by bound: server/session/connection_limits.h.
#pragma once

#include <chrono>
#include <cstdint>

namespace editd {

// How changes made outside a connection to the files it knows are found
// (server/session/outside_watch.h): inotify with stats as the fallback, stats
// alone, or not at all.
enum class OutsideChanges { kWatch, kStat, kOff };

struct SessionOptions {
  std::uint64_t max_message_bytes = 64ull << 20;
  // Bytes of long messages (over 64 KiB) that all connections' requests in
  // flight may hold, as read and as parsed; a connection's reading waits past it.
  std::uint64_t max_message_bytes_in_flight = 1ull << 30;
  std::uint64_t max_inflight = 64;
  // Reply bytes queued for one client before its connection stops reading.
  std::uint64_t max_queued_bytes = 64ull << 20;
  // Reply bytes queued for all clients together: past it no request starts
  // (server/session/transport.h).
  std::uint64_t max_queued_bytes_total = 1ull << 30;
  // While the replies queued reach max_queued_bytes_total, a client that
  // takes in less than a write slice (1 MiB) of its own within this long
  // loses them and its connection.
  std::chrono::milliseconds reply_stall_timeout{30'000};
  // TCP before authentication: the time a connection has to authenticate,
  // and how many unauthenticated connections are served at once (further
  // bounded by a quarter of the descriptor limit; server/session/server_context.h).
  std::chrono::milliseconds auth_timeout{5'000};
  std::uint64_t max_unauthenticated = 64;
  OutsideChanges outside_changes = OutsideChanges::kWatch;
};

}  // namespace editd
