#include "server/review/api.h"

#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "edit/change/hunks.h"

namespace editd::review {

using nlohmann::json;

namespace {

Error bad_request(std::string message) {
  return Error(ErrorKind::kInvalidParams, std::move(message));
}

// A hunk's text as its lines, each without its "\n" (a "\r" stays); whether
// the last had none.
std::pair<json, bool> lines_of(std::string_view text) {
  json out = json::array();
  bool no_newline = false;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      out.push_back(std::string(text));
      no_newline = true;
      break;
    }
    out.push_back(std::string(text.substr(0, nl)));
    text.remove_prefix(nl + 1);
  }
  return {std::move(out), no_newline};
}

json mode_json(const std::optional<std::uint32_t>& mode) {
  if (!mode) return nullptr;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", *mode & 07777u);
  return buf;
}

json run_json(const Run& r) {
  return {{"id", "r" + std::to_string(r.first)},
          {"client", r.actor.client},
          {"clientVersion", r.actor.client_version},
          {"door", r.actor.door},
          {"session", r.actor.session},
          {"peer", r.actor.peer},
          {"pid", r.pid},
          {"outside", r.outside},
          {"start", ledger::iso_time(r.start_ms)},
          {"end", ledger::iso_time(r.end_ms)},
          {"changes", r.ids.size()},
          {"files", r.files},
          {"hunks", r.hunks},
          {"kept", r.kept},
          {"reverted", r.reverted},
          {"first", ledger::entry_id(r.first)},
          {"last", ledger::entry_id(r.last)}};
}

json entry_json(const ledger::Entry& e, const std::map<std::string, std::string>& states) {
  const std::set<std::size_t> kept(e.kept.begin(), e.kept.end());
  json files = json::array();
  std::size_t n = 0;
  for (const ledger::FileRecord& f : e.files) {
    json hunks = json::array();
    for (const hunks::Hunk& h : f.hunks) {
      ++n;
      const std::string id = ledger::hunk_id(e.id, n);
      auto [old_lines, old_nl] = lines_of(h.old_text);
      auto [new_lines, new_nl] = lines_of(h.new_text);
      auto [before, before_nl] = lines_of(h.context_before);
      auto [after, after_nl] = lines_of(h.context_after);
      auto state = states.find(id);
      hunks.push_back({{"id", id},
                       {"oldStart", h.old_start + 1},
                       {"oldCount", h.old_count},
                       {"newStart", h.new_start + 1},
                       {"newCount", h.new_count},
                       {"old", std::move(old_lines)},
                       {"new", std::move(new_lines)},
                       {"oldNoNewline", old_nl},
                       {"newNoNewline", new_nl},
                       {"contextBefore", std::move(before)},
                       {"contextAfter", std::move(after)},
                       {"contextAfterNoNewline", after_nl},
                       {"state", state == states.end() ? "stands" : state->second},
                       {"kept", kept.count(n) > 0 || kept.count(0) > 0}});
    }
    // Where the formatter's lines are in the bytes as written, the same
    // lines as the hunks' new ones: the page tags the hunks that meet them.
    json formatted = json::array();
    for (const hunks::Hunk& h : f.formatted)
      formatted.push_back({{"newStart", h.new_start + 1}, {"newCount", h.new_count}});
    files.push_back({{"path", f.path},
                     {"created", !f.before_fingerprint.has_value()},
                     {"removed", !f.after_fingerprint.has_value()},
                     {"beforeMode", mode_json(f.before_mode)},
                     {"afterMode", mode_json(f.after_mode)},
                     {"hunksDropped", f.hunks_dropped},
                     {"textsOmitted", f.texts_omitted},
                     {"hunks", std::move(hunks)},
                     {"formatted", std::move(formatted)}});
  }
  return {{"id", ledger::entry_id(e.id)},
          {"time", ledger::iso_time(e.time_ms)},
          {"origin", ledger::origin_name(e.origin)},
          {"client", e.actor.client},
          {"door", e.actor.door},
          {"session", e.actor.session},
          {"method", e.actor.method},
          {"requestId", e.actor.request_id},
          {"untrusted", e.untrusted},
          {"reverts", e.reverts},
          {"kept", kept.count(0) > 0},
          {"files", std::move(files)}};
}

// The ids in `body[name]` (an array of strings, at most `max`).
Result<std::vector<std::string>> id_list(const json& body, const char* name, std::size_t max) {
  std::vector<std::string> out;
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return out;
  if (!it->is_array()) return bad_request(std::string(name) + " must be an array of ids");
  if (it->size() > max)
    return bad_request(std::string(name) + " names more than " + std::to_string(max) + " ids");
  for (const json& v : *it) {
    if (!v.is_string()) return bad_request(std::string(name) + " must be an array of ids");
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

std::vector<Run> runs_of(const std::vector<ledger::Summary>& summaries) {
  // What reverts and undos took back, to count each run's reverted hunks.
  std::unordered_set<std::string> taken;
  for (const ledger::Summary& s : summaries)
    for (const std::string& id : s.reverts) taken.insert(id);
  using Key = std::tuple<bool, std::int64_t, std::string, std::string, std::string, std::string>;
  std::map<Key, std::size_t> open;  // key -> index of its newest run
  std::vector<Run> runs;
  std::vector<std::set<std::string>> paths;
  for (auto it = summaries.rbegin(); it != summaries.rend(); ++it) {
    const ledger::Summary& s = *it;
    const bool outside = s.origin == ledger::Origin::kOutside;
    Key key = outside ? Key{true, 0, "", "", "", ""}
                      : Key{false, s.pid, s.actor.door, s.actor.peer, s.actor.client,
                            s.actor.session};
    auto at = open.find(key);
    if (at == open.end() || s.time_ms - runs[at->second].end_ms > kRunGapMs) {
      Run r;
      r.first = s.id;
      r.start_ms = s.time_ms;
      r.actor = s.actor;
      r.pid = s.pid;
      r.outside = outside;
      runs.push_back(std::move(r));
      paths.emplace_back();
      open[key] = runs.size() - 1;
      at = open.find(key);
    }
    Run& r = runs[at->second];
    r.last = s.id;
    r.end_ms = s.time_ms;
    r.ids.push_back(s.id);
    r.hunks += s.hunks;
    r.kept += s.kept;
    const std::string id = ledger::entry_id(s.id);
    const bool whole = taken.count(id) > 0;
    for (std::size_t n = 1; n <= s.hunks; ++n)
      if (whole || taken.count(ledger::hunk_id(s.id, n))) ++r.reverted;
    for (const std::string& p : s.paths) paths[at->second].insert(p);
  }
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].files = paths[i].size();
  std::sort(runs.begin(), runs.end(),
            [](const Run& a, const Run& b) { return a.last > b.last; });
  return runs;
}

std::map<std::string, std::string> hunk_states(
    const std::vector<ledger::Entry>& entries,
    const std::map<std::string, std::vector<ledger::Entry>>& later,
    const std::vector<std::string>& reverted) {
  const std::unordered_set<std::string> taken(reverted.begin(), reverted.end());
  std::map<std::string, std::string> out;
  for (const ledger::Entry& e : entries) {
    const bool whole = taken.count(ledger::entry_id(e.id)) > 0;
    std::size_t n = 0;
    for (const ledger::FileRecord& f : e.files) {
      // The hunks of the changes after this one, as follow() takes them.
      std::vector<std::vector<hunks::Hunk>> after;
      if (auto l = later.find(f.path); l != later.end())
        for (const ledger::Entry& x : l->second) {
          if (x.id <= e.id) continue;
          for (const ledger::FileRecord& g : x.files)
            if (g.path == f.path) after.push_back(g.hunks);
        }
      for (const hunks::Hunk& h : f.hunks) {
        const std::string id = ledger::hunk_id(e.id, ++n);
        if (whole || taken.count(id))
          out[id] = "reverted";
        else if (!hunks::follow(h, after))
          out[id] = "touched";
      }
    }
  }
  return out;
}

Api::Api(ledger::Ledger& ledger, std::string root, bool read_only)
    : ledger_(&ledger), root_(std::move(root)), read_only_(read_only) {}

json Api::info() {
  return {{"root", root_},
          {"readOnly", read_only_},
          {"version", EDITD_VERSION},
          {"oldestKept", ledger::entry_id(ledger_->oldest_kept())}};
}

Result<const std::vector<Run>*> Api::current_runs() {
  const std::int64_t v = ledger_->version();
  if (v == version_ && version_ >= 0) return &runs_;
  auto summaries = ledger_->summaries(kRunWindow);
  if (!summaries) return summaries.error();
  runs_ = runs_of(*summaries);
  reverted_.clear();
  for (const ledger::Summary& s : *summaries)
    reverted_.insert(reverted_.end(), s.reverts.begin(), s.reverts.end());
  version_ = v;
  return &runs_;
}

Result<json> Api::runs() {
  auto runs = current_runs();
  if (!runs) return runs.error();
  json out = json::array();
  for (const Run& r : **runs) out.push_back(run_json(r));
  return json{{"runs", std::move(out)}};
}

Result<json> Api::run(const std::string& id, const std::optional<std::string>& before) {
  auto runs = current_runs();
  if (!runs) return runs.error();
  const Run* run = nullptr;
  if (id.size() > 1 && id[0] == 'r')
    if (auto first = ledger::parse_entry_id("c" + id.substr(1)))
      for (const Run& r : **runs)
        if (r.first == *first) run = &r;
  if (!run)
    return Error(ErrorKind::kNotFound,
                 "no run " + id + " on record (it may have been forgotten: see /api/runs)");
  std::optional<std::int64_t> below;
  if (before) {
    below = ledger::parse_entry_id(*before);
    if (!below) return bad_request("before must be a change id (c40)");
  }
  // The newest kPageEntries of the run below `before`, oldest first.
  auto end = run->ids.end();
  if (below)
    end = std::lower_bound(run->ids.begin(), run->ids.end(), *below);
  auto begin = end - std::min<std::ptrdiff_t>(end - run->ids.begin(), kPageEntries);
  std::vector<std::int64_t> ids(begin, end);
  auto entries = ledger_->entries(ids);
  if (!entries) return entries.error();
  std::map<std::string, std::vector<ledger::Entry>> later;
  for (const ledger::Entry& e : *entries)
    for (const ledger::FileRecord& f : e.files) {
      if (later.count(f.path)) continue;
      auto l = ledger_->later_on(f.path, e.id);
      if (!l) return l.error();
      later.emplace(f.path, std::move(*l));
    }
  // A change already taken back in this page's own entries counts too, as
  // does any on record past the window.
  std::vector<std::string> reverted = reverted_;
  for (auto& [path, list] : later)
    for (const ledger::Entry& x : list)
      reverted.insert(reverted.end(), x.reverts.begin(), x.reverts.end());
  const auto states = hunk_states(*entries, later, reverted);
  json out = json::array();
  for (const ledger::Entry& e : *entries) out.push_back(entry_json(e, states));
  json next = nullptr;
  if (begin != run->ids.begin()) next = ledger::entry_id(*begin);
  return json{{"run", run_json(*run)}, {"entries", std::move(out)}, {"nextBefore", next}};
}

Result<json> Api::keep(const json& body) {
  if (!body.is_object()) return bad_request("the body must be a JSON object");
  auto changes = id_list(body, "changes", kPageEntries);
  if (!changes) return changes.error();
  auto hunk_ids = id_list(body, "hunks", 10 * kPageEntries);
  if (!hunk_ids) return hunk_ids.error();
  bool kept = true;
  if (auto k = body.find("kept"); k != body.end()) {
    if (!k->is_boolean()) return bad_request("kept must be true or false");
    kept = k->get<bool>();
  }
  std::vector<ledger::HunkRef> refs;
  std::vector<std::int64_t> wanted;
  for (const std::string& c : *changes) {
    auto id = ledger::parse_entry_id(c);
    if (!id) return bad_request("not a change id: " + c + " (c12)");
    wanted.push_back(*id);
  }
  for (const std::string& h : *hunk_ids) {
    auto id = ledger::parse_hunk_id(h);
    if (!id) return bad_request("not a hunk id: " + h + " (c12:3)");
    wanted.push_back(id->first);
  }
  // Each id must name a change on record, and a hunk one of its hunks.
  auto entries = ledger_->entries(wanted, 0);
  if (!entries) return entries.error();
  std::unordered_map<std::int64_t, std::size_t> hunk_count;
  for (const ledger::Entry& e : *entries) {
    std::size_t n = 0;
    for (const ledger::FileRecord& f : e.files) n += f.hunks.size();
    hunk_count[e.id] = n;
  }
  for (const std::string& c : *changes) {
    const std::int64_t id = *ledger::parse_entry_id(c);
    auto it = hunk_count.find(id);
    if (it == hunk_count.end())
      return Error(ErrorKind::kNotFound, "no change " + c + " on record");
    if (it->second == 0) refs.push_back({id, 0});
    for (std::size_t n = 1; n <= it->second; ++n) refs.push_back({id, n});
  }
  for (const std::string& h : *hunk_ids) {
    auto [id, n] = *ledger::parse_hunk_id(h);
    auto it = hunk_count.find(id);
    if (it == hunk_count.end() || n == 0 || n > it->second)
      return Error(ErrorKind::kNotFound, "no hunk " + h + " on record");
    refs.push_back({id, n});
  }
  if (refs.empty()) return bad_request("name the changes or hunks to mark: changes, hunks");
  if (auto ok = ledger_->keep(refs, kept); !ok) return ok.error();
  return json{{"ok", true}, {"marked", refs.size()}};
}

std::string Api::last() {
  auto s = ledger_->summaries(1);
  if (!s || s->empty()) return "";
  return ledger::entry_id(s->front().id);
}

}  // namespace editd::review
