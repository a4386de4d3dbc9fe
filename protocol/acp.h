// The Agent Client Protocol's wire shapes: what editd sends to and reads from
// an ACP client, as pure functions of JSON.
//
// editd is the agent side of ACP. It answers initialize and session/new, and
// calls the client:
// - fs/read_text_file and fs/write_text_file, when the client offers them
//   (clientCapabilities.fs), for the delegated backend;
// - session/request_permission before a write under --approve ask;
// - session/update notifications announcing each mutation of a session as a
//   tool call (tool_call, then tool_call_update).
// Nothing here does I/O or knows a connection; server/doors/acp_door.h uses
// these to run a request, backends/delegated/delegated_backend.h to reach the files.
// docs/protocol.md ("ACP") is the normative description.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"

namespace editd::acp {

using json = nlohmann::json;

inline constexpr std::string_view kReadTextFile = "fs/read_text_file";
inline constexpr std::string_view kWriteTextFile = "fs/write_text_file";
inline constexpr std::string_view kRequestPermission = "session/request_permission";
inline constexpr std::string_view kSessionUpdate = "session/update";
inline constexpr std::string_view kSessionNew = "session/new";

// The JSON-RPC code ACP clients answer with for "resource not found".
inline constexpr int kResourceNotFound = -32002;

// The permission options editd offers, by optionId (and kind).
inline constexpr std::string_view kAllowOnce = "allow_once";
inline constexpr std::string_view kAllowAlways = "allow_always";
inline constexpr std::string_view kRejectOnce = "reject_once";

// Whether the client serves both fs/read_text_file and fs/write_text_file.
bool offers_fs(const json& client_capabilities);

// The initialize result: protocol version 1, editd's agentInfo, no
// loadSession, no auth methods, and editd's own facts in
// agentCapabilities._meta.editd (`methods`, `backend`, `version`).
json initialize_result(const json& methods, bool delegated, std::string_view version);

// session/new: cwd must be an absolute path (checked, not used: paths stay
// relative to editd's root); mcpServers, when given, an array (ignored).
struct NewSessionParams {
  std::string cwd;
};
Result<NewSessionParams> decode_new_session(const json& params);
json new_session_result(const std::string& session_id);

// fs/read_text_file for the whole file (no line, no limit: every byte).
json read_text_file_params(const std::string& session_id, const std::string& path);
// The content of a read's result; nullopt when it has no string `content`.
// Moves the string out of `result`.
std::optional<std::string> take_content(json& result);
json write_text_file_params(const std::string& session_id, const std::string& path,
                            std::string content);

// One file a tool call changed, as ACP's diff content and location.
struct Diff {
  std::string path;                     // absolute
  std::optional<std::string> old_text;  // nullopt: the file is new
  std::string new_text;
  std::optional<std::uint64_t> line;  // 1-based first changed line, when known
};

// session/update announcing a mutation before it runs: a pending edit whose
// title is `title` and whose locations are `paths` (absolute).
json tool_call_started(const std::string& session_id, const std::string& tool_call_id,
                       const std::string& title, const std::vector<std::string>& paths);
// session/update after it ran: completed with each changed file's diff and
// the method's result as rawOutput, or failed with the error's message as
// content and the error as rawOutput.error (code, message, data).
json tool_call_completed(const std::string& session_id, const std::string& tool_call_id,
                         const json& result, const std::vector<Diff>& diffs);
json tool_call_failed(const std::string& session_id, const std::string& tool_call_id,
                      const Error& error);
// Failed, for a method whose result says it failed (a provider's tool result):
// `text` as content, the result as rawOutput.
json tool_call_failed(const std::string& session_id, const std::string& tool_call_id,
                      const std::string& text, const json& result);

// session/update telling that a file changed outside the session (another
// process, the user, another connection: docs/protocol.md, "Changes made
// outside"). ACP has no update kind for a change the agent did not make;
// editd sends a `tool_call` of its own that is already completed, of kind
// "other", located at `path` (absolute), titled `title`, with `text` (the
// diff, or a sentence) as its content and the notice as rawOutput: the one
// stable kind that carries content and a location, which editors render
// beside the agent's own edits. The message and thought chunks would put
// words in the agent's mouth, and a tool_call_update belongs to a call the
// agent made.
json outside_change(const std::string& session_id, const std::string& tool_call_id,
                    const std::string& path, const std::string& title, const std::string& text,
                    const json& notice);

// session/request_permission for one write: the tool call (titled "edit
// <shown>", the diff as content) and the options allow_once, allow_always and
// reject_once.
json permission_params(const std::string& session_id, const std::string& tool_call_id,
                       const std::string& shown, const Diff& diff);

// What a client answered to session/request_permission.
struct PermissionOutcome {
  enum class Kind { kSelected, kCancelled, kInvalid };
  Kind kind = Kind::kInvalid;
  json option_id;  // kSelected: the optionId as sent (may be any JSON)
};
PermissionOutcome decode_permission_outcome(const json& result);

}  // namespace editd::acp
