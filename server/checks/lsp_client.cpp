#include "server/checks/lsp_client.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <spdlog/spdlog.h>

#include "edit/text/fingerprint.h"
#include "server/checks/child_process.h"
#include "server/checks/diagnostics.h"
#include "server/checks/lsp_state.h"
#include "server/checks/lsp_wire.h"

namespace editd {

namespace asio = boost::asio;
using json = nlohmann::json;
using diagnostics::Diagnostic;

namespace {

std::string severity_name(const json& s) {
  if (!s.is_number_integer()) return "error";
  switch (s.get<int>()) {
    case 2:
      return "warning";
    case 3:
      return "info";
    case 4:
      return "hint";
    default:
      return "error";
  }
}

// Whether a diagnostic names a place in a file outside the root: a server
// reads what a client may not (clangd on `#include "/etc/passwd"` says "In
// included file: ..." and points there).
bool about_outside(const LspClient::State& s, const json& item) {
  auto related = item.find("relatedInformation");
  if (related == item.end() || !related->is_array()) return false;
  for (const json& r : *related) {
    const json uri = r.value("/location/uri"_json_pointer, json());
    if (!uri.is_string()) continue;
    auto path = path_of_uri(uri.get<std::string>());
    if (path && !s.inside_root(*path)) return true;
  }
  return false;
}

}  // namespace

void handle(const StatePtr& s, lsp::Message m) {
  const json& msg = m.json;
  if (!msg.is_object()) return;
  auto method = msg.find("method");
  auto id = msg.find("id");
  if (method != msg.end() && method->is_string()) {
    const std::string name = method->get<std::string>();
    if (id != msg.end()) {
      // A request from the server: answer so that it does not wait.
      json result = nullptr;
      if (name == "workspace/configuration") {
        result = json::array();
        if (auto p = msg.find("params"); p != msg.end() && p->is_object())
          if (auto items = p->find("items"); items != p->end() && items->is_array())
            for (std::size_t i = 0; i < items->size(); ++i) result.push_back(nullptr);
      }
      send(s, json{{"jsonrpc", "2.0"}, {"id", *id}, {"result", result}});
      return;
    }
    if (name != "textDocument/publishDiagnostics") return;
    auto p = msg.find("params");
    if (p == msg.end() || !p->is_object()) return;
    auto uri = p->find("uri");
    if (uri == p->end() || !uri->is_string()) return;
    auto doc = s->docs.find(uri->get<std::string>());
    if (doc == s->docs.end() || doc->second->closing) return;
    LspClient::State::Doc& d = *doc->second;
    if (d.publishes == d.sent_at)
      s->slowest_publish =
          std::max(s->slowest_publish, std::chrono::steady_clock::now() - d.sent_time);
    d.diagnostics.clear();
    d.not_shown = 0;
    d.outside = 0;
    if (auto list = p->find("diagnostics"); list != p->end() && list->is_array())
      for (const json& item : *list) {
        if (!item.is_object()) continue;
        if (about_outside(*s, item)) {
          ++d.outside;
          continue;
        }
        if (d.diagnostics.size() == diagnostics::kMaxDiagnostics) {
          ++d.not_shown;
          continue;
        }
        Diagnostic diag;
        const json start = item.value("/range/start"_json_pointer, json::object());
        if (start.contains("line") && start["line"].is_number_unsigned())
          diag.line = start["line"].get<std::uint64_t>() + 1;
        if (start.contains("character") && start["character"].is_number_unsigned())
          diag.column = start["character"].get<std::uint64_t>() + 1;
        diag.severity = severity_name(item.value("severity", json()));
        diag.message = item.contains("message") && item["message"].is_string()
                           ? item["message"].get<std::string>()
                           : std::string();
        diag.source = item.contains("source") && item["source"].is_string()
                          ? item["source"].get<std::string>()
                          : s->name;
        d.diagnostics.push_back(std::move(diag));
      }
    ++d.publishes;
    if (auto v = p->find("version"); v != p->end() && v->is_number_integer())
      d.published_version = v->get<std::int64_t>();
    else
      d.published_version.reset();
    s->notify();
    return;
  }
  if (id != msg.end() && id->is_number_integer()) {
    if (auto a = s->answers.find(id->get<std::int64_t>()); a != s->answers.end() && !a->second) {
      a->second = std::move(m);
      s->notify();
      return;
    }
  }
  if (id != msg.end() && id->is_number_integer() && id->get<std::int64_t>() == s->init_id &&
      !s->initialized) {
    if (auto err = msg.find("error"); err != msg.end()) {
      s->fail("the language server refused initialize: " + err->dump());
      return;
    }
    const json caps = msg.value("/result/capabilities"_json_pointer, json::object());
    if (caps.is_object()) {
      if (auto e = caps.find("positionEncoding"); e != caps.end() && e->is_string())
        s->encoding = symbols::encoding_named(e->get<std::string>());
      if (auto d = caps.find("documentSymbolProvider"); d != caps.end())
        s->document_symbols = d->is_object() || (d->is_boolean() && d->get<bool>());
      if (auto r = caps.find("documentRangeFormattingProvider"); r != caps.end())
        s->range_formatting = r->is_object() || (r->is_boolean() && r->get<bool>());
    }
    s->initialized = true;
    send(s, json{{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
    s->notify();
  }
}

LspClient::LspClient(std::vector<std::string> argv, json initialization_options, std::string root,
                     std::string name, std::function<bool(std::string_view)> inside_root)
    : argv_(std::move(argv)),
      initialization_options_(std::move(initialization_options)),
      root_(std::move(root)),
      name_(std::move(name)),
      inside_root_(std::move(inside_root)) {}

LspClient::~LspClient() { stop(); }

void LspClient::stop() {
  if (state_) state_->fail("editd is exiting");
  state_.reset();
}

asio::awaitable<std::shared_ptr<LspClient::State>> LspClient::start(
    std::chrono::steady_clock::time_point deadline, std::string& error) {
  if (!state_ || !state_->alive) {
    auto ex = co_await asio::this_coro::executor;
    auto child = Child::spawn(ex, argv_, root_, error);
    if (!child) co_return nullptr;
    auto s = std::make_shared<State>();
    s->child.emplace(std::move(*child));
    s->name = name_;
    s->inside_root = inside_root_;
    s->pool = pool_;
    state_ = s;
    asio::co_spawn(ex, read_loop(s), asio::detached);
    char cwd[4096];
    std::string root = root_;
    if (!root.starts_with('/') && ::getcwd(cwd, sizeof cwd)) root = std::string(cwd) + "/" + root;
    s->init_id = s->next_id++;
    // typescript-language-server would otherwise have tsserver fetch type
    // definitions from the npm registry (automatic typing acquisition);
    // other servers ignore the option.
    json init = initialization_options_;
    init["disableAutomaticTypingAcquisition"] = true;
    json caps = {
        {"textDocument",
         {{"publishDiagnostics", {{"versionSupport", true}, {"relatedInformation", true}}},
          {"synchronization", {{"didSave", false}, {"dynamicRegistration", false}}},
          {"documentSymbol", {{"hierarchicalDocumentSymbolSupport", true}}},
          {"rangeFormatting", {{"dynamicRegistration", false}}}}},
        {"workspace", {{"configuration", true}}}};
    send(s, json{{"jsonrpc", "2.0"},
                 {"id", s->init_id},
                 {"method", "initialize"},
                 {"params",
                  {{"processId", static_cast<std::int64_t>(::getpid())},
                   {"clientInfo", {{"name", "editd"}}},
                   {"rootUri", file_uri(root)},
                   {"rootPath", root},
                   {"workspaceFolders", json::array({{{"uri", file_uri(root)}, {"name", "root"}}})},
                   {"initializationOptions", init},
                   {"capabilities", caps}}}});
  }
  StatePtr s = state_;
  std::function<bool()> initialized = [&s] { return s->initialized; };
  bool ready = co_await wait_until(s, deadline, std::move(initialized));
  if (!ready) {
    error = s->alive ? "the language server did not finish initialize in time" : s->failure;
    co_return nullptr;
  }
  co_return s;
}

asio::awaitable<LspClient::Outcome> LspClient::diagnose(
    const std::string& path, const std::string& text,
    std::chrono::steady_clock::time_point deadline) {
  Outcome outcome;
  std::string error;
  StatePtr s = co_await start(deadline, error);
  if (!s) {
    outcome.status = start_failed(state_.get(), name_, error, outcome.detail, "check")
                         ? diagnostics::Status::kTimeout
                         : diagnostics::Status::kFailed;
    co_return outcome;
  }
  const std::string uri = file_uri(path);
  const State::DocUse doc = s->use(uri);
  doc->last_used = ++s->clock;
  const bool changes = !(doc->open && doc->fingerprint == fingerprint(text));
  if (changes || !doc->current) {
    doc->current = false;
    // LSP does not oblige a server to publish again when a document's
    // diagnostics do not change, and typescript-language-server does not
    // when they stay empty. A document whose last publish listed nothing
    // then gets none: it is closed and opened again, for which every server
    // publishes. A server found to need it (no publish within the grace)
    // gets it at once from then on.
    const bool quiet = doc->open && doc->quiet() && (changes || doc->publishes == doc->sent_at);
    std::optional<std::string> failure;
    bool reopened = false;
    if (quiet && reopens_quiet_) {
      reopened = true;
      if (!co_await reopen(s, path, text, deadline)) failure = "it did not answer in time";
    } else {
      sync(s, path, text);
    }
    // A publish after the send, for this version when the server says which.
    std::function<bool()> published = [d = &*doc] {
      return d->publishes > d->sent_at &&
             (!d->published_version ||
              *d->published_version >= static_cast<std::int64_t>(d->version));
    };
    bool ready = false;
    if (!failure) {
      // The grace: three times the slowest publish seen, at least kQuietGrace,
      // at most half the time left, so that the reopened document has the rest.
      auto until = deadline;
      if (quiet && !reopened) {
        const auto now = std::chrono::steady_clock::now();
        const std::chrono::steady_clock::duration grace =
            std::max<std::chrono::steady_clock::duration>(kQuietGrace, 3 * s->slowest_publish);
        until = std::min(doc->sent_time + grace, now + (deadline - now) / 2);
      }
      ready = co_await wait_until(s, until, published);
      if (!ready && s->alive && until < deadline) {
        reopens_quiet_ = true;
        spdlog::info("{} published nothing for a change to a document without diagnostics; "
                     "such documents are reopened from now on", name_);
        if (co_await reopen(s, path, text, deadline))
          ready = co_await wait_until(s, deadline, published);
      }
    }
    if (!ready) {
      outcome.status = s->alive ? diagnostics::Status::kTimeout : diagnostics::Status::kFailed;
      outcome.detail =
          name_ + ": " + (s->alive ? failure.value_or("no diagnostics were published in time")
                                   : s->failure);
      // A server that did not answer in time is not trusted to answer the
      // next one: it is stopped (its queue and open documents go with it).
      if (s->alive) {
        s->fail("it did not publish diagnostics in time");
        outcome.detail += "; it was stopped, and the next check starts it again";
      }
      co_return outcome;
    }
    doc->current = true;
  }
  outcome.diagnostics = doc->diagnostics;
  std::vector<std::string> notes;
  if (doc->not_shown > 0) notes.push_back(std::to_string(doc->not_shown) + " more diagnostics not shown");
  if (doc->outside > 0)
    notes.push_back(std::to_string(doc->outside) +
                    " diagnostics about files outside the root not shown");
  for (const std::string& n : notes)
    outcome.detail += (outcome.detail.empty() ? name_ + ": " : "; ") + n;

  close_least_used(s, uri);
  co_return outcome;
}

void close_least_used(const StatePtr& s, const std::string& keep) {
  const std::string& uri = keep;
  while (s->docs.size() > LspClient::kMaxOpenDocuments) {
    auto oldest = s->docs.end();
    for (auto it = s->docs.begin(); it != s->docs.end(); ++it)
      if (it->second->users == 0 && it->first != uri &&
          (oldest == s->docs.end() || it->second->last_used < oldest->second->last_used))
        oldest = it;
    if (oldest == s->docs.end()) break;
    send(s, json{{"jsonrpc", "2.0"},
                 {"method", "textDocument/didClose"},
                 {"params", {{"textDocument", {{"uri", oldest->first}}}}}});
    s->drop_symbols(*oldest->second);
    s->docs.erase(oldest);
  }
}

asio::awaitable<bool> LspClient::reopen(const StatePtr& s, const std::string& path,
                                        const std::string& text,
                                        std::chrono::steady_clock::time_point deadline) {
  const std::string uri = file_uri(path);
  const State::DocUse doc = s->use(uri);
  send(s, json{{"jsonrpc", "2.0"},
               {"method", "textDocument/didClose"},
               {"params", {{"textDocument", {{"uri", uri}}}}}});
  doc->open = false;
  doc->closing = true;
  // What the server publishes for the closed document (an empty list, as a
  // rule) comes before its answer to a request sent after the didClose: LSP
  // has a server answer a `$/` request it does not know with MethodNotFound.
  const std::int64_t id = s->next_id++;
  s->answers[id];
  send(s, json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "$/editd/barrier"}});
  std::function<bool()> answered = [&s, id] { return s->answers[id].has_value(); };
  const bool ready = co_await wait_until(s, deadline, std::move(answered));
  s->answers.erase(id);
  doc->closing = false;
  if (ready) sync(s, path, text);
  co_return ready;
}

bool LspClient::sync(const StatePtr& s, const std::string& path, const std::string& text) {
  const std::string uri = file_uri(path);
  const std::string fp = fingerprint(text);
  State::Doc& doc = s->doc(uri);
  doc.last_used = ++s->clock;
  if (doc.open && doc.fingerprint == fp) return false;
  // A document reopened with the same text keeps its symbols.
  if (doc.fingerprint != fp) s->drop_symbols(doc);
  doc.current = false;
  doc.fingerprint = fp;
  doc.sent_at = doc.publishes;
  doc.sent_time = std::chrono::steady_clock::now();
  const auto version = static_cast<std::int64_t>(++doc.version);
  if (!doc.open) {
    doc.open = true;
    send(s, json{{"jsonrpc", "2.0"},
                 {"method", "textDocument/didOpen"},
                 {"params",
                  {{"textDocument",
                    {{"uri", uri},
                     {"languageId", language_id(path)},
                     {"version", version},
                     {"text", text}}}}}});
  } else {
    send(s, json{{"jsonrpc", "2.0"},
                 {"method", "textDocument/didChange"},
                 {"params",
                  {{"textDocument", {{"uri", uri}, {"version", version}}},
                   {"contentChanges", json::array({{{"text", text}}})}}}});
  }
  return true;
}


}  // namespace editd
