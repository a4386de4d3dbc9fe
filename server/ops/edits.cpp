// The one-file methods, each a transform for mutate(): write_text,
// set_format, create, insert, str_replace and edit_lines.
#include <algorithm>

#include "edit/change/diff.h"
#include "edit/text/fingerprint.h"
#include "edit/text/format.h"
#include "edit/anchors/hashline.h"
#include "edit/match/replace.h"
#include "edit/match/sequence.h"
#include "edit/match/occurrences.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"
#include "protocol/error.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

using text::without_bom;

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

// A miss on a file that changed since this connection last saw it: the model
// quoted a version that is gone.
void add_outdated_hint(Error& e, const std::string& known, const std::string& now) {
  std::string hint = "the file changed since this connection last read or wrote it (" + known +
                     ", now " + now + "): read it again before retrying.";
  auto it = e.data.find("hint");
  e.data["hint"] = it == e.data.end() ? hint : hint + " " + it->get<std::string>();
}

// str_replace's refusal (either form) as the client sees it: the params named
// as it sent them, the file's path, and the outdated hint on a miss.
Error refused_replace(Error e, const Current& cur) {
  e = name_input(std::move(e), InputNames::mentions());
  e.data["path"] = cur.shown;
  if (e.kind == ErrorKind::kNoMatch && cur.outdated_fingerprint)
    add_outdated_hint(e, *cur.outdated_fingerprint, cur.fingerprint);
  return e;
}

// The member of an edit of edit_lines that holds its (first) anchor, as the
// request names it: the errors about that anchor say where it is.
std::string edit_member(hashline::Kind kind) {
  switch (kind) {
    case hashline::Kind::kReplace:
      return "replace.start";
    case hashline::Kind::kInsertAfter:
      return "insertAfter";
    case hashline::Kind::kInsertBefore:
      return "insertBefore";
  }
  return "replace.start";
}

Error bad_anchor(std::size_t index, const std::string& where, const std::string& given) {
  Error e = invalid_param(mention(Input::kEdits),
                          "edit " + std::to_string(index) + ": " + where + " '" + given +
                              "' is not an anchor: write LINE~TAG as read_text with "
                              "format \"hashline\" shows it, e.g. \"12~ab\"");
  e.data["edit"] = index;
  return e;
}

}  // namespace

Result<void> check_param_text(std::string_view s, std::string_view param) {
  auto ok = text::check_text(s, "param '" + std::string(param) + "'");
  if (ok) return ok;
  Error e = ok.error();
  e.data["param"] = param;
  return e;
}

Operations::Awaitable Operations::write_text(RequestContext& ctx, ops::WriteRequest p) {
  if (auto ok = check_param_text(p.content, "content"); !ok) co_return ok.error();
  co_return co_await pipeline_->mutate(
      ctx, p, true, new_file_runs_here(p.content), [&p](const Current& cur) -> Result<Transformed> {
        if (cur.is_directory)
          return Error(ErrorKind::kIsDirectory, cur.shown + " is a directory",
                       {{"path", cur.shown}});
        Transformed c;
        c.result.created = !cur.bytes;
        if (!cur.bytes) {
          c.staged.bytes = p.content;
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
std::string format_asked(const ops::FormatRequest& p) {
  std::vector<std::string> parts;
  if (p.line_endings)
    parts.push_back(*p.line_endings == text::Eol::kCrLf ? "CRLF line endings" : "LF line endings");
  if (p.bom) parts.push_back(*p.bom ? "a BOM" : "no BOM");
  if (p.final_newline) parts.push_back(*p.final_newline ? "a final newline" : "no final newline");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

}  // namespace

Operations::Awaitable Operations::set_format(RequestContext& ctx, ops::FormatRequest p) {
  // What set_format changes is the file's conventions, never its text: no formatter runs.
  p.format = false;
  RunsHere small = [](const Current& cur) {
    return cur.bytes && cur.bytes->size() <= kOffloadBytes;
  };
  Transform transform = [&p](const Current& cur) -> Result<Transformed> {
    auto doc = text::Document::decode(*cur.bytes);
    if (!doc) return doc.error();
    text::Format format;
    format.line_endings = p.line_endings;
    format.bom = p.bom;
    format.final_newline = p.final_newline;
    auto bytes = text::reformat(*doc, format, cur.shown);
    if (!bytes) {
      Error e = std::move(bytes.error());
      e.data["param"] = param_name(e.input, InputNames::mentions());
      e.data["path"] = cur.shown;
      return e;
    }
    Transformed c;
    c.diff_bom = p.bom.value_or(doc->bom()) != doc->bom();
    c.staged.bytes = std::move(*bytes);
    if (c.staged.bytes == *cur.bytes)
      return Error(ErrorKind::kNoChange,
                   cur.shown + " already has " + format_asked(p) + ": nothing would change",
                   {{"path", cur.shown}});
    return c;
  };
  co_return co_await pipeline_->mutate(ctx, p, false, small, transform);
}

Operations::Awaitable Operations::create(RequestContext& ctx, ops::CreateRequest p) {
  if (auto ok = check_param_text(p.content, "content"); !ok) co_return ok.error();
  co_return co_await pipeline_->mutate(
      ctx, p, true, new_file_runs_here(p.content), [&p](const Current& cur) -> Result<Transformed> {
        if (cur.bytes || cur.is_directory)
          return Error(ErrorKind::kExists,
                       cur.shown +
                           (cur.is_directory ? " exists (as a directory)" : " already exists") +
                           ": use write_text to replace a file",
                       {{"path", cur.shown}});
        Transformed c;
        c.result.created = true;
        c.staged.bytes = p.content;
        return c;
      });
}

Operations::Awaitable Operations::insert(RequestContext& ctx, ops::InsertRequest p) {
  if (auto ok = check_param_text(p.text, "text"); !ok) co_return ok.error();
  if (p.text.empty())
    co_return invalid_param("text", "must not be empty (send \"\\n\" for a blank line)");
  // One linear pass to place the text, and a diff of its lines only.
  RunsHere small = [&p](const Current& cur) {
    return cur.bytes && cur.bytes->size() <= kOffloadBytes &&
           text::count_lines(p.text) <= kInlineDiffLines;
  };
  Transform transform = [&p](const Current& cur) -> Result<Transformed> {
    auto doc = text::Document::decode(*cur.bytes);
    if (!doc) return doc.error();
    if (p.after_line > doc->line_count())
      return line_out_of_range(p.after_line, doc->line_count(), "line");
    text::Normalized norm(*doc);
    const std::string_view normalized = norm.view();
    const std::size_t at = offset_of_line(normalized, p.after_line);
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
    c.result.lines = std::vector<ops::LineRange>{{p.after_line + 1, p.after_line + inserted}};
    return spliced(*doc, splice::plan(*doc, normalized, std::move(edits)), std::move(c));
  };
  co_return co_await pipeline_->mutate(ctx, p, false, small, transform);
}

namespace {

// str_replace's edits[] on the file `cur`: each edit matched in the text the
// ones before it left (match::plan_sequence), all of them one change.
Result<Transformed> replace_edits(const Current& cur, const ops::ReplaceRequest& p,
                                  match::Mode mode, std::size_t max_bytes,
                                  const std::vector<std::string>& olds,
                                  const std::vector<std::string>& news) {
  auto doc = text::Document::decode(*cur.bytes);
  if (!doc) return doc.error();
  auto bom_free = [&doc](std::string_view s) {
    return doc->bom() && s.starts_with(text::kBom) ? s.substr(text::kBom.size()) : s;
  };
  match::SequenceRequest req;
  req.mode = mode;
  req.max_result_bytes = max_bytes;
  req.text_ascii = doc->ascii();
  for (std::size_t i = 0; i < p.edits.size(); ++i) {
    const ops::ReplaceEdit& e = p.edits[i];
    // As a single str_replace: texts that differ only in what the fidelity
    // rules keep ask for a change that no edit makes.
    if (e.old_text != e.new_text &&
        text::normalize_eol(bom_free(e.old_text)) == text::normalize_eol(bom_free(e.new_text))) {
      Error err = match::step_error(kept_unchanged(cur.shown, e.old_text, e.new_text), i);
      return err;
    }
    req.steps.push_back({olds[i], news[i], e.replace_all, e.expected_replacements});
  }
  text::Normalized norm(*doc);
  req.text = norm.view();
  auto plan = match::plan_sequence(req);
  if (!plan) return refused_replace(plan.error(), cur);
  Transformed c;
  if (p.edits.size() == 1)
    c.asked.emplace(p.edits[0].old_text, p.edits[0].new_text);
  else
    c.if_unchanged = "the edits, applied in order, leave its text as it was (a later edit puts "
                     "back what an earlier one changed, or the fidelity rules keep what they "
                     "change)";
  c.result.replacements = plan->replacements;
  std::vector<ops::EditOutcome> outcomes;
  outcomes.reserve(plan->steps.size());
  bool one_tier = true;
  for (match::StepPlan& st : plan->steps) {
    one_tier = one_tier && (outcomes.empty() || st.tier == outcomes.front().matched_by);
    outcomes.push_back({st.replacements, std::move(st.lines), std::move(st.tier)});
  }
  if (one_tier) c.result.matched_by = outcomes.front().matched_by;
  c.result.edits = std::move(outcomes);
  c.result.lines = std::move(plan->lines);
  return spliced(*doc, splice::plan(*doc, norm.view(), std::move(plan->edits)), std::move(c));
}

}  // namespace

Operations::Awaitable Operations::str_replace(RequestContext& ctx, ops::ReplaceRequest p) {
  const match::Mode mode = p.matching.value_or(pipeline_->options().matching);
  if (!p.edits.empty()) {
    std::vector<std::string> olds, news;
    olds.reserve(p.edits.size());
    news.reserve(p.edits.size());
    for (std::size_t i = 0; i < p.edits.size(); ++i) {
      if (auto ok = check_param_text(p.edits[i].new_text, mention(Input::kNewText)); !ok) {
        Error e = ok.error();
        e.message = mention(Input::kEdits) + "[" + std::to_string(i) + "]: " + e.message;
        e.data["edit"] = i;
        e.data["param"] = mention(Input::kEdits);
        co_return e;
      }
      olds.push_back(text::normalize_eol(p.edits[i].old_text));
      news.push_back(text::normalize_eol(p.edits[i].new_text));
    }
    const auto max_bytes = static_cast<std::size_t>(pipeline_->options().max_file_bytes);
    Transform transform = [&p, mode, max_bytes, &olds, &news](const Current& cur) {
      return replace_edits(cur, p, mode, max_bytes, olds, news);
    };
    co_return co_await pipeline_->mutate(ctx, p, false, nullptr, transform);
  }
  if (auto ok = check_param_text(p.new_text, mention(Input::kNewText)); !ok) co_return ok.error();
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
  co_return co_await pipeline_->mutate(
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
        req.max_result_bytes = static_cast<std::size_t>(pipeline_->options().max_file_bytes);
        req.text_ascii = doc->ascii();
        auto plan = match::plan_replace(req);
        if (!plan) return refused_replace(plan.error(), cur);
        Transformed c;
        c.asked.emplace(p.old_text, p.new_text);
        c.result.replacements = plan->replacements;
        c.result.matched_by = plan->tier;
        c.result.lines = std::move(plan->lines);
        return spliced(*doc, splice::plan(*doc, norm.view(), std::move(plan->edits)), std::move(c));
      });
}

Operations::Awaitable Operations::edit_lines(RequestContext& ctx, ops::LineEditsRequest p) {
  std::vector<hashline::LineEdit> edits;
  for (std::size_t i = 0; i < p.edits.size(); ++i) {
    const ops::LineEdit& e = p.edits[i];
    if (auto ok = check_param_text(e.new_text, mention(Input::kNewText)); !ok) {
      Error err = ok.error();
      err.data["edit"] = i;
      co_return err;
    }
    hashline::LineEdit edit;
    edit.kind = e.kind;
    const std::string where = edit_member(e.kind);
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
  const std::string scope = ctx.scope.key();
  Views& views = pipeline_->views();
  const bool expected = p.expected_fingerprint.has_value();
  Transform transform = [&](const Current& cur) -> Result<Transformed> {
    auto doc = text::Document::decode(*cur.bytes);
    if (!doc) return doc.error();
    text::Normalized norm(*doc);
    // The views the anchors came from: every view of the file this
    // connection read that editd remembers, newest first (each version's
    // slices combined in one). Each anchor is mapped through the first that
    // shows its line with its tag. With expectedFingerprint (the file as it
    // is, else conflict) that version's view comes first, and an anchor no
    // view shows stands where it is: the caller vouched for the version.
    std::vector<Views::Found> found = views.find(Views::Where{reader, scope, cur.canonical});
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
      Error e = name_input(plan.error(), InputNames::mentions());
      e.data["path"] = cur.shown;
      if (e.kind == ErrorKind::kStale) e.data["currentFingerprint"] = cur.fingerprint;
      return e;
    }
    Transformed c;
    c.if_unchanged =
        "every edit's " + mention(Input::kNewText) +
        " is the text of the lines it replaces (line endings and a copy of "
        "the BOM are kept as the file has them, byte fidelity); to convert line endings or add "
        "or remove the BOM, call set_format";
    c.result.lines = std::move(plan->lines);
    c.result.rebased = std::move(plan->rebased);
    for (splice::Edit& e : plan->edits)
      if (e.begin == 0) e.text = std::string(text::without_copied_bom(*doc, 0, e.text));
    return spliced(*doc, splice::plan(*doc, norm.view(), std::move(plan->edits)), std::move(c));
  };
  co_return co_await pipeline_->mutate(ctx, p, false, nullptr, transform);
}

}  // namespace editd
