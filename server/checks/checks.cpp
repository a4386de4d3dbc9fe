#include "server/checks/checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <thread>

#include "edit/text/fingerprint.h"
#include "edit/text/text.h"
#include "server/checks/child_process.h"
#include "server/checks/lsp_client.h"
#include "server/checks/prettier.h"

namespace editd {

namespace asio = boost::asio;
using diagnostics::Diagnostic;

namespace {

std::string program_name(const std::string& argv0) {
  auto slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

// Whether `printed`, a path a checker named (absolute, or relative to the root),
// is a file under `root` (canonical): by its text, with no ".." above the root,
// and, when it exists, after its links are resolved. A checker may read what
// editd's clients may not (`#include "/etc/shadow"`); its words about such a
// file are not passed on.
bool under_root(const std::filesystem::path& root, std::string_view printed) {
  namespace fs = std::filesystem;
  auto inside = [&root](const fs::path& p) {
    auto r = root.begin();
    auto q = p.begin();
    for (; r != root.end(); ++r, ++q)
      if (q == p.end() || *q != *r) return false;
    return true;
  };
  fs::path p = fs::path(printed);
  if (p.is_relative()) p = root / p;
  p = p.lexically_normal();
  if (!inside(p)) return false;
  std::error_code ec;
  fs::path real = fs::canonical(p, ec);
  return ec ? !fs::exists(fs::symlink_status(p, ec)) : inside(real);
}

// At most `max` bytes of a formatter's stderr for a message: trailing blanks
// dropped, a byte that is not part of valid UTF-8 made '?' (the message goes
// out in JSON), nothing cut in the middle of a character.
std::string stderr_excerpt(std::string_view err, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < err.size();) {
    std::size_t n = 1;
    const auto c = static_cast<unsigned char>(err[i]);
    if (c >= 0x80) {
      const std::size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      n = want <= err.size() - i && text::is_valid_utf8(err.substr(i, want)) ? want : 0;
    }
    if (out.size() + std::max<std::size_t>(n, 1) > max) break;
    if (n == 0) {
      out += '?';
      n = 1;
    } else {
      out.append(err.substr(i, n));
    }
    i += n;
  }
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

std::string seconds(std::chrono::milliseconds ms) {
  auto n = ms.count();
  return n % 1000 == 0 ? std::to_string(n / 1000) + " s" : std::to_string(n) + " ms";
}

// A configuration file's text, when it is a regular file of at most 1 MiB
// (a link is not followed: the tree may point one anywhere).
std::optional<std::string> read_config(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::string text;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (1 << 20)) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    ::close(fd);
    return text;
  }
  ::close(fd);
  return std::nullopt;
}

// The flags that run prettier on `canonical` tuned by the tree and nothing
// more (server/checks/prettier.h): --no-config, then the formatting options
// of the nearest configuration from the file's directory up to `root`.
std::vector<std::string> prettier_flags(const std::filesystem::path& root,
                                        const std::string& canonical, const std::string& shown) {
  namespace fs = std::filesystem;
  std::vector<std::string> flags{"--no-config"};
  for (fs::path dir = fs::path(canonical).parent_path();; dir = dir.parent_path()) {
    const auto [r, d] = std::mismatch(root.begin(), root.end(), dir.begin(), dir.end());
    if (r != root.end()) break;  // above the root: never looked at
    for (std::string_view name : prettier::config_names()) {
      std::optional<std::string> text = read_config(dir / std::string(name));
      if (!text) continue;
      const std::string rel = fs::path(canonical).lexically_relative(dir).generic_string();
      prettier::Flags f = prettier::flags_for(name, *text, rel);
      if (!f.is_config) continue;
      for (const std::string& left : f.left_out)
        spdlog::debug("prettier for {}: {} of {} left out", shown, left,
                      (dir / std::string(name)).string());
      flags.insert(flags.end(), f.flags.begin(), f.flags.end());
      return flags;
    }
    if (dir == root || !dir.has_relative_path()) break;
  }
  return flags;
}
}  // namespace

Checks::Checks(std::vector<diagnostics::Spec> specs, std::string root,
               std::chrono::milliseconds timeout, std::chrono::milliseconds format_timeout)
    : specs_(std::move(specs)),
      root_(std::move(root)),
      timeout_(timeout),
      format_timeout_(format_timeout) {
  std::error_code ec;
  canonical_root_ = std::filesystem::weakly_canonical(root_, ec);
  if (ec) canonical_root_ = std::filesystem::path(root_).lexically_normal();
  for (const diagnostics::Spec& s : specs_)
    lsp_.push_back(s.lsp ? std::make_unique<LspClient>(
                               s.argv, s.initialization_options, root_,
                               program_name(s.argv[0]),
                               [this](std::string_view path) {
                                 return under_root(canonical_root_, path);
                               })
                         : nullptr);
}

Checks::~Checks() = default;

void Checks::set_pool(boost::asio::thread_pool& pool) {
  for (auto& l : lsp_)
    if (l) l->set_pool(pool);
}

void Checks::stop() {
  for (auto& l : lsp_)
    if (l) l->stop();
}

bool Checks::covers(const Target& t) const {
  for (const diagnostics::Spec& s : specs_)
    if (!s.format && diagnostics::glob_matches(s.glob, t.shown)) return true;
  return false;
}

bool Checks::covers_symbols(const Target& t) const {
  for (const diagnostics::Spec& s : specs_)
    if (s.lsp && diagnostics::glob_matches(s.glob, t.shown)) return true;
  return false;
}

bool Checks::has_language_servers() const {
  return std::any_of(specs_.begin(), specs_.end(), [](const auto& s) { return s.lsp; });
}

asio::awaitable<LspClient::SymbolsOutcome> Checks::symbols(const Target& t,
                                                           const std::string& bytes) {
  if (!home_) co_return co_await symbols_here(t, bytes);
  co_return co_await asio::co_spawn(*home_, symbols_here(t, bytes), asio::use_awaitable);
}

asio::awaitable<LspClient::SymbolsOutcome> Checks::symbols_here(const Target& t,
                                                                const std::string& bytes) {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (!specs_[i].lsp || !diagnostics::glob_matches(specs_[i].glob, t.shown)) continue;
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    co_return co_await lsp_[i]->document_symbols(t.canonical, std::string(text::without_bom(bytes)),
                                                 deadline);
  }
  LspClient::SymbolsOutcome none;
  none.status = LspClient::SymbolsStatus::kNoServer;
  none.detail = "no language server covers " + t.shown +
                ": start editd with --lsp 'GLOB=COMMAND' for it (for example --lsp "
                "'*.py=pylsp', --lsp '*.{c,cc,cpp,h,hpp}=clangd' or --lsp "
                "'*.{js,ts,jsx,tsx}=typescript-language-server --stdio'; docs/deployment.md)";
  co_return none;
}

const diagnostics::Spec* Checks::formatter(const Target& t) const {
  for (const diagnostics::Spec& s : specs_)
    if (s.format && diagnostics::glob_matches(s.glob, t.shown)) return &s;
  return nullptr;
}

bool Checks::formats(const Target& t) const { return formatter(t) != nullptr; }

asio::awaitable<Checks::FormatOutcome> Checks::format(const Target& t, std::string text,
                                                      std::vector<format_scope::Span> changed,
                                                      std::size_t max_bytes) {
  if (!home_) co_return co_await format_here(t, std::move(text), std::move(changed), max_bytes);
  co_return co_await asio::co_spawn(
      *home_, format_here(t, std::move(text), std::move(changed), max_bytes), asio::use_awaitable);
}

std::size_t Checks::max_formatters() {
  return std::max<std::size_t>(4, 2 * std::max(1u, std::thread::hardware_concurrency()));
}

asio::awaitable<bool> Checks::formatter_turn(std::chrono::steady_clock::time_point deadline) {
  auto ex = co_await asio::this_coro::executor;
  while (formatters_running_ >= max_formatters()) {
    if (std::chrono::steady_clock::now() >= deadline) co_return false;
    auto turn = std::make_shared<asio::steady_timer>(ex, deadline);
    formatters_waiting_.push_back(turn);
    auto [ec] = co_await turn->async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
    std::erase(formatters_waiting_, turn);
  }
  ++formatters_running_;
  co_return true;
}

void Checks::formatter_done() {
  --formatters_running_;
  if (!formatters_waiting_.empty()) formatters_waiting_.front()->cancel();
}

asio::awaitable<Checks::FormatOutcome> Checks::format_here(const Target& t, std::string text,
                                                           std::vector<format_scope::Span> changed,
                                                           std::size_t max_bytes) {
  using Status = FormatOutcome::Status;
  FormatOutcome o;
  const diagnostics::Spec* spec = formatter(t);
  if (!spec) {
    o.status = Status::kFailed;
    o.detail = "no --format covers " + t.shown;
    co_return o;
  }
  o.formatter = spec->option;
  const std::string option = "--format " + spec->option;
  if (diagnostics::by_lsp(*spec)) {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      if (!specs_[i].lsp || !diagnostics::glob_matches(specs_[i].glob, t.shown)) continue;
      const auto deadline = std::chrono::steady_clock::now() + format_timeout_;
      LspClient::Formatted f = co_await lsp_[i]->format_ranges(
          t.canonical, std::move(text), std::move(changed), deadline, max_bytes);
      o.status = f.status == diagnostics::Status::kOk        ? Status::kOk
                 : f.status == diagnostics::Status::kTimeout ? Status::kTimeout
                                                             : Status::kFailed;
      if (o.status == Status::kOk)
        o.formatted = std::move(f.formatted);
      else
        o.detail = option + ": " + f.detail;
      co_return o;
    }
    o.status = Status::kFailed;
    o.detail = option + ": no language server covers " + t.shown +
               ": give --lsp 'GLOB=COMMAND' for it (for example --lsp "
               "'*.{c,cc,cpp,h,hpp}=clangd'), or a formatter program";
    co_return o;
  }
  std::vector<std::string> argv = diagnostics::substitute(spec->argv, t.shown);
  // prettier would run the tree's code (its JavaScript configuration, the
  // plugins a configuration names): it is given the options alone.
  if (prettier::runs_prettier(argv) && !prettier::chooses_config(argv)) {
    std::vector<std::string> flags = prettier_flags(canonical_root_, t.canonical, t.shown);
    argv.insert(argv.end(), flags.begin(), flags.end());
  }
  const auto started = std::chrono::steady_clock::now();
  if (!co_await formatter_turn(started + format_timeout_)) {
    o.status = Status::kTimeout;
    o.detail = option + ": no turn within " + seconds(format_timeout_) +
               " (--format-timeout): " + std::to_string(max_formatters()) +
               " formatters were running for other edits; the formatter did not run";
    co_return o;
  }
  // The time spent waiting for the turn counts against the same limit.
  const auto left = std::max(std::chrono::milliseconds(1),
                             format_timeout_ - std::chrono::duration_cast<std::chrono::milliseconds>(
                                                   std::chrono::steady_clock::now() - started));
  FilterOutcome p = co_await run_filter(std::move(argv), root_, std::move(text), left, max_bytes,
                                        kMaxStderrShown + 4);
  formatter_done();
  if (p.succeeded()) {
    o.formatted = std::move(p.out);
    co_return o;
  }
  o.status = p.timed_out ? Status::kTimeout : Status::kFailed;
  if (!p.started)
    o.detail = option + ": " + p.error;
  else if (p.timed_out)
    o.detail = option + ": no result within " + seconds(format_timeout_) +
               " (--format-timeout); the formatter was killed";
  else if (p.out_truncated)
    o.detail =
        option + ": it wrote more than " + std::to_string(max_bytes) + " bytes; it was killed";
  else if (p.signal != 0)
    o.detail = option + ": ended by signal " + std::to_string(p.signal) + " (" +
               ::strsignal(p.signal) + ")";
  else
    o.detail = option + ": exited with status " + std::to_string(p.exit_code);
  if (std::string err = stderr_excerpt(p.err, kMaxStderrShown); !err.empty())
    o.detail += "; stderr: " + err;
  co_return o;
}

asio::awaitable<Checks::Run> Checks::run(std::size_t spec, const Target& t,
                                         const std::string& bytes) {
  const diagnostics::Spec& s = specs_[spec];
  Run r;
  const std::string source = program_name(s.argv[0]);
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  if (s.lsp) {
    std::string text(text::without_bom(bytes));
    LspClient::Outcome o = co_await lsp_[spec]->diagnose(t.canonical, text, deadline);
    r.status = o.status;
    r.detail = o.detail;
    r.diagnostics = std::move(o.diagnostics);
    co_return r;
  }
  const std::string fp = fingerprint(bytes);
  auto key = std::make_pair(spec, t.canonical);
  if (auto it = cache_.find(key); it != cache_.end() && it->second.first == fp) {
    r.diagnostics = it->second.second;
    co_return r;
  }
  std::vector<std::string> argv = diagnostics::substitute(s.argv, t.shown);
  ProcessOutcome p = co_await run_process(std::move(argv), root_, timeout_, kMaxOutputBytes);
  if (!p.started) {
    r.status = diagnostics::Status::kFailed;
    r.detail = "--check " + s.option + ": " + p.error;
    co_return r;
  }
  if (p.timed_out) {
    r.status = diagnostics::Status::kTimeout;
    r.detail = "--check " + s.option + ": no result within " + seconds(timeout_) +
               " (--check-timeout); the checker was killed";
    co_return r;
  }
  std::size_t dropped = 0;
  r.diagnostics =
      diagnostics::parse_output(p.output, t.shown, t.canonical, source, !p.succeeded(), &dropped);
  const std::size_t parsed = r.diagnostics.size();
  std::erase_if(r.diagnostics, [this](const Diagnostic& d) {
    return d.file && !under_root(canonical_root_, *d.file);
  });
  std::vector<std::string> notes;
  if (dropped > 0) notes.push_back(std::to_string(dropped) + " more diagnostics not shown");
  if (r.diagnostics.size() < parsed)
    notes.push_back(std::to_string(parsed - r.diagnostics.size()) +
                    " diagnostics about files outside the root not shown");
  for (const std::string& n : notes)
    r.detail += (r.detail.empty() ? "--check " + s.option + ": " : "; ") + n;
  if (cache_.size() >= kCacheEntries) cache_.clear();
  cache_[key] = {fp, r.diagnostics};
  co_return r;
}

asio::awaitable<Checks::Before> Checks::before(const Target& t,
                                               const std::optional<std::string>& bytes) {
  if (!home_) co_return co_await before_here(t, bytes);
  co_return co_await asio::co_spawn(*home_, before_here(t, bytes), asio::use_awaitable);
}

asio::awaitable<diagnostics::Report> Checks::after(
    const Target& t, Before before, const std::optional<std::string>& old_bytes,
    const std::string& new_bytes) {
  if (!home_) co_return co_await after_here(t, std::move(before), old_bytes, new_bytes);
  co_return co_await asio::co_spawn(*home_, after_here(t, std::move(before), old_bytes, new_bytes),
                                    asio::use_awaitable);
}

asio::awaitable<Checks::Before> Checks::before_here(const Target& t,
                                                    const std::optional<std::string>& bytes) {
  Before b;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (specs_[i].format || !diagnostics::glob_matches(specs_[i].glob, t.shown)) continue;
    b.specs.push_back(i);
    if (!bytes) {
      b.diagnostics.emplace_back();
      continue;
    }
    Run r = co_await run(i, t, *bytes);
    if (r.status != diagnostics::Status::kOk) b.problems.push_back(r.detail);
    b.diagnostics.push_back(std::move(r.diagnostics));
  }
  co_return b;
}

asio::awaitable<diagnostics::Report> Checks::after_here(
    const Target& t, Before before, const std::optional<std::string>& old_bytes,
    const std::string& new_bytes) {
  diagnostics::Report report;
  std::vector<Diagnostic> all_before;
  std::vector<std::string> details;
  for (std::size_t k = 0; k < before.specs.size(); ++k) {
    Run r = co_await run(before.specs[k], t, new_bytes);
    if (r.status == diagnostics::Status::kFailed ||
        (r.status == diagnostics::Status::kTimeout && report.status == diagnostics::Status::kOk))
      report.status = r.status;
    if (!r.detail.empty()) details.push_back(r.detail);
    for (Diagnostic& d : r.diagnostics) report.all.push_back(std::move(d));
    for (Diagnostic& d : before.diagnostics[k]) all_before.push_back(std::move(d));
  }
  if (!before.problems.empty()) {
    // Nothing to compare with: every diagnostic counts as introduced.
    for (const std::string& p : before.problems)
      details.push_back("before the edit: " + p + " (every diagnostic counts as introduced)");
    report.introduced = report.all;
  } else {
    report.introduced =
        diagnostics::introduced(all_before, report.all, text::without_bom(old_bytes.value_or("")),
                                text::without_bom(new_bytes));
  }
  if (!details.empty()) {
    std::string joined;
    for (const std::string& d : details) joined += (joined.empty() ? "" : "; ") + d;
    report.detail = std::move(joined);
  }
  spdlog::debug("checks of {}: {} diagnostics, {} introduced, {}", t.shown, report.all.size(),
                report.introduced.size(), diagnostics::status_name(report.status));
  co_return report;
}

}  // namespace editd
