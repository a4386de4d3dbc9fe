// JSON-RPC 2.0 messages: classifying an incoming line and building replies.
//
// parse_message never throws: every line, whatever its bytes, becomes a
// request, a notification, a response (to one of our own calls to the client)
// or an invalid message that carries the error to answer with and the id to
// echo (null when no valid id could be read). Ids come back exactly as sent,
// type and text included: a number id is kept as the JSON value nlohmann reads
// when that value writes back as the same text, else as a raw number (its
// text; see raw_number). A reply holds only jsonrpc, id and result or error.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/error.h"

namespace editd::protocol {

using json = nlohmann::json;

struct Incoming {
  enum class Type { kRequest, kNotification, kResponse, kInvalid };
  Type type = Type::kInvalid;
  json id;                  // request / response / invalid (null if unreadable)
  std::string method;       // request / notification
  json params;              // request / notification: an object (empty if absent)
  json result;              // response
  std::optional<Error> error;  // invalid: what to answer; response: the client's error
  // invalid: the message has no method, so it may be a malformed answer to a
  // call of editd's (no result nor error, no jsonrpc) rather than a request.
  bool no_method = false;
};

// The deepest nesting of arrays and objects a message may have; the message
// object itself is level 1. Copying, printing and comparing JSON values recurse
// once per level, so deeper messages are refused before any value is built.
inline constexpr std::size_t kMaxNesting = 128;

// The line is one message, without its line break. Refused lines:
// - parse_error (id null): not JSON, a raw NUL byte anywhere (JSON has none;
//   data.offset), a number beyond the range of a double (data.detail);
// - invalid_request: nesting deeper than kMaxNesting (data.limit; the id is
//   echoed when the top level holds a valid one), an id holding a lone UTF-16
//   surrogate escape (id null: it cannot be echoed exactly), and the other
//   shapes docs/protocol.md lists;
// - invalid_params naming the param: a lone surrogate escape in a param.
// A response (to a call of ours) that is too deep, holds a lone surrogate or
// whose error is malformed becomes a response carrying delegate_failed.
Incoming parse_message(std::string_view line);

json make_result(const json& id, json result);
json make_error(const json& id, const Error& error);
json make_request(const json& id, std::string_view method, json params);
json make_notification(std::string_view method, json params);

// One line of output: compact JSON, no "\n". Never throws.
std::string serialize(const json& message);

// A valid JSON-RPC id: a string or a number (integer or not), raw or not.
bool is_valid_id(const json& id);

// A number kept as the text it was sent as, which serialize() writes as it is:
// for the ids whose value nlohmann would write another way (1e3 as 1000.0, -0
// as 0, 100000000000000000000000000000 as 1e+29). `text` must be a JSON number.
// A binary value (fast_json::kRawNumber): it compares equal to the same text
// only, and is no number to is_number().
json raw_number(std::string_view text);
bool is_raw_number(const json& v);

// The key that matches an id to another (a cancellation's requestId to a
// request's id): the same for the same number as nlohmann reads it, raw or not
// (1e3, 1000.0 and 1000.00 share one), and for the same string.
std::string id_key(const json& id);

}  // namespace editd::protocol
