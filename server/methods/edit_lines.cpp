// edit_lines: whole lines named by hashline anchors, replaced or inserted.
#include <string>
#include <utility>

#include "protocol/params.h"
#include "server/methods/methods.h"
#include "server/methods/schemas.h"
#include "server/methods/shared.h"
#include "server/methods/texts.h"

namespace editd::methods {

using nlohmann::json;
using protocol::ParamDecoder;

namespace {

// One element of `edits`; the first problem names the edit.
std::optional<Error> decode_line_edit(const json& e, std::size_t index, ops::LineEdit& out) {
  const std::string at = "edit " + std::to_string(index) + ": ";
  auto fail = [&](const std::string& problem) {
    Error err = invalid_param("edits", at + problem);
    err.data["edit"] = index;
    return err;
  };
  if (!e.is_object()) return fail("must be an object");
  static constexpr std::pair<const char*, hashline::Kind> kKinds[] = {
      {"replace", hashline::Kind::kReplace},
      {"insertAfter", hashline::Kind::kInsertAfter},
      {"insertBefore", hashline::Kind::kInsertBefore}};
  const char* kind = nullptr;
  int kinds = 0;
  for (const auto& [name, k] : kKinds)
    if (e.contains(name) && !e[name].is_null()) {
      kind = name;
      out.kind = k;
      ++kinds;
    }
  if (kinds != 1) return fail("must have exactly one of replace, insertAfter and insertBefore");
  const json& v = e[kind];
  if (out.kind == hashline::Kind::kReplace) {
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
    if (!v.is_string())
      return fail(std::string(kind) + " must be an anchor string such as \"12~ab\"");
    out.start = v.get<std::string>();
  }
  auto text = e.find("newText");
  if (text == e.end() || !text->is_string())
    return fail("newText is missing (a string is required)");
  out.new_text = text->get<std::string>();
  return std::nullopt;
}

Result<ops::LineEditsRequest> decode_edit_lines(const json& p) {
  ParamDecoder d(p);
  ops::LineEditsRequest r;
  decode_mutation(d, r);
  decode_format(d, r.format);
  if (!d.ok()) return d.finish(std::move(r));
  auto edits = p.find("edits");
  if (edits == p.end() || edits->is_null())
    d.fail(invalid_param("edits", "missing (an array of edits is required)"));
  else if (!edits->is_array() || edits->empty())
    d.fail(invalid_param("edits", "must be a non-empty array"));
  else
    for (std::size_t i = 0; i < edits->size() && d.ok(); ++i) {
      ops::LineEdit e;
      if (auto err = decode_line_edit((*edits)[i], i, e))
        d.fail(std::move(*err));
      else
        r.edits.push_back(std::move(e));
    }
  return d.finish(std::move(r));
}

}  // namespace

Method edit_lines() {
  using namespace schema;
  return {.name = "edit_lines",
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
                 {"description",
                  "The edits, each with newText and one of replace, insertAfter, "
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
               {"dryRun", dry_run_param()},
           {"format", format_param()}},
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
          .render = &render_mutation,
          .run = &run<&decode_edit_lines, &Operations::edit_lines, &encode_mutation>};
}

}  // namespace editd::methods
