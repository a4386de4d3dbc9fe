#include "server/checks/lsp_wire.h"

#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "server/checks/lsp_client.h"

namespace editd {

using json = nlohmann::json;

std::string file_uri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::optional<std::string> path_of_uri(std::string_view uri) {
  if (!uri.starts_with("file://")) return std::nullopt;
  uri.remove_prefix(7);
  if (uri.starts_with("localhost/")) uri.remove_prefix(9);
  auto value = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && value(uri[i + 1]) >= 0 && value(uri[i + 2]) >= 0) {
      out += static_cast<char>(value(uri[i + 1]) * 16 + value(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return out;
}

std::string language_id(const std::string& path) {
  auto dot = path.rfind('.');
  auto slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "plaintext";
  std::string ext = path.substr(dot + 1);
  static const std::map<std::string, std::string> kIds = {{"c", "c"},
                                                          {"h", "cpp"},
                                                          {"cc", "cpp"},
                                                          {"cpp", "cpp"},
                                                          {"cxx", "cpp"},
                                                          {"hh", "cpp"},
                                                          {"hpp", "cpp"},
                                                          {"hxx", "cpp"},
                                                          {"m", "objective-c"},
                                                          {"mm", "objective-cpp"},
                                                          {"py", "python"},
                                                          {"pyi", "python"},
                                                          {"js", "javascript"},
                                                          {"mjs", "javascript"},
                                                          {"cjs", "javascript"},
                                                          {"jsx", "javascriptreact"},
                                                          {"ts", "typescript"},
                                                          {"mts", "typescript"},
                                                          {"tsx", "typescriptreact"},
                                                          {"go", "go"},
                                                          {"rs", "rust"},
                                                          {"java", "java"},
                                                          {"rb", "ruby"},
                                                          {"sh", "shellscript"},
                                                          {"json", "json"},
                                                          {"md", "markdown"},
                                                          {"cs", "csharp"},
                                                          {"swift", "swift"},
                                                          {"kt", "kotlin"},
                                                          {"lua", "lua"},
                                                          {"php", "php"},
                                                          {"zig", "zig"}};
  auto it = kIds.find(ext);
  return it == kIds.end() ? ext : it->second;
}


namespace lsp {

namespace {


// An LSP position, or nullopt when `j` is not one.
std::optional<symbols::Position> position_of(const json& j) {
  if (!j.is_object()) return std::nullopt;
  auto line = j.find("line");
  auto character = j.find("character");
  if (line == j.end() || character == j.end() || !line->is_number_unsigned() ||
      !character->is_number_unsigned())
    return std::nullopt;
  return symbols::Position{line->get<std::uint64_t>(), character->get<std::uint64_t>()};
}

std::optional<symbols::Span> span_of(const json& j) {
  if (!j.is_object()) return std::nullopt;
  auto start = j.find("start");
  auto end = j.find("end");
  if (start == j.end() || end == j.end()) return std::nullopt;
  auto a = position_of(*start), b = position_of(*end);
  if (!a || !b) return std::nullopt;
  return symbols::Span{*a, *b};
}

// One DocumentSymbol or SymbolInformation; false for anything else (skipped).
// A name is cut at 1 KiB: nobody names a symbol with more.
bool reported_of(const json& j, symbols::Reported& out, bool& flat) {
  if (!j.is_object()) return false;
  auto name = j.find("name");
  auto kind = j.find("kind");
  if (name == j.end() || !name->is_string()) return false;
  out.name = name->get<std::string>().substr(0, 1024);
  out.kind = kind != j.end() && kind->is_number_unsigned() && kind->get<std::uint64_t>() <= 64
                 ? static_cast<std::uint32_t>(kind->get<std::uint64_t>())
                 : 0;
  if (auto loc = j.find("location"); loc != j.end()) {  // SymbolInformation
    flat = true;
    auto range = loc->is_object() ? span_of(loc->value("range", json())) : std::nullopt;
    if (!range) return false;
    out.range = *range;
    return true;
  }
  auto range = span_of(j.value("range", json()));
  if (!range) return false;
  out.range = *range;
  if (auto sel = span_of(j.value("selectionRange", json()))) out.selection = *sel;
  return true;
}

}  // namespace

// The tree of `list` (DocumentSymbol[] nested by children, or a flat
// SymbolInformation[]), at most `budget` symbols, depth-bounded.
void reported_list(const json& list, std::vector<symbols::Reported>& out, std::size_t depth,
                   std::size_t& budget, bool& flat) {
  if (!list.is_array()) return;
  for (const json& item : list) {
    if (budget == 0) return;
    symbols::Reported r;
    if (!reported_of(item, r, flat)) continue;
    --budget;
    if (auto kids = item.find("children"); kids != item.end() && depth < symbols::kMaxDepth)
      reported_list(*kids, r.children, depth + 1, budget, flat);
    out.push_back(std::move(r));
  }
}


}  // namespace lsp

}  // namespace editd
