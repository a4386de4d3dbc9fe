// The pieces of the methods' JSON Schemas (server/methods/*.cpp): only
// the flat shapes every host accepts, and the params and results several
// methods share.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace editd::schema {

using nlohmann::json;

json str(std::string description);
json boolean(std::string description);
json integer(std::string description, int minimum);
json string_map(std::string description);
// type object, properties, required, additionalProperties false.
json object(json properties, std::vector<std::string> required);

json path_param();
json expected_fingerprint_param();
json dry_run_param();
// `format`: whether a --format covering the file formats the call's lines.
json format_param();
// The format step's result fields (formatStatus, formatDetail, formatted).
json format_properties();
json line_range_schema();
// The checks' report of a written file (--check, --lsp): fields of a
// mutation's result, or of an apply_patch file entry.
json diagnostics_properties();
// What every mutation returns; `extra` adds the method's own fields.
json mutation_output(json extra, std::vector<std::string> required = {});
// A symbol as read_symbols lists it, and read_text and edit_symbol name it.
json symbol_schema();
// One file of apply_patch's (and undo's) result.
json patch_file_output();

// The end of every mutation's description.
inline constexpr const char* kErrorsNote =
    " On failure nothing is written and the error names its kind; the message says what to do.";

}  // namespace editd::schema
