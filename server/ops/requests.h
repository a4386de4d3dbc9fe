// What the operations take and give: each request and each outcome as the
// core sees it, with no JSON and no wire in sight.
//
// Each method's file (server/methods/*.cpp) decodes its params straight into
// its request here (the mode strings parsed once, into enums) and encodes
// the outcome as its result. The fields mean what
// docs/protocol.md says of the params and results they come from and go to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/ledger/ledger.h"
#include "edit/anchors/hashline.h"
#include "edit/match/replace.h"
#include "edit/patch/patch.h"
#include "edit/symbols/outline.h"
#include "edit/symbols/symbol_edit.h"
#include "edit/text/line_range.h"
#include "edit/text/text.h"
#include "server/checks/diagnostics.h"

namespace editd::ops {

// How read_text shows the lines: as they are, or as hashline's LINE~TAG|text.
enum class ReadFormat { kPlain, kHashline };

struct ReadRequest {
  std::string path;
  std::optional<std::uint64_t> first_line;  // 1-based; absent: 1
  std::optional<std::uint64_t> line_limit;  // the most lines to show; absent: all
  ReadFormat format = ReadFormat::kPlain;
  // The lines of this symbol (a name path, edit/symbols/outline.h) instead of
  // first_line and line_limit.
  std::optional<std::string> symbol;
};
// One symbol as the operations report it: a name path and the lines it holds.
struct SymbolLines {
  std::string name_path;
  std::string kind;  // LSP's SymbolKind, by name
  std::uint64_t start_line = 0;
  std::uint64_t end_line = 0;
  std::uint64_t depth = 0;
};
// The lines read_text shows, and the whole file's fingerprint.
struct Read {
  std::string content;
  ReadFormat format = ReadFormat::kPlain;
  std::string fingerprint;
  std::uint64_t total_lines = 0;
  std::uint64_t first_line = 1;
  std::uint64_t line_count = 0;
  std::optional<SymbolLines> symbol;  // when the request named one
};

// read_symbols: the file's symbols, as its language server reports them.
struct SymbolsRequest {
  std::string path;
  std::optional<std::uint64_t> depth;  // 0: the top level only; absent: every level
  std::uint64_t offset = 0;            // of the first listed, in the whole listing
  std::optional<std::uint64_t> limit;  // the most listed; absent: all from `offset`
};
struct Symbols {
  std::string fingerprint;  // of the bytes the server was asked about
  std::uint64_t total_lines = 0;
  std::vector<SymbolLines> symbols;  // in document order, from `offset`
  std::uint64_t offset = 0;
  std::uint64_t total_symbols = 0;  // in the whole listing at the depth asked
  bool truncated = false;           // more than kMaxSymbols: the first kept
};


struct FingerprintRequest {
  std::string path;
};
struct Fingerprint {
  std::string fingerprint;
  std::uint64_t size = 0;
};

// What every one-file mutation is asked with.
struct MutationRequest {
  std::string path;
  // The caller's picture of the file: conflict when the file is not that.
  std::optional<std::string> expected_fingerprint;
  bool dry_run = false;  // describe the change, write nothing
  // Whether a --format covering the file formats the call's lines (the
  // methods that write text; `format: false` on the wire).
  bool format = true;
};

struct WriteRequest : MutationRequest {
  std::string content;
};
struct CreateRequest : MutationRequest {
  std::string content;
};
struct InsertRequest : MutationRequest {
  std::uint64_t after_line = 0;  // 0: before the first line
  std::string text;
};
// set_format: what the fidelity rules otherwise keep, set explicitly; each
// absent member keeps the file's own.
struct FormatRequest : MutationRequest {
  std::optional<text::Eol> line_endings;  // kLf or kCrLf
  std::optional<bool> bom;
  std::optional<bool> final_newline;
};
// One edit of str_replace's edits[].
struct ReplaceEdit {
  std::string old_text;
  std::string new_text;
  bool replace_all = false;
  std::optional<std::uint64_t> expected_replacements;
};
struct ReplaceRequest : MutationRequest {
  std::string old_text;
  std::string new_text;
  bool replace_all = false;
  std::optional<std::uint64_t> expected_replacements;
  std::optional<match::Mode> matching;  // absent: --matching's
  // edits[]: when not empty, these in order instead of the four above.
  std::vector<ReplaceEdit> edits;
};
// One edit of edit_lines, its anchors as written: the operation parses them.
struct LineEdit {
  hashline::Kind kind = hashline::Kind::kReplace;
  std::string start;               // the replacement's first line, or the insertion's anchor
  std::optional<std::string> end;  // the replacement's last line
  std::string new_text;
};
struct LineEditsRequest : MutationRequest {
  std::vector<LineEdit> edits;
};

// edit_symbol: the symbol's lines replaced, or lines inserted before or after them.
struct SymbolEditRequest : MutationRequest {
  std::string symbol;  // a name path
  symbols::Placement placement = symbols::Placement::kReplace;
  std::string text;
};

// An anchor of edit_lines that stood at another line than it named, and the
// lines a change landed on: edit/'s own types.
using RebasedAnchor = hashline::RebasedAnchor;
using LineRange = text::LineRange;

// What the formatter did to a mutation's text (--format): its hunks that
// meet the lines the call changed, as written.
struct Formatted {
  std::string diff;  // from the call's text to the bytes as written
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  // The kept hunks' lines in the bytes as written (a removal: the line after the cut).
  std::vector<LineRange> lines;
  std::uint64_t dropped = 0;  // its hunks outside the call's lines, left out
  std::string hashline;       // `lines` in the hashline view, at most kFormattedViewLines
  bool hashline_truncated = false;
};
inline constexpr std::size_t kFormattedViewLines = 200;
// How the formatting of one file went, when a --format covers it.
struct FormatReport {
  std::string status;  // ok | failed | timeout | rejected | skipped
  std::optional<std::string> detail;     // when not ok
  std::optional<Formatted> formatted;    // ok, and it changed some of the call's lines
};

// What one edit of str_replace's edits[] did: its lines in the file as written.
struct EditOutcome {
  std::uint64_t replacements = 0;
  std::vector<LineRange> lines;
  std::string matched_by;
};
// What a one-file mutation did (or, dry, would do), and what each method adds.
struct Mutation {
  std::string fingerprint;
  std::string diff;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  std::optional<bool> created;                // write_text, create
  std::optional<std::uint64_t> replacements;  // str_replace
  std::optional<std::vector<LineRange>> lines;
  std::optional<std::string> matched_by;  // str_replace: the tier that matched
  std::optional<std::vector<EditOutcome>> edits;  // str_replace's edits[], each
  std::optional<std::vector<RebasedAnchor>> rebased;  // edit_lines
  std::optional<std::string> undo_id;  // absent when nothing was written or kept
  std::optional<std::string> change_id;  // the ledger's, when it recorded the change
  std::optional<diagnostics::Report> diagnostics;  // when a check covers the file written
  std::optional<SymbolLines> symbol;  // edit_symbol: the symbol as it was found
  std::optional<FormatReport> format;  // when a --format covers the file
};

struct PatchRequest {
  std::string patch;
  bool dry_run = false;
  bool format = true;  // as MutationRequest::format
  std::map<std::string, std::string> expected_fingerprints;  // path -> fingerprint
  // The rule every path inside the patch is held to: the one the door holds
  // its path params to (protocol::path_problem). Required.
  patch::PathRule path_rule = nullptr;
};
struct UndoRequest {
  std::string undo_id;
  bool dry_run = false;
};

// One file an apply_patch (or an undo) changed.
struct PatchedFile {
  std::string path;
  patch::Action action = patch::Action::kUpdate;
  std::optional<std::string> moved_to;
  std::uint64_t added = 0;
  std::uint64_t removed = 0;
  std::optional<std::string> fingerprint;  // absent for a delete
  bool overwritten = false;
  // The mode the patch set (git `new mode`): executable or not; absent: none.
  std::optional<bool> executable;
  bool mode_skipped = false;  // the patch set a mode the backend has no way to keep
  // An update whose every change the fidelity rules kept out (the file was
  // not written), in a patch that changes other files.
  bool unchanged = false;
  std::optional<diagnostics::Report> diagnostics;  // when a check covers the file written
  std::optional<FormatReport> format;              // when a --format covers the file written
};
// What an apply_patch or an undo did: each file, and one diff for them all.
struct Patched {
  std::vector<PatchedFile> files;
  std::string diff;
  std::optional<std::string> undo_id;
  std::optional<std::string> change_id;
};

// changes: a page of the ledger (server/ledger/ledger.h).
struct ChangesRequest {
  ledger::Filter filter;
};
using Changes = ledger::Page;

// revert: changes ("c12") and hunks ("c12:3") to take back, of the files
// `paths` alone when given.
struct RevertRequest {
  std::vector<std::string> changes;
  std::vector<std::string> hunks;
  std::vector<std::string> paths;
  bool dry_run = false;
};

// The files a connection knows that may have changed outside it (an
// inotify event, a stat scan), to be checked against what it knows
// (Operations::outside_changes).
struct OutsideRequest {
  std::vector<std::string> canonicals;
  std::size_t max_changes = 32;         // the rest are left for a later check
  std::size_t max_reads = 64;           // files read to be sure; the rest likewise
  std::size_t max_diff_bytes = 16 << 10;  // a longer diff is cut at a line
};
// One file changed outside the connection since it last read or wrote it.
struct OutsideChange {
  std::string canonical;
  std::string shown;
  // What the connection last read, wrote or was told of it, the diff's
  // start; nullopt: it was gone.
  std::optional<std::string> previous_fingerprint;
  std::optional<std::string> fingerprint;   // nullopt: the file is gone
  std::optional<std::string> diff;          // nullopt: the bytes known are no longer kept
  bool diff_truncated = false;
  // The new fingerprint is one that one of the connection's own recent
  // mutations of the file replaced: something put its edit back.
  bool reverted_own_edit = false;
};
struct OutsideChanges {
  std::vector<OutsideChange> changes;
  // Not checked now: a mutation held the file, the connection's own
  // requests changed what it knows meanwhile, or max_changes was reached.
  std::vector<std::string> deferred;
  bool truncated = false;  // some were deferred for max_changes or max_reads
};

// move, copy and delete (server/ops/files.cpp): what a directory's move or
// recursive removal may take at most, unless the call asks for less.
inline constexpr std::uint64_t kTreeFiles = 1000;
inline constexpr std::uint64_t kTreeBytes = 64ull << 20;
// And what a call may ask for at most.
inline constexpr std::uint64_t kMaxTreeFiles = 10000;
inline constexpr std::uint64_t kMaxTreeBytes = 256ull << 20;

// move and copy: `from` to `to`.
struct MoveRequest {
  std::string from;
  std::string to;
  bool overwrite = false;  // an existing file at `to` is replaced (its bytes kept for undo)
  std::optional<std::string> expected_fingerprint;  // of `from`, a file
  bool dry_run = false;
  std::uint64_t max_files = kTreeFiles;  // a directory's move
  std::uint64_t max_bytes = kTreeBytes;
};
struct DeleteRequest {
  std::string path;
  std::optional<std::string> expected_fingerprint;  // a file's
  bool dry_run = false;
  bool recursive = false;  // a directory and everything in it, within the bounds
  std::uint64_t max_files = kTreeFiles;
  std::uint64_t max_bytes = kTreeBytes;
};
// What a move, copy or delete did: apply_patch's result, and the
// directories a directory's move or removal took away after its files (or
// could not: something was put in them meanwhile).
struct FilesChanged : Patched {
  std::vector<std::string> removed_directories;
  std::vector<std::string> kept_directories;
};

}  // namespace editd::ops
