// The error model at the bottom of the house: how every layer, edit/ first,
// reports failure.
//
// Domain code (edit/, backends/, server operations) reports failure as an
// Error: a stable kind that clients switch on, a human-readable message that a
// model can act on, and structured data (closest region, candidate lines...).
// Result<T> is boost::system::result carrying an Error instead of an
// error_code. Nothing here knows the wire: the JSON-RPC codes, the `data`
// object as sent and the names of request params are protocol/error.h's, which
// includes this header. edit/ reports a bad input by what it is (Input); the
// layer that called it names it as the param the request gave.
#pragma once

#include <boost/system/result.hpp>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace editd {

// Every kind editd reports. Their wire names and codes (protocol/error.h) are
// part of the wire contract: docs/protocol.md lists them, and they never change.
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
  kUnsupported,
};

// The input of an edit/ call that an invalid_params Error is about, named by
// what it is: the text to find and its replacement (match::Request), the list
// of line edits (hashline::plan), a member of the format asked for
// (text::Format), a symbol's name path (symbols::parse_query). The caller
// knows which request param carried it.
enum class Input : std::uint8_t {
  kNone,
  kOldText,
  kNewText,
  kEdits,
  kLineEndings,
  kBom,
  kFinalNewline,
  kSymbol,
};

struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  // Extra fields merged into the JSON-RPC error's `data` beside `kind`.
  nlohmann::json data = nlohmann::json::object();
  // For an invalid_params Error from edit/: the input at fault (kNone
  // otherwise). The caller names it on the wire (protocol/error.h, name_input).
  Input input = Input::kNone;

  Error() = default;
  Error(ErrorKind kind, std::string message, nlohmann::json data = nlohmann::json::object())
      : kind(kind), message(std::move(message)), data(std::move(data)) {}

  // The full `data` object as sent: {kind, ...data}. The wire's, defined with
  // the codes in protocol/error.cpp: only code that links editd_protocol calls it.
  nlohmann::json wire_data() const;
};

// How engine prose speaks of an input without naming it: "copy " +
// mention(Input::kOldText) + " exactly". The door that carries the request
// names it (protocol/error.h, name_inputs: "oldText" for JSON-RPC and MCP,
// "old_str" for Anthropic's text editor), and every encoding of an Error as
// wire text applies the default names to what the door left, so no mention
// reaches a client. The mention is kMentionMark, U+FDD0, then one ASCII letter
// per Input ('a' + its value). U+FDD0 is a noncharacter, which Unicode reserves
// for a program's internal use: valid UTF-8 (a forgotten mention can never make
// JSON serialisation throw) that no client or file has reason to hold.
inline constexpr std::string_view kMentionMark = "\xEF\xB7\x90";

inline std::string mention(Input input) {
  std::string out(kMentionMark);
  out += static_cast<char>('a' + static_cast<int>(input));
  return out;
}

// invalid_params about `input`: `problem` says what is wrong with it, without
// naming it (the caller's name_input puts the param's name in front).
inline Error invalid_input(Input input, std::string problem,
                           nlohmann::json data = nlohmann::json::object()) {
  Error e(ErrorKind::kInvalidParams, std::move(problem), std::move(data));
  e.input = input;
  return e;
}

// Thrown only by Result<T>::value() on an error; code that handles errors
// checks has_error() instead.
struct ErrorException : std::exception {
  Error error;
  explicit ErrorException(Error e) : error(std::move(e)) {}
  const char* what() const noexcept override { return error.message.c_str(); }
};

[[noreturn]] inline void throw_exception_from_error(const Error& e, const boost::source_location&) {
  throw ErrorException(e);
}

template <class T>
using Result = boost::system::result<T, Error>;

}  // namespace editd
