// write_text and create: a whole file's content.
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

// The new content, with a mutation's params.
template <class Request>
Result<Request> decode_content(const json& p) {
  ParamDecoder d(p);
  Request r;
  decode_mutation(d, r);
  decode_format(d, r.format);
  d.string("content", r.content);
  return d.finish(std::move(r));
}

}  // namespace

Method write_text() {
  using namespace schema;
  return {
      .name = "write_text",
      .title = "Write a whole file",
      .description =
          std::string("Create a file (and missing parent directories) or replace its whole "
                      "content. To change part of an existing file prefer str_replace, insert or "
                      "apply_patch: they send less and cannot drop lines by accident. An existing "
                      "file keeps its BOM and line endings. Returns the new fingerprint and a "
                      "diff. Errors: conflict (expectedFingerprint differs: read again), "
                      "not_text, too_large, is_directory, denied, outside_root.") +
          kErrorsNote,
      .input_schema = object({{"path", path_param()},
                              {"content", str("The whole new content of the file.")},
                              {"expectedFingerprint", expected_fingerprint_param()},
                              {"dryRun", dry_run_param()},
           {"format", format_param()}},
                             {"path", "content"}),
      .output_schema = mutation_output({{"created", {{"type", "boolean"}}}}),
      .mutates = true,
      .idempotent = true,
      .destructive = true,
      .render = &render_mutation,
      .run = &run<&decode_content<ops::WriteRequest>, &Operations::write_text, &encode_mutation>};
}

Method create() {
  using namespace schema;
  return {.name = "create",
          .title = "Create a new file",
          .description = std::string("Create a new file (and missing parent directories) with the "
                                     "given content. Fails with exists if the path already exists: "
                                     "use write_text or str_replace to change an existing file.") +
                         kErrorsNote,
          .input_schema = object({{"path", path_param()},
                                  {"content", str("The content of the new file.")},
                                  {"dryRun", dry_run_param()},
           {"format", format_param()}},
                                 {"path", "content"}),
          .output_schema = mutation_output({{"created", {{"type", "boolean"}}}}),
          .mutates = true,
          .idempotent = true,
          .render = &render_mutation,
          .run = &run<&decode_content<ops::CreateRequest>, &Operations::create, &encode_mutation>};
}

}  // namespace editd::methods
