// The operations' pipeline: PRIVATE to server/ops/, included only by
// server/ops/*.cpp (a door sees the operations through operations.h alone).
//
// Each mutation follows the same pipeline: resolve the path to its canonical
// form, join that path's lock chain, read through the backend, check the
// caller's expected fingerprint, compute the new bytes in edit/ (pure), write
// through the backend, and describe the change (fingerprint, diff, counts).
// Large transforms run on the thread pool so that the I/O thread stays free.
//
// Pipeline holds what every operation shares (the options, the lock chains,
// the pool, the undo history, the checks, the byte budget, the views) and the
// steps they take: the holds (holds.cpp, read.cpp), the one-file mutation
// (mutate.cpp), the commit (commit.cpp, commit.h), a held file's symbols
// (symbols.cpp). Operations owns one; its methods run on it.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <functional>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/fs_backend.h"
#include "edit/anchors/hashline.h"
#include "edit/change/format_scope.h"
#include "edit/change/restore.h"
#include "edit/change/splice.h"
#include "edit/symbols/outline.h"
#include "edit/text/text.h"
#include "server/checks/checks.h"
#include "support/byte_budget.h"
#include "server/ops/commit.h"
#include "support/lock_chain.h"
#include "server/ops/operations.h"
#include "server/ops/ops_options.h"
#include "server/ops/requests.h"
#include "server/ops/undo_history.h"
#include "server/ops/last_seen.h"
#include "server/ops/views.h"

namespace editd {

// Error builders shared by the operations (outside coroutines: GCC 12
// mis-compiles braced JSON initializers inside a coroutine body).
Error read_only_error(const std::string& path);
Error conflict_error(const std::string& shown, const std::string& expected,
                     const std::optional<std::string>& current);
// line_out_of_range: `param` names a line past the file's `total` lines.
Error line_out_of_range(std::uint64_t line, std::size_t total, std::string_view param);
// no_change for an edit whose difference from the file the byte-fidelity
// rules kept out (`before`, `after`: what the caller asked to replace, and by
// what): which rule, and which call does what was asked.
Error kept_unchanged(const std::string& shown, std::string_view before, std::string_view after);
// A step removes a file where the backend cannot (an ACP client): denied,
// reason "unsupported".
Error unsupported_removal(const std::string& shown);

// Text param `param` checked as editd takes text (text::check_text), an
// error naming the param.
Result<void> check_param_text(std::string_view s, std::string_view param);

// read_text decodes files above this size on the thread pool; smaller ones
// on the I/O thread (one linear pass). Every mutation's transform, and
// apply_patch's apply, run on the pool whatever the size: their cost
// depends on the request (oldText, the patch), not on the file alone. On a
// 64 KiB file of short lines, a write_text whose every line differs took
// 168 ms (the diff), a replaceAll of 32,000 lines 138 ms, and a miss of 500
// short lines 35 ms (the closest-region search): on the I/O thread each
// would hold up every connection. The exceptions are the transforms whose
// cost is known small before they run (RunsHere): a str_replace whose
// oldText occurs exactly once, verbatim, in a small file; an insert, and a
// new file, of little text.
inline constexpr std::size_t kOffloadBytes = 64 * 1024;
inline constexpr std::size_t kInlineDiffLines = 256;

// What a request holds of the file bytes in flight (byte_budget.h), as
// multiples of its files' sizes: a mutation the bytes read, the bytes it
// makes and the diff; a read the bytes and what it answers; a fingerprint
// the bytes.
inline constexpr std::uint64_t kMutationHold = 3;
inline constexpr std::uint64_t kReadHold = 2;

// The current state of a file as a mutation sees it.
struct Current {
  std::string canonical;
  std::string shown;                 // display path
  std::optional<std::string> bytes;  // nullopt: does not exist (or is a directory)
  bool is_directory = false;
  std::string fingerprint;  // of bytes; empty when the file does not exist
  // What this connection last read or wrote of the file, when that differs
  // from `fingerprint`: the caller's picture of the file is out of date.
  std::optional<std::string> outdated_fingerprint;
  // Nothing after the transform needs the new bytes whole (no approval, no
  // checks, no ACP session to tell): a spliced change is written as pieces.
  bool lean = false;
};

// What a transform produces: the file's change, staged for the commit as it
// will be written, and the method's own result fields.
struct Transformed {
  // The transform sets its `bytes`, or its `splices` of the current body
  // (after `bom` bytes of BOM) while the new bytes are not made: compute()
  // makes them unless the Current is lean; then the diff is made around the
  // splices and the write takes pieces. mutate() fills in the rest (the path,
  // the fingerprints, the file before, what the undo history keeps) and
  // hands this very change to the commit, a batch of one.
  StagedChange staged;
  ops::Mutation result;
  // The text the caller asked to replace and its replacement (views of the
  // request, or of the file), when they differ: a change that leaves the
  // bytes as they were then answers no_change, naming the rule that kept
  // them, never a plain success.
  std::optional<std::pair<std::string_view, std::string_view>> asked;
  // Set when the call asked for text other than the file's in every case
  // (edit_lines): a change that leaves the bytes as they were then answers
  // no_change with this message, never a plain success.
  std::string if_unchanged;
  // The diff compares the whole bytes, a BOM included: a BOM added or
  // removed shows as a change of line 1, as git shows it (set_format).
  bool diff_bom = false;
};
using Transform = std::function<Result<Transformed>(const Current&)>;
// `change` staged as `splices` of `doc`'s body (made into bytes by compute()
// when needed).
Result<Transformed> spliced(const text::Document& doc, std::vector<splice::Splice> splices,
                            Transformed change);

// Whether the transform costs so little on this file that it runs on the
// I/O thread, saving the hops to the pool and back: a few linear passes over
// at most kOffloadBytes and a diff of at most kInlineDiffLines lines, known
// before it runs. Null: always the pool.
using RunsHere = std::function<bool(const Current&)>;
// A new file of little content: its diff is its lines, nothing to compare.
RunsHere new_file_runs_here(const std::string& content);
// What a mutation must learn of the file before its transform runs, with
// the chain held and the file read (edit_symbol asks the language server).
// An error ends the mutation before anything is written.
using Prepare = std::function<boost::asio::awaitable<Result<void>>(const Current&)>;

// What the format step (format.cpp) made of one file's new bytes.
struct FormatStep {
  ops::FormatReport report;
  // The bytes to write instead of the call's, when a formatter's hunk was kept.
  std::optional<std::string> bytes;
  // The kept hunks: lines of the call's text, and of `bytes`.
  std::vector<format_scope::Hunk> kept;
  // The formatter's hunks from the call's bytes to `bytes`, for the ledger.
  std::vector<hunks::Hunk> hunks;
  // The hashline snapshot of `bytes`, for the view of the lines the reply shows.
  std::shared_ptr<const hashline::Snapshot> snapshot;
};
// The call's own `lines` (of its text) mapped onto the bytes the format
// step made: shifted by the kept hunks above them, widened over one they meet.
std::vector<ops::LineRange> map_lines(const std::vector<ops::LineRange>& lines,
                                      const FormatStep& step);

class Pipeline {
 public:
  Pipeline(const OpsOptions& options, LockChains& locks, boost::asio::thread_pool& pool);

  const OpsOptions& options() const { return options_; }
  boost::asio::thread_pool& pool() { return pool_; }
  UndoHistory& history() { return history_; }
  Checks& checks() { return checks_; }
  Views& views() { return views_; }
  LastSeen& last_seen() { return last_seen_; }
  LockChains& locks() { return locks_; }

  // A one-file mutation (mutate.cpp): resolve, hold, read and check the
  // file, prepare, run the transform (here or on the pool, as `runs_here`
  // says), then commit its change as a batch of one.
  boost::asio::awaitable<Result<ops::Mutation>> mutate(RequestContext& ctx,
                                                       const ops::MutationRequest& p,
                                                       bool may_be_missing, RunsHere runs_here,
                                                       const Transform& transform,
                                                       const Prepare& prepare = {});

  // `path` resolved, at once or, when that fails, again once the requests
  // sent before this one on its connection have ended: a file
  // they delete or move may stand where this path needs a directory, and the
  // path must be judged as the tree will be in its turn. Resolving succeeds at
  // once in every other case, and that result holds: the backend walks the
  // path again when it opens it.
  boost::asio::awaitable<Result<std::string>> resolve_in_turn(const RequestContext& ctx,
                                                              const std::string& path);
  // A read takes its file's chain shared (a mutation takes its files'
  // exclusive: hold_for_mutation), in the request's place among its
  // connection's (lock_chain.h).
  boost::asio::awaitable<LockChains::Guard> lock_one(const RequestContext& ctx,
                                                     const std::string& canonical,
                                                     LockChains::Mode mode);
  // --require-read: whether this connection knows the file as it is
  // (`current_fp`); a file that does not exist (`exists` false) passes.
  Result<void> check_known(const RequestContext& ctx, const std::string& canonical,
                           const std::string& shown, bool exists,
                           const std::string& current_fp) const;
  // A hold on `factor` times the sizes `canonicals` have now (size_hint):
  // taken once the request holds their chains, before it reads them, so the
  // files held by all requests in flight stay within
  // --max-file-bytes-in-flight. too_large when it could never fit.
  boost::asio::awaitable<Result<ByteBudget::Hold>> hold_files(
      const RequestContext& ctx, const std::vector<std::string>& canonicals, std::uint64_t factor);
  // What a mutation holds of its files while it reads and writes them: their
  // lock chains (exclusive), its bytes in the budget, and the backend's lock
  // against other processes, taken in that order (so that a request holding
  // one never waits for another's). Fails when the request was cancelled
  // while it waited for the chains, or as hold_files() and FsBackend::lock().
  struct FilesHeld {
    LockChains::Guard chains;
    ByteBudget::Hold bytes;
    std::unique_ptr<FsBackend::Lock> processes;
  };
  boost::asio::awaitable<Result<FilesHeld>> hold_for_mutation(const RequestContext& ctx,
                                                              std::vector<std::string> keys);
  // A file a read holds: resolved, its chain taken shared, its bytes read
  // within the budget (kReadHold), held until the read has answered.
  struct ReadHeld {
    std::string canonical;
    LockChains::Guard chain;
    ByteBudget::Hold budget;
    std::string bytes;
  };
  boost::asio::awaitable<Result<ReadHeld>> read_shared(RequestContext& ctx,
                                                       const std::string& path);

  // Whether the format step applies to a call's write of the file: the call
  // did not say format: false, a --format covers it, and it is a local file
  // (an ACP client's buffers are the editor's to format).
  bool formats(const RequestContext& ctx, const std::string& canonical, const std::string& shown,
               bool asked) const;
  // The format step (format.cpp): `after`, the bytes a call made of
  // `before` (nullopt: a new file), given to the formatter; the hunks of its
  // output that meet the lines the call changed made into the bytes to write.
  // Never fails: a formatter that does not give usable text leaves the
  // call's bytes, and the report says why. Call with the file's chain held.
  boost::asio::awaitable<FormatStep> format(const std::string& canonical, const std::string& shown,
                                            std::optional<std::string_view> before,
                                            const std::string& after);
  // Remembers the lines the format report showed in the hashline view as a
  // view of the connection's (server/ops/views.h), so that edit_lines takes
  // their anchors: once the bytes (`fingerprint`) are written.
  void remember_formatted(const RequestContext& ctx, const std::string& canonical,
                          const std::string& fingerprint, const FormatStep& step);

  // The commit pipeline (server/ops/commit.h) of `steps`, planned with
  // `files` held: approval, checks before, the last cancellation check, the
  // write as `writes` says, the ACP report and what the connection knows,
  // the undo record, then (with `files` let go to other processes and
  // readers) the checks after. `method` names the call in a batch's errors.
  // The steps' contents move into the write and the history unless the
  // checks or an ACP session read them after.
  // The ledger records the change (`note`: as what) while it is written;
  // a change it cannot record is put back and refused (io).
  boost::asio::awaitable<Result<Committed>> commit(RequestContext& ctx, FilesHeld& files,
                                                   std::vector<StagedChange>& steps, Writes writes,
                                                   const std::string& method,
                                                   LedgerNote note = {});
  // The ledger: null when --ledger off; io when it is on but cannot be used
  // (it is opened again at the next call).
  Result<ledger::Ledger*> ledger();
  // The symbols of `bytes` (the file `canonical`, shown as `shown`) as its
  // language server reports them, mapped onto those bytes. Call with the
  // file's chain held. not_text, or the server's failure as an error.
  // `truncated`, when given, is set when the server reported more than kept.
  boost::asio::awaitable<Result<std::vector<symbols::Symbol>>> outline_of(
      const std::string& canonical, const std::string& shown, const std::string& bytes,
      bool* truncated = nullptr);
  // The one symbol `name_path` names in `bytes` (read_text's `symbol`), or
  // invalid_params, no_match, ambiguous, unsupported (its position does not
  // fit the bytes: reason misplaced_symbol), or outline_of's error.
  boost::asio::awaitable<Result<ops::SymbolLines>> symbol_lines(const std::string& canonical,
                                                                const std::string& shown,
                                                                const std::string& bytes,
                                                                const std::string& name_path);

 private:
  // cancelled, when the request was cancelled.
  Result<void> check_cancel(const RequestContext& ctx) const;
  // The checks of each step that writes a file a check covers (nullopt for
  // the others), run with the lock chains held, before the write.
  using StepChecks = std::vector<std::optional<Checks::Before>>;
  boost::asio::awaitable<StepChecks> checks_before(const RequestContext& ctx,
                                                   const std::vector<StagedChange>& steps);
  // Fills what the steps do not know yet: the new contents' fingerprints, and
  // what the history keeps of each file changed (on the pool when large).
  // `hunked`: and each step's hunks for the ledger.
  boost::asio::awaitable<Result<void>> survey(std::vector<StagedChange>& steps, bool hunked);
  // Writes a one-file step: its splices between the untouched bytes, or its new bytes.
  boost::asio::awaitable<Result<void>> write_one(RequestContext& ctx, StagedChange& step,
                                                 bool move_contents);
  // Writes `steps` through one backend batch, copying `kept` for the history
  // meanwhile (write_and_spill); on a failure restores every file already
  // changed and removes `made_dirs`, and reports what `method` failed on.
  boost::asio::awaitable<Result<std::vector<Fd>>> write_batch(
      RequestContext& ctx, std::vector<StagedChange>& steps, bool move_contents,
      std::vector<std::string_view> kept, const std::vector<std::string>& made_dirs,
      const std::string& method);
  // Runs `write`, and beside it on the pool copies each of `before` that the
  // undo history keeps on disk (UndoHistory::spills) to a file of its own:
  // one Fd for each of `before`, invalid where nothing was copied. The copy
  // is done when the write is, and the bytes can go before the reply.
  boost::asio::awaitable<std::pair<Result<void>, std::vector<Fd>>> write_and_spill(
      boost::asio::awaitable<Result<void>> write, std::vector<std::string_view> before);
  // What the undo history keeps of a file of `size` bytes that a write
  // changes in `window` (restore::window's, nullopt: no change): that one
  // restore, when it holds at most half the file and less than what goes to
  // disk; else nullopt (the whole file is kept).
  std::optional<std::vector<restore::Restore>> window_restores(
      std::optional<restore::Restore> window, std::uint64_t size) const;
  // `restores` when the history keeps them rather than the whole of a file
  // of `size` bytes (see window_restores), else nullopt.
  std::optional<std::vector<restore::Restore>> worth_keeping(
      std::optional<std::vector<restore::Restore>> restores, std::uint64_t size) const;
  // Puts back the steps at `indices` (newest first) and removes `made_dirs`:
  // the shown paths of what could not be put back.
  boost::asio::awaitable<std::vector<std::string>> put_back(RequestContext& ctx,
                                                            const std::vector<StagedChange>& steps,
                                                            const std::vector<std::size_t>& indices,
                                                            const std::vector<std::string>& made_dirs);

  const OpsOptions& options_;
  LockChains& locks_;
  boost::asio::thread_pool& pool_;
  UndoHistory history_;
  Checks checks_;
  ByteBudget budget_;
  Views views_;
  std::mutex ledger_mutex_;
  std::shared_ptr<ledger::Ledger> ledger_;
  LastSeen last_seen_;
};

}  // namespace editd
