// fingerprint: a file's fingerprint and size, without its content.
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

Result<ops::FingerprintRequest> decode_fingerprint(const json& p) {
  ParamDecoder d(p);
  ops::FingerprintRequest r;
  d.path("path", r.path);
  decode_session(d);
  return d.finish(std::move(r));
}

json encode_fingerprint(ops::Fingerprint f) {
  return json{{"fingerprint", std::move(f.fingerprint)}, {"size", f.size}};
}

using texts::number_at;
using texts::string_at;

std::string render_fingerprint(const json& params, const json& result) {
  return string_at(params, "path") + ": fingerprint " + string_at(result, "fingerprint") + ", " +
         std::to_string(number_at(result, "size")) + " bytes";
}

}  // namespace

Method fingerprint() {
  using namespace schema;
  return {
      .name = "fingerprint",
      .title = "Fingerprint a file",
      .description =
          "The fingerprint and byte size of a file (text or not), without reading its content: "
          "to check whether a file changed since it was read. Errors: not_found, is_directory.",
      .input_schema = object({{"path", path_param()}}, {"path"}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"fingerprint", {{"type", "string"}}}, {"size", {{"type", "integer"}}}}},
                        {"required", {"fingerprint", "size"}}},
      .idempotent = true,
      .render = &render_fingerprint,
      .run = &run<&decode_fingerprint, &Operations::fingerprint, &encode_fingerprint>};
}

}  // namespace editd::methods
