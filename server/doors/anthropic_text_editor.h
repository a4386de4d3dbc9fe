// Anthropic's text editor tool (str_replace_based_edit_tool) as a door onto
// the operations: a host forwards the model's tool input verbatim and sends
// the reply, also verbatim, back as the tool_result. The work is done by the
// plain methods (read_text, str_replace, write_text, insert) and the core's
// directory listing, so fingerprints, fidelity, the matching ladder, checks
// and undo are the same; this file only translates the tool's commands and
// words its results and errors as Anthropic documents them.
//
// Its method row (server/methods/method.h) is here, with its decode and encode.
#pragma once

#include "server/methods/method.h"

namespace editd::methods {

Method anthropic_text_editor();

}  // namespace editd::methods
