// The command line of the editd binary: the mode it runs in (serve,
// apply-patch, probe, tools) and its settings, parsed from argv.
#pragma once

#include <optional>
#include <string>

#include "backends/local/local_backend.h"
#include "protocol/error.h"
#include "server/ops/server_options.h"
#include "server/probe.h"

namespace editd {

struct CommandLine {
  enum class Mode { kServe, kApplyPatch, kProbe, kTools, kHelp, kVersion };
  Mode mode = Mode::kServe;
  ServerOptions options;
  // apply-patch: the patch given as an argument, or the file it is in ("-":
  // stdin); neither: stdin.
  std::optional<std::string> patch;
  std::optional<std::string> patch_file;
  // apply-patch: the command as its messages name it; "apply_patch" (or
  // "applypatch") when editd runs through a link of that name.
  std::string command = "editd apply-patch";
  ProbeOptions probe;                // probe: its address; --token-file and --timeout
  std::string tools_format = "mcp";  // tools: mcp | anthropic | openai
};

// The local backend's share of the options.
LocalBackendOptions local_backend_options(const ServerOptions& options);

// Parses argv. The error message is meant for stderr.
Result<CommandLine> parse_command_line(int argc, char** argv);

extern const char* const kUsage;

}  // namespace editd
