#include "protocol/message.h"

#include <doctest/doctest.h>

#include <set>

#include "protocol/params.h"

using namespace editd;
using namespace editd::protocol;

TEST_CASE("requests, notifications and responses are told apart") {
  Incoming r = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"read_text","params":{"path":"a"}})");
  CHECK(r.type == Incoming::Type::kRequest);
  CHECK(r.method == "read_text");
  CHECK(r.params["path"] == "a");
  Incoming n = parse_message(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}})");
  CHECK(n.type == Incoming::Type::kNotification);
  Incoming resp = parse_message(R"({"jsonrpc":"2.0","id":4,"result":{"content":"x"}})");
  CHECK(resp.type == Incoming::Type::kResponse);
  CHECK(resp.result["content"] == "x");
  Incoming err = parse_message(R"({"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"nope"}})");
  CHECK(err.type == Incoming::Type::kResponse);
  REQUIRE(err.error);
  CHECK(err.error->kind == ErrorKind::kNotFound);
  CHECK(err.error->message == "nope");
}

TEST_CASE("invalid messages carry the error to answer and the id to echo") {
  Incoming bad = parse_message("{oops");
  CHECK(bad.type == Incoming::Type::kInvalid);
  CHECK(bad.error->kind == ErrorKind::kParseError);
  CHECK(bad.id.is_null());
  Incoming arr = parse_message("[]");
  CHECK(arr.error->kind == ErrorKind::kInvalidRequest);
  Incoming noversion = parse_message(R"({"id":"x","method":"m"})");
  CHECK(noversion.error->kind == ErrorKind::kInvalidRequest);
  CHECK(noversion.id == "x");
  Incoming objid = parse_message(R"({"jsonrpc":"2.0","id":{},"method":"m"})");
  CHECK(objid.error->kind == ErrorKind::kInvalidRequest);
  CHECK(objid.id.is_null());
  Incoming nomethod = parse_message(R"({"jsonrpc":"2.0","id":2})");
  CHECK(nomethod.error->kind == ErrorKind::kInvalidRequest);
  CHECK(nomethod.id == 2);
}

TEST_CASE("a lone surrogate escape is invalid params naming the param") {
  Incoming m = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"write_text","params":{"path":"a","content":"\udc00"}})");
  CHECK(m.type == Incoming::Type::kInvalid);
  CHECK(m.error->kind == ErrorKind::kInvalidParams);
  CHECK(m.error->data["param"] == "content");
  CHECK(m.id == 1);
  // A valid pair is fine.
  Incoming ok = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":"\ud83d\ude00"}})");
  CHECK(ok.type == Incoming::Type::kRequest);
  CHECK(ok.params["s"] == "\xF0\x9F\x98\x80");
}

TEST_CASE("error replies carry code, message and data.kind") {
  json e = make_error(7, Error(ErrorKind::kNoMatch, "no match", {{"closest", 1}}));
  CHECK(e["id"] == 7);
  CHECK(e["error"]["code"] == -32020);
  CHECK(e["error"]["data"]["kind"] == "no_match");
  CHECK(e["error"]["data"]["closest"] == 1);
  CHECK(e.size() == 3);
}

TEST_CASE("every error kind has a distinct name and code that round-trip") {
  std::set<int> codes;
  std::set<std::string_view> names;
  for (int k = 0; k <= static_cast<int>(ErrorKind::kDelegateFailed); ++k) {
    auto kind = static_cast<ErrorKind>(k);
    CHECK(codes.insert(kind_code(kind)).second);
    CHECK(names.insert(kind_name(kind)).second);
    CHECK(kind_from_name(kind_name(kind)) == kind);
    CHECK(kind_from_code(kind_code(kind)) == kind);
  }
  CHECK(codes.size() == 25);
}

namespace {

// A method's decode as the method files write one (server/methods/*.cpp).
struct Inserted {
  std::string path;
  std::uint64_t line = 0;
  std::string text;
};
Result<Inserted> decode_inserted(const json& p) {
  ParamDecoder d(p);
  Inserted r;
  d.path("path", r.path);
  d.integer("line", r.line, 0);
  d.string("text", r.text);
  return d.finish(std::move(r));
}

struct Lines {
  std::optional<std::uint64_t> line, limit;
};
Result<Lines> decode_lines(const json& p) {
  ParamDecoder d(p);
  Lines r;
  d.optional_integer("line", r.line, 1);
  d.optional_integer("limit", r.limit, 1);
  return d.finish(std::move(r));
}

}  // namespace

TEST_CASE("param decoding reports the first bad param") {
  auto t = decode_inserted(json{{"path", "a"}, {"line", 0}, {"text", 3}});
  REQUIRE(t.has_error());
  CHECK(t.error().data["param"] == "text");
  auto i = decode_inserted(json{{"path", "a"}, {"line", 1.5}, {"text", 3}});
  REQUIRE(i.has_error());
  CHECK(i.error().data["param"] == "line");
  auto ok = decode_inserted(json{{"path", "a"}, {"line", 0}, {"text", "x"}, {"unknown", true}});
  CHECK(ok.has_value());
}

TEST_CASE("a number beyond the range of a double is a parse error, not an exception") {
  for (std::string line :
       {std::string(R"({"jsonrpc":"2.0","id":1e400,"method":"read_text","params":{}})"),
        std::string(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"x":-1e999}})"),
        R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"n":)" + std::string(310, '9') + "}}",
        R"({"jsonrpc":"2.0","id":)" + std::string(310, '7') + R"(,"result":null})"}) {
    Incoming m = parse_message(line);
    CHECK(m.type == Incoming::Type::kInvalid);
    REQUIRE(m.error);
    CHECK(m.error->kind == ErrorKind::kParseError);
    CHECK(m.error->message.find("range of a double") != std::string::npos);
    CHECK(m.error->data["detail"].get<std::string>().find("number overflow") != std::string::npos);
    CHECK(m.id.is_null());
  }
  // The largest doubles still parse.
  Incoming big = parse_message(R"({"jsonrpc":"2.0","id":1.7976931348623157e308,"method":"m"})");
  CHECK(big.type == Incoming::Type::kRequest);
}

TEST_CASE("a response whose error code is not an integer fails its call with delegate_failed") {
  for (std::string code : {"\"oops\"", "1.5", "1e300", "99999999999", "-99999999999",
                           "18446744073709551615", "null", "{}", "[1]", "true"}) {
    Incoming m = parse_message(R"({"jsonrpc":"2.0","id":3,"error":{"code":)" + code +
                               R"(,"message":"bad"}})");
    CHECK_MESSAGE(m.type == Incoming::Type::kResponse, code);
    CHECK(m.id == 3);
    REQUIRE(m.error);
    CHECK(m.error->kind == ErrorKind::kDelegateFailed);
    CHECK(m.error->message == "bad");
    CHECK(m.error->data["code"] == json::parse(code));
  }
  Incoming known = parse_message(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32002.0}})");
  CHECK(known.error->kind == ErrorKind::kDelegateFailed);
  Incoming not_object = parse_message(R"({"jsonrpc":"2.0","id":4,"error":"boom"})");
  CHECK(not_object.type == Incoming::Type::kResponse);
  REQUIRE(not_object.error);
  CHECK(not_object.error->kind == ErrorKind::kDelegateFailed);
  Incoming null_error = parse_message(R"({"jsonrpc":"2.0","id":5,"result":7,"error":null})");
  CHECK_FALSE(null_error.error);
  CHECK(null_error.result == 7);
}

TEST_CASE("nesting deeper than kMaxNesting is refused before any value is built") {
  auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  // The message object is level 1: params at level 2, its members from level 3.
  Incoming at_limit = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":)" +
                                    nested(kMaxNesting - 2) + "}}");
  CHECK(at_limit.type == Incoming::Type::kRequest);
  Incoming over = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":)" +
                                nested(kMaxNesting - 1) + "}}");
  CHECK(over.type == Incoming::Type::kInvalid);
  CHECK(over.error->kind == ErrorKind::kInvalidRequest);
  CHECK(over.error->data["limit"] == kMaxNesting);
  CHECK(over.error->message.find(std::to_string(kMaxNesting)) != std::string::npos);
  CHECK(over.id == 1);

  // 140,000 levels: a response, a request, error data, a bare array, an id.
  const std::string deep(140000, '[');
  Incoming response = parse_message(R"({"jsonrpc":"2.0","id":9,"result":)" + deep);
  CHECK(response.type == Incoming::Type::kInvalid);  // unterminated: not JSON
  CHECK(response.error->kind == ErrorKind::kParseError);
  Incoming closed = parse_message(R"({"jsonrpc":"2.0","id":9,"result":)" + nested(140000) + "}");
  CHECK(closed.type == Incoming::Type::kResponse);
  CHECK(closed.id == 9);
  REQUIRE(closed.error);
  CHECK(closed.error->kind == ErrorKind::kDelegateFailed);
  Incoming error_data =
      parse_message(R"({"jsonrpc":"2.0","id":9,"error":{"code":1,"data":)" + nested(140000) + "}}");
  CHECK(error_data.type == Incoming::Type::kResponse);
  CHECK(error_data.error->kind == ErrorKind::kDelegateFailed);
  Incoming caps = parse_message(
      R"({"jsonrpc":"2.0","id":"i","method":"initialize","params":{"clientCapabilities":)" +
      nested(140000) + "}}");
  CHECK(caps.type == Incoming::Type::kInvalid);
  CHECK(caps.id == "i");
  Incoming bare = parse_message(nested(140000));
  CHECK(bare.error->kind == ErrorKind::kInvalidRequest);
  CHECK(bare.id.is_null());
  Incoming deep_id = parse_message(R"({"jsonrpc":"2.0","method":"m","id":)" + nested(140000) + "}");
  CHECK(deep_id.error->kind == ErrorKind::kInvalidRequest);
  CHECK(deep_id.id.is_null());
  Incoming cancel =
      parse_message(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":)" +
                    nested(140000) + "}}");
  CHECK(cancel.type == Incoming::Type::kInvalid);

  // Brackets inside strings are text.
  Incoming text = parse_message(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":")" +
                                std::string(1000, '[') + R"(\"{{"}})");
  CHECK(text.type == Incoming::Type::kRequest);
}

TEST_CASE("an id holding a lone surrogate is refused with id null; elsewhere it is named") {
  Incoming id =
      parse_message(R"({"jsonrpc":"2.0","id":"a\ud800b","method":"read_text","params":{}})");
  CHECK(id.type == Incoming::Type::kInvalid);
  CHECK(id.error->kind == ErrorKind::kInvalidRequest);
  CHECK(id.error->message.find("'id'") != std::string::npos);
  CHECK(id.id.is_null());
  Incoming bad_version = parse_message(R"({"jsonrpc":"1.0","id":"\udfff"})");
  CHECK(bad_version.id.is_null());
  Incoming method = parse_message(R"({"jsonrpc":"2.0","id":2,"method":"read\udc00"})");
  CHECK(method.error->kind == ErrorKind::kInvalidRequest);
  CHECK(method.id == 2);
  Incoming response = parse_message(R"({"jsonrpc":"2.0","id":3,"result":{"content":"\ud800"}})");
  CHECK(response.type == Incoming::Type::kResponse);
  REQUIRE(response.error);
  CHECK(response.error->kind == ErrorKind::kDelegateFailed);
  CHECK(response.result.is_null());
  Incoming key = parse_message(R"({"jsonrpc":"2.0","id":4,"method":"m","params":{"\ud800":1}})");
  CHECK(key.error->kind == ErrorKind::kInvalidParams);
  CHECK(key.error->data["param"] == "params");
  Incoming nested = parse_message(
      R"({"jsonrpc":"2.0","id":5,"method":"m","params":{"expectedFingerprints":{"a\udbff":"x"}}})");
  CHECK(nested.error->data["param"] == "expectedFingerprints");
  Incoming ignored = parse_message(R"({"jsonrpc":"2.0","id":6,"method":"m","x":"\ud800"})");
  CHECK(ignored.type == Incoming::Type::kRequest);
  CHECK(ignored.id == 6);
  // The id of an answer is echoed as it was sent.
  Incoming pair = parse_message(R"({"jsonrpc":"2.0","id":"\ud83d\ude00","method":"m"})");
  CHECK(pair.id == "\xF0\x9F\x98\x80");
}

TEST_CASE("a raw NUL byte anywhere in a line is a parse error for that line") {
  using namespace std::string_literals;
  for (std::string line :
       {R"({"jsonrpc":"2.0","id":1,"method":"m"})"s + '\0' + "garbage",
        R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"path":"a)"s + '\0' + R"(b"}})"s, "\0"s,
        R"({"jsonrpc":"2.0","id":1)"s + '\0' + "}"}) {
    Incoming m = parse_message(line);
    CHECK(m.type == Incoming::Type::kInvalid);
    CHECK(m.error->kind == ErrorKind::kParseError);
    CHECK(m.error->data["offset"] == line.find('\0'));
    CHECK(m.id.is_null());
  }
}

TEST_CASE(
    "integer params out of range are invalid params, never a cast of an unrepresentable value") {
  for (json v : {json(1e300), json(-1e300), json(1e19), json(9223372036854775808ULL),
                 json(18446744073709551615ULL), json(-9223372036854775807LL - 1), json(0.5),
                 json("1"), json(true), json::array()}) {
    auto r = decode_lines(json{{"line", v}});
    REQUIRE_MESSAGE(r.has_error(), v.dump());
    CHECK(r.error().kind == ErrorKind::kInvalidParams);
    CHECK(r.error().data["param"] == "line");
  }
  CHECK(decode_lines(json{{"line", 1e300}}).error().message.find("at most") != std::string::npos);
  CHECK(decode_lines(json{{"line", -1e300}}).error().message.find("at least") != std::string::npos);
  auto max = decode_lines(json{{"line", 9223372036854775807LL}, {"limit", 2.0}});
  REQUIRE(max.has_value());
  CHECK(*max->line == 9223372036854775807ULL);
  CHECK(*max->limit == 2);
  auto insert = decode_inserted(json{{"path", "a"}, {"line", 1e300}, {"text", "x"}});
  REQUIRE(insert.has_error());
  CHECK(insert.error().data["param"] == "line");
}

TEST_CASE("a path param is refused when path_problem says so") {
  CHECK(path_problem("") == "must not be empty");
  CHECK(path_problem(std::string("a\0b", 3)) == "must not contain a NUL byte");
  CHECK_FALSE(path_problem("a/b.txt"));
  auto r = decode_inserted(json{{"path", std::string("a\0b", 3)}, {"line", 1}, {"text", "x"}});
  REQUIRE(r.has_error());
  CHECK(r.error().data["param"] == "path");
}

TEST_CASE("the detail of a parse error quotes a long token by its head and tail only") {
  const std::string line =
      R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"x":"é)" + std::string(1 << 20, 'a');
  Incoming m = parse_message(line);
  REQUIRE(m.error);
  CHECK(m.error->kind == ErrorKind::kParseError);
  const std::string detail = m.error->data["detail"].get<std::string>();
  CHECK(detail.size() < 512);
  CHECK(detail.find("missing closing quote") != std::string::npos);
  CHECK(detail.find("bytes ...]") != std::string::npos);
  // A short one is whole.
  Incoming short_one = parse_message("{no");
  REQUIRE(short_one.error);
  CHECK(short_one.error->data["detail"].get<std::string>().find("last read: '{no'") !=
        std::string::npos);
}

TEST_CASE("a number id is echoed as the text it was sent as, whatever nlohmann would write") {
  auto echoed = [](const std::string& line) {
    Incoming in = parse_message(line);
    REQUIRE(is_valid_id(in.id));
    return serialize(make_result(in.id, json::object()));
  };
  for (std::string id :
       {"100000000000000000000000000000", "-9223372036854775809", "18446744073709551616", "1.0",
        "1e3", "1E+3", "-0", "-0.0", "0.10", "1.5e-7", "9223372036854775807",
        "-9223372036854775808", "18446744073709551615", "0", "7", "1.5"}) {
    CAPTURE(id);
    const std::string want = "{\"id\":" + id + ",\"jsonrpc\":\"2.0\",\"result\":{}}";
    CHECK(echoed(R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"m","params":{}})") == want);
    // Spaced, after another member, as an invalid request and as a response.
    CHECK(echoed(R"({"method":"m", "id" :  )" + id + R"( ,"jsonrpc":"2.0"})") == want);
    Incoming bad = parse_message(R"({"jsonrpc":"1.0","id":)" + id + R"(,"method":"m"})");
    CHECK(bad.error->kind == ErrorKind::kInvalidRequest);
    CHECK(serialize(make_error(bad.id, *bad.error)).starts_with("{\"error\":"));
    CHECK(serialize(make_error(bad.id, *bad.error)).find(",\"id\":" + id + ",") !=
          std::string::npos);
    CHECK(echoed(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":null})") == want);
  }
  // The last of duplicate ids counts, as nlohmann reads it; an escaped key is "id".
  CHECK(echoed(R"({"jsonrpc":"2.0","id":1,"method":"m","id":-0})").find("\"id\":-0,") !=
        std::string::npos);
  CHECK(echoed(R"({"jsonrpc":"2.0","id":-0,"method":"m","id":5})").find("\"id\":5,") !=
        std::string::npos);
  CHECK(
      echoed(R"({"jsonrpc":"2.0","params":{"id":2e3,"s":"\"id\":3e3"},"\u0069d":1e3,"method":"m"})")
          .find("\"id\":1e3,") != std::string::npos);
  // Too deep, or with a lone surrogate in a param: the error echoes the id's text.
  const std::string deep(130, '[');
  Incoming too_deep = parse_message(R"({"jsonrpc":"2.0","id":1e3,"method":"m","params":{"a":)" +
                                    deep + std::string(130, ']') + "}}");
  CHECK(too_deep.error->data["limit"] == kMaxNesting);
  CHECK(serialize(too_deep.id) == "1e3");
  Incoming surrogate =
      parse_message(R"({"jsonrpc":"2.0","id":-0,"method":"m","params":{"p":"\ud800"}})");
  CHECK(surrogate.error->kind == ErrorKind::kInvalidParams);
  CHECK(serialize(surrogate.id) == "-0");
}

TEST_CASE("a raw number id matches the same number for a cancellation, and only a raw id is raw") {
  const json big = parse_message(R"({"jsonrpc":"2.0","id":1e3,"method":"m"})").id;
  CHECK(is_raw_number(big));
  CHECK(id_key(big) == id_key(json(1000.0)));
  CHECK(id_key(big) != id_key(json("1e3")));
  CHECK(id_key(parse_message(R"({"jsonrpc":"2.0","id":1000.0,"method":"m"})").id) == id_key(big));
  CHECK_FALSE(is_raw_number(parse_message(R"({"jsonrpc":"2.0","id":12,"method":"m"})").id));
  CHECK_FALSE(is_raw_number(parse_message(R"({"jsonrpc":"2.0","id":"1e3","method":"m"})").id));
  CHECK(serialize(parse_message(R"({"jsonrpc":"2.0","id":"1e3","method":"m"})").id) == "\"1e3\"");
}

TEST_CASE("make_error names the inputs the engine mentioned, as JSON-RPC's params") {
  const Error e(ErrorKind::kNoMatch, mention(Input::kOldText) + " was not found",
                {{"hint", "copy " + mention(Input::kOldText) + " exactly"}});
  json out = make_error(3, e);
  CHECK(out["error"]["message"] == "oldText was not found");
  CHECK(out["error"]["data"] == json({{"kind", "no_match"}, {"hint", "copy oldText exactly"}}));
  CHECK(serialize(out).find("\xef\xb7\x90") == std::string::npos);
}
