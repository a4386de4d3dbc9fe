// set_format: a file's line endings, BOM and final newline, set explicitly.
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

Result<ops::FormatRequest> decode_set_format(const json& p) {
  ParamDecoder d(p);
  ops::FormatRequest r;
  decode_mutation(d, r);
  std::optional<std::string> endings;
  d.optional_string("lineEndings", endings);
  d.optional_bool("bom", r.bom);
  d.optional_bool("finalNewline", r.final_newline);
  if (d.ok() && endings) {
    if (*endings == "lf")
      r.line_endings = text::Eol::kLf;
    else if (*endings == "crlf")
      r.line_endings = text::Eol::kCrLf;
    else
      d.fail(invalid_param("lineEndings", "must be \"lf\" or \"crlf\""));
  }
  if (d.ok() && !endings && !r.bom && !r.final_newline)
    d.fail(invalid_param("lineEndings",
                         "set_format needs at least one of lineEndings, bom and finalNewline"));
  return d.finish(std::move(r));
}

}  // namespace

Method set_format() {
  using namespace schema;
  return {
      .name = "set_format",
      .title = "Convert line endings, BOM or final newline",
      .description =
          std::string("Convert a file's line endings (CRLF to LF or LF to CRLF), add or remove its "
                      "UTF-8 BOM, or add or remove its final newline. The only way to change "
                      "these: every other edit keeps them as the file has them. Give at least one "
                      "of lineEndings, bom and finalNewline; the text itself never changes. "
                      "Returns the new fingerprint and a diff. Errors: no_change (the file "
                      "already has that format), conflict, not_text, not_found.") +
          kErrorsNote,
      .input_schema = object(
          {{"path", path_param()},
           {"lineEndings",
            {{"type", "string"},
             {"enum", {"lf", "crlf"}},
             {"description", "Every line break becomes LF (\\n) or CRLF (\\r\\n)."}}},
           {"bom",
            {{"type", "boolean"}, {"description", "true adds a UTF-8 BOM, false removes it."}}},
           {"finalNewline",
            {{"type", "boolean"},
             {"description", "true ends the last line with a line break, false removes it."}}},
           {"expectedFingerprint", expected_fingerprint_param()},
           {"dryRun", dry_run_param()}},
          {"path"}),
      .output_schema = mutation_output({}),
      .mutates = true,
      .idempotent = true,
      .render = &render_mutation,
      .run = &run<&decode_set_format, &Operations::set_format, &encode_mutation>};
}

}  // namespace editd::methods
