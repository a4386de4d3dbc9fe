// Results and errors as text that is complete on its own.
//
// Some agent hosts show a model only the text of a tool result (MCP's text
// content), so each rendering carries everything the structured result does:
// read_text a one-line header (path, the lines shown of the total, the
// fingerprint, how to read on) and then the text; a mutation a one-line
// summary and then its diff; an error its message, its kind and every hint
// (closest region, candidates, a stale anchor's region) in full, and the rest
// of its data as "Details:" JSON, so that a message that points at its data
// points at text the model sees. Pure functions of JSON, no I/O. What only
// one method renders is in that method's file (server/methods/read_text.cpp...).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "protocol/error.h"

namespace editd {

// Each takes the params as the method received them and its encoded result.
// A one-file mutation: a summary line, then its diff and its checks.
std::string render_mutation(const nlohmann::json& params, const nlohmann::json& result);
// apply_patch and undo: a line of every file, then the diff and the checks.
std::string render_apply_patch(const nlohmann::json& params, const nlohmann::json& result);

// Inputs the error mentions (protocol/error.h, name_inputs) are named by
// editd's params unless the door named them first.
std::string render_error(const Error& error);
// The checks' report in a mutation's result (or an apply_patch file entry)
// as text: empty when there is none.
std::string render_diagnostics(const std::string& path, const nlohmann::json& result);
// What the formatter did to a written file (formatStatus, formatted), "" when
// no --format covers it.
std::string render_format(const std::string& path, const nlohmann::json& result);

namespace texts {

// What the renderings read from JSON: the string at `key` ("" when absent or
// not a string); a count or line number, whether held signed or unsigned (0
// when absent); "line 4" or "lines 4-9".
std::string string_at(const nlohmann::json& j, const char* key);
std::uint64_t number_at(const nlohmann::json& j, const char* key);
std::string lines_text(std::uint64_t start, std::uint64_t end);

}  // namespace texts
}  // namespace editd
