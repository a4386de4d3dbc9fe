// OpenAI's apply_patch tool (the Responses API's apply_patch_call) as a door
// onto the operations: the call's one operation (create_file, update_file,
// delete_file with its V4A diff) becomes a one-file Codex patch for
// apply_patch, and its result or error becomes the apply_patch_call_output
// the host sends back verbatim.
//
// Its method row (server/methods/method.h) is here, with its decode and encode.
#pragma once

#include "server/methods/method.h"

namespace editd::methods {

Method openai_apply_patch();

}  // namespace editd::methods
