// The settings of a serving editd (its command-line options, parsed by
// server/options.h): a plain struct that every part may read.
//
// It lives with the operations, the lowest part that reads it, so that the
// operations and everything above them include it downwards.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "edit/match/replace.h"
#include "server/checks/diagnostics.h"

namespace editd {

struct ServerOptions {
  std::string root = ".";
  std::string log_level = "info";
  bool read_only = false;
  // --durability full (fsync files, directories and journals) or none.
  bool durable = true;
  // --state-dir: the journal key's directory; empty: the default
  // (backends/local/journal_key.h).
  std::string state_dir;
  std::uint64_t max_message_bytes = 64ull << 20;
  std::uint64_t max_file_bytes = 64ull << 20;
  // File bytes that the requests in flight may hold, for all connections
  // together (server/ops/byte_budget.h): each request counts a multiple of its
  // files' sizes, and waits while it does not fit.
  std::uint64_t max_file_bytes_in_flight = 1ull << 30;
  // Bytes of long messages (over 64 KiB) that all connections' requests in
  // flight may hold, as read and as parsed; a connection's reading waits past it.
  std::uint64_t max_message_bytes_in_flight = 1ull << 30;
  std::uint64_t max_inflight = 64;
  // Reply bytes queued for one client before its connection stops reading.
  std::uint64_t max_queued_bytes = 64ull << 20;
  // Reply bytes queued for all clients together: past it no request starts
  // (server/session/connection.h).
  std::uint64_t max_queued_bytes_total = 1ull << 30;
  // While the replies queued reach max_queued_bytes_total, a client that
  // takes in less than a write slice (1 MiB) of its own within this long
  // loses them and its connection.
  std::chrono::milliseconds reply_stall_timeout{30'000};
  // SIGTERM/SIGINT: how long requests that have not begun writing may run
  // before they are cancelled.
  std::chrono::milliseconds shutdown_grace{10'000};
  match::Mode matching = match::Mode::kStandard;
  std::vector<std::string> listen;  // "unix:PATH" | "tcp:HOST:PORT"
  std::optional<std::string> token_file;
  // TCP before authentication: the time a connection has to authenticate,
  // and how many unauthenticated connections are served at once (further
  // bounded by a quarter of the descriptor limit; server/session/server_context.h).
  std::chrono::milliseconds auth_timeout{5'000};
  std::uint64_t max_unauthenticated = 64;
  bool require_read = false;
  std::string backend = "auto";  // auto | local | delegated
  std::chrono::milliseconds delegate_timeout{30'000};
  std::string approve = "never";  // never | ask
  // What MCP's tools/list lists: "models", the tools meant for a model;
  // "all", also the provider-native ones a host forwards its model's calls to
  // (server/doors/mcp.h).
  std::string mcp_tools = "models";
  unsigned threads = 0;           // 0: the CPUs editd may use (server/cpus.h), at least 2
  // Threads that serve connections, each connection wholly on one of them.
  // 0: the CPUs editd may use with --listen, 1 for stdio (one connection).
  unsigned io_threads = 0;
  // The undo history, shared by every connection (0 entries: no history).
  std::uint64_t undo_history_entries = 100;
  std::uint64_t undo_history_bytes = 64ull << 20;
  // The views read_text served, for edit_lines (server/ops/views.h), for all
  // connections: bytes of line hashes (10 a line).
  std::uint64_t view_memory = 16ull << 20;
  // --check and --lsp, in the order given: checks run after each mutation of
  // a file they cover (server/checks/checks.h).
  std::vector<diagnostics::Spec> checks;
  std::chrono::milliseconds check_timeout{10'000};
};

}  // namespace editd
