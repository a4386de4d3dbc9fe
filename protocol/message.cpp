#include "protocol/message.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "protocol/fast_json.h"

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

bool holds_mark(const json& v) {
  if (v.is_string())
    return v.get_ref<const std::string&>().find(kSurrogateMarkUtf8) != std::string::npos;
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (it.key().find(kSurrogateMarkUtf8) != std::string::npos || holds_mark(it.value()))
        return true;
  } else if (v.is_array()) {
    for (const auto& e : v)
      if (holds_mark(e)) return true;
  }
  return false;
}

// The top-level param whose name or value holds the surrogate mark; "params"
// when the name itself does (it cannot be shown), "" when none does.
std::string param_with_mark(const json& params) {
  if (!params.is_object()) return "";
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (it.key().find(kSurrogateMarkUtf8) != std::string::npos) return "params";
    if (holds_mark(it.value())) return it.key();
  }
  return "";
}

Incoming invalid(ErrorKind kind, std::string message, json id = nullptr) {
  Incoming in;
  in.type = Incoming::Type::kInvalid;
  in.id = std::move(id);
  in.error = Error(kind, std::move(message));
  return in;
}

// A response whose content cannot be handed to the call waiting for it.
Incoming failed_response(json id, std::string message) {
  Incoming in;
  in.type = Incoming::Type::kResponse;
  in.id = std::move(id);
  in.error = Error(ErrorKind::kDelegateFailed, std::move(message));
  return in;
}

// The client's error object of a response, as the Error its call fails with.
// data.code is the client's code as sent (null when missing); the kind is
// editd's kind for that code, delegate_failed for a code editd does not use or
// one that is not an integer.
Error client_error(const json& e) {
  const json code = e.contains("code") ? e["code"] : json(nullptr);
  std::string message = e.contains("message") && e["message"].is_string()
                            ? e["message"].get<std::string>()
                            : std::string("error");
  json data = {{"code", code}};
  if (e.contains("data")) data["data"] = e["data"];
  ErrorKind kind = ErrorKind::kDelegateFailed;
  // editd's codes are negative; nlohmann reads every positive integer as unsigned.
  if (code.is_number_integer() && !code.is_number_unsigned()) {
    const std::int64_t c = code.get<std::int64_t>();
    if (c >= std::numeric_limits<int>::min() && c <= std::numeric_limits<int>::max())
      kind = kind_from_code(static_cast<int>(c)).value_or(kind);
  }
  return Error(kind, std::move(message), std::move(data));
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The end of the JSON value that starts at line[i] in a line that is valid
// JSON: a string, an array or object, or a scalar.
std::size_t value_end(std::string_view line, std::size_t i) {
  auto string_end = [&](std::size_t at) {  // at: the opening quote
    while (true) {
      const void* q = std::memchr(line.data() + at + 1, '"', line.size() - at - 1);
      if (q == nullptr) return line.size();
      at = static_cast<std::size_t>(static_cast<const char*>(q) - line.data());
      std::size_t slashes = 0;
      while (line[at - 1 - slashes] == '\\') ++slashes;
      if (slashes % 2 == 0) return at + 1;
    }
  };
  if (line[i] == '"') return string_end(i);
  if (line[i] == '{' || line[i] == '[') {
    std::size_t depth = 0;
    while (i < line.size()) {
      const char c = line[i];
      if (c == '"') {
        i = string_end(i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return i;
  }
  while (i < line.size() && line[i] != ',' && line[i] != '}' && line[i] != ']' &&
         !is_blank(line[i]))
    ++i;
  return i;
}

// The text of the number that is the top-level member "id" of `line`, a valid
// JSON object (the last such member, as nlohmann keeps the last of duplicate
// keys); empty when that member is not a number.
std::string_view id_number_text(std::string_view line) {
  auto blanks = [&](std::size_t i) {
    while (i < line.size() && is_blank(line[i])) ++i;
    return i;
  };
  std::string_view found;
  std::size_t i = blanks(0);
  if (i == line.size() || line[i] != '{') return found;
  i = blanks(i + 1);
  while (i < line.size() && line[i] == '"') {
    const std::size_t key_end = value_end(line, i);
    const std::string_view key = line.substr(i, key_end - i);
    bool is_id = key == "\"id\"";
    if (!is_id && key.find('\\') != std::string_view::npos) {
      const json k = json::parse(key, nullptr, /*allow_exceptions=*/false);
      is_id = k.is_string() && k == "id";
    }
    i = blanks(key_end);
    if (i == line.size() || line[i] != ':') break;
    const std::size_t start = blanks(i + 1);
    if (start == line.size()) break;
    const std::size_t end = value_end(line, start);
    if (is_id)
      found = line[start] == '-' || std::isdigit(static_cast<unsigned char>(line[start]))
                  ? line.substr(start, end - start)
                  : std::string_view();
    i = blanks(end);
    if (i == line.size() || line[i] != ',') break;
    i = blanks(i + 1);
  }
  return found;
}

// The id to keep for the valid id `parsed`, read from `line`: the value
// itself, or, when it would write back as other text than the line's, that
// text as a raw number. Only a double or a zero can (JSON's integers have no
// leading zeros or plus sign, and -0 reads as 0), so no other id costs a scan.
json echoed_id(const json& parsed, std::string_view line) {
  const bool maybe =
      parsed.is_number_float() || (parsed.is_number_integer() && parsed.get<std::int64_t>() == 0);
  if (!maybe) return parsed;
  const std::string_view text = id_number_text(line);
  if (text.empty() || text == fast_json::dump(parsed)) return parsed;
  return raw_number(text);
}

Incoming classify(json msg, std::string_view line) {
  if (!msg.is_object()) {
    return invalid(ErrorKind::kInvalidRequest,
                   msg.is_array() ? "batch requests are not supported: send one JSON-RPC object per line"
                                  : "a JSON-RPC message must be an object");
  }
  json id = nullptr;
  bool has_id = msg.contains("id");
  if (has_id) {
    if (is_valid_id(msg["id"]) || msg["id"].is_null()) {
      id = echoed_id(msg["id"], line);
    } else {
      return invalid(ErrorKind::kInvalidRequest, "'id' must be a string or a number");
    }
  }
  const bool has_method = msg.contains("method");
  auto version = msg.find("jsonrpc");
  if (version == msg.end() || *version != "2.0") {
    Incoming bad = invalid(ErrorKind::kInvalidRequest, "'jsonrpc' must be \"2.0\"", id);
    bad.no_method = !has_method;
    return bad;
  }

  if (!has_method && (msg.contains("result") || msg.contains("error"))) {
    Incoming in;
    in.type = Incoming::Type::kResponse;
    in.id = id;
    if (auto e = msg.find("error"); e != msg.end() && !e->is_null()) {
      if (!e->is_object())
        return failed_response(id, "the client answered with an error that is not an object");
      in.error = client_error(*e);
    } else {
      in.result = msg.contains("result") ? std::move(msg["result"]) : json(nullptr);
    }
    return in;
  }
  if (!has_method || !msg["method"].is_string()) {
    Incoming bad = invalid(ErrorKind::kInvalidRequest, "'method' must be a string", id);
    bad.no_method = !has_method;
    return bad;
  }

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
    // A well-formed notification whose params editd cannot use gets no
    // answer, as every notification (JSON-RPC 2.0); it is read as one
    // without params, which none of editd's notifications acts on.
    if (!has_id) {
      in.params = json::object();
      return in;
    }
    Incoming bad = invalid(ErrorKind::kInvalidParams,
                           "params must be an object with named members, not an array", id);
    bad.error->data["param"] = "params";
    return bad;
  } else {
    return invalid(ErrorKind::kInvalidRequest, "'params' must be an object", id);
  }
  return in;
}

// A message parsed with lone surrogates marked (mark_lone_surrogates): refused
// where the escape matters, as it was sent where it does not.
Incoming refuse_lone_surrogates(Incoming in) {
  const std::string why =
      "contains a lone UTF-16 surrogate escape, which is not a Unicode character";
  if (holds_mark(in.id))
    return invalid(ErrorKind::kInvalidRequest,
                   "'id' " + why + ": it could not be echoed exactly; use a valid string id");
  switch (in.type) {
    case Incoming::Type::kInvalid:
    case Incoming::Type::kNotification:
      return in;
    case Incoming::Type::kResponse:
      return failed_response(std::move(in.id), "the client's answer " + why);
    case Incoming::Type::kRequest:
      break;
  }
  if (in.method.find(kSurrogateMarkUtf8) != std::string::npos)
    return invalid(ErrorKind::kInvalidRequest, "'method' " + why, std::move(in.id));
  std::string param = param_with_mark(in.params);
  if (param.empty()) return in;  // in a member editd ignores
  Incoming bad;
  bad.type = Incoming::Type::kInvalid;
  bad.id = std::move(in.id);
  bad.error = invalid_param(param, why);
  return bad;
}

// The deepest nesting of arrays and objects, counting brackets outside
// strings; counting stops once it passes `limit`. Up to the first lexical
// error this is the nesting nlohmann's parser would build.
std::size_t nesting(std::string_view line, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) break;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Reads a line without building any value, to say why it does not parse.
class ParseProblem final : public json::json_sax_t {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    detail = e.what();
    number_overflow = e.id == 406;
    return false;
  }

  std::string detail;
  bool number_overflow = false;
};

// The parser's description quotes the token it stopped in, which may be most
// of the line (an unterminated string of 60 MiB): kept to its head and tail,
// cut at UTF-8 boundaries.
std::string shortened(std::string detail) {
  constexpr std::size_t kHead = 256, kTail = 96;
  if (detail.size() <= kHead + kTail + 64) return detail;
  auto continuation = [&](std::size_t i) {
    return (static_cast<unsigned char>(detail[i]) & 0xC0) == 0x80;
  };
  std::size_t head = kHead, tail = detail.size() - kTail;
  while (head > 0 && continuation(head)) --head;
  while (tail < detail.size() && continuation(tail)) ++tail;
  return detail.substr(0, head) + " [... " + std::to_string(tail - head) + " bytes ...] " +
         detail.substr(tail);
}

Incoming unparsable(std::string_view line) {
  ParseProblem problem;
  json::sax_parse(line, &problem);
  problem.detail = shortened(std::move(problem.detail));
  Incoming bad = invalid(ErrorKind::kParseError,
                         problem.number_overflow
                             ? "parse error: a number in the line is beyond the range of a "
                               "double, which editd cannot represent"
                             : "parse error: the line is not valid JSON");
  if (!problem.detail.empty()) bad.error->data["detail"] = problem.detail;
  return bad;
}

Incoming raw_nul(std::size_t offset) {
  Incoming bad = invalid(ErrorKind::kParseError,
                         "parse error: the line holds a raw NUL byte at byte offset " +
                             std::to_string(offset) +
                             ", which JSON does not allow (inside a string, write \\u0000)");
  bad.error->data["offset"] = offset;
  return bad;
}

// A line nested deeper than kMaxNesting: only its top-level scalars are built,
// to echo the id.
Incoming too_deep(std::string_view line) {
  std::vector<std::string> keys;
  auto shallow_only = [&keys](int depth, json::parse_event_t event, json& value) {
    if (depth == 1 && event == json::parse_event_t::key && value.is_string())
      keys.push_back(value.get<std::string>());
    return depth == 0 || (event != json::parse_event_t::object_start &&
                          event != json::parse_event_t::array_start);
  };
  json top = json::parse(line, shallow_only, /*allow_exceptions=*/false);
  if (top.is_discarded()) return unparsable(line);
  const std::string why = "nests arrays and objects more than " + std::to_string(kMaxNesting) +
                          " levels deep, editd's limit";
  json id = nullptr;
  if (top.is_object())
    if (auto it = top.find("id"); it != top.end() && is_valid_id(*it)) id = echoed_id(*it, line);
  auto has = [&](std::string_view k) {
    return std::find(keys.begin(), keys.end(), k) != keys.end();
  };
  if (top.is_object() && !has("method") && (has("result") || has("error")))
    return failed_response(std::move(id), "the client's answer " + why);
  Incoming bad = invalid(ErrorKind::kInvalidRequest, "the message " + why, std::move(id));
  bad.error->data["limit"] = kMaxNesting;
  return bad;
}

Incoming parse_line(std::string_view line) {
  // nlohmann reads a NUL as the end of the input: the rest would be ignored.
  if (std::size_t nul = line.find('\0'); nul != std::string_view::npos) return raw_nul(nul);
  if (nesting(line, kMaxNesting) > kMaxNesting) return too_deep(line);
  if (auto fast = fast_json::parse(line)) return classify(std::move(*fast), line);
  json msg = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!msg.is_discarded()) return classify(std::move(msg), line);

  // A lone surrogate escape is well-formed JSON text that nlohmann refuses:
  // parse with a stand-in to answer with the offending member named.
  bool found = false;
  std::string marked = mark_lone_surrogates(line, found);
  if (found) {
    json again = json::parse(marked, nullptr, /*allow_exceptions=*/false);
    if (!again.is_discarded()) return refuse_lone_surrogates(classify(std::move(again), marked));
  }
  return unparsable(line);
}

}  // namespace

bool is_valid_id(const json& id) { return id.is_string() || id.is_number() || is_raw_number(id); }

json raw_number(std::string_view text) {
  return json::binary(json::binary_t::container_type(text.begin(), text.end()),
                      fast_json::kRawNumber);
}

bool is_raw_number(const json& v) {
  return v.is_binary() && v.get_binary().has_subtype() &&
         v.get_binary().subtype() == fast_json::kRawNumber;
}

std::string id_key(const json& id) {
  if (!is_raw_number(id)) return serialize(id);
  const auto& b = id.get_binary();
  const json value = json::parse(b.begin(), b.end(), nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? serialize(id) : serialize(value);
}

Incoming parse_message(std::string_view line) {
  try {
    return parse_line(line);
  } catch (const std::exception& e) {
    return invalid(ErrorKind::kInternal,
                   std::string("internal error while reading the message: ") + e.what());
  }
}

json make_result(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json make_error(const json& id, const Error& error) {
  Error named = error;  // editd's names for what the door did not name
  name_inputs(named);
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"error",
               {{"code", kind_code(named.kind)},
                {"message", std::move(named.message)},
                {"data", named.wire_data()}}}};
}

json make_request(const json& id, std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json make_notification(std::string_view method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::string serialize(const json& message) { return fast_json::dump(message); }

}  // namespace editd::protocol
