// MCP approvals (--approve ask on an MCP connection): the question a
// mutation asks the user through the client (elicitation/create, MCP
// 2025-06-18 and later, form mode) before it writes, and what the answer
// means. Pure functions of JSON; server/doors/mcp_door.h makes the call.
//
// - A client offers form elicitation when its initialize capabilities hold
//   `elicitation` as an object: `{}` (2025-06-18), or with `form`
//   (2025-11-25; `{url: {}}` alone does not offer forms).
// - One question a call: every file the call is about to change, each with
//   its path (as JSON writes a string: client text is shown as data), what
//   becomes of it (new, changed, removed) and its diff, every diff cut within
//   kApprovalDiffBytes and kApprovalDiffLines together, with a note of what
//   was left out. Control characters, C1 controls and bidirectional
//   overrides in the texts are shown escaped (\x1b, \u202e), never passed on.
// - requestedSchema is a flat object with one boolean, `approve` (default
//   true): an empty form is refused or left unanswerable by some hosts;
//   every form-mode host tested renders a boolean. accept approves unless
//   content.approve is false; decline, cancel, approve false, an error
//   answer, a malformed answer and no answer in time are refusals (denied,
//   data.reason); a request cancelled meanwhile fails cancelled.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"
#include "server/ops/operations.h"

namespace editd::mcp {

inline constexpr std::string_view kElicitationCreate = "elicitation/create";
// The most the diffs of one question hold, all files together.
inline constexpr std::size_t kApprovalDiffBytes = 8 * 1024;
inline constexpr std::size_t kApprovalDiffLines = 200;
// The most files a question lists by name; the rest are counted.
inline constexpr std::size_t kApprovalFiles = 50;
// The longest path a question shows (longer ones are cut, with a note).
inline constexpr std::size_t kApprovalPathBytes = 512;
// The most questions one connection has waiting for answers; a mutation
// past it is refused (denied, reason "busy").
inline constexpr std::size_t kMaxWaitingApprovals = 8;

// Whether initialize params offer form elicitation (capabilities.elicitation).
bool offers_form_elicitation(const nlohmann::json& initialize_params);

// `text` with every character that could act on a display escaped: C0
// controls but line feed and tab, DEL, C1 controls, bidirectional
// overrides and isolates, and bytes that are not UTF-8.
std::string visible(std::string_view text);

// The question's text: what `tool` is about to change.
std::string approval_message(const std::string& tool, const std::vector<PendingChange>& changes);
// The elicitation/create params that ask `message`.
nlohmann::json elicitation_params(std::string message);

// What an answer to elicitation/create (or the call's failure) means for
// the change of `changes`: approved, or why not.
Result<void> approval_outcome(const Result<nlohmann::json>& answer,
                              const std::vector<PendingChange>& changes);

// Refusals without asking: the client declared no form elicitation
// ("no_elicitation"), or too many questions wait ("busy").
Error no_elicitation(const std::vector<PendingChange>& changes);
Error approvals_busy(const std::vector<PendingChange>& changes);

}  // namespace editd::mcp
