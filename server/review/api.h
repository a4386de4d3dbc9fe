// The review page's API (docs/protocol.md, "The review page"): the root's
// ledger as runs, each run's changes with their hunks and what became of
// them, and the marks a reviewer keeps. JSON in and out; no HTTP (that is
// server/review/server.h) and no files (a revert is the revert method's,
// run by the server).
//
// A run is the changes of one client's session: the same process, door,
// socket peer, client and ACP session, with no gap of over 30 minutes
// between two of its changes. Changes made outside editd are runs of their
// own. Runs are made from the newest kRunWindow entries.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "protocol/error.h"
#include "server/ledger/ledger.h"

namespace editd::review {

inline constexpr std::size_t kRunWindow = 20'000;
inline constexpr std::int64_t kRunGapMs = 30 * 60 * 1000;
// A run's page holds at most this many changes (and kPageTextBytes of lines).
inline constexpr std::size_t kPageEntries = 1000;

struct Run {
  std::int64_t first = 0, last = 0;  // entry ids
  std::int64_t start_ms = 0, end_ms = 0;
  ledger::Actor actor;
  std::int64_t pid = 0;
  bool outside = false;
  std::vector<std::int64_t> ids;  // oldest first
  std::size_t files = 0, hunks = 0, kept = 0, reverted = 0;
};

// The runs of `summaries` (newest first, as Ledger::summaries gives them),
// newest first.
std::vector<Run> runs_of(const std::vector<ledger::Summary>& summaries);

// What became of each hunk of `entries` given `later`: per path, the later
// entries touching it (oldest first, hunks without texts), and `reverted`,
// the ids ("c12", "c12:3") that reverts and undos on record took back.
// "reverted", "touched" (a later change replaced or moved into its lines) or
// "stands", per hunk id.
std::map<std::string, std::string> hunk_states(
    const std::vector<ledger::Entry>& entries,
    const std::map<std::string, std::vector<ledger::Entry>>& later,
    const std::vector<std::string>& reverted);

class Api {
 public:
  // `ledger` outlives the Api.
  Api(ledger::Ledger& ledger, std::string root, bool read_only);

  nlohmann::json info();
  Result<nlohmann::json> runs();
  // A page of run `id` ("r12"): its changes older than `before` ("c40"),
  // at most kPageEntries, oldest first.
  Result<nlohmann::json> run(const std::string& id, const std::optional<std::string>& before);
  // {"changes": [...], "hunks": [...], "kept": bool}: marks set or cleared.
  Result<nlohmann::json> keep(const nlohmann::json& body);
  // The newest entry's id ("c31"), or "" when there is none.
  std::string last();
  ledger::Ledger& ledger() { return *ledger_; }
  bool read_only() const { return read_only_; }

 private:
  Result<const std::vector<Run>*> current_runs();

  ledger::Ledger* ledger_;
  std::string root_;
  bool read_only_;
  // The runs as of ledger version `version_` (made again when it changes).
  std::int64_t version_ = -1;
  std::vector<Run> runs_;
  std::vector<std::string> reverted_;
};

}  // namespace editd::review
