// The one-file mutation: resolve, hold, read and check the file, run the
// method's transform (on the pool unless it costs little), describe the change
// (diff, counts, fingerprint) and hand it to the commit (commit.h) as a batch
// of one.
#include <algorithm>

#include "edit/change/diff.h"
#include "edit/text/fingerprint.h"
#include "edit/text/format.h"
#include "edit/anchors/hashline.h"
#include "edit/match/replace.h"
#include "edit/match/occurrences.h"
#include "edit/change/splice.h"
#include "edit/change/unified_diff.h"
#include "edit/text/text.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

using ops::Mutation;
using text::without_bom;

namespace {

// Where a mutation's own result says its change starts, if it says.
std::optional<std::uint64_t> first_line(const Mutation& result) {
  if (result.lines && !result.lines->empty()) return result.lines->front().start_line;
  return std::nullopt;
}

// Runs the transform and describes the change (diff, counts, fingerprint).
Result<Transformed> compute(const Current& cur, const Transform& transform) {
  auto change = transform(cur);
  if (!change) return change;
  StagedChange& staged = change->staged;
  std::string_view before = cur.bytes ? std::string_view(*cur.bytes) : std::string_view();
  const std::string old_label = cur.bytes ? "a/" + cur.shown : std::string("/dev/null");
  const std::string new_label = "b/" + cur.shown;
  if (staged.splices && cur.lean) {
    // The new file is never made whole: the diff is made around the splices,
    // the fingerprint from the pieces, and the write takes the pieces.
    diff::UnifiedDiff d =
        splice::diff(before.substr(staged.bom), *staged.splices, old_label, new_label);
    change->result.diff = std::move(d.text);
    change->result.added = d.added;
    change->result.removed = d.removed;
    change->result.fingerprint = editd::fingerprint(staged.pieces(*cur.bytes));
    return change;
  }
  // Where the bodies (after the BOM) differ, when the splices say; else the
  // diff compares the whole bodies.
  std::optional<std::vector<diff::Window>> windows;
  if (staged.splices) {
    std::size_t size = 0;
    const std::vector<std::string_view> parts = staged.pieces(*cur.bytes);
    for (std::string_view p : parts) size += p.size();
    staged.bytes.reserve(size);
    for (std::string_view p : parts) staged.bytes.append(p);
    windows = splice::windows(*staged.splices);
    staged.splices.reset();
  }
  std::string_view after = staged.bytes;
  diff::UnifiedDiff d;
  if (windows) {
    d = diff::unified_windows(before.substr(staged.bom), after.substr(staged.bom), *windows,
                              old_label, new_label);
  } else {
    d = change->diff_bom
            ? diff::unified_texts(before, after, old_label, new_label)
            : diff::unified_texts(without_bom(before), without_bom(after), old_label, new_label);
  }
  change->result.diff = std::move(d.text);
  change->result.added = d.added;
  change->result.removed = d.removed;
  change->result.fingerprint = editd::fingerprint(staged.bytes);
  return change;
}

}  // namespace

Result<Transformed> spliced(const text::Document& doc, std::vector<splice::Splice> splices,
                            Transformed change) {
  change.staged.bom = doc.bom() ? text::kBom.size() : 0;
  change.staged.splices = std::move(splices);
  return change;
}

RunsHere new_file_runs_here(const std::string& content) {
  return [&content](const Current& cur) {
    return !cur.bytes && !cur.is_directory && content.size() <= kOffloadBytes;
  };
}

boost::asio::awaitable<Result<ops::Mutation>> Pipeline::mutate(
    RequestContext& ctx, const ops::MutationRequest& p, bool may_be_missing, RunsHere runs_here,
    const Transform& transform, const Prepare& prepare) {
  if (options_.read_only) co_return read_only_error(p.path);
  auto canonical = co_await resolve_in_turn(ctx, p.path);
  if (!canonical) co_return canonical.error();
  // Other processes on the same file wait from here until the write is done.
  auto files = co_await hold_for_mutation(ctx, std::vector<std::string>(1, *canonical));
  if (!files) co_return files.error();

  Current cur;
  cur.canonical = *canonical;
  cur.shown = ctx.backend.display_path(*canonical);
  auto bytes = co_await ctx.backend.read(*canonical);
  if (bytes) {
    files->bytes.grow_to(kMutationHold * bytes->size());
    cur.bytes = std::move(*bytes);
  } else if (may_be_missing && bytes.error().kind == ErrorKind::kNotFound) {
  } else if (may_be_missing && bytes.error().kind == ErrorKind::kIsDirectory) {
    cur.is_directory = true;
  } else {
    co_return bytes.error();
  }

  std::string current_fp = cur.bytes ? editd::fingerprint(*cur.bytes) : std::string();
  cur.fingerprint = current_fp;
  if (ctx.known && cur.bytes)
    if (const std::string* known = ctx.known->find(cur.canonical); known && *known != current_fp)
      cur.outdated_fingerprint = *known;
  if (p.expected_fingerprint && *p.expected_fingerprint != current_fp)
    co_return conflict_error(cur.shown, *p.expected_fingerprint,
                             cur.bytes ? std::optional(current_fp) : std::nullopt);
  if (!p.expected_fingerprint)
    if (auto k = check_known(ctx, cur.canonical, cur.shown, cur.bytes.has_value(), current_fp); !k)
      co_return k.error();

  if (prepare)
    if (auto ready = co_await prepare(cur); !ready) co_return ready.error();

  // The format step needs the call's bytes whole.
  const bool formatting = formats(ctx, cur.canonical, cur.shown, p.format);
  cur.lean = !ctx.approve && !ctx.approve_all && !ctx.changes && !formatting &&
             !(ctx.scope.local() && checks_.covers(Checks::Target{cur.canonical, cur.shown}));

  // On the pool unless its cost is known small: a small file with a
  // pathological oldText must not hold up the other connections
  // (docs/architecture.md, Threads).
  // A change made whole: where it differs from the file, in the same pass
  // (whether it changes anything, and what the undo history keeps).
  std::optional<restore::Restore> window;
  auto run = [&cur, &transform, &window] {
    Result<Transformed> c = compute(cur, transform);
    if (c && !c->staged.splices && cur.bytes) window = restore::window(*cur.bytes, c->staged.bytes);
    return c;
  };
  Result<Transformed> change = Error();
  if (runs_here && runs_here(cur))
    change = run();
  else
    change = co_await offload(pool_, run);
  if (!change) co_return change.error();
  StagedChange& staged = change->staged;
  files->bytes.grow_to((cur.bytes ? cur.bytes->size() : 0) + 2 * staged.bytes.size());

  bool unchanged = false;
  if (staged.splices) {
    const std::string_view body = std::string_view(*cur.bytes).substr(staged.bom);
    unchanged = std::all_of(staged.splices->begin(), staged.splices->end(),
                            [body](const splice::Splice& s) {
                              return body.substr(s.begin, s.end - s.begin) == s.bytes;
                            });
  } else {
    unchanged = cur.bytes && !window;
  }
  if (unchanged && cur.bytes && change->asked)
    co_return kept_unchanged(cur.shown, change->asked->first, change->asked->second);
  if (unchanged && cur.bytes && !change->if_unchanged.empty())
    co_return Error(ErrorKind::kNoChange, cur.shown + " is unchanged: " + change->if_unchanged,
                    {{"path", cur.shown}});
  // The formatter's hunks on the call's lines join the same write (a dry
  // run shows them too).
  std::optional<FormatStep> formatted;
  if (formatting && !unchanged) {
    std::optional<std::string_view> before;
    if (cur.bytes) before = *cur.bytes;
    formatted = co_await format(cur.canonical, cur.shown, before, staged.bytes);
    if (formatted->bytes) {
      staged.bytes = std::move(*formatted->bytes);
      formatted->bytes.reset();
      change->result.fingerprint = editd::fingerprint(staged.bytes);
      if (change->result.lines)
        change->result.lines = map_lines(*change->result.lines, *formatted);
      if (change->result.edits)
        for (ops::EditOutcome& e : *change->result.edits) e.lines = map_lines(e.lines, *formatted);
      staged.formatted = std::move(formatted->hunks);
      window.reset();
      if (cur.bytes) window = restore::window(*cur.bytes, staged.bytes);
      // The formatter put back what the call changed: nothing to write.
      unchanged = cur.bytes && !window;
    }
    change->result.format = formatted->report;
  }
  if (!p.dry_run && !unchanged) {
    // The change as the transform staged it, with what only the pipeline
    // knows: where it goes, the file before, and what the history keeps.
    staged.canonical = cur.canonical;
    staged.shown = cur.shown;
    staged.fingerprint = change->result.fingerprint;
    staged.line = first_line(change->result);
    // An edit of a few regions keeps what they held; otherwise the whole
    // file as it was (copied to disk while it is written when large).
    staged.surveyed = true;
    if (options_.undo_history_entries > 0 && cur.bytes && staged.splices)
      staged.restores = worth_keeping(
          restore::of_splices(*cur.bytes, staged.bom, *staged.splices, cur.bytes->size() / 2),
          cur.bytes->size());
    else if (options_.undo_history_entries > 0 && cur.bytes)
      staged.restores = window_restores(std::move(window), cur.bytes->size());
    if (cur.bytes) staged.previous_fingerprint = current_fp;
    staged.previous = std::move(cur.bytes);
    // A batch of one.
    std::vector<StagedChange> steps;
    steps.push_back(std::move(staged));
    auto committed = co_await commit(ctx, *files, steps, Writes::kOneFile, "");
    if (!committed) co_return committed.error();
    change->result.undo_id = std::move(committed->undo_id);
    change->result.change_id = std::move(committed->change_id);
    change->result.diagnostics = std::move(committed->reports[0]);
    if (formatted) remember_formatted(ctx, cur.canonical, change->result.fingerprint, *formatted);
  }
  if (!p.dry_run && ctx.known) ctx.known->set(cur.canonical, change->result.fingerprint);
  co_return std::move(change->result);
}

}  // namespace editd
