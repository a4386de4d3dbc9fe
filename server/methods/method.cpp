#include "server/methods/method.h"

namespace editd {

using nlohmann::json;

bool Method::dry_run(const json& params) const {
  if (!mutates || provider_native || !params.is_object()) return false;
  auto it = params.find("dryRun");
  return it != params.end() && it->is_boolean() && it->get<bool>();
}

bool Method::writes_nothing(const json& params) const {
  return !mutates || dry_run(params) || (reads_only && reads_only(params));
}

}  // namespace editd
