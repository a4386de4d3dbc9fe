// Anthropic's text editor tool over the operations (anthropic_text_editor.h).
#include "server/doors/anthropic_text_editor.h"

#include <algorithm>

#include "edit/text/text.h"
#include "protocol/params.h"
#include "server/methods/schemas.h"
#include "server/methods/shared.h"
#include "server/methods/texts.h"

namespace editd {

using nlohmann::json;
using protocol::lenient_integer;
using protocol::lenient_string;

namespace {

// The tool_use block's `input` as the model wrote it, plus the block's id
// when the host passes it. Decoding never fails on what the model got wrong:
// `problem` says what, and the result is an is_error tool_result a model can
// act on.
struct TextEditorInput {
  std::string command;
  std::string path;
  std::optional<std::int64_t> view_start, view_end;  // view_range [start, end]; end -1: to the end
  std::optional<std::string> old_str, new_str, file_text, insert_text;
  std::optional<std::uint64_t> insert_line;
  std::optional<std::uint64_t> max_characters;
  std::optional<std::string> tool_use_id;
  std::optional<std::string> problem;
};

// A tool_result block: `content` is what the model reads.
struct ToolResultBlock {
  std::optional<std::string> tool_use_id;
  std::string content;
  bool is_error = false;
};

Result<TextEditorInput> decode_text_editor(const json& p) {
  if (!p.is_object()) return invalid_param("params", "must be the tool's input object");
  TextEditorInput r;
  std::optional<std::string> problem;
  r.command = lenient_string(p, "command", problem).value_or("");
  r.path = lenient_string(p, "path", problem).value_or("");
  r.old_str = lenient_string(p, "old_str", problem);
  r.new_str = lenient_string(p, "new_str", problem);
  r.file_text = lenient_string(p, "file_text", problem);
  r.insert_text = lenient_string(p, "insert_text", problem);
  r.tool_use_id = lenient_string(p, "tool_use_id", problem);
  if (auto line = lenient_integer(p, "insert_line", problem)) {
    if (*line < 0)
      problem = problem.value_or("Parameter `insert_line` must be 0 or more");
    else
      r.insert_line = static_cast<std::uint64_t>(*line);
  }
  if (auto m = lenient_integer(p, "max_characters", problem)) {
    if (*m < 1)
      problem = problem.value_or("Parameter `max_characters` must be 1 or more");
    else
      r.max_characters = static_cast<std::uint64_t>(*m);
  }
  if (auto range = p.find("view_range"); range != p.end() && !range->is_null()) {
    if (!range->is_array() || range->size() != 2 || !(*range)[0].is_number() ||
        !(*range)[1].is_number()) {
      problem = problem.value_or(
          "Parameter `view_range` must be two integers [start, end] (end -1: to the end)");
    } else {
      auto start = protocol::integer_value((*range)[0], "view_range[0]", problem);
      auto end = protocol::integer_value((*range)[1], "view_range[1]", problem);
      if (start && end) {
        r.view_start = start;
        r.view_end = end;
      }
    }
  }
  if (!problem && r.command.empty()) problem = "Parameter `command` is required";
  if (!problem && r.path.empty()) problem = "Parameter `path` is required";
  if (!problem)
    if (auto bad = protocol::path_problem(r.path)) problem = "Parameter `path` " + *bad;
  r.problem = std::move(problem);
  return r;
}

json encode_tool_result(ToolResultBlock r) {
  json j{{"type", "tool_result"}, {"content", std::move(r.content)}};
  if (r.tool_use_id) j["tool_use_id"] = std::move(*r.tool_use_id);
  if (r.is_error) j["is_error"] = true;
  return j;
}

// A view of a file shows at most this much unless view_range asks for less
// (the same page as MCP's read_text).
constexpr std::uint64_t kViewLines = 2000;
constexpr std::size_t kViewBytes = 256 * 1024;
// A view of a directory: two levels, at most this many entries.
constexpr std::size_t kListEntries = 1000;

ToolResultBlock tool_error(std::string text) {
  ToolResultBlock r;
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
ToolResultBlock editor_error(const Error& e) {
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

// What the formatter and the checks said about a written file, after the success line.
std::string with_diagnostics(std::string text, const std::string& path, const ops::Mutation& r) {
  json checks = json::object();  // the report alone: the diff is not copied to be ignored
  methods::put_diagnostics(checks, r.diagnostics);
  methods::put_format(checks, r.format);
  if (std::string f = render_format(path, checks); !f.empty()) text += "\n" + f;
  std::string d = render_diagnostics(path, checks);
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
boost::asio::awaitable<ToolResultBlock> view(Operations& ops, RequestContext& ctx,
                                             const TextEditorInput& p) {
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
    ToolResultBlock r;
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
  ToolResultBlock out;
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

// The tool's call: its command run over the operations.
boost::asio::awaitable<Result<ToolResultBlock>> text_editor_call(Operations& ops,
                                                                 RequestContext& ctx,
                                                                 TextEditorInput p) {
  ToolResultBlock result;
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

// A view writes nothing.
bool only_views(const json& params) {
  if (!params.is_object()) return false;
  auto command = params.find("command");
  return command != params.end() && *command == "view";
}

// The tool_result's content: what the model reads.
std::string render_text_editor(const json& /*params*/, const json& result) {
  return texts::string_at(result, "content");
}

}  // namespace

Method methods::anthropic_text_editor() {
  using namespace schema;
  return {
      .name = "anthropic_text_editor",
      .title = "Anthropic's text editor tool",
      .description =
          "For hosts of Anthropic's text editor tool (str_replace_based_edit_tool, "
          "text_editor_20250728 and text_editor_20250429): pass the tool_use input exactly as "
          "the model wrote it (and tool_use_id, optionally); the result is the tool_result to "
          "send back. command view shows a file as numbered lines (\"12: text\"; view_range "
          "[start, end], end -1 to the end) or a directory two levels deep; str_replace "
          "replaces old_str, which must match one place, with new_str; create writes "
          "file_text (a new file, or over an existing one); insert puts insert_text (new_str "
          "in text_editor_20250429) after line insert_line (0: the top). Matching, line "
          "endings and checks are editd's. Failures are results with is_error and a message "
          "that says what to do.",
      .input_schema = object(
          {{"command",
            {{"type", "string"},
             {"enum", {"view", "create", "str_replace", "insert"}},
             {"description", "What to do."}}},
           {"path", path_param()},
           {"view_range",
            {{"type", "array"},
             {"items", {{"type", "integer"}}},
             {"minItems", 2},
             {"maxItems", 2},
             {"description", "view: [start, end] lines, 1-based; end -1 reads to the end."}}},
           {"old_str", str("str_replace: the text to replace, copied from the file.")},
           {"new_str",
            str("str_replace: the replacement (empty deletes); insert in text_editor_20250429: "
                "the text.")},
           {"file_text", str("create: the file's content.")},
           {"insert_line", integer("insert: the line after which the text goes (0: the top).", 0)},
           {"insert_text", str("insert: the text.")},
           {"max_characters", integer("view: truncate the view past this many characters.", 1)},
           {"tool_use_id", str("Optional: the tool_use block's id, echoed in the tool_result.")}},
          {"command", "path"}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"type", {{"type", "string"}, {"enum", {"tool_result"}}}},
                          {"tool_use_id", {{"type", "string"}}},
                          {"content", str("What the model reads.")},
                          {"is_error", {{"type", "boolean"}}}}},
                        {"required", {"type", "content"}}},
      .mutates = true,
      .destructive = true,
      .provider_native = true,
      .reads_only = &only_views,
      .render = &render_text_editor,
      .run = &methods::run<&decode_text_editor, &text_editor_call, &encode_tool_result>};
}

}  // namespace editd
