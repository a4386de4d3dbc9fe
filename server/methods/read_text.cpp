// read_text: a file's lines, whole or a range, or one symbol's.
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

Result<ops::ReadRequest> decode_read_text(const json& p) {
  ParamDecoder d(p);
  ops::ReadRequest r;
  d.path("path", r.path);
  d.optional_integer("line", r.first_line, 1);
  d.optional_integer("limit", r.line_limit, 1);
  std::optional<std::string> format;
  d.optional_string("format", format);
  if (d.ok() && format && *format == "hashline")
    r.format = ops::ReadFormat::kHashline;
  else if (d.ok() && format && *format != "plain")
    d.fail(invalid_param("format", "must be \"plain\" or \"hashline\""));
  d.optional_string("symbol", r.symbol);
  if (d.ok() && r.symbol && (r.first_line || r.line_limit))
    d.fail(invalid_param("symbol", "names the lines to read: send it without line and limit"));
  decode_session(d);
  return d.finish(std::move(r));
}

json encode_read_text(ops::Read r) {
  json j = json::object();
  j["content"] = std::move(r.content);
  j["fingerprint"] = std::move(r.fingerprint);
  j["totalLines"] = r.total_lines;
  j["line"] = r.first_line;
  j["lineCount"] = r.line_count;
  if (r.format == ops::ReadFormat::kHashline) j["format"] = "hashline";
  if (r.symbol) j["symbol"] = encode_symbol(*r.symbol);
  return j;
}

using texts::lines_text;
using texts::number_at;
using texts::string_at;

// A header (the path, the lines shown of the total, the fingerprint, how to
// read on), then the lines.
std::string render_read_text(const json& params, const json& result) {
  const std::string path = string_at(params, "path");
  const std::uint64_t total = number_at(result, "totalLines");
  const std::uint64_t first = number_at(result, "line");
  const std::uint64_t count = number_at(result, "lineCount");
  const std::string fp = string_at(result, "fingerprint");
  std::string header = path + ": ";
  if (auto s = result.find("symbol"); s != result.end() && s->is_object()) {
    header += string_at(*s, "namePath") + " (" + string_at(*s, "kind") + "), ";
    if (auto next = result.find("nextLine"); next == result.end())
      return header + lines_text(first, first + count - 1) + " of " + std::to_string(total) +
             ", fingerprint " + fp + "\n" + string_at(result, "content");
  }
  if (count == 0) {
    header += "no lines shown of " + std::to_string(total) + ", fingerprint " + fp;
  } else {
    const std::uint64_t last = first + count - 1;
    header += "lines " + std::to_string(first) + "-" + std::to_string(last) + " of " +
              std::to_string(total) + ", fingerprint " + fp;
    if (first == 1 && last >= total) {
      header += " (the whole file)";
    } else if (last < total) {
      header += "; lines " + std::to_string(last + 1) + "-" + std::to_string(total) +
                " not shown: call read_text with line " + std::to_string(last + 1) + " to read on";
    }
  }
  return header + "\n" + string_at(result, "content");
}

}  // namespace

Method read_text() {
  using namespace schema;
  return {
      .name = "read_text",
      .title = "Read a text file",
      .description =
          "Read a UTF-8 text file, whole or a range of lines. Returns the text and the whole "
          "file's fingerprint; pass that fingerprint as expectedFingerprint to a later edit so "
          "that it fails with conflict instead of overwriting changes made since. Read before "
          "editing: str_replace needs oldText copied exactly from the file. Over MCP long files "
          "come in pages (at most 2000 lines and about 10000 bytes): the result says which "
          "lines it holds and the line to pass to read on (nextLine). "
          "Errors: not_found, is_directory, not_text (a binary file), line_out_of_range, "
          "outside_root.",
      .input_schema = object(
          {{"path", path_param()},
           {"line", integer("Optional: the first line to return, 1-based (default 1).", 1)},
           {"limit", integer("Optional: the most lines to return.", 1)},
           {"format",
            {{"type", "string"},
             {"enum", {"plain", "hashline"}},
             {"description",
              "Optional: hashline returns each line as LINE~TAG|text, the anchors "
              "edit_lines takes (default plain)."}}},
           {"symbol", str("Optional, with a language server (--lsp): the lines of this symbol "
                          "instead of line and limit, by its name path as read_symbols lists it "
                          "(Outer/inner).")}},
          {"path"}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"content", str("The lines returned, line endings kept.")},
                          {"format", str("hashline when the lines are anchored.")},
                          {"fingerprint", str("The whole file's fingerprint.")},
                          {"totalLines", {{"type", "integer"}}},
                          {"line", {{"type", "integer"}}},
                          {"lineCount", {{"type", "integer"}}},
                          {"symbol", symbol_schema()},
                          {"nextLine",
                           {{"type", "integer"},
                            {"description",
                             "On MCP: the line to pass as line to read on; absent when this "
                             "page reaches the last line."}}}}},
                        {"required",
                         {"content", "fingerprint", "totalLines", "line", "lineCount"}}},
      .idempotent = true,
      .paged = true,
      .render = &render_read_text,
      .run = &run<&decode_read_text, &Operations::read_text, &encode_read_text>};
}

}  // namespace editd::methods
