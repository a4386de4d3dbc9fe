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
#include "server/checks/lsp_wire.h"

namespace editd {

namespace asio = boost::asio;
using json = nlohmann::json;
using diagnostics::Diagnostic;

namespace {

// A header block or a message bigger than these is a broken server.
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::size_t kMaxMessageBytes = 256ull << 20;
// The deepest nesting kept of a server's message (a documentSymbol answer
// nests two levels a symbol, and symbols::kMaxDepth of them are kept).
constexpr int kMaxMessageDepth = 256;
// What editd lets wait for a server that does not read: more than this (on
// top of the one message being written) and it is stopped as broken. A
// checked file's text is sent whole with each change, so a server that stops
// reading would otherwise hold a copy of every edit's file.
constexpr std::size_t kMaxQueuedBytes = 64ull << 20;

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

std::optional<std::size_t> content_length(std::string_view headers) {
  std::size_t pos = 0;
  while (pos < headers.size()) {
    std::size_t eol = headers.find("\r\n", pos);
    if (eol == std::string_view::npos) eol = headers.size();
    std::string_view line = headers.substr(pos, eol - pos);
    pos = eol + 2;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name != "content-length") continue;
    std::string_view v = line.substr(colon + 1);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    std::size_t n = 0;
    if (v.empty()) return std::nullopt;
    for (char c : v) {
      if (c < '0' || c > '9' || n > kMaxMessageBytes) return std::nullopt;
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    return n;
  }
  return std::nullopt;
}

}  // namespace

struct LspClient::State {
  struct Doc {
    std::uint64_t version = 0;
    bool open = false;
    std::string fingerprint;      // of the text last sent
    std::uint64_t sent_at = 0;    // publishes received when it was sent
    std::uint64_t publishes = 0;  // publishes received for this document
    std::optional<std::int64_t> published_version;
    std::vector<Diagnostic> diagnostics;  // the last published
    bool current = false;                 // published for the text last sent
    std::size_t not_shown = 0;            // published past kMaxDiagnostics
    std::size_t outside = 0;              // about files outside the root
    bool busy = false;                    // a diagnose is waiting on it
    std::uint64_t last_used = 0;
    std::chrono::steady_clock::time_point sent_time;  // when the text was sent
    // Closed to be opened again (reopen): what the server publishes for it
    // before it has answered the barrier is of the closed document.
    bool closing = false;
    // The documentSymbol answer for the text last sent (`fingerprint`), kept
    // until that text changes: the same bytes get the same symbols.
    std::optional<std::vector<symbols::Reported>> symbols;
    std::size_t symbols_bytes = 0;  // what `symbols` holds (symbol_bytes)

    // The last publish listed nothing (and left nothing out).
    bool quiet() const {
      return publishes > 0 && diagnostics.empty() && not_shown == 0 && outside == 0;
    }
  };

  std::optional<Child> child;
  std::string name;
  std::function<bool(std::string_view)> inside_root;
  bool alive = true;
  bool initialized = false;
  std::string failure;
  std::int64_t next_id = 1;
  std::int64_t init_id = 0;
  // What initialize's result said: the position encoding of every range the
  // server sends, and whether it answers documentSymbol.
  symbols::Encoding encoding = symbols::Encoding::kUtf16;
  bool document_symbols = false;
  // Requests of editd's waiting for their answer, by id: empty until it
  // comes. One entry per waiting call; a call that gives up erases its own.
  std::map<std::int64_t, std::optional<json>> answers;
  std::map<std::string, Doc> docs;  // by URI
  std::uint64_t clock = 0;
  // The longest a publish took after its text was sent.
  std::chrono::steady_clock::duration slowest_publish{};
  // What the documents' `symbols` hold, at most kMaxKeptSymbolBytes in all.
  std::size_t cached_symbols = 0;
  std::vector<asio::steady_timer*> waiters;
  std::deque<std::string> out;
  std::size_t queued_bytes = 0;  // in `out`
  bool writing = false;

  void notify() {
    for (asio::steady_timer* t : waiters) t->cancel();
  }

  void drop_symbols(Doc& d) {
    if (!d.symbols) return;
    cached_symbols -= d.symbols_bytes;
    d.symbols.reset();
  }

  void fail(std::string why) {
    if (!alive) return;
    alive = false;
    failure = std::move(why);
    if (child) {
      ::kill(-child->pid(), SIGKILL);
      boost::system::error_code ignored;
      child->in().close(ignored);
      child->out().close(ignored);
    }
    notify();
  }
};

namespace {

using StatePtr = std::shared_ptr<LspClient::State>;

// What a documentSymbol answer holds in memory (names, and each symbol's
// own size), to bound the answers kept.
std::size_t symbol_bytes(const std::vector<symbols::Reported>& list) {
  std::size_t n = 0;
  for (const symbols::Reported& r : list)
    n += sizeof(symbols::Reported) + r.name.size() + symbol_bytes(r.children);
  return n;
}

void close_least_used(const StatePtr& s, const std::string& keep);

asio::awaitable<void> write_loop(StatePtr s) {
  while (s->alive && !s->out.empty()) {
    std::string msg = std::move(s->out.front());
    s->out.pop_front();
    auto [ec, n] = co_await asio::async_write(s->child->in(), asio::buffer(msg),
                                              asio::as_tuple(asio::use_awaitable));
    if (ec) s->fail("the language server stopped reading: " + ec.message());
    s->queued_bytes -= msg.size();
  }
  s->writing = false;
}

void send(const StatePtr& s, const json& msg) {
  if (!s->alive) return;
  std::string body = msg.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string framed = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  if (s->queued_bytes > 0 && s->queued_bytes + framed.size() > kMaxQueuedBytes) {
    s->fail("the language server stopped reading (" + std::to_string(s->queued_bytes) +
            " bytes sent to it were still waiting); it was stopped");
    return;
  }
  s->queued_bytes += framed.size();
  s->out.push_back(std::move(framed));
  if (!s->writing) {
    s->writing = true;
    asio::co_spawn(s->child->in().get_executor(), write_loop(s), asio::detached);
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

void handle(const StatePtr& s, const json& msg) {
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
    if (doc == s->docs.end() || doc->second.closing) return;
    LspClient::State::Doc& d = doc->second;
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
      a->second = msg;
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
    }
    s->initialized = true;
    send(s, json{{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
    s->notify();
  }
}

asio::awaitable<void> read_loop(StatePtr s) {
  std::string buf;
  std::array<char, 65536> chunk;
  while (s->alive) {
    for (;;) {
      auto end = buf.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (buf.size() > kMaxHeaderBytes) s->fail("the language server sent a malformed header");
        break;
      }
      auto length = content_length(std::string_view(buf).substr(0, end));
      if (!length || *length > kMaxMessageBytes) {
        s->fail("the language server sent a message without a valid Content-Length");
        break;
      }
      if (buf.size() < end + 4 + *length) break;
      // Values nested deeper than kMaxMessageDepth are dropped as they are
      // read: copying or walking a message recurses, and a server that nests
      // thousands of levels would otherwise overflow editd's stack.
      json msg = json::parse(buf.begin() + static_cast<std::ptrdiff_t>(end + 4),
                             buf.begin() + static_cast<std::ptrdiff_t>(end + 4 + *length),
                             [](int depth, json::parse_event_t, json&) {
                               return depth <= kMaxMessageDepth;
                             },
                             false);
      buf.erase(0, end + 4 + *length);
      if (!msg.is_discarded()) handle(s, msg);
    }
    if (!s->alive) break;
    auto [ec, n] = co_await s->child->out().async_read_some(asio::buffer(chunk),
                                                            asio::as_tuple(asio::use_awaitable));
    if (ec) {
      s->fail("the language server exited");
      break;
    }
    buf.append(chunk.data(), n);
  }
}

// Waits until ready() holds (true), the server fails or the deadline passes (false).
asio::awaitable<bool> wait_until(StatePtr s, std::chrono::steady_clock::time_point deadline,
                                 std::function<bool()> ready) {
  auto ex = co_await asio::this_coro::executor;
  while (!ready()) {
    if (!s->alive || std::chrono::steady_clock::now() >= deadline) co_return false;
    asio::steady_timer t(ex);
    t.expires_at(deadline);
    s->waiters.push_back(&t);
    auto [ec] = co_await t.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
    s->waiters.erase(std::find(s->waiters.begin(), s->waiters.end(), &t));
  }
  co_return true;
}

}  // namespace

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
          {"documentSymbol", {{"hierarchicalDocumentSymbolSupport", true}}}}},
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
    outcome.status = state_ && state_->alive ? diagnostics::Status::kTimeout
                                              : diagnostics::Status::kFailed;
    outcome.detail = name_ + ": " + error;
    // One that never finished initialize is not waited for again.
    if (state_ && state_->alive) {
      state_->fail(error);
      outcome.detail += "; it was stopped, and the next check starts it again";
    }
    co_return outcome;
  }
  const std::string uri = file_uri(path);
  State::Doc& doc = s->docs[uri];
  doc.last_used = ++s->clock;
  const bool changes = !(doc.open && doc.fingerprint == fingerprint(text));
  if (changes || !doc.current) {
    doc.current = false;
    doc.busy = true;
    // LSP does not oblige a server to publish again when a document's
    // diagnostics do not change, and typescript-language-server does not
    // when they stay empty. A document whose last publish listed nothing
    // then gets none: it is closed and opened again, for which every server
    // publishes. A server found to need it (no publish within the grace)
    // gets it at once from then on.
    const bool quiet = doc.open && doc.quiet() && (changes || doc.publishes == doc.sent_at);
    std::optional<std::string> failure;
    bool reopened = false;
    if (quiet && reopens_quiet_) {
      reopened = true;
      if (!co_await reopen(s, path, text, deadline)) failure = "it did not answer in time";
    } else {
      sync(s, path, text);
    }
    // A publish after the send, for this version when the server says which.
    std::function<bool()> published = [&doc] {
      return doc.publishes > doc.sent_at &&
             (!doc.published_version ||
              *doc.published_version >= static_cast<std::int64_t>(doc.version));
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
        until = std::min(doc.sent_time + grace, now + (deadline - now) / 2);
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
    doc.busy = false;
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
    doc.current = true;
  }
  outcome.diagnostics = doc.diagnostics;
  std::vector<std::string> notes;
  if (doc.not_shown > 0) notes.push_back(std::to_string(doc.not_shown) + " more diagnostics not shown");
  if (doc.outside > 0)
    notes.push_back(std::to_string(doc.outside) +
                    " diagnostics about files outside the root not shown");
  for (const std::string& n : notes)
    outcome.detail += (outcome.detail.empty() ? name_ + ": " : "; ") + n;

  close_least_used(s, uri);
  co_return outcome;
}

namespace {

// Keeps the server's open documents bounded: closes the least recently used
// (never `keep`, nor one a call is waiting on).
void close_least_used(const StatePtr& s, const std::string& keep) {
  const std::string& uri = keep;
  while (s->docs.size() > LspClient::kMaxOpenDocuments) {
    auto oldest = s->docs.end();
    for (auto it = s->docs.begin(); it != s->docs.end(); ++it)
      if (!it->second.busy && it->first != uri &&
          (oldest == s->docs.end() || it->second.last_used < oldest->second.last_used))
        oldest = it;
    if (oldest == s->docs.end()) break;
    send(s, json{{"jsonrpc", "2.0"},
                 {"method", "textDocument/didClose"},
                 {"params", {{"textDocument", {{"uri", oldest->first}}}}}});
    s->drop_symbols(oldest->second);
    s->docs.erase(oldest);
  }
}

}  // namespace

asio::awaitable<bool> LspClient::reopen(const StatePtr& s, const std::string& path,
                                        const std::string& text,
                                        std::chrono::steady_clock::time_point deadline) {
  const std::string uri = file_uri(path);
  State::Doc& doc = s->docs[uri];
  send(s, json{{"jsonrpc", "2.0"},
               {"method", "textDocument/didClose"},
               {"params", {{"textDocument", {{"uri", uri}}}}}});
  doc.open = false;
  doc.closing = true;
  // What the server publishes for the closed document (an empty list, as a
  // rule) comes before its answer to a request sent after the didClose: LSP
  // has a server answer a `$/` request it does not know with MethodNotFound.
  const std::int64_t id = s->next_id++;
  s->answers[id];
  send(s, json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "$/editd/barrier"}});
  std::function<bool()> answered = [&s, id] { return s->answers[id].has_value(); };
  const bool ready = co_await wait_until(s, deadline, std::move(answered));
  s->answers.erase(id);
  doc.closing = false;
  if (ready) sync(s, path, text);
  co_return ready;
}

bool LspClient::sync(const StatePtr& s, const std::string& path, const std::string& text) {
  const std::string uri = file_uri(path);
  const std::string fp = fingerprint(text);
  State::Doc& doc = s->docs[uri];
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


asio::awaitable<LspClient::SymbolsOutcome> LspClient::document_symbols(
    const std::string& path, const std::string& text,
    std::chrono::steady_clock::time_point deadline) {
  SymbolsOutcome outcome;
  std::string error;
  StatePtr s = co_await start(deadline, error);
  if (!s) {
    outcome.status = state_ && state_->alive ? SymbolsStatus::kTimeout : SymbolsStatus::kFailed;
    outcome.detail = name_ + ": " + error;
    if (state_ && state_->alive) {
      state_->fail(error);
      outcome.detail += "; it was stopped, and the next call starts it again";
    }
    co_return outcome;
  }
  if (!s->document_symbols) {
    outcome.status = SymbolsStatus::kNotOffered;
    outcome.detail = name_ + " does not report a file's symbols (no documentSymbolProvider)";
    co_return outcome;
  }
  const std::string uri = file_uri(path);
  sync(s, path, text);
  State::Doc& doc = s->docs[uri];
  outcome.encoding = s->encoding;
  if (doc.symbols) {  // the server's answer for exactly this text
    outcome.roots = *doc.symbols;
    co_return outcome;
  }
  doc.busy = true;
  const std::int64_t id = s->next_id++;
  s->answers[id];
  send(s, json{{"jsonrpc", "2.0"},
               {"id", id},
               {"method", "textDocument/documentSymbol"},
               {"params", {{"textDocument", {{"uri", uri}}}}}});
  std::function<bool()> answered = [&s, id] { return s->answers[id].has_value(); };
  const bool ready = co_await wait_until(s, deadline, std::move(answered));
  std::optional<json> answer = std::move(s->answers[id]);
  s->answers.erase(id);
  doc.busy = false;
  if (!ready) {
    outcome.status = s->alive ? SymbolsStatus::kTimeout : SymbolsStatus::kFailed;
    outcome.detail = name_ + ": " + (s->alive ? "no symbols were reported in time" : s->failure);
    if (s->alive) {
      s->fail("it did not report symbols in time");
      outcome.detail += "; it was stopped, and the next call starts it again";
    }
    co_return outcome;
  }
  if (auto err = answer->find("error"); err != answer->end()) {
    outcome.status = SymbolsStatus::kFailed;
    const json message = err->is_object() ? err->value("message", json()) : json();
    outcome.detail = name_ + " could not report the file's symbols: " +
                     (message.is_string() ? message.get<std::string>() : err->dump());
    co_return outcome;
  }
  std::size_t budget = kMaxSymbols;
  bool flat = false;
  lsp::reported_list(answer->value("result", json()), outcome.roots, 0, budget, flat);
  if (flat) outcome.roots = symbols::nest(std::move(outcome.roots));
  // Kept for the next call on the same text (read_symbols, then edit_symbol),
  // other documents' answers making room.
  const std::size_t bytes = symbol_bytes(outcome.roots);
  if (doc.open && doc.fingerprint == fingerprint(text) && bytes <= kMaxKeptSymbolBytes) {
    s->drop_symbols(doc);
    for (auto it = s->docs.begin();
         it != s->docs.end() && s->cached_symbols + bytes > kMaxKeptSymbolBytes; ++it)
      s->drop_symbols(it->second);
    doc.symbols = outcome.roots;
    doc.symbols_bytes = bytes;
    s->cached_symbols += bytes;
  }
  close_least_used(s, uri);
  co_return outcome;
}

}  // namespace editd
