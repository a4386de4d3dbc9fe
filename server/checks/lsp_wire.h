// What a language server's answers mean to editd, the pure part of the LSP
// client (server/checks/lsp_client.h): file URIs, language ids, and the
// symbols of a documentSymbol answer. No I/O.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "edit/symbols/outline.h"

namespace editd::lsp {

// The symbols of a documentSymbol result (DocumentSymbol[] nested by
// children, or a flat SymbolInformation[]: `flat` is set, and nest() must
// build the tree), at most `budget` of them (it counts down), nested at most
// symbols::kMaxDepth deep. Entries that are not symbols are skipped.
void reported_list(const nlohmann::json& list, std::vector<symbols::Reported>& out,
                   std::size_t depth, std::size_t& budget, bool& flat);

}  // namespace editd::lsp
