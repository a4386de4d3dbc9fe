// The operations' settings: what every method may do to the files and how much
// it may hold, read from the command line by server/options.cpp.
//
// Each part of the server owns its options (server/session/session_options.h,
// server/doors/door_options.h, this file, and the process's in
// server/options.h); the process parses them once and hands each part its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "edit/match/replace.h"
#include "server/checks/diagnostics.h"
#include "server/ledger/ledger.h"

namespace editd {

// --check, --lsp and --format, in the order given: checks run after each mutation of a
// file they cover (server/checks/checks.h), each within `timeout`.
struct ChecksOptions {
  std::vector<diagnostics::Spec> specs;
  std::chrono::milliseconds timeout{10'000};
  // --format-timeout: the longest one formatter run (--format) may take.
  std::chrono::milliseconds format_timeout{10'000};
};

struct OpsOptions {
  std::string root = ".";
  bool read_only = false;
  // --require-read: a mutation of an existing file needs this connection to
  // know the file as it is (read or written by it).
  bool require_read = false;
  // str_replace's default (--matching).
  match::Mode matching = match::Mode::kStandard;
  std::uint64_t max_file_bytes = 64ull << 20;
  // File bytes that the requests in flight may hold, for all connections
  // together (support/byte_budget.h): each request counts a multiple of its
  // files' sizes, and waits while it does not fit.
  std::uint64_t max_file_bytes_in_flight = 1ull << 30;
  // The undo history, shared by every connection (0 entries: no history).
  std::uint64_t undo_history_entries = 100;
  std::uint64_t undo_history_bytes = 64ull << 20;
  // The views read_text served, for edit_lines (server/ops/views.h), for all
  // connections: bytes of line hashes (10 a line).
  std::uint64_t view_memory = 16ull << 20;
  ChecksOptions checks;
  // The ledger of every change (server/ledger/ledger.h): --ledger,
  // --ledger-bytes; its state directory and durability follow --state-dir
  // and --durability.
  ledger::Options ledger;
};

}  // namespace editd
