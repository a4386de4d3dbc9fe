// Anthropic's text editor tool over the operations (anthropic_text_editor.h).
#include "server/doors/anthropic_text_editor.h"

#include <algorithm>

#include "edit/text/text.h"
#include "server/doors/bindings.h"
#include "server/doors/tool_text.h"

namespace editd {

using nlohmann::json;

namespace {

// A view of a file shows at most this much unless view_range asks for less
// (the same page as MCP's read_text).
constexpr std::uint64_t kViewLines = 2000;
constexpr std::size_t kViewBytes = 256 * 1024;
// A view of a directory: two levels, at most this many entries.
constexpr std::size_t kListEntries = 1000;

protocol::ToolResultBlock tool_error(std::string text) {
  protocol::ToolResultBlock r;
  r.content = std::move(text);
  r.is_error = true;
  return r;
}

// The tool's names for the inputs editd's messages mention: its str_replace
// takes old_str and new_str. (The others, edit_lines' edits and set_format's
// members, are not this tool's.)
const InputNames& editor_names() {
  static const InputNames kNames{.old_text = "old_str", .new_text = "new_str"};
  return kNames;
}

// editd's own account of an error (closest region, candidates, hints), after
// the line Anthropic documents for it, in the tool's names.
std::string details(const Error& e) {
  Error named = e;
  name_inputs(named, editor_names());
  std::string text = render_error(named);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// The documented texts first: "Error: File not found", "Error: No match found
// for replacement. ...", "Error: Found N matches for replacement text. ...",
// "Error: Permission denied. Cannot write to file."; then editd's details.
protocol::ToolResultBlock editor_error(const Error& e) {
  switch (e.kind) {
    case ErrorKind::kNotFound:
      return tool_error("Error: File not found\n\n" + details(e));
    case ErrorKind::kNoMatch:
      return tool_error(
          "Error: No match found for replacement. Please check your text and try again.\n\n" +
          details(e));
    case ErrorKind::kAmbiguous: {
      std::size_t n = 0;
      if (auto lines = e.data.find("lines"); lines != e.data.end() && lines->is_array())
        n = lines->size();
      return tool_error("Error: Found " + std::to_string(n) +
                        " matches for replacement text. Please provide more context to make a "
                        "unique match.\n\n" +
                        details(e));
    }
    case ErrorKind::kDenied:
      return tool_error("Error: Permission denied. Cannot write to file.\n\n" + details(e));
    default:
      return tool_error("Error: " + details(e));
  }
}

// What the checks said about a written file, after the success line.
std::string with_diagnostics(std::string text, const std::string& path,
                             const ops::Mutation& r) {
  std::string d = render_diagnostics(path, protocol::to_json(to_wire(r)));
  if (!d.empty()) text += "\n" + d;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// "N: text" per line, as Anthropic's documentation shows a view.
std::string numbered(std::string_view content, std::uint64_t first) {
  std::string out;
  const std::string normalized = text::normalize_eol(content);
  std::uint64_t n = first;
  for (std::string_view line : text::split_lines(normalized)) {
    if (!out.empty()) out += '\n';
    out += std::to_string(n++) + ": ";
    out += line;
  }
  return out;
}

// The view command: a file's numbered lines, or a directory's listing.
boost::asio::awaitable<protocol::ToolResultBlock> view(Operations& ops, RequestContext& ctx,
                                                       const protocol::TextEditorParams& p) {
  auto where = co_await ops.locate(ctx, p.path);
  if (!where) co_return editor_error(where.error());
  if (where->stat.type == FileStat::Type::kDirectory) {
    if (p.view_start) co_return tool_error("Error: view_range cannot be used on a directory");
    auto listing = co_await ops.list_directory(ctx, where->canonical, 2, kListEntries);
    if (!listing) co_return editor_error(listing.error());
    std::string out = "Files and directories up to 2 levels deep in " + where->shown +
                      ", excluding hidden items:";
    for (const FsBackend::DirEntry& e : listing->entries)
      out += "\n" + e.path + (e.directory ? "/" : "");
    if (listing->truncated)
      out += "\n(the first " + std::to_string(kListEntries) +
             " entries only: view a subdirectory to see the rest)";
    protocol::ToolResultBlock r;
    r.content = std::move(out);
    co_return r;
  }

  ops::ReadRequest q;
  q.path = p.path;
  std::uint64_t start = 1;
  std::optional<std::uint64_t> end;
  if (p.view_start) {
    if (*p.view_start < 1)
      co_return tool_error("Error: Invalid `view_range`: its first element must be at least 1");
    if (*p.view_end != -1 && *p.view_end < *p.view_start)
      co_return tool_error(
          "Error: Invalid `view_range`: its second element must be -1 (to the end) or at "
          "least its first");
    start = static_cast<std::uint64_t>(*p.view_start);
    if (*p.view_end != -1) end = static_cast<std::uint64_t>(*p.view_end);
  }
  q.first_line = start;
  const std::uint64_t asked = end ? *end - start + 1 : kViewLines;
  q.line_limit = std::min(asked, kViewLines);
  auto r = co_await ops.read_text(ctx, std::move(q));
  if (!r) {
    if (r.error().kind == ErrorKind::kLineOutOfRange)
      co_return tool_error("Error: Invalid `view_range`: the file has " +
                           std::to_string(r.error().data.value("totalLines", 0)) + " lines\n\n" +
                           details(r.error()));
    co_return editor_error(r.error());
  }
  std::string_view content = r->content;
  std::uint64_t shown_lines = r->line_count;
  // The page's byte bound: whole lines only.
  if (content.size() > kViewBytes) {
    std::size_t cut = content.rfind('\n', kViewBytes);
    cut = cut == std::string_view::npos ? kViewBytes : cut + 1;
    shown_lines =
        static_cast<std::uint64_t>(std::count(content.begin(), content.begin() + cut, '\n'));
    if (shown_lines == 0) shown_lines = 1;
    content = content.substr(0, cut);
  }
  protocol::ToolResultBlock out;
  out.content = numbered(content, start);
  if (p.max_characters && out.content.size() > *p.max_characters) {
    out.content.resize(*p.max_characters);
    out.content += "\n[output truncated at max_characters " + std::to_string(*p.max_characters) +
                   ": view a smaller view_range]";
    co_return out;
  }
  const std::uint64_t last = start + shown_lines - 1;
  const std::uint64_t wanted_last = end ? std::min(*end, r->total_lines) : r->total_lines;
  if (shown_lines > 0 && last < wanted_last)
    out.content += "\n[lines " + std::to_string(last + 1) + "-" + std::to_string(wanted_last) +
                   " not shown: view with view_range [" + std::to_string(last + 1) + ", " +
                   (end ? std::to_string(*end) : std::string("-1")) + "] to read on]";
  co_return out;
}

}  // namespace

boost::asio::awaitable<Result<protocol::ToolResultBlock>> anthropic_text_editor(
    Operations& ops, RequestContext& ctx, protocol::TextEditorParams p) {
  protocol::ToolResultBlock result;
  if (p.problem) {
    result = tool_error("Error: " + *p.problem);
  } else if (p.command == "view") {
    result = co_await view(ops, ctx, p);
  } else if (p.command == "str_replace") {
    if (!p.old_str) {
      result = tool_error("Error: Parameter `old_str` is required for command: str_replace");
    } else {
      ops::ReplaceRequest q;
      q.path = p.path;
      q.old_text = *p.old_str;
      q.new_text = p.new_str.value_or("");
      auto r = co_await ops.str_replace(ctx, std::move(q));
      if (!r)
        result = editor_error(r.error());
      else
        result.content =
            with_diagnostics("Successfully replaced text at exactly one location.", p.path, *r);
    }
  } else if (p.command == "create") {
    if (!p.file_text) {
      result = tool_error("Error: Parameter `file_text` is required for command: create");
    } else {
      ops::WriteRequest q;
      q.path = p.path;
      q.content = *p.file_text;
      auto r = co_await ops.write_text(ctx, std::move(q));
      if (!r)
        result = editor_error(r.error());
      else
        result.content =
            with_diagnostics((r->created.value_or(false) ? "File created successfully at: "
                                                         : "File overwritten successfully at: ") +
                                 p.path,
                             p.path, *r);
    }
  } else if (p.command == "insert") {
    // text_editor_20250728 names the text insert_text; text_editor_20250429 new_str.
    const std::optional<std::string>& text = p.insert_text ? p.insert_text : p.new_str;
    if (!p.insert_line) {
      result = tool_error("Error: Parameter `insert_line` is required for command: insert");
    } else if (!text) {
      result = tool_error("Error: Parameter `insert_text` is required for command: insert");
    } else {
      ops::InsertRequest q;
      q.path = p.path;
      q.after_line = *p.insert_line;
      q.text = *text;
      auto r = co_await ops.insert(ctx, std::move(q));
      if (!r)
        result = editor_error(r.error());
      else
        result.content = with_diagnostics(
            *p.insert_line == 0
                ? std::string("Successfully inserted text at the beginning of the file.")
                : "Successfully inserted text after line " + std::to_string(*p.insert_line) + ".",
            p.path, *r);
    }
  } else if (p.command == "undo_edit") {
    result = tool_error(
        "Error: undo_edit is not a command of text_editor_20250429 or later: edit the file "
        "back with str_replace");
  } else {
    result = tool_error("Error: Unknown command `" + p.command +
                        "`. Allowed commands are: view, create, str_replace, insert");
  }
  result.tool_use_id = std::move(p.tool_use_id);
  co_return result;
}

}  // namespace editd
