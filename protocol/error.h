// The error model shared by every layer.
//
// Domain code (edit/, backends/, server operations) reports failure as an
// Error: a stable kind that clients switch on, a human-readable message that a
// model can act on, and structured data (closest region, candidate lines, the
// offending param...). Only the dispatch layer turns an Error into a JSON-RPC
// error object, via the kind's fixed code. Result<T> is boost::system::result
// carrying an Error instead of an error_code.
#pragma once

#include <boost/system/result.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace editd {

// Every kind editd reports. The names (kind_name) and codes (kind_code) are part
// of the wire contract: docs/protocol.md lists them, and they never change.
enum class ErrorKind {
  kParseError,
  kInvalidRequest,
  kMethodNotFound,
  kInvalidParams,
  kInternal,
  kUnauthenticated,
  kNotFound,
  kCancelled,
  kConflict,
  kStale,
  kNoMatch,
  kAmbiguous,
  kNoChange,
  kExists,
  kOutsideRoot,
  kDenied,
  kNotText,
  kTooLarge,
  kIsDirectory,
  kLineOutOfRange,
  kPatchParse,
  kPatchApply,
  kIo,
  kTimeout,
  kDelegateFailed,
};

// The stable wire name, e.g. "no_match".
std::string_view kind_name(ErrorKind kind);
// The JSON-RPC error code, e.g. -32020.
int kind_code(ErrorKind kind);
// The kind for a wire name; nullopt if unknown.
std::optional<ErrorKind> kind_from_name(std::string_view name);
// The kind for a JSON-RPC code; nullopt if editd does not use that code.
std::optional<ErrorKind> kind_from_code(int code);

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  // Extra fields merged into the JSON-RPC error's `data` beside `kind`.
  nlohmann::json data = nlohmann::json::object();

  Error() = default;
  Error(ErrorKind kind, std::string message, nlohmann::json data = nlohmann::json::object())
      : kind(kind), message(std::move(message)), data(std::move(data)) {}

  // The full `data` object as sent: {kind, ...data}.
  nlohmann::json wire_data() const;
};

// An invalid_params error naming the param, in message and in data.param.
Error invalid_param(std::string_view param, std::string_view problem);

// Thrown only by Result<T>::value() on an error; code that handles errors
// checks has_error() instead.
struct ErrorException : std::exception {
  Error error;
  explicit ErrorException(Error e) : error(std::move(e)) {}
  const char* what() const noexcept override { return error.message.c_str(); }
};

[[noreturn]] void throw_exception_from_error(const Error& e, const boost::source_location& loc);

template <class T>
using Result = boost::system::result<T, Error>;

}  // namespace editd
