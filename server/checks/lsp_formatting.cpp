// The LSP client's rangeFormatting (server/checks/lsp_client.h), for --format
// GLOB=@lsp: the document synchronised to exactly the text to format, one
// request per changed span sent at once, and every answer's edits made on that
// text (lsp_wire.h), so the result is the whole formatted text a --format
// program would have written.
#include <algorithm>

#include "edit/symbols/positions.h"
#include "server/checks/lsp_state.h"

namespace editd {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

// The spans as the requests cover them: clamped to the text's `lines`, a
// point widened to the lines on either side of it (a removal leaves a seam
// the formatter may mend), merged where they meet, ascending.
std::vector<format_scope::Span> request_spans(std::vector<format_scope::Span> spans,
                                              std::size_t lines) {
  std::vector<format_scope::Span> out;
  for (format_scope::Span s : spans) {
    s.end = std::min(s.end, lines);
    s.first = std::min(s.first, s.end);
    if (s.first == s.end) {
      s.first = s.first > 0 ? s.first - 1 : 0;
      s.end = std::min(s.end + 1, lines);
    }
    if (s.first < s.end) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<format_scope::Span> merged;
  for (const format_scope::Span& s : out) {
    if (!merged.empty() && s.first <= merged.back().end)
      merged.back().end = std::max(merged.back().end, s.end);
    else
      merged.push_back(s);
  }
  return merged;
}

// Whether the changed lines that are indented mostly start with a tab: the
// options sent then ask for tabs (a server such as clangd follows the
// project's style instead; others take these).
bool indents_with_tabs(const symbols::LineIndex& index,
                       const std::vector<format_scope::Span>& spans) {
  std::size_t tabs = 0, spaces = 0;
  const std::string_view text = index.text();
  for (const format_scope::Span& s : spans)
    for (std::size_t line = s.first; line < s.end; ++line) {
      const std::size_t at = index.editd_line_start(line + 1);
      if (at >= text.size()) break;
      if (text[at] == '\t') ++tabs;
      if (text[at] == ' ') ++spaces;
    }
  return tabs > spaces;
}

}  // namespace

asio::awaitable<LspClient::Formatted> LspClient::format_ranges(
    const std::string& path, std::string text, std::vector<format_scope::Span> changed,
    std::chrono::steady_clock::time_point deadline, std::size_t max_bytes) {
  Formatted outcome;
  const symbols::LineIndex index(text);
  const std::vector<format_scope::Span> spans =
      request_spans(std::move(changed), index.editd_lines());
  if (spans.empty()) {
    outcome.formatted = std::move(text);
    co_return outcome;
  }
  std::string error;
  StatePtr s = co_await start(deadline, error);
  if (!s) {
    outcome.status = start_failed(state_.get(), name_, error, outcome.detail, "call")
                         ? diagnostics::Status::kTimeout
                         : diagnostics::Status::kFailed;
    co_return outcome;
  }
  if (!s->range_formatting) {
    outcome.status = diagnostics::Status::kFailed;
    outcome.detail = name_ + " does not format ranges (no documentRangeFormattingProvider)";
    co_return outcome;
  }
  const std::string uri = file_uri(path);
  sync(s, path, text);
  // Held across the wait: another call may finish first and make room.
  const State::DocUse doc = s->use(uri);
  const bool tabs = indents_with_tabs(index, spans);
  const symbols::LineBreaks breaks = s->breaks;
  const symbols::Encoding encoding = s->encoding;
  std::vector<std::int64_t> ids;
  for (const format_scope::Span& span : spans) {
    const symbols::Position start =
        lsp::lsp_position(text, index.editd_line_start(span.first + 1), breaks, encoding);
    // The end of the span's last line, before its line break: a range that
    // ends at the next line's start has clangd (clang-format) format that
    // line too.
    const symbols::Position end =
        lsp::lsp_position(text, index.editd_line_end(span.end), breaks, encoding);
    const std::int64_t id = s->next_id++;
    ids.push_back(id);
    s->answers[id];
    s->json_results.push_back(id);
    send(s, json{{"jsonrpc", "2.0"},
                 {"id", id},
                 {"method", "textDocument/rangeFormatting"},
                 {"params",
                  {{"textDocument", {{"uri", uri}}},
                   {"range",
                    {{"start", {{"line", start.line}, {"character", start.character}}},
                     {"end", {{"line", end.line}, {"character", end.character}}}}},
                   {"options", {{"tabSize", 4}, {"insertSpaces", !tabs}}}}}});
  }
  std::function<bool()> answered = [&s, &ids] {
    return std::all_of(ids.begin(), ids.end(),
                       [&s](std::int64_t id) { return s->answers[id].has_value(); });
  };
  const bool ready = co_await wait_until(s, deadline, std::move(answered));
  std::vector<std::optional<lsp::Message>> answers;
  for (std::int64_t id : ids) {
    answers.push_back(std::move(s->answers[id]));
    s->answers.erase(id);
    std::erase(s->json_results, id);
  }
  if (!ready) {
    outcome.status = s->alive ? diagnostics::Status::kTimeout : diagnostics::Status::kFailed;
    outcome.detail =
        name_ + ": " + (s->alive ? "the changed lines were not formatted in time" : s->failure);
    if (s->alive) {
      s->fail("it did not format in time");
      outcome.detail += "; it was stopped, and the next call starts it again";
    }
    co_return outcome;
  }
  std::vector<lsp::TextEdit> edits;
  for (std::optional<lsp::Message>& answer : answers) {
    const json& msg = answer->json;
    if (auto err = msg.find("error"); err != msg.end()) {
      outcome.status = diagnostics::Status::kFailed;
      const json message = err->is_object() ? err->value("message", json()) : json();
      outcome.detail = name_ + " could not format the changed lines: " +
                       (message.is_string() ? message.get<std::string>() : err->dump());
      co_return outcome;
    }
    auto result = msg.find("result");
    auto got = lsp::text_edits(result == msg.end() ? json() : *result);
    if (!got || answer->symbols) {
      outcome.status = diagnostics::Status::kFailed;
      outcome.detail = name_ + " answered rangeFormatting with something other than text edits";
      co_return outcome;
    }
    for (lsp::TextEdit& e : *got) edits.push_back(std::move(e));
  }
  close_least_used(s, uri);
  auto made = lsp::apply_text_edits(text, std::move(edits), encoding, breaks, max_bytes);
  if (!made) {
    outcome.status = diagnostics::Status::kFailed;
    outcome.detail = name_ + "'s range formatting could not be used: " + made.error().message;
    co_return outcome;
  }
  outcome.formatted = std::move(*made);
  co_return outcome;
}

}  // namespace editd
