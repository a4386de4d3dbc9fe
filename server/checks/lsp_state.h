// The running language server's connection, shared by the parts of the LSP
// client (server/checks/lsp_client.h): the state of the server and of each
// document it holds, how messages are framed and sent (lsp_endpoint.cpp), and
// the waits on what the server sends. Internal to server/checks/.
//
// Everything here runs on the checks' home, one thread. A call that waits
// holds what it waits on by shared ownership (a StatePtr, a DocUse), never by
// a reference across a co_await: the server may fail, and a document be
// closed, while it waits.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "server/checks/child_process.h"
#include "server/checks/lsp_client.h"
#include "server/checks/lsp_wire.h"

namespace editd {

struct LspClient::State {
  struct Doc {
    std::uint64_t version = 0;
    bool open = false;
    std::string fingerprint;      // of the text last sent
    std::uint64_t sent_at = 0;    // publishes received when it was sent
    std::uint64_t publishes = 0;  // publishes received for this document
    std::optional<std::int64_t> published_version;
    std::vector<diagnostics::Diagnostic> diagnostics;  // the last published
    bool current = false;                 // published for the text last sent
    std::size_t not_shown = 0;            // published past kMaxDiagnostics
    std::size_t outside = 0;              // about files outside the root
    std::size_t users = 0;                // calls waiting on it (DocUse)
    std::uint64_t last_used = 0;
    std::chrono::steady_clock::time_point sent_time;  // when the text was sent
    // Closed to be opened again (reopen): what the server publishes for it
    // before it has answered the barrier is of the closed document.
    bool closing = false;
    // The documentSymbol answer for the text last sent (`fingerprint`), kept
    // until that text changes: the same bytes get the same symbols.
    LspClient::Symbols symbols;
    std::size_t symbols_bytes = 0;  // what `symbols` holds (symbol_bytes)
    symbols::LineBreaks symbols_breaks = symbols::LineBreaks::kLsp;  // how they count lines
    bool symbols_truncated = false;

    // The last publish listed nothing (and left nothing out).
    bool quiet() const {
      return publishes > 0 && diagnostics.empty() && not_shown == 0 && outside == 0;
    }
  };

  // A call's hold on a document: the entry lives as long as the hold (shared
  // ownership), and a document held is never closed to make room
  // (close_least_used), however many calls wait on it.
  class DocUse {
   public:
    explicit DocUse(std::shared_ptr<Doc> doc) : doc_(std::move(doc)) { ++doc_->users; }
    ~DocUse() { --doc_->users; }
    DocUse(const DocUse&) = delete;
    DocUse& operator=(const DocUse&) = delete;
    Doc& operator*() const { return *doc_; }
    Doc* operator->() const { return doc_.get(); }

   private:
    std::shared_ptr<Doc> doc_;
  };

  std::optional<Child> child;
  std::string name;
  std::function<bool(std::string_view)> inside_root;
  boost::asio::thread_pool* pool = nullptr;  // where large messages are parsed
  bool alive = true;
  bool initialized = false;
  std::string failure;
  std::int64_t next_id = 1;
  std::int64_t init_id = 0;
  // What initialize's result said: the position encoding of every range the
  // server sends, and whether it answers documentSymbol and rangeFormatting.
  symbols::Encoding encoding = symbols::Encoding::kUtf16;
  bool document_symbols = false;
  bool range_formatting = false;
  // How the server was found to end lines (symbols::fit_line_breaks).
  symbols::LineBreaks breaks = symbols::LineBreaks::kLsp;
  // Requests of editd's waiting for their answer, by id: empty until it
  // comes. One entry per waiting call; a call that gives up erases its own.
  std::map<std::int64_t, std::optional<lsp::Message>> answers;
  // Of those, the requests whose array result is read as JSON, not as
  // symbols (lsp::parse_message): rangeFormatting's. Few at a time.
  std::vector<std::int64_t> json_results;
  std::map<std::string, std::shared_ptr<Doc>> docs;  // by URI
  std::uint64_t clock = 0;
  // The longest a publish took after its text was sent.
  std::chrono::steady_clock::duration slowest_publish{};
  // What the documents' `symbols` hold, at most kMaxKeptSymbolBytes in all.
  std::size_t cached_symbols = 0;
  std::vector<boost::asio::steady_timer*> waiters;
  std::deque<std::string> out;
  std::size_t queued_bytes = 0;  // in `out`
  bool writing = false;

  // The entry of `uri`, made when there is none.
  Doc& doc(const std::string& uri) {
    std::shared_ptr<Doc>& d = docs[uri];
    if (!d) d = std::make_shared<Doc>();
    return *d;
  }
  // A hold on the entry of `uri` (made when there is none).
  DocUse use(const std::string& uri) {
    doc(uri);
    return DocUse(docs[uri]);
  }

  void notify() {
    for (boost::asio::steady_timer* t : waiters) t->cancel();
  }

  void drop_symbols(Doc& d) {
    if (!d.symbols) return;
    cached_symbols -= d.symbols_bytes;
    d.symbols.reset();
  }

  void fail(std::string why);
};

using StatePtr = std::shared_ptr<LspClient::State>;

// Sends `msg` to the server (queued; written in order). A server that has
// more than kMaxQueuedBytes waiting is stopped as broken.
void send(const StatePtr& s, const nlohmann::json& msg);
// Reads the server's messages until it fails, each to handle().
boost::asio::awaitable<void> read_loop(StatePtr s);
// What the client does with one message of the server (lsp_client.cpp).
void handle(const StatePtr& s, lsp::Message m);
// Waits until ready() holds (true), the server fails or the deadline passes (false).
boost::asio::awaitable<bool> wait_until(StatePtr s, std::chrono::steady_clock::time_point deadline,
                                        std::function<bool()> ready);
// Keeps the server's open documents bounded: closes the least recently used
// (never `keep`, nor one a call holds).
void close_least_used(const StatePtr& s, const std::string& keep);

// When start() gave no server (`state`, the client's, may be none): `detail`
// says why, `name: error`; one that never finished initialize is not waited
// for again: it is stopped, and the next `call` starts it again. True when it
// was so (a timeout), false when it failed.
inline bool start_failed(LspClient::State* state, const std::string& name,
                         const std::string& error, std::string& detail, const char* call) {
  detail = name + ": " + error;
  if (!state || !state->alive) return false;
  state->fail(error);
  detail += std::string("; it was stopped, and the next ") + call + " starts it again";
  return true;
}

}  // namespace editd
