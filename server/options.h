// The command line of the editd binary: the mode it runs in (serve,
// apply-patch, probe, tools) and its settings, parsed from argv.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/local/local_backend.h"
#include "protocol/error.h"
#include "server/doors/door_options.h"
#include "server/ops/ops_options.h"
#include "server/probe.h"
#include "server/session/session_options.h"

namespace editd {

// --durability: full fsyncs each write, its directory and apply_patch's
// journal; none fsyncs nothing (and a multi-file change then needs no journal).
enum class Durability { kFull, kNone };
// `editd tools --format`: the tool definitions in MCP's, Anthropic's or
// OpenAI's shape.
enum class ToolsFormat { kMcp, kAnthropic, kOpenAi };

// The settings of a serving editd: the process's own, and each part's, which
// the process hands to that part (ServerContext, Operations, the doors).
struct ServerOptions {
  std::string log_level = "info";
  Durability durability = Durability::kFull;
  // --state-dir: the journal key's directory; empty: the default
  // (backends/local/journal_key.h).
  std::string state_dir;
  std::vector<std::string> listen;  // "unix:PATH" | "tcp:HOST:PORT"
  std::optional<std::string> token_file;
  // --review HOST:PORT (or `editd review`): the review page's address
  // (server/review/server.h).
  std::optional<std::string> review;
  unsigned threads = 0;  // 0: the CPUs editd may use (server/cpus.h), at least 2
  // Threads that serve connections, each connection wholly on one of them.
  // 0: the CPUs editd may use with --listen, 1 for stdio (one connection).
  unsigned io_threads = 0;
  // SIGTERM/SIGINT: how long requests that have not begun writing may run
  // before they are cancelled.
  std::chrono::milliseconds shutdown_grace{10'000};

  SessionOptions session;
  DoorOptions doors;
  OpsOptions ops;  // ops.root is the root every part serves
};

struct CommandLine {
  enum class Mode { kServe, kApplyPatch, kProbe, kTools, kChanges, kRevert, kReview, kHelp, kVersion };
  Mode mode = Mode::kServe;
  ServerOptions options;
  // apply-patch: the patch given as an argument, or the file it is in ("-":
  // stdin); neither: stdin.
  std::optional<std::string> patch;
  std::optional<std::string> patch_file;
  // apply-patch: the command as its messages name it; "apply_patch" (or
  // "applypatch") when editd runs through a link of that name.
  std::string command = "editd apply-patch";
  ProbeOptions probe;  // probe: its address; --token-file and --timeout
  ToolsFormat tools_format = ToolsFormat::kMcp;
  // changes: --json, --path, --limit; revert: the ids (c12, c12:3), --dry-run.
  bool json = false;
  bool dry_run = false;
  std::optional<std::string> path;
  std::uint64_t limit = 50;
  std::vector<std::string> ids;
};

// The local backend's share of the options.
LocalBackendOptions local_backend_options(const ServerOptions& options);

// Parses argv. The error message is meant for stderr.
Result<CommandLine> parse_command_line(int argc, char** argv);

extern const char* const kUsage;

}  // namespace editd
