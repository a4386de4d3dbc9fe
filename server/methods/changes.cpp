// changes: the ledger, newest first, filtered and paged; each change with
// who made it and its hunks (server/ledger/ledger.h).
#include <ctime>
#include <string>
#include <utility>

#include "protocol/params.h"
#include "server/methods/methods.h"
#include "server/methods/schemas.h"
#include "server/methods/shared.h"
#include "server/methods/texts.h"

namespace editd::methods {

using nlohmann::json;
using protocol::ParamDecoder;

namespace {

// "2026-12-06T10:00:00.123Z" (UTC), or a number of milliseconds since 1970.
std::optional<std::int64_t> parse_time(const json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  std::tm tm{};
  int ms = 0, used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &used) != 6)
    return std::nullopt;
  std::string_view rest = std::string_view(s).substr(static_cast<std::size_t>(used));
  if (rest.starts_with('.')) {
    int n = 0;
    if (std::sscanf(rest.data(), ".%3d%n", &ms, &n) != 1) return std::nullopt;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  if (rest != "Z" && !rest.empty()) return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t t = ::timegm(&tm);
  return static_cast<std::int64_t>(t) * 1000 + ms;
}

void time_param(ParamDecoder& d, const json& p, const char* name,
                std::optional<std::int64_t>& out) {
  auto v = p.find(name);
  if (v == p.end() || v->is_null()) return;
  out = parse_time(*v);
  if (!out)
    d.fail(invalid_param(name,
                         "must be a time as 2026-12-06T10:00:00Z (UTC) or milliseconds since 1970"));
}

Result<ops::ChangesRequest> decode_changes(const json& p) {
  ParamDecoder d(p);
  ops::ChangesRequest r;
  ledger::Filter& f = r.filter;
  d.optional_path("path", f.path);
  d.optional_string("client", f.client);
  d.optional_string("session", f.session);
  std::optional<std::string> origin;
  d.optional_string("origin", origin);
  if (origin) {
    f.origin = ledger::origin_from(*origin);
    if (!f.origin)
      d.fail(invalid_param("origin", "must be edit, undo, revert or outside"));
  }
  time_param(d, p, "since", f.since_ms);
  time_param(d, p, "until", f.until_ms);
  std::optional<std::string> before;
  d.optional_string("before", before);
  if (before) {
    f.before_id = ledger::parse_entry_id(*before);
    if (!f.before_id)
      d.fail(invalid_param("before", "must be a change id (c42), as a page's `next` gives it"));
  }
  std::optional<std::uint64_t> limit;
  d.optional_integer("limit", limit, 1);
  if (limit) {
    if (*limit > 1000) d.fail(invalid_param("limit", "must be at most 1000"));
    f.limit = static_cast<std::size_t>(*limit);
  }
  decode_session(d);
  return d.finish(std::move(r));
}

// A hunk's lines, unless the page's bound (ledger::kPageTextBytes) left them
// out: then textOmitted, and the hunk is still listed. The caller adds what
// names it: an id, or the formatter's origin.
json encode_hunk(const hunks::Hunk& h, bool omitted) {
  json j = {{"oldStart", h.old_start + 1},
            {"oldLines", h.old_count},
            {"newStart", h.new_start + 1},
            {"newLines", h.new_count}};
  if (omitted && h.old_text.empty() && h.new_text.empty()) {
    j["textOmitted"] = true;
  } else {
    // Lines are text the ledger took from files editd accepted (UTF-8); a
    // record that is not is shown with replacement characters.
    j["old"] = h.old_text;
    j["new"] = h.new_text;
  }
  return j;
}

json encode_entry(const ledger::Entry& e) {
  json files = json::array();
  std::size_t n = 0;
  for (const ledger::FileRecord& f : e.files) {
    json hs = json::array();
    for (const hunks::Hunk& h : f.hunks) {
      json j = encode_hunk(h, f.texts_omitted);
      j["id"] = ledger::hunk_id(e.id, ++n);
      hs.push_back(std::move(j));
    }
    json file = {{"path", f.path},
                 {"beforeFingerprint", f.before_fingerprint ? json(*f.before_fingerprint) : json()},
                 {"afterFingerprint", f.after_fingerprint ? json(*f.after_fingerprint) : json()},
                 {"hunks", std::move(hs)}};
    if (f.before_mode) file["beforeMode"] = *f.before_mode;
    if (f.after_mode) file["afterMode"] = *f.after_mode;
    if (f.hunks_dropped) file["hunksDropped"] = true;
    // The formatter's part of `hunks` (from the call's text to the bytes as
    // written): no ids, since a revert takes them back with the hunks that
    // hold them, never alone.
    if (!f.formatted.empty()) {
      json fs = json::array();
      for (const hunks::Hunk& h : f.formatted) {
        json j = encode_hunk(h, f.texts_omitted);
        j["origin"] = "format";
        fs.push_back(std::move(j));
      }
      file["formatted"] = std::move(fs);
    }
    files.push_back(std::move(file));
  }
  json client = {{"name", e.actor.client}, {"version", e.actor.client_version}};
  json j = {{"id", ledger::entry_id(e.id)},
            {"time", ledger::iso_time(e.time_ms)},
            {"origin", ledger::origin_name(e.origin)},
            {"client", std::move(client)},
            {"door", e.actor.door},
            {"method", e.actor.method},
            {"pid", e.pid},
            {"files", std::move(files)}};
  if (!e.actor.session.empty()) j["session"] = e.actor.session;
  if (!e.actor.peer.empty()) j["peer"] = e.actor.peer;
  if (!e.actor.request_id.empty()) j["requestId"] = e.actor.request_id;
  if (!e.reverts.empty()) j["reverts"] = e.reverts;
  if (e.untrusted) j["untrusted"] = true;
  return j;
}

json encode_changes(ops::Changes page) {
  json list = json::array();
  for (const ledger::Entry& e : page.entries) list.push_back(encode_entry(e));
  json j = {{"changes", std::move(list)},
            {"next", page.next_before ? json(ledger::entry_id(*page.next_before)) : json()},
            {"oldestKept", ledger::entry_id(page.oldest_kept)}};
  return j;
}

std::string render_changes(const json&, const json& result) {
  std::string out;
  for (const json& c : result.value("changes", json::array())) {
    const json& client = c.value("client", json::object());
    const std::string name = client.value("name", "");
    const std::string version = client.value("version", "");
    const std::string who = c.value("door", "") == "outside" ? "another hand"
                            : name.empty()                   ? "an unnamed client"
                            : version.empty()                ? name
                                                             : name + " " + version;
    out += c.value("id", "") + "  " + c.value("time", "") + "  " + c.value("origin", "") +
           (c.value("method", "").empty() ? "" : "  " + c.value("method", "")) + "  by " + who +
           " (" + c.value("door", "") + ")";
    if (c.contains("reverts")) {
      std::string r;
      for (const json& x : c["reverts"]) r += (r.empty() ? "" : ", ") + x.get<std::string>();
      out += "  reverts " + r;
    }
    if (c.value("untrusted", false)) out += "  UNTRUSTED";
    out += "\n";
    for (const json& f : c.value("files", json::array())) {
      out += "  " + f.value("path", "") + (f.value("hunksDropped", false) ? "  (lines not kept)" : "") + "\n";
      auto ranges = [](const json& h) {
        return "-" + std::to_string(h.value("oldStart", 0)) + "," +
               std::to_string(h.value("oldLines", 0)) + " +" +
               std::to_string(h.value("newStart", 0)) + "," +
               std::to_string(h.value("newLines", 0));
      };
      for (const json& h : f.value("hunks", json::array()))
        out += "    " + h.value("id", "") + "  " + ranges(h) + "\n";
      const json formatted = f.value("formatted", json::array());
      if (!formatted.empty()) {
        out += "    formatted by the formatter: " + std::to_string(formatted.size()) +
               (formatted.size() == 1 ? " hunk" : " hunks") + "\n";
        for (const json& h : formatted) out += "      " + ranges(h) + "\n";
      }
    }
  }
  if (out.empty()) out = "No changes on record match.\n";
  if (result.contains("next") && result["next"].is_string())
    out += "More: ask again with before: " + result["next"].get<std::string>() + "\n";
  return out;
}

}  // namespace

Method changes() {
  using namespace schema;
  json hunk = {{"type", "object"},
               {"properties",
                {{"id", str("Pass it to revert's hunks to take this hunk back alone.")},
                 {"oldStart", integer("First line it replaced (1-based).", 1)},
                 {"oldLines", integer("Lines it replaced.", 0)},
                 {"newStart", integer("First line it wrote (1-based).", 1)},
                 {"newLines", integer("Lines it wrote.", 0)},
                 {"old", str("The lines it replaced.")},
                 {"new", str("The lines it wrote.")},
                 {"textOmitted", boolean("The page's 1 MiB of lines was spent.")}}},
               {"required", {"id", "oldStart", "oldLines", "newStart", "newLines"}}};
  json format_hunk = {
      {"type", "object"},
      {"properties",
       {{"origin", str("\"format\": the formatter (--format) made these lines.")},
        {"oldStart", integer("First line of the text the call made (1-based).", 1)},
        {"oldLines", integer("Lines of it the formatter replaced.", 0)},
        {"newStart", integer("First line as written (1-based).", 1)},
        {"newLines", integer("Lines the formatter wrote.", 0)},
        {"old", str("The lines as the call made them.")},
        {"new", str("The lines as the formatter wrote them.")},
        {"textOmitted", boolean("The page's 1 MiB of lines was spent.")}}},
      {"required", {"origin", "oldStart", "oldLines", "newStart", "newLines"}}};
  return {
      .name = "changes",
      .title = "List the changes on record",
      .description =
          std::string(
              "The ledger of this root: every change editd made (any client, any session, "
              "across restarts) and every change made by another hand that editd noticed "
              "(origin outside), newest first: when, which client and method, which files, "
              "and each file's hunks with ids. Filter by path, client, session, origin and "
              "time (since/until: 2026-12-06T10:00:00Z); page with before: the page's next. "
              "Take a change or one hunk back with revert. Errors: unsupported (--ledger "
              "off), io (the ledger cannot be read).") +
          kErrorsNote,
      .input_schema = object({{"path", str("Only changes of this file.")},
                              {"client", str("Only changes by this client (its name).")},
                              {"session", str("Only changes of this ACP session.")},
                              {"origin", {{"type", "string"},
                                          {"enum", {"edit", "undo", "revert", "outside"}},
                                          {"description", "Only changes of this origin."}}},
                              {"since", str("Only changes at or after this time (UTC).")},
                              {"until", str("Only changes at or before this time (UTC).")},
                              {"before", str("Only changes older than this id: a page's next.")},
                              {"limit", integer("Changes per page (default 50, at most 1000).", 1)}},
                             {}),
      .output_schema = {{"type", "object"},
                        {"properties",
                         {{"changes",
                           {{"type", "array"},
                            {"items",
                             {{"type", "object"},
                              {"properties",
                               {{"id", str("The change's id: pass it to revert or undo.")},
                                {"time", str("When (UTC).")},
                                {"origin", str("edit, undo, revert or outside.")},
                                {"method", str("The method or tool that made it.")},
                                {"files", {{"type", "array"},
                                           {"items", {{"type", "object"},
                                                      {"properties",
                                                       {{"path", str("The file.")},
                                                        {"hunks", {{"type", "array"},
                                                                   {"items", hunk}}},
                                                        {"formatted",
                                                         {{"type", "array"},
                                                          {"description",
                                                           "What the formatter changed of the "
                                                           "call's text, part of hunks (absent: "
                                                           "nothing)."},
                                                          {"items", format_hunk}}}}}}}}}}}}}}},
                          {"next", str("More: pass it as before (null: no more).")},
                          {"oldestKept", str("Older ids were forgotten (--ledger-bytes).")}}},
                        {"required", {"changes"}}},
      .idempotent = true,
      .render = &render_changes,
      .run = &run<&decode_changes, &Operations::changes, &encode_changes>};
}

}  // namespace editd::methods
