// The error model as the wire sees it.
//
// The model itself (ErrorKind, Error, Result<T>) is edit/error.h's, at the
// bottom of the house; this header includes it, so every layer above protocol/
// gets both. Here are what only the wire needs: each kind's stable name and
// JSON-RPC code, the `data` object as sent (Error::wire_data), and the helpers
// that name a request param in an invalid_params Error. Only the dispatch
// layer turns an Error into a JSON-RPC error object, via the kind's fixed code.
#pragma once

#include <optional>
#include <string_view>

#include "edit/error.h"

namespace editd {

// The stable wire name, e.g. "no_match".
std::string_view kind_name(ErrorKind kind);
// The JSON-RPC error code, e.g. -32020.
int kind_code(ErrorKind kind);
// The kind for a wire name; nullopt if unknown.
std::optional<ErrorKind> kind_from_name(std::string_view name);
// The kind for a JSON-RPC code; nullopt if editd does not use that code.
std::optional<ErrorKind> kind_from_code(int code);

// An invalid_params error naming the param, in message and in data.param.
Error invalid_param(std::string_view param, std::string_view problem);

// The request param that carries an edit/ input: "oldText", "newText",
// "edits", "lineEndings", "bom", "finalNewline"; "" for Input::kNone.
std::string_view param_name(Input input);

// `e` as the request's param sees it: an Error made by invalid_input (edit/
// error.h) names its param in front of the message, as invalid_param does,
// and in data.param. Any other Error is returned as it is.
Error name_input(Error e);

}  // namespace editd
