// What a language server's answers mean to editd, the pure part of the LSP
// client (server/checks/lsp_client.h): file URIs, language ids, and a
// message read in one pass, a documentSymbol answer straight into symbols.
// No I/O.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "edit/symbols/outline.h"

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
  // answer (editd asks nothing else that answers an array) and never held as
  // JSON; `json` then has no "result".
  std::optional<SymbolList> symbols;
};

// Reads `bytes` in one pass, in time and memory linear in their size: values
// nested deeper than `max_depth` are dropped (walking a message recurses), and
// of a result's symbols at most `max_symbols` are kept, holding at most about
// `max_symbol_bytes`, nested at most symbols::kMaxDepth deep (entries that are
// not symbols are skipped with what they hold; a name is cut at 1 KiB).
Message parse_message(std::string_view bytes, int max_depth, std::size_t max_symbols,
                      std::size_t max_symbol_bytes);

// What symbols hold in memory: each one's own size and its name.
std::size_t symbol_bytes(const std::vector<symbols::Reported>& list);

}  // namespace editd::lsp
