// changes and revert: the ledger read, and changes taken back hunk by hunk
// (server/ledger/ledger.h, edit/change/hunks.h); undo of a change the
// memory history no longer has (a restart since) goes through here too.
//
// A revert takes the files its hunks touch together (their chains, then the
// processes' lock), reads each, and takes back the hunks of each change,
// newest change first, from the file as it is now: each hunk's new lines are
// looked for where the later changes on record moved them (hunks::follow),
// else as the one place in the file that holds them with their context.
// A hunk not found as its change left it refuses the whole revert with
// `conflict`, naming the hunk and the lines there now; nothing is written.
// Lines written since by anyone, elsewhere in the file, are never touched.
// The files are then written through the commit pipeline as one batch
// (the journal: all or nothing), and the revert is itself on the record.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "edit/text/fingerprint.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

using nlohmann::json;

Error ledger_off() {
  return Error(ErrorKind::kUnsupported,
               "the ledger is off (--ledger off): no change is on record to list or revert",
               {{"reason", "ledger_off"}});
}

Error read_only_revert() {
  return Error(ErrorKind::kDenied, "the server is read-only (--read-only): nothing was reverted");
}

Error bad_id(const std::string& id, const char* param) {
  return Error(ErrorKind::kInvalidParams,
               std::string("invalid ") + param + " '" + id +
                   "': a change is named c<N> (c12), a hunk c<N>:<K> (c12:3), as `changes` "
                   "lists them",
               {{"param", param}, {"id", id}});
}

Error unknown_change(const std::string& id, std::int64_t oldest) {
  if (auto n = ledger::parse_entry_id(id); n && *n < oldest)
    return Error(ErrorKind::kNotFound,
                 "change " + id + " is gone from the ledger: it keeps the newest changes within "
                 "--ledger-bytes, from " + ledger::entry_id(oldest) + " on",
                 {{"change", id}, {"reason", "forgotten"}, {"oldestKept", ledger::entry_id(oldest)}});
  return Error(ErrorKind::kNotFound,
               "no change " + id + " is on record for this root (see `changes`)",
               {{"change", id}});
}

Error untrusted(const std::string& id) {
  return Error(ErrorKind::kDenied,
               "change " + id + " is not reverted: its record's tag does not match this user's "
               "key, so editd did not write it; nothing was changed",
               {{"change", id}, {"reason", "untrusted"}});
}

Error unknown_hunk(const std::string& id, std::size_t count) {
  return Error(ErrorKind::kNotFound,
               "no hunk " + id + ": its change has " + std::to_string(count) + " hunk" +
                   (count == 1 ? "" : "s"),
               {{"hunk", id}, {"hunks", count}});
}

Error dropped(const std::string& id, const std::string& path) {
  return Error(ErrorKind::kUnsupported,
               "change " + id + " of " + path + " was larger than the ledger keeps for one change "
               "(a quarter of --ledger-bytes): what changed is on record, not its lines",
               {{"change", id}, {"path", path}, {"reason", "not_kept"}});
}

Error nothing_selected() {
  return Error(ErrorKind::kInvalidParams,
               "revert needs `changes` (c12) or `hunks` (c12:3) to take back, of the files in "
               "`paths` when given",
               {{"param", "changes"}});
}

Error off_the_paths() {
  return Error(ErrorKind::kNoMatch,
               "nothing to revert: the changes named touch none of `paths`",
               {{"param", "paths"}});
}

// The hunk `id` could not be taken back: the lines there now.
Error hunk_conflict(const std::string& id, const std::string& path, const hunks::Conflict& c,
                    const hunks::Hunk& h) {
  auto cut = [](std::string s) {
    if (s.size() > 2048) s.resize(2048);
    return s;
  };
  std::string found = c.found.empty() ? "(nothing: the file ends before it)" : c.found;
  return Error(ErrorKind::kConflict,
               "revert refused: hunk " + id + " of " + path + " is no longer as its change "
               "left it (changed since, or it could not be told apart from another place); "
               "at line " + std::to_string(c.line + 1) + " the file now holds:\n" +
                   cut(found) + "\nnothing was changed; revert the other hunks alone, or read "
                   "the file and edit it",
               {{"hunk", id},
                {"path", path},
                {"line", c.line + 1},
                {"found", cut(c.found)},
                {"expected", cut(h.new_text)}});
}

Error undo_changed_since(const std::string& id, const std::string& path,
                    const std::optional<std::string>& expected,
                    const std::optional<std::string>& current) {
  return Error(ErrorKind::kConflict,
               "undo refused: " + path +
                   (current ? (expected ? " changed" : " exists again") : " no longer exists") +
                   " since " + id + " wrote it; nothing was changed (an undo only puts back "
                   "files that are still exactly what the change left; `revert` takes back "
                   "hunks whatever else changed)",
               {{"path", path},
                {"undoId", id},
                {"expectedFingerprint", expected ? json(*expected) : json(nullptr)},
                {"currentFingerprint", current ? json(*current) : json(nullptr)}});
}

// One change's hunks of one file chosen for the revert.
struct Chosen {
  std::int64_t entry = 0;
  const ledger::FileRecord* file = nullptr;
  std::vector<std::size_t> hunks;  // indexes into file->hunks
  std::vector<std::string> ids;    // their hunk ids
  bool whole = false;              // every hunk of the file
};

// What a revert plans: each file's chosen hunks, newest change first.
struct Plan {
  std::vector<ledger::Entry> entries;  // loaded, by id
  std::map<std::string, std::vector<Chosen>> files;  // path -> choices
};

}  // namespace

// The ledger's entries named by `p`, and the hunks chosen of each file.
// Blocking: for the pool.
static Result<Plan> plan_revert(ledger::Ledger& lg, const ops::RevertRequest& p) {
  std::map<std::int64_t, std::set<std::size_t>> wanted;  // entry -> hunk numbers (empty: all)
  std::map<std::int64_t, std::string> named;
  for (const std::string& c : p.changes) {
    auto id = ledger::parse_entry_id(c);
    if (!id) return bad_id(c, "changes");
    wanted[*id].clear();
    named[*id] = c;
  }
  std::set<std::int64_t> whole;
  for (const auto& [id, none] : wanted) whole.insert(id);
  for (const std::string& h : p.hunks) {
    auto id = ledger::parse_hunk_id(h);
    if (!id) return bad_id(h, "hunks");
    named.emplace(id->first, ledger::entry_id(id->first));
    if (!whole.count(id->first)) wanted[id->first].insert(id->second);
  }
  if (wanted.empty()) return nothing_selected();
  Plan plan;
  const std::set<std::string> only(p.paths.begin(), p.paths.end());
  for (const auto& [id, numbers] : wanted) {
    auto entry = lg.get(id);
    if (!entry) return entry.error();
    if (!*entry) return unknown_change(named[id], lg.oldest_kept());
    if ((*entry)->untrusted) return untrusted(named[id]);
    plan.entries.push_back(std::move(**entry));
  }
  for (const ledger::Entry& e : plan.entries) {
    const std::set<std::size_t>& numbers = wanted[e.id];
    std::size_t n = 0, total = 0;
    for (const ledger::FileRecord& f : e.files) total += f.hunks.size();
    for (std::size_t want : numbers)
      if (want > total) return unknown_hunk(ledger::hunk_id(e.id, want), total);
    for (const ledger::FileRecord& f : e.files) {
      Chosen c;
      c.entry = e.id;
      c.file = &f;
      for (std::size_t i = 0; i < f.hunks.size(); ++i) {
        ++n;
        if (!numbers.empty() && !numbers.count(n)) continue;
        c.hunks.push_back(i);
        c.ids.push_back(ledger::hunk_id(e.id, n));
      }
      const bool touched = numbers.empty() || !c.hunks.empty();
      if (!touched || (!only.empty() && !only.count(f.path))) continue;
      if (f.hunks_dropped) return dropped(ledger::entry_id(e.id), f.path);
      c.whole = c.hunks.size() == f.hunks.size();
      if (c.hunks.empty()) continue;  // a mode change alone: nothing to take back here
      plan.files[f.path].push_back(std::move(c));
    }
  }
  if (plan.files.empty()) return off_the_paths();
  for (auto& [path, choices] : plan.files)
    std::sort(choices.begin(), choices.end(),
              [](const Chosen& a, const Chosen& b) { return a.entry > b.entry; });
  return plan;
}

// The file at `path` with `choices` (newest first) taken back, starting
// from `current` (nullopt: no file there now). `later` gives the entries
// after an id that touch the path. Blocking: for the pool.
static Result<std::optional<std::string>> revert_file(
    ledger::Ledger& lg, const std::string& path, const std::optional<std::string>& current,
    const std::vector<Chosen>& choices, const std::set<std::int64_t>& reverted, bool strict) {
  std::string working = current.value_or("");
  bool exists = current.has_value();
  for (const Chosen& c : choices) {
    const ledger::FileRecord& f = *c.file;
    const std::string id = ledger::entry_id(c.entry);
    if (strict) {
      const std::optional<std::string> now =
          exists ? std::optional(editd::fingerprint(working)) : std::nullopt;
      if (now != f.after_fingerprint) return undo_changed_since(id, path, f.after_fingerprint, now);
    } else if (!exists && f.after_fingerprint) {
      hunks::Conflict gone;
      gone.line = 0;
      return hunk_conflict(c.ids.front(), path, gone, f.hunks[c.hunks.front()]);
    }
    std::vector<const hunks::Hunk*> chosen;
    std::vector<std::optional<std::uint64_t>> expected;
    std::vector<std::vector<hunks::Hunk>> later;
    if (!strict) {
      auto after = lg.later_on(path, c.entry);
      if (!after) return after.error();
      for (ledger::Entry& e : *after) {
        if (reverted.count(e.id)) continue;
        for (ledger::FileRecord& r : e.files)
          if (r.path == path) later.push_back(std::move(r.hunks));
      }
    }
    for (std::size_t i : c.hunks) {
      chosen.push_back(&f.hunks[i]);
      expected.push_back(strict ? std::optional(f.hunks[i].new_start)
                                : hunks::follow(f.hunks[i], later));
    }
    hunks::Reverted r = hunks::revert(working, chosen, expected);
    if (!r.bytes) {
      const hunks::Conflict& k = *r.conflict;
      return hunk_conflict(c.ids[k.index], path, k, *chosen[k.index]);
    }
    working = std::move(*r.bytes);
    exists = true;
    // The change made the file, and all of it is taken back: it goes again.
    if (c.whole && !f.before_fingerprint && working.empty()) exists = false;
  }
  if (!exists) return std::optional<std::string>();
  return std::optional<std::string>(std::move(working));
}

boost::asio::awaitable<Result<ops::Changes>> Operations::changes(RequestContext& ctx,
                                                                 ops::ChangesRequest p) {
  (void)ctx;
  Result<ledger::Ledger*> lg = pipeline_->ledger();
  if (!lg) co_return lg.error();
  if (!*lg) co_return ledger_off();
  ledger::Ledger* l = *lg;
  // The lambda holds references only: GCC 12 destroys a temporary of a
  // co_await expression twice, harmless only when it owns nothing.
  const ledger::Filter& filter = p.filter;
  auto list = [l, &filter] { return l->list(filter); };
  co_return co_await offload(pipeline_->pool(), list);
}

Result<ledger::Ledger*> Operations::ledger() { return pipeline_->ledger(); }

boost::asio::awaitable<Result<ops::Patched>> Operations::revert(RequestContext& ctx,
                                                                ops::RevertRequest p) {
  co_return co_await revert_changes(ctx, std::move(p), false);
}

boost::asio::awaitable<Result<ops::Patched>> Operations::revert_changes(RequestContext& ctx,
                                                                        ops::RevertRequest p,
                                                                        bool strict) {
  if (pipeline_->options().read_only) co_return read_only_revert();
  Result<ledger::Ledger*> lg = pipeline_->ledger();
  if (!lg) co_return lg.error();
  if (!*lg) co_return ledger_off();
  ledger::Ledger* l = *lg;
  Result<Plan> plan = co_await offload(pipeline_->pool(), [l, &p] { return plan_revert(*l, p); });
  if (!plan) co_return plan.error();

  std::map<std::string, std::string> canonical;  // path -> canonical
  for (const auto& [path, choices] : plan->files) {
    auto c = co_await pipeline_->resolve_in_turn(ctx, path);
    if (!c) co_return c.error();
    canonical[path] = *c;
  }
  std::vector<std::string> keys;
  for (const auto& [path, c] : canonical) keys.push_back(c);
  auto files = co_await pipeline_->hold_for_mutation(ctx, std::move(keys));
  if (!files) co_return files.error();

  std::map<std::string, std::optional<std::string>> current;
  for (const auto& [path, c] : canonical) {
    Result<std::string> bytes = co_await ctx.backend.read(c);
    if (bytes)
      current[path] = std::move(*bytes);
    else if (bytes.error().kind == ErrorKind::kNotFound)
      current[path] = std::nullopt;
    else
      co_return bytes.error();
  }

  std::set<std::int64_t> reverted;
  for (const ledger::Entry& e : plan->entries) reverted.insert(e.id);
  std::vector<StagedChange> steps;
  auto compute = [&]() -> Result<ops::Patched> {
    // Writes first, removals last.
    std::vector<StagedChange> removals;
    for (const auto& [path, choices] : plan->files) {
      auto now = revert_file(*l, path, current[path], choices, reverted, strict);
      if (!now) return now.error();
      if (*now == current[path]) continue;
      StagedChange s;
      s.canonical = canonical[path];
      s.shown = path;
      s.previous = current[path];
      if (*now) {
        s.kind = StagedChange::Kind::kWrite;
        s.bytes = std::move(**now);
        steps.push_back(std::move(s));
      } else {
        s.kind = StagedChange::Kind::kRemove;
        removals.push_back(std::move(s));
      }
    }
    for (StagedChange& s : removals) {
      if (!ctx.backend.can_remove()) return unsupported_removal(s.shown);
      steps.push_back(std::move(s));
    }
    ops::Patched r;
    for (const StagedChange& s : steps) r.files.push_back(describe_step(s, r.diff));
    return r;
  };
  Result<ops::Patched> described = co_await offload(pipeline_->pool(), compute);
  if (!described) co_return described.error();
  ops::Patched result = std::move(*described);
  if (p.dry_run || steps.empty()) co_return result;

  LedgerNote note;
  note.origin = strict ? ledger::Origin::kUndo : ledger::Origin::kRevert;
  note.reverts = p.changes;
  note.reverts.insert(note.reverts.end(), p.hunks.begin(), p.hunks.end());
  auto committed = co_await pipeline_->commit(ctx, *files, steps, Writes::kBatch,
                                              strict ? "undo" : "revert", std::move(note));
  if (!committed) co_return committed.error();
  attach_reports(steps, *committed, result);
  result.undo_id = std::move(committed->undo_id);
  result.change_id = std::move(committed->change_id);
  co_return result;
}

}  // namespace editd
