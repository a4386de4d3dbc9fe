#include "server/methods/texts.h"

#include <cstdio>

namespace editd {

using nlohmann::json;

namespace texts {

std::string string_at(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A count or line number, whether the JSON holds it signed or unsigned; 0 if absent.
std::uint64_t number_at(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  if (it->is_number_unsigned()) return it->get<std::uint64_t>();
  const auto v = it->get<std::int64_t>();
  return v < 0 ? 0 : static_cast<std::uint64_t>(v);
}

std::string lines_text(std::uint64_t start, std::uint64_t end) {
  return start == end ? "line " + std::to_string(start)
                      : "lines " + std::to_string(start) + "-" + std::to_string(end);
}

}  // namespace texts

namespace {

using texts::lines_text;
using texts::number_at;
using texts::string_at;

// " at lines 2-3, 7" from [{startLine, endLine}].
std::string where(const json& result) {
  auto lines = result.find("lines");
  if (lines == result.end() || !lines->is_array() || lines->empty()) return {};
  std::string out;
  for (const json& l : *lines) {
    out += out.empty() ? " at " : ", ";
    out += lines_text(number_at(l, "startLine"), number_at(l, "endLine"));
  }
  return out;
}

// edit_lines: "replacement at line 13, insertion at lines 20-21" from the call's edits and the
// lines each one's newText occupies now (a deletion: where the cut is).
std::string edits_text(const json& params, const json& result) {
  auto edits = params.find("edits");
  auto lines = result.find("lines");
  if (edits == params.end() || !edits->is_array() || lines == result.end() || !lines->is_array() ||
      edits->size() != lines->size())
    return {};
  std::string out;
  for (std::size_t i = 0; i < edits->size(); ++i) {
    const json& e = (*edits)[i];
    const char* kind = "insertion";
    if (e.is_object() && e.contains("replace"))
      kind = string_at(e, "newText").empty() ? "deletion" : "replacement";
    out += (out.empty() ? "" : ", ") + std::string(kind) + " at " +
           lines_text(number_at((*lines)[i], "startLine"), number_at((*lines)[i], "endLine"));
  }
  return out;
}

// str_replace's edits[]: "3 edits, 4 replacements (edits[0]: 1 at line 12;
// edits[1]: 2 at lines 30, 45, matched by trailing_whitespace; ...)", the
// lines those of the file as written.
std::string replace_edits_text(const json& result) {
  auto edits = result.find("edits");
  if (edits == result.end() || !edits->is_array() || edits->empty()) return {};
  constexpr std::size_t kListed = 50;
  const std::uint64_t total = number_at(result, "replacements");
  std::string out = std::to_string(edits->size()) + (edits->size() == 1 ? " edit, " : " edits, ") +
                    std::to_string(total) + (total == 1 ? " replacement (" : " replacements (");
  for (std::size_t i = 0; i < edits->size() && i < kListed; ++i) {
    const json& e = (*edits)[i];
    if (!e.is_object()) continue;
    out += (i == 0 ? "edits[" : "; edits[") + std::to_string(i) +
           "]: " + std::to_string(number_at(e, "replacements")) + where(e);
    if (auto tier = string_at(e, "matchedBy"); !tier.empty() && tier != "exact")
      out += ", matched by " + tier;
  }
  if (edits->size() > kListed)
    out += "; and " + std::to_string(edits->size() - kListed) + " more edits";
  return out + ")";
}

std::string counts(const json& result) {
  return "+" + std::to_string(number_at(result, "added")) + " -" +
         std::to_string(number_at(result, "removed")) + " lines";
}

std::string dry_run_note(const json& params) {
  auto it = params.find("dryRun");
  return it != params.end() && it->is_boolean() && it->get<bool>()
             ? " (dry run: nothing was written)"
             : std::string();
}

// The region `r` ({startLine, endLine, text}) as a titled block.
std::string region(const std::string& title, const json& r) {
  if (auto name = string_at(r, "namePath"); !name.empty())  // a symbol (edit_symbol, read_text)
    return title + " " + name + " (" + string_at(r, "kind") + "), " +
           lines_text(number_at(r, "startLine"), number_at(r, "endLine")) + "\n";
  std::string out = title + ", " + lines_text(number_at(r, "startLine"), number_at(r, "endLine"));
  if (auto s = r.find("similarity"); s != r.end() && s->is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " (similarity %.2f)", s->get<double>());
    out += buf;
  }
  out += ":\n" + string_at(r, "text");
  if (out.back() != '\n') out += '\n';
  return out;
}

// How to take the change back, when the history kept it.
std::string undo_note(const json& result) {
  auto id = string_at(result, "undoId");
  return id.empty() ? std::string() : ", undoId " + id;
}

}  // namespace

// The checks' report (--check, --lsp) of one written file, after its diff:
// the status, what the edit introduced, then the count of the others.
std::string render_diagnostics(const std::string& path, const json& result) {
  auto all = result.find("diagnostics");
  if (all == result.end() || !all->is_array()) return {};
  const json introduced = result.value("introduced", json::array());
  std::string out = "Diagnostics of " + path + " after the edit (" +
                    string_at(result, "diagnosticsStatus") + "): " + std::to_string(all->size()) +
                    " in all, " + std::to_string(introduced.size()) + " introduced by this edit";
  if (auto detail = string_at(result, "diagnosticsDetail"); !detail.empty()) out += "; " + detail;
  out += "\n";
  for (const json& d : introduced) {
    out += "  ";
    if (auto file = string_at(d, "file"); !file.empty()) out += file + ":";
    if (d.contains("line")) {
      out += "line " + std::to_string(number_at(d, "line"));
      if (d.contains("column")) out += ":" + std::to_string(number_at(d, "column"));
      out += ": ";
    }
    out += string_at(d, "severity") + ": " + string_at(d, "message") + " [" +
           string_at(d, "source") + "]\n";
  }
  return out;
}

std::string render_format(const std::string& path, const json& result) {
  const std::string status = string_at(result, "formatStatus");
  if (status.empty()) return {};
  if (status != "ok")
    return "Not formatted (" + status + "): " + string_at(result, "formatDetail") +
           "; the text was written as sent\n";
  auto f = result.find("formatted");
  if (f == result.end() || !f->is_object()) return {};
  std::string where;
  for (const json& l : f->value("lines", json::array())) {
    where += where.empty() ? " " : ", ";
    const std::uint64_t a = number_at(l, "startLine"), b = number_at(l, "endLine");
    where += a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b);
  }
  std::string out = "The formatter changed lines" + where + " of " + path +
                    " in the same write (the file as written, in the hashline view):\n" +
                    string_at(*f, "hashline");
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + string_at(*f, "diff");
}

std::string render_mutation(const json& params, const json& result) {
  std::string out = string_at(params, "path") + ": ";
  auto created = result.find("created");
  if (created != result.end() && created->is_boolean() && created->get<bool>()) out += "created, ";
  if (auto e = replace_edits_text(result); !e.empty()) {
    out += e + ", ";
  } else if (result.contains("replacements")) {
    const std::uint64_t count = number_at(result, "replacements");
    out += std::to_string(count) + (count == 1 ? " replacement" : " replacements");
    out += where(result);
    if (auto tier = string_at(result, "matchedBy"); !tier.empty())
      out += " (matched by " + tier + ")";
    out += ", ";
  } else if (auto e = edits_text(params, result); !e.empty()) {
    out += e + ", ";
  } else if (auto w = where(result); !w.empty()) {
    out += "inserted" + w + ", ";
  }
  out += counts(result) + ", fingerprint " + string_at(result, "fingerprint") + undo_note(result) +
         dry_run_note(params);
  out += "\n" + string_at(result, "diff");
  if (auto f = render_format(string_at(params, "path"), result); !f.empty())
    out += (out.back() == '\n' ? "" : "\n") + f;
  if (auto d = render_diagnostics(string_at(params, "path"), result); !d.empty())
    out += (out.back() == '\n' ? "" : "\n") + d;
  return out;
}

std::string render_apply_patch(const json& params, const json& result) {
  std::string out = params.contains("undoId") ? "undo: " : "apply_patch: ";
  const json files = result.value("files", json::array());
  out += std::to_string(files.size()) + (files.size() == 1 ? " file" : " files");
  bool first = true;
  for (const json& f : files) {
    out += first ? ": " : "; ";
    first = false;
    out += string_at(f, "action") + " " + string_at(f, "path");
    if (auto to = string_at(f, "movedTo"); !to.empty()) out += " -> " + to;
    out += " (" + counts(f);
    if (auto fp = string_at(f, "fingerprint"); !fp.empty()) out += ", fingerprint " + fp;
    if (f.value("overwritten", false)) out += ", overwrote an existing file";
    out += ")";
  }
  out += undo_note(result) + dry_run_note(params);
  out += "\n" + string_at(result, "diff");
  for (const json& f : files) {
    std::string path = string_at(f, "movedTo");
    if (path.empty()) path = string_at(f, "path");
    if (auto r = render_format(path, f); !r.empty())
      out += (out.back() == '\n' ? "" : "\n") + r;
    if (auto d = render_diagnostics(path, f); !d.empty())
      out += (out.back() == '\n' ? "" : "\n") + d;
  }
  return out;
}

std::string render_error(const Error& unnamed) {
  Error error = unnamed;  // editd's names for what the door did not name
  name_inputs(error);
  std::string out = "Error (" + std::string(kind_name(error.kind)) + "): " + error.message + "\n";
  json rest = json::object();
  if (error.data.is_object()) {
    for (auto it = error.data.begin(); it != error.data.end(); ++it) {
      const json& v = it.value();
      if (it.key() == "kind") continue;
      if (it.key() == "closest" && v.is_object()) {
        out += region("Closest region", v);
      } else if (it.key() == "escapes" && v.is_object()) {
        out += region("Region it matches with its escapes read as characters (data.escapes)", v);
      } else if (it.key() == "candidates" && v.is_array()) {
        for (const json& c : v) out += region("Candidate", c);
      } else if (it.key() == "region" && v.is_string()) {
        out += "Region, the lines as they are now:\n" + v.get<std::string>();
        if (out.back() != '\n') out += '\n';
      } else if (it.key() == "context" && v.is_string()) {
        out += "The hunk's lines that were not found:\n" + v.get<std::string>() + "\n";
      } else if (it.key() == "hint" && v.is_string()) {
        out += "Hint: " + v.get<std::string>() + "\n";
      } else {
        rest[it.key()] = v;
      }
    }
  }
  if (!rest.empty())
    out += "Details: " + rest.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  return out;
}

}  // namespace editd
