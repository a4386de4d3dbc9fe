// Typed decoding of request params with errors that name the param.
//
// A decoder walks a params object field by field; the first problem becomes an
// invalid_params Error whose message and data.param name the field. Unknown
// fields are ignored (clients add sessionId, _meta and the like).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"

namespace editd::protocol {

// The longest path a request may give, in bytes: Linux's PATH_MAX. No longer
// one names a file, and every step of resolving one is bounded by it.
inline constexpr std::size_t kMaxPathBytes = 4096;

// Why `path` cannot name a file, as the end of an invalid_params message ("must
// not be empty", "must not contain a NUL byte", "must be at most 4096 bytes");
// nullopt when it can. Every path a request gives, in a param, as a key of
// expectedFingerprints or inside a patch, passes this check.
std::optional<std::string> path_problem(std::string_view path);

// The handshake's params (initialize), the one request every dialect starts with.
struct InitializeParams {
  std::uint64_t protocol_version = 1;
  nlohmann::json client_capabilities = nlohmann::json::object();
  nlohmann::json client_info;
  std::optional<std::string> auth_token;
};
Result<InitializeParams> decode_initialize(const nlohmann::json& p);

// Lenient reading of a provider tool's input, which never fails on what a
// model got wrong: `problem` names the first field that is there but not what
// it should be, as the provider's own tool words it ("Parameter `x` must be
// a string"), and reading goes on.
// The string at `key`; nullopt when absent, null or not a string.
std::optional<std::string> lenient_string(const nlohmann::json& p, const char* key,
                                          std::optional<std::string>& problem);
// `v`, when it is an integer from -2^63 to 2^63 - 1 (2.0 is 2), naming it `name`.
std::optional<std::int64_t> integer_value(const nlohmann::json& v, const std::string& name,
                                          std::optional<std::string>& problem);
// The integer at `key` (integer_value); nullopt when absent or null.
std::optional<std::int64_t> lenient_integer(const nlohmann::json& p, const char* key,
                                            std::optional<std::string>& problem);

class ParamDecoder {
 public:
  explicit ParamDecoder(const nlohmann::json& params) : params_(params) {}

  // A non-empty path without NUL bytes.
  void path(const char* name, std::string& out);
  void optional_path(const char* name, std::optional<std::string>& out);
  void string(const char* name, std::string& out);
  void optional_string(const char* name, std::optional<std::string>& out);
  void optional_bool(const char* name, bool& out);
  void optional_bool(const char* name, std::optional<bool>& out);
  // An integer in [min, 2^63 - 1]; a number with an integral value (2.0, 1e3)
  // counts as an integer.
  void integer(const char* name, std::uint64_t& out, std::uint64_t min);
  void optional_integer(const char* name, std::optional<std::uint64_t>& out, std::uint64_t min);
  // An array of at most `max` strings, each at most 4096 bytes.
  void optional_string_list(const char* name, std::vector<std::string>& out, std::size_t max);
  // An object whose values are strings.
  void optional_string_map(const char* name, std::map<std::string, std::string>& out);

  template <class T>
  Result<T> finish(T value) {
    if (error_) return *error_;
    return value;
  }
  bool ok() const { return !error_.has_value(); }
  void fail(Error e) {
    if (!error_) error_ = std::move(e);
  }

 private:
  const nlohmann::json* find(const char* name) const;

  const nlohmann::json& params_;
  std::optional<Error> error_;
};

}  // namespace editd::protocol
