#include "server/doors/bindings.h"

#include <utility>

#include "protocol/params.h"

namespace editd {

namespace {

void copy_mutation(protocol::MutationParams& from, ops::MutationRequest& to) {
  to.path = std::move(from.path);
  to.expected_fingerprint = std::move(from.expected_fingerprint);
  to.dry_run = from.dry_run;
}

// The wire's kinds of a line edit (decode_edit_lines admits no other).
hashline::Kind line_edit_kind(const std::string& kind) {
  if (kind == "insertAfter") return hashline::Kind::kInsertAfter;
  if (kind == "insertBefore") return hashline::Kind::kInsertBefore;
  return hashline::Kind::kReplace;
}

std::vector<protocol::Diagnostic> wire_list(std::vector<diagnostics::Diagnostic> ds) {
  std::vector<protocol::Diagnostic> out;
  out.reserve(ds.size());
  for (diagnostics::Diagnostic& d : ds)
    out.push_back({std::move(d.file), d.line, d.column, std::move(d.severity),
                   std::move(d.message), std::move(d.source)});
  return out;
}

protocol::SymbolInfo wire_symbol(ops::SymbolLines s) {
  return {std::move(s.name_path), std::move(s.kind), s.start_line, s.end_line, s.depth};
}

std::optional<protocol::SymbolInfo> wire_symbol(std::optional<ops::SymbolLines> s) {
  if (!s) return std::nullopt;
  return wire_symbol(std::move(*s));
}

std::optional<protocol::DiagnosticsReport> wire_report(std::optional<diagnostics::Report> r) {
  if (!r) return std::nullopt;
  return editd::to_wire(std::move(*r));
}

}  // namespace

ops::ReadRequest to_ops(protocol::ReadTextParams p) {
  ops::ReadRequest r;
  r.path = std::move(p.path);
  r.first_line = p.line;
  r.line_limit = p.limit;
  r.format = p.format == "hashline" ? ops::ReadFormat::kHashline : ops::ReadFormat::kPlain;
  r.symbol = std::move(p.symbol);
  return r;
}

ops::WriteRequest to_ops(protocol::WriteTextParams p) {
  ops::WriteRequest r;
  copy_mutation(p, r);
  r.content = std::move(p.content);
  return r;
}

ops::CreateRequest to_ops(protocol::CreateParams p) {
  ops::CreateRequest r;
  copy_mutation(p, r);
  r.content = std::move(p.content);
  return r;
}

ops::InsertRequest to_ops(protocol::InsertParams p) {
  ops::InsertRequest r;
  copy_mutation(p, r);
  r.after_line = p.line;
  r.text = std::move(p.text);
  return r;
}

ops::FormatRequest to_ops(protocol::SetFormatParams p) {
  ops::FormatRequest r;
  copy_mutation(p, r);
  if (p.line_endings) r.line_endings = *p.line_endings == "crlf" ? text::Eol::kCrLf : text::Eol::kLf;
  r.bom = p.bom;
  r.final_newline = p.final_newline;
  return r;
}

ops::ReplaceRequest to_ops(protocol::StrReplaceParams p) {
  ops::ReplaceRequest r;
  copy_mutation(p, r);
  r.old_text = std::move(p.old_text);
  r.new_text = std::move(p.new_text);
  r.replace_all = p.replace_all;
  r.expected_replacements = p.expected_replacements;
  if (p.matching) r.matching = match::parse_mode(*p.matching);
  return r;
}

ops::LineEditsRequest to_ops(protocol::EditLinesParams p) {
  ops::LineEditsRequest r;
  copy_mutation(p, r);
  r.edits.reserve(p.edits.size());
  for (protocol::LineEditParams& e : p.edits)
    r.edits.push_back(
        {line_edit_kind(e.kind), std::move(e.start), std::move(e.end), std::move(e.new_text)});
  return r;
}

ops::FingerprintRequest to_ops(protocol::FingerprintParams p) {
  return ops::FingerprintRequest{std::move(p.path)};
}

ops::PatchRequest to_ops(protocol::ApplyPatchParams p) {
  ops::PatchRequest r;
  r.patch = std::move(p.patch);
  r.dry_run = p.dry_run;
  r.expected_fingerprints = std::move(p.expected_fingerprints);
  r.path_rule = protocol::path_problem;
  return r;
}

ops::UndoRequest to_ops(protocol::UndoParams p) {
  return ops::UndoRequest{std::move(p.undo_id), p.dry_run};
}

ops::SymbolsRequest to_ops(protocol::ReadSymbolsParams p) {
  return ops::SymbolsRequest{std::move(p.path), p.depth, p.offset.value_or(0), p.limit};
}

ops::SymbolEditRequest to_ops(protocol::EditSymbolParams p) {
  ops::SymbolEditRequest r;
  copy_mutation(p, r);
  r.symbol = std::move(p.symbol);
  // decode_edit_symbol admits these three only.
  r.placement = p.placement == "insertBefore"  ? symbols::Placement::kInsertBefore
                : p.placement == "insertAfter" ? symbols::Placement::kInsertAfter
                                               : symbols::Placement::kReplace;
  r.text = std::move(p.text);
  return r;
}

protocol::ReadTextResult to_wire(ops::Read r) {
  protocol::ReadTextResult out;
  out.content = std::move(r.content);
  if (r.format == ops::ReadFormat::kHashline) out.format = "hashline";
  out.fingerprint = std::move(r.fingerprint);
  out.total_lines = r.total_lines;
  out.line = r.first_line;
  out.line_count = r.line_count;
  out.symbol = wire_symbol(std::move(r.symbol));
  return out;
}

protocol::MutationResult to_wire(ops::Mutation r) {
  protocol::MutationResult out;
  out.fingerprint = std::move(r.fingerprint);
  out.diff = std::move(r.diff);
  out.added = r.added;
  out.removed = r.removed;
  out.created = r.created;
  out.replacements = r.replacements;
  if (r.lines) {
    std::vector<protocol::LineRange>& lines = out.lines.emplace();
    for (const ops::LineRange& l : *r.lines) lines.push_back({l.start_line, l.end_line});
  }
  out.matched_by = std::move(r.matched_by);
  if (r.rebased) {
    std::vector<protocol::RebasedAnchor>& rebased = out.rebased.emplace();
    for (ops::RebasedAnchor& a : *r.rebased) rebased.push_back({std::move(a.anchor), a.line});
  }
  out.undo_id = std::move(r.undo_id);
  out.diagnostics = wire_report(std::move(r.diagnostics));
  out.symbol = wire_symbol(std::move(r.symbol));
  return out;
}

protocol::FingerprintResult to_wire(ops::Fingerprint r) {
  return protocol::FingerprintResult{std::move(r.fingerprint), r.size};
}

protocol::ApplyPatchResult to_wire(ops::Patched r) {
  protocol::ApplyPatchResult out;
  out.files.reserve(r.files.size());
  for (ops::PatchedFile& f : r.files) {
    protocol::PatchFileResult& w = out.files.emplace_back();
    w.path = std::move(f.path);
    w.action = std::string(patch::action_name(f.action));
    w.moved_to = std::move(f.moved_to);
    w.added = f.added;
    w.removed = f.removed;
    w.fingerprint = std::move(f.fingerprint);
    w.overwritten = f.overwritten;
    w.executable = f.executable;
    w.mode_skipped = f.mode_skipped;
    w.unchanged = f.unchanged;
    w.diagnostics = wire_report(std::move(f.diagnostics));
  }
  out.diff = std::move(r.diff);
  out.undo_id = std::move(r.undo_id);
  return out;
}

protocol::DiagnosticsReport to_wire(diagnostics::Report r) {
  return protocol::DiagnosticsReport{wire_list(std::move(r.all)),
                                     wire_list(std::move(r.introduced)),
                                     std::string(diagnostics::status_name(r.status)),
                                     std::move(r.detail)};
}

protocol::ReadSymbolsResult to_wire(ops::Symbols r) {
  protocol::ReadSymbolsResult out;
  out.fingerprint = std::move(r.fingerprint);
  out.total_lines = r.total_lines;
  out.symbols.reserve(r.symbols.size());
  for (ops::SymbolLines& s : r.symbols) out.symbols.push_back(wire_symbol(std::move(s)));
  out.offset = r.offset;
  out.total_symbols = r.total_symbols;
  out.truncated = r.truncated;
  return out;
}

}  // namespace editd
