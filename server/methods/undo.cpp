// undo: every file an earlier edit changed, put back.
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

Result<ops::UndoRequest> decode_undo(const json& p) {
  ParamDecoder d(p);
  ops::UndoRequest r;
  d.string("undoId", r.undo_id);
  d.optional_bool("dryRun", r.dry_run);
  decode_session(d);
  return d.finish(std::move(r));
}

}  // namespace

Method undo() {
  using namespace schema;
  return {
      .name = "undo",
      .title = "Undo an edit",
      .description =
          std::string(
              "Put back every file that an earlier edit changed (an apply_patch as a whole), "
              "given the undoId its result returned, if none of them changed since. The undo "
              "is an edit itself, with its own undoId: undoing it redoes. With the ledger on "
              "(the default) every change on record can be undone, across restarts; off, the "
              "history is in memory, bounded and lost when editd restarts. To take back part "
              "of a change, or one whose files changed since, use revert. Errors: not_found "
              "(an unknown or forgotten undoId), conflict (a file changed since: nothing is "
              "touched).") +
          kErrorsNote,
      .input_schema =
          object({{"undoId", str("The undoId of the edit to undo.")}, {"dryRun", dry_run_param()}},
                 {"undoId"}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"files", {{"type", "array"}, {"items", patch_file_output()}}},
                          {"diff", str("Every file's unified diff.")},
                          {"undoId", str("Pass it to undo to redo.")}}},
                        {"required", {"files", "diff"}}},
      .mutates = true,
      .destructive = true,
      .render = &render_apply_patch,
      .run = &run<&decode_undo, &Operations::undo, &encode_patched>};
}

}  // namespace editd::methods
