#include "server/methods/shared.h"

#include <string>
#include <utility>

namespace editd::methods {

using nlohmann::json;

void decode_session(protocol::ParamDecoder& d) {
  std::optional<std::string> session;
  d.optional_string("sessionId", session);
}

void decode_mutation(protocol::ParamDecoder& d, ops::MutationRequest& out) {
  d.path("path", out.path);
  d.optional_string("expectedFingerprint", out.expected_fingerprint);
  d.optional_bool("dryRun", out.dry_run);
  decode_session(d);
}

void decode_format(protocol::ParamDecoder& d, bool& out) { d.optional_bool("format", out); }

json encode_symbol(const ops::SymbolLines& s) {
  return json{{"namePath", s.name_path},
              {"kind", s.kind},
              {"startLine", s.start_line},
              {"endLine", s.end_line},
              {"depth", s.depth}};
}

namespace {

json diagnostic_json(const diagnostics::Diagnostic& d) {
  json j = json::object();
  if (d.file) j["file"] = *d.file;
  if (d.line) j["line"] = *d.line;
  if (d.column) j["column"] = *d.column;
  j["severity"] = d.severity;
  j["message"] = d.message;
  j["source"] = d.source;
  return j;
}

}  // namespace

void put_diagnostics(json& j, const std::optional<diagnostics::Report>& r) {
  if (!r) return;
  json all = json::array(), introduced = json::array();
  for (const diagnostics::Diagnostic& d : r->all) all.push_back(diagnostic_json(d));
  for (const diagnostics::Diagnostic& d : r->introduced) introduced.push_back(diagnostic_json(d));
  j["diagnostics"] = std::move(all);
  j["introduced"] = std::move(introduced);
  j["diagnosticsStatus"] = std::string(diagnostics::status_name(r->status));
  if (r->detail) j["diagnosticsDetail"] = *r->detail;
}

void put_format(json& j, const std::optional<ops::FormatReport>& r) {
  if (!r) return;
  j["formatStatus"] = r->status;
  if (r->detail) j["formatDetail"] = *r->detail;
  if (!r->formatted) return;
  const ops::Formatted& f = *r->formatted;
  json lines = json::array();
  for (const ops::LineRange& l : f.lines)
    lines.push_back({{"startLine", l.start_line}, {"endLine", l.end_line}});
  json formatted = {{"diff", f.diff},        {"added", f.added},     {"removed", f.removed},
                    {"lines", std::move(lines)}, {"dropped", f.dropped}, {"hashline", f.hashline}};
  if (f.hashline_truncated) formatted["hashlineTruncated"] = true;
  j["formatted"] = std::move(formatted);
}

json encode_mutation(ops::Mutation m) {
  json j{{"fingerprint", std::move(m.fingerprint)},
         {"diff", std::move(m.diff)},
         {"added", m.added},
         {"removed", m.removed}};
  if (m.created) j["created"] = *m.created;
  if (m.replacements) j["replacements"] = *m.replacements;
  if (m.lines) {
    json lines = json::array();
    for (const ops::LineRange& l : *m.lines)
      lines.push_back({{"startLine", l.start_line}, {"endLine", l.end_line}});
    j["lines"] = std::move(lines);
  }
  if (m.matched_by) j["matchedBy"] = std::move(*m.matched_by);
  if (m.rebased) {
    json rebased = json::array();
    for (ops::RebasedAnchor& a : *m.rebased)
      rebased.push_back({{"anchor", std::move(a.anchor)}, {"line", a.line}});
    j["rebased"] = std::move(rebased);
  }
  if (m.undo_id) j["undoId"] = std::move(*m.undo_id);
  if (m.change_id) j["changeId"] = std::move(*m.change_id);
  if (m.symbol) j["symbol"] = encode_symbol(*m.symbol);
  put_diagnostics(j, m.diagnostics);
  put_format(j, m.format);
  return j;
}

json encode_patched(ops::Patched p) {
  json files = json::array();
  for (ops::PatchedFile& f : p.files) {
    json j{{"path", std::move(f.path)},
           {"action", std::string(patch::action_name(f.action))},
           {"added", f.added},
           {"removed", f.removed}};
    if (f.moved_to) j["movedTo"] = std::move(*f.moved_to);
    if (f.fingerprint) j["fingerprint"] = std::move(*f.fingerprint);
    if (f.overwritten) j["overwritten"] = true;
    if (f.unchanged) j["unchanged"] = true;
    if (f.executable) j["executable"] = *f.executable;
    if (f.mode_skipped) j["modeSkipped"] = true;
    put_diagnostics(j, f.diagnostics);
    put_format(j, f.format);
    files.push_back(std::move(j));
  }
  json j{{"files", std::move(files)}, {"diff", std::move(p.diff)}};
  if (p.undo_id) j["undoId"] = std::move(*p.undo_id);
  if (p.change_id) j["changeId"] = std::move(*p.change_id);
  return j;
}

}  // namespace editd::methods
