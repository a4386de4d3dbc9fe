// The edit operations: what each method does, above any transport and any
// backend, with no JSON in sight and no wire type: each takes its request and
// gives its outcome in the core's own types (server/ops/requests.h), and each
// method's file translates (server/methods/).
//
// This is the operations' API alone. Every method runs on the pipeline they
// share (server/ops/pipeline.h, private to server/ops/): resolve, hold, read,
// transform in edit/, commit.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/fs_backend.h"
#include "server/ledger/ledger.h"
#include "server/ops/known_fingerprints.h"
#include "server/ops/ops_options.h"
#include "server/ops/requests.h"
#include "server/search/requests.h"
#include "server/ops/views.h"
#include "support/byte_budget.h"
#include "support/cancel.h"
#include "support/lock_chain.h"

namespace editd {

class Pipeline;

// A file a mutation changed, as progress reports to ACP clients show it.
// Texts are whole files without a BOM.
struct ChangeReport {
  std::string canonical;
  std::optional<std::string> old_text;  // nullopt: the file is new
  std::string new_text;
  std::optional<std::uint64_t> line;  // 1-based first changed line, when known
};

// A file a mutation is about to change, as an approval shows it
// (RequestContext::approve_all).
struct PendingChange {
  enum class Kind { kCreate, kUpdate, kRemove };
  std::string shown;  // the path as the client named it
  Kind kind = Kind::kUpdate;
  ChangeReport change;  // the texts before and after (removed: the new text is empty)
};

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
  // Called once before a mutation writes, with every file it is about to
  // change (MCP approvals: one question a call); may refuse (denied, or
  // cancelled when the request was). Optional; when set, `approve` is not
  // called.
  std::function<boost::asio::awaitable<Result<void>>(std::vector<PendingChange>)> approve_all{};
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
  // Who asks, for the ledger (server/ledger/ledger.h): the client, its door,
  // session and peer, the method and the request's id.
  ledger::Actor actor{};
};

class Operations {
 public:
  Operations(const OpsOptions& options, LockChains& locks, boost::asio::thread_pool& pool);
  ~Operations();

  const OpsOptions& options() const;
  // The views read_text served, for edit_lines' anchors.
  Views& views();

  // Ends what the checks keep running (language servers): editd is exiting.
  void stop_checks();
  // The executor the checks and language servers live on (Checks::set_home),
  // when several I/O threads run operations.
  void run_checks_on(boost::asio::any_io_executor home);

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
  // move, copy, delete (server/ops/files.cpp): a patch built in code and
  // applied as apply_patch applies one; a directory's move or removal is one
  // of every file in it, its emptied directories removed after the commit.
  boost::asio::awaitable<Result<ops::FilesChanged>> move(RequestContext& ctx, ops::MoveRequest p);
  boost::asio::awaitable<Result<ops::FilesChanged>> copy(RequestContext& ctx, ops::MoveRequest p);
  boost::asio::awaitable<Result<ops::FilesChanged>> remove(RequestContext& ctx,
                                                           ops::DeleteRequest p);
  // Puts back every file a mutation changed, if each is still what it wrote.
  boost::asio::awaitable<Result<ops::Patched>> undo(RequestContext& ctx, ops::UndoRequest p);

  // The ledger (server/ledger/ledger.h; server/ops/revert.cpp): a page of
  // the changes on record, and changes or hunks taken back from the files as
  // they are now. unsupported under --ledger off.
  boost::asio::awaitable<Result<ops::Changes>> changes(RequestContext& ctx, ops::ChangesRequest p);
  boost::asio::awaitable<Result<ops::Patched>> revert(RequestContext& ctx, ops::RevertRequest p);
  // The ledger itself, opened on first use (the review page reads it):
  // null under --ledger off; io when it cannot be opened.
  Result<ledger::Ledger*> ledger();
  // Which of `p.canonicals` (files this connection knows, ctx.known) changed
  // outside it since it last read or wrote them (server/ops/outside.cpp): each
  // is looked at on ctx.backend (its stat, and its bytes unless the stat is
  // one under which its fingerprint was already found), and a change is
  // recorded as told (KnownFingerprints::told), so it is told once. A file a mutation holds, or whose
  // record the connection's own requests change meanwhile, is deferred; so
  // are those past p.max_changes or p.max_reads. Files that cannot be looked at are passed
  // over. Never fails.
  boost::asio::awaitable<ops::OutsideChanges> outside_changes(RequestContext& ctx,
                                                              ops::OutsideRequest p);

  // Edits by symbol (server/ops/symbols.cpp): the file's symbols as its
  // language server reports them for the bytes held, and an edit of one
  // symbol's lines. unsupported when no --lsp covers the file.
  boost::asio::awaitable<Result<ops::Symbols>> read_symbols(RequestContext& ctx,
                                                            ops::SymbolsRequest p);
  Awaitable edit_symbol(RequestContext& ctx, ops::SymbolEditRequest p);
  // Whether some --lsp is configured: the symbol tools are offered then.
  bool has_language_servers() const;

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

  // list and search (server/ops/search.cpp): a directory's entries, and
  // the lines that match a pattern under a directory or in a file; both
  // walk beneath the root on the pool (server/search/walk.h), never
  // following a link, bounded as docs/protocol.md says. search remembers
  // what it shows as views (a hit's and its context's lines), so that
  // edit_lines takes the anchors it returns.
  boost::asio::awaitable<Result<ops::Listed>> list(RequestContext& ctx, ops::ListRequest p);
  boost::asio::awaitable<Result<ops::Searched>> search(RequestContext& ctx, ops::SearchRequest p);

 private:
  // What apply_parsed() is asked besides the patch.
  struct PatchRun {
    // Path as the caller gave it -> the fingerprint expected of it.
    std::map<std::string, std::string> expected_fingerprints;
    std::string expectation_param = "expectedFingerprints";  // named in their errors
    bool dry_run = false;
    bool format = true;
    std::string method;  // the call, in the commit's errors
    // Pairs of indices into the patch's files: a kAdd whose content is the
    // other's (a file the patch touches) as read under the chains (copy).
    std::vector<std::pair<std::size_t, std::size_t>> copies;
    // Run with every touched file held and read (display path -> the file as
    // found), before the patch is applied: may refuse. Optional.
    std::function<Result<void>(const patch::Patch&,
                               const std::map<std::string, patch::FileInput>&)>
        check;
  };
  // apply_patch's body once the patch is parsed (server/ops/apply_patch.cpp),
  // for the patches move, copy and delete build in code (server/ops/files.cpp):
  // paths resolved, chains held, every file read and checked, the patch
  // applied in memory, one batch committed.
  boost::asio::awaitable<Result<ops::Patched>> apply_parsed(RequestContext& ctx,
                                                            patch::Patch parsed, PatchRun run);

  // move, copy, delete's steps (server/ops/files.cpp).
  struct Named;
  boost::asio::awaitable<Result<Named>> named(RequestContext& ctx, std::string param,
                                              std::string given);
  boost::asio::awaitable<Result<FsBackend::Tree>> bounded_tree(RequestContext& ctx,
                                                               std::string verb, Named dir,
                                                               std::uint64_t max_files,
                                                               std::uint64_t max_bytes);
  boost::asio::awaitable<void> remove_emptied(RequestContext& ctx, Named dir,
                                              const FsBackend::Tree& tree, bool dry_run,
                                              ops::FilesChanged& out);

  // revert, or (`strict`) undo of a change the memory history does not have:
  // each file must then be exactly what the change left.
  boost::asio::awaitable<Result<ops::Patched>> revert_changes(RequestContext& ctx,
                                                              ops::RevertRequest p, bool strict);

  std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace editd
