// The edit operations: what each method does, above any transport and any
// backend, with no JSON in sight and no wire type: each takes its request and
// gives its outcome in the core's own types (server/ops/requests.h), and the
// doors translate (server/doors/bindings.h).
//
// Each mutation follows the same pipeline: resolve the path to its canonical
// form, join that path's lock chain, read through the backend, check the
// caller's expected fingerprint, compute the new bytes in edit/ (pure), write
// through the backend, and describe the change (fingerprint, diff, counts).
// Large transforms run on the thread pool so that the I/O thread stays free.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/fs_backend.h"
#include "edit/change/splice.h"
#include "edit/change/unified_diff.h"
#include "server/checks/checks.h"
#include "server/ops/commit.h"
#include "server/ops/known_fingerprints.h"
#include "server/ops/ops_options.h"
#include "server/ops/requests.h"
#include "server/ops/undo_history.h"
#include "server/ops/views.h"
#include "support/byte_budget.h"
#include "support/cancel.h"
#include "support/lock_chain.h"

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

// A file a mutation changed, as progress reports to ACP clients show it.
// Texts are whole files without a BOM.
struct ChangeReport {
  std::string canonical;
  std::optional<std::string> old_text;  // nullopt: the file is new
  std::string new_text;
  std::optional<std::uint64_t> line;  // 1-based first changed line, when known
};

// The change from old_bytes (nullopt: a new file) to new_bytes, BOMs dropped;
// `line` defaults to the first line where they differ.
ChangeReport change_report(const std::string& canonical,
                           const std::optional<std::string>& old_bytes,
                           const std::string& new_bytes, std::optional<std::uint64_t> line = {});

// Where a request's files live: the local disk, or the client of a delegated
// connection (an ACP editor's fs/* requests).
struct Scope {
  enum class Kind { kLocal, kDelegated };
  Kind kind = Kind::kLocal;
  std::string connection;  // kDelegated: the delegated connection's id

  static Scope delegated(std::string connection) {
    return Scope{Kind::kDelegated, std::move(connection)};
  }
  bool local() const { return kind == Kind::kLocal; }
  // "local", or "delegated:" and the connection's id: what the undo history
  // and the views keep a file's scope as.
  std::string key() const { return local() ? "local" : "delegated:" + connection; }
};

struct RequestContext {
  FsBackend& backend;
  std::shared_ptr<CancelState> cancel;
  KnownFingerprints* known = nullptr;
  // Called before a mutation writes (ACP approvals); may refuse with denied.
  // Optional. Arguments: display path, old text (nullopt: new file), new text.
  std::function<boost::asio::awaitable<Result<void>>(
      const std::string&, const std::optional<std::string>&, const std::string&)>
      approve{};
  // When set, each file a mutation writes is appended here. Optional.
  std::vector<ChangeReport>* changes = nullptr;
  // Where the backend's files live, for the checks (which run on local files
  // only), the undo history and the views: an undo runs only in the scope
  // that recorded it.
  Scope scope{};
  // The request's place among its connection's: it joins the lock chains in
  // that turn (support/lock_chain.h). Optional.
  Arrivals::Place* place = nullptr;
  // The connection's id in the view store (server/ops/views.h): read_text records
  // what it shows under it, edit_lines maps anchors from there. 0: no views.
  std::uint64_t reader = 0;
};

// A step removes a file where the backend cannot (an ACP client): denied,
// reason "unsupported".
Error unsupported_removal(const std::string& shown);

class Operations {
 public:
  Operations(const OpsOptions& options, LockChains& locks, boost::asio::thread_pool& pool)
      : options_(options),
        locks_(locks),
        pool_(pool),
        history_(options.undo_history_entries, options.undo_history_bytes, undo_spill(options)),
        checks_(options.checks.specs, options.root, options.checks.timeout),
        budget_(options.max_file_bytes_in_flight),
        views_(options.view_memory) {
    checks_.set_pool(pool_);
  }

  const OpsOptions& options() const { return options_; }
  // The views read_text served, for edit_lines' anchors.
  Views& views() { return views_; }

  // Ends what the checks keep running (language servers): editd is exiting.
  void stop_checks() { checks_.stop(); }
  // The executor the checks and language servers live on (Checks::set_home),
  // when several I/O threads run operations.
  void run_checks_on(boost::asio::any_io_executor home) { checks_.set_home(std::move(home)); }

  using Awaitable = boost::asio::awaitable<Result<ops::Mutation>>;

  boost::asio::awaitable<Result<ops::Read>> read_text(RequestContext& ctx, ops::ReadRequest p);
  Awaitable write_text(RequestContext& ctx, ops::WriteRequest p);
  // The file's line endings, BOM and final newline, as asked (docs/protocol.md).
  Awaitable set_format(RequestContext& ctx, ops::FormatRequest p);
  Awaitable create(RequestContext& ctx, ops::CreateRequest p);
  Awaitable insert(RequestContext& ctx, ops::InsertRequest p);
  Awaitable str_replace(RequestContext& ctx, ops::ReplaceRequest p);
  Awaitable edit_lines(RequestContext& ctx, ops::LineEditsRequest p);
  boost::asio::awaitable<Result<ops::Fingerprint>> fingerprint(RequestContext& ctx,
                                                               ops::FingerprintRequest p);
  boost::asio::awaitable<Result<ops::Patched>> apply_patch(RequestContext& ctx,
                                                           ops::PatchRequest p);
  // Puts back every file a mutation changed, if each is still what it wrote.
  boost::asio::awaitable<Result<ops::Patched>> undo(RequestContext& ctx, ops::UndoRequest p);

  // Edits by symbol (server/ops/symbols.cpp): the file's symbols as its
  // language server reports them for the bytes held, and an edit of one
  // symbol's lines. unsupported when no --lsp covers the file.
  boost::asio::awaitable<Result<ops::Symbols>> read_symbols(RequestContext& ctx,
                                                            ops::SymbolsRequest p);
  Awaitable edit_symbol(RequestContext& ctx, ops::SymbolEditRequest p);
  // Whether some --lsp is configured: the symbol tools are offered then.
  bool has_language_servers() const { return checks_.has_language_servers(); }

  // What stands at a path, for a listing of a directory (the text editor's
  // view). The path is resolved and its stat taken once the requests its
  // connection sent before have ended (a file created just before is there);
  // no lock chain is held. Fails as FsBackend::resolve and stat.
  struct Located {
    std::string canonical;
    std::string shown;
    FileStat stat;
  };
  boost::asio::awaitable<Result<Located>> locate(RequestContext& ctx, const std::string& path);
  // The entries of directory `canonical` (as located), as FsBackend::list.
  boost::asio::awaitable<Result<FsBackend::Listing>> list_directory(RequestContext& ctx,
                                                                    const std::string& canonical,
                                                                    unsigned depth,
                                                                    std::size_t limit);

 private:
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
  // What a transform produces: the new bytes and the method's own result fields.
  struct Transformed {
    std::string bytes;  // empty while `splices` holds the change
    ops::Mutation result;
    // Where the bodies (after `bom` bytes of BOM in both) differ, when the
    // transform knows; else the diff compares the whole bodies.
    std::optional<std::vector<diff::Window>> windows;
    std::size_t bom = 0;
    // The new bytes not made yet: the current bytes with these splices of the
    // body applied. compute() makes them unless the Current is lean; then the
    // diff is made around the splices and the write takes pieces.
    std::optional<std::vector<splice::Splice>> splices;
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
  // `change` as `splices` of `doc`'s body (made into bytes by compute() when
  // needed).
  static Result<Transformed> spliced(const text::Document& doc, std::vector<splice::Splice> splices,
                                     Transformed change);
  // The new bytes of a spliced `change` of `current`, as pieces (views of both).
  static std::vector<std::string_view> pieces(const std::string& current,
                                              const Transformed& change);
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

  // Whether the transform costs so little on this file that it runs on the
  // I/O thread, saving the hops to the pool and back: a few linear passes over
  // at most kOffloadBytes and a diff of at most kInlineDiffLines lines, known
  // before it runs. Null: always the pool.
  using RunsHere = std::function<bool(const Current&)>;
  // A new file of little content: its diff is its lines, nothing to compare.
  static RunsHere new_file_runs_here(const std::string& content);
  // What a mutation must learn of the file before its transform runs, with
  // the chain held and the file read (edit_symbol asks the language server).
  // An error ends the mutation before anything is written.
  using Prepare = std::function<boost::asio::awaitable<Result<void>>(const Current&)>;
  Awaitable mutate(RequestContext& ctx, const ops::MutationRequest& p, bool may_be_missing,
                   RunsHere runs_here, const Transform& transform, const Prepare& prepare = {});

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
  // Text param `param` checked as editd takes text (text::check_text), an
  // error naming the param.
  static Result<void> check_param_text(std::string_view s, std::string_view param);
  // Runs the transform and describes the change (diff, counts, fingerprint).
  static Result<Transformed> compute(const Current& cur, const Transform& transform);
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
  static constexpr std::size_t kOffloadBytes = 64 * 1024;
  static constexpr std::size_t kInlineDiffLines = 256;

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
  Result<void> check_cancel(const RequestContext& ctx) const;
  // --require-read: whether this connection knows the file as it is
  // (`current_fp`); a file that does not exist (`exists` false) passes.
  Result<void> check_known(const RequestContext& ctx, const std::string& canonical,
                           const std::string& shown, bool exists,
                           const std::string& current_fp) const;

  // What a request holds of the file bytes in flight (byte_budget.h), as
  // multiples of its files' sizes: a mutation the bytes read, the bytes it
  // makes and the diff; a read the bytes and what it answers; a fingerprint
  // the bytes.
  static constexpr std::uint64_t kMutationHold = 3;
  static constexpr std::uint64_t kReadHold = 2;
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

  // The commit pipeline (server/ops/commit.h) of `steps`, planned with
  // `files` held: approval, checks before, the last cancellation check, the
  // write as `writes` says, the ACP report and what the connection knows,
  // the undo record, then (with `files` let go to other processes and
  // readers) the checks after. `method` names the call in a batch's errors.
  // The steps' contents move into the write and the history unless the
  // checks or an ACP session read them after.
  boost::asio::awaitable<Result<Committed>> commit(RequestContext& ctx, FilesHeld& files,
                                                   std::vector<StagedChange>& steps, Writes writes,
                                                   const std::string& method);
  // The checks of each step that writes a file a check covers (nullopt for
  // the others), run with the lock chains held, before the write.
  using StepChecks = std::vector<std::optional<Checks::Before>>;
  boost::asio::awaitable<StepChecks> checks_before(const RequestContext& ctx,
                                                   const std::vector<StagedChange>& steps);
  // Fills what the steps do not know yet: the new contents' fingerprints, and
  // what the history keeps of each file changed (on the pool when large).
  boost::asio::awaitable<Result<void>> survey(std::vector<StagedChange>& steps);
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

  // Where the undo history keeps large files: /tmp/editd-EUID, else the root,
  // whichever is usable and not a tmpfs first.
  static UndoSpill undo_spill(const OpsOptions& options);

  const OpsOptions& options_;
  LockChains& locks_;
  boost::asio::thread_pool& pool_;
  UndoHistory history_;
  Checks checks_;
  ByteBudget budget_;
  Views views_;
};

}  // namespace editd
