// read_symbols and edit_symbol: a file's symbols as its language server reports them, and an edit
// of one.
#include <string>
#include <utility>

#include "protocol/params.h"
#include "server/methods/methods.h"
#include "server/methods/schemas.h"
#include "server/methods/shared.h"
#include "server/methods/texts.h"

namespace editd::methods {

using nlohmann::json;
using protocol::ParamDecoder;

namespace {

Result<ops::SymbolsRequest> decode_read_symbols(const json& p) {
  ParamDecoder d(p);
  ops::SymbolsRequest r;
  d.path("path", r.path);
  d.optional_integer("depth", r.depth, 0);
  std::optional<std::uint64_t> offset;
  d.optional_integer("offset", offset, 0);
  r.offset = offset.value_or(0);
  d.optional_integer("limit", r.limit, 1);
  decode_session(d);
  return d.finish(std::move(r));
}

json encode_symbols(ops::Symbols r) {
  json symbols = json::array();
  for (const ops::SymbolLines& s : r.symbols) symbols.push_back(encode_symbol(s));
  const std::uint64_t next = r.offset + r.symbols.size();
  json j{{"fingerprint", std::move(r.fingerprint)},
         {"totalLines", r.total_lines},
         {"totalSymbols", r.total_symbols},
         {"symbols", std::move(symbols)}};
  if (r.offset > 0) j["offset"] = r.offset;
  if (next < r.total_symbols) j["nextOffset"] = next;
  if (r.truncated) j["truncated"] = true;
  return j;
}

Result<ops::SymbolEditRequest> decode_edit_symbol(const json& p) {
  ParamDecoder d(p);
  ops::SymbolEditRequest r;
  decode_mutation(d, r);
  decode_format(d, r.format);
  d.string("symbol", r.symbol);
  static constexpr std::pair<const char*, symbols::Placement> kPlacements[] = {
      {"replace", symbols::Placement::kReplace},
      {"insertBefore", symbols::Placement::kInsertBefore},
      {"insertAfter", symbols::Placement::kInsertAfter}};
  bool placed = false;
  for (const auto& [name, placement] : kPlacements) {
    std::optional<std::string> text;
    d.optional_string(name, text);
    if (!d.ok() || !text) continue;
    if (placed) {
      d.fail(invalid_param(name, "only one of replace, insertBefore and insertAfter may be given"));
      break;
    }
    placed = true;
    r.placement = placement;
    r.text = std::move(*text);
  }
  if (d.ok() && !placed)
    d.fail(invalid_param("replace",
                         "missing: give the new lines as replace (in place of the "
                         "symbol's lines), insertBefore or insertAfter"));
  return d.finish(std::move(r));
}

using texts::lines_text;
using texts::number_at;
using texts::string_at;

// read_symbols: a header, then one line a symbol, indented by its depth.
std::string render_symbols(const json& params, const json& result) {
  const json symbols = result.value("symbols", json::array());
  const std::uint64_t total = number_at(result, "totalSymbols"),
                      first = number_at(result, "offset");
  std::string out = string_at(params, "path") + ": ";
  if (symbols.size() < total)
    out += "symbols " + std::to_string(first + 1) + "-" + std::to_string(first + symbols.size()) +
           " of " + std::to_string(total);
  else
    out += std::to_string(symbols.size()) + (symbols.size() == 1 ? " symbol" : " symbols");
  out += " (" + std::to_string(number_at(result, "totalLines")) + " lines), fingerprint " +
         string_at(result, "fingerprint");
  if (result.value("truncated", false)) out += " (more not listed: ask for less depth)";
  out += "\n";
  for (const json& s : symbols) {
    out += std::string(2 * number_at(s, "depth"), ' ') + string_at(s, "namePath") + " (" +
           string_at(s, "kind") + ") " +
           lines_text(number_at(s, "startLine"), number_at(s, "endLine")) + "\n";
  }
  if (result.contains("nextOffset"))
    out += std::to_string(total - first - symbols.size()) +
           " more not shown: call read_symbols with offset " +
           std::to_string(number_at(result, "nextOffset")) + " to list on\n";
  return out;
}

}  // namespace

Method read_symbols() {
  using namespace schema;
  return {.name = "read_symbols",
          .title = "List a file's symbols",
          .description =
              "The symbols of a source file (classes, functions, methods...) as its language "
              "server reports them, each with its name path (Outer/inner; same-named siblings "
              "such as overloads as name[0], name[1]), kind and lines (decorators and comments "
              "right above it included). Then read one with read_text's symbol, and edit one "
              "with edit_symbol, by that name path. depth 0 lists the top level only. A long "
              "listing comes in pages: nextOffset is the offset to list on from. Errors: "
              "unsupported (no language server covers the file), timeout, not_found, not_text.",
          .input_schema = object(
              {{"path", path_param()},
               {"depth", integer("Optional: the deepest level to list, 0 for the top level "
                                 "(default every level).",
                                 0)},
               {"offset", integer("Optional: how many symbols of the listing to skip (a previous "
                                  "page's nextOffset; default 0).",
                                  0)},
               {"limit", integer("Optional: the most symbols to list.", 1)}},
              {"path"}),
          .output_schema = {{"type", "object"},
                            {"properties",
                             {{"fingerprint", str("The whole file's fingerprint.")},
                              {"totalLines", {{"type", "integer"}}},
                              {"totalSymbols", {{"type", "integer"}}},
                              {"offset", {{"type", "integer"}}},
                              {"nextOffset", {{"type", "integer"}}},
                              {"symbols", {{"type", "array"}, {"items", symbol_schema()}}},
                              {"truncated", {{"type", "boolean"}}}}},
                            {"required", {"fingerprint", "totalLines", "totalSymbols", "symbols"}}},
          .idempotent = true,
          .paged = true,
          .needs_language_server = true,
          .render = &render_symbols,
          .run = &run<&decode_read_symbols, &Operations::read_symbols, &encode_symbols>};
}

Method edit_symbol() {
  using namespace schema;
  return {.name = "edit_symbol",
          .title = "Replace a symbol, or insert beside it",
          .description =
              std::string(
                  "Replace a whole symbol (a function, method, class...) named by its name path "
                  "as read_symbols lists it, or insert whole lines before or after it: no need to "
                  "quote the old text. Give exactly one of replace (the symbol's new lines, all "
                  "of them: what read_text with symbol shows is what is replaced; empty deletes "
                  "it), insertBefore or insertAfter. The new lines take the symbol's "
                  "indentation: the first line's, and the rest keep their depth relative to it. "
                  "The language server is asked about the file as it is now, so the lines can "
                  "never be those of another version. Errors: no_match (no symbol has that name "
                  "path: the closest names are listed), ambiguous (several do: each candidate is "
                  "listed; use its whole name path), unsupported (no language server covers the "
                  "file, or the symbol shares its lines with another), timeout, conflict.") +
              kErrorsNote,
          .input_schema = object(
              {{"path", path_param()},
               {"symbol", str("The symbol's name path, e.g. Parser/parse or Parser/parse[1].")},
               {"replace", str("The symbol's new lines, in place of all of its lines.")},
               {"insertBefore", str("Lines to insert before the symbol.")},
               {"insertAfter", str("Lines to insert after the symbol.")},
               {"expectedFingerprint", expected_fingerprint_param()},
               {"dryRun", dry_run_param()},
           {"format", format_param()}},
              {"path", "symbol"}),
          .output_schema =
              mutation_output({{"symbol", symbol_schema()},
                               {"lines", {{"type", "array"}, {"items", line_range_schema()}}}}),
          .mutates = true,
          .destructive = true,
          .needs_language_server = true,
          .render = &render_mutation,
          .run = &run<&decode_edit_symbol, &Operations::edit_symbol, &encode_mutation>};
}

}  // namespace editd::methods
