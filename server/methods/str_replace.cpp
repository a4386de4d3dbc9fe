// str_replace: one region of a file, found by its text, replaced.
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

Result<ops::ReplaceRequest> decode_str_replace(const json& p) {
  ParamDecoder d(p);
  ops::ReplaceRequest r;
  decode_mutation(d, r);
  decode_format(d, r.format);
  d.string("oldText", r.old_text);
  d.string("newText", r.new_text);
  d.optional_bool("replaceAll", r.replace_all);
  d.optional_integer("expectedReplacements", r.expected_replacements, 1);
  std::optional<std::string> matching;
  d.optional_string("matching", matching);
  if (d.ok() && r.old_text.empty()) d.fail(invalid_param("oldText", "must not be empty"));
  if (d.ok() && matching) {
    if (*matching == "exact" || *matching == "standard" || *matching == "fuzzy")
      r.matching = match::parse_mode(*matching);
    else
      d.fail(invalid_param("matching", "must be \"exact\", \"standard\" or \"fuzzy\""));
  }
  return d.finish(std::move(r));
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
              "conflict.") +
          kErrorsNote,
      .input_schema = object(
          {{"path", path_param()},
           {"oldText", str("The text to replace, copied exactly from the file (not empty).")},
           {"newText", str("The replacement text (may be empty to delete).")},
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
           {"expectedFingerprint", expected_fingerprint_param()},
           {"dryRun", dry_run_param()},
           {"format", format_param()}},
          {"path", "oldText", "newText"}),
      .output_schema =
          mutation_output({{"replacements", {{"type", "integer"}}},
                           {"lines", {{"type", "array"}, {"items", line_range_schema()}}},
                           {"matchedBy", {{"type", "string"}}}}),
      .mutates = true,
      .destructive = true,
      .render = &render_mutation,
      .run = &run<&decode_str_replace, &Operations::str_replace, &encode_mutation>};
}

}  // namespace editd::methods
