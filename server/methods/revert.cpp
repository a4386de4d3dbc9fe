// revert: changes and hunks on record taken back from the files as they are
// now (server/ops/revert.cpp).
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

Result<ops::RevertRequest> decode_revert(const json& p) {
  ParamDecoder d(p);
  ops::RevertRequest r;
  d.optional_string_list("changes", r.changes, 256);
  d.optional_string_list("hunks", r.hunks, 4096);
  d.optional_string_list("paths", r.paths, 4096);
  for (const std::string& path : r.paths)
    if (auto problem = protocol::path_problem(path)) d.fail(invalid_param("paths", *problem));
  d.optional_bool("dryRun", r.dry_run);
  decode_session(d);
  return d.finish(std::move(r));
}

}  // namespace

Method revert() {
  using namespace schema;
  return {
      .name = "revert",
      .title = "Take back changes or hunks",
      .description =
          std::string(
              "Take back changes on record (ids from `changes`, or any result's changeId: "
              "\"c12\") or single hunks (\"c12:3\"), of the files in paths alone when given, "
              "from the files as they are now: a hunk is taken back when its lines are still "
              "as its change left them, even if other lines changed since; lines written later "
              "by anyone are never touched. Several files land together or not at all. The "
              "revert is a change of its own (changeId), which can be reverted. Errors: "
              "conflict (a hunk's lines changed since: the error names the hunk, the line and "
              "the lines there now; nothing was written), not_found (an unknown or "
              "forgotten id), unsupported (--ledger off, or a change too large to keep).") +
          kErrorsNote,
      .input_schema = object(
          {{"changes", {{"type", "array"},
                        {"items", {{"type", "string"}}},
                        {"description", "Changes to take back whole: \"c12\"."}}},
           {"hunks", {{"type", "array"},
                      {"items", {{"type", "string"}}},
                      {"description", "Single hunks to take back: \"c12:3\"."}}},
           {"paths", {{"type", "array"},
                      {"items", {{"type", "string"}}},
                      {"description", "Only these files of the changes named."}}},
           {"dryRun", dry_run_param()}},
          {}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"files", {{"type", "array"}, {"items", patch_file_output()}}},
                          {"diff", str("Every file's unified diff.")},
                          {"changeId", str("The revert's own change id.")},
                          {"undoId", str("Pass it to undo to redo.")}}},
                        {"required", {"files", "diff"}}},
      .mutates = true,
      .destructive = true,
      .render = &render_apply_patch,
      .run = &run<&decode_revert, &Operations::revert, &encode_patched>};
}

}  // namespace editd::methods
