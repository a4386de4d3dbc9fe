// Fuzz target 1: framing and the JSON-RPC message layer.
//
// The input is a byte stream as a client would send it; its first byte picks
// the size of the chunks it is fed in. Invariants:
// - the framer's lines are exactly the stream's non-blank lines (one trailing
//   CR dropped), and a line over the limit is one oversize event; the bytes
//   after the last newline are no line, and finish() drops them;
// - parse_message never throws, and never answers a line with internal;
// - whatever parses re-renders: the message serialised again parses to the
//   same type, id (type included), method, params and result; every reply editd
//   would send for it (an error for an invalid line) parses as a response to
//   the same id with the same kind;
// - a number id is echoed as the text it was sent as: what a reply writes for
//   it is a number of the line's text that nlohmann reads as the line's id;
// - accepted messages nest at most kMaxNesting deep, and decoding their params
//   for every method gives a value or invalid_params, with paths that pass
//   path_problem.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "protocol/fast_json.h"
#include "protocol/framing.h"
#include "protocol/message.h"
#include "protocol/params.h"

namespace {

using namespace editd;
using namespace editd::protocol;

constexpr std::size_t kMaxLine = 4096;

// What the framer must deliver for `stream`: nullopt stands for an oversize line.
std::vector<std::optional<std::string>> expected_lines(std::string_view stream) {
  std::vector<std::optional<std::string>> out;
  // Bytes after the last "\n" are no line: the input ends inside it.
  while (!stream.empty()) {
    std::size_t nl = stream.find('\n');
    if (nl == std::string_view::npos) break;
    std::string_view line = stream.substr(0, nl);
    stream.remove_prefix(nl + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.size() > kMaxLine)
      out.emplace_back(std::nullopt);
    else if (line.find_first_not_of(" \t\r") != std::string_view::npos)
      out.emplace_back(std::string(line));
  }
  return out;
}

std::size_t depth_of(const json& v) {
  std::size_t deepest = 0;
  if (v.is_structured())
    for (const auto& e : v) deepest = std::max(deepest, depth_of(e));
  return v.is_structured() ? deepest + 1 : 0;
}

// The same id for a client: equal, and of the same JSON type (1 is not "1").
// nlohmann keeps the integers it reads in two types (signed and unsigned),
// which are the same number to every client.
bool same_id(const json& a, const json& b) {
  auto type = [](const json& v) {
    return v.is_number_integer() ? json::value_t::number_integer : v.type();
  };
  return type(a) == type(b) && a == b;
}

// The method files decode a path, text and integers through ParamDecoder
// (server/methods/*.cpp): whatever the params, a path it accepts passes
// path_problem, and every failure is invalid_params.
void check_params(const json& params) {
  ParamDecoder d(params);
  std::string path, text;
  std::optional<std::string> maybe_path;
  std::uint64_t line = 0;
  std::optional<std::uint64_t> limit;
  std::optional<bool> flag;
  std::map<std::string, std::string> fingerprints;
  d.path("path", path);
  d.optional_path("to", maybe_path);
  d.string("oldText", text);
  d.integer("line", line, 0);
  d.optional_integer("limit", limit, 1);
  d.optional_bool("dryRun", flag);
  d.optional_string_map("expectedFingerprints", fingerprints);
  auto decoded = d.finish(0);
  if (decoded) {
    FUZZ_CHECK(!path_problem(path), path);
    if (maybe_path) FUZZ_CHECK(!path_problem(*maybe_path), *maybe_path);
    FUZZ_CHECK(!limit || *limit >= 1, params.dump());
  } else {
    FUZZ_CHECK(decoded.error().kind == ErrorKind::kInvalidParams, decoded.error().message);
  }
  auto init = decode_initialize(params);
  if (!init) FUZZ_CHECK(init.error().kind == ErrorKind::kInvalidParams, init.error().message);
}

// The reply editd sends for an invalid line is itself a well-formed response.
void check_reply(const Incoming& in) {
  const std::string reply = serialize(make_error(in.id, *in.error));
  Incoming back = parse_message(reply);
  FUZZ_CHECK(back.type == Incoming::Type::kResponse, reply);
  FUZZ_CHECK(same_id(back.id, in.id), reply);
  FUZZ_CHECK(back.error && back.error->kind == in.error->kind, reply);
  FUZZ_CHECK(back.error->message == in.error->message, reply);
}

// The fast reader (protocol/fast_json.h) reads exactly what nlohmann reads or
// gives up; the fast writer writes exactly what nlohmann writes.
void check_fast_json(const std::string& line) {
  json expected = json::parse(line, nullptr, /*allow_exceptions=*/false);
  auto fast = fast_json::parse(line);
  if (expected.is_discarded()) {
    FUZZ_CHECK(!fast, line);
    return;
  }
  if (fast) FUZZ_CHECK(*fast == expected && fast->dump() == expected.dump(), line);
  FUZZ_CHECK(fast_json::dump(expected) == expected.dump(-1, ' ', false, json::error_handler_t::replace),
             line);
}

// The text a reply writes for a number id is in the line, and is the id
// nlohmann reads there (when it reads the line at all: not one with a lone
// surrogate escape).
void check_number_id(const std::string& line, const Incoming& in) {
  if (!in.id.is_number() && !is_raw_number(in.id)) return;
  const std::string text = serialize(in.id);
  FUZZ_CHECK(line.find(text) != std::string::npos, line + " echoed as " + text);
  const json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(value.is_number(), text);
  const json read = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (read.is_object() && read.contains("id"))
    FUZZ_CHECK(read["id"] == value, line + " echoed as " + text);
}

void check_message(const std::string& line) {
  check_fast_json(line);
  Incoming in = parse_message(line);
  check_number_id(line, in);
  // A client's error may say internal; editd's own answers never do.
  if (in.type == Incoming::Type::kInvalid)
    FUZZ_CHECK(in.error && in.error->kind != ErrorKind::kInternal, line);
  FUZZ_CHECK(in.id.is_null() || is_valid_id(in.id), in.id.dump());
  switch (in.type) {
    case Incoming::Type::kInvalid: {
      FUZZ_CHECK(in.error.has_value(), line);
      check_reply(in);
      return;
    }
    case Incoming::Type::kRequest:
    case Incoming::Type::kNotification: {
      FUZZ_CHECK(in.params.is_object(), line);
      FUZZ_CHECK(depth_of(in.params) + 1 <= kMaxNesting, line);
      const bool request = in.type == Incoming::Type::kRequest;
      const std::string again = serialize(request ? make_request(in.id, in.method, in.params)
                                                  : make_notification(in.method, in.params));
      Incoming back = parse_message(again);
      FUZZ_CHECK(back.type == in.type, again);
      FUZZ_CHECK(same_id(back.id, in.id), again);
      FUZZ_CHECK(back.method == in.method, again);
      FUZZ_CHECK(back.params == in.params, again);
      check_params(in.params);
      if (request) {
        Incoming reply;
        reply.id = in.id;
        reply.error = Error(ErrorKind::kMethodNotFound, "method not found: " + in.method);
        check_reply(reply);
      }
      return;
    }
    case Incoming::Type::kResponse: {
      if (!in.error) {
        FUZZ_CHECK(depth_of(in.result) + 1 <= kMaxNesting, line);
        const std::string again = serialize(make_result(in.id, in.result));
        Incoming back = parse_message(again);
        FUZZ_CHECK(back.type == Incoming::Type::kResponse && !back.error, again);
        FUZZ_CHECK(same_id(back.id, in.id), again);
        FUZZ_CHECK(back.result == in.result, again);
      } else if (in.error->data.contains("code")) {
        // The client's error object, as it was read.
        json error = {{"code", in.error->data["code"]}, {"message", in.error->message}};
        if (in.error->data.contains("data")) error["data"] = in.error->data["data"];
        const std::string again =
            serialize(json{{"jsonrpc", "2.0"}, {"id", in.id}, {"error", std::move(error)}});
        Incoming back = parse_message(again);
        FUZZ_CHECK(back.type == Incoming::Type::kResponse && back.error, again);
        FUZZ_CHECK(same_id(back.id, in.id), again);
        FUZZ_CHECK(back.error->kind == in.error->kind, again);
        FUZZ_CHECK(back.error->message == in.error->message, again);
        FUZZ_CHECK(back.error->data == in.error->data, again);
      }
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t chunk = 1 + data[0] % 97;

  LineFramer framer(kMaxLine);
  std::vector<std::optional<std::string>> lines;
  LineFramer::Sink sink{[&](editd::protocol::Line l) { lines.emplace_back(std::move(l).join()); },
                        [&](std::size_t limit) {
                          FUZZ_CHECK(limit == kMaxLine, "oversize limit");
                          lines.emplace_back(std::nullopt);
                        }};
  for (std::size_t at = 0; at < stream.size(); at += chunk) {
    framer.feed(stream.substr(at, chunk), sink);
    FUZZ_CHECK(framer.buffered() <= kMaxLine + 1, "the framer buffers at most one line");
  }
  const std::size_t tail = stream.size() - std::min(stream.size(), stream.rfind('\n') + 1);
  FUZZ_CHECK(framer.finish() == tail, "finish drops the bytes after the last newline");
  FUZZ_CHECK(framer.buffered() == 0, "finish frees the line under way");
  FUZZ_CHECK(lines == expected_lines(stream), "framed lines differ from the stream's lines");

  editd::fuzz::Budget budget("parse_message");
  for (const auto& line : lines)
    if (line) check_message(*line);
  budget.check(size);
  return 0;
}
