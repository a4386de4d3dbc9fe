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

#include "edit/text/fingerprint.h"
#include "edit/patch/patch.h"
#include "edit/text/text.h"
#include "protocol/error.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

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

using Step = StagedChange;

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

Error untouched_expectation(const std::string& param, const std::string& key) {
  return invalid_param(param, "names " + key + ", which the patch does not touch");
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
ops::Patched describe(const std::vector<patch::FileOutcome>& outcomes, bool has_modes) {
  ops::Patched r;
  for (const patch::FileOutcome& o : outcomes) {
    ops::PatchedFile f;
    f.path = o.path;
    f.action = o.action;
    f.moved_to = o.moved_to;
    f.added = o.added;
    f.removed = o.removed;
    f.overwritten = o.overwritten;
    f.executable = o.executable;
    f.mode_skipped = o.executable && !has_modes;
    f.unchanged = !changes(o);
    if (o.new_bytes) f.fingerprint = fingerprint(*o.new_bytes);
    // A file that is not text (a PNG moved, copied or deleted) has no lines
    // to show: git's one line says it changed.
    const bool binary = !o.diff.empty() &&
                        ((o.old_bytes && !text::check_text(*o.old_bytes, "file")) ||
                         (o.new_bytes && !text::check_text(*o.new_bytes, "file")));
    if (binary) {
      f.added = f.removed = 0;
      r.diff += "Binary files " + (o.old_bytes ? "a/" + o.path : std::string("/dev/null")) +
                " and " + (o.new_bytes ? "b/" + o.moved_to.value_or(o.path) : "/dev/null") +
                " differ\n";
    } else {
      r.diff += o.diff;
    }
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

// A moved file keeps its mode, and its owner where editd may give it, and its
// extended attributes: the write of its destination carries the source's (which the source's removal
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
      if (s.kind == Step::Kind::kWrite && s.shown == *o.moved_to) {
        s.attributes = st->attributes;
        s.metadata_from = canonical.at(o.path);
      }
      if (s.kind == Step::Kind::kRemove && s.shown == o.path)
        s.previous_attributes = st->attributes;
    }
  }
  co_return Result<void>();
}

}  // namespace

boost::asio::awaitable<Result<ops::Patched>> Operations::apply_patch(RequestContext& ctx,
                                                                     ops::PatchRequest p) {
  if (pipeline_->options().read_only) co_return read_only_patch();
  if (!p.path_rule) co_return Error(ErrorKind::kInternal, "apply_patch was given no path rule");
  auto parse = [&p] { return patch::parse(p.patch, p.path_rule); };
  Result<patch::Patch> parsed = Error();
  if (p.patch.size() > kOffloadBytes)
    parsed = co_await offload(pipeline_->pool(), parse);
  else
    parsed = parse();
  if (!parsed) co_return parsed.error();
  PatchRun run;
  run.expected_fingerprints = std::move(p.expected_fingerprints);
  run.dry_run = p.dry_run;
  run.format = p.format;
  run.method = "apply_patch";
  co_return co_await apply_parsed(ctx, std::move(*parsed), std::move(run));
}

boost::asio::awaitable<Result<ops::Patched>> Operations::apply_parsed(RequestContext& ctx,
                                                                      patch::Patch patch_in,
                                                                      PatchRun p) {
  // One name for the patch below, as apply_patch's body had it.
  std::optional<patch::Patch> parsed(std::move(patch_in));

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
    auto c = co_await pipeline_->resolve_in_turn(ctx, key);
    if (!c) co_return c.error();
    std::string shown = ctx.backend.display_path(*c);
    if (!canonical.count(shown)) co_return untouched_expectation(p.expectation_param, key);
    expected[shown] = fp;
  }

  std::vector<std::string> keys;
  for (const auto& [shown, c] : canonical) keys.push_back(c);
  auto files = co_await pipeline_->hold_for_mutation(ctx, std::move(keys));
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
      if (auto k = pipeline_->check_known(ctx, c, shown, exists, fp); !k) co_return k.error();
    inputs.emplace(shown, std::move(input));
  }
  // A copy's new file: the source's bytes as read under the chains, and its
  // executable bit (not its owner, other mode bits or extended attributes).
  for (const auto& [add, source] : p.copies) {
    patch::FilePatch& f = parsed->files.at(add);
    const patch::FilePatch& from = parsed->files.at(source);
    if (auto in = inputs.find(from.path);
        in != inputs.end() && in->second.state == patch::FileInput::State::kFile)
      f.content = in->second.bytes;
    if (ctx.backend.has_modes()) {
      Result<FileStat> st = co_await ctx.backend.stat(canonical.at(from.path));
      if (st && st->attributes && (st->attributes->mode & 0111) != 0) f.executable = true;
    }
  }
  if (p.check)
    if (auto checked = p.check(*parsed, inputs); !checked) co_return checked.error();

  // On the pool whatever the size: seeking a chunk costs more than the bytes
  // (docs/architecture.md, Threads).
  auto apply = [&parsed, &inputs] { return patch::apply(*parsed, inputs); };
  Result<std::vector<patch::FileOutcome>> outcomes = Error();
  outcomes = co_await offload(pipeline_->pool(), apply);
  if (!outcomes) co_return outcomes.error();
  if (std::none_of(outcomes->begin(), outcomes->end(), editd::changes)) co_return unchanged_patch();

  // The format step of each file the patch writes (--format), before the
  // result describes the bytes: the patch's own diff stays the patch's.
  std::map<std::string, FormatStep> formatted;  // display path written -> its step
  for (patch::FileOutcome& o : *outcomes) {
    if (!o.new_bytes || !editd::changes(o)) continue;
    const std::string& dest = o.moved_to ? *o.moved_to : o.path;
    const std::string& c = canonical.at(dest);
    if (!pipeline_->formats(ctx, c, dest, p.format)) continue;
    FormatStep step = co_await pipeline_->format(c, dest, o.old_bytes, *o.new_bytes);
    if (step.bytes) {
      o.new_bytes = std::move(*step.bytes);
      step.bytes.reset();
    }
    formatted.emplace(dest, std::move(step));
  }

  ops::Patched result = describe(*outcomes, ctx.backend.has_modes());
  for (ops::PatchedFile& f : result.files)
    if (auto it = formatted.find(f.moved_to ? *f.moved_to : f.path); it != formatted.end())
      f.format = it->second.report;
  std::vector<Step> steps = plan_steps(*outcomes, canonical, inputs);
  for (Step& s : steps)
    if (auto it = formatted.find(s.shown); it != formatted.end() && s.kind == Step::Kind::kWrite)
      s.formatted = std::move(it->second.hunks);
  for (const Step& s : steps)
    if (s.kind == Step::Kind::kRemove && !ctx.backend.can_remove())
      co_return unsupported_removal(s.shown);
  if (p.dry_run) co_return result;
  if (auto r = co_await carry_modes(ctx.backend, *outcomes, canonical, steps); !r)
    co_return r.error();

  auto committed = co_await pipeline_->commit(ctx, *files, steps, Writes::kBatch, p.method);
  if (!committed) co_return committed.error();
  result.undo_id = std::move(committed->undo_id);
  result.change_id = std::move(committed->change_id);
  attach_reports(steps, *committed, result);
  for (const ops::PatchedFile& f : result.files) {
    const std::string& dest = f.moved_to ? *f.moved_to : f.path;
    if (auto it = formatted.find(dest); it != formatted.end() && f.fingerprint)
      pipeline_->remember_formatted(ctx, canonical.at(dest), *f.fingerprint, it->second);
  }
  co_return result;
}

}  // namespace editd
