#include "server/ops/operations.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "backends/offload.h"
#include "edit/diff.h"
#include "edit/fingerprint.h"
#include "edit/format.h"
#include "edit/hashline.h"
#include "edit/match.h"
#include "edit/occurrences.h"
#include "edit/splice.h"
#include "edit/text.h"

namespace editd {

using protocol::MutationResult;

namespace {

using text::without_bom;

Result<void> check_param_text(std::string_view s, std::string_view param) {
  auto ok = text::check_text(s, "param '" + std::string(param) + "'");
  if (ok) return ok;
  Error e = ok.error();
  e.data["param"] = param;
  return e;
}

// Byte offset in LF-normalized `text` where 0-based line `line` starts.
std::size_t offset_of_line(std::string_view text, std::size_t line) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < line; ++i) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return text.size();
    pos = nl + 1;
  }
  return pos;
}

Error line_out_of_range(std::uint64_t line, std::size_t total, std::string_view param) {
  return Error(ErrorKind::kLineOutOfRange,
               "param '" + std::string(param) + "' is " + std::to_string(line) +
                   ", but the file has " + std::to_string(total) + " lines",
               {{"param", param}, {"line", line}, {"totalLines", total}});
}

// A miss on a file that changed since this connection last saw it: the model
// quoted a version that is gone.
void add_outdated_hint(Error& e, const std::string& known, const std::string& now) {
  std::string hint = "the file changed since this connection last read or wrote it (" + known +
                     ", now " + now + "): read it again before retrying.";
  auto it = e.data.find("hint");
  e.data["hint"] = it == e.data.end() ? hint : hint + " " + it->get<std::string>();
}

Error bad_anchor(std::size_t index, const std::string& where, const std::string& given) {
  Error e = invalid_param("edits", "edit " + std::to_string(index) + ": " + where + " '" + given +
                                       "' is not an anchor: write LINE~TAG as read_text with "
                                       "format \"hashline\" shows it, e.g. \"12~ab\"");
  e.data["edit"] = index;
  return e;
}

}  // namespace

Result<Operations::Transformed> Operations::spliced(const text::Document& doc,
                                                    std::vector<splice::Splice> splices,
                                                    Transformed change) {
  change.bom = doc.bom() ? text::kBom.size() : 0;
  change.splices = std::move(splices);
  return change;
}

std::vector<std::string_view> Operations::pieces(const std::string& current,
                                                 const Transformed& change) {
  const std::string_view bytes = current;
  return splice::pieces(bytes.substr(0, change.bom), bytes.substr(change.bom), *change.splices);
}

Error read_only_error(const std::string& path) {
  return Error(ErrorKind::kDenied,
               "the server is read-only (--read-only): " + path + " was not changed",
               {{"path", path}});
}

Error conflict_error(const std::string& shown, const std::string& expected,
                     const std::optional<std::string>& current) {
  nlohmann::json cur = current ? nlohmann::json(*current) : nlohmann::json(nullptr);
  return Error(ErrorKind::kConflict,
               shown + (current ? " changed since expectedFingerprint was taken: read it again"
                                : " does not exist, but expectedFingerprint was given"),
               {{"path", shown}, {"expectedFingerprint", expected}, {"currentFingerprint", cur}});
}

namespace {

// no_change for an edit whose difference from the file the byte-fidelity
// rules kept out (`asked`: what the caller asked to replace, and by what):
// which rule, and which call does what was asked.
Error kept_unchanged(const std::string& shown, std::string_view before, std::string_view after) {
  std::vector<std::string> what;
  if (before.starts_with(text::kBom) != after.starts_with(text::kBom)) what.push_back("a BOM");
  const std::string_view a = without_bom(before), b = without_bom(after);
  std::string na = text::normalize_eol(a), nb = text::normalize_eol(b);
  bool final_newline = false;
  if (na.ends_with('\n') != nb.ends_with('\n')) {
    final_newline = true;
    if (na.ends_with('\n')) na.pop_back();
    if (nb.ends_with('\n')) nb.pop_back();
  }
  auto raw_body = [final_newline](std::string_view s) {
    if (final_newline && s.ends_with('\n')) s.remove_suffix(s.ends_with("\r\n") ? 2 : 1);
    return s;
  };
  const bool known = na == nb;
  if (known && raw_body(a) != raw_body(b)) what.insert(what.begin(), "line endings");
  if (known && final_newline) what.push_back("the final newline");
  std::string list;
  for (std::size_t i = 0; i < what.size(); ++i)
    list += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
  const std::string why = known && !what.empty()
                              ? "the only difference is " + list +
                                    ", which every edit keeps as the file has it (byte fidelity)"
                              : "the byte-fidelity rules kept the file's bytes as they were";
  return Error(ErrorKind::kNoChange,
               shown + " is unchanged: " + why +
                   ". To convert line endings, add or remove the BOM, or add or remove the final "
                   "newline, call set_format (lineEndings, bom, finalNewline)",
               {{"path", shown}});
}

// Where a mutation's own result says its change starts, if it says.
std::optional<std::uint64_t> first_line(const MutationResult& result) {
  if (result.lines && !result.lines->empty()) return result.lines->front().start_line;
  return std::nullopt;
}

}  // namespace

Result<Operations::Transformed> Operations::compute(const Current& cur,
                                                    const Transform& transform) {
  auto change = transform(cur);
  if (!change) return change;
  std::string_view before = cur.bytes ? std::string_view(*cur.bytes) : std::string_view();
  const std::string old_label = cur.bytes ? "a/" + cur.shown : std::string("/dev/null");
  const std::string new_label = "b/" + cur.shown;
  if (change->splices && cur.lean) {
    // The new file is never made whole: the diff is made around the splices,
    // the fingerprint from the pieces, and the write takes the pieces.
    diff::UnifiedDiff d =
        splice::diff(before.substr(change->bom), *change->splices, old_label, new_label);
    change->result.diff = std::move(d.text);
    change->result.added = d.added;
    change->result.removed = d.removed;
    change->result.fingerprint = editd::fingerprint(pieces(*cur.bytes, *change));
    return change;
  }
  if (change->splices) {
    std::size_t size = 0;
    const std::vector<std::string_view> parts = pieces(*cur.bytes, *change);
    for (std::string_view p : parts) size += p.size();
    change->bytes.reserve(size);
    for (std::string_view p : parts) change->bytes.append(p);
    change->windows = splice::windows(*change->splices);
    change->splices.reset();
  }
  std::string_view after = change->bytes;
  diff::UnifiedDiff d;
  if (change->windows) {
    d = diff::unified_windows(before.substr(change->bom), after.substr(change->bom),
                              *change->windows, old_label, new_label);
  } else {
    d = change->diff_bom
            ? diff::unified_texts(before, after, old_label, new_label)
            : diff::unified_texts(without_bom(before), without_bom(after), old_label, new_label);
  }
  change->result.diff = std::move(d.text);
  change->result.added = d.added;
  change->result.removed = d.removed;
  change->result.fingerprint = editd::fingerprint(change->bytes);
  return change;
}

boost::asio::awaitable<Result<std::string>> Operations::resolve_in_turn(const RequestContext& ctx,
                                                                        const std::string& path,
                                                                        Result<std::string> first) {
  if (first || !ctx.place) co_return first;
  co_await ctx.place->after_earlier();
  co_return ctx.backend.resolve(path);
}

boost::asio::awaitable<LockChains::Guard> Operations::lock_one(const RequestContext& ctx,
                                                               const std::string& canonical,
                                                               LockChains::Mode mode) {
  std::vector<std::string> keys(1, canonical);
  return locks_.lock(std::move(keys), mode, ctx.place);
}

Result<void> Operations::check_cancel(const RequestContext& ctx) const {
  if (ctx.cancel && ctx.cancel->cancelled)
    return Error(ErrorKind::kCancelled, "the request was cancelled before it changed anything");
  return {};
}

Result<void> Operations::check_known(const RequestContext& ctx, const std::string& canonical,
                                     const std::string& shown, bool exists,
                                     const std::string& current_fp) const {
  if (!options_.require_read || !ctx.known || !exists) return {};
  const std::string* known = ctx.known->find(canonical);
  if (!known)
    return Error(
        ErrorKind::kStale,
        shown + " has not been read on this connection" +
            (ctx.known->forgot()
                 ? std::string(" (or its record was forgotten: a connection keeps records of "
                               "the files it read within a bound, the least recently used go)")
                 : std::string()) +
            ": read it first (--require-read)",
        {{"path", shown}, {"knownFingerprint", nullptr}, {"currentFingerprint", current_fp}});
  if (*known != current_fp)
    return Error(
        ErrorKind::kStale,
        shown + " changed since this connection last read or wrote it: read it again",
        {{"path", shown}, {"knownFingerprint", *known}, {"currentFingerprint", current_fp}});
  return {};
}

boost::asio::awaitable<Result<Operations::FilesHeld>> Operations::hold_for_mutation(
    const RequestContext& ctx, std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  FilesHeld files;
  files.chains = co_await locks_.lock(keys, LockChains::Mode::kExclusive, ctx.place);
  if (auto c = check_cancel(ctx); !c) co_return c.error();
  auto bytes = co_await hold_files(ctx, keys, kMutationHold);
  if (!bytes) co_return bytes.error();
  files.bytes = std::move(*bytes);
  auto processes = co_await ctx.backend.lock(std::move(keys));
  if (!processes) co_return processes.error();
  files.processes = std::move(*processes);
  co_return std::move(files);
}

boost::asio::awaitable<Result<ByteBudget::Hold>> Operations::hold_files(
    const RequestContext& ctx, const std::vector<std::string>& canonicals, std::uint64_t factor) {
  std::uint64_t size = 0;
  for (const std::string& c : canonicals) size += ctx.backend.size_hint(c).value_or(0);
  std::optional<ByteBudget::Hold> hold = co_await budget_.acquire(factor * size);
  if (!hold) {
    const std::string shown =
        canonicals.size() == 1 ? ctx.backend.display_path(canonicals.front()) : "the files";
    co_return Error(
        ErrorKind::kTooLarge,
        shown + ": " + std::to_string(size) + " bytes, held " + std::to_string(factor) +
            " times while the request runs, exceed what " +
            "all requests in flight may hold (--max-file-bytes-in-flight " +
            std::to_string(budget_.limit()) + ")",
        canonicals.size() == 1 ? nlohmann::json{{"path", shown}} : nlohmann::json::object());
  }
  co_return std::move(*hold);
}

Operations::RunsHere Operations::new_file_runs_here(const std::string& content) {
  return [&content](const Current& cur) {
    return !cur.bytes && !cur.is_directory && content.size() <= kOffloadBytes;
  };
}

Operations::Awaitable Operations::mutate(RequestContext& ctx, const protocol::MutationParams& p,
                                         bool may_be_missing, RunsHere runs_here,
                                         const Transform& transform) {
  if (options_.read_only) co_return read_only_error(p.path);
  auto canonical = ctx.backend.resolve(p.path);
  if (!canonical) canonical = co_await resolve_in_turn(ctx, p.path, std::move(canonical));
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

  cur.lean = !ctx.approve && !ctx.changes &&
             !(ctx.scope == "local" && checks_.covers(Checks::Target{cur.canonical, cur.shown}));

  // On the pool unless its cost is known small: a small file with a
  // pathological oldText must not hold up the other connections
  // (docs/architecture.md, Threads).
  // A change made whole: where it differs from the file, in the same pass
  // (whether it changes anything, and what the undo history keeps).
  std::optional<restore::Restore> window;
  auto run = [&cur, &transform, &window] {
    Result<Transformed> c = compute(cur, transform);
    if (c && !c->splices && cur.bytes) window = restore::window(*cur.bytes, c->bytes);
    return c;
  };
  Result<Transformed> change = Error();
  if (runs_here && runs_here(cur))
    change = run();
  else
    change = co_await offload(pool_, run);
  if (!change) co_return change.error();
  files->bytes.grow_to((cur.bytes ? cur.bytes->size() : 0) + 2 * change->bytes.size());

  bool unchanged = false;
  if (change->splices) {
    const std::string_view body = std::string_view(*cur.bytes).substr(change->bom);
    unchanged = std::all_of(change->splices->begin(), change->splices->end(),
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
  if (!p.dry_run && !unchanged) {
    // A batch of one.
    std::vector<StagedChange> steps(1);
    StagedChange& step = steps[0];
    step.canonical = cur.canonical;
    step.shown = cur.shown;
    step.bytes = std::move(change->bytes);
    step.fingerprint = change->result.fingerprint;
    step.line = first_line(change->result);
    step.splices = std::move(change->splices);
    step.bom = change->bom;
    // An edit of a few regions keeps what they held; otherwise the whole
    // file as it was (copied to disk while it is written when large).
    step.surveyed = true;
    if (options_.undo_history_entries > 0 && cur.bytes && step.splices)
      step.restores = worth_keeping(
          restore::of_splices(*cur.bytes, step.bom, *step.splices, cur.bytes->size() / 2),
          cur.bytes->size());
    else if (options_.undo_history_entries > 0 && cur.bytes)
      step.restores = window_restores(std::move(window), cur.bytes->size());
    if (cur.bytes) step.previous_fingerprint = current_fp;
    step.previous = std::move(cur.bytes);
    auto committed = co_await commit(ctx, *files, steps, Writes::kOneFile, "");
    if (!committed) co_return committed.error();
    change->result.undo_id = std::move(committed->undo_id);
    change->result.diagnostics = std::move(committed->reports[0]);
  }
  if (!p.dry_run && ctx.known) ctx.known->set(cur.canonical, change->result.fingerprint);
  co_return std::move(change->result);
}

UndoSpill Operations::undo_spill(const ServerOptions& options) {
  std::string why;
  // /tmp/editd-EUID, else the root: an unnamed file leaves nothing in the tree.
  UndoSpill spill = UndoSpill::first_of({"", options.root}, why);
  if (!spill.dir)
    spdlog::debug("the undo history keeps every file in memory: {}", why);
  else if (!why.empty())
    spdlog::debug("the undo history keeps large files in {} ({})", spill.where, why);
  return spill;
}

boost::asio::awaitable<Result<protocol::ReadTextResult>> Operations::read_text(
    RequestContext& ctx, protocol::ReadTextParams p) {
  auto canonical = ctx.backend.resolve(p.path);
  if (!canonical) canonical = co_await resolve_in_turn(ctx, p.path, std::move(canonical));
  if (!canonical) co_return canonical.error();
  LockChains::Guard guard = co_await lock_one(ctx, *canonical, LockChains::Mode::kShared);
  if (auto c = check_cancel(ctx); !c) co_return c.error();
  auto hold = co_await hold_files(ctx, std::vector<std::string>(1, *canonical), kReadHold);
  if (!hold) co_return hold.error();
  auto bytes = co_await ctx.backend.read(*canonical);
  if (!bytes) co_return bytes.error();
  hold->grow_to(kReadHold * bytes->size());
  const std::uint64_t bytes_read = bytes->size();
  // The chain is held until the read is recorded as known (--require-read):
  // an edit sent after it must find it there, and not have its own record
  // overwritten by this one's.

  const Views::Where where{ctx.reader, ctx.scope, *canonical};
  auto run = [&]() -> Result<protocol::ReadTextResult> {
    protocol::ReadTextResult r;
    r.fingerprint = editd::fingerprint(*bytes);
    auto doc = text::Document::decode(*bytes);
    if (!doc) {
      Error e = doc.error();
      e.data["path"] = ctx.backend.display_path(*canonical);
      return e;
    }
    std::size_t total = doc->line_count();
    std::uint64_t start = p.line.value_or(1);
    if (start > std::max<std::size_t>(total, 1)) return line_out_of_range(start, total, "line");
    std::size_t end = total;
    if (p.limit && start - 1 + *p.limit < total) end = start - 1 + *p.limit;
    std::size_t from = doc->line_offset(start - 1), to = doc->line_offset(end);
    const std::string_view body = doc->body();
    // The view is remembered for edit_lines: its lines' hashes, made once a
    // version and connection (server/ops/views.h). A file whose snapshot
    // could never fit the store is not snapshotted.
    if (ctx.reader != 0 && options_.view_memory > 0 && end >= start &&
        total * hashline::kSnapshotBytesPerLine <= views_.budget() &&
        !views_.add_lines(where, r.fingerprint, {start, end})) {
      text::Normalized norm(*doc);
      views_.remember(where, r.fingerprint, {start, end},
                      std::make_shared<const hashline::Snapshot>(hashline::snapshot(norm.view())));
    }
    if (from == 0 && to == body.size() &&
        body.data() + body.size() == bytes->data() + bytes->size()) {
      // The whole file: its buffer becomes the content (after its BOM), no copy.
      bytes->erase(0, static_cast<std::size_t>(body.data() - bytes->data()));
      r.content = std::move(*bytes);
    } else {
      r.content = std::string(body.substr(from, to - from));
    }
    if (p.format == "hashline") {
      // The view is counted before it is made: it has its own bytes per line
      // (a file of empty lines shows ten times its size), so it is bounded as
      // content is, and held in the budget beside the file and its reply.
      std::string normalized;
      if (r.content.find('\r') != std::string::npos) normalized = text::normalize_eol(r.content);
      const std::string_view text = normalized.empty() ? r.content : normalized;
      const std::size_t size = hashline::rendered_size(text, start);
      if (size > options_.max_file_bytes) {
        const std::string shown = ctx.backend.display_path(*canonical);
        return Error(ErrorKind::kTooLarge,
                     "the hashline view of " + shown + " from line " + std::to_string(start) +
                         " would be " + std::to_string(size) +
                         " bytes, over --max-file-bytes: read fewer lines at once (line, limit)",
                     {{"path", shown}, {"size", size}, {"limit", options_.max_file_bytes}});
      }
      hold->grow_to(kReadHold * bytes_read + 2 * size);
      r.content = hashline::render_text(text, start);
      r.format = "hashline";
    }
    r.total_lines = total;
    r.line = start;
    r.line_count = end >= start ? end - start + 1 : 0;
    return r;
  };
  Result<protocol::ReadTextResult> result = Error();
  if (bytes->size() > kOffloadBytes)
    result = co_await offload(pool_, run);
  else
    result = run();
  if (result && ctx.known) ctx.known->set(*canonical, result->fingerprint);
  guard.release();
  co_return result;
}

boost::asio::awaitable<Result<protocol::FingerprintResult>> Operations::fingerprint(
    RequestContext& ctx, protocol::FingerprintParams p) {
  auto canonical = ctx.backend.resolve(p.path);
  if (!canonical) canonical = co_await resolve_in_turn(ctx, p.path, std::move(canonical));
  if (!canonical) co_return canonical.error();
  LockChains::Guard guard = co_await lock_one(ctx, *canonical, LockChains::Mode::kShared);
  auto hold = co_await hold_files(ctx, std::vector<std::string>(1, *canonical), 1);
  if (!hold) co_return hold.error();
  auto bytes = co_await ctx.backend.read(*canonical);
  if (!bytes) co_return bytes.error();
  co_return protocol::FingerprintResult{editd::fingerprint(*bytes), bytes->size()};
}

boost::asio::awaitable<Result<Operations::Located>> Operations::locate(RequestContext& ctx,
                                                                       const std::string& path) {
  if (ctx.place) {
    auto earlier = ctx.place->after_earlier();
    co_await std::move(earlier);
  }
  auto canonical = ctx.backend.resolve(path);
  if (!canonical) co_return canonical.error();
  auto st = co_await ctx.backend.stat(*canonical);
  if (!st) co_return st.error();
  Located where;
  where.shown = ctx.backend.display_path(*canonical);
  where.canonical = std::move(*canonical);
  where.stat = std::move(*st);
  co_return where;
}

boost::asio::awaitable<Result<FsBackend::Listing>> Operations::list_directory(
    RequestContext& ctx, const std::string& canonical, unsigned depth, std::size_t limit) {
  co_return co_await ctx.backend.list(canonical, depth, limit);
}

Operations::Awaitable Operations::write_text(RequestContext& ctx, protocol::WriteTextParams p) {
  if (auto ok = check_param_text(p.content, "content"); !ok) co_return ok.error();
  co_return co_await mutate(
      ctx, p, true, new_file_runs_here(p.content), [&p](const Current& cur) -> Result<Transformed> {
        if (cur.is_directory)
          return Error(ErrorKind::kIsDirectory, cur.shown + " is a directory",
                       {{"path", cur.shown}});
        Transformed c;
        c.result.created = !cur.bytes;
        if (!cur.bytes) {
          c.bytes = p.content;
          return c;
        }
        auto doc = text::Document::decode(*cur.bytes);
        if (!doc) return doc.error();
        // A U+FEFF starting the content is a copy of the BOM, unless the body
        // itself starts with one (read_text showed it): then it is that one.
        std::string_view content = p.content;
        if (doc->bom() && !doc->body().starts_with(text::kBom) && content.starts_with(text::kBom))
          content.remove_prefix(text::kBom.size());
        // Content other than the file as read_text shows it is a change asked for.
        if (p.content != *cur.bytes && p.content != without_bom(*cur.bytes))
          c.asked.emplace(*cur.bytes, p.content);
        const std::string normalized_content = text::normalize_eol(content);
        splice::Options options;
        options.final_newline = normalized_content.ends_with('\n');
        text::Normalized norm(*doc);
        return spliced(*doc, splice::rewrite(*doc, norm.view(), normalized_content, options),
                       std::move(c));
      });
}

namespace {

// "LF line endings, a BOM and a final newline": the state set_format was asked for.
std::string format_asked(const protocol::SetFormatParams& p) {
  std::vector<std::string> parts;
  if (p.line_endings)
    parts.push_back(*p.line_endings == "crlf" ? "CRLF line endings" : "LF line endings");
  if (p.bom) parts.push_back(*p.bom ? "a BOM" : "no BOM");
  if (p.final_newline) parts.push_back(*p.final_newline ? "a final newline" : "no final newline");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

}  // namespace

Operations::Awaitable Operations::set_format(RequestContext& ctx, protocol::SetFormatParams p) {
  RunsHere small = [](const Current& cur) {
    return cur.bytes && cur.bytes->size() <= kOffloadBytes;
  };
  co_return co_await mutate(ctx, p, false, small, [&p](const Current& cur) -> Result<Transformed> {
    auto doc = text::Document::decode(*cur.bytes);
    if (!doc) return doc.error();
    text::Format format;
    if (p.line_endings)
      format.line_endings = *p.line_endings == "crlf" ? text::Eol::kCrLf : text::Eol::kLf;
    format.bom = p.bom;
    format.final_newline = p.final_newline;
    auto bytes = text::reformat(*doc, format, cur.shown);
    if (!bytes) {
      Error e = std::move(bytes.error());
      e.data["path"] = cur.shown;
      return e;
    }
    Transformed c;
    c.diff_bom = p.bom.value_or(doc->bom()) != doc->bom();
    c.bytes = std::move(*bytes);
    if (c.bytes == *cur.bytes)
      return Error(ErrorKind::kNoChange,
                   cur.shown + " already has " + format_asked(p) + ": nothing would change",
                   {{"path", cur.shown}});
    return c;
  });
}

Operations::Awaitable Operations::create(RequestContext& ctx, protocol::CreateParams p) {
  if (auto ok = check_param_text(p.content, "content"); !ok) co_return ok.error();
  co_return co_await mutate(
      ctx, p, true, new_file_runs_here(p.content), [&p](const Current& cur) -> Result<Transformed> {
        if (cur.bytes || cur.is_directory)
          return Error(ErrorKind::kExists,
                       cur.shown +
                           (cur.is_directory ? " exists (as a directory)" : " already exists") +
                           ": use write_text to replace a file",
                       {{"path", cur.shown}});
        Transformed c;
        c.result.created = true;
        c.bytes = p.content;
        return c;
      });
}

Operations::Awaitable Operations::insert(RequestContext& ctx, protocol::InsertParams p) {
  if (auto ok = check_param_text(p.text, "text"); !ok) co_return ok.error();
  if (p.text.empty())
    co_return invalid_param("text", "must not be empty (send \"\\n\" for a blank line)");
  // One linear pass to place the text, and a diff of its lines only.
  RunsHere small = [&p](const Current& cur) {
    return cur.bytes && cur.bytes->size() <= kOffloadBytes &&
           text::count_lines(p.text) <= kInlineDiffLines;
  };
  co_return co_await mutate(ctx, p, false, small, [&p](const Current& cur) -> Result<Transformed> {
    auto doc = text::Document::decode(*cur.bytes);
    if (!doc) return doc.error();
    if (p.line > doc->line_count()) return line_out_of_range(p.line, doc->line_count(), "line");
    text::Normalized norm(*doc);
    const std::string_view normalized = norm.view();
    const std::size_t at = offset_of_line(normalized, p.line);
    std::string block = text::normalize_eol(text::without_copied_bom(*doc, at, p.text));
    if (block.empty())
      return Error(
          ErrorKind::kNoChange,
          "text is only a copy of the file's BOM, which the file has: nothing would change");
    if (block.back() != '\n') block.push_back('\n');
    const std::size_t inserted = text::count_lines(block);
    if (at == normalized.size() && !normalized.empty() && normalized.back() != '\n')
      block.insert(block.begin(), '\n');
    std::vector<splice::Edit> edits;
    edits.push_back({at, at, std::move(block)});
    Transformed c;
    c.result.lines = std::vector<protocol::LineRange>{{p.line + 1, p.line + inserted}};
    return spliced(*doc, splice::plan(*doc, normalized, std::move(edits)), std::move(c));
  });
}

Operations::Awaitable Operations::str_replace(RequestContext& ctx, protocol::StrReplaceParams p) {
  if (auto ok = check_param_text(p.new_text, "newText"); !ok) co_return ok.error();
  match::Mode mode = options_.matching;
  if (p.matching) {
    auto m = match::parse_mode(*p.matching);
    if (!m) co_return invalid_param("matching", "must be \"exact\", \"standard\" or \"fuzzy\"");
    mode = *m;
  }
  // oldText occurs exactly once, verbatim: the exact tier finds it (or, in a
  // file whose CRLFs make more, finds them all and the call is ambiguous), and
  // no forgiving tier, closest-region search or hint runs. What remains is
  // linear, plus a diff of oldText's lines against newText's.
  RunsHere once = [&p](const Current& cur) {
    if (!cur.bytes || cur.bytes->size() > kOffloadBytes || p.replace_all) return false;
    if (p.expected_replacements && *p.expected_replacements != 1) return false;
    if (p.old_text.empty() ||
        text::count_lines(p.old_text) + text::count_lines(p.new_text) > kInlineDiffLines)
      return false;
    const std::string_view bytes = *cur.bytes;
    const std::size_t at = occurrences::find(bytes, p.old_text, 0);
    return at != std::string_view::npos &&
           occurrences::find(bytes, p.old_text, at + 1) == std::string_view::npos;
  };
  co_return co_await mutate(
      ctx, p, false, once, [this, &p, mode](const Current& cur) -> Result<Transformed> {
        auto doc = text::Document::decode(*cur.bytes);
        if (!doc) return doc.error();
        text::Normalized norm(*doc);
        std::string old_text = text::normalize_eol(p.old_text);
        std::string new_text = text::normalize_eol(p.new_text);
        // Texts that differ only in what the fidelity rules keep (endings,
        // a copy of the BOM) ask for a change that no edit makes.
        auto bom_free = [&doc](std::string_view s) {
          return doc->bom() && s.starts_with(text::kBom) ? s.substr(text::kBom.size()) : s;
        };
        if (p.old_text != p.new_text &&
            text::normalize_eol(bom_free(p.old_text)) == text::normalize_eol(bom_free(p.new_text)))
          return kept_unchanged(cur.shown, p.old_text, p.new_text);
        match::Request req{norm.view(), old_text,      new_text,
                           mode,        p.replace_all, p.expected_replacements};
        // The new body must fit --max-file-bytes before it is built (the backend
        // checks the file as written, CRLFs and BOM restored).
        req.max_result_bytes = static_cast<std::size_t>(options_.max_file_bytes);
        req.text_ascii = doc->ascii();
        auto plan = match::plan_replace(req);
        if (!plan) {
          Error e = plan.error();
          e.data["path"] = cur.shown;
          if (e.kind == ErrorKind::kNoMatch && cur.outdated_fingerprint)
            add_outdated_hint(e, *cur.outdated_fingerprint, cur.fingerprint);
          return e;
        }
        Transformed c;
        c.asked.emplace(p.old_text, p.new_text);
        c.result.replacements = plan->replacements;
        c.result.matched_by = plan->tier;
        std::vector<protocol::LineRange> lines;
        for (const auto& l : plan->lines) lines.push_back({l.start_line, l.end_line});
        c.result.lines = std::move(lines);
        return spliced(*doc, splice::plan(*doc, norm.view(), std::move(plan->edits)), std::move(c));
      });
}

Operations::Awaitable Operations::edit_lines(RequestContext& ctx, protocol::EditLinesParams p) {
  std::vector<hashline::LineEdit> edits;
  for (std::size_t i = 0; i < p.edits.size(); ++i) {
    const protocol::LineEditParams& e = p.edits[i];
    if (auto ok = check_param_text(e.new_text, "newText"); !ok) {
      Error err = ok.error();
      err.data["edit"] = i;
      co_return err;
    }
    hashline::LineEdit edit;
    edit.kind = e.kind == "replace"       ? hashline::Kind::kReplace
                : e.kind == "insertAfter" ? hashline::Kind::kInsertAfter
                                          : hashline::Kind::kInsertBefore;
    const std::string where = e.kind == "replace" ? "replace.start" : e.kind;
    auto start = hashline::parse_anchor(e.start);
    if (!start) co_return bad_anchor(i, where, e.start);
    edit.start = std::move(*start);
    if (e.end) {
      auto end = hashline::parse_anchor(*e.end);
      if (!end) co_return bad_anchor(i, "replace.end", *e.end);
      edit.end = std::move(*end);
    }
    edit.new_text = e.new_text;
    edits.push_back(std::move(edit));
  }
  const std::uint64_t reader = ctx.reader;
  const std::string scope = ctx.scope;
  const bool expected = p.expected_fingerprint.has_value();
  co_return co_await mutate(ctx, p, false, nullptr, [&](const Current& cur) -> Result<Transformed> {
    auto doc = text::Document::decode(*cur.bytes);
    if (!doc) return doc.error();
    text::Normalized norm(*doc);
    // The views the anchors came from: every view of the file this
    // connection read that editd remembers, newest first (each version's
    // slices combined in one). Each anchor is mapped through the first that
    // shows its line with its tag. With expectedFingerprint (the file as it
    // is, else conflict) that version's view comes first, and an anchor no
    // view shows stands where it is: the caller vouched for the version.
    std::vector<Views::Found> found = views_.find(Views::Where{reader, scope, cur.canonical});
    if (expected)
      std::stable_partition(found.begin(), found.end(), [&cur](const Views::Found& f) {
        return f.fingerprint == cur.fingerprint;
      });
    hashline::Reads reads;
    reads.unread_stand = expected || found.empty();
    for (const Views::Found& f : found)
      reads.views.push_back(hashline::View{f.file.get(), f.shown});
    auto plan = hashline::plan(norm.view(), edits, reads);
    if (!plan) {
      Error e = plan.error();
      e.data["path"] = cur.shown;
      if (e.kind == ErrorKind::kStale) e.data["currentFingerprint"] = cur.fingerprint;
      return e;
    }
    Transformed c;
    c.if_unchanged =
        "every edit's newText is the text of the lines it replaces (line endings and a copy of "
        "the BOM are kept as the file has them, byte fidelity); to convert line endings or add "
        "or remove the BOM, call set_format";
    std::vector<protocol::LineRange> lines;
    for (const hashline::LineRange& l : plan->lines) lines.push_back({l.start_line, l.end_line});
    c.result.lines = std::move(lines);
    std::vector<protocol::RebasedAnchor> rebased;
    for (const hashline::Rebased& r : plan->rebased) rebased.push_back({r.anchor, r.line});
    c.result.rebased = std::move(rebased);
    for (splice::Edit& e : plan->edits)
      if (e.begin == 0) e.text = std::string(text::without_copied_bom(*doc, 0, e.text));
    return spliced(*doc, splice::plan(*doc, norm.view(), std::move(plan->edits)), std::move(c));
  });
}

}  // namespace editd
