// The commit pipeline (commit.h): approval, checks, the write, the reports,
// the undo record.
#include "server/ops/commit.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "edit/text/fingerprint.h"
#include "edit/change/unified_diff.h"
#include "edit/text/text.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

using Step = StagedChange;

// The first line where `a` and `b` differ, 1-based.
std::uint64_t first_changed_line(std::string_view a, std::string_view b) {
  std::size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return 1 + static_cast<std::uint64_t>(
                 std::count(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(i), '\n'));
}

// The change from `old_bytes` (nullopt: a new file) to `bytes`, BOMs dropped;
// `line` defaults to the first line where they differ.
ChangeReport change_report(const std::string& canonical,
                           const std::optional<std::string>& old_bytes, const std::string& bytes,
                           std::optional<std::uint64_t> line) {
  ChangeReport fc;
  fc.canonical = canonical;
  if (old_bytes) fc.old_text = std::string(text::without_bom(*old_bytes));
  fc.new_text = std::string(text::without_bom(bytes));
  fc.line = line ? line : first_changed_line(fc.old_text.value_or(""), fc.new_text);
  return fc;
}

// The ACP diff of one step: whole-file texts, the new text empty for a deletion.
ChangeReport change_of(const Step& s) {
  return change_report(s.canonical, s.previous, s.kind == Step::Kind::kWrite ? s.bytes : "",
                       s.line);
}

// The error of a failed step, after the rollback: what failed, and what (if
// anything) could not be put back.
Error step_failed(Error e, const Step& step, const std::vector<std::string>& not_restored,
                  const std::string& method) {
  if (!e.data.is_object()) e.data = nlohmann::json::object();
  e.data["path"] = step.shown;
  e.data["rolledBack"] = not_restored.empty();
  std::string what = (step.kind == Step::Kind::kWrite ? "writing " : "deleting ") + step.shown +
                     " failed: " + e.message;
  if (not_restored.empty()) {
    e.message =
        method + " changed nothing: " + what + "; every file it had already changed was restored";
  } else {
    e.data["notRestored"] = not_restored;
    std::string list;
    for (const std::string& p : not_restored) list += (list.empty() ? "" : ", ") + p;
    e.message = method + " failed part-way: " + what + "; these could not be restored: " + list;
  }
  return e;
}

// Whether `path` (a failed batch's data.path) names `s`.
bool names(const Step& s, const std::string& path, const FsBackend& backend) {
  return s.shown == path || s.canonical == path || backend.display_path(s.canonical) == path;
}

// Whether a failed batch's data.path is one of `steps`.
bool names_a_step(const std::vector<Step>& steps, const Error& e, const FsBackend& backend) {
  if (!e.data.is_object() || !e.data.contains("path") || !e.data["path"].is_string()) return false;
  const std::string path = e.data["path"].get<std::string>();
  return std::any_of(steps.begin(), steps.end(),
                     [&](const Step& s) { return names(s, path, backend); });
}

// The step a failed batch names (data.path), else the first one that did not
// take effect.
const Step& failed_step(const std::vector<Step>& steps, const std::vector<std::size_t>& applied,
                        const Error& e, const FsBackend& backend) {
  auto was_applied = [&](std::size_t i) {
    return std::find(applied.begin(), applied.end(), i) != applied.end();
  };
  if (e.data.is_object() && e.data.contains("path") && e.data["path"].is_string()) {
    const std::string path = e.data["path"].get<std::string>();
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (!was_applied(i) && names(steps[i], path, backend)) return steps[i];
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (!was_applied(i)) return steps[i];
  return steps.back();
}

// What the undo history keeps of `steps`, with the copies of large contents
// before made while they were written; the contents before move into it
// unless `keep`.
std::vector<UndoFile> undo_files(std::vector<Step>& steps, std::vector<Fd>& spilled, bool keep) {
  std::vector<UndoFile> files;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    UndoFile f;
    f.canonical = s.canonical;
    f.shown = s.shown;
    f.before_fingerprint = s.previous_fingerprint;
    if (s.restores) {
      f.restores = std::move(s.restores);
      f.before_size = s.previous->size();
    } else {
      f.before = keep ? s.previous : std::move(s.previous);
    }
    f.spilled = std::move(spilled[i]);
    if (s.kind == Step::Kind::kWrite) f.after_fingerprint = s.fingerprint;
    f.before_attributes = s.previous_attributes;
    if (s.kind == Step::Kind::kWrite && s.previous_attributes) {
      std::uint32_t mode = s.attributes ? s.attributes->mode : s.previous_attributes->mode;
      if (s.executable) mode = with_executable(mode, *s.executable);
      f.attributes_changed = mode != s.previous_attributes->mode;
    }
    files.push_back(std::move(f));
  }
  return files;
}

// A commit refused before anything changed: the ledger cannot be used.
Error ledger_refused(Error e, const std::string& method) {
  e.message = method + " changed nothing: " + e.message;
  return e;
}

// The write landed but the ledger could not record it, and it was put back
// (but for `not_restored`).
Error unrecorded(Error e, const std::string& method, const std::vector<std::string>& not_restored) {
  if (!e.data.is_object()) e.data = nlohmann::json::object();
  e.data["rolledBack"] = not_restored.empty();
  if (not_restored.empty()) {
    e.message = method + " changed nothing: " + e.message +
                "; every file it wrote was put back (--ledger off serves without the record)";
  } else {
    e.data["notRestored"] = not_restored;
    std::string list;
    for (const std::string& p : not_restored) list += (list.empty() ? "" : ", ") + p;
    e.message = method + " failed part-way: " + e.message + "; these could not be put back: " + list;
  }
  return e;
}

// The ledger's entry of `steps`, their hunks made by survey().
ledger::Entry entry_of(const RequestContext& ctx, std::vector<Step>& steps,
                       const LedgerNote& note, const FsBackend& backend) {
  ledger::Entry e;
  e.origin = note.origin;
  e.reverts = note.reverts;
  e.actor = ctx.actor;
  e.scope = ctx.scope.key();
  for (Step& s : steps) {
    ledger::FileRecord& f = e.files.emplace_back();
    f.path = backend.display_path(s.canonical);
    if (s.previous) {
      f.before_fingerprint =
          s.previous_fingerprint.empty() ? editd::fingerprint(*s.previous) : s.previous_fingerprint;
    }
    if (s.kind == Step::Kind::kWrite) f.after_fingerprint = s.fingerprint;
    if (s.kind == Step::Kind::kWrite && s.previous_attributes) {
      std::uint32_t mode = s.attributes ? s.attributes->mode : s.previous_attributes->mode;
      if (s.executable) mode = with_executable(mode, *s.executable);
      if (mode != s.previous_attributes->mode) {
        f.before_mode = s.previous_attributes->mode;
        f.after_mode = mode;
      }
    }
    f.hunks = std::move(s.hunks);
    f.formatted = std::move(s.formatted);
  }
  return e;
}

bool is_text_bytes(std::string_view bytes) { return text::check_text(bytes, "file").has_value(); }

}  // namespace

ops::PatchedFile describe_step(const StagedChange& s, std::string& diff) {
  ops::PatchedFile f;
  f.path = s.shown;
  const bool removes = s.kind == StagedChange::Kind::kRemove;
  f.action = removes       ? patch::Action::kDelete
             : s.previous ? patch::Action::kUpdate
                          : patch::Action::kAdd;
  std::string_view from = s.previous ? std::string_view(*s.previous) : std::string_view();
  std::string_view to = removes ? std::string_view() : std::string_view(s.bytes);
  const std::string old_label = s.previous ? "a/" + s.shown : std::string("/dev/null");
  const std::string new_label = removes ? std::string("/dev/null") : "b/" + s.shown;
  if (!removes) f.fingerprint = editd::fingerprint(s.bytes);
  if (!is_text_bytes(from) || !is_text_bytes(to)) {
    diff += "Binary files " + old_label + " and " + new_label + " differ\n";
    return f;
  }
  diff::UnifiedDiff d =
      diff::unified_texts(text::without_bom(from), text::without_bom(to), old_label, new_label);
  f.added = d.added;
  f.removed = d.removed;
  diff += d.text;
  return f;
}

Result<ledger::Ledger*> Pipeline::ledger() {
  if (!options_.ledger.enabled) return static_cast<ledger::Ledger*>(nullptr);
  std::lock_guard lock(ledger_mutex_);
  if (ledger_) return ledger_.get();
  ledger::Options o = options_.ledger;
  if (char* real = ::realpath(options_.root.c_str(), nullptr)) {
    o.root = real;
    std::free(real);
  } else {
    o.root = options_.root;
  }
  auto opened = ledger::Ledger::open(o);
  if (!opened) return opened.error();
  ledger_ = std::move(*opened);
  return ledger_.get();
}

void attach_reports(const std::vector<StagedChange>& steps, Committed& committed,
                    ops::Patched& result) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!committed.reports[i]) continue;
    for (ops::PatchedFile& f : result.files)
      if (f.moved_to.value_or(f.path) == steps[i].shown && f.action != patch::Action::kDelete)
        f.diagnostics = *committed.reports[i];
  }
}

boost::asio::awaitable<Result<Committed>> Pipeline::commit(RequestContext& ctx, FilesHeld& files,
                                                           std::vector<StagedChange>& steps,
                                                           Writes writes,
                                                           const std::string& method,
                                                           LedgerNote note) {
  // A change the ledger cannot record is not made: refused before anything.
  Result<ledger::Ledger*> lg = ledger();
  // Named as the caller knows it: a one-file mutation's commit has no name of its own.
  const std::string named = !method.empty()          ? method
                            : !ctx.actor.method.empty() ? ctx.actor.method
                                                        : std::string("the edit");
  if (!lg) co_return ledger_refused(lg.error(), named);
  if (ctx.approve_all) {
    std::vector<PendingChange> pending;
    pending.reserve(steps.size());
    for (const Step& s : steps) {
      const PendingChange::Kind kind = s.kind == Step::Kind::kRemove ? PendingChange::Kind::kRemove
                                       : s.previous ? PendingChange::Kind::kUpdate
                                                    : PendingChange::Kind::kCreate;
      pending.push_back(PendingChange{s.shown, kind, change_of(s)});
    }
    auto ok = co_await ctx.approve_all(std::move(pending));
    if (!ok) co_return ok.error();
  } else if (ctx.approve) {
    for (const Step& s : steps) {
      ChangeReport c = change_of(s);
      auto ok = co_await ctx.approve(s.shown, c.old_text, c.new_text);
      if (!ok) co_return ok.error();
    }
  }
  // The checks see each file before the write, under the lock chains.
  StepChecks checks = co_await checks_before(ctx, steps);
  const bool checked =
      std::any_of(checks.begin(), checks.end(), [](const auto& c) { return c.has_value(); });
  if (auto c = check_cancel(ctx); !c) co_return c.error();
  if (ctx.cancel) ctx.cancel->committed = true;

  // The mode and owner of each file a step may cost them (removes it, or
  // sets its attributes), for the rollback and the history to give back.
  if (ctx.backend.has_modes()) {
    for (Step& s : steps) {
      if (!s.previous || s.previous_attributes) continue;
      if (s.kind != Step::Kind::kRemove && !s.attributes && !s.executable) continue;
      Result<FileStat> st = co_await ctx.backend.stat(s.canonical);
      if (!st) co_return st.error();
      s.previous_attributes = st->attributes;
    }
  }
  // Directories that writes will create, for the rollback and the history to remove.
  std::vector<std::string> made_dirs;
  for (const Step& s : steps)
    if (s.kind == Step::Kind::kWrite && !s.previous)
      for (std::string& d : ctx.backend.missing_directories(s.canonical))
        if (std::find(made_dirs.begin(), made_dirs.end(), d) == made_dirs.end())
          made_dirs.push_back(std::move(d));
  if (auto surveyed = co_await survey(steps, *lg != nullptr); !surveyed)
    co_return surveyed.error();

  // What editd last saw of each local file written (server/ops/last_seen.h),
  // copied before the write may take the contents, and what each replaced.
  std::vector<std::optional<std::string>> seen(steps.size());
  std::vector<std::string> befores(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    if (!ctx.scope.local() || s.kind != Step::Kind::kWrite) continue;
    if (s.previous)
      befores[i] = s.previous_fingerprint.empty() ? editd::fingerprint(*s.previous)
                                                  : s.previous_fingerprint;
    if (!s.splices) {
      if (s.bytes.size() <= LastSeen::kMaxFileBytes) seen[i] = s.bytes;
      continue;
    }
    const std::vector<std::string_view> parts = s.pieces(*s.previous);
    std::size_t size = 0;
    for (std::string_view p : parts) size += p.size();
    if (size > LastSeen::kMaxFileBytes) continue;
    std::string& whole = seen[i].emplace();
    whole.reserve(size);
    for (std::string_view p : parts) whole.append(p);
  }

  // Large files as they were are copied for the history while they are written.
  const bool undoable = options_.undo_history_entries > 0;
  std::vector<std::string_view> kept;
  for (const Step& s : steps)
    kept.push_back(undoable && s.previous && !s.restores ? std::string_view(*s.previous) : "");
  // The new contents move into the write unless an ACP session or the checks
  // read them afterwards.
  const bool move_contents = !checked && !ctx.changes;
  std::vector<Fd> spilled;
  std::optional<std::int64_t> change;
  if (!*lg) {
    if (writes == Writes::kOneFile) {
      auto written = co_await write_and_spill(write_one(ctx, steps.front(), move_contents), kept);
      if (!written.first) co_return written.first.error();
      spilled = std::move(written.second);
    } else {
      auto written =
          co_await write_batch(ctx, steps, move_contents, std::move(kept), made_dirs, method);
      if (!written) co_return written.error();
      spilled = std::move(*written);
    }
  } else {
    // The ledger records the change while it is written: its sync and the
    // file's run side by side.
    using namespace boost::asio::experimental::awaitable_operators;
    ledger::Entry entry = entry_of(ctx, steps, note, ctx.backend);
    Result<void> status;
    Result<std::int64_t> recorded = std::int64_t{0};
    if (writes == Writes::kOneFile) {
      auto both = write_and_spill(write_one(ctx, steps.front(), move_contents), kept) &&
                  (*lg)->append(std::move(entry));
      auto [written, id] = co_await std::move(both);
      status = std::move(written.first);
      spilled = std::move(written.second);
      recorded = std::move(id);
    } else {
      auto both =
          write_batch(ctx, steps, move_contents, std::move(kept), made_dirs, method) &&
          (*lg)->append(std::move(entry));
      auto [written, id] = co_await std::move(both);
      if (written)
        spilled = std::move(*written);
      else
        status = written.error();
      recorded = std::move(id);
    }
    if (!status) {
      // The write failed (and a batch was rolled back): its entry goes.
      if (recorded) {
        ledger::Ledger* l = *lg;
        const std::int64_t id = *recorded;
        auto retracted = co_await offload(pool_, [l, id] { return l->retract(id); });
        if (!retracted)
          spdlog::error("the ledger keeps entry {} of a change that failed: {}",
                        ledger::entry_id(id), retracted.error().message);
      }
      co_return status.error();
    }
    if (!recorded) {
      // Written, but not on the record: put back.
      std::vector<std::size_t> all;
      for (std::size_t i = steps.size(); i-- > 0;) all.push_back(i);
      std::vector<std::string> not_restored = co_await put_back(ctx, steps, all, made_dirs);
      co_return unrecorded(recorded.error(), named, not_restored);
    }
    change = *recorded;
  }

  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (ctx.changes) ctx.changes->push_back(change_of(s));
    if (seen[i]) last_seen_.keep(s.canonical, *s.fingerprint, *seen[i]);
    if (!ctx.known) continue;
    if (s.kind == Step::Kind::kWrite) {
      ctx.known->set(s.canonical, *s.fingerprint);
      ctx.known->note_own_change(s.canonical, std::move(befores[i]));
    } else {
      ctx.known->erase(s.canonical);
    }
  }
  Committed done;
  if (change) done.change_id = ledger::entry_id(*change);
  done.undo_id = history_.record(done.change_id.value_or(""), ctx.scope.key(),
                                 undo_files(steps, spilled, checked), std::move(made_dirs));
  // Any change the ledger keeps can be undone, from it, after a restart too.
  if (done.change_id && !done.undo_id) done.undo_id = done.change_id;

  // Other processes need not wait for the checks, nor reads of the files:
  // only mutations, whose writes would change what the checks read.
  files.processes.reset();
  files.chains.downgrade();
  done.reports.resize(steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!checks[i]) continue;
    const Step& s = steps[i];
    // Named, not a temporary in the co_await expression (GCC 12 coroutines).
    const Checks::Target target{s.canonical, s.shown};
    done.reports[i] = co_await checks_.after(target, std::move(*checks[i]), s.previous, s.bytes);
  }
  co_return done;
}

boost::asio::awaitable<Pipeline::StepChecks> Pipeline::checks_before(
    const RequestContext& ctx, const std::vector<StagedChange>& steps) {
  StepChecks out(steps.size());
  if (!ctx.scope.local()) co_return out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Checks::Target target{steps[i].canonical, steps[i].shown};
    if (steps[i].kind == StagedChange::Kind::kWrite && checks_.covers(target))
      out[i] = co_await checks_.before(target, steps[i].previous);
  }
  co_return out;
}

boost::asio::awaitable<Result<void>> Pipeline::survey(std::vector<StagedChange>& steps,
                                                     bool hunked) {
  // While the new contents are at hand: what the connection will know of each
  // written file, what changed in each existing one for the history, and
  // the hunks for the ledger.
  const bool undoable = options_.undo_history_entries > 0;
  auto run = [&, undoable, hunked]() -> Result<void> {
    for (Step& s : steps) {
      if (hunked && !s.hunked) {
        const std::string_view before = s.previous ? std::string_view(*s.previous) : "";
        if (s.kind == Step::Kind::kRemove)
          s.hunks = hunks::between(before, "");
        else if (s.splices)
          s.hunks = hunks::of_splices(before, s.bom, *s.splices);
        else
          s.hunks = hunks::between(before, s.bytes);
        if (s.previous && s.previous_fingerprint.empty())
          s.previous_fingerprint = editd::fingerprint(*s.previous);
        s.hunked = true;
      }
      if (s.kind != Step::Kind::kWrite) continue;
      if (!s.fingerprint) s.fingerprint = editd::fingerprint(s.bytes);
      if (s.surveyed) continue;
      if (undoable && s.previous)
        s.restores = window_restores(restore::window(*s.previous, s.bytes), s.previous->size());
      if (s.restores && s.previous_fingerprint.empty())
        s.previous_fingerprint = editd::fingerprint(*s.previous);
      s.surveyed = true;
    }
    return {};
  };
  std::size_t bytes = 0;
  for (const Step& s : steps)
    if (!s.surveyed || !s.fingerprint || (hunked && !s.hunked))
      bytes += s.bytes.size() + (s.previous ? s.previous->size() : 0);
  if (bytes <= kOffloadBytes) co_return run();
  co_return co_await offload(pool_, run);  // passes over large files: on the pool
}

boost::asio::awaitable<Result<void>> Pipeline::write_one(RequestContext& ctx, StagedChange& s,
                                                         bool move_contents) {
  if (s.splices) {
    co_return co_await ctx.backend.write_pieces(s.canonical, s.pieces(*s.previous));
  }
  // Named, not a conditional in the co_await expression (GCC 12 coroutines
  // destroy such a temporary twice).
  std::string bytes = move_contents ? std::move(s.bytes) : s.bytes;
  co_return co_await ctx.backend.write(s.canonical, std::move(bytes));
}

boost::asio::awaitable<Result<std::vector<Fd>>> Pipeline::write_batch(
    RequestContext& ctx, std::vector<StagedChange>& steps, bool move_contents,
    std::vector<std::string_view> kept, const std::vector<std::string>& made_dirs,
    const std::string& method) {
  std::vector<FileChange> ops;
  for (Step& s : steps) {
    // The FileChange the step stages, its contents moved in when nothing
    // reads them after (its path stays: the rollback and the reports need it).
    FileChange& op = ops.emplace_back();
    op.kind = s.kind;
    op.canonical = s.canonical;
    op.bytes = move_contents ? std::move(s.bytes) : s.bytes;
    op.attributes = s.attributes;
    op.executable = s.executable;
    op.metadata_from = s.metadata_from;
  }
  std::vector<std::size_t> applied;
  auto batch = ctx.backend.apply_batch(std::move(ops), applied);
  auto written = co_await write_and_spill(std::move(batch), std::move(kept));
  Result<void>& status = written.first;
  if (status) co_return std::move(written.second);
  if (applied.empty() && !names_a_step(steps, status.error(), ctx.backend)) {
    // Refused before any file changed, for the batch as a whole (its
    // journal could not be made): the error names what failed.
    Error e = status.error();
    e.message = method + " changed nothing: " + e.message;
    co_return e;
  }
  // Undo what took effect, newest first.
  std::vector<std::size_t> newest_first(applied.rbegin(), applied.rend());
  std::vector<std::string> not_restored = co_await put_back(ctx, steps, newest_first, made_dirs);
  co_return step_failed(status.error(), failed_step(steps, applied, status.error(), ctx.backend),
                        not_restored, method);
}

boost::asio::awaitable<std::vector<std::string>> Pipeline::put_back(
    RequestContext& ctx, const std::vector<StagedChange>& steps,
    const std::vector<std::size_t>& indices, const std::vector<std::string>& made_dirs) {
  std::vector<std::string> not_restored;
  for (std::size_t i : indices) {
    const Step& s = steps[i];
    Result<void> undo;
    if (s.previous) {
      // A batch of one: the file gets its mode back too (a removed one).
      std::vector<FileChange> back(1);
      back[0].canonical = s.canonical;
      back[0].bytes = *s.previous;
      back[0].attributes = s.previous_attributes;
      std::vector<std::size_t> done;
      undo = co_await ctx.backend.apply_batch(std::move(back), done);
    } else {
      undo = co_await ctx.backend.remove(s.canonical);
    }
    if (!undo) not_restored.push_back(s.shown);
  }
  for (auto d = made_dirs.rbegin(); d != made_dirs.rend(); ++d) {
    Result<void> undo = co_await ctx.backend.remove_directory(*d);
    if (!undo && undo.error().kind != ErrorKind::kNotFound)
      not_restored.push_back(ctx.backend.display_path(*d) + "/");
  }
  co_return not_restored;
}

boost::asio::awaitable<std::pair<Result<void>, std::vector<Fd>>> Pipeline::write_and_spill(
    boost::asio::awaitable<Result<void>> write, std::vector<std::string_view> before) {
  std::vector<Fd> files(before.size());
  std::vector<std::size_t> large;
  for (std::size_t i = 0; i < before.size(); ++i)
    if (!before[i].empty() && history_.spills(before[i].size())) large.push_back(i);
  if (large.empty()) {
    Result<void> w = co_await std::move(write);
    co_return std::pair(std::move(w), std::move(files));
  }
  auto copy = [this, &files, &large, &before]() -> Result<void> {
    for (std::size_t i : large) files[i] = history_.spill(before[i]);
    return {};
  };
  using namespace boost::asio::experimental::awaitable_operators;
  auto copied = offload(pool_, copy);
  auto both = std::move(write) && std::move(copied);
  auto [w, ignored] = co_await std::move(both);
  co_return std::pair(std::move(w), std::move(files));
}

std::optional<std::vector<restore::Restore>> Pipeline::worth_keeping(
    std::optional<std::vector<restore::Restore>> restores, std::uint64_t size) const {
  if (!restores) return restores;
  const std::uint64_t held = restore::held_by(*restores);
  // As large as what goes to disk: the whole file goes there instead.
  if (held > size / 2 || history_.spills(held)) return std::nullopt;
  return restores;
}

std::optional<std::vector<restore::Restore>> Pipeline::window_restores(
    std::optional<restore::Restore> window, std::uint64_t size) const {
  if (!window) return std::nullopt;
  std::vector<restore::Restore> one;
  one.push_back(std::move(*window));
  return worth_keeping(std::move(one), size);
}

}  // namespace editd
