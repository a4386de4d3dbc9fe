// undo: puts back every file a mutation changed, if each is still exactly what
// that mutation left.
//
// The entry's files are taken together (their chains at once, in sorted order,
// then the backend's cross-process locks), as apply_patch takes its files. Each
// is read and compared with what the mutation left: the fingerprint of its
// bytes (the history keeps no more of them), or its absence for a file it
// removed. Any difference refuses the whole undo with `conflict`
// naming the file, and nothing is touched. Then previous contents are written
// back first and files the mutation created are removed last, through the same
// batch and rollback as apply_patch (Pipeline::commit). An undo is a mutation of
// its own: it gets an undoId, and undoing it redoes.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "edit/text/fingerprint.h"
#include "edit/text/text.h"
#include "edit/change/unified_diff.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

using nlohmann::json;
using text::without_bom;

Error read_only_undo() {
  return Error(ErrorKind::kDenied, "the server is read-only (--read-only): nothing was undone");
}

Error unknown_undo(const std::string& id) {
  return Error(ErrorKind::kNotFound,
               "unknown undoId " + id +
                   ": this server never issued it, its history (--undo-history-entries, "
                   "--undo-history-bytes) has forgotten it, or editd restarted since",
               {{"undoId", id}, {"param", "undoId"}});
}

Error other_scope(const std::string& id) {
  return Error(ErrorKind::kNotFound,
               "undoId " + id +
                   " changed files that live elsewhere (another connection's client, or the "
                   "local disk): undo it on a connection that edits the same files",
               {{"undoId", id}, {"param", "undoId"}, {"reason", "other_backend"}});
}

// What stands at a file's path now, when it is not a file (or nothing).
enum class Standing { kFileOrNothing, kDirectory, kOther };

// Whether a read's failure says the path holds something else than a regular
// file now: a link put in its place (which no method follows), a FIFO, a
// socket or a device. Such a path is not what the mutation left, for good:
// an undo of it is a conflict, not a failure to retry.
bool replaced_by_other(const Error& e) {
  if (e.kind == ErrorKind::kNotText) return true;
  return e.kind == ErrorKind::kIo && e.data.is_object() && e.data.value("errno", "") == "ELOOP";
}

// `expected`: the fingerprint the mutation left, nullopt for a file it removed;
// `current`: the fingerprint of the file now, nullopt when it is missing.
Error changed_since(const std::string& id, const std::string& shown,
                    const std::optional<std::string>& expected,
                    const std::optional<std::string>& current, Standing standing) {
  json exp = expected ? json(*expected) : json(nullptr);
  json cur = current ? json(*current) : json(nullptr);
  std::string what = standing == Standing::kDirectory ? " is a directory now"
                     : standing == Standing::kOther
                         ? " is no longer a regular file (a link, FIFO, socket or device stands "
                           "there now)"
                     : !current  ? " no longer exists"
                     : !expected ? " exists again"
                                 : " changed";
  return Error(
      ErrorKind::kConflict,
      "undo refused: " + shown + what + " since " + id +
          " wrote it; nothing was changed (an undo only puts back files that are still "
          "exactly what the mutation left)",
      {{"path", shown}, {"undoId", id}, {"expectedFingerprint", exp}, {"currentFingerprint", cur}});
}

// The steps that put `entry`'s files back, writes first, removals last;
// `current[i]` is what entry.files[i] holds now (what its mutation left).
Result<std::vector<StagedChange>> restore_steps(const UndoEntry& entry,
                                                std::vector<std::optional<std::string>>& current,
                                                const FsBackend& backend) {
  std::vector<StagedChange> steps;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < entry.files.size(); ++i) {
      const KeptFile& f = entry.files[i];
      if ((f.before != nullptr) != (pass == 0)) continue;
      StagedChange s;
      s.kind = f.before ? StagedChange::Kind::kWrite : StagedChange::Kind::kRemove;
      s.canonical = f.canonical;
      s.shown = backend.display_path(f.canonical);
      if (f.before) {
        Result<std::string> bytes =
            f.before->load(current[i] ? std::string_view(*current[i]) : std::string_view());
        if (!bytes) {
          Error e = bytes.error();
          e.message = "cannot undo " + entry.id + ": " + e.message;
          e.data["path"] = s.shown;
          return e;
        }
        s.bytes = std::move(*bytes);
        s.attributes = f.before_attributes;
      }
      s.previous = std::move(current[i]);
      steps.push_back(std::move(s));
    }
  return steps;
}

}  // namespace

boost::asio::awaitable<Result<ops::Patched>> Operations::undo(RequestContext& ctx,
                                                              ops::UndoRequest p) {
  if (pipeline_->options().read_only) co_return read_only_undo();
  std::shared_ptr<const UndoEntry> entry = pipeline_->history().find(p.undo_id);
  if (!entry) {
    // Forgotten by the memory history (a restart since, or its bounds): the
    // ledger has every change it recorded.
    Result<ledger::Ledger*> lg = pipeline_->ledger();
    if (lg && *lg && ledger::parse_entry_id(p.undo_id)) {
      ops::RevertRequest r;
      r.changes.push_back(p.undo_id);
      r.dry_run = p.dry_run;
      co_return co_await revert_changes(ctx, std::move(r), true);
    }
    co_return unknown_undo(p.undo_id);
  }
  if (entry->scope != ctx.scope.key()) co_return other_scope(p.undo_id);

  std::vector<std::string> keys;
  for (const KeptFile& f : entry->files) keys.push_back(f.canonical);
  auto files = co_await pipeline_->hold_for_mutation(ctx, std::move(keys));
  if (!files) co_return files.error();

  // Every file must still be what the mutation left.
  std::vector<std::optional<std::string>> current;
  for (const KeptFile& f : entry->files) {
    Result<std::string> bytes = co_await ctx.backend.read(f.canonical);
    std::optional<std::string>& now = current.emplace_back();
    Standing standing = Standing::kFileOrNothing;
    if (bytes)
      now = std::move(*bytes);
    else if (bytes.error().kind == ErrorKind::kIsDirectory)
      standing = Standing::kDirectory;
    else if (replaced_by_other(bytes.error()))
      standing = Standing::kOther;
    else if (bytes.error().kind != ErrorKind::kNotFound)
      co_return bytes.error();
    const std::optional<std::string> now_fp =
        now ? std::optional(editd::fingerprint(*now)) : std::nullopt;
    if (standing != Standing::kFileOrNothing || now_fp != f.after_fingerprint)
      co_return changed_since(p.undo_id, ctx.backend.display_path(f.canonical), f.after_fingerprint,
                              now_fp, standing);
  }

  // The bytes before (read back when spilled) and the diffs are an edit's
  // work: on the pool, like every other (docs/architecture.md), never on the
  // thread that serves the connections.
  std::vector<StagedChange> steps;
  auto describe_all = [&]() -> Result<ops::Patched> {
    Result<std::vector<StagedChange>> restored = restore_steps(*entry, current, ctx.backend);
    if (!restored) return restored.error();
    steps = std::move(*restored);
    for (const StagedChange& s : steps)
      if (s.kind == StagedChange::Kind::kRemove && !ctx.backend.can_remove())
        return unsupported_removal(s.shown);
    ops::Patched r;
    for (const StagedChange& s : steps) r.files.push_back(describe_step(s, r.diff));
    return r;
  };
  Result<ops::Patched> described = co_await offload(pipeline_->pool(), describe_all);
  if (!described) co_return described.error();
  ops::Patched result = std::move(*described);
  if (p.dry_run) co_return result;

  LedgerNote note;
  note.origin = ledger::Origin::kUndo;
  note.reverts.push_back(p.undo_id);
  auto committed =
      co_await pipeline_->commit(ctx, *files, steps, Writes::kBatch, "undo", std::move(note));
  if (!committed) co_return committed.error();
  attach_reports(steps, *committed, result);
  // Directories made for files now removed go too, innermost first, when empty.
  for (auto d = entry->made_directories.rbegin(); d != entry->made_directories.rend(); ++d) {
    Result<void> removed = co_await ctx.backend.remove_directory(*d);
    if (!removed)
      spdlog::debug("undo {}: {} stays: {}", p.undo_id, ctx.backend.display_path(*d),
                    removed.error().message);
  }
  result.undo_id = std::move(committed->undo_id);
  result.change_id = std::move(committed->change_id);
  co_return result;
}

}  // namespace editd
