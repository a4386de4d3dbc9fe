#include "server/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace editd {

const char* const kUsage =
    "usage: editd [options]                 serve JSON-RPC on stdio (or --listen)\n"
    "       editd apply-patch [--root DIR] [PATCH | -- PATCH | -f FILE | -]\n"
    "                                       apply a patch given as the argument, in FILE, or\n"
    "                                       on stdin (no PATCH, or -); exit 0 applied, 1 refused,\n"
    "                                       2 usage\n"
    "       apply_patch [PATCH]             editd run through a link named apply_patch (or\n"
    "                                       applypatch): Codex's command, the patch as the one\n"
    "                                       argument or on stdin, applied to the current directory\n"
    "       editd probe unix:PATH|tcp:[HOST:]PORT [--token-file F] [--timeout SECONDS]\n"
    "                                       health check: exit 0 when editd answers initialize\n"
    "       editd tools [--format mcp|anthropic|openai] [--mcp-tools models|all]\n"
    "                                       print the tool definitions (JSON) for a host's or an\n"
    "                                       API request's tool list (default: mcp)\n"
    "       editd changes [--root DIR] [--path P] [--limit N] [--json]\n"
    "                                       the root's ledger, newest first: who changed what\n"
    "       editd revert [--root DIR] [--dry-run] ID...\n"
    "                                       take back changes (c12) or hunks (c12:3); exit 0\n"
    "                                       reverted, 1 refused, 2 usage\n"
    "       editd review [--root DIR] [--listen HOST:PORT] [--read-only]\n"
    "                                       serve the review page of the root's ledger (default\n"
    "                                       127.0.0.1:0, a free port) and print its URL, token\n"
    "                                       included; until SIGINT or SIGTERM\n"
    "\n"
    "options:\n"
    "  --root DIR                 the directory edits are confined to (default: .)\n"
    "  --read-only                refuse every mutation with 'denied'\n"
    "  --durability full|none     full: fsync each write, its directory and apply_patch's\n"
    "                             journal before replying; none: no fsync at all (scratch\n"
    "                             workspaces: a power loss may lose recent edits) (default: full)\n"
    "  --state-dir DIR            where the key that marks editd's journals is kept, a durable\n"
    "                             directory of this user outside the root (default:\n"
    "                             $XDG_STATE_HOME/editd, else ~/.local/state/editd)\n"
    "  --ledger on|off            keep every change of the root on the record, for `changes`,\n"
    "                             `revert` and undo across restarts, in STATE/ledger/ (default: on)\n"
    "  --review HOST:PORT         also serve the review page there (see editd review): its URL\n"
    "                             goes to the log (stderr)\n"
    "  --ledger-bytes N           bytes the ledger keeps; the oldest changes go first\n"
    "                             (default: 268435456)\n"
    "  --log-level LEVEL          trace|debug|info|warn|error|off (default: info); logs go to "
    "stderr\n"
    "  --max-message-bytes N      longest accepted JSON-RPC line (default: 67108864)\n"
    "  --max-file-bytes N         largest file read or written (default: 67108864)\n"
    "  --max-file-bytes-in-flight N  file bytes the requests in flight may hold, all\n"
    "                             connections together; a request waits its turn past it\n"
    "                             (default: 1073741824)\n"
    "  --max-message-bytes-in-flight N  bytes of long messages the requests in flight may\n"
    "                             hold, all connections together; reading waits past it\n"
    "                             (default: 1073741824)\n"
    "  --matching MODE            str_replace default: exact|standard|fuzzy (default: standard)\n"
    "  --max-inflight N           requests in flight per connection before reading pauses "
    "(default: 64)\n"
    "  --max-queued-bytes N       reply bytes queued per connection before reading pauses\n"
    "                             (default: 67108864)\n"
    "  --max-queued-bytes-total N  reply bytes queued for all connections together before\n"
    "                             requests wait to start (default: 1073741824)\n"
    "  --reply-stall-timeout SECONDS  with that total reached, a client taking in less than\n"
    "                             1 MiB of its replies in this time is cut off (default: 30)\n"
    "  --listen unix:PATH|tcp:[HOST:]PORT   serve sockets instead of stdio (repeatable)\n"
    "  --token-file F             the token TCP clients must send in initialize.authToken\n"
    "  --auth-timeout SECONDS     TCP: time a connection has to authenticate (default: 5)\n"
    "  --max-unauthenticated N    TCP: connections served at once before they authenticate,\n"
    "                             at most a quarter of the descriptor limit (default: 64)\n"
    "  --require-read             refuse mutations of files this connection has not read\n"
    "  --outside-changes watch|stat|off  how changes made outside a connection to the files\n"
    "                             it read or wrote are found: inotify (stats beyond its\n"
    "                             bounds), stats alone, or not at all (default: watch)\n"
    "  --mcp-tools models|all     MCP tools/list: the tools meant for models, or all, with\n"
    "                             anthropic_text_editor and openai_apply_patch for hosts that\n"
    "                             forward their provider's tool calls (default: models)\n"
    "  --backend auto|local|delegated   where files live (default: auto)\n"
    "  --delegate-timeout SECONDS time to wait for a client's fs/* answer (default: 30)\n"
    "  --approve never|ask        ask the client before each mutation (default: never)\n"
    "  --approve-timeout SECONDS  time an MCP approval waits for the user (default: 120)\n"
    "  --threads N                file I/O threads (default: the CPUs editd may use, at\n"
    "                             least 2: its affinity mask, bounded by its cgroup's quota)\n"
    "  --io-threads N             threads serving connections, with --listen (default:\n"
    "                             the CPUs editd may use)\n"
    "  --shutdown-grace SECONDS   SIGTERM/SIGINT: time before requests that have not begun\n"
    "                             writing are cancelled (default: 10)\n"
    "  --undo-history-entries N   mutations kept for undo, for all connections (default: 100;\n"
    "                             0: none)\n"
    "  --undo-history-bytes N     file bytes the undo history may hold, files of 1 MiB or\n"
    "                             more on disk, in /tmp/editd-UID or the root (default:\n"
    "                             67108864)\n"
    "  --view-memory N            bytes of line hashes kept of the views read_text served,\n"
    "                             for edit_lines' anchors, for all connections; least\n"
    "                             recently used go first (default: 16777216; 0: none)\n"
    "  --check GLOB=COMMAND       after a mutation of a file matching GLOB (*.py, "
    "src/**/*.{c,h}),\n"
    "                             run COMMAND in the root, a word {file} being the file's path\n"
    "                             (./PATH; never inside another word: sh -c '... \"$1\"' sh "
    "{file});\n"
    "                             its file:line: messages become the result's diagnostics\n"
    "                             (repeatable; no shell unless COMMAND runs one)\n"
    "  --lsp GLOB=COMMAND         the same from a language server (clangd, pylsp), started on\n"
    "                             first use and kept running (repeatable)\n"
    "  --check-timeout SECONDS    longest wait for one check or language server (default: 10)\n"
    "  --format GLOB=COMMAND      format what a mutation of a file matching GLOB writes, in the\n"
    "                             same write: COMMAND reads the text on stdin and writes it\n"
    "                             formatted on stdout (black -q -, clang-format\n"
    "                             --assume-filename {file}, prettier --stdin-filepath {file});\n"
    "                             only its changes to the lines the call changed are kept;\n"
    "                             COMMAND @lsp: the --lsp server's range formatting\n"
    "                             (repeatable; the first that matches a file is used)\n"
    "  --format-timeout SECONDS   longest wait for one formatter run (default: 10)\n"
    "  --version, --help\n";

namespace {

Error usage_error(std::string message) {
  return Error(ErrorKind::kInvalidParams, std::move(message));
}

Result<std::uint64_t> parse_number(std::string_view flag, std::string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    return usage_error(std::string(flag) + " needs a non-negative integer, got '" + std::string(s) +
                       "'");
  return v;
}

// A positive, finite number of seconds up to kMaxSeconds (a year), rounded up to
// whole milliseconds. Range first: converting a double outside the target's
// range is undefined.
Result<std::chrono::milliseconds> parse_seconds(std::string_view flag, const std::string& s) {
  constexpr double kMaxSeconds = 365.0 * 24 * 3600;
  char* end = nullptr;
  const double secs = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || !(secs > 0) || !(secs <= kMaxSeconds))
    return usage_error(std::string(flag) + " needs a positive number of seconds, at most " +
                       std::to_string(static_cast<long long>(kMaxSeconds)) + ", got '" + s + "'");
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(secs * 1000)));
}

// Codex's `apply_patch` command line, for a link of that name: an optional
// --preserve-crlf (editd keeps each file's line endings anyway), then the
// patch as the one argument, whatever it starts with; none: stdin.
Result<CommandLine> parse_codex_apply_patch(int argc, char** argv, std::string_view name) {
  CommandLine cl;
  cl.mode = CommandLine::Mode::kApplyPatch;
  cl.command = std::string(name);
  int i = 1;
  if (i < argc && std::string_view(argv[i]) == "--preserve-crlf") ++i;
  if (i < argc) cl.patch = argv[i++];
  if (i < argc) return usage_error(cl.command + " accepts exactly one PATCH argument");
  return cl;
}

}  // namespace

LocalBackendOptions local_backend_options(const ServerOptions& options) {
  LocalBackendOptions local;
  local.root = options.ops.root;
  local.read_only = options.ops.read_only;
  local.durable = options.durability == Durability::kFull;
  local.state_dir = options.state_dir;
  local.max_file_bytes = options.ops.max_file_bytes;
  return local;
}

Result<CommandLine> parse_command_line(int argc, char** argv) {
  // Run through a link named apply_patch, or applypatch as Codex also
  // accepts, editd is Codex's apply_patch.
  if (argc > 0) {
    std::string_view name = argv[0];
    if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
    if (name == "apply_patch" || name == "applypatch")
      return parse_codex_apply_patch(argc, argv, name);
  }
  CommandLine cl;
  ServerOptions& o = cl.options;
  int i = 1;
  if (argc > 1 && std::string_view(argv[1]) == "apply-patch") {
    cl.mode = CommandLine::Mode::kApplyPatch;
    i = 2;
  } else if (argc > 1 && std::string_view(argv[1]) == "probe") {
    cl.mode = CommandLine::Mode::kProbe;
    i = 2;
  } else if (argc > 1 && std::string_view(argv[1]) == "tools") {
    cl.mode = CommandLine::Mode::kTools;
    i = 2;
  } else if (argc > 1 && std::string_view(argv[1]) == "changes") {
    cl.mode = CommandLine::Mode::kChanges;
    i = 2;
  } else if (argc > 1 && std::string_view(argv[1]) == "revert") {
    cl.mode = CommandLine::Mode::kRevert;
    i = 2;
  } else if (argc > 1 && std::string_view(argv[1]) == "review") {
    cl.mode = CommandLine::Mode::kReview;
    i = 2;
  }
  const bool apply_patch = cl.mode == CommandLine::Mode::kApplyPatch;
  // apply-patch takes one patch: an argument, the one after --, -f FILE or - (stdin).
  auto take_patch = [&](std::string patch, bool from_file) -> Result<void> {
    if (cl.patch || cl.patch_file)
      return usage_error("apply-patch accepts exactly one patch (an argument, -f FILE or -)");
    if (from_file)
      cl.patch_file = std::move(patch);
    else
      cl.patch = std::move(patch);
    return {};
  };
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (apply_patch) {
      // A patch is never mistaken for an option: one that starts with '-' (a
      // unified diff's "--- a/f") spans lines; a one-line one goes after --.
      if (arg == "--") {
        if (i + 1 >= argc) return usage_error("apply-patch: -- must be followed by the patch");
        if (i + 2 < argc) return usage_error("apply-patch accepts exactly one patch after --");
        if (auto ok = take_patch(argv[++i], false); !ok) return ok.error();
        continue;
      }
      if (arg == "-" || arg == "-f" || arg == "--file") {
        std::string file = "-";
        if (arg != "-") {
          if (i + 1 >= argc) return usage_error(std::string(arg) + " needs a file name");
          file = argv[++i];
        }
        if (auto ok = take_patch(file, true); !ok) return ok.error();
        continue;
      }
      if (!arg.starts_with('-') || arg.find('\n') != std::string_view::npos) {
        if (auto ok = take_patch(std::string(arg), false); !ok) return ok.error();
        continue;
      }
    }
    if (cl.mode == CommandLine::Mode::kRevert && !arg.starts_with('-')) {
      cl.ids.emplace_back(arg);
      continue;
    }
    if (cl.mode == CommandLine::Mode::kChanges && arg == "--json") {
      cl.json = true;
      continue;
    }
    if (cl.mode == CommandLine::Mode::kRevert && arg == "--dry-run") {
      cl.dry_run = true;
      continue;
    }
    if (cl.mode == CommandLine::Mode::kProbe && !arg.starts_with('-')) {
      if (!cl.probe.address.empty()) return usage_error("probe takes one address");
      if (!arg.starts_with("unix:") && !arg.starts_with("tcp:"))
        return usage_error("probe takes unix:PATH or tcp:[HOST:]PORT, got '" + std::string(arg) +
                           "'");
      cl.probe.address = std::string(arg);
      continue;
    }
    std::string value;
    std::string_view flag = arg;
    bool inline_value = false;
    if (arg.starts_with("--")) {
      if (auto eq = arg.find('='); eq != std::string_view::npos) {
        flag = arg.substr(0, eq);
        value = std::string(arg.substr(eq + 1));
        inline_value = true;
      }
    }
    auto need = [&]() -> Result<std::string> {
      if (inline_value) return value;
      if (i + 1 >= argc) return usage_error(std::string(flag) + " needs a value");
      return std::string(argv[++i]);
    };
#define EDITD_NEED(var)                 \
  auto var##_r = need();                \
  if (!var##_r) return var##_r.error(); \
  std::string var = *var##_r;

    if (cl.mode == CommandLine::Mode::kTools && flag != "--help" && flag != "-h" &&
        flag != "--mcp-tools") {
      if (flag != "--format")
        return usage_error("tools takes only --format mcp|anthropic|openai and --mcp-tools");
      EDITD_NEED(v);
      if (v != "mcp" && v != "anthropic" && v != "openai")
        return usage_error("--format must be mcp, anthropic or openai");
      cl.tools_format = v == "anthropic" ? ToolsFormat::kAnthropic
                        : v == "openai"  ? ToolsFormat::kOpenAi
                                         : ToolsFormat::kMcp;
    } else if (flag == "--help" || flag == "-h") {
      cl.mode = CommandLine::Mode::kHelp;
    } else if (flag == "--version") {
      cl.mode = CommandLine::Mode::kVersion;
    } else if (flag == "--root") {
      EDITD_NEED(v);
      o.ops.root = v;
    } else if (flag == "--read-only") {
      o.ops.read_only = true;
    } else if (flag == "--require-read") {
      o.ops.require_read = true;
    } else if (flag == "--log-level") {
      EDITD_NEED(v);
      static const char* levels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
      bool known = false;
      for (const char* l : levels) known |= v == l;
      if (!known)
        return usage_error("--log-level must be one of trace, debug, info, warn, error, off");
      o.log_level = v;
    } else if (flag == "--max-message-bytes" || flag == "--max-file-bytes" ||
               flag == "--max-inflight" || flag == "--threads" || flag == "--max-queued-bytes" ||
               flag == "--io-threads" || flag == "--max-file-bytes-in-flight" ||
               flag == "--max-message-bytes-in-flight" || flag == "--max-unauthenticated" ||
               flag == "--max-queued-bytes-total") {
      EDITD_NEED(v);
      auto n = parse_number(flag, v);
      if (!n) return n.error();
      if (*n == 0) return usage_error(std::string(flag) + " must be at least 1");
      if (flag == "--max-message-bytes") o.session.max_message_bytes = *n;
      if (flag == "--max-file-bytes") o.ops.max_file_bytes = *n;
      if (flag == "--max-file-bytes-in-flight") o.ops.max_file_bytes_in_flight = *n;
      if (flag == "--max-message-bytes-in-flight") o.session.max_message_bytes_in_flight = *n;
      if (flag == "--max-inflight") o.session.max_inflight = *n;
      if (flag == "--max-queued-bytes") o.session.max_queued_bytes = *n;
      if (flag == "--max-queued-bytes-total") o.session.max_queued_bytes_total = *n;
      if (flag == "--max-unauthenticated") o.session.max_unauthenticated = *n;
      if (flag == "--threads") o.threads = static_cast<unsigned>(std::min<std::uint64_t>(*n, 256));
      if (flag == "--io-threads")
        o.io_threads = static_cast<unsigned>(std::min<std::uint64_t>(*n, 256));
    } else if (flag == "--view-memory") {
      EDITD_NEED(v);
      auto n = parse_number(flag, v);
      if (!n) return n.error();
      o.ops.view_memory = *n;
    } else if (flag == "--undo-history-entries" || flag == "--undo-history-bytes") {
      EDITD_NEED(v);
      auto n = parse_number(flag, v);
      if (!n) return n.error();
      if (flag == "--undo-history-entries") o.ops.undo_history_entries = *n;
      if (flag == "--undo-history-bytes") o.ops.undo_history_bytes = *n;
    } else if (flag == "--ledger") {
      EDITD_NEED(v);
      if (v != "on" && v != "off") return usage_error("--ledger must be on or off");
      o.ops.ledger.enabled = v == "on";
    } else if (flag == "--ledger-bytes") {
      EDITD_NEED(v);
      auto n = parse_number(flag, v);
      if (!n) return n.error();
      if (*n < (1u << 20)) return usage_error("--ledger-bytes must be at least 1048576");
      o.ops.ledger.max_bytes = *n;
    } else if (cl.mode == CommandLine::Mode::kChanges && flag == "--path") {
      EDITD_NEED(v);
      cl.path = v;
    } else if (cl.mode == CommandLine::Mode::kChanges && flag == "--limit") {
      EDITD_NEED(v);
      auto n = parse_number(flag, v);
      if (!n) return n.error();
      cl.limit = *n;
    } else if (flag == "--matching") {
      EDITD_NEED(v);
      auto m = match::parse_mode(v);
      if (!m) return usage_error("--matching must be exact, standard or fuzzy");
      o.ops.matching = *m;
    } else if (cl.mode == CommandLine::Mode::kReview && flag == "--listen") {
      EDITD_NEED(v);
      o.review = v;
    } else if (flag == "--review") {
      EDITD_NEED(v);
      if (v.empty()) return usage_error("--review takes HOST:PORT (127.0.0.1:8765)");
      o.review = v;
    } else if (flag == "--listen") {
      EDITD_NEED(v);
      if (!v.starts_with("unix:") && !v.starts_with("tcp:"))
        return usage_error("--listen takes unix:PATH or tcp:[HOST:]PORT");
      o.listen.push_back(v);
    } else if (flag == "--token-file") {
      EDITD_NEED(v);
      o.token_file = v;
    } else if (flag == "--backend") {
      EDITD_NEED(v);
      if (v != "auto" && v != "local" && v != "delegated")
        return usage_error("--backend must be auto, local or delegated");
      o.doors.backend = v == "local" ? BackendChoice::kLocal : v == "delegated" ? BackendChoice::kDelegated : BackendChoice::kAuto;
    } else if (flag == "--auth-timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      o.session.auth_timeout = *timeout;
    } else if (flag == "--reply-stall-timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      o.session.reply_stall_timeout = *timeout;
    } else if (flag == "--approve-timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      o.doors.approve_timeout = *timeout;
    } else if (flag == "--delegate-timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      o.doors.delegate_timeout = *timeout;
    } else if (flag == "--shutdown-grace") {
      EDITD_NEED(v);
      char* end = nullptr;
      double secs = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(secs >= 0) || secs > 1e6)
        return usage_error("--shutdown-grace needs a number of seconds (0 or more)");
      o.shutdown_grace = std::chrono::milliseconds(static_cast<long long>(secs * 1000));
    } else if (flag == "--check" || flag == "--lsp") {
      EDITD_NEED(v);
      auto spec = diagnostics::parse_spec(v, flag == "--lsp");
      if (!spec) return spec.error();
      o.ops.checks.specs.push_back(std::move(*spec));
    } else if (flag == "--format") {
      EDITD_NEED(v);
      auto spec = diagnostics::parse_format_spec(v);
      if (!spec) return spec.error();
      o.ops.checks.specs.push_back(std::move(*spec));
    } else if (flag == "--format-timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      o.ops.checks.format_timeout = *timeout;
    } else if (flag == "--check-timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      o.ops.checks.timeout = *timeout;
    } else if (flag == "--durability") {
      EDITD_NEED(v);
      if (v != "full" && v != "none") return usage_error("--durability must be full or none");
      o.durability = v == "full" ? Durability::kFull : Durability::kNone;
    } else if (flag == "--state-dir") {
      EDITD_NEED(v);
      if (v.empty() || v.front() != '/')
        return usage_error("--state-dir must be an absolute path");
      o.state_dir = v;
    } else if (flag == "--mcp-tools") {
      EDITD_NEED(v);
      if (v != "models" && v != "all") return usage_error("--mcp-tools must be models or all");
      o.doors.mcp_tools = v == "all" ? McpTools::kAll : McpTools::kModels;
    } else if (flag == "--outside-changes") {
      EDITD_NEED(v);
      if (v != "watch" && v != "stat" && v != "off")
        return usage_error("--outside-changes must be watch, stat or off");
      o.session.outside_changes = v == "watch"  ? OutsideChanges::kWatch
                                  : v == "stat" ? OutsideChanges::kStat
                                                : OutsideChanges::kOff;
    } else if (flag == "--approve") {
      EDITD_NEED(v);
      if (v != "never" && v != "ask") return usage_error("--approve must be never or ask");
      o.doors.approve = v == "ask" ? Approval::kAsk : Approval::kNever;
    } else if (cl.mode == CommandLine::Mode::kProbe && flag == "--timeout") {
      EDITD_NEED(v);
      auto timeout = parse_seconds(flag, v);
      if (!timeout) return timeout.error();
      cl.probe.timeout = *timeout;
    } else if (apply_patch) {
      return usage_error("apply-patch: unknown option '" + std::string(arg) +
                         "' (a one-line patch that starts with '-' goes after --; see --help)");
    } else {
      return usage_error("unknown option '" + std::string(arg) + "' (see --help)");
    }
#undef EDITD_NEED
  }
  {
    const auto& specs = o.ops.checks.specs;
    const bool any_lsp = std::any_of(specs.begin(), specs.end(),
                                     [](const diagnostics::Spec& s) { return s.lsp; });
    for (const diagnostics::Spec& s : specs)
      if (s.format && diagnostics::by_lsp(s) && !any_lsp)
        return usage_error("--format " + s.option +
                           ": @lsp formats with the --lsp server that covers the file, and no "
                           "--lsp is given (add --lsp 'GLOB=COMMAND', e.g. --lsp "
                           "'*.{c,cc,cpp,h}=clangd')");
  }
  if (apply_patch && !o.ops.checks.specs.empty())
    return usage_error("apply-patch runs no checks and no formatter: --check, --lsp and --format are options of the server");
  o.ops.ledger.state_dir = o.state_dir;
  o.ops.ledger.durable = o.durability == Durability::kFull;
  if (cl.mode == CommandLine::Mode::kRevert && cl.ids.empty())
    return usage_error("revert needs the ids of changes (c12) or hunks (c12:3) to take back");
  if ((cl.mode == CommandLine::Mode::kChanges || cl.mode == CommandLine::Mode::kRevert) &&
      !o.ops.ledger.enabled)
    return usage_error("changes and revert read the ledger: not with --ledger off");
  if ((cl.mode == CommandLine::Mode::kReview || o.review) && !o.ops.ledger.enabled)
    return usage_error("the review page shows the ledger: not with --ledger off");
  if (cl.mode == CommandLine::Mode::kReview && !o.review) o.review = "127.0.0.1:0";
  if (cl.mode == CommandLine::Mode::kProbe) {
    if (cl.probe.address.empty())
      return usage_error("probe needs an address: unix:PATH or tcp:[HOST:]PORT");
    cl.probe.token_file = o.token_file;
  }
  return cl;
}

}  // namespace editd
