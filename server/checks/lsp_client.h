// A client of one language server (--lsp): started on first use, kept
// running, fed each file's content (didOpen, then didChange with the full
// text), and asked for the diagnostics it publishes, a file's symbols
// (textDocument/documentSymbol) and its changed lines formatted
// (textDocument/rangeFormatting, for --format GLOB=@lsp), always of the very
// text it was just given. The parts: this file and lsp_client.cpp (start,
// initialize, diagnostics), lsp_symbols.cpp (documentSymbol),
// lsp_formatting.cpp (rangeFormatting), lsp_endpoint.cpp (framing),
// lsp_state.h (what they share), lsp_wire.h (the pure part).
//
// Every member runs on the checks' home, the main I/O thread (server/checks/checks.h).
// A server that exits or breaks the protocol is forgotten, its diagnoses answer
// `failed`, and the next one starts it again.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/format_scope.h"
#include "edit/symbols/outline.h"
#include "edit/symbols/positions.h"
#include "server/checks/diagnostics.h"

namespace editd {

class LspClient {
 public:
  struct Outcome {
    diagnostics::Status status = diagnostics::Status::kOk;
    std::string detail;         // when not ok
    std::vector<diagnostics::Diagnostic> diagnostics;
  };

  // `argv` runs the server in `root`, and `initialization_options` go with its
  // initialize (server/checks/launch.h pins them); `name` is the default
  // diagnostic source. A diagnostic that points into a file for which
  // `inside_root` is false is dropped (and counted in the outcome's detail).
  LspClient(std::vector<std::string> argv, nlohmann::json initialization_options,
            std::string root, std::string name,
            std::function<bool(std::string_view)> inside_root);
  ~LspClient();
  LspClient(const LspClient&) = delete;
  LspClient& operator=(const LspClient&) = delete;

  // The diagnostics the server publishes for `path` (absolute) holding `text`
  // (without a BOM), waited for until `deadline`. When the server already holds
  // that text and has published for it, they are returned at once. Callers
  // serialise calls on one path (the lock chain); different paths overlap.
  boost::asio::awaitable<Outcome> diagnose(const std::string& path, const std::string& text,
                                           std::chrono::steady_clock::time_point deadline);

  // The symbols the server reports for `path` (absolute) holding `text`
  // (without a BOM): the document is opened or changed to exactly `text`
  // first, so the ranges are of these bytes. kNotOffered when the server
  // does not offer documentSymbol; kTimeout (the server is then stopped, as a
  // diagnose that times out stops it) or kFailed as diagnose says. At most
  // kMaxSymbols are kept, nested at most symbols::kMaxDepth deep, and of the
  // line counts (symbols::LineBreaks) the one under which the symbols' names
  // stand where the server says (symbols::fit_line_breaks), learnt for the
  // server. Several calls may wait on one path at once.
  enum class SymbolsStatus {
    kOk,
    kTimeout,     // no answer in time (the server was stopped)
    kFailed,      // the server could not start, exited, or answered an error
    kNoServer,    // no --lsp covers the file (Checks::symbols)
    kNotOffered,  // the server does not answer documentSymbol
  };
  // An answer's symbols, shared by the calls that asked for the same bytes.
  using Symbols = std::shared_ptr<const std::vector<symbols::Reported>>;
  struct SymbolsOutcome {
    SymbolsStatus status = SymbolsStatus::kOk;
    std::string detail;  // when not ok
    Symbols roots = std::make_shared<const std::vector<symbols::Reported>>();
    symbols::Encoding encoding = symbols::Encoding::kUtf16;  // of the ranges
    symbols::LineBreaks breaks = symbols::LineBreaks::kLsp;  // of the ranges
    bool truncated = false;  // the server reported more than kept
  };
  static constexpr std::size_t kMaxSymbols = 100000;
  // The answers kept for documents whose text has not changed since (the same
  // bytes get the same symbols) hold at most this much memory, for all of a
  // server's documents; a larger answer is not kept.
  static constexpr std::size_t kMaxKeptSymbolBytes = 16u << 20;
  boost::asio::awaitable<SymbolsOutcome> document_symbols(
      const std::string& path, const std::string& text,
      std::chrono::steady_clock::time_point deadline);

  // `text` (without a BOM, LF line breaks) of `path` (absolute) with the
  // lines `changed` formatted by the server: the document is opened or
  // changed to exactly `text`, rangeFormatting asked for each span (merged
  // and ascending; a point, where lines were removed, stands for the lines
  // on either side of it) with tabs for indentation when most changed lines
  // that are indented start with one (else 4 spaces), all at once, and the
  // edits of every answer made on `text` (`formatted`: the whole text). No
  // span, or nothing to format: `text` as it is. kFailed: the server does not
  // offer documentRangeFormattingProvider, could not start, exited, answered
  // an error or something that is not a TextEdit[], sent edits that overlap,
  // or a text over `max_bytes`; kTimeout: no answer by `deadline` (the server
  // is then stopped, as a diagnose that times out stops it).
  struct Formatted {
    diagnostics::Status status = diagnostics::Status::kOk;
    std::string detail;  // when not ok
    std::string formatted;
  };
  boost::asio::awaitable<Formatted> format_ranges(const std::string& path, std::string text,
                                                  std::vector<format_scope::Span> changed,
                                                  std::chrono::steady_clock::time_point deadline,
                                                  std::size_t max_bytes);

  // Ends the server (editd is exiting): pending calls answer `failed`.
  void stop();
  // Where large messages are parsed and large answers checked, from the next
  // start of the server on (else on the calling thread).
  void set_pool(boost::asio::thread_pool& pool) { pool_ = &pool; }

  // Most documents kept open in the server; the least recently checked is closed.
  static constexpr std::size_t kMaxOpenDocuments = 64;
  // How long a change to a document whose last publish listed nothing waits
  // for a publish before the document is reopened, at least (three times the
  // slowest publish seen from the server when that is longer; at most half
  // the time the check has).
  static constexpr std::chrono::seconds kQuietGrace{2};

  // The running server's connection (lsp_client.cpp).
  struct State;

 private:
  boost::asio::awaitable<std::shared_ptr<State>> start(
      std::chrono::steady_clock::time_point deadline, std::string& error);
  // Opens `path` in the server with `text`, or changes it to `text`, unless it
  // holds that text already. True when it was sent.
  bool sync(const std::shared_ptr<State>& s, const std::string& path, const std::string& text);
  // Closes `path` in the server and, once it has answered a request sent
  // after (so that what it publishes for the closed document has come), opens
  // it with `text`. False when the server did not answer by `deadline`.
  boost::asio::awaitable<bool> reopen(const std::shared_ptr<State>& s, const std::string& path,
                                      const std::string& text,
                                      std::chrono::steady_clock::time_point deadline);

  std::vector<std::string> argv_;
  nlohmann::json initialization_options_;
  std::string root_;
  std::string name_;
  std::function<bool(std::string_view)> inside_root_;
  std::shared_ptr<State> state_;  // the running server, if any
  // The server publishes nothing for a change that leaves a document without
  // diagnostics (typescript-language-server): such documents are reopened.
  // Learnt when no publish came within the grace, kept across restarts.
  bool reopens_quiet_ = false;
  bool starting_ = false;
  boost::asio::thread_pool* pool_ = nullptr;
};

// file:///a%20b/c for /a b/c.
std::string file_uri(const std::string& path);
// /a b/c for file:///a%20b/c; nullopt for a URI of another scheme.
std::optional<std::string> path_of_uri(std::string_view uri);
// The LSP languageId for a file name ("cpp" for x.cc, "python" for x.py...).
std::string language_id(const std::string& path);

}  // namespace editd
