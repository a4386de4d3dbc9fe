#include "server/doors/registry.h"

#include <algorithm>
#include <functional>

#include "server/doors/anthropic_text_editor.h"
#include "server/doors/bindings.h"
#include "server/doors/openai_apply_patch.h"
#include "server/doors/schemas.h"
#include "server/doors/tool_text.h"

namespace editd {

using nlohmann::json;

namespace {

// The provider tools' adapters take their tool's input, and give their
// tool's output, as the wire has them: the adapter is the translation.
protocol::TextEditorParams to_ops(protocol::TextEditorParams p) { return p; }
protocol::OpenAiPatchParams to_ops(protocol::OpenAiPatchParams p) { return p; }
protocol::ToolResultBlock to_wire(protocol::ToolResultBlock r) { return r; }
protocol::ApplyPatchCallOutput to_wire(protocol::ApplyPatchCallOutput r) { return r; }

}  // namespace

bool Method::dry_run(const json& params) const {
  if (!mutates || provider_native || !params.is_object()) return false;
  auto it = params.find("dryRun");
  return it != params.end() && it->is_boolean() && it->get<bool>();
}

bool Method::writes_nothing(const json& params) const {
  if (!mutates || dry_run(params)) return true;
  if (name != "anthropic_text_editor" || !params.is_object()) return false;
  auto command = params.find("command");
  return command != params.end() && *command == "view";
}

template <class Params, class Op>
boost::asio::awaitable<Result<json>> Registry::invoke(Result<Params> (*decode)(const json&), Op op,
                                                      RequestContext& ctx, const json& raw) {
  auto params = decode(raw);
  if (!params) co_return params.error();
  auto result = co_await std::invoke(op, ops_, ctx, to_ops(std::move(*params)));
  if (!result) co_return result.error();
  co_return protocol::to_json(to_wire(std::move(*result)));
}

// The handler itself is not a coroutine: GCC 12 miscompiles lambda coroutines.
template <class Params, class Op>
void Registry::add(Method m, Result<Params> (*decode)(const json&), Op op) {
  m.run = [this, decode, op](RequestContext& ctx, const json& raw) {
    return invoke(decode, op, ctx, raw);
  };
  methods_.push_back(std::move(m));
}

Registry::Registry(Operations& ops) : ops_(ops) {
  using namespace schema;  // the schemas' pieces (schemas.h), here only
  add({.name = "read_text",
       .title = "Read a text file",
       .description =
           "Read a UTF-8 text file, whole or a range of lines. Returns the text and the whole "
           "file's fingerprint; pass that fingerprint as expectedFingerprint to a later edit so "
           "that it fails with conflict instead of overwriting changes made since. Read before "
           "editing: str_replace needs oldText copied exactly from the file. Over MCP long files "
           "come in pages (at most 2000 lines and about 10000 bytes): the result says which "
           "lines it holds and the line to pass to read on (nextLine). "
           "Errors: not_found, is_directory, not_text (a binary file), line_out_of_range, "
           "outside_root.",
       .input_schema =
           object({{"path", path_param()},
                   {"line", integer("Optional: the first line to return, 1-based (default 1).", 1)},
                   {"limit", integer("Optional: the most lines to return.", 1)},
                   {"format",
                    {{"type", "string"},
                     {"enum", {"plain", "hashline"}},
                     {"description",
                      "Optional: hashline returns each line as LINE~TAG|text, the anchors "
                      "edit_lines takes (default plain)."}}},
                   {"symbol",
                    str("Optional, with a language server (--lsp): the lines of this symbol "
                        "instead of line and limit, by its name path as read_symbols lists it "
                        "(Outer/inner).")}},
                  {"path"}),
       .output_schema = {{"type", "object"},
                         {"properties",
                          {{"content", str("The lines returned, line endings kept.")},
                           {"format", str("hashline when the lines are anchored.")},
                           {"fingerprint", str("The whole file's fingerprint.")},
                           {"totalLines", {{"type", "integer"}}},
                           {"line", {{"type", "integer"}}},
                           {"lineCount", {{"type", "integer"}}},
                           {"symbol", symbol_schema()},
                           {"nextLine",
                            {{"type", "integer"},
                             {"description",
                              "On MCP: the line to pass as line to read on; absent when this "
                              "page reaches the last line."}}}}},
                         {"required",
                          {"content", "fingerprint", "totalLines", "line", "lineCount"}}},
       .idempotent = true,
       .paged = true,
       .render = &render_read_text},
      &protocol::decode_read_text, &Operations::read_text);

  add({.name = "write_text",
       .title = "Write a whole file",
       .description =
           std::string("Create a file (and missing parent directories) or replace its whole "
                       "content. To change part of an existing file prefer str_replace, insert or "
                       "apply_patch: they send less and cannot drop lines by accident. An existing "
                       "file keeps its BOM and line endings. Returns the new fingerprint and a "
                       "diff. Errors: conflict (expectedFingerprint differs: read again), "
                       "not_text, too_large, is_directory, denied, outside_root.") +
           kErrorsNote,
       .input_schema = object({{"path", path_param()},
                               {"content", str("The whole new content of the file.")},
                               {"expectedFingerprint", expected_fingerprint_param()},
                               {"dryRun", dry_run_param()}},
                              {"path", "content"}),
       .output_schema = mutation_output({{"created", {{"type", "boolean"}}}}),
       .mutates = true,
       .idempotent = true,
       .destructive = true,
       .render = &render_mutation},
      &protocol::decode_write_text, &Operations::write_text);

  add({.name = "set_format",
       .title = "Convert line endings, BOM or final newline",
       .description =
           std::string(
               "Convert a file's line endings (CRLF to LF or LF to CRLF), add or remove its "
               "UTF-8 BOM, or add or remove its final newline. The only way to change "
               "these: every other edit keeps them as the file has them. Give at least one "
               "of lineEndings, bom and finalNewline; the text itself never changes. "
               "Returns the new fingerprint and a diff. Errors: no_change (the file "
               "already has that format), conflict, not_text, not_found.") +
           kErrorsNote,
       .input_schema = object(
           {{"path", path_param()},
            {"lineEndings",
             {{"type", "string"},
              {"enum", {"lf", "crlf"}},
              {"description", "Every line break becomes LF (\\n) or CRLF (\\r\\n)."}}},
            {"bom",
             {{"type", "boolean"}, {"description", "true adds a UTF-8 BOM, false removes it."}}},
            {"finalNewline",
             {{"type", "boolean"},
              {"description", "true ends the last line with a line break, false removes it."}}},
            {"expectedFingerprint", expected_fingerprint_param()},
            {"dryRun", dry_run_param()}},
           {"path"}),
       .output_schema = mutation_output({}),
       .mutates = true,
       .idempotent = true,
       .render = &render_mutation},
      &protocol::decode_set_format, &Operations::set_format);

  add({.name = "create",
       .title = "Create a new file",
       .description = std::string("Create a new file (and missing parent directories) with the "
                                  "given content. Fails with exists if the path already exists: "
                                  "use write_text or str_replace to change an existing file.") +
                      kErrorsNote,
       .input_schema = object({{"path", path_param()},
                               {"content", str("The content of the new file.")},
                               {"dryRun", dry_run_param()}},
                              {"path", "content"}),
       .output_schema = mutation_output({{"created", {{"type", "boolean"}}}}),
       .mutates = true,
       .idempotent = true,
       .render = &render_mutation},
      &protocol::decode_create, &Operations::create);

  add({.name = "insert",
       .title = "Insert lines",
       .description =
           std::string("Insert text as whole lines after line `line` (1-based; 0 inserts at the "
                       "top). Nothing is removed. A final newline in text ends its last line. "
                       "Returns where the text now is (lines) and a diff. Errors: "
                       "line_out_of_range (the file has fewer lines; the error gives totalLines), "
                       "conflict, not_found.") +
           kErrorsNote,
       .input_schema =
           object({{"path", path_param()},
                   {"line",
                    integer("Insert after this 1-based line; 0 inserts before the first line.", 0)},
                   {"text", str("The lines to insert (not empty; \"\\n\" for one blank line).")},
                   {"expectedFingerprint", expected_fingerprint_param()},
                   {"dryRun", dry_run_param()}},
                  {"path", "line", "text"}),
       .output_schema =
           mutation_output({{"lines", {{"type", "array"}, {"items", line_range_schema()}}}}),
       .mutates = true,
       .render = &render_mutation},
      &protocol::decode_insert, &Operations::insert);

  add({.name = "str_replace",
       .title = "Replace text in a file",
       .description =
           std::string(
               "Replace one exact occurrence of oldText with newText: the usual way to edit part "
               "of a file. Copy oldText from read_text's output, with enough surrounding lines to "
               "match one place only; indentation and line endings are forgiven where that is "
               "unambiguous (matchedBy says how it matched). newText is literal. Errors: "
               "no_match (nothing matched: the message shows the closest region of the file; copy "
               "oldText from there), ambiguous (several places match: the message lists their "
               "lines; add context or set replaceAll), no_change (oldText equals newText), "
               "conflict.") +
           kErrorsNote,
       .input_schema = object(
           {{"path", path_param()},
            {"oldText", str("The text to replace, copied exactly from the file (not empty).")},
            {"newText", str("The replacement text (may be empty to delete).")},
            {"replaceAll", boolean("Optional: replace every occurrence instead of exactly one.")},
            {"expectedReplacements",
             integer("Optional: fail with ambiguous unless exactly this many places match.", 1)},
            {"matching",
             {{"type", "string"},
              {"enum", {"exact", "standard", "fuzzy"}},
              {"description",
               "Optional: exact turns off the forgiving tiers; standard (the server default) "
               "forgives trailing whitespace, indentation and unicode look-alikes; fuzzy also "
               "forgives blank-line runs. No mode reads escapes written out (\\n, \\t): send real "
               "line breaks and tabs."}}},
            {"expectedFingerprint", expected_fingerprint_param()},
            {"dryRun", dry_run_param()}},
           {"path", "oldText", "newText"}),
       .output_schema =
           mutation_output({{"replacements", {{"type", "integer"}}},
                            {"lines", {{"type", "array"}, {"items", line_range_schema()}}},
                            {"matchedBy", {{"type", "string"}}}}),
       .mutates = true,
       .destructive = true,
       .render = &render_mutation},
      &protocol::decode_str_replace, &Operations::str_replace);

  add({.name = "apply_patch",
       .title = "Apply a multi-file patch",
       .description =
           std::string(
               "Apply a patch that may add, update, delete and move several files, entirely or "
               "not at all. Accepts the Codex envelope (*** Begin Patch / *** Update File: PATH / "
               "@@ / -old / +new / *** End Patch) and unified diffs (git diff, diff -u). Use it "
               "for changes spanning several places or files. Errors: patch_parse (the patch "
               "does not parse at the line the error gives), patch_apply (a hunk's context was "
               "not found: read the file again and rebuild the hunk), conflict "
               "(expectedFingerprints).") +
           kErrorsNote,
       .input_schema = object(
           {{"patch", str("The patch text.")},
            {"expectedFingerprints", string_map("Optional: path -> the fingerprint read_text "
                                                "returned, for files the patch touches.")},
            {"dryRun", dry_run_param()}},
           {"patch"}),
       .output_schema =
           {{"type", "object"},
            {"properties",
             {{"files",
               {{"type", "array"}, {"items", patch_file_output()}}},
              {"diff", str("Every file's unified diff.")},
              {"undoId", str("Pass it to undo to put every file back (absent for a dry run).")}}},
            {"required", {"files", "diff"}}},
       .mutates = true,
       .destructive = true,
       .render = &render_apply_patch},
      &protocol::decode_apply_patch, &Operations::apply_patch);

  add({.name = "edit_lines",
       .title = "Edit lines named by anchors",
       .description =
           std::string(
               "Replace, delete or insert whole lines named by the LINE~TAG anchors that "
               "read_text with format hashline shows (12~ab: line 12, whose content hashes to "
               "ab): no need to quote the old text. Each edit is {replace: {start, end?}, "
               "newText} (empty newText deletes), {insertAfter: anchor, newText} or "
               "{insertBefore: anchor, newText}; all edits refer to the file as read, may not "
               "overlap, and land together or not at all. Anchors may come from several reads "
               "(slices, even before and after another writer's change): each is mapped from "
               "the read it came from to the file as it is, however far its line moved "
               "(rebased lists it); a replace's start and end come from one read. Errors: stale "
               "(the anchored line changed, or its read is no longer remembered: the message "
               "shows the current anchored lines there; retry with those anchors), "
               "invalid_params (an anchor that does not parse, overlapping edits), conflict.") +
           kErrorsNote,
       .input_schema = object(
           {{"path", path_param()},
            {"edits",
             {{"type", "array"},
              {"minItems", 1},
              {"description", "The edits, each with newText and one of replace, insertAfter, "
                              "insertBefore."},
              {"items",
               {{"type", "object"},
                {"properties",
                 {{"replace",
                   {{"type", "object"},
                    {"properties",
                     {{"start", str("The anchor of the first line to replace, e.g. 12~ab.")},
                      {"end", str("Optional: the anchor of the last line (default start).")}}},
                    {"required", {"start"}},
                    {"additionalProperties", false}}},
                  {"insertAfter", str("Insert newText after this anchored line.")},
                  {"insertBefore", str("Insert newText before this anchored line.")},
                  {"newText", str("The new lines (empty with replace deletes the lines).")}}},
                {"required", {"newText"}},
                {"additionalProperties", false}}}}},
            {"expectedFingerprint", expected_fingerprint_param()},
            {"dryRun", dry_run_param()}},
           {"path", "edits"}),
       .output_schema = mutation_output(
           {{"lines", {{"type", "array"}, {"items", line_range_schema()}}},
            {"rebased",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"properties",
                 {{"anchor", {{"type", "string"}}}, {"line", {{"type", "integer"}}}}}}}}}}),
       .mutates = true,
       .destructive = true,
       .render = &render_mutation},
      &protocol::decode_edit_lines, &Operations::edit_lines);

  add({.name = "undo",
       .title = "Undo an edit",
       .description =
           std::string(
               "Put back every file that an earlier edit changed (an apply_patch as a whole), "
               "given the undoId its result returned, if none of them changed since. The undo "
               "is an edit itself, with its own undoId: undoing it redoes. The history is "
               "bounded and lost when editd restarts. Errors: not_found (an unknown or forgotten "
               "undoId), conflict (a file changed since: nothing is touched).") +
           kErrorsNote,
       .input_schema = object({{"undoId", str("The undoId of the edit to undo.")},
                               {"dryRun", dry_run_param()}},
                              {"undoId"}),
       .output_schema =
           {{"type", "object"},
            {"properties",
             {{"files", {{"type", "array"}, {"items", patch_file_output()}}},
              {"diff", str("Every file's unified diff.")},
              {"undoId", str("Pass it to undo to redo.")}}},
            {"required", {"files", "diff"}}},
       .mutates = true,
       .destructive = true,
       .render = &render_apply_patch},
      &protocol::decode_undo, &Operations::undo);

  add({.name = "anthropic_text_editor",
       .title = "Anthropic's text editor tool",
       .description =
           "For hosts of Anthropic's text editor tool (str_replace_based_edit_tool, "
           "text_editor_20250728 and text_editor_20250429): pass the tool_use input exactly as "
           "the model wrote it (and tool_use_id, optionally); the result is the tool_result to "
           "send back. command view shows a file as numbered lines (\"12: text\"; view_range "
           "[start, end], end -1 to the end) or a directory two levels deep; str_replace "
           "replaces old_str, which must match one place, with new_str; create writes "
           "file_text (a new file, or over an existing one); insert puts insert_text (new_str "
           "in text_editor_20250429) after line insert_line (0: the top). Matching, line "
           "endings and checks are editd's. Failures are results with is_error and a message "
           "that says what to do.",
       .input_schema = object(
           {{"command",
             {{"type", "string"},
              {"enum", {"view", "create", "str_replace", "insert"}},
              {"description", "What to do."}}},
            {"path", path_param()},
            {"view_range",
             {{"type", "array"},
              {"items", {{"type", "integer"}}},
              {"minItems", 2},
              {"maxItems", 2},
              {"description", "view: [start, end] lines, 1-based; end -1 reads to the end."}}},
            {"old_str", str("str_replace: the text to replace, copied from the file.")},
            {"new_str",
             str("str_replace: the replacement (empty deletes); insert in text_editor_20250429: "
                 "the text.")},
            {"file_text", str("create: the file's content.")},
            {"insert_line", integer("insert: the line after which the text goes (0: the top).", 0)},
            {"insert_text", str("insert: the text.")},
            {"max_characters", integer("view: truncate the view past this many characters.", 1)},
            {"tool_use_id", str("Optional: the tool_use block's id, echoed in the tool_result.")}},
           {"command", "path"}),
       .output_schema = {{"type", "object"},
                         {"properties",
                          {{"type", {{"type", "string"}, {"enum", {"tool_result"}}}},
                           {"tool_use_id", {{"type", "string"}}},
                           {"content", str("What the model reads.")},
                           {"is_error", {{"type", "boolean"}}}}},
                         {"required", {"type", "content"}}},
       .mutates = true,
       .destructive = true,
       .provider_native = true,
       .render = &render_text_editor},
      &protocol::decode_text_editor, &anthropic_text_editor);

  add({.name = "openai_apply_patch",
       .title = "OpenAI's apply_patch tool",
       .description =
           "For hosts of OpenAI's apply_patch tool (the Responses API's apply_patch_call): pass "
           "the call's operation exactly as the model wrote it, {type: create_file | "
           "update_file | delete_file, path, diff} with its V4A diff, and call_id optionally; "
           "the result is the apply_patch_call_output to send back (status completed or "
           "failed, and output: what was done, with the diff, or what went wrong and what to "
           "do). Chunks are found as apply_patch finds them, fidelity and checks are editd's.",
       .input_schema = object(
           {{"operation",
             {{"type", "object"},
              {"properties",
               {{"type",
                 {{"type", "string"}, {"enum", {"create_file", "update_file", "delete_file"}}}},
                {"path", path_param()},
                {"diff",
                 str("V4A: create_file, every line +; update_file, @@ anchors and context, - "
                     "and + lines.")}}},
              {"required", {"type", "path"}},
              {"description", "The apply_patch_call's operation, verbatim."}}},
            {"call_id", str("Optional: the call's id, echoed in the output.")}},
           {"operation"}),
       .output_schema = {{"type", "object"},
                         {"properties",
                          {{"type", {{"type", "string"}, {"enum", {"apply_patch_call_output"}}}},
                           {"call_id", {{"type", "string"}}},
                           {"status", {{"type", "string"}, {"enum", {"completed", "failed"}}}},
                           {"output", str("What the model reads.")}}},
                         {"required", {"type", "status", "output"}}},
       .mutates = true,
       .destructive = true,
       .provider_native = true,
       .render = &render_openai_patch},
      &protocol::decode_openai_patch, &openai_apply_patch);

  add({.name = "fingerprint",
       .title = "Fingerprint a file",
       .description =
           "The fingerprint and byte size of a file (text or not), without reading its content: "
           "to check whether a file changed since it was read. Errors: not_found, is_directory.",
       .input_schema = object({{"path", path_param()}}, {"path"}),
       .output_schema = {{"type", "object"},
                         {"properties",
                          {{"fingerprint", {{"type", "string"}}}, {"size", {{"type", "integer"}}}}},
                         {"required", {"fingerprint", "size"}}},
       .idempotent = true,
       .render = &render_fingerprint},
      &protocol::decode_fingerprint, &Operations::fingerprint);

  add({.name = "read_symbols",
       .title = "List a file's symbols",
       .description =
           "The symbols of a source file (classes, functions, methods...) as its language "
           "server reports them, each with its name path (Outer/inner; same-named siblings "
           "such as overloads as name[0], name[1]), kind and lines (decorators and comments "
           "right above it included). Then read one with read_text's symbol, and edit one "
           "with edit_symbol, by that name path. depth 0 lists the top level only. A long "
           "listing comes in pages: nextOffset is the offset to list on from. Errors: "
           "unsupported (no language server covers the file), timeout, not_found, not_text.",
       .input_schema = object(
           {{"path", path_param()},
            {"depth", integer("Optional: the deepest level to list, 0 for the top level "
                              "(default every level).",
                              0)},
            {"offset", integer("Optional: how many symbols of the listing to skip (a previous "
                               "page's nextOffset; default 0).",
                               0)},
            {"limit", integer("Optional: the most symbols to list.", 1)}},
           {"path"}),
       .output_schema = {{"type", "object"},
                         {"properties",
                          {{"fingerprint", str("The whole file's fingerprint.")},
                           {"totalLines", {{"type", "integer"}}},
                           {"totalSymbols", {{"type", "integer"}}},
                           {"offset", {{"type", "integer"}}},
                           {"nextOffset", {{"type", "integer"}}},
                           {"symbols", {{"type", "array"}, {"items", symbol_schema()}}},
                           {"truncated", {{"type", "boolean"}}}}},
                         {"required", {"fingerprint", "totalLines", "totalSymbols", "symbols"}}},
       .idempotent = true,
       .paged = true,
       .needs_language_server = true,
       .render = &render_symbols},
      &protocol::decode_read_symbols, &Operations::read_symbols);

  add({.name = "edit_symbol",
       .title = "Replace a symbol, or insert beside it",
       .description =
           std::string(
               "Replace a whole symbol (a function, method, class...) named by its name path "
               "as read_symbols lists it, or insert whole lines before or after it: no need to "
               "quote the old text. Give exactly one of replace (the symbol's new lines, all "
               "of them: what read_text with symbol shows is what is replaced; empty deletes "
               "it), insertBefore or insertAfter. The new lines take the symbol's "
               "indentation: the first line's, and the rest keep their depth relative to it. "
               "The language server is asked about the file as it is now, so the lines can "
               "never be those of another version. Errors: no_match (no symbol has that name "
               "path: the closest names are listed), ambiguous (several do: each candidate is "
               "listed; use its whole name path), unsupported (no language server covers the "
               "file, or the symbol shares its lines with another), timeout, conflict.") +
           kErrorsNote,
       .input_schema = object(
           {{"path", path_param()},
            {"symbol", str("The symbol's name path, e.g. Parser/parse or Parser/parse[1].")},
            {"replace", str("The symbol's new lines, in place of all of its lines.")},
            {"insertBefore", str("Lines to insert before the symbol.")},
            {"insertAfter", str("Lines to insert after the symbol.")},
            {"expectedFingerprint", expected_fingerprint_param()},
            {"dryRun", dry_run_param()}},
           {"path", "symbol"}),
       .output_schema =
           mutation_output({{"symbol", symbol_schema()},
                            {"lines", {{"type", "array"}, {"items", line_range_schema()}}}}),
       .mutates = true,
       .destructive = true,
       .needs_language_server = true,
       .render = &render_mutation},
      &protocol::decode_edit_symbol, &Operations::edit_symbol);

  std::sort(methods_.begin(), methods_.end(),
            [](const Method& a, const Method& b) { return a.name < b.name; });
}

const Method* Registry::find(std::string_view name) const {
  name = bare_method(name);
  for (const Method& m : methods_)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const Method& m : methods_) out.push_back(m.name);
  return out;
}

std::string_view Registry::bare_method(std::string_view method) {
  for (std::string_view prefix : {std::string_view("_edit/"), std::string_view("edit/")})
    if (method.starts_with(prefix)) return method.substr(prefix.size());
  return method;
}

}  // namespace editd
