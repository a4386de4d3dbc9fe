// What a language server's answers mean to editd, the pure part of the LSP
// client (server/checks/lsp_client.h): file URIs, language ids, a message
// read in one pass, a documentSymbol answer straight into symbols, and the
// text edits of a rangeFormatting answer applied to a text. No I/O.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "edit/error.h"
#include "edit/symbols/outline.h"
#include "edit/symbols/positions.h"

namespace editd::lsp {

// The symbols of one documentSymbol answer, as a tree (a flat
// SymbolInformation[] is nested by symbols::nest).
struct SymbolList {
  std::vector<symbols::Reported> roots;
  std::size_t count = 0;     // symbols kept
  std::size_t bytes = 0;     // what they hold in memory (symbol_bytes)
  bool truncated = false;    // some were left out, past the bounds
};

// One message of a language server.
struct Message {
  nlohmann::json json;  // discarded when the bytes are not one JSON value
  // A response's `result` when it is an array: read as documentSymbol's
  // answer and never held as JSON; `json` then has no "result". Unless it
  // answers one of the `json_results` requests parse_message is given.
  std::optional<SymbolList> symbols;
};

// Reads `bytes` in one pass, in time and memory linear in their size: values
// nested deeper than `max_depth` are dropped (walking a message recurses), and
// of a result's symbols at most `max_symbols` are kept, holding at most about
// `max_symbol_bytes`, nested at most symbols::kMaxDepth deep (entries that are
// not symbols are skipped with what they hold; a name is cut at 1 KiB). An
// array result is JSON like the rest when the response's "id", read before
// its "result" (as servers write them), is one of `json_results`: the
// requests whose answer is a list of something else (rangeFormatting's edits).
Message parse_message(std::string_view bytes, int max_depth, std::size_t max_symbols,
                      std::size_t max_symbol_bytes,
                      const std::vector<std::int64_t>& json_results = {});

// What symbols hold in memory: each one's own size and its name.
std::size_t symbol_bytes(const std::vector<symbols::Reported>& list);

// One edit of a rangeFormatting answer: `range` (in the server's position
// encoding and line count) replaced with `new_text`.
struct TextEdit {
  symbols::Span range;
  std::string new_text;
};

// The TextEdit[] of an answer's result (null: none); nullopt when it is not
// one (an entry without a range of unsigned positions or a string newText).
std::optional<std::vector<TextEdit>> text_edits(const nlohmann::json& result);

// `text` with `edits` made, each range read under `encoding` and `breaks`
// (symbols::LineIndex: a position past its line is its end). The edits may
// come in any order (answers to several requests together); the same edit
// twice counts once; insertions at one point keep their order. Errors
// (ErrorKind::kDelegateFailed, the message saying which): an edit whose end is
// before its start, edits that overlap, a result over `max_bytes`.
Result<std::string> apply_text_edits(std::string_view text, std::vector<TextEdit> edits,
                                     symbols::Encoding encoding, symbols::LineBreaks breaks,
                                     std::size_t max_bytes);

// The LSP position of byte `offset` of `text` (a code point's start), as a
// server counting `breaks` and code units of `encoding` gives it.
symbols::Position lsp_position(std::string_view text, std::size_t offset,
                               symbols::LineBreaks breaks, symbols::Encoding encoding);

}  // namespace editd::lsp
