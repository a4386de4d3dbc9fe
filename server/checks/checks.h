// Diagnostics after an edit: the --check commands and --lsp language servers
// that cover a written file, run before and after the write so that the result
// can tell the diagnostics the edit introduced from those already there. And
// the formatters (--format) that a mutation runs on its new text before the
// write: a program that reads the text on stdin and writes it on stdout, or
// (GLOB=@lsp) the range formatting of the --lsp server that covers the file.
//
// A mutation holds the file's lock chain through both runs, so the diagnostics
// describe exactly the bytes it wrote; other files are not held up. The runs
// before a write are skipped when the last run on the file saw the same bytes
// (a cache by fingerprint), so an edit after an edit costs one run. A check
// that times out or cannot run is reported in the report's status, never as a
// failed edit. Only files of the local backend are checked: an ACP client's
// unsaved buffers are not on disk for a checker to read.
//
// Threading: the checks, their cache and the language servers live on one
// executor, their home (set_home; else whichever runs them). before(),
// after() and format() may be called from any I/O thread: they run at home,
// and the caller resumes on its own executor.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "edit/change/format_scope.h"
#include "server/checks/diagnostics.h"
#include "server/checks/lsp_client.h"

namespace editd {

class Checks {
 public:
  // `specs`: the --check, --lsp and --format options (Spec::lsp, Spec::format),
  // in the order given; `timeout` bounds each check (--check-timeout),
  // `format_timeout` each formatter's run (--format-timeout).
  Checks(std::vector<diagnostics::Spec> specs, std::string root, std::chrono::milliseconds timeout,
         std::chrono::milliseconds format_timeout = kDefaultFormatTimeout);
  static constexpr std::chrono::milliseconds kDefaultFormatTimeout{10'000};
  ~Checks();

  // A written file: its canonical path and the path shown for it ({file}).
  struct Target {
    std::string canonical;
    std::string shown;
  };
  // What the checks said before the write.
  struct Before {
    std::vector<std::size_t> specs;                              // the specs that cover the file
    std::vector<std::vector<diagnostics::Diagnostic>> diagnostics;  // one list per spec
    std::vector<std::string> problems;                           // runs that failed or timed out
  };

  // Whether any check (--check or --lsp) covers the file.
  bool covers(const Target& t) const;
  // Runs (or recalls) the checks on the file as it is, `bytes` (nullopt: it
  // does not exist yet). Call with the file's lock chain held, before writing.
  boost::asio::awaitable<Before> before(const Target& t, const std::optional<std::string>& bytes);
  // Runs the checks on the bytes just written and compares with `before`.
  boost::asio::awaitable<diagnostics::Report> after(
      const Target& t, Before before, const std::optional<std::string>& old_bytes,
      const std::string& new_bytes);
  // The symbols of the file holding `bytes`, from the first --lsp server that
  // covers it, asked of exactly those bytes (without their BOM). `unsupported`
  // with what enables it when no --lsp covers the file. Call with the file's
  // lock chain held, so the answer is of the bytes the caller holds.
  boost::asio::awaitable<LspClient::SymbolsOutcome> symbols(const Target& t,
                                                             const std::string& bytes);
  // Whether some --lsp server covers the file.
  bool covers_symbols(const Target& t) const;

  // How a formatter's run went (format()).
  struct FormatOutcome {
    enum class Status { kOk, kFailed, kTimeout } status = Status::kOk;
    std::string formatted;  // kOk: the formatter's whole text, as it wrote it
    // Not ok: what went wrong, then "; stderr: " and at most kMaxStderrShown
    // bytes of its stderr (valid UTF-8, a byte that is not made '?').
    std::string detail;
    std::string formatter;  // the option as given ("*.py=black -q -"), for messages
  };
  static constexpr std::size_t kMaxStderrShown = 2048;
  // Formatter programs that run at once, for all clients together (twice the
  // cores, at least 4); past it a run waits its turn within its
  // --format-timeout, and a run that gets none is kTimeout.
  static std::size_t max_formatters();
  // Whether some --format covers the file (the first whose glob matches
  // t.shown is the one format() runs).
  bool formats(const Target& t) const;
  // `text` (the file's new text, normalized: no BOM, LF line breaks) as the
  // first --format covering the file writes it. A program runs in the root
  // with `text` on stdin and {file} as diagnostics::argument_path(t.shown),
  // for at most the format timeout, its stdout bounded by `max_bytes`. @lsp:
  // the first --lsp that covers the file formats the lines `changed`
  // (0-based [first, end) spans of `text`: LspClient::format_ranges). kFailed:
  // no --format covers the file, the program could not start, exited non-zero,
  // was ended by a signal or wrote more than `max_bytes`, or the server could
  // not format (none covers the file, it does not offer range formatting, its
  // edits overlap...); kTimeout: past the timeout (the program was killed, the
  // server stopped). Empty output for a non-empty text is not judged here
  // (format_scope::scope is). Call with the file's lock chain held.
  boost::asio::awaitable<FormatOutcome> format(const Target& t, std::string text,
                                               std::vector<format_scope::Span> changed,
                                               std::size_t max_bytes);
  // Whether any --lsp is configured at all.
  bool has_language_servers() const;
  // Ends the language servers (editd is exiting). Call at home.
  void stop();
  // Where the checks run from now on: before the first check.
  void set_home(boost::asio::any_io_executor home) { home_ = std::move(home); }
  // Where the language servers' large answers are parsed and checked: before
  // the first check (else at home).
  void set_pool(boost::asio::thread_pool& pool);

 private:
  boost::asio::awaitable<Before> before_here(const Target& t,
                                             const std::optional<std::string>& bytes);
  boost::asio::awaitable<diagnostics::Report> after_here(
      const Target& t, Before before, const std::optional<std::string>& old_bytes,
      const std::string& new_bytes);
  struct Run {
    diagnostics::Status status = diagnostics::Status::kOk;
    std::string detail;
    std::vector<diagnostics::Diagnostic> diagnostics;
  };
  boost::asio::awaitable<Run> run(std::size_t spec, const Target& t, const std::string& bytes);
  boost::asio::awaitable<LspClient::SymbolsOutcome> symbols_here(const Target& t,
                                                                  const std::string& bytes);
  boost::asio::awaitable<FormatOutcome> format_here(const Target& t, std::string text,
                                                    std::vector<format_scope::Span> changed,
                                                    std::size_t max_bytes);
  // The --format that covers the file: the first whose glob matches; null when none.
  const diagnostics::Spec* formatter(const Target& t) const;

  std::optional<boost::asio::any_io_executor> home_;
  std::vector<diagnostics::Spec> specs_;
  std::string root_;
  std::filesystem::path canonical_root_;  // diagnostics about files outside it are dropped
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds format_timeout_;
  // Formatter programs running (max_formatters()) and the runs waiting for a
  // turn, so that many clients' edits of many files never start a process
  // each. Touched at home only.
  std::size_t formatters_running_ = 0;
  std::deque<std::shared_ptr<boost::asio::steady_timer>> formatters_waiting_;
  boost::asio::awaitable<bool> formatter_turn(std::chrono::steady_clock::time_point deadline);
  void formatter_done();
  std::vector<std::unique_ptr<LspClient>> lsp_;  // one per spec (null for --check)
  // The last successful --check run per (spec, canonical path): the
  // fingerprint it saw and what it said. Bounded by kCacheEntries.
  std::map<std::pair<std::size_t, std::string>,
           std::pair<std::string, std::vector<diagnostics::Diagnostic>>>
      cache_;
  static constexpr std::size_t kCacheEntries = 4096;
  // Captured output of one --check run.
  static constexpr std::size_t kMaxOutputBytes = 1 << 20;
};

}  // namespace editd
