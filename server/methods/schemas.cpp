#include "server/methods/schemas.h"

namespace editd::schema {

// Schema builders: only the flat shapes every host accepts.
json str(std::string description) {
  return {{"type", "string"}, {"description", std::move(description)}};
}
json boolean(std::string description) {
  return {{"type", "boolean"}, {"description", std::move(description)}};
}
json integer(std::string description, int minimum) {
  return {{"type", "integer"}, {"minimum", minimum}, {"description", std::move(description)}};
}
json string_map(std::string description) {
  return {{"type", "object"},
          {"additionalProperties", {{"type", "string"}}},
          {"description", std::move(description)}};
}
json object(json properties, std::vector<std::string> required) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

json path_param() {
  return str("The file, relative to the root editd serves (or absolute inside it).");
}
json expected_fingerprint_param() {
  return str(
      "Optional: the fingerprint read_text returned. If the file changed since, nothing is "
      "written and the error is conflict: read the file again.");
}
json dry_run_param() {
  return boolean(
      "Optional: true returns exactly what the call would do (diff included) and writes nothing.");
}

json format_param() {
  return boolean(
      "Optional, default true: when the server formats this file (--format), the lines this call "
      "changes are formatted in the same write (only those lines); false writes the text exactly "
      "as sent.");
}

json format_properties() {
  return {{"formatStatus",
           {{"type", "string"},
            {"enum", {"ok", "failed", "timeout", "rejected", "skipped"}},
            {"description",
             "Present when the server formats this file (--format): ok, or why the text was "
             "written as sent (the formatter failed, timed out, gave unusable output, or the "
             "file is not local)."}}},
          {"formatDetail", str("When formatStatus is not ok: what went wrong, with the "
                               "formatter's stderr (cut).")},
          {"formatted",
           {{"type", "object"},
            {"description",
             "What the formatter changed of this call's lines, already written: a diff from the "
             "text the call made to the file as written, the lines it touched (in the file as "
             "written) and those lines in the hashline view (anchors for edit_lines). "
             "`fingerprint` and `lines` describe the file as written."},
            {"properties",
             {{"diff", {{"type", "string"}}},
              {"added", {{"type", "integer"}}},
              {"removed", {{"type", "integer"}}},
              {"lines", {{"type", "array"}, {"items", line_range_schema()}}},
              {"dropped", {{"type", "integer"}}},
              {"hashline", {{"type", "string"}}},
              {"hashlineTruncated", {{"type", "boolean"}}}}}}}};
}

json line_range_schema() {
  return {
      {"type", "object"},
      {"properties", {{"startLine", {{"type", "integer"}}}, {"endLine", {{"type", "integer"}}}}},
      {"required", {"startLine", "endLine"}}};
}

// The checks' report of a written file (--check, --lsp): fields of a
// mutation's result, or of an apply_patch file entry.
json diagnostics_properties() {
  json diagnostic = {
      {"type", "object"},
      {"properties",
       {{"file", str("Set when the problem is in another file than the one written.")},
        {"line", {{"type", "integer"}}},
        {"column", {{"type", "integer"}}},
        {"severity", {{"type", "string"}, {"enum", {"error", "warning", "info", "hint"}}}},
        {"message", {{"type", "string"}}},
        {"source", {{"type", "string"}}}}},
      {"required", {"severity", "message", "source"}}};
  return {{"diagnostics",
           {{"type", "array"},
            {"items", diagnostic},
            {"description",
             "Present when the server checks this file after edits (--check, --lsp): every problem "
             "the checker reports in the file as written."}}},
          {"introduced",
           {{"type", "array"},
            {"items", diagnostic},
            {"description",
             "The diagnostics this edit introduced (not there before it): fix these first."}}},
          {"diagnosticsStatus",
           {{"type", "string"},
            {"enum", {"ok", "timeout", "failed"}},
            {"description",
             "ok: the checks ran. timeout or failed: a check did not finish or could not run "
             "(diagnosticsDetail says which); the edit was written either way."}}},
          {"diagnosticsDetail", str("What went wrong with the checks, when something did.")}};
}

// What every mutation returns; `extra` adds the method's own fields.
json mutation_output(json extra, std::vector<std::string> required) {
  json properties = {
      {"fingerprint", str("The file's new fingerprint: pass it as expectedFingerprint next time.")},
      {"diff", str("Unified diff of the change.")},
      {"added", {{"type", "integer"}}},
      {"removed", {{"type", "integer"}}},
      {"undoId", str("Pass it to undo to put the file back (absent for a dry run).")}};
  properties.update(diagnostics_properties());
  properties.update(format_properties());
  for (auto it = extra.begin(); it != extra.end(); ++it) properties[it.key()] = it.value();
  required.insert(required.end(), {"fingerprint", "diff", "added", "removed"});
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

// One file of apply_patch's (and undo's) result.
json patch_file_output() {
  json properties = {
      {"path", {{"type", "string"}}},
      {"action", {{"type", "string"}, {"enum", {"add", "update", "delete", "move"}}}},
      {"movedTo", {{"type", "string"}}},
      {"added", {{"type", "integer"}}},
      {"removed", {{"type", "integer"}}},
      {"fingerprint", {{"type", "string"}}},
      {"overwritten", {{"type", "boolean"}}},
      {"executable", {{"type", "boolean"}}},
      {"modeSkipped", {{"type", "boolean"}}}};
  properties.update(diagnostics_properties());
  properties.update(format_properties());
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", {"path", "action", "added", "removed"}}};
}

json symbol_schema() {
  return {{"type", "object"},
          {"properties",
           {{"namePath", str("Pass it as symbol to read_text or edit_symbol.")},
            {"kind", str("class, method, function... (LSP's SymbolKind).")},
            {"startLine", {{"type", "integer"}}},
            {"endLine", {{"type", "integer"}}},
            {"depth", {{"type", "integer"}}}}},
          {"required", {"namePath", "kind", "startLine", "endLine", "depth"}}};
}

}  // namespace editd::schema
