#include "protocol/methods.h"

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
  d.optional_string("sessionId", r.session_id);
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

json to_json(const ReadTextResult& r) {
  json j{{"content", r.content},       {"fingerprint", r.fingerprint},
         {"totalLines", r.total_lines}, {"line", r.line},
         {"lineCount", r.line_count}};
  if (r.format) j["format"] = *r.format;
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
    put_diagnostics(j, f.diagnostics);
    files.push_back(std::move(j));
  }
  json j{{"files", std::move(files)}, {"diff", r.diff}};
  if (r.undo_id) j["undoId"] = *r.undo_id;
  return j;
}

}  // namespace editd::protocol
