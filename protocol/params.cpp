#include "protocol/params.h"

#include <cmath>
#include <limits>

namespace editd::protocol {

using json = nlohmann::json;

const nlohmann::json* ParamDecoder::find(const char* name) const {
  if (error_ || !params_.is_object()) return nullptr;
  auto it = params_.find(name);
  if (it == params_.end() || it->is_null()) return nullptr;
  return &*it;
}

void ParamDecoder::string(const char* name, std::string& out) {
  if (error_) return;
  const nlohmann::json* v = find(name);
  if (!v) return fail(invalid_param(name, "missing (a string is required)"));
  if (!v->is_string()) return fail(invalid_param(name, "must be a string"));
  out = v->get<std::string>();
}

void ParamDecoder::optional_string(const char* name, std::optional<std::string>& out) {
  const nlohmann::json* v = find(name);
  if (!v) return;
  if (!v->is_string()) return fail(invalid_param(name, "must be a string"));
  out = v->get<std::string>();
}

void ParamDecoder::optional_string_list(const char* name, std::vector<std::string>& out,
                                        std::size_t max) {
  const nlohmann::json* v = find(name);
  if (!v) return;
  if (!v->is_array()) return fail(invalid_param(name, "must be an array of strings"));
  if (v->size() > max)
    return fail(invalid_param(name, "must hold at most " + std::to_string(max) + " strings"));
  for (const nlohmann::json& s : *v) {
    if (!s.is_string()) return fail(invalid_param(name, "must be an array of strings"));
    if (s.get_ref<const std::string&>().size() > kMaxPathBytes)
      return fail(invalid_param(name, "holds a string longer than 4096 bytes"));
    out.push_back(s.get<std::string>());
  }
}

std::optional<std::string> path_problem(std::string_view path) {
  if (path.empty()) return "must not be empty";
  if (path.find('\0') != std::string_view::npos) return "must not contain a NUL byte";
  if (path.size() > kMaxPathBytes)
    return "must be at most " + std::to_string(kMaxPathBytes) + " bytes, not " +
           std::to_string(path.size());
  return std::nullopt;
}

static void check_path(ParamDecoder& d, const char* name, const std::string& p) {
  if (auto problem = path_problem(p)) d.fail(invalid_param(name, *problem));
}

void ParamDecoder::path(const char* name, std::string& out) {
  string(name, out);
  if (!error_) check_path(*this, name, out);
}

void ParamDecoder::optional_path(const char* name, std::optional<std::string>& out) {
  optional_string(name, out);
  if (!error_ && out) check_path(*this, name, *out);
}

void ParamDecoder::optional_bool(const char* name, bool& out) {
  const nlohmann::json* v = find(name);
  if (!v) return;
  if (!v->is_boolean()) return fail(invalid_param(name, "must be true or false"));
  out = v->get<bool>();
}

void ParamDecoder::optional_bool(const char* name, std::optional<bool>& out) {
  bool value = false;
  if (!find(name)) return;
  optional_bool(name, value);
  if (ok()) out = value;
}

void ParamDecoder::optional_integer(const char* name, std::optional<std::uint64_t>& out,
                                    std::uint64_t min) {
  const nlohmann::json* v = find(name);
  if (!v) return;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const std::string too_small = "must be at least " + std::to_string(min);
  const std::string too_large = "must be at most " + std::to_string(kMax);
  std::uint64_t value = 0;
  if (v->is_number_unsigned()) {
    value = v->get<std::uint64_t>();
  } else if (v->is_number_integer()) {
    const std::int64_t i = v->get<std::int64_t>();
    if (i < 0) return fail(invalid_param(name, too_small));
    value = static_cast<std::uint64_t>(i);
  } else if (v->is_number_float()) {
    // Range first: converting a double outside the target's range is undefined.
    const double d = v->get<double>();
    if (!std::isfinite(d) || std::trunc(d) != d)
      return fail(invalid_param(name, "must be an integer"));
    if (d < 0) return fail(invalid_param(name, too_small));
    if (d > static_cast<double>(kMax)) return fail(invalid_param(name, too_large));
    value = static_cast<std::uint64_t>(d);
  } else {
    return fail(invalid_param(name, "must be an integer"));
  }
  if (value > kMax) return fail(invalid_param(name, too_large));
  if (value < min) return fail(invalid_param(name, too_small));
  out = value;
}

void ParamDecoder::integer(const char* name, std::uint64_t& out, std::uint64_t min) {
  if (error_) return;
  if (!find(name)) return fail(invalid_param(name, "missing (an integer is required)"));
  std::optional<std::uint64_t> v;
  optional_integer(name, v, min);
  if (v) out = *v;
}

void ParamDecoder::optional_string_map(const char* name, std::map<std::string, std::string>& out) {
  const nlohmann::json* v = find(name);
  if (!v) return;
  if (!v->is_object()) return fail(invalid_param(name, "must be an object of strings"));
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_string())
      return fail(invalid_param(name, "value for '" + it.key() + "' must be a string"));
    out[it.key()] = it.value().get<std::string>();
  }
}

Result<InitializeParams> decode_initialize(const json& p) {
  ParamDecoder d(p);
  InitializeParams r;
  d.integer("protocolVersion", r.protocol_version, 0);
  if (d.ok() && p.contains("clientCapabilities") && !p["clientCapabilities"].is_null()) {
    if (!p["clientCapabilities"].is_object())
      d.fail(invalid_param("clientCapabilities", "must be an object"));
    else
      r.client_capabilities = p["clientCapabilities"];
  }
  if (p.contains("clientInfo")) r.client_info = p["clientInfo"];
  d.optional_string("authToken", r.auth_token);
  return d.finish(std::move(r));
}

std::optional<std::string> lenient_string(const json& p, const char* key,
                                          std::optional<std::string>& problem) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (!problem) problem = std::string("Parameter `") + key + "` must be a string";
  return std::nullopt;
}

std::optional<std::int64_t> integer_value(const json& v, const std::string& name,
                                          std::optional<std::string>& problem) {
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    if (!problem) problem = "Parameter `" + name + "` must be at most " + std::to_string(INT64_MAX);
    return std::nullopt;
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= -kLimit && d < kLimit && d == std::trunc(d)) return static_cast<std::int64_t>(d);
  }
  if (!problem) problem = "Parameter `" + name + "` must be an integer";
  return std::nullopt;
}

std::optional<std::int64_t> lenient_integer(const json& p, const char* key,
                                            std::optional<std::string>& problem) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return std::nullopt;
  return integer_value(*it, key, problem);
}

}  // namespace editd::protocol
