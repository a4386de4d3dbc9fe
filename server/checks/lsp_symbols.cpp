// The LSP client's documentSymbol (server/checks/lsp_client.h): the document
// synchronised to exactly the bytes asked about, the server asked, its answer
// (read by lsp_endpoint.cpp straight into symbols) checked against those bytes
// for how the server counts lines, and kept for the next call on the same bytes.
#include <spdlog/spdlog.h>

#include "edit/symbols/verify.h"
#include "edit/text/fingerprint.h"
#include "server/checks/lsp_state.h"
#include "support/offload.h"

namespace editd {

namespace asio = boost::asio;
using json = nlohmann::json;

namespace {

// Checking an answer against a text larger than this, or of more symbols, is
// done on the pool.
constexpr std::size_t kInlineFitBytes = 64 * 1024;
constexpr std::size_t kInlineFitSymbols = 1000;

}  // namespace

asio::awaitable<LspClient::SymbolsOutcome> LspClient::document_symbols(
    const std::string& path, const std::string& text,
    std::chrono::steady_clock::time_point deadline) {
  SymbolsOutcome outcome;
  std::string error;
  StatePtr s = co_await start(deadline, error);
  if (!s) {
    outcome.status = start_failed(state_.get(), name_, error, outcome.detail, "call")
                         ? SymbolsStatus::kTimeout
                         : SymbolsStatus::kFailed;
    co_return outcome;
  }
  if (!s->document_symbols) {
    outcome.status = SymbolsStatus::kNotOffered;
    outcome.detail = name_ + " does not report a file's symbols (no documentSymbolProvider)";
    co_return outcome;
  }
  const std::string uri = file_uri(path);
  sync(s, path, text);
  // Held across the wait: another call may finish first and make room.
  const State::DocUse doc = s->use(uri);
  outcome.encoding = s->encoding;
  if (doc->symbols) {  // the server's answer for exactly this text
    outcome.roots = doc->symbols;
    outcome.breaks = doc->symbols_breaks;
    outcome.truncated = doc->symbols_truncated;
    co_return outcome;
  }
  const std::int64_t id = s->next_id++;
  s->answers[id];
  send(s, json{{"jsonrpc", "2.0"},
               {"id", id},
               {"method", "textDocument/documentSymbol"},
               {"params", {{"textDocument", {{"uri", uri}}}}}});
  std::function<bool()> answered = [&s, id] { return s->answers[id].has_value(); };
  const bool ready = co_await wait_until(s, deadline, std::move(answered));
  std::optional<lsp::Message> answer = std::move(s->answers[id]);
  s->answers.erase(id);
  if (!ready) {
    outcome.status = s->alive ? SymbolsStatus::kTimeout : SymbolsStatus::kFailed;
    outcome.detail = name_ + ": " + (s->alive ? "no symbols were reported in time" : s->failure);
    if (s->alive) {
      s->fail("it did not report symbols in time");
      outcome.detail += "; it was stopped, and the next call starts it again";
    }
    co_return outcome;
  }
  if (auto err = answer->json.find("error"); err != answer->json.end()) {
    outcome.status = SymbolsStatus::kFailed;
    const json message = err->is_object() ? err->value("message", json()) : json();
    outcome.detail = name_ + " could not report the file's symbols: " +
                     (message.is_string() ? message.get<std::string>() : err->dump());
    co_return outcome;
  }
  lsp::SymbolList list = answer->symbols ? std::move(*answer->symbols) : lsp::SymbolList{};
  answer.reset();
  // How the server counts lines, judged by where it says the names are.
  const symbols::LineBreaks prefer = s->breaks;
  auto fit = [&text, &list, encoding = outcome.encoding, prefer]() -> Result<symbols::LineBreaks> {
    return symbols::fit_line_breaks(text, list.roots, encoding, prefer);
  };
  auto breaks = s->pool && (text.size() > kInlineFitBytes || list.count > kInlineFitSymbols)
                    ? co_await offload(*s->pool, fit)
                    : fit();
  outcome.breaks = breaks ? *breaks : prefer;
  if (outcome.breaks != s->breaks) {
    spdlog::info("{} counts lines otherwise than LSP says: its symbols are read so from now on",
                 name_);
    s->breaks = outcome.breaks;
  }
  outcome.truncated = list.truncated;
  outcome.roots = std::make_shared<const std::vector<symbols::Reported>>(std::move(list.roots));
  // Kept for the next call on the same text (read_symbols, then edit_symbol),
  // other documents' answers making room.
  const std::size_t bytes = list.bytes;
  if (doc->open && doc->fingerprint == fingerprint(text) && bytes <= kMaxKeptSymbolBytes) {
    s->drop_symbols(*doc);
    for (auto it = s->docs.begin();
         it != s->docs.end() && s->cached_symbols + bytes > kMaxKeptSymbolBytes; ++it)
      s->drop_symbols(*it->second);
    doc->symbols = outcome.roots;
    doc->symbols_bytes = bytes;
    doc->symbols_breaks = outcome.breaks;
    doc->symbols_truncated = outcome.truncated;
    s->cached_symbols += bytes;
  }
  close_least_used(s, uri);
  co_return outcome;
}

}  // namespace editd
