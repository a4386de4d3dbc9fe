#include "protocol/params.h"

namespace editd::protocol {

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

static void check_path(ParamDecoder& d, const char* name, const std::string& p) {
  if (p.empty()) d.fail(invalid_param(name, "must not be empty"));
  else if (p.find('\0') != std::string::npos) d.fail(invalid_param(name, "must not contain a NUL byte"));
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

void ParamDecoder::optional_integer(const char* name, std::optional<std::uint64_t>& out,
                                    std::uint64_t min) {
  const nlohmann::json* v = find(name);
  if (!v) return;
  bool integral = v->is_number_integer() ||
                  (v->is_number_float() && v->get<double>() == static_cast<double>(static_cast<std::int64_t>(v->get<double>())));
  if (!integral) return fail(invalid_param(name, "must be an integer"));
  if (v->is_number_unsigned()) {
    out = v->get<std::uint64_t>();
  } else {
    std::int64_t i = v->is_number_float() ? static_cast<std::int64_t>(v->get<double>())
                                          : v->get<std::int64_t>();
    if (i < 0 || static_cast<std::uint64_t>(i) < min)
      return fail(invalid_param(name, "must be at least " + std::to_string(min)));
    out = static_cast<std::uint64_t>(i);
  }
  if (*out < min) fail(invalid_param(name, "must be at least " + std::to_string(min)));
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

}  // namespace editd::protocol
