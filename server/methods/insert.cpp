// insert: whole lines after a line.
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

Result<ops::InsertRequest> decode_insert(const json& p) {
  ParamDecoder d(p);
  ops::InsertRequest r;
  decode_mutation(d, r);
  decode_format(d, r.format);
  d.integer("line", r.after_line, 0);
  d.string("text", r.text);
  return d.finish(std::move(r));
}

}  // namespace

Method insert() {
  using namespace schema;
  return {
      .name = "insert",
      .title = "Insert lines",
      .description =
          std::string("Insert text as whole lines after line `line` (1-based; 0 inserts at the "
                      "top). Nothing is removed. A final newline in text ends its last line. "
                      "Returns where the text now is (lines) and a diff. Errors: "
                      "line_out_of_range (the file has fewer lines; the error gives totalLines), "
                      "conflict, not_found.") +
          kErrorsNote,
      .input_schema = object(
          {{"path", path_param()},
           {"line", integer("Insert after this 1-based line; 0 inserts before the first line.", 0)},
           {"text", str("The lines to insert (not empty; \"\\n\" for one blank line).")},
           {"expectedFingerprint", expected_fingerprint_param()},
           {"dryRun", dry_run_param()},
           {"format", format_param()}},
          {"path", "line", "text"}),
      .output_schema =
          mutation_output({{"lines", {{"type", "array"}, {"items", line_range_schema()}}}}),
      .mutates = true,
      .render = &render_mutation,
      .run = &run<&decode_insert, &Operations::insert, &encode_mutation>};
}

}  // namespace editd::methods
