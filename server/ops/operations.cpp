// The operations' shared pieces: the pipeline they run on, their error
// builders and where the undo history keeps large files.
#include "server/ops/operations.h"

#include <spdlog/spdlog.h>

#include "edit/text/text.h"
#include "server/ops/pipeline.h"

namespace editd {

using text::without_bom;

namespace {

// Where the undo history keeps large files: /tmp/editd-EUID, else the root,
// whichever is usable and not a tmpfs first.
UndoSpill undo_spill(const OpsOptions& options) {
  std::string why;
  // /tmp/editd-EUID, else the root: an unnamed file leaves nothing in the tree.
  UndoSpill spill = UndoSpill::first_of({"", options.root}, why);
  if (!spill.dir)
    spdlog::debug("the undo history keeps every file in memory: {}", why);
  else if (!why.empty())
    spdlog::debug("the undo history keeps large files in {} ({})", spill.where, why);
  return spill;
}

}  // namespace

Pipeline::Pipeline(const OpsOptions& options, LockChains& locks, boost::asio::thread_pool& pool)
    : options_(options),
      locks_(locks),
      pool_(pool),
      history_(options.undo_history_entries, options.undo_history_bytes, undo_spill(options)),
      checks_(options.checks.specs, options.root, options.checks.timeout,
              options.checks.format_timeout),
      budget_(options.max_file_bytes_in_flight),
      views_(options.view_memory) {
  checks_.set_pool(pool_);
  // Opened now to say at once when it cannot be (every mutation is refused
  // until it can: a change is never made off the record).
  if (auto lg = ledger(); !lg) spdlog::error("{}", lg.error().message);
}

Operations::Operations(const OpsOptions& options, LockChains& locks, boost::asio::thread_pool& pool)
    : pipeline_(std::make_unique<Pipeline>(options, locks, pool)) {}

Operations::~Operations() = default;

const OpsOptions& Operations::options() const { return pipeline_->options(); }

Views& Operations::views() { return pipeline_->views(); }

void Operations::stop_checks() { pipeline_->checks().stop(); }

void Operations::run_checks_on(boost::asio::any_io_executor home) {
  pipeline_->checks().set_home(std::move(home));
}

bool Operations::has_language_servers() const { return pipeline_->checks().has_language_servers(); }

Error read_only_error(const std::string& path) {
  return Error(ErrorKind::kDenied,
               "the server is read-only (--read-only): " + path + " was not changed",
               {{"path", path}});
}

Error conflict_error(const std::string& shown, const std::string& expected,
                     const std::optional<std::string>& current) {
  nlohmann::json cur = current ? nlohmann::json(*current) : nlohmann::json(nullptr);
  return Error(ErrorKind::kConflict,
               shown + (current ? " changed since expectedFingerprint was taken: read it again"
                                : " does not exist, but expectedFingerprint was given"),
               {{"path", shown}, {"expectedFingerprint", expected}, {"currentFingerprint", cur}});
}

Error line_out_of_range(std::uint64_t line, std::size_t total, std::string_view param) {
  return Error(ErrorKind::kLineOutOfRange,
               "param '" + std::string(param) + "' is " + std::to_string(line) +
                   ", but the file has " + std::to_string(total) + " lines",
               {{"param", param}, {"line", line}, {"totalLines", total}});
}

Error kept_unchanged(const std::string& shown, std::string_view before, std::string_view after) {
  std::vector<std::string> what;
  if (before.starts_with(text::kBom) != after.starts_with(text::kBom)) what.push_back("a BOM");
  const std::string_view a = without_bom(before), b = without_bom(after);
  std::string na = text::normalize_eol(a), nb = text::normalize_eol(b);
  bool final_newline = false;
  if (na.ends_with('\n') != nb.ends_with('\n')) {
    final_newline = true;
    if (na.ends_with('\n')) na.pop_back();
    if (nb.ends_with('\n')) nb.pop_back();
  }
  auto raw_body = [final_newline](std::string_view s) {
    if (final_newline && s.ends_with('\n')) s.remove_suffix(s.ends_with("\r\n") ? 2 : 1);
    return s;
  };
  const bool known = na == nb;
  if (known && raw_body(a) != raw_body(b)) what.insert(what.begin(), "line endings");
  if (known && final_newline) what.push_back("the final newline");
  std::string list;
  for (std::size_t i = 0; i < what.size(); ++i)
    list += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
  const std::string why = known && !what.empty()
                              ? "the only difference is " + list +
                                    ", which every edit keeps as the file has it (byte fidelity)"
                              : "the byte-fidelity rules kept the file's bytes as they were";
  return Error(ErrorKind::kNoChange,
               shown + " is unchanged: " + why +
                   ". To convert line endings, add or remove the BOM, or add or remove the final "
                   "newline, call set_format (lineEndings, bom, finalNewline)",
               {{"path", shown}});
}

}  // namespace editd
