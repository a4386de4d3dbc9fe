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

#include "protocol/error.h"

namespace editd::protocol {

class ParamDecoder {
 public:
  explicit ParamDecoder(const nlohmann::json& params) : params_(params) {}

  // A non-empty path without NUL bytes.
  void path(const char* name, std::string& out);
  void optional_path(const char* name, std::optional<std::string>& out);
  void string(const char* name, std::string& out);
  void optional_string(const char* name, std::optional<std::string>& out);
  void optional_bool(const char* name, bool& out);
  // An integer >= min.
  void integer(const char* name, std::uint64_t& out, std::uint64_t min);
  void optional_integer(const char* name, std::optional<std::uint64_t>& out, std::uint64_t min);
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
