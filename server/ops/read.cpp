// The reads: read_text, fingerprint, and what stands at a path (a directory's
// listing for the text editor's view).
#include <algorithm>

#include "edit/change/diff.h"
#include "edit/text/fingerprint.h"
#include "edit/text/format.h"
#include "edit/anchors/hashline.h"
#include "edit/match/replace.h"
#include "edit/match/occurrences.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

boost::asio::awaitable<Result<ops::Read>> Operations::read_text(RequestContext& ctx,
                                                                ops::ReadRequest p) {
  auto held = co_await pipeline_->read_shared(ctx, p.path);
  if (!held) co_return held.error();
  const std::string& canonical = held->canonical;
  std::string& bytes = held->bytes;
  const std::uint64_t bytes_read = bytes.size();
  // A symbol's lines: asked of the language server for these bytes, with the
  // chain held, then read as any lines are.
  std::optional<ops::SymbolLines> symbol;
  if (p.symbol) {
    const std::string shown = ctx.backend.display_path(canonical);
    auto found = co_await pipeline_->symbol_lines(canonical, shown, bytes, *p.symbol);
    if (!found) co_return found.error();
    p.first_line = found->start_line;
    p.line_limit = found->end_line - found->start_line + 1;
    symbol = std::move(*found);
  }
  // The chain is held until the read is recorded as known (--require-read):
  // an edit sent after it must find it there, and not have its own record
  // overwritten by this one's.

  const Views::Where where{ctx.reader, ctx.scope.key(), canonical};
  const OpsOptions& options = pipeline_->options();
  Views& views = pipeline_->views();
  LastSeen& seen = pipeline_->last_seen();
  const bool keep_seen = ctx.scope.local();
  auto run = [&]() -> Result<ops::Read> {
    ops::Read r;
    r.fingerprint = editd::fingerprint(bytes);
    // The bytes this connection now knows, for the diff of a later outside change.
    if (keep_seen) seen.keep(canonical, r.fingerprint, bytes);
    auto doc = text::Document::decode(bytes);
    if (!doc) {
      Error e = doc.error();
      e.data["path"] = ctx.backend.display_path(canonical);
      return e;
    }
    std::size_t total = doc->line_count();
    std::uint64_t start = p.first_line.value_or(1);
    if (start > std::max<std::size_t>(total, 1)) return line_out_of_range(start, total, "line");
    std::size_t end = total;
    if (p.line_limit && start - 1 + *p.line_limit < total) end = start - 1 + *p.line_limit;
    std::size_t from = doc->line_offset(start - 1), to = doc->line_offset(end);
    const std::string_view body = doc->body();
    // The view is remembered for edit_lines: its lines' hashes, made once a
    // version and connection (server/ops/views.h). A file whose snapshot
    // could never fit the store is not snapshotted.
    if (ctx.reader != 0 && options.view_memory > 0 && end >= start &&
        total * hashline::kSnapshotBytesPerLine <= views.budget() &&
        !views.add_lines(where, r.fingerprint, {start, end})) {
      text::Normalized norm(*doc);
      views.remember(where, r.fingerprint, {start, end},
                     std::make_shared<const hashline::Snapshot>(hashline::snapshot(norm.view())));
    }
    if (from == 0 && to == body.size() &&
        body.data() + body.size() == bytes.data() + bytes.size()) {
      // The whole file: its buffer becomes the content (after its BOM), no copy.
      bytes.erase(0, static_cast<std::size_t>(body.data() - bytes.data()));
      r.content = std::move(bytes);
    } else {
      r.content = std::string(body.substr(from, to - from));
    }
    if (p.format == ops::ReadFormat::kHashline) {
      // The view is counted before it is made: it has its own bytes per line
      // (a file of empty lines shows ten times its size), so it is bounded as
      // content is, and held in the budget beside the file and its reply.
      std::string normalized;
      if (r.content.find('\r') != std::string::npos) normalized = text::normalize_eol(r.content);
      const std::string_view text = normalized.empty() ? r.content : normalized;
      const std::size_t size = hashline::rendered_size(text, start);
      if (size > options.max_file_bytes) {
        const std::string shown = ctx.backend.display_path(canonical);
        return Error(ErrorKind::kTooLarge,
                     "the hashline view of " + shown + " from line " + std::to_string(start) +
                         " would be " + std::to_string(size) +
                         " bytes, over --max-file-bytes: read fewer lines at once (line, limit)",
                     {{"path", shown}, {"size", size}, {"limit", options.max_file_bytes}});
      }
      held->budget.grow_to(kReadHold * bytes_read + 2 * size);
      r.content = hashline::render_text(text, start);
      r.format = ops::ReadFormat::kHashline;
    }
    r.total_lines = total;
    r.symbol = symbol;
    r.first_line = start;
    r.line_count = end >= start ? end - start + 1 : 0;
    return r;
  };
  Result<ops::Read> result = Error();
  if (bytes.size() > kOffloadBytes)
    result = co_await offload(pipeline_->pool(), run);
  else
    result = run();
  if (result && ctx.known) ctx.known->set(canonical, result->fingerprint);
  held->chain.release();
  co_return result;
}

boost::asio::awaitable<Result<Pipeline::ReadHeld>> Pipeline::read_shared(RequestContext& ctx,
                                                                         const std::string& path) {
  auto canonical = co_await resolve_in_turn(ctx, path);
  if (!canonical) co_return canonical.error();
  ReadHeld held;
  held.chain = co_await lock_one(ctx, *canonical, LockChains::Mode::kShared);
  if (auto c = check_cancel(ctx); !c) co_return c.error();
  auto budget = co_await hold_files(ctx, std::vector<std::string>(1, *canonical), kReadHold);
  if (!budget) co_return budget.error();
  held.budget = std::move(*budget);
  auto bytes = co_await ctx.backend.read(*canonical);
  if (!bytes) co_return bytes.error();
  held.budget.grow_to(kReadHold * bytes->size());
  held.canonical = std::move(*canonical);
  held.bytes = std::move(*bytes);
  co_return std::move(held);
}

boost::asio::awaitable<Result<ops::Fingerprint>> Operations::fingerprint(
    RequestContext& ctx, ops::FingerprintRequest p) {
  auto canonical = co_await pipeline_->resolve_in_turn(ctx, p.path);
  if (!canonical) co_return canonical.error();
  LockChains::Guard guard =
      co_await pipeline_->lock_one(ctx, *canonical, LockChains::Mode::kShared);
  auto hold = co_await pipeline_->hold_files(ctx, std::vector<std::string>(1, *canonical), 1);
  if (!hold) co_return hold.error();
  auto bytes = co_await ctx.backend.read(*canonical);
  if (!bytes) co_return bytes.error();
  co_return ops::Fingerprint{editd::fingerprint(*bytes), bytes->size()};
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

}  // namespace editd
