#include "protocol/methods.h"

#include <cmath>
#include <cstdint>

#include "protocol/params.h"

namespace editd::protocol {
namespace {

void decode_mutation(ParamDecoder& d, MutationParams& m) {
  d.path("path", m.path);
  d.optional_string("expectedFingerprint", m.expected_fingerprint);
  d.optional_bool("dryRun", m.dry_run);
  d.optional_string("sessionId", m.session_id);
}

}  // namespace

Result<InitializeParams> decode_initialize(const json& p) {
  ParamDecoder d(p);
  InitializeParams r;
  d.integer("protocolVersion", r.protocol_version, 0);
  if (d.ok() && p.contains("clientCapabilities") && !p["clientCapabilities"].is_null()) {
    if (!p["clientCapabilities"].is_object())
      d.fail(invalid_param("clientCapabilities", "must be an object"));
    else
      r.client_capabilities = p["clientCapabilities"];
  }
  if (p.contains("clientInfo")) r.client_info = p["clientInfo"];
  d.optional_string("authToken", r.auth_token);
  return d.finish(std::move(r));
}

Result<ReadTextParams> decode_read_text(const json& p) {
  ParamDecoder d(p);
  ReadTextParams r;
  d.path("path", r.path);
  d.optional_integer("line", r.line, 1);
  d.optional_integer("limit", r.limit, 1);
  d.optional_string("format", r.format);
  if (d.ok() && r.format && *r.format != "plain" && *r.format != "hashline")
    d.fail(invalid_param("format", "must be \"plain\" or \"hashline\""));
  d.optional_string("symbol", r.symbol);
  if (d.ok() && r.symbol && (r.line || r.limit))
    d.fail(invalid_param("symbol", "names the lines to read: send it without line and limit"));
  d.optional_string("sessionId", r.session_id);
  return d.finish(std::move(r));
}

Result<ReadSymbolsParams> decode_read_symbols(const json& p) {
  ParamDecoder d(p);
  ReadSymbolsParams r;
  d.path("path", r.path);
  d.optional_integer("depth", r.depth, 0);
  d.optional_integer("offset", r.offset, 0);
  d.optional_integer("limit", r.limit, 1);
  d.optional_string("sessionId", r.session_id);
  return d.finish(std::move(r));
}

Result<EditSymbolParams> decode_edit_symbol(const json& p) {
  ParamDecoder d(p);
  EditSymbolParams r;
  decode_mutation(d, r);
  d.string("symbol", r.symbol);
  for (const char* placement : {"replace", "insertBefore", "insertAfter"}) {
    std::optional<std::string> text;
    d.optional_string(placement, text);
    if (!d.ok() || !text) continue;
    if (!r.placement.empty()) {
      d.fail(invalid_param(placement, "only one of replace, insertBefore and insertAfter may "
                                      "be given"));
      break;
    }
    r.placement = placement;
    r.text = std::move(*text);
  }
  if (d.ok() && r.placement.empty())
    d.fail(invalid_param("replace", "missing: give the new lines as replace (in place of the "
                                    "symbol's lines), insertBefore or insertAfter"));
  return d.finish(std::move(r));
}

Result<WriteTextParams> decode_write_text(const json& p) {
  ParamDecoder d(p);
  WriteTextParams r;
  decode_mutation(d, r);
  d.string("content", r.content);
  return d.finish(std::move(r));
}

Result<CreateParams> decode_create(const json& p) {
  ParamDecoder d(p);
  CreateParams r;
  decode_mutation(d, r);
  d.string("content", r.content);
  return d.finish(std::move(r));
}

Result<InsertParams> decode_insert(const json& p) {
  ParamDecoder d(p);
  InsertParams r;
  decode_mutation(d, r);
  d.integer("line", r.line, 0);
  d.string("text", r.text);
  return d.finish(std::move(r));
}

Result<SetFormatParams> decode_set_format(const json& p) {
  ParamDecoder d(p);
  SetFormatParams r;
  decode_mutation(d, r);
  d.optional_string("lineEndings", r.line_endings);
  d.optional_bool("bom", r.bom);
  d.optional_bool("finalNewline", r.final_newline);
  if (d.ok() && r.line_endings && *r.line_endings != "lf" && *r.line_endings != "crlf")
    d.fail(invalid_param("lineEndings", "must be \"lf\" or \"crlf\""));
  if (d.ok() && !r.line_endings && !r.bom && !r.final_newline)
    d.fail(invalid_param("lineEndings",
                         "set_format needs at least one of lineEndings, bom and finalNewline"));
  return d.finish(std::move(r));
}

Result<StrReplaceParams> decode_str_replace(const json& p) {
  ParamDecoder d(p);
  StrReplaceParams r;
  decode_mutation(d, r);
  d.string("oldText", r.old_text);
  d.string("newText", r.new_text);
  d.optional_bool("replaceAll", r.replace_all);
  d.optional_integer("expectedReplacements", r.expected_replacements, 1);
  d.optional_string("matching", r.matching);
  if (d.ok() && r.old_text.empty()) d.fail(invalid_param("oldText", "must not be empty"));
  if (d.ok() && r.matching && *r.matching != "exact" && *r.matching != "standard" &&
      *r.matching != "fuzzy")
    d.fail(invalid_param("matching", "must be \"exact\", \"standard\" or \"fuzzy\""));
  return d.finish(std::move(r));
}

namespace {

// One element of edit_lines' `edits`; the first problem names the edit.
std::optional<Error> decode_line_edit(const json& e, std::size_t index, LineEditParams& out) {
  const std::string at = "edit " + std::to_string(index) + ": ";
  auto fail = [&](const std::string& problem) {
    Error err = invalid_param("edits", at + problem);
    err.data["edit"] = index;
    return err;
  };
  if (!e.is_object()) return fail("must be an object");
  int kinds = 0;
  for (const char* k : {"replace", "insertAfter", "insertBefore"})
    if (e.contains(k) && !e[k].is_null()) {
      out.kind = k;
      ++kinds;
    }
  if (kinds != 1)
    return fail("must have exactly one of replace, insertAfter and insertBefore");
  const json& v = e[out.kind];
  if (out.kind == "replace") {
    if (!v.is_object()) return fail("replace must be an object {start, end?}");
    auto start = v.find("start");
    if (start == v.end() || !start->is_string())
      return fail("replace.start must be an anchor string such as \"12~ab\"");
    out.start = start->get<std::string>();
    if (auto end = v.find("end"); end != v.end() && !end->is_null()) {
      if (!end->is_string()) return fail("replace.end must be an anchor string such as \"14~cd\"");
      out.end = end->get<std::string>();
    }
  } else {
    if (!v.is_string()) return fail(out.kind + " must be an anchor string such as \"12~ab\"");
    out.start = v.get<std::string>();
  }
  auto text = e.find("newText");
  if (text == e.end() || !text->is_string()) return fail("newText is missing (a string is required)");
  out.new_text = text->get<std::string>();
  return std::nullopt;
}

}  // namespace

Result<EditLinesParams> decode_edit_lines(const json& p) {
  ParamDecoder d(p);
  EditLinesParams r;
  decode_mutation(d, r);
  if (!d.ok()) return d.finish(std::move(r));
  auto edits = p.find("edits");
  if (edits == p.end() || edits->is_null())
    d.fail(invalid_param("edits", "missing (an array of edits is required)"));
  else if (!edits->is_array() || edits->empty())
    d.fail(invalid_param("edits", "must be a non-empty array"));
  else
    for (std::size_t i = 0; i < edits->size() && d.ok(); ++i) {
      LineEditParams e;
      if (auto err = decode_line_edit((*edits)[i], i, e))
        d.fail(std::move(*err));
      else
        r.edits.push_back(std::move(e));
    }
  return d.finish(std::move(r));
}

Result<FingerprintParams> decode_fingerprint(const json& p) {
  ParamDecoder d(p);
  FingerprintParams r;
  d.path("path", r.path);
  d.optional_string("sessionId", r.session_id);
  return d.finish(std::move(r));
}

Result<ApplyPatchParams> decode_apply_patch(const json& p) {
  ParamDecoder d(p);
  ApplyPatchParams r;
  d.string("patch", r.patch);
  d.optional_bool("dryRun", r.dry_run);
  d.optional_string_map("expectedFingerprints", r.expected_fingerprints);
  for (const auto& [path, fingerprint] : r.expected_fingerprints) {
    if (auto problem = path_problem(path)) {
      d.fail(invalid_param("expectedFingerprints", "a key (a path) " + *problem));
      break;
    }
  }
  d.optional_string("sessionId", r.session_id);
  return d.finish(std::move(r));
}

Result<UndoParams> decode_undo(const json& p) {
  ParamDecoder d(p);
  UndoParams r;
  d.string("undoId", r.undo_id);
  d.optional_bool("dryRun", r.dry_run);
  d.optional_string("sessionId", r.session_id);
  return d.finish(std::move(r));
}

namespace {

// The string at `key`, when it is one; `problem` names the first field that
// is there but not a string.
std::optional<std::string> lenient_string(const json& p, const char* key,
                                          std::optional<std::string>& problem) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (!problem) problem = std::string("Parameter `") + key + "` must be a string";
  return std::nullopt;
}

// `v`, when it is an integer from -2^63 to 2^63 - 1 (2.0 is 2); `problem`
// says what is wrong with any other value, naming it `name`.
std::optional<std::int64_t> integer_value(const json& v, const std::string& name,
                                          std::optional<std::string>& problem) {
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    if (!problem) problem = "Parameter `" + name + "` must be at most " + std::to_string(INT64_MAX);
    return std::nullopt;
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= -kLimit && d < kLimit && d == std::trunc(d)) return static_cast<std::int64_t>(d);
  }
  if (!problem) problem = "Parameter `" + name + "` must be an integer";
  return std::nullopt;
}

// The integer at `key` (integer_value), nullopt when absent or null.
std::optional<std::int64_t> lenient_integer(const json& p, const char* key,
                                            std::optional<std::string>& problem) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return std::nullopt;
  return integer_value(*it, key, problem);
}

}  // namespace

Result<TextEditorParams> decode_text_editor(const json& p) {
  if (!p.is_object()) return invalid_param("params", "must be the tool's input object");
  TextEditorParams r;
  std::optional<std::string> problem;
  r.command = lenient_string(p, "command", problem).value_or("");
  r.path = lenient_string(p, "path", problem).value_or("");
  r.old_str = lenient_string(p, "old_str", problem);
  r.new_str = lenient_string(p, "new_str", problem);
  r.file_text = lenient_string(p, "file_text", problem);
  r.insert_text = lenient_string(p, "insert_text", problem);
  r.tool_use_id = lenient_string(p, "tool_use_id", problem);
  if (auto line = lenient_integer(p, "insert_line", problem)) {
    if (*line < 0)
      problem = problem.value_or("Parameter `insert_line` must be 0 or more");
    else
      r.insert_line = static_cast<std::uint64_t>(*line);
  }
  if (auto m = lenient_integer(p, "max_characters", problem)) {
    if (*m < 1)
      problem = problem.value_or("Parameter `max_characters` must be 1 or more");
    else
      r.max_characters = static_cast<std::uint64_t>(*m);
  }
  if (auto range = p.find("view_range"); range != p.end() && !range->is_null()) {
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
        !(*range)[1].is_number()) {
      problem = problem.value_or(
          "Parameter `view_range` must be two integers [start, end] (end -1: to the end)");
    } else {
      auto start = integer_value((*range)[0], "view_range[0]", problem);
      auto end = integer_value((*range)[1], "view_range[1]", problem);
      if (start && end) {
        r.view_start = start;
        r.view_end = end;
      }
    }
  }
  if (!problem && r.command.empty()) problem = "Parameter `command` is required";
  if (!problem && r.path.empty()) problem = "Parameter `path` is required";
  if (!problem)
    if (auto bad = path_problem(r.path)) problem = "Parameter `path` " + *bad;
  r.problem = std::move(problem);
  return r;
}

Result<OpenAiPatchParams> decode_openai_patch(const json& p) {
  if (!p.is_object()) return invalid_param("params", "must be an object {operation, call_id?}");
  OpenAiPatchParams r;
  std::optional<std::string> problem;
  r.call_id = lenient_string(p, "call_id", problem);
  auto op = p.find("operation");
  if (op == p.end() || !op->is_object()) {
    r.problem = "operation is missing: expected {type, path, diff}";
    return r;
  }
  r.type = lenient_string(*op, "type", problem).value_or("");
  r.path = lenient_string(*op, "path", problem).value_or("");
  r.diff = lenient_string(*op, "diff", problem);
  if (!problem && r.path.empty()) problem = "operation.path is required";
  if (!problem)
    if (auto bad = path_problem(r.path)) problem = "operation.path " + *bad;
  r.problem = std::move(problem);
  return r;
}

json to_json(const ToolResultBlock& r) {
  json j{{"type", "tool_result"}, {"content", r.content}};
  if (r.tool_use_id) j["tool_use_id"] = *r.tool_use_id;
  if (r.is_error) j["is_error"] = true;
  return j;
}

json to_json(const ApplyPatchCallOutput& r) {
  json j{{"type", "apply_patch_call_output"}, {"status", r.status}, {"output", r.output}};
  if (r.call_id) j["call_id"] = *r.call_id;
  return j;
}

namespace {

json symbol_json(const SymbolInfo& s) {
  return json{{"namePath", s.name_path}, {"kind", s.kind}, {"startLine", s.start_line},
              {"endLine", s.end_line}, {"depth", s.depth}};
}

}  // namespace

json to_json(const ReadTextResult& r) { return to_json(ReadTextResult(r)); }

json to_json(ReadTextResult&& r) {
  json j = json::object();
  j["content"] = std::move(r.content);
  j["fingerprint"] = std::move(r.fingerprint);
  j["totalLines"] = r.total_lines;
  j["line"] = r.line;
  j["lineCount"] = r.line_count;
  if (r.format) j["format"] = std::move(*r.format);
  if (r.symbol) j["symbol"] = symbol_json(*r.symbol);
  return j;
}

json to_json(const ReadSymbolsResult& r) {
  json symbols = json::array();
  for (const SymbolInfo& s : r.symbols) symbols.push_back(symbol_json(s));
  const std::uint64_t next = r.offset + r.symbols.size();
  json j{{"fingerprint", r.fingerprint},
         {"totalLines", r.total_lines},
         {"totalSymbols", r.total_symbols},
         {"symbols", std::move(symbols)}};
  if (r.offset > 0) j["offset"] = r.offset;
  if (next < r.total_symbols) j["nextOffset"] = next;
  if (r.truncated) j["truncated"] = true;
  return j;
}

namespace {

json diagnostic_json(const Diagnostic& d) {
  json j = json::object();
  if (d.file) j["file"] = *d.file;
  if (d.line) j["line"] = *d.line;
  if (d.column) j["column"] = *d.column;
  j["severity"] = d.severity;
  j["message"] = d.message;
  j["source"] = d.source;
  return j;
}

void put_diagnostics(json& j, const std::optional<DiagnosticsReport>& r) {
  if (!r) return;
  json all = json::array(), introduced = json::array();
  for (const Diagnostic& d : r->all) all.push_back(diagnostic_json(d));
  for (const Diagnostic& d : r->introduced) introduced.push_back(diagnostic_json(d));
  j["diagnostics"] = std::move(all);
  j["introduced"] = std::move(introduced);
  j["diagnosticsStatus"] = r->status;
  if (r->detail) j["diagnosticsDetail"] = *r->detail;
}

}  // namespace

json to_json(const MutationResult& r) {
  json j{{"fingerprint", r.fingerprint}, {"diff", r.diff}, {"added", r.added}, {"removed", r.removed}};
  if (r.created) j["created"] = *r.created;
  if (r.replacements) j["replacements"] = *r.replacements;
  if (r.lines) {
    json lines = json::array();
    for (const LineRange& l : *r.lines) lines.push_back({{"startLine", l.start_line}, {"endLine", l.end_line}});
    j["lines"] = std::move(lines);
  }
  if (r.matched_by) j["matchedBy"] = *r.matched_by;
  if (r.rebased) {
    json rebased = json::array();
    for (const RebasedAnchor& a : *r.rebased) rebased.push_back({{"anchor", a.anchor}, {"line", a.line}});
    j["rebased"] = std::move(rebased);
  }
  if (r.undo_id) j["undoId"] = *r.undo_id;
  if (r.symbol) j["symbol"] = symbol_json(*r.symbol);
  put_diagnostics(j, r.diagnostics);
  return j;
}

json to_json(const FingerprintResult& r) {
  return json{{"fingerprint", r.fingerprint}, {"size", r.size}};
}

json to_json(const ApplyPatchResult& r) {
  json files = json::array();
  for (const PatchFileResult& f : r.files) {
    json j{{"path", f.path}, {"action", f.action}, {"added", f.added}, {"removed", f.removed}};
    if (f.moved_to) j["movedTo"] = *f.moved_to;
    if (f.fingerprint) j["fingerprint"] = *f.fingerprint;
    if (f.overwritten) j["overwritten"] = true;
    if (f.unchanged) j["unchanged"] = true;
    if (f.executable) j["executable"] = *f.executable;
    if (f.mode_skipped) j["modeSkipped"] = true;
    put_diagnostics(j, f.diagnostics);
    files.push_back(std::move(j));
  }
  json j{{"files", std::move(files)}, {"diff", r.diff}};
  if (r.undo_id) j["undoId"] = *r.undo_id;
  return j;
}

}  // namespace editd::protocol
