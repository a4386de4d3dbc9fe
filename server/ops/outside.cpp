// Changes made outside a connection (Operations::outside_changes): which of
// the files it knows hold other bytes than it knows, with the diff against
// the bytes it knew (when still kept, server/ops/last_seen.h) and whether the
// change puts back what one of its own mutations replaced.
//
// No lock chain is waited for: a file a mutation holds now is deferred (the
// mutation may be the connection's own, whose write lands before it records
// what it wrote), and so is a file whose record changed while it was read
// (the connection's own request read or wrote it meanwhile). What remains is
// a change no request of this connection made.
//
// The connection's record of the file stays what it read or wrote (what
// --require-read and the hints of a miss compare with); what it was told is
// kept beside it (KnownFingerprints::told), so each change is told once.
#include <spdlog/spdlog.h>
#include <time.h>

#include "edit/change/hunks.h"
#include "edit/change/unified_diff.h"
#include "edit/text/fingerprint.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

std::int64_t realtime_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

// The diff from `old` (`from_nothing`: the file was gone) to `now` (nullopt:
// gone), cut at a line within `max`.
void describe(ops::OutsideChange& c, std::string_view old, const std::optional<std::string>& now,
              bool from_nothing, std::size_t max) {
  diff::UnifiedDiff d = diff::unified_texts(old, now ? std::string_view(*now) : std::string_view(),
                                            from_nothing ? "/dev/null" : "a/" + c.shown,
                                            now ? "b/" + c.shown : "/dev/null");
  if (d.text.size() > max) {
    std::size_t cut = d.text.rfind('\n', max);
    d.text.resize(cut == std::string::npos ? 0 : cut + 1);
    c.diff_truncated = true;
  }
  c.diff = std::move(d.text);
}

}  // namespace

boost::asio::awaitable<ops::OutsideChanges> Operations::outside_changes(RequestContext& ctx,
                                                                        ops::OutsideRequest p) {
  ops::OutsideChanges out;
  if (!ctx.known) co_return out;
  // What goes on the record, with the bytes its hunks are made from.
  struct Noticed {
    ledger::Entry entry;
    std::string before, after;
  };
  std::vector<Noticed> outside;
  Result<ledger::Ledger*> lg = pipeline_->ledger();
  const bool record = lg && *lg && ctx.scope.local();
  LastSeen& seen = pipeline_->last_seen();
  LockChains& locks = pipeline_->locks();
  std::size_t reads = 0;
  for (std::string& canonical : p.canonicals) {
    if (out.changes.size() >= p.max_changes || reads >= p.max_reads) {
      out.truncated = true;
      out.deferred.push_back(std::move(canonical));
      continue;
    }
    const std::string* record = ctx.known->find(canonical);
    if (!record) continue;
    const std::string known = *record;
    // What the connection last saw of the file: read, written, or told.
    const std::string* told = ctx.known->told(canonical);
    const std::optional<std::string> told_before =
        told ? std::optional<std::string>(*told) : std::nullopt;
    const std::string base = told ? *told : known;
    if (locks.held_exclusive(canonical)) {
      out.deferred.push_back(std::move(canonical));
      continue;
    }
    Result<FileStat> st = co_await ctx.backend.stat(canonical);
    if (!st) continue;
    const std::int64_t stat_ns = realtime_ns();
    std::optional<std::string> fingerprint;  // nullopt: gone
    std::optional<std::string> bytes;        // read now
    if (st->type == FileStat::Type::kFile) {
      if (st->stamp) fingerprint = seen.fingerprint_at(canonical, *st->stamp);
      if (!fingerprint) {
        ++reads;
        Result<std::string> read = co_await ctx.backend.read(canonical);
        if (read) {
          bytes = std::move(*read);
          fingerprint = editd::fingerprint(*bytes);
        } else if (read.error().kind != ErrorKind::kNotFound) {
          continue;  // too large, unreadable: nothing to say of it
        }
      }
    }
    // The connection's own requests read or wrote it meanwhile, or a
    // mutation took it: looked at again later.
    auto unchanged_record = [&] {
      const std::string* k = ctx.known->find(canonical);
      const std::string* t = ctx.known->told(canonical);
      return k && *k == known && (t ? std::optional<std::string>(*t) : std::nullopt) == told_before;
    };
    if (!ctx.known->find(canonical)) continue;
    if (!unchanged_record() || locks.held_exclusive(canonical)) {
      out.deferred.push_back(std::move(canonical));
      continue;
    }
    if (bytes) {
      seen.keep(canonical, *fingerprint, *bytes);
      if (st->stamp) seen.stamp(canonical, *st->stamp, *fingerprint, stat_ns);
    }
    const std::string now = fingerprint.value_or(KnownFingerprints::kGone);
    if (now == base) continue;

    ops::OutsideChange& c = out.changes.emplace_back();
    c.canonical = canonical;
    c.shown = ctx.backend.display_path(canonical);
    if (base != KnownFingerprints::kGone) c.previous_fingerprint = base;
    c.fingerprint = fingerprint;
    c.reverted_own_edit = fingerprint && ctx.known->replaced_by_own_change(canonical, *fingerprint);
    if (fingerprint && !bytes) bytes = seen.bytes_of(canonical, *fingerprint);
    std::optional<std::string> old;
    if (c.previous_fingerprint)
      old = seen.bytes_of(canonical, base);
    else
      old.emplace();  // it was gone: the diff is from nothing
    // The diff needs both sides: the bytes before, and the file's now (or none).
    if (old && (bytes || !fingerprint)) {
      const std::size_t size = old->size() + (bytes ? bytes->size() : 0);
      const bool from_nothing = !c.previous_fingerprint;
      auto run = [&c, &old, &bytes, from_nothing, max = p.max_diff_bytes]() -> Result<void> {
        describe(c, *old, bytes, from_nothing, max);
        return {};
      };
      if (size <= kOffloadBytes) {
        run();
      } else {
        Result<void> done = co_await offload(pipeline_->pool(), run);
        if (!done) c.diff.reset();
      }
    }
    // On the record as a change by another hand, its hunks from the bytes
    // last seen (none kept: it says what changed, not its lines).
    if (record) {
      Noticed& n = outside.emplace_back();
      ledger::Entry& e = n.entry;
      e.origin = ledger::Origin::kOutside;
      e.actor.door = "outside";
      e.scope = ctx.scope.key();
      ledger::FileRecord& f = e.files.emplace_back();
      f.path = c.shown;
      f.before_fingerprint = c.previous_fingerprint;
      f.after_fingerprint = c.fingerprint;
      if (old && (bytes || !fingerprint)) {
        n.before = *old;
        n.after = bytes.value_or("");
      } else {
        f.hunks_dropped = true;
      }
    }
    // Told once (unless the connection's own requests recorded something
    // newer while the diff was made). What it read or wrote stays its
    // record: being told is not reading.
    if (unchanged_record()) ctx.known->set_told(canonical, now);
  }
  if (!outside.empty()) {
    // Blocking (the ledger's writer decides whether another process or
    // connection put it on record first): on the pool.
    ledger::Ledger* l = *lg;
    auto append = [l, &outside]() -> Result<void> {
      for (Noticed& n : outside) {
        ledger::Entry& e = n.entry;
        if (!e.files.front().hunks_dropped) e.files.front().hunks = hunks::between(n.before, n.after);
        if (auto r = l->append_outside(std::move(e)); !r)
          spdlog::warn("the ledger did not record a change made outside: {}", r.error().message);
      }
      return {};
    };
    co_await offload(pipeline_->pool(), append);
  }
  co_return out;
}

}  // namespace editd
