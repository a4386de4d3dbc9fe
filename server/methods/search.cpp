// search: lines that match a literal or a regular expression, under a
// directory of the root or in one file, each with the anchor edit_lines takes.
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

Result<ops::SearchRequest> decode_search(const json& p) {
  ParamDecoder d(p);
  ops::SearchRequest r;
  d.string("pattern", r.pattern);
  if (d.ok() && r.pattern.empty()) d.fail(invalid_param("pattern", "must not be empty"));
  if (d.ok() && r.pattern.size() > ops::kSearchMaxPattern)
    d.fail(invalid_param("pattern",
                         "must be at most " + std::to_string(ops::kSearchMaxPattern) + " bytes"));
  std::optional<std::string> path;
  d.optional_path("path", path);
  if (path) r.path = std::move(*path);
  d.optional_bool("regex", r.regex);
  d.optional_bool("caseSensitive", r.case_sensitive);
  std::optional<bool> ignore_case;
  d.optional_bool("ignoreCase", ignore_case);
  if (ignore_case) r.case_sensitive = !*ignore_case;
  struct Bounded {
    const char* name;
    std::uint64_t& out;
    std::uint64_t min, max;
  };
  std::optional<std::uint64_t> context;
  d.optional_integer("context", context, 0);
  if (context) r.before = r.after = *context;
  for (Bounded b : {Bounded{"before", r.before, 0, ops::kSearchMaxContext},
                    Bounded{"after", r.after, 0, ops::kSearchMaxContext},
                    Bounded{"limit", r.limit, 1, ops::kSearchMaxLimit},
                    Bounded{"maxFiles", r.max_files, 1, ops::kSearchMaxFiles},
                    Bounded{"timeoutMs", r.timeout_ms, 1, ops::kSearchMaxTimeoutMs}}) {
    std::optional<std::uint64_t> v;
    d.optional_integer(b.name, v, b.min);
    if (d.ok() && v && *v > b.max)
      d.fail(invalid_param(b.name, "must be at most " + std::to_string(b.max)));
    if (v) b.out = *v;
  }
  if (d.ok() && context && *context > ops::kSearchMaxContext)
    d.fail(invalid_param("context", "must be at most " + std::to_string(ops::kSearchMaxContext)));
  d.optional_string("cursor", r.cursor);
  d.optional_string_list("glob", r.filter.include, ops::kSearchMaxGlobs);
  d.optional_string_list("exclude", r.filter.exclude, ops::kSearchMaxGlobs);
  d.optional_bool("includeIgnored", r.filter.include_ignored);
  d.optional_bool("includeHidden", r.filter.include_hidden);
  decode_session(d);
  return d.finish(std::move(r));
}

json encode_line(ops::SearchLine l) {
  json j{{"line", l.line}, {"anchor", std::move(l.anchor)}, {"text", std::move(l.text)}};
  if (l.cut) j["cut"] = true;
  return j;
}

json encode_search(ops::Searched r) {
  json hits = json::array();
  for (ops::SearchHit& h : r.hits) {
    json j = encode_line(std::move(h.line));
    j["path"] = std::move(h.path);
    if (!h.before.empty()) {
      json b = json::array();
      for (ops::SearchLine& l : h.before) b.push_back(encode_line(std::move(l)));
      j["before"] = std::move(b);
    }
    if (!h.after.empty()) {
      json a = json::array();
      for (ops::SearchLine& l : h.after) a.push_back(encode_line(std::move(l)));
      j["after"] = std::move(a);
    }
    hits.push_back(std::move(j));
  }
  json j{{"hits", std::move(hits)},
         {"filesScanned", r.files_scanned},
         {"filesWithHits", r.files_with_hits},
         {"skipped",
          {{"binary", r.skipped_binary},
           {"tooLarge", r.skipped_too_large},
           {"unreadable", r.skipped_unreadable}}}};
  if (r.next_cursor) j["nextCursor"] = *r.next_cursor;
  if (r.stopped_by) {
    j["truncated"] = true;
    j["truncatedBy"] = *r.stopped_by;
  }
  return j;
}

using texts::string_at;

std::string render_line(const json& l, const std::string& path, char mark) {
  std::string out = path + ":" + string_at(l, "anchor") + mark + string_at(l, "text");
  if (l.value("cut", false)) out += " [line cut]";
  return out + "\n";
}

// grep's shape: PATH:LINE~TAG|text for a hit, PATH:LINE~TAG-text for context.
std::string render_search(const json& params, const json& result) {
  const json hits = result.value("hits", json::array());
  std::string out = std::to_string(hits.size()) + (hits.size() == 1 ? " hit" : " hits") + " in " +
                    std::to_string(result.value("filesWithHits", 0)) + " of " +
                    std::to_string(result.value("filesScanned", 0)) + " files scanned\n";
  for (const json& h : hits) {
    const std::string path = string_at(h, "path");
    for (const json& l : h.value("before", json::array())) out += render_line(l, path, '-');
    out += render_line(h, path, '|');
    for (const json& l : h.value("after", json::array())) out += render_line(l, path, '-');
    if (h.contains("before") || h.contains("after")) out += "--\n";
  }
  if (result.contains("truncatedBy"))
    out += "(stopped by " + string_at(result, "truncatedBy") + ")\n";
  if (result.contains("nextCursor"))
    out += "more: call search again with the same params and cursor \"" +
           string_at(result, "nextCursor") + "\"\n";
  return out;
}

}  // namespace

Method search() {
  using namespace schema;
  json line = {{"type", "object"},
               {"properties",
                {{"line", {{"type", "integer"}}},
                 {"anchor", {{"type", "string"}}},
                 {"text", {{"type", "string"}}},
                 {"cut", {{"type", "boolean"}}}}},
               {"required", {"line", "anchor", "text"}}};
  json hit = line;
  hit["properties"]["path"] = {{"type", "string"}};
  hit["properties"]["before"] = {{"type", "array"}, {"items", line}};
  hit["properties"]["after"] = {{"type", "array"}, {"items", line}};
  hit["required"].push_back("path");
  json globs = {{"type", "array"}, {"items", {{"type", "string"}}}};
  return {
      .name = "search",
      .title = "Search files for text",
      .description =
          "Find the lines that contain a literal text (the default) or match a regular "
          "expression (regex: true, PCRE2 syntax, UTF-8) in the files under a directory of the "
          "root (default: all of it) or in one file. Each hit gives the path, the line number, "
          "the line's text (a very long line is cut: cut is true) and its anchor LINE~TAG: pass anchors "
          "straight to edit_lines to change those lines, no read_text needed. Case-sensitive "
          "unless ignoreCase. context (or before/after) adds lines around each hit. "
          "glob / exclude choose files by name (*.cpp) or path (src/*). Hidden files, .git, "
          "binary files and what .gitignore ignores are skipped unless asked; links are never "
          "followed. At most limit hits a page: pass nextCursor as cursor, with "
          "the same params, to go on. A search that stops early says why (truncatedBy: limit, "
          "bytes, files, time). Errors: invalid_params (a bad regex: the message says where), "
          "not_found, outside_root.",
      .input_schema = object(
          {{"pattern", str("The text to find, or with regex: true a PCRE2 regular expression.")},
           {"path", str("Optional: the directory or file to search, relative to the root "
                        "(default: the whole root).")},
           {"regex", boolean("Optional: pattern is a regular expression (default: a literal).")},
           {"ignoreCase", boolean("Optional: match regardless of case (default false).")},
           {"caseSensitive", boolean("Optional: the opposite of ignoreCase (default true).")},
           {"context", integer("Optional: lines shown before and after each hit, 0-10.", 0)},
           {"before", integer("Optional: lines shown before each hit, 0-10.", 0)},
           {"after", integer("Optional: lines shown after each hit, 0-10.", 0)},
           {"glob", {{"type", "array"},
                     {"items", {{"type", "string"}}},
                     {"description",
                      "Optional: search only files matching one of these globs (*, ?, [...]); "
                      "without '/' matched against the name, with '/' against the path from "
                      "the root."}}},
           {"exclude", {{"type", "array"},
                        {"items", {{"type", "string"}}},
                        {"description",
                         "Optional: globs of files or directories to skip."}}},
           {"includeIgnored", boolean("Optional: also search what .gitignore ignores.")},
           {"includeHidden", boolean("Optional: also search names starting with '.'.")},
           {"limit", integer("Optional: the most hits in one page, 1-1000 (default 100).", 1)},
           {"maxFiles", integer("Optional: the most files to scan (default 200000).", 1)},
           {"timeoutMs", integer("Optional: stop after this long, at most 60000 (default "
                                 "10000).", 1)},
           {"cursor", str("Optional: a previous page's nextCursor, to go on from there.")}},
          {"pattern"}),
      .output_schema =
          {{"type", "object"},
           {"properties",
            {{"hits", {{"type", "array"}, {"items", hit}}},
             {"filesScanned", {{"type", "integer"}}},
             {"filesWithHits", {{"type", "integer"}}},
             {"skipped",
              {{"type", "object"},
               {"properties",
                {{"binary", {{"type", "integer"}}},
                 {"tooLarge", {{"type", "integer"}}},
                 {"unreadable", {{"type", "integer"}}}}}}},
             {"nextCursor", str("Present when more may follow: pass it as cursor.")},
             {"truncated", {{"type", "boolean"}}},
             {"truncatedBy", str("limit, bytes, files or time: what stopped the page.")}}},
           {"required", {"hits", "filesScanned", "filesWithHits", "skipped"}}},
      .idempotent = true,
      .render = &render_search,
      .run = &run<&decode_search, &Operations::search, &encode_search>};
}

}  // namespace editd::methods
