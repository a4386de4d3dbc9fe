// JSON-RPC 2.0 messages: classifying an incoming line and building replies.
//
// parse_message never throws: every line becomes a request, a notification, a
// response (to one of our own calls to the client) or an invalid message that
// carries the error to answer with and the id to echo (null when no valid id
// could be read). Ids are kept as JSON values and come back exactly, type
// included. A reply holds only jsonrpc, id and result or error.
#pragma once

#include <nlohmann/json.hpp>
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
};

Incoming parse_message(std::string_view line);

json make_result(const json& id, json result);
json make_error(const json& id, const Error& error);
json make_request(const json& id, std::string_view method, json params);
json make_notification(std::string_view method, json params);

// One line of output: compact JSON, no "\n". Never throws.
std::string serialize(const json& message);

// A valid JSON-RPC id: a string or a number (integer or not).
bool is_valid_id(const json& id);

}  // namespace editd::protocol
