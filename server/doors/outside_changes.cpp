#include "server/doors/outside_changes.h"

namespace editd::outside {

using nlohmann::json;

json notice(const ops::OutsideChange& c) {
  json n = {{"path", c.shown},
            {"previousFingerprint",
             c.previous_fingerprint ? json(*c.previous_fingerprint) : json(nullptr)},
            {"fingerprint", c.fingerprint ? json(*c.fingerprint) : json(nullptr)}};
  if (c.diff) n["diff"] = *c.diff;
  n["diffTruncated"] = c.diff_truncated;
  n["revertedOwnEdit"] = c.reverted_own_edit;
  return n;
}

json notices(const std::vector<ops::OutsideChange>& changes) {
  json out = json::array();
  for (const ops::OutsideChange& c : changes) out.push_back(notice(c));
  return out;
}

std::string text(const ops::OutsideChange& c) {
  std::string out = c.shown;
  if (!c.fingerprint)
    out += " was removed";
  else
    out += " is now " + *c.fingerprint;
  if (c.reverted_own_edit) out += ": this puts back what one of your own edits replaced";
  out += "\n";
  if (c.diff && !c.diff->empty()) {
    out += "```diff\n" + *c.diff;
    if (c.diff_truncated) out += "... (diff cut short)\n";
    out += "```\n";
  } else if (c.fingerprint && !c.diff) {
    out += "(read it again to see it)\n";
  }
  return out;
}

std::string text(const std::vector<ops::OutsideChange>& changes, bool truncated) {
  std::string out = "Changed outside this session:\n";
  for (const ops::OutsideChange& c : changes) out += text(c);
  if (truncated) out += "(more changes follow on the next replies)\n";
  return out;
}

bool attach_plain(json& reply, const std::vector<ops::OutsideChange>& changes, bool truncated) {
  json* holder = nullptr;
  if (auto r = reply.find("result"); r != reply.end() && r->is_object()) {
    holder = &*r;
  } else if (auto e = reply.find("error"); e != reply.end() && e->is_object()) {
    json& data = (*e)["data"];
    if (data.is_null()) data = json::object();
    if (data.is_object()) holder = &data;
  }
  if (!holder) return false;
  (*holder)["outsideChanges"] = notices(changes);
  if (truncated) (*holder)["outsideChangesTruncated"] = true;
  return true;
}

}  // namespace editd::outside
