// apply_patch: a multi-file patch lands whole or not at all.
//
// Everything that can fail without touching a file happens first: the patch is
// parsed and every path resolved; the chains of every touched file are taken at
// once, in sorted order; every file is read, fingerprints and --require-read
// checked, and the whole patch applied in memory (edit/patch/patch.h). Only then are
// files written: new contents first (adds, updates, move destinations), then
// removals, so that a crash part-way never loses a moved file's content. When a
// step fails, every step already done is undone in reverse order (the previous
// bytes written back, added files and the directories made for them removed)
// and the error says what failed and whether the tree was fully restored.
#include <algorithm>
#include <map>
#include <set>

#include "backends/offload.h"
#include "edit/text/fingerprint.h"
#include "edit/patch/patch.h"
#include "edit/text/text.h"
#include "protocol/params.h"
#include "server/ops/operations.h"

namespace editd {

Error unsupported_removal(const std::string& shown) {
  return Error(ErrorKind::kDenied,
               "cannot delete " + shown +
                   ": this connection's files live in the client, and ACP has no request to "
                   "delete one; nothing was changed",
               {{"path", shown}, {"reason", "unsupported"}});
}

namespace {

using text::without_bom;

using Step = FileStep;

Error read_only_patch() {
  return Error(ErrorKind::kDenied,
               "the server is read-only (--read-only): the patch was not applied");
}

// no_change for a patch that leaves every file as it was: what it changed
// is only what the fidelity rules keep.
Error unchanged_patch() {
  return Error(ErrorKind::kNoChange,
               "the patch leaves every file's bytes as they were: what it changes is only what "
               "every edit keeps as the file has it (line endings, a BOM, the final newline; "
               "byte fidelity), so nothing was written. To convert line endings, add or remove "
               "the BOM, or add or remove the final newline, call set_format (lineEndings, bom, "
               "finalNewline)");
}

// Whether an outcome changes anything: an Update whose bytes stay and which
// sets no mode does not.
bool changes(const patch::FileOutcome& o) {
  return o.action != patch::Action::kUpdate || !o.old_bytes || !o.new_bytes ||
         *o.old_bytes != *o.new_bytes || o.executable;
}

Error untouched_expectation(const std::string& key) {
  return invalid_param("expectedFingerprints",
                       "names " + key + ", which the patch does not touch");
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
    e.message = method + " changed nothing: " + what +
                "; every file it had already changed was restored";
  } else {
    e.data["notRestored"] = not_restored;
    std::string list;
    for (const std::string& p : not_restored) list += (list.empty() ? "" : ", ") + p;
    e.message = method + " failed part-way: " + what + "; these could not be restored: " + list;
  }
  return e;
}

// The patch with every path rewritten to its display form, so that two
// spellings of one file ("a.txt", "./x/../a.txt") are one file to apply().
// Fills `canonical` with display path -> canonical path.
Result<void> normalise_paths(const FsBackend& backend, patch::Patch& p,
                             std::map<std::string, std::string>& canonical) {
  auto normalise = [&](std::string& path) -> Result<void> {
    auto c = backend.resolve(path);
    if (!c) return c.error();
    path = backend.display_path(*c);
    canonical.emplace(path, *c);
    return {};
  };
  for (patch::FilePatch& f : p.files) {
    if (auto r = normalise(f.path); !r) return r;
    if (f.move_to)
      if (auto r = normalise(*f.move_to); !r) return r;
  }
  return {};
}

patch::FileInput input_of(Result<std::string>& bytes) {
  patch::FileInput in;
  if (bytes) {
    in.state = patch::FileInput::State::kFile;
    in.bytes = std::move(*bytes);
  } else if (bytes.error().kind == ErrorKind::kIsDirectory) {
    in.state = patch::FileInput::State::kDirectory;
  }
  return in;
}

bool readable(const Result<std::string>& bytes) {
  return bytes || bytes.error().kind == ErrorKind::kNotFound ||
         bytes.error().kind == ErrorKind::kIsDirectory;
}

// The result the client sees: one entry per file, and one diff for them all.
protocol::ApplyPatchResult describe(const std::vector<patch::FileOutcome>& outcomes,
                                    bool has_modes) {
  protocol::ApplyPatchResult r;
  for (const patch::FileOutcome& o : outcomes) {
    protocol::PatchFileResult f;
    f.path = o.path;
    f.action = std::string(patch::action_name(o.action));
    f.moved_to = o.moved_to;
    f.added = o.added;
    f.removed = o.removed;
    f.overwritten = o.overwritten;
    f.executable = o.executable;
    f.mode_skipped = o.executable && !has_modes;
    f.unchanged = !changes(o);
    if (o.new_bytes) f.fingerprint = fingerprint(*o.new_bytes);
    r.diff += o.diff;
    r.files.push_back(std::move(f));
  }
  return r;
}

// Writes first, removals last (see the top of the file). The new contents and
// the inputs' bytes move into the steps: the outcomes (whose old_bytes view the
// inputs) are not read after this.
std::vector<Step> plan_steps(std::vector<patch::FileOutcome>& outcomes,
                             const std::map<std::string, std::string>& canonical,
                             std::map<std::string, patch::FileInput>& inputs) {
  std::vector<Step> steps;
  auto previous = [&](const std::string& shown) -> std::optional<std::string> {
    patch::FileInput& in = inputs.at(shown);
    if (in.state != patch::FileInput::State::kFile) return std::nullopt;
    return std::move(in.bytes);  // each path is in one step at most
  };
  for (patch::FileOutcome& o : outcomes) {
    // A file the patch leaves as it was is not written (nor put in the undo).
    if (!o.new_bytes || !changes(o)) continue;
    const std::string& dest = o.moved_to ? *o.moved_to : o.path;
    Step& s = steps.emplace_back();
    s.canonical = canonical.at(dest);
    s.shown = dest;
    s.bytes = std::move(*o.new_bytes);
    s.previous = previous(dest);
    s.executable = o.executable;
  }
  for (const patch::FileOutcome& o : outcomes) {
    bool removes = o.action == patch::Action::kDelete ||
                   (o.action == patch::Action::kMove && o.moved_to && *o.moved_to != o.path);
    if (!removes) continue;
    Step& s = steps.emplace_back();
    s.kind = Step::Kind::kRemove;
    s.canonical = canonical.at(o.path);
    s.shown = o.path;
    s.previous = previous(o.path);
  }
  return steps;
}

// Whether a failed batch's data.path is one of `steps`.
bool names_a_step(const std::vector<Step>& steps, const Error& e, const FsBackend& backend) {
  if (!e.data.is_object() || !e.data.contains("path") || !e.data["path"].is_string()) return false;
  const std::string path = e.data["path"].get<std::string>();
  for (const Step& s : steps)
    if (s.shown == path || s.canonical == path || backend.display_path(s.canonical) == path)
      return true;
  return false;
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
      if (!was_applied(i) && (steps[i].shown == path || steps[i].canonical == path ||
                              backend.display_path(steps[i].canonical) == path))
        return steps[i];
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (!was_applied(i)) return steps[i];
  return steps.back();
}

// What the undo history keeps of `steps`, given the fingerprints of what they
// wrote and the restores kept instead of whole contents before (with the
// fingerprints of those contents); the contents before move into it unless `keep`.
std::vector<UndoFile> undo_files(
    std::vector<Step>& steps, const std::vector<std::string>& written_fingerprints,
    std::vector<std::optional<std::vector<restore::Restore>>>& restores,
    const std::vector<std::string>& before_fingerprints, std::vector<Fd>& spilled, bool keep) {
  std::vector<UndoFile> files;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    UndoFile f;
    f.canonical = s.canonical;
    f.shown = s.shown;
    if (restores[i]) {
      f.restores = std::move(restores[i]);
      f.before_size = s.previous->size();
      f.before_fingerprint = before_fingerprints[i];
    } else {
      f.before = keep ? s.previous : std::move(s.previous);
    }
    f.spilled = std::move(spilled[i]);
    if (s.kind == Step::Kind::kWrite) f.after_fingerprint = written_fingerprints[i];
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

// A moved file keeps its mode, and its owner where editd may give it: the
// write of its destination carries the source's (which the source's removal
// keeps for the history).
boost::asio::awaitable<Result<void>> carry_modes(
    FsBackend& backend, const std::vector<patch::FileOutcome>& outcomes,
    const std::map<std::string, std::string>& canonical, std::vector<Step>& steps) {
  if (!backend.has_modes()) co_return Result<void>();
  for (const patch::FileOutcome& o : outcomes) {
    if (o.action != patch::Action::kMove || !o.moved_to || *o.moved_to == o.path) continue;
    Result<FileStat> st = co_await backend.stat(canonical.at(o.path));
    if (!st) co_return st.error();
    for (Step& s : steps) {
      if (s.kind == Step::Kind::kWrite && s.shown == *o.moved_to) s.attributes = st->attributes;
      if (s.kind == Step::Kind::kRemove && s.shown == o.path)
        s.previous_attributes = st->attributes;
    }
  }
  co_return Result<void>();
}

// The ACP diff of one step: whole-file texts, the new text empty for a deletion.
FileChange change_of(const Step& s) {
  return file_change(s.canonical, s.previous, s.kind == Step::Kind::kWrite ? s.bytes : "");
}

}  // namespace

boost::asio::awaitable<Result<protocol::ApplyPatchResult>> Operations::apply_patch(
    RequestContext& ctx, protocol::ApplyPatchParams p) {
  if (options_.read_only) co_return read_only_patch();
  auto parse = [&p] { return patch::parse(p.patch, protocol::path_problem); };
  Result<patch::Patch> parsed = Error();
  if (p.patch.size() > kOffloadBytes)
    parsed = co_await offload(pool_, parse);
  else
    parsed = parse();
  if (!parsed) co_return parsed.error();

  std::map<std::string, std::string> canonical;  // display path -> canonical
  if (auto r = normalise_paths(ctx.backend, *parsed, canonical); !r) {
    // Judged in its turn (resolve_in_turn): again, once the requests before
    // it have ended. Paths already normalised resolve to themselves.
    if (ctx.place) co_await ctx.place->after_earlier();
    canonical.clear();
    if (auto again = normalise_paths(ctx.backend, *parsed, canonical); !again)
      co_return again.error();
  }
  std::map<std::string, std::string> expected;  // display path -> fingerprint
  for (const auto& [key, fp] : p.expected_fingerprints) {
    auto c = ctx.backend.resolve(key);
    if (!c) c = co_await resolve_in_turn(ctx, key, std::move(c));
    if (!c) co_return c.error();
    std::string shown = ctx.backend.display_path(*c);
    if (!canonical.count(shown)) co_return untouched_expectation(key);
    expected[shown] = fp;
  }

  std::vector<std::string> keys;
  for (const auto& [shown, c] : canonical) keys.push_back(c);
  auto files = co_await hold_for_mutation(ctx, std::move(keys));
  if (!files) co_return files.error();

  // Read every touched file; check what the caller expects of each.
  std::map<std::string, patch::FileInput> inputs;  // display path -> the file as found
  for (const auto& [shown, c] : canonical) {
    Result<std::string> bytes = co_await ctx.backend.read(c);
    if (!readable(bytes)) co_return bytes.error();
    patch::FileInput input = input_of(bytes);
    const bool exists = input.state == patch::FileInput::State::kFile;
    const std::string fp = exists ? editd::fingerprint(input.bytes) : std::string();
    if (auto e = expected.find(shown); e != expected.end() && e->second != fp)
      co_return conflict_error(shown, e->second, exists ? std::optional(fp) : std::nullopt);
    if (!expected.count(shown))
      if (auto k = check_known(ctx, c, shown, exists, fp); !k) co_return k.error();
    inputs.emplace(shown, std::move(input));
  }

  // On the pool whatever the size: seeking a chunk costs more than the bytes
  // (docs/architecture.md, Threads).
  auto apply = [&parsed, &inputs] { return patch::apply(*parsed, inputs); };
  Result<std::vector<patch::FileOutcome>> outcomes = Error();
  outcomes = co_await offload(pool_, apply);
  if (!outcomes) co_return outcomes.error();
  if (std::none_of(outcomes->begin(), outcomes->end(), changes)) co_return unchanged_patch();

  protocol::ApplyPatchResult result = describe(*outcomes, ctx.backend.has_modes());
  std::vector<Step> steps = plan_steps(*outcomes, canonical, inputs);
  for (const Step& s : steps)
    if (s.kind == Step::Kind::kRemove && !ctx.backend.can_remove())
      co_return unsupported_removal(s.shown);
  if (p.dry_run) co_return result;
  if (auto r = co_await carry_modes(ctx.backend, *outcomes, canonical, steps); !r)
    co_return r.error();

  if (ctx.approve) {
    for (const Step& s : steps) {
      FileChange c = change_of(s);
      auto ok = co_await ctx.approve(s.shown, c.old_text, c.new_text);
      if (!ok) co_return ok.error();
    }
  }
  if (auto c = check_cancel(ctx); !c) co_return c.error();
  if (ctx.cancel) ctx.cancel->committed = true;

  StepChecks checks = co_await checks_before(ctx, steps);
  const bool checked = std::any_of(checks.begin(), checks.end(),
                                   [](const auto& c) { return c.has_value(); });
  auto undo_id = co_await commit_steps(ctx, steps, "apply_patch", checked);
  if (!undo_id) co_return undo_id.error();
  result.undo_id = std::move(*undo_id);
  files->processes.reset();  // other processes need not wait for the checks
  files->chains.downgrade();  // nor reads: only mutations, which would change what they read
  co_await checks_after(steps, std::move(checks), result);
  co_return result;
}

boost::asio::awaitable<Operations::StepChecks> Operations::checks_before(
    const RequestContext& ctx, const std::vector<FileStep>& steps) {
  StepChecks out(steps.size());
  if (ctx.scope != "local") co_return out;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Checks::Target target{steps[i].canonical, steps[i].shown};
    if (steps[i].kind == FileStep::Kind::kWrite && checks_.covers(target))
      out[i] = co_await checks_.before(target, steps[i].previous);
  }
  co_return out;
}

boost::asio::awaitable<void> Operations::checks_after(const std::vector<FileStep>& steps,
                                                      StepChecks before,
                                                      protocol::ApplyPatchResult& result) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!before[i]) continue;
    const FileStep& s = steps[i];
    // Named, not a temporary in the co_await expression (GCC 12 coroutines).
    const Checks::Target target{s.canonical, s.shown};
    protocol::DiagnosticsReport report =
        co_await checks_.after(target, std::move(*before[i]), s.previous, s.bytes);
    for (protocol::PatchFileResult& f : result.files)
      if (f.moved_to.value_or(f.path) == s.shown && f.action != "delete") f.diagnostics = report;
  }
}

boost::asio::awaitable<Result<std::optional<std::string>>> Operations::commit_steps(
    RequestContext& ctx, std::vector<FileStep>& steps, std::string method, bool keep_contents) {
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
  // Directories that writes will create, for the rollback to remove.
  std::vector<std::string> made_dirs;
  for (const Step& s : steps)
    if (s.kind == Step::Kind::kWrite && !s.previous)
      for (std::string& d : ctx.backend.missing_directories(s.canonical))
        if (std::find(made_dirs.begin(), made_dirs.end(), d) == made_dirs.end())
          made_dirs.push_back(std::move(d));

  // While the new contents are at hand: what the connection will know of each
  // written file, and what changed in each existing one for the history.
  std::vector<std::string> written_fingerprints(steps.size());
  std::vector<std::optional<std::vector<restore::Restore>>> restores(steps.size());
  std::vector<std::string> before_fingerprints(steps.size());
  const bool undoable = options_.undo_history_entries > 0;
  auto survey = [&, undoable]() -> Result<void> {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      if (s.kind != Step::Kind::kWrite) continue;
      written_fingerprints[i] = editd::fingerprint(s.bytes);
      if (undoable && s.previous)
        restores[i] = window_restores(restore::window(*s.previous, s.bytes), s.previous->size());
      if (restores[i]) before_fingerprints[i] = editd::fingerprint(*s.previous);
    }
    return {};
  };
  std::size_t bytes = 0;
  for (const Step& s : steps) bytes += s.bytes.size() + (s.previous ? s.previous->size() : 0);
  if (bytes <= kOffloadBytes) {
    survey();
  } else if (Result<void> surveyed = co_await offload(pool_, survey); !surveyed) {
    co_return surveyed.error();  // passes over large files: on the pool
  }
  // The new contents move into the batch unless an ACP session or the caller
  // reads them afterwards.
  const bool move_contents = !keep_contents && !ctx.changes;
  std::vector<FsBackend::BatchOp> ops;
  for (Step& s : steps) {
    FsBackend::BatchOp op;
    op.kind = s.kind == Step::Kind::kWrite ? FsBackend::BatchOp::Kind::kWrite
                                           : FsBackend::BatchOp::Kind::kRemove;
    op.canonical = s.canonical;
    if (s.kind == Step::Kind::kWrite) op.bytes = move_contents ? std::move(s.bytes) : s.bytes;
    op.attributes = s.attributes;
    op.executable = s.executable;
    ops.push_back(std::move(op));
  }
  // Large files as they were are copied for the history while the batch lands.
  std::vector<std::string_view> kept;
  for (std::size_t i = 0; i < steps.size(); ++i)
    kept.push_back(steps[i].previous && !restores[i] ? std::string_view(*steps[i].previous) : "");
  std::vector<std::size_t> applied;
  auto batch = ctx.backend.apply_batch(std::move(ops), applied);
  auto written = co_await write_and_spill(std::move(batch), std::move(kept));
  Result<void>& status = written.first;
  if (!status && applied.empty() && !names_a_step(steps, status.error(), ctx.backend)) {
    // Refused before any file changed, for the batch as a whole (its
    // journal could not be made): the error names what failed.
    Error e = status.error();
    e.message = method + " changed nothing: " + e.message;
    co_return e;
  }
  if (!status) {
    // Undo what took effect, newest first.
    std::vector<std::string> not_restored;
    for (auto i = applied.rbegin(); i != applied.rend(); ++i) {
      const Step& s = steps[*i];
      Result<void> undo;
      if (s.previous) {
        // A batch of one: the file gets its mode back too (a removed one).
        std::vector<FsBackend::BatchOp> back(1);
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
    co_return step_failed(status.error(), failed_step(steps, applied, status.error(), ctx.backend),
                          not_restored, method);
  }

  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (ctx.changes) ctx.changes->push_back(change_of(s));
    if (!ctx.known) continue;
    if (s.kind == Step::Kind::kWrite)
      ctx.known->set(s.canonical, written_fingerprints[i]);
    else
      ctx.known->erase(s.canonical);
  }
  co_return history_.record(ctx.scope,
                            undo_files(steps, written_fingerprints, restores, before_fingerprints,
                                       written.second, keep_contents),
                            std::move(made_dirs));
}

}  // namespace editd
