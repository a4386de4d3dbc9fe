// OpenAI's apply_patch tool (the Responses API's apply_patch_call) as a door
// onto the operations: the call's one operation (create_file, update_file,
// delete_file with its V4A diff) becomes a one-file Codex patch for
// apply_patch, and its result or error becomes the apply_patch_call_output
// the host sends back verbatim.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "protocol/methods.h"
#include "server/ops/operations.h"

namespace editd {

// Runs one operation. A failure, a bad operation included, is an output with
// status "failed" and the text of what went wrong.
boost::asio::awaitable<Result<protocol::ApplyPatchCallOutput>> openai_apply_patch(
    Operations& ops, RequestContext& ctx, protocol::OpenAiPatchParams p);

}  // namespace editd
