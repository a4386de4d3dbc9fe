// The commit: how every mutation's file changes become the tree, one
// pipeline for all of them (a one-file edit is a batch of one).
//
// A mutation first plans its changes with its files held (lock chains,
// bytes in the budget, the processes' lock): what each file becomes, as
// StagedChanges. Pipeline::commit then runs, in this one order for every
// method: the approval (--approve ask: of all the steps at once, or of each), the checks of each
// file before the write (--check, --lsp), the last cancellation check (after
// it the request is `committed` and completes), the write, the ACP report of
// each file written and what the connection knows of it (--require-read),
// the undo record, and, with the other processes and the readers let in, the
// checks after the write. The write is one file's atomic write through the
// backend (its splices as pieces when nothing needs the new bytes whole), or
// the backend's batch with its journal, rolled back on a failure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/fs_backend.h"
#include "edit/change/hunks.h"
#include "edit/change/restore.h"
#include "edit/change/splice.h"
#include "server/checks/diagnostics.h"
#include "server/ledger/ledger.h"
#include "server/ops/requests.h"

namespace editd {

// A FileChange (backends/fs_backend.h: what the file becomes, or that it
// goes) staged for the commit, with what the commit needs around it: the file
// before, how it is shown, and what the history and the reports take. A
// one-file mutation's transform stages its change in one of these itself
// (Transformed::staged, server/ops/pipeline.h); apply_patch and undo plan
// theirs from their outcomes.
struct StagedChange : FileChange {
  std::string shown;
  std::optional<std::string> previous;  // the content before; nullopt: the file did not exist
  // The file's own mode and owner before, where the change may cost them (it
  // removes the file or sets its mode); the commit fills it for the history.
  std::optional<FileAttributes> previous_attributes;

  // A one-file edit that nothing needs whole (no approval, no checks, no ACP
  // session): the new content is these splices of `previous`'s body (after
  // its `bom` bytes), written as pieces and never made.
  std::optional<std::vector<splice::Splice>> splices;
  std::size_t bom = 0;
  // The new content of a spliced change of `current` (the content before),
  // as pieces: views of `current` and of `splices`.
  std::vector<std::string_view> pieces(std::string_view current) const {
    return splice::pieces(current.substr(0, bom), current.substr(bom), *splices);
  }
  // What the mutation knows already; else the commit works it out.
  // fingerprint() of the new content:
  std::optional<std::string> fingerprint;
  // fingerprint() of `previous` ("": unknown):
  std::string previous_fingerprint;
  // `restores` is decided: what the undo history keeps of `previous` instead
  // of the whole of it (nullopt: the whole).
  bool surveyed = false;
  std::optional<std::vector<restore::Restore>> restores;
  // For the ACP report: the first changed line, 1-based (nullopt: the first
  // line where the texts differ).
  std::optional<std::uint64_t> line;
  // What the ledger records of the change (edit/change/hunks.h), made by
  // the commit while the contents are at hand.
  bool hunked = false;
  std::vector<hunks::Hunk> hunks;
  // The formatter's hunks of this step (--format): from the text the call
  // made (old) to the bytes as written (new), set by the mutation that ran
  // the formatter; the ledger records them beside `hunks`
  // (ledger::FileRecord::formatted). Empty: no formatter changed anything.
  std::vector<hunks::Hunk> formatted;
};

// How the ledger records a commit: an edit, or an undo or revert of the
// changes and hunks named (c12, c12:3).
struct LedgerNote {
  ledger::Origin origin = ledger::Origin::kEdit;
  std::vector<std::string> reverts;
};

// How the steps are written.
enum class Writes {
  // One write step, through FsBackend::write (or write_pieces): its failure
  // is the backend's error, as it words it.
  kOneFile,
  // Every step through one FsBackend::apply_batch (new contents first,
  // removals last, as the caller orders them); on a failure every file
  // already changed is restored and the error says what the method failed on.
  kBatch,
};

// What a commit did: the undo entry's id, if the history kept it (the
// ledger's change id when the ledger is on: any change it records can be
// undone), and the checks' report of each step a check covers (nullopt for the others).
struct Committed {
  std::optional<std::string> undo_id;
  // The ledger's id of the change ("c42"), when the ledger is on.
  std::optional<std::string> change_id;
  std::vector<std::optional<diagnostics::Report>> reports;
};

// The result entry of one step (undo's, revert's), its diff appended to `diff`.
ops::PatchedFile describe_step(const StagedChange& s, std::string& diff);

// Each checked file's report, in the entry of `result` that names the file
// written (apply_patch's and undo's results).
void attach_reports(const std::vector<StagedChange>& steps, Committed& committed,
                    ops::Patched& result);

}  // namespace editd
