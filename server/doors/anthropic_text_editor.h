// Anthropic's text editor tool (str_replace_based_edit_tool) as a door onto
// the operations: a host forwards the model's tool input verbatim and sends
// the reply, also verbatim, back as the tool_result. The work is done by the
// plain methods (read_text, str_replace, write_text, insert) and the core's
// directory listing, so fingerprints, fidelity, the matching ladder, checks
// and undo are the same; this file only translates the tool's commands and
// words its results and errors as Anthropic documents them.
#pragma once

#include <boost/asio/awaitable.hpp>

#include "protocol/methods.h"
#include "server/ops/operations.h"

namespace editd {

// Runs one tool_use input (view, create, str_replace, insert). Every failure,
// a bad input included, is a result with is_error and a message after the
// line Anthropic documents; the Result fails only as the operations do
// outside the tool's own errors (never today).
boost::asio::awaitable<Result<protocol::ToolResultBlock>> anthropic_text_editor(
    Operations& ops, RequestContext& ctx, protocol::TextEditorParams p);

}  // namespace editd
