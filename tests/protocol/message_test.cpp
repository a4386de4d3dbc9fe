#include "protocol/message.h"

#include <doctest/doctest.h>

#include "protocol/methods.h"

#include <set>

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

TEST_CASE("param decoding reports the first bad param") {
  auto r = decode_str_replace(json{{"path", "a"}, {"oldText", "x"}, {"newText", 3}});
  REQUIRE(r.has_error());
  CHECK(r.error().data["param"] == "newText");
  auto i = decode_insert(json{{"path", "a"}, {"line", 1.5}, {"text", "x"}});
  REQUIRE(i.has_error());
  CHECK(i.error().data["param"] == "line");
  auto ok = decode_insert(json{{"path", "a"}, {"line", 0}, {"text", "x"}, {"unknown", true}});
  CHECK(ok.has_value());
}
