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
#include <string>
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

// The names a door gives the inputs: the request params that carry them. The
// defaults are editd's own (JSON-RPC and MCP); a provider adapter gives its
// tool's names (Anthropic's text editor: old_str, new_str).
struct InputNames {
  std::string old_text = "oldText";
  std::string new_text = "newText";
  std::string edits = "edits";
  std::string line_endings = "lineEndings";
  std::string bom = "bom";
  std::string final_newline = "finalNewline";
  std::string symbol = "symbol";

  // The name of `input`; "" for Input::kNone.
  std::string_view operator()(Input input) const;
  // Each input named by its mention (edit/error.h): what an operation uses
  // where it must name a param before the door's names are known.
  static const InputNames& mentions();
};

// The request param that carries an edit/ input, as `names` call it:
// "oldText", "newText", "edits", "lineEndings", "bom", "finalNewline",
// "symbol" by default; "" for Input::kNone.
std::string_view param_name(Input input, const InputNames& names = {});

// `e` as the request's param sees it: an Error made by invalid_input (edit/
// error.h) names its param in front of the message, as invalid_param does,
// and in data.param. Any other Error is returned as it is.
Error name_input(Error e, const InputNames& names = {});

// Replaces every mention (edit/error.h) in e.message and in every string
// inside e.data, at any depth (not in keys), by its name in `names`.
// Idempotent: what it leaves holds no mention, so a later call with other
// names changes nothing, and the first names applied stand. A string without
// a mention is left as it is. Every encoding of an Error as wire text calls it
// with the defaults on a copy (make_error, the MCP shapes, the tool text, ACP,
// wire_data, the CLI); a door with names of its own calls it first.
void name_inputs(Error& e, const InputNames& names = {});
// The same for one string.
void name_inputs(std::string& s, const InputNames& names = {});

}  // namespace editd
