// The format step (--format): a mutation's new text given to the formatter
// that covers the file, and only the formatter's hunks that meet the lines the
// call changed taken into the same write (edit/change/format_scope.h).
//
// It runs with the file's chains held, after the method's transform and
// before the commit, so the formatted bytes go through the same approval,
// checks, write, ledger entry and undo record as the call's own. Whatever the
// formatter does (fails, hangs, floods, writes something that is not text,
// rewrites the whole file), the call's text is written as it was asked and
// the report says why it was not formatted: a formatter never blocks an edit.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "edit/anchors/hashline.h"
#include "edit/change/format_scope.h"
#include "edit/change/hunks.h"
#include "edit/change/splice.h"
#include "edit/text/fingerprint.h"
#include "edit/text/text.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

// The lines of `after` (normalized) that the call changed from `before`
// (normalized; nullopt: a new file): every line of a new file, else each
// hunk's new lines (a removal: the point where its lines were).
std::vector<format_scope::Span> changed_spans(std::optional<std::string_view> before,
                                              std::string_view after) {
  std::vector<format_scope::Span> spans;
  if (!before || before->empty()) {
    spans.push_back({0, text::count_lines(after)});
    return spans;
  }
  for (const hunks::Hunk& h : hunks::between(*before, after))
    spans.push_back({h.new_start, h.new_start + h.new_count});
  return spans;
}

ops::LineRange range_of(const format_scope::Hunk& h, std::size_t total_lines) {
  if (h.new_count > 0) return {h.new_start + 1, h.new_start + h.new_count};
  // A removal: the line now after the cut (the last line at the end).
  const std::uint64_t line = std::min<std::uint64_t>(h.new_start + 1, std::max<std::size_t>(total_lines, 1));
  return {line, line};
}

// Where the formatter's kept hunks moved the call's own lines.
std::uint64_t map_line(std::uint64_t line, const std::vector<format_scope::Hunk>& kept, bool end) {
  // `line` is 1-based in the call's text; hunks are 0-based, ascending.
  std::int64_t shift = 0;
  const std::uint64_t at = line - 1;
  for (const format_scope::Hunk& h : kept) {
    if (at < h.old_start) break;
    if (at < h.old_start + h.old_count) {
      // Inside a rewritten run: its first line maps to the run's first new
      // line, its last to the run's last.
      if (h.new_count == 0) return h.new_start + 1;
      return end ? h.new_start + h.new_count : h.new_start + 1;
    }
    shift += static_cast<std::int64_t>(h.new_count) - static_cast<std::int64_t>(h.old_count);
  }
  const std::int64_t mapped = static_cast<std::int64_t>(line) + shift;
  return static_cast<std::uint64_t>(std::max<std::int64_t>(mapped, 1));
}

}  // namespace

bool Pipeline::formats(const RequestContext& ctx, const std::string& canonical,
                       const std::string& shown, bool asked) const {
  return asked && checks_.formats(Checks::Target{canonical, shown}) && ctx.scope.local();
}

std::vector<ops::LineRange> map_lines(const std::vector<ops::LineRange>& lines,
                                     const FormatStep& step) {
  std::vector<ops::LineRange> out;
  out.reserve(lines.size());
  for (const ops::LineRange& l : lines)
    out.push_back({map_line(l.start_line, step.kept, false), map_line(l.end_line, step.kept, true)});
  return out;
}

boost::asio::awaitable<FormatStep> Pipeline::format(const std::string& canonical,
                                                    const std::string& shown,
                                                    std::optional<std::string_view> before,
                                                    const std::string& after) {
  FormatStep step;
  ops::FormatReport& report = step.report;
  auto fail = [&report](std::string status, std::string detail) {
    report.status = std::move(status);
    report.detail = std::move(detail);
  };
  auto doc = text::Document::decode(after);
  if (!doc) {
    fail("skipped", "the new text is not UTF-8 text");
    co_return step;
  }
  // The formatter sees the text without the BOM and with LF line breaks; the
  // splices give each line its ending back.
  const text::Normalized normalized(*doc);
  const std::string_view body = normalized.view();
  std::optional<std::string> old_normalized;
  if (before) old_normalized = text::normalize_eol(text::without_bom(*before));
  std::vector<format_scope::Span> changed =
      changed_spans(old_normalized ? std::optional<std::string_view>(*old_normalized)
                                   : std::nullopt,
                    body);
  old_normalized.reset();

  const Checks::Target target{canonical, shown};
  Checks::FormatOutcome outcome =
      co_await checks_.format(target, std::string(body), changed, options_.max_file_bytes);
  if (outcome.status == Checks::FormatOutcome::Status::kTimeout) {
    fail("timeout", outcome.detail);
    co_return step;
  }
  if (outcome.status != Checks::FormatOutcome::Status::kOk) {
    fail("failed", outcome.detail);
    co_return step;
  }
  format_scope::Options scope_options;
  scope_options.max_bytes = options_.max_file_bytes;
  Result<format_scope::Scoped> scoped =
      format_scope::scope(body, outcome.formatted, changed, scope_options);
  outcome.formatted.clear();
  if (!scoped) {
    fail("rejected", "--format " + outcome.formatter + ": " + scoped.error().message +
                         "; the call's text was written as it was sent");
    co_return step;
  }
  report.status = "ok";
  if (scoped->edits.empty()) co_return step;

  std::vector<splice::Splice> splices = splice::plan(*doc, body, std::move(scoped->edits));
  splice::Applied applied = splice::apply(*doc, splices);
  const std::string label = "b/" + shown;
  diff::UnifiedDiff d = splice::diff(doc->body(), splices, "a/" + shown, label);
  ops::Formatted& f = report.formatted.emplace();
  f.diff = std::move(d.text);
  f.added = d.added;
  f.removed = d.removed;
  f.dropped = scoped->dropped;
  step.kept = std::move(scoped->kept);

  // The kept lines as the file now holds them, in the hashline view, and
  // that view's snapshot for edit_lines (remembered once the bytes are written).
  const std::string_view new_body = text::without_bom(applied.bytes);
  std::string new_normalized = text::normalize_eol(new_body);
  const std::size_t total = text::count_lines(new_normalized);
  const std::vector<std::string_view> lines = text::split_lines(new_normalized);
  std::size_t shown_lines = 0;
  for (const format_scope::Hunk& h : step.kept) {
    ops::LineRange r = range_of(h, total);
    f.lines.push_back(r);
    if (h.new_count == 0) continue;
    for (std::uint64_t l = r.start_line; l <= r.end_line && l <= lines.size(); ++l) {
      if (shown_lines == ops::kFormattedViewLines) {
        f.hashline_truncated = true;
        break;
      }
      // As read_text's view shows it: the last line of a file without a
      // final newline ends without one.
      const bool last_unterminated = l == lines.size() && !new_normalized.ends_with('\n');
      f.hashline += hashline::render({lines[l - 1]}, l, !last_unterminated);
      ++shown_lines;
    }
  }
  if (shown_lines > 0 && total * hashline::kSnapshotBytesPerLine <= views_.budget())
    step.snapshot = std::make_shared<const hashline::Snapshot>(hashline::snapshot(new_normalized));

  // The ledger keeps the formatter's hunks apart from the call's: its own
  // origin, in the bytes as they are stored.
  step.hunks = hunks::between(after, applied.bytes);
  step.bytes = std::move(applied.bytes);
  co_return step;
}

void Pipeline::remember_formatted(const RequestContext& ctx, const std::string& canonical,
                                  const std::string& fingerprint, const FormatStep& step) {
  if (ctx.reader == 0 || !step.snapshot || !step.report.formatted) return;
  const Views::Where where{ctx.reader, ctx.scope.key(), canonical};
  // The lines the reply showed, as a read would have (a removal shows none).
  const std::vector<ops::LineRange>& lines = step.report.formatted->lines;
  for (std::size_t i = 0; i < lines.size() && i < step.kept.size(); ++i) {
    if (step.kept[i].new_count == 0) continue;
    const hashline::LineRange shown{lines[i].start_line, lines[i].end_line};
    if (!views_.add_lines(where, fingerprint, shown))
      views_.remember(where, fingerprint, shown, step.snapshot);
  }
}

}  // namespace editd
