#include "protocol/message.h"

#include <cctype>
#include <functional>

namespace editd::protocol {
namespace {

// U+10FFFE (a noncharacter): stands in for a lone surrogate escape so that the
// message can still be parsed and the offending param named.
constexpr std::string_view kSurrogateMark = "\\udbff\\udffe";
constexpr std::string_view kSurrogateMarkUtf8 = "\xF4\x8F\xBF\xBE";

// Replaces each \uD800-\uDFFF escape that is not part of a valid pair.
std::string mark_lone_surrogates(std::string_view line, bool& found) {
  std::string out;
  out.reserve(line.size());
  auto hex4 = [&](std::size_t i) -> int {
    if (i + 6 > line.size() || line[i] != '\\' || (line[i + 1] != 'u' && line[i + 1] != 'U'))
      return -1;
    int v = 0;
    for (std::size_t k = i + 2; k < i + 6; ++k) {
      char c = line[k];
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
              : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                          : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '\\') {
      out.append(line.substr(i, 2));
      i += 2;
      continue;
    }
    int v = hex4(i);
    if (v >= 0xD800 && v <= 0xDBFF) {
      int lo = hex4(i + 6);
      if (lo >= 0xDC00 && lo <= 0xDFFF) {
        out.append(line.substr(i, 12));
        i += 12;
        continue;
      }
    }
    if (v >= 0xD800 && v <= 0xDFFF) {
      out.append(kSurrogateMark);
      found = true;
      i += 6;
      continue;
    }
    out.push_back(line[i]);
    ++i;
  }
  return out;
}

// The top-level param whose value holds the surrogate mark, or "".
std::string param_with_mark(const json& params) {
  std::function<bool(const json&)> has = [&](const json& v) {
    if (v.is_string()) return v.get_ref<const std::string&>().find(kSurrogateMarkUtf8) !=
                              std::string::npos;
    if (v.is_structured())
      for (const auto& e : v)
        if (has(e)) return true;
    return false;
  };
  if (params.is_object())
    for (auto it = params.begin(); it != params.end(); ++it)
      if (has(it.value())) return it.key();
  return "";
}

Incoming invalid(ErrorKind kind, std::string message, json id = nullptr) {
  Incoming in;
  in.type = Incoming::Type::kInvalid;
  in.id = std::move(id);
  in.error = Error(kind, std::move(message));
  return in;
}

Incoming classify(json msg) {
  if (!msg.is_object()) {
    return invalid(ErrorKind::kInvalidRequest,
                   msg.is_array() ? "batch requests are not supported: send one JSON-RPC object per line"
                                  : "a JSON-RPC message must be an object");
  }
  json id = nullptr;
  bool has_id = msg.contains("id");
  if (has_id) {
    if (is_valid_id(msg["id"]) || msg["id"].is_null()) {
      id = msg["id"];
    } else {
      return invalid(ErrorKind::kInvalidRequest, "'id' must be a string or a number");
    }
  }
  auto version = msg.find("jsonrpc");
  if (version == msg.end() || *version != "2.0")
    return invalid(ErrorKind::kInvalidRequest, "'jsonrpc' must be \"2.0\"", id);

  bool has_method = msg.contains("method");
  if (!has_method && (msg.contains("result") || msg.contains("error"))) {
    Incoming in;
    in.type = Incoming::Type::kResponse;
    in.id = id;
    if (auto e = msg.find("error"); e != msg.end() && e->is_object()) {
      int code = e->value("code", -32603);
      std::string message = e->contains("message") && (*e)["message"].is_string()
                                ? (*e)["message"].get<std::string>()
                                : std::string("error");
      json data = {{"code", code}};
      if (e->contains("data")) data["data"] = (*e)["data"];
      in.error = Error(kind_from_code(code).value_or(ErrorKind::kDelegateFailed), message, data);
    } else {
      in.result = msg.contains("result") ? msg["result"] : json(nullptr);
    }
    return in;
  }
  if (!has_method || !msg["method"].is_string())
    return invalid(ErrorKind::kInvalidRequest, "'method' must be a string", id);

  Incoming in;
  in.type = has_id ? Incoming::Type::kRequest : Incoming::Type::kNotification;
  in.id = id;
  in.method = msg["method"].get<std::string>();
  auto params = msg.find("params");
  if (params == msg.end() || params->is_null()) {
    in.params = json::object();
  } else if (params->is_object()) {
    in.params = std::move(*params);
  } else if (params->is_array()) {
    Incoming bad = invalid(ErrorKind::kInvalidParams,
                           "params must be an object with named members, not an array", id);
    bad.error->data["param"] = "params";
    return bad;
  } else {
    return invalid(ErrorKind::kInvalidRequest, "'params' must be an object", id);
  }
  return in;
}

}  // namespace

bool is_valid_id(const json& id) { return id.is_string() || id.is_number(); }

Incoming parse_message(std::string_view line) {
  json msg = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!msg.is_discarded()) return classify(std::move(msg));

  // A lone surrogate escape is well-formed JSON text that nlohmann refuses:
  // parse with a stand-in to answer invalid_params naming the param.
  bool found = false;
  std::string marked = mark_lone_surrogates(line, found);
  if (found) {
    json again = json::parse(marked, nullptr, false);
    if (!again.is_discarded()) {
      Incoming in = classify(std::move(again));
      if (in.type != Incoming::Type::kRequest) return in;
      std::string param = param_with_mark(in.params);
      Incoming bad;
      bad.type = Incoming::Type::kInvalid;
      bad.id = in.id;
      bad.error = invalid_param(param.empty() ? "params" : param,
                                "contains a lone UTF-16 surrogate escape, which is not a "
                                "Unicode character");
      return bad;
    }
  }
  std::string why;
  try {
    (void)json::parse(line);
  } catch (const json::parse_error& e) {
    why = e.what();
  }
  Incoming bad = invalid(ErrorKind::kParseError, "parse error: the line is not valid JSON");
  if (!why.empty()) bad.error->data["detail"] = why;
  return bad;
}

json make_result(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const json& id, const Error& error) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"error",
               {{"code", kind_code(error.kind)},
                {"message", error.message},
                {"data", error.wire_data()}}}};
}

json make_request(const json& id, std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json make_notification(std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string serialize(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace editd::protocol
