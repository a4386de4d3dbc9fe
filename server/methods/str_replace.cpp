// str_replace: one region of a file, found by its text, replaced.
#include <string>
#include <utility>

#include "edit/match/sequence.h"
#include "protocol/params.h"
#include "server/methods/methods.h"
#include "server/methods/schemas.h"
#include "server/methods/shared.h"
#include "server/methods/texts.h"

namespace editd::methods {

using nlohmann::json;
using protocol::ParamDecoder;

namespace {

// One element of edits[]: the first problem names the edit, "edits[2]: ...".
std::optional<Error> decode_replace_edit(const json& e, std::size_t index, ops::ReplaceEdit& out) {
  const std::string at = "edits[" + std::to_string(index) + "]: ";
  auto fail = [&](const std::string& problem) {
    Error err = invalid_param("edits", at + problem);
    err.data["edit"] = index;
    return err;
  };
  if (!e.is_object()) return fail("must be an object {oldText, newText, replaceAll?, "
                                  "expectedReplacements?}");
  auto old_text = e.find("oldText");
  if (old_text == e.end() || old_text->is_null()) return fail("oldText is missing");
  if (!old_text->is_string()) return fail("oldText must be a string");
  out.old_text = old_text->get<std::string>();
  if (out.old_text.empty()) return fail("oldText must not be empty");
  auto new_text = e.find("newText");
  if (new_text == e.end() || new_text->is_null()) return fail("newText is missing");
  if (!new_text->is_string()) return fail("newText must be a string");
  out.new_text = new_text->get<std::string>();
  if (auto all = e.find("replaceAll"); all != e.end() && !all->is_null()) {
    if (!all->is_boolean()) return fail("replaceAll must be a boolean");
    out.replace_all = all->get<bool>();
  }
  if (auto n = e.find("expectedReplacements"); n != e.end() && !n->is_null()) {
    std::optional<std::string> problem;
    auto v = protocol::integer_value(*n, "expectedReplacements", problem);
    if (!v || *v < 1) return fail("expectedReplacements must be an integer of at least 1");
    out.expected_replacements = static_cast<std::uint64_t>(*v);
  }
  return std::nullopt;
}

// edits[]: a non-empty array of at most match::kMaxEdits edits, of at most
// match::kMaxEditsBytes of text in all, instead of the single form's params.
void decode_edits(ParamDecoder& d, const json& p, const json& edits, ops::ReplaceRequest& r) {
  for (const char* single : {"oldText", "newText", "replaceAll", "expectedReplacements"})
    if (auto it = p.find(single); it != p.end() && !it->is_null()) {
      d.fail(invalid_param("edits", std::string("give either edits or ") + single +
                                        " (the single form: oldText, newText, replaceAll, "
                                        "expectedReplacements), not both; inside edits each "
                                        "edit has its own"));
      return;
    }
  if (!edits.is_array()) {
    d.fail(invalid_param("edits", "must be an array of {oldText, newText, replaceAll?, "
                                  "expectedReplacements?}"));
    return;
  }
  if (edits.empty()) {
    d.fail(invalid_param("edits", "must not be empty (give at least one edit, or use the "
                                  "single form: oldText and newText)"));
    return;
  }
  if (edits.size() > match::kMaxEdits) {
    Error e = invalid_param("edits", "at most " + std::to_string(match::kMaxEdits) +
                                         " edits in one call; got " +
                                         std::to_string(edits.size()) + ": split them over calls");
    e.data["limit"] = match::kMaxEdits;
    d.fail(std::move(e));
    return;
  }
  std::size_t bytes = 0;
  r.edits.reserve(edits.size());
  for (std::size_t i = 0; i < edits.size(); ++i) {
    ops::ReplaceEdit e;
    if (auto err = decode_replace_edit(edits[i], i, e)) {
      d.fail(std::move(*err));
      return;
    }
    bytes += e.old_text.size() + e.new_text.size();
    if (bytes > match::kMaxEditsBytes) {
      Error err = invalid_param(
          "edits", "at most " + std::to_string(match::kMaxEditsBytes) +
                       " bytes of oldText and newText in all, in one call: split the edits over "
                       "calls, or use write_text");
      err.data["limit"] = match::kMaxEditsBytes;
      d.fail(std::move(err));
      return;
    }
    r.edits.push_back(std::move(e));
  }
}

Result<ops::ReplaceRequest> decode_str_replace(const json& p) {
  ParamDecoder d(p);
  ops::ReplaceRequest r;
  decode_mutation(d, r);
  decode_format(d, r.format);
  const auto edits = p.is_object() ? p.find("edits") : p.end();
  const bool several = d.ok() && edits != p.end() && !edits->is_null();
  if (several) {
    decode_edits(d, p, *edits, r);
  } else {
    d.string("oldText", r.old_text);
    d.string("newText", r.new_text);
    d.optional_bool("replaceAll", r.replace_all);
    d.optional_integer("expectedReplacements", r.expected_replacements, 1);
  }
  std::optional<std::string> matching;
  d.optional_string("matching", matching);
  if (!several && d.ok() && r.old_text.empty())
    d.fail(invalid_param("oldText", "must not be empty"));
  if (d.ok() && matching) {
    if (*matching == "exact" || *matching == "standard" || *matching == "fuzzy")
      r.matching = match::parse_mode(*matching);
    else
      d.fail(invalid_param("matching", "must be \"exact\", \"standard\" or \"fuzzy\""));
  }
  return d.finish(std::move(r));
}

// The result with each edit's outcome, for edits[].
json encode_str_replace(ops::Mutation m) {
  std::optional<std::vector<ops::EditOutcome>> edits = std::move(m.edits);
  json j = encode_mutation(std::move(m));
  if (!edits) return j;
  json list = json::array();
  for (ops::EditOutcome& e : *edits) {
    json lines = json::array();
    for (const ops::LineRange& l : e.lines)
      lines.push_back({{"startLine", l.start_line}, {"endLine", l.end_line}});
    list.push_back({{"replacements", e.replacements},
                    {"lines", std::move(lines)},
                    {"matchedBy", std::move(e.matched_by)}});
  }
  j["edits"] = std::move(list);
  return j;
}

}  // namespace

Method str_replace() {
  using namespace schema;
  return {
      .name = "str_replace",
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
              "conflict. Several edits of the file: edits instead of oldText and newText, "
              "applied in order, each to the text the ones before it left, all or none (one "
              "diff, one undoId); an error names the failing edit (edits[2]: ...).") +
          kErrorsNote,
      .input_schema = object(
          {{"path", path_param()},
           {"oldText",
            str("The text to replace, copied exactly from the file (not empty). Required unless "
                "edits is given.")},
           {"newText",
            str("The replacement text (may be empty to delete). Required unless edits is "
                "given.")},
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
           {"edits",
            {{"type", "array"},
             {"minItems", 1},
             {"maxItems", match::kMaxEdits},
             {"description",
              "Optional, instead of oldText, newText, replaceAll and expectedReplacements: "
              "several edits of the file, applied in order, each to the text the ones before it "
              "left; all are written or none (at most 1000 edits)."},
             {"items",
              object({{"oldText", str("The text to replace (not empty).")},
                      {"newText", str("The replacement text (may be empty to delete).")},
                      {"replaceAll", boolean("Optional: replace every occurrence.")},
                      {"expectedReplacements",
                       integer("Optional: fail with ambiguous unless exactly this many places "
                               "match.",
                               1)}},
                     {"oldText", "newText"})}}},
           {"expectedFingerprint", expected_fingerprint_param()},
           {"dryRun", dry_run_param()},
           {"format", format_param()}},
          {"path"}),
      .output_schema = mutation_output(
          {{"replacements", {{"type", "integer"}}},
           {"lines", {{"type", "array"}, {"items", line_range_schema()}}},
           {"matchedBy", {{"type", "string"}}},
           {"edits",
            {{"type", "array"},
             {"items",
              {{"type", "object"},
               {"properties",
                {{"replacements", {{"type", "integer"}}},
                 {"lines", {{"type", "array"}, {"items", line_range_schema()}}},
                 {"matchedBy", {{"type", "string"}}}}}}}}}}),
      .mutates = true,
      .destructive = true,
      .render = &render_mutation,
      .run = &run<&decode_str_replace, &Operations::str_replace, &encode_str_replace>};
}

}  // namespace editd::methods
