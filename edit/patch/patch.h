// apply_patch without I/O: parsing a multi-file patch and computing what every
// touched file becomes.
//
// Two formats are accepted and told apart by their first lines: the Codex
// envelope (`*** Begin Patch` ... `*** End Patch`) that OpenAI models are trained
// to write, and unified diffs as `git diff` and `diff -u` print them. Both parse
// into the same Patch. Applying is split in two so that the server can take
// per-path locks and read every input (touched_paths), then call apply(), which
// is pure, and finally write every outcome atomically with rollback: editd
// applies a patch entirely or not at all. docs/patch.md describes the grammar,
// the leniencies, how chunks are located and the error data.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/error.h"

namespace editd::patch {

enum class Format { kCodex, kUnified };
enum class Action { kAdd, kDelete, kUpdate, kMove };

// "codex" | "unified".
std::string_view format_name(Format format);
// The wire names "add" | "delete" | "update" | "move".
std::string_view action_name(Action action);

// One line of a chunk, without its ' ', '-' or '+' prefix. An added line of a
// unified diff whose patch line ended in "\r\n" ends in "\r": that CR is
// content, as git apply reads it. In a Codex envelope it is the line's ending.
struct ChunkLine {
  enum class Kind { kContext, kRemoved, kAdded };
  Kind kind;
  std::string text;
};

// A contiguous change within one file: its context and removed lines (the "old
// lines") are searched for in the file and replaced by its context and added
// lines. A chunk without old lines is a pure insertion.
struct Chunk {
  std::vector<ChunkLine> lines;
  // Codex `@@ <line>`: the chunk lies after the first line matching this one.
  std::optional<std::string> anchor;
  // Codex `*** End of File`: the old lines are looked for at the end of the file first.
  bool end_of_file = false;
  // Unified `@@ -l,s +l,s @@`: the old start line and line count, as hints.
  std::optional<std::size_t> old_start;
  std::optional<std::size_t> old_count;
  // Unified `\ No newline at end of file` after an old or a new line.
  bool old_no_newline = false;
  bool new_no_newline = false;
  // Unified: per line of `lines`, whether its patch line ended in "\r\n"
  // (kept in an added line's text; for the others, what git's bytes were).
  std::vector<bool> cr;
  std::size_t patch_line = 0;  // 1-based line of the chunk's header (or first line)
};

struct FilePatch {
  Action action = Action::kUpdate;
  std::string path;                    // the source for kMove
  std::optional<std::string> move_to;  // kMove only; may equal path (then it is an update)
  // kUpdate and kMove: the changes, in file order (a unified rename may have none).
  // kDelete (unified only): the deleted content, checked against the file.
  std::vector<Chunk> chunks;
  std::string content;         // kAdd: the new file's bytes
  std::size_t patch_line = 0;  // 1-based line of the operation's header
  // A unified entry with git's extended headers (`diff --git` and an `index`
  // line): made by git from the file's real bytes, so it is applied byte for
  // byte as git apply would when its old lines match the file exactly.
  bool git = false;
  // Unified git header `new mode` / `new file mode`: 100755 (true) or 100644
  // (false); nullopt: the entry sets no mode. A git entry that only changes
  // the mode is a kUpdate without chunks.
  std::optional<bool> executable;
};

struct Patch {
  Format format = Format::kCodex;
  std::vector<FilePatch> files;  // in patch order; a path may appear more than once
};

// Why `path` cannot name a file, as the end of a message ("must not be
// empty"); nullopt when it can. The caller gives the rule its own path params
// follow (protocol::path_problem), so that a path inside a patch is held to it.
using PathRule = std::optional<std::string> (*)(std::string_view path);

// Detects the format and parses. CRLF line endings in the patch are read as LF.
// Errors: patch_parse with data.line (1-based line of the patch), data.expected
// (what was expected there) and data.found (the line's text, when there is one);
// the message states all three. A patch without any file operation, an Update
// without chunks, an unknown, misspelled or misplaced `*** ...` header, a Codex
// header or marker indented inside an Update, a stray line among a unified
// diff's file headers, a unified hunk whose counts disagree with its body (then
// also data.counts {expected, found}: {old, new}) and binary or copy diffs are
// patch_parse errors, and so is a path that `path_problem` refuses or that is
// not UTF-8.
Result<Patch> parse(std::string_view text, PathRule path_problem);

// Every path the patch reads or writes (sources and destinations), as written in
// the patch, without duplicates, in order of first mention.
std::vector<std::string> touched_paths(const Patch& patch);

// The state of a touched path before the patch. A path missing from the map
// given to apply() is read as kMissing.
struct FileInput {
  enum class State { kMissing, kFile, kDirectory };
  State state = State::kMissing;
  std::string bytes;  // kFile: the whole file as stored
};

// What to write for one final file state. A kMove removes `path` and writes
// `moved_to`; otherwise `path` gets new_bytes, or is deleted when it is nullopt.
// No path appears in two outcomes.
struct FileOutcome {
  std::string path;
  Action action = Action::kUpdate;
  std::optional<std::string> moved_to;
  // A view of the input's bytes (`inputs` of apply() must outlive it);
  // nullopt: `path` did not exist.
  std::optional<std::string_view> old_bytes;
  std::optional<std::string> new_bytes;  // nullopt: deleted
  // The unified diff from old to new content (labels "a/PATH" or /dev/null,
  // "b/DEST"), and its counts of added and removed lines.
  std::string diff;
  std::size_t added = 0;
  std::size_t removed = 0;
  bool overwritten = false;  // an Add or the Move's destination replaced a file
  // The mode the patch sets on the file written (FilePatch::executable, the
  // last one for the path); nullopt: it sets none.
  std::optional<bool> executable;
};

// Applies every operation in order to an in-memory copy of `inputs` and returns
// one outcome per path whose state the patch sets, in order of first mention. A
// path touched several times yields its final state; a move followed by an
// update of the destination is still one kMove.
//
// Text: each chunk is an edit of whole lines that becomes byte splices
// (change/splice.h): bytes outside what a chunk changes never change, context lines
// keep the file's own bytes, added lines take the file's dominant line ending
// (an added line ending in "\r" is written with CRLF), the BOM stays, and a file
// keeps its final-newline state unless a unified diff's `\ No newline at end of
// file` markers on a hunk that reaches the end of the file say otherwise. Add
// writes each `+` line followed by "\n".
//
// Errors (nothing is applied):
// - not_found with data.path when a Delete, Update or Move source does not exist;
// - is_directory with data.path when an operation's path is a directory;
// - not_text with data.path when a file to update is not UTF-8 text;
// - patch_apply with data.path, data.hunk (1-based, within that file's
//   operation), data.patchLine, data.context (the lines that were not found,
//   joined with "\n"), data.fromLine (the 1-based line the search started at) and
//   data.closest {startLine, endLine, text, similarity} when the file is not
//   empty; also when two chunks of one file overlap.
Result<std::vector<FileOutcome>> apply(const Patch& patch,
                                       const std::map<std::string, FileInput>& inputs);
// The outcomes' old_bytes view the inputs: a temporary would leave them dangling.
Result<std::vector<FileOutcome>> apply(const Patch& patch,
                                       std::map<std::string, FileInput>&& inputs) = delete;

}  // namespace editd::patch
