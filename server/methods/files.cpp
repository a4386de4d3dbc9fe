// move, copy and delete: files (and, for move and delete, directories)
// moved, copied or removed whole, as apply_patch would (server/ops/files.cpp).
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

// maxFiles and maxBytes: the bounds of a directory's move or removal.
void decode_tree_bounds(ParamDecoder& d, std::uint64_t& max_files, std::uint64_t& max_bytes) {
  std::optional<std::uint64_t> files, bytes;
  d.optional_integer("maxFiles", files, 1);
  d.optional_integer("maxBytes", bytes, 0);
  if (d.ok() && files && *files > ops::kMaxTreeFiles)
    d.fail(invalid_param("maxFiles", "must be at most " + std::to_string(ops::kMaxTreeFiles)));
  if (d.ok() && bytes && *bytes > ops::kMaxTreeBytes)
    d.fail(invalid_param("maxBytes", "must be at most " + std::to_string(ops::kMaxTreeBytes)));
  if (files) max_files = *files;
  if (bytes) max_bytes = *bytes;
}

Result<ops::MoveRequest> decode_move_or_copy(const json& p, bool directories) {
  ParamDecoder d(p);
  ops::MoveRequest r;
  d.path("from", r.from);
  d.path("to", r.to);
  d.optional_bool("overwrite", r.overwrite);
  d.optional_string("expectedFingerprint", r.expected_fingerprint);
  d.optional_bool("dryRun", r.dry_run);
  if (directories) decode_tree_bounds(d, r.max_files, r.max_bytes);
  decode_session(d);
  return d.finish(std::move(r));
}
Result<ops::MoveRequest> decode_move(const json& p) { return decode_move_or_copy(p, true); }
Result<ops::MoveRequest> decode_copy(const json& p) { return decode_move_or_copy(p, false); }

Result<ops::DeleteRequest> decode_delete(const json& p) {
  ParamDecoder d(p);
  ops::DeleteRequest r;
  d.path("path", r.path);
  d.optional_string("expectedFingerprint", r.expected_fingerprint);
  d.optional_bool("dryRun", r.dry_run);
  d.optional_bool("recursive", r.recursive);
  decode_tree_bounds(d, r.max_files, r.max_bytes);
  decode_session(d);
  return d.finish(std::move(r));
}

json encode_files_changed(ops::FilesChanged c) {
  std::vector<std::string> removed = std::move(c.removed_directories);
  std::vector<std::string> kept = std::move(c.kept_directories);
  json j = encode_patched(std::move(static_cast<ops::Patched&>(c)));
  if (!removed.empty()) j["removedDirectories"] = std::move(removed);
  if (!kept.empty()) j["keptDirectories"] = std::move(kept);
  return j;
}

std::string render_files(std::string_view method, const json& params, const json& result) {
  // apply_patch's text, under this method's name.
  std::string out = render_apply_patch(params, result);
  out.replace(0, std::string_view("apply_patch").size(), method);
  auto list = [&](const char* key, const char* what) {
    const json dirs = result.value(key, json::array());
    if (dirs.empty()) return;
    std::string line = what;
    bool first = true;
    for (const json& d : dirs) {
      line += (first ? " " : ", ") + d.get<std::string>();
      first = false;
    }
    out += (out.empty() || out.back() == '\n' ? "" : "\n") + line + "\n";
  };
  auto dry = params.find("dryRun");
  const bool dry_run = dry != params.end() && dry->is_boolean() && dry->get<bool>();
  list("removedDirectories", dry_run ? "Directories it would remove:" : "Directories removed:");
  list("keptDirectories", "Directories left (not empty after the files went):");
  return out;
}
std::string render_move(const json& params, const json& result) {
  return render_files("move", params, result);
}
std::string render_copy(const json& params, const json& result) {
  return render_files("copy", params, result);
}
std::string render_delete(const json& params, const json& result) {
  return render_files("delete", params, result);
}

json files_output(bool directories) {
  using namespace schema;
  json properties = {
      {"files", {{"type", "array"}, {"items", patch_file_output()}}},
      {"diff", str("Every file's unified diff (a rename of unchanged bytes shows none; a file "
                   "that is not text shows one \"Binary files ... differ\" line).")},
      {"undoId", str("Pass it to undo to put everything back (absent for a dry run).")},
      {"changeId", str("The ledger's id of the change, when the ledger is on.")}};
  if (directories) {
    properties["removedDirectories"] = {
        {"type", "array"},
        {"items", {{"type", "string"}}},
        {"description", "Directories removed once their files were gone (or, dry, that would be)."}};
    properties["keptDirectories"] = {
        {"type", "array"},
        {"items", {{"type", "string"}}},
        {"description", "Directories left because something was in them after the files went."}};
  }
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", {"files", "diff"}}};
}

json max_files_param(const char* verb) {
  return schema::integer(std::string("Optional, default ") + std::to_string(ops::kTreeFiles) +
                             " (at most " + std::to_string(ops::kMaxTreeFiles) +
                             "): the most files a directory's " + verb +
                             " may take; past it nothing is changed and the error (too_large) "
                             "gives the counts.",
                         1);
}
json max_bytes_param(const char* verb) {
  return schema::integer(std::string("Optional, default ") + std::to_string(ops::kTreeBytes) +
                             " (at most " + std::to_string(ops::kMaxTreeBytes) +
                             "): the most bytes of files a directory's " + verb + " may take.",
                         0);
}

}  // namespace

Method move() {
  using namespace schema;
  return {
      .name = "move",
      .title = "Move or rename a file or directory",
      .description =
          std::string(
              "Move (rename) a file, or a directory with everything in it, to `to`, a path that "
              "names the new location itself (not a directory to put it in). The file keeps its "
              "bytes, mode and extended attributes; one undoId puts it back under its old name. "
              "A directory moves only to a path where nothing is, as its files (at most "
              "maxFiles/maxBytes), its emptied directories removed after; a symbolic link "
              "anywhere in it refuses the move. Errors: not_found (no `from`), exists (something "
              "is at `to`: pass overwrite: true to replace a file), is_directory (`to` is a "
              "directory), too_large (past the bounds), conflict (expectedFingerprint), "
              "unsupported (a symbolic link), outside_root.") +
          kErrorsNote,
      .input_schema = object(
          {{"from", str("The file or directory to move, relative to the root.")},
           {"to", str("Its new path, relative to the root; missing parent directories are made.")},
           {"overwrite",
            boolean("Optional, default false: replace a file already at `to` (its content goes "
                    "to the undo). Never merges directories.")},
           {"expectedFingerprint",
            str("Optional, for a file: the fingerprint read_text returned; if the file changed "
                "since, nothing is moved and the error is conflict.")},
           {"dryRun", dry_run_param()},
           {"maxFiles", max_files_param("move")},
           {"maxBytes", max_bytes_param("move")}},
          {"from", "to"}),
      .output_schema = files_output(true),
      .mutates = true,
      .destructive = true,  // with overwrite; and it removes the old name
      .render = &render_move,
      .run = &run<&decode_move, &Operations::move, &encode_files_changed>};
}

Method copy() {
  using namespace schema;
  return {
      .name = "copy",
      .title = "Copy a file",
      .description =
          std::string(
              "Copy a file's bytes (text or binary) to a new file at `to`, a path that names the "
              "copy itself. The copy keeps the executable bit, not the owner, the other mode "
              "bits or extended attributes (like cp without -p). Copies files only, never "
              "directories or symbolic links. Errors: not_found, exists (a file is at `to`: "
              "pass overwrite: true to replace it), is_directory, conflict "
              "(expectedFingerprint), unsupported (a symbolic link), outside_root.") +
          kErrorsNote,
      .input_schema = object(
          {{"from", str("The file to copy, relative to the root.")},
           {"to", str("The copy's path, relative to the root; missing parent directories are "
                      "made.")},
           {"overwrite",
            boolean("Optional, default false: replace a file already at `to` (its content goes "
                    "to the undo).")},
           {"expectedFingerprint",
            str("Optional: the fingerprint read_text returned for `from`; if it changed since, "
                "nothing is copied and the error is conflict.")},
           {"dryRun", dry_run_param()}},
          {"from", "to"}),
      .output_schema = files_output(false),
      .mutates = true,
      .idempotent = true,  // again: exists, or (overwrite) the same bytes
      .destructive = true,
      .render = &render_copy,
      .run = &run<&decode_copy, &Operations::copy, &encode_files_changed>};
}

Method delete_() {
  using namespace schema;
  return {
      .name = "delete",
      .title = "Delete a file or directory",
      .description =
          std::string(
              "Delete a file, or a directory: an empty one, or with recursive: true everything "
              "in it up to maxFiles files and maxBytes bytes (past them nothing is deleted and "
              "the error gives the counts). The undoId gives every deleted file back. Never "
              "follows or deletes symbolic links: one inside the directory refuses the call. "
              "Errors: not_found, denied (a directory not empty without recursive), too_large "
              "(past the bounds), conflict (expectedFingerprint), unsupported (a symbolic "
              "link), outside_root.") +
          kErrorsNote,
      .input_schema = object(
          {{"path", str("The file or directory to delete, relative to the root.")},
           {"expectedFingerprint",
            str("Optional, for a file: the fingerprint read_text returned; if the file changed "
                "since, nothing is deleted and the error is conflict.")},
           {"recursive",
            boolean("Optional, default false: delete a directory that is not empty, with "
                    "everything in it.")},
           {"dryRun", dry_run_param()},
           {"maxFiles", max_files_param("delete")},
           {"maxBytes", max_bytes_param("delete")}},
          {"path"}),
      .output_schema = files_output(true),
      .mutates = true,
      .idempotent = true,  // again: not_found, nothing more removed
      .destructive = true,
      .render = &render_delete,
      .run = &run<&decode_delete, &Operations::remove, &encode_files_changed>};
}

}  // namespace editd::methods
