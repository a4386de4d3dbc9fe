// apply_patch: a patch of several files, applied whole or not at all.
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

Result<ops::PatchRequest> decode_apply_patch(const json& p) {
  ParamDecoder d(p);
  ops::PatchRequest r;
  d.string("patch", r.patch);
  d.optional_bool("dryRun", r.dry_run);
  decode_format(d, r.format);
  d.optional_string_map("expectedFingerprints", r.expected_fingerprints);
  for (const auto& [path, fingerprint] : r.expected_fingerprints) {
    if (auto problem = protocol::path_problem(path)) {
      d.fail(invalid_param("expectedFingerprints", "a key (a path) " + *problem));
      break;
    }
  }
  decode_session(d);
  // The paths inside the patch are held to the rule a path param is held to.
  r.path_rule = protocol::path_problem;
  return d.finish(std::move(r));
}

}  // namespace

Method apply_patch() {
  using namespace schema;
  return {
      .name = "apply_patch",
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
      .input_schema =
          object({{"patch", str("The patch text.")},
                  {"expectedFingerprints", string_map("Optional: path -> the fingerprint read_text "
                                                      "returned, for files the patch touches.")},
                  {"dryRun", dry_run_param()},
                  {"format", format_param()}},
                 {"patch"}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"files", {{"type", "array"}, {"items", patch_file_output()}}},
                          {"diff", str("Every file's unified diff.")},
                          {"undoId",
                           str("Pass it to undo to put every file back (absent for a dry run).")}}},
                        {"required", {"files", "diff"}}},
      .mutates = true,
      .destructive = true,
      .render = &render_apply_patch,
      .run = &run<&decode_apply_patch, &Operations::apply_patch, &encode_patched>};
}

}  // namespace editd::methods
