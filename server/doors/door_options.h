// The front doors' settings, read from the command line by server/options.cpp:
// where an ACP client's files live, whether it is asked before each change,
// and what MCP lists. Modes are enums, parsed once there.
#pragma once

#include <chrono>

namespace editd {

// --backend: where files live. kAuto and kDelegated both use the ACP client's
// fs/* methods when its initialize offers them (the delegated backend), and
// the disk otherwise; kLocal always uses the disk.
enum class BackendChoice { kAuto, kLocal, kDelegated };
// --approve: kAsk asks the client before each mutation writes: ACP's
// session/request_permission, MCP's elicitation/create
// (server/doors/mcp_approvals.h).
enum class Approval { kNever, kAsk };
// --mcp-tools: what MCP's tools/list lists: the tools meant for a model, or
// also the provider-native ones a host forwards its model's calls to
// (server/doors/mcp.h).
enum class McpTools { kModels, kAll };

struct DoorOptions {
  BackendChoice backend = BackendChoice::kAuto;
  // How long a call to the client (fs/*, session/request_permission) may wait.
  std::chrono::milliseconds delegate_timeout{30'000};
  Approval approve = Approval::kNever;
  // --approve-timeout: how long an MCP approval (elicitation/create) waits
  // for the user; a human reads the diff first.
  std::chrono::milliseconds approve_timeout{120'000};
  McpTools mcp_tools = McpTools::kModels;
};

}  // namespace editd
