// The hot path of JSON in and out: a reader for the messages clients usually
// send and a writer for the replies editd sends, both equivalent to nlohmann's.
//
// nlohmann's lexer and serializer handle a string one character at a time;
// the text of a file (read_text's reply, write_text's content) is most of the
// bytes editd moves, so both spend most of a request's instructions there.
// These copy runs of plain bytes instead.
//
// Equivalence is the contract, tested against nlohmann on random values
// (tests/protocol/fast_json_test.cpp) and in the message fuzz target:
// - parse(line) is either nullopt or exactly json::parse(line). It gives up
//   (nullopt) on anything uncommon: numbers with a fraction or an exponent or
//   beyond 18 digits, a leading BOM, lone surrogate escapes, invalid UTF-8,
//   nesting deeper than kMaxDepth, and every syntax error; the caller then
//   takes nlohmann's path, which also says why a line is refused.
// - dump(value) is exactly value.dump(-1, ' ', false, error_handler_t::replace),
//   but for a binary value of subtype kRawNumber (which no parse makes): that
//   is the text of a JSON number, written as it is (message.h's raw ids); and
//   for a verbatim() value, which it writes as the text it holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace editd::protocol::fast_json {

inline constexpr std::size_t kMaxDepth = 256;

// The subtype of a binary value that holds the text of a JSON number.
inline constexpr std::uint64_t kRawNumber = 0x6e756d;  // "num"

std::optional<nlohmann::json> parse(std::string_view line);

std::string dump(const nlohmann::json& value);

// A value that dump() writes as it is: `text` must be one JSON value, already
// serialised. nlohmann's objects keep their members sorted by name; a reply
// that must show some members first (MCP read_text's paging facts before its
// content) carries that object as verbatim text. It travels as a binary value
// of subtype kVerbatimSubtype, which only dump() knows: nothing else should
// read it (nlohmann would write it as {"bytes":[...]}).
inline constexpr std::uint64_t kVerbatimSubtype = 0x6564;  // "ed"
nlohmann::json verbatim(std::string_view text);

}  // namespace editd::protocol::fast_json
