// Results and errors as text that is complete on its own.
//
// Some agent hosts show a model only the text of a tool result (MCP's text
// content), so each rendering carries everything the structured result does:
// read_text a one-line header (path, the lines shown of the total, the
// fingerprint, how to read on) and then the text; a mutation a one-line
// summary and then its diff; an error its message, its kind and every hint
// (closest region, candidates, a stale anchor's region) in full, and the rest
// of its data as "Details:" JSON, so that a message that points at its data
// points at text the model sees. Pure functions of JSON, no I/O.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "protocol/error.h"

namespace editd {

// Each takes the params as the method received them and its encoded result.
std::string render_read_text(const nlohmann::json& params, const nlohmann::json& result);
std::string render_mutation(const nlohmann::json& params, const nlohmann::json& result);
std::string render_apply_patch(const nlohmann::json& params, const nlohmann::json& result);
std::string render_fingerprint(const nlohmann::json& params, const nlohmann::json& result);
// read_symbols: a header, then one line a symbol, indented by its depth.
std::string render_symbols(const nlohmann::json& params, const nlohmann::json& result);

// Inputs the error mentions (protocol/error.h, name_inputs) are named by
// editd's params unless the door named them first.
std::string render_error(const Error& error);
// The provider-native tools' results read as the text their provider's model
// expects: the tool_result's content, the apply_patch_call_output's output.
std::string render_text_editor(const nlohmann::json& params, const nlohmann::json& result);
std::string render_openai_patch(const nlohmann::json& params, const nlohmann::json& result);
// The checks' report in a mutation's result (or an apply_patch file entry)
// as text: empty when there is none.
std::string render_diagnostics(const std::string& path, const nlohmann::json& result);

}  // namespace editd
