// list: a directory's entries under the root, to a depth, paged.
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

Result<ops::ListRequest> decode_list(const json& p) {
  ParamDecoder d(p);
  ops::ListRequest r;
  std::optional<std::string> path;
  d.optional_path("path", path);
  if (path) r.path = std::move(*path);
  std::optional<std::uint64_t> depth, limit;
  d.optional_integer("depth", depth, 1);
  d.optional_integer("limit", limit, 1);
  if (d.ok() && depth && *depth > ops::kListMaxDepth)
    d.fail(invalid_param("depth", "must be at most " + std::to_string(ops::kListMaxDepth)));
  if (d.ok() && limit && *limit > ops::kListMaxLimit)
    d.fail(invalid_param("limit", "must be at most " + std::to_string(ops::kListMaxLimit)));
  r.depth = depth.value_or(1);
  r.limit = limit.value_or(ops::kListDefaultLimit);
  d.optional_string("cursor", r.cursor);
  std::optional<std::string> glob;
  d.optional_string("glob", glob);
  if (glob) r.filter.include.push_back(std::move(*glob));
  d.optional_string_list("exclude", r.filter.exclude, ops::kSearchMaxGlobs);
  d.optional_bool("includeIgnored", r.filter.include_ignored);
  d.optional_bool("includeHidden", r.filter.include_hidden);
  decode_session(d);
  return d.finish(std::move(r));
}

const char* kind_name_of(ops::ListEntry::Kind k) {
  switch (k) {
    case ops::ListEntry::Kind::kFile: return "file";
    case ops::ListEntry::Kind::kDirectory: return "directory";
    case ops::ListEntry::Kind::kSymlink: return "symlink";
    case ops::ListEntry::Kind::kOther: return "other";
  }
  return "other";
}

json encode_list(ops::Listed r) {
  json entries = json::array();
  for (ops::ListEntry& e : r.entries) {
    json j{{"path", std::move(e.path)}, {"kind", kind_name_of(e.kind)}, {"size", e.size}};
    if (e.text) j["text"] = *e.text;
    entries.push_back(std::move(j));
  }
  json j{{"path", std::move(r.path)}, {"entries", std::move(entries)}};
  if (r.next_cursor) j["nextCursor"] = *r.next_cursor;
  if (r.truncated_by) {
    j["truncated"] = true;
    j["truncatedBy"] = *r.truncated_by;
  }
  return j;
}

using texts::string_at;

// One line an entry: its path (a directory's with '/'), then what it is.
std::string render_list(const json& params, const json& result) {
  const json entries = result.value("entries", json::array());
  std::string out = string_at(result, "path") + ": " + std::to_string(entries.size()) +
                    (entries.size() == 1 ? " entry" : " entries") + "\n";
  for (const json& e : entries) {
    const std::string kind = string_at(e, "kind");
    out += string_at(e, "path");
    if (kind == "directory") {
      out += "/\n";
      continue;
    }
    if (kind == "file")
      out += "  " + std::to_string(e.value("size", std::uint64_t{0})) + " bytes" +
             (e.value("text", false) ? "" : ", binary") + "\n";
    else
      out += "  (" + kind + ")\n";
  }
  if (result.value("truncated", false))
    out += "(stopped: more than " + std::to_string(ops::kListMaxVisited) +
           " entries looked at; list a subdirectory or less depth)\n";
  if (result.contains("nextCursor"))
    out += "more entries: call list again with cursor \"" + string_at(result, "nextCursor") +
           "\"\n";
  return out;
}

}  // namespace

Method list() {
  using namespace schema;
  json kinds = {{"type", "string"}, {"enum", {"file", "directory", "symlink", "other"}}};
  return {
      .name = "list",
      .title = "List a directory",
      .description =
          "List the entries of a directory under the root, to find files to read or edit: "
          "each with its path relative to the root, its kind (file, directory, symlink, "
          "other), its size and, for a file, text (true when the file starts as UTF-8 without "
          "NUL bytes; false: binary, read_text will refuse it). depth 1 (the "
          "default) lists the directory's own entries; more goes down that many levels. "
          "Hidden names (a leading '.'), .git, and what .gitignore ignores (in a git "
          "repository at the root) are left out unless includeHidden / includeIgnored. "
          "Symbolic links are listed, never followed. A long listing comes in pages: pass "
          "nextCursor as cursor to list on. Errors: not_found, outside_root, io (ENOTDIR: "
          "a file).",
      .input_schema = object(
          {{"path", str("Optional: the directory, relative to the root (default: the root).")},
           {"depth", integer("Optional: how many levels to list, 1-16 (default 1).", 1)},
           {"glob", str("Optional: list only entries matching this glob (*, ?, [...]); "
                        "without '/' it is matched against the name, with '/' against the "
                        "path relative to the root. Directories are still gone into.")},
           {"exclude", {{"type", "array"},
                        {"items", {{"type", "string"}}},
                        {"description",
                         "Optional: globs of entries to leave out; a directory matching one "
                         "is not gone into."}}},
           {"includeIgnored", boolean("Optional: also list what .gitignore ignores.")},
           {"includeHidden", boolean("Optional: also list names starting with '.'.")},
           {"limit", integer("Optional: the most entries in one page, 1-2000 (default 200).", 1)},
           {"cursor", str("Optional: a previous page's nextCursor, to list on from there.")}},
          {}),
      .output_schema =
          {{"type", "object"},
           {"properties",
            {{"path", str("The directory listed.")},
             {"entries",
              {{"type", "array"},
               {"items",
                {{"type", "object"},
                 {"properties",
                  {{"path", {{"type", "string"}}},
                   {"kind", kinds},
                   {"size", {{"type", "integer"}}},
                   {"text", {{"type", "boolean"}}}}},
                 {"required", {"path", "kind", "size"}}}}}},
             {"nextCursor", str("Present when more entries follow: pass it as cursor.")},
             {"truncated", {{"type", "boolean"}}},
             {"truncatedBy", str("entries: the walk looked at its most entries.")}}},
           {"required", {"path", "entries"}}},
      .idempotent = true,
      .render = &render_list,
      .run = &run<&decode_list, &Operations::list, &encode_list>};
}

}  // namespace editd::methods
