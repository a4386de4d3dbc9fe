// Param and result types of every method, with their JSON mapping.
//
// Each method has a `XxxParams` struct decoded by `decode(const json&, XxxParams&)`
// (errors name the param) and a result struct encoded by `to_json`: the wire's
// side of the door. The core (server/ops/operations) sees only these structs'
// translations into its own (server/ops/requests.h), made by the doors
// (server/doors/bindings.h), never JSON. docs/protocol.md is the normative
// description of each field.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/error.h"

namespace editd::protocol {

using json = nlohmann::json;

// Params common to every mutation.
struct MutationParams {
  std::string path;
  std::optional<std::string> expected_fingerprint;
  bool dry_run = false;
  std::optional<std::string> session_id;
};

struct InitializeParams {
  std::uint64_t protocol_version = 1;
  json client_capabilities = json::object();
  json client_info;
  std::optional<std::string> auth_token;
};

struct ReadTextParams {
  std::string path;
  std::optional<std::uint64_t> line;
  std::optional<std::uint64_t> limit;
  std::optional<std::string> format;  // "plain" (default) | "hashline"
  std::optional<std::string> symbol;  // a name path, in place of line and limit
  std::optional<std::string> session_id;
};
// A symbol as read_symbols lists it (and read_text, edit_symbol name it).
struct SymbolInfo {
  std::string name_path;
  std::string kind;
  std::uint64_t start_line = 0;
  std::uint64_t end_line = 0;
  std::uint64_t depth = 0;
};
struct ReadTextResult {
  std::string content;
  std::optional<std::string> format;  // set for "hashline" only
  std::string fingerprint;
  std::uint64_t total_lines = 0;
  std::uint64_t line = 1;
  std::uint64_t line_count = 0;
  std::optional<SymbolInfo> symbol;  // when read by symbol
};

struct ReadSymbolsParams {
  std::string path;
  std::optional<std::uint64_t> depth;
  std::optional<std::uint64_t> offset;  // the first listed, 0-based in the whole listing
  std::optional<std::uint64_t> limit;   // at most this many listed (1 or more)
  std::optional<std::string> session_id;
};
struct ReadSymbolsResult {
  std::string fingerprint;
  std::uint64_t total_lines = 0;
  std::vector<SymbolInfo> symbols;
  std::uint64_t offset = 0;         // of symbols[0] in the whole listing
  std::uint64_t total_symbols = 0;  // in the whole listing (at this depth)
  bool truncated = false;
};

struct WriteTextParams : MutationParams {
  std::string content;
};
struct CreateParams : MutationParams {
  std::string content;
};
struct InsertParams : MutationParams {
  std::uint64_t line = 0;
  std::string text;
};
// set_format: what the fidelity rules otherwise keep, set explicitly; each
// field absent keeps the file's own.
struct SetFormatParams : MutationParams {
  std::optional<std::string> line_endings;  // "lf" | "crlf"
  std::optional<bool> bom;
  std::optional<bool> final_newline;
};
struct StrReplaceParams : MutationParams {
  std::string old_text;
  std::string new_text;
  bool replace_all = false;
  std::optional<std::uint64_t> expected_replacements;
  std::optional<std::string> matching;  // "exact" | "standard" | "fuzzy"
};

// One edit of edit_lines, as sent: anchors are checked by the operation.
struct LineEditParams {
  std::string kind;  // "replace" | "insertAfter" | "insertBefore"
  std::string start;  // replace.start, or the insertion's anchor
  std::optional<std::string> end;  // replace.end
  std::string new_text;
};
struct EditLinesParams : MutationParams {
  std::vector<LineEditParams> edits;
};
// edit_symbol: exactly one of replace, insertBefore, insertAfter.
struct EditSymbolParams : MutationParams {
  std::string symbol;
  std::string placement;  // "replace" | "insertBefore" | "insertAfter": the param given
  std::string text;
};

struct RebasedAnchor {
  std::string anchor;
  std::uint64_t line = 0;
};

struct LineRange {
  std::uint64_t start_line = 0;
  std::uint64_t end_line = 0;
};

// A problem a checker (--check) or a language server (--lsp) reported in a
// file after a mutation wrote it.
struct Diagnostic {
  std::optional<std::string> file;     // set when it is in another file than the one written
  std::optional<std::uint64_t> line;   // 1-based; absent for output nothing could parse
  std::optional<std::uint64_t> column;  // 1-based
  std::string severity;                // error | warning | info | hint
  std::string message;
  std::string source;  // the checker's program, or the language server's own name
};

// The checks of one written file: every diagnostic after the write, those
// that were not there before it, and how the checks went.
struct DiagnosticsReport {
  std::vector<Diagnostic> all;
  std::vector<Diagnostic> introduced;
  std::string status = "ok";  // ok | timeout | failed
  std::optional<std::string> detail;  // what went wrong, when not ok
};

// Every mutation returns these, plus its own fields.
struct MutationResult {
  std::string fingerprint;
  std::string diff;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  std::optional<bool> created;                // write_text, create
  std::optional<std::uint64_t> replacements;  // str_replace
  std::optional<std::vector<LineRange>> lines;
  std::optional<std::string> matched_by;
  std::optional<std::vector<RebasedAnchor>> rebased;  // edit_lines
  std::optional<std::string> undo_id;  // absent when nothing was written or kept
  std::optional<DiagnosticsReport> diagnostics;  // when a check covers the file written
  std::optional<SymbolInfo> symbol;  // edit_symbol: the symbol as found, before the edit
};

struct FingerprintParams {
  std::string path;
  std::optional<std::string> session_id;
};
struct FingerprintResult {
  std::string fingerprint;
  std::uint64_t size = 0;
};

struct ApplyPatchParams {
  std::string patch;
  bool dry_run = false;
  std::map<std::string, std::string> expected_fingerprints;
  std::optional<std::string> session_id;
};
struct PatchFileResult {
  std::string path;
  std::string action;  // add | update | delete | move
  std::optional<std::string> moved_to;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  std::optional<std::string> fingerprint;  // absent for delete
  bool overwritten = false;
  // The mode the patch set (git `new mode`): executable or not; absent: none.
  std::optional<bool> executable;
  bool mode_skipped = false;  // the patch set a mode the backend has no way to keep
  // An update whose every change the fidelity rules kept out (the file was
  // not written), in a patch that changes other files.
  bool unchanged = false;
  std::optional<DiagnosticsReport> diagnostics;  // when a check covers the file written
};
struct ApplyPatchResult {
  std::vector<PatchFileResult> files;
  std::string diff;
  std::optional<std::string> undo_id;
};

struct UndoParams {
  std::string undo_id;
  bool dry_run = false;
  std::optional<std::string> session_id;
};

// Anthropic's text editor tool (str_replace_based_edit_tool: text_editor_20250728
// and text_editor_20250429): the tool_use block's `input` as the model wrote it,
// plus the block's id when the host passes it. Decoding never fails on what
// the model got wrong: `problem` says what, and the result is an is_error
// tool_result a model can act on.
struct TextEditorParams {
  std::string command;
  std::string path;
  std::optional<std::int64_t> view_start, view_end;  // view_range [start, end]; end -1: to the end
  std::optional<std::string> old_str, new_str, file_text, insert_text;
  std::optional<std::uint64_t> insert_line;
  std::optional<std::uint64_t> max_characters;
  std::optional<std::string> tool_use_id;
  std::optional<std::string> problem;
};
// A tool_result block: `content` is what the model reads.
struct ToolResultBlock {
  std::optional<std::string> tool_use_id;
  std::string content;
  bool is_error = false;
};

// OpenAI's apply_patch tool (the Responses API's apply_patch_call): its
// `operation` as the model wrote it, and the call's id when the host passes it.
struct OpenAiPatchParams {
  std::string type;  // create_file | update_file | delete_file
  std::string path;
  std::optional<std::string> diff;  // V4A; none for delete_file
  std::optional<std::string> call_id;
  std::optional<std::string> problem;  // as TextEditorParams::problem
};
// The apply_patch_call_output item's fields.
struct ApplyPatchCallOutput {
  std::optional<std::string> call_id;
  std::string status;  // completed | failed
  std::string output;
};

Result<InitializeParams> decode_initialize(const json& p);
Result<ReadTextParams> decode_read_text(const json& p);
Result<WriteTextParams> decode_write_text(const json& p);
Result<CreateParams> decode_create(const json& p);
Result<InsertParams> decode_insert(const json& p);
Result<SetFormatParams> decode_set_format(const json& p);
Result<StrReplaceParams> decode_str_replace(const json& p);
Result<EditLinesParams> decode_edit_lines(const json& p);
Result<ReadSymbolsParams> decode_read_symbols(const json& p);
Result<EditSymbolParams> decode_edit_symbol(const json& p);
Result<FingerprintParams> decode_fingerprint(const json& p);
Result<ApplyPatchParams> decode_apply_patch(const json& p);
Result<UndoParams> decode_undo(const json& p);
Result<TextEditorParams> decode_text_editor(const json& p);
Result<OpenAiPatchParams> decode_openai_patch(const json& p);

json to_json(const ReadTextResult& r);
json to_json(ReadTextResult&& r);  // moves the content (a whole file) instead of a copy
json to_json(const MutationResult& r);
json to_json(const ReadSymbolsResult& r);
json to_json(const FingerprintResult& r);
json to_json(const ToolResultBlock& r);
json to_json(const ApplyPatchCallOutput& r);
json to_json(const ApplyPatchResult& r);

}  // namespace editd::protocol
