#include "server/doors/mcp_approvals.h"

#include <algorithm>
#include <cstdio>

#include "edit/change/unified_diff.h"
#include "edit/text/text.h"

namespace editd::mcp {

using nlohmann::json;

namespace {

// A path as a question shows it: a JSON string (cut at kApprovalPathBytes),
// its display-acting characters escaped.
std::string quoted(const std::string& path) {
  std::string p = path.size() > kApprovalPathBytes ? path.substr(0, kApprovalPathBytes) : path;
  std::string q = visible(json(p).dump(-1, ' ', false, json::error_handler_t::replace));
  if (path.size() > kApprovalPathBytes)
    q += " (cut: " + std::to_string(path.size() - kApprovalPathBytes) + " more bytes)";
  return q;
}

const char* kind_word(PendingChange::Kind k) {
  switch (k) {
    case PendingChange::Kind::kCreate:
      return "new";
    case PendingChange::Kind::kRemove:
      return "removed";
    case PendingChange::Kind::kUpdate:
      break;
  }
  return "changed";
}

bool is_text(const std::optional<std::string>& s) {
  return !s || text::check_text(*s, "file").has_value();
}

struct FileDiff {
  std::string text;  // visible already
  std::size_t added = 0, removed = 0;
  bool binary = false;
};

FileDiff file_diff(const PendingChange& c) {
  FileDiff d;
  const std::string label = quoted(c.shown);
  const std::string old_label = c.kind == PendingChange::Kind::kCreate ? "/dev/null" : label;
  const std::string new_label = c.kind == PendingChange::Kind::kRemove ? "/dev/null" : label;
  const std::string empty;
  const std::string& before = c.change.old_text ? *c.change.old_text : empty;
  const std::string& after = c.kind == PendingChange::Kind::kRemove ? empty : c.change.new_text;
  if (!is_text(c.change.old_text) || !is_text(after)) {
    d.binary = true;
    d.text = "Binary file " + label + ": " + std::to_string(before.size()) + " bytes before, " +
             std::to_string(after.size()) + " after\n";
    return d;
  }
  diff::UnifiedDiff u = diff::unified_texts(before, after, old_label, new_label);
  d.added = u.added;
  d.removed = u.removed;
  d.text = visible(u.text);
  return d;
}

// The paths a refusal names: at most kApprovalFiles.
json paths_of(const std::vector<PendingChange>& changes) {
  json out = json::array();
  for (std::size_t i = 0; i < changes.size() && i < kApprovalFiles; ++i)
    out.push_back(changes[i].shown);
  return out;
}

// "the change to "a.txt"", "the changes to 3 files ("a.txt", "b.txt", "c.txt", ...)".
std::string what_changes(const std::vector<PendingChange>& changes) {
  if (changes.size() == 1) return "the change to " + quoted(changes.front().shown);
  std::string names;
  for (std::size_t i = 0; i < changes.size() && i < 3; ++i)
    names += (i ? ", " : "") + quoted(changes[i].shown);
  if (changes.size() > 3) names += ", ...";
  return "the changes to " + std::to_string(changes.size()) + " files (" + names + ")";
}

Error denied(const std::vector<PendingChange>& changes, const char* reason, std::string message,
             json extra = json::object()) {
  json data = {{"reason", reason}, {"paths", paths_of(changes)}};
  for (auto it = extra.begin(); it != extra.end(); ++it) data[it.key()] = it.value();
  return Error(ErrorKind::kDenied, std::move(message), std::move(data));
}

Error refused_by_user(const std::vector<PendingChange>& changes, const char* reason) {
  return denied(changes, reason,
                "the user did not approve " + what_changes(changes) + " (" + reason +
                    "): nothing was written. Do not retry the same change unasked; ask the user "
                    "what to do instead",
                {{"method", kElicitationCreate}});
}

}  // namespace

bool offers_form_elicitation(const json& params) {
  if (!params.is_object()) return false;
  auto caps = params.find("capabilities");
  if (caps == params.end() || !caps->is_object()) return false;
  auto e = caps->find("elicitation");
  if (e == caps->end() || !e->is_object()) return false;
  // 2025-11-25: modes by name; `{}` (2025-06-18's shape) means form.
  return e->contains("form") || !e->contains("url");
}

std::string visible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape_byte = [&](unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\x%02x", v);
    out += buf;
  };
  auto code_point = [&](unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u%04x", v);
    out += buf;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t') {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      escape_byte(c);
    } else if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      // A UTF-8 sequence: its length from the lead byte, then its continuations.
      const std::size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                              : c >= 0xe0 && c <= 0xef ? 3
                              : c >= 0xf0 && c <= 0xf4 ? 4
                                                       : 0;
      bool ok = len != 0 && i + len <= text.size();
      for (std::size_t k = 1; ok && k < len; ++k)
        ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
      if (!ok) {
        escape_byte(c);
        continue;
      }
      unsigned cp = len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
      for (std::size_t k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
      const bool acts = (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
                        (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
                        cp == 0x061c;
      const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
                            (cp >= 0xd800 && cp <= 0xdfff);
      if (overlong) {
        escape_byte(c);
        continue;
      }
      if (acts)
        code_point(cp);
      else
        out.append(text.substr(i, len));
      i += len - 1;
    }
  }
  return out;
}

std::string approval_message(const std::string& tool, const std::vector<PendingChange>& changes) {
  std::vector<FileDiff> diffs;
  diffs.reserve(changes.size());
  for (const PendingChange& c : changes) diffs.push_back(file_diff(c));

  std::string out = "editd asks before " + tool + " writes (--approve ask): accept to write " +
                    (changes.size() == 1 ? "this change" : "these changes") +
                    "; decline or cancel and nothing is written.\n\n";
  out += std::to_string(changes.size()) + (changes.size() == 1 ? " file:\n" : " files:\n");
  for (std::size_t i = 0; i < changes.size() && i < kApprovalFiles; ++i) {
    out += "  " + std::string(kind_word(changes[i].kind)) + " " + quoted(changes[i].shown);
    if (diffs[i].binary)
      out += " (binary)";
    else
      out += " (+" + std::to_string(diffs[i].added) + " -" + std::to_string(diffs[i].removed) + ")";
    out += "\n";
  }
  if (changes.size() > kApprovalFiles)
    out += "  ... and " + std::to_string(changes.size() - kApprovalFiles) + " more files\n";
  out += "\n";

  // The diffs, cut at a line end within the budget.
  std::size_t bytes = 0, lines = 0, left_bytes = 0, left_lines = 0;
  for (const FileDiff& d : diffs) {
    std::size_t pos = 0;
    while (pos < d.text.size()) {
      std::size_t end = d.text.find('\n', pos);
      end = end == std::string::npos ? d.text.size() : end + 1;
      const std::size_t n = end - pos;
      if (left_lines == 0 && bytes + n <= kApprovalDiffBytes && lines < kApprovalDiffLines) {
        out.append(d.text, pos, n);
        bytes += n;
        ++lines;
      } else {
        left_bytes += n;
        ++left_lines;
      }
      pos = end;
    }
  }
  if (left_lines > 0)
    out += "[diff cut here: " + std::to_string(left_lines) + " more lines (" +
           std::to_string(left_bytes) + " bytes) not shown]\n";
  return out;
}

json elicitation_params(std::string message) {
  return json{
      {"message", std::move(message)},
      {"requestedSchema",
       {{"type", "object"},
        {"properties",
         {{"approve",
           {{"type", "boolean"},
            {"title", "Write these changes"},
            {"description", "Leave on and accept to write; decline (or turn off) to refuse."},
            {"default", true}}}}}}}};
}

Result<void> approval_outcome(const Result<json>& answer,
                              const std::vector<PendingChange>& changes) {
  if (!answer) {
    const Error& e = answer.error();
    if (e.kind == ErrorKind::kCancelled) return e;
    if (e.kind == ErrorKind::kTimeout)
      return denied(changes, "timeout",
                    "the user did not answer the approval of " + what_changes(changes) +
                        " in time (--approve-timeout): nothing was written",
                    {{"method", kElicitationCreate}});
    json extra = {{"method", kElicitationCreate}};
    if (e.data.is_object() && e.data.contains("code"))
      extra["clientError"] = {{"code", e.data["code"]}, {"message", e.message}};
    return denied(changes, "error",
                  "the client could not ask its user to approve " + what_changes(changes) + " (" +
                      e.message + "): nothing was written",
                  std::move(extra));
  }
  const json& a = *answer;
  const json action = a.is_object() ? a.value("action", json()) : json();
  if (action == "accept") {
    auto content = a.find("content");
    if (content != a.end() && content->is_object())
      if (auto ap = content->find("approve"); ap != content->end() && *ap == false)
        return refused_by_user(changes, "declined");
    return {};
  }
  if (action == "decline") return refused_by_user(changes, "declined");
  if (action == "cancel") return refused_by_user(changes, "cancelled");
  return denied(changes, "invalid_answer",
                "the client's answer to the approval of " + what_changes(changes) +
                    " has no valid action (accept, decline or cancel): nothing was written",
                {{"method", kElicitationCreate}});
}

Error no_elicitation(const std::vector<PendingChange>& changes) {
  return denied(changes, "no_elicitation",
                "editd runs with --approve ask and this MCP client cannot ask its user (its "
                "initialize declared no form elicitation capability), so " +
                    what_changes(changes) +
                    " was refused: nothing was written. Reads and dry runs work; changes need a "
                    "client that supports elicitation, or editd without --approve ask");
}

Error approvals_busy(const std::vector<PendingChange>& changes) {
  return denied(changes, "busy",
                "too many changes on this connection already wait for the user's approval (" +
                    std::to_string(kMaxWaitingApprovals) + "), so " + what_changes(changes) +
                    " was refused: nothing was written. Retry once those are answered");
}

}  // namespace editd::mcp
