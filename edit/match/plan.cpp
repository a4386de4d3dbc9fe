// What a tier's hits become: the plan of edits, or the error that refuses them.

#include <algorithm>
#include <optional>
#include <string>

#include "edit/match/ladder.h"

namespace editd::match::detail {

namespace {

// ---------------------------------------------------------------------------
// Outcomes.

std::string list_lines(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < 10; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(lines[i]);
  }
  if (lines.size() > 10) out += ", ...";
  return out;
}

// Every hit knows its line in `text`, so the new text's line numbers follow
// from the newlines each earlier replacement added or removed, without building
// the new text.
Plan build_plan(std::string_view text, std::vector<Hit>& hits, std::string_view tier) {
  Plan plan;
  plan.tier = std::string(tier);
  plan.replacements = hits.size();
  long shift = 0;  // newlines added so far minus newlines removed
  bool may_pass_end = false;
  for (Hit& h : hits) {
    const auto start = static_cast<std::size_t>(static_cast<long>(h.line) + shift);
    const std::string_view r =
        h.replacement ? std::string_view(*h.replacement) : std::string_view();
    const std::size_t added = count_newlines(r);
    std::size_t end = start;
    if (!r.empty()) end = start + added - (r.back() == '\n' ? 1 : 0);
    plan.lines.push_back({start, end});
    shift += static_cast<long>(added) -
             static_cast<long>(count_newlines(text.substr(h.begin, h.end - h.begin)));
    may_pass_end = may_pass_end || h.end == text.size() || r.empty();
    plan.edits.push_back({h.begin, h.end, std::string(r)});
  }
  if (may_pass_end) {
    // A cut at the very end of the text happened on its last line.
    const auto newlines = static_cast<std::size_t>(static_cast<long>(count_newlines(text)) + shift);
    std::size_t pos = text.size();
    std::optional<char> last;
    for (std::size_t i = plan.edits.size(); i-- > 0 && plan.edits[i].end == pos;) {
      if (!plan.edits[i].text.empty()) {
        last = plan.edits[i].text.back();
        break;
      }
      pos = plan.edits[i].begin;
    }
    if (!last && pos > 0) last = text[pos - 1];
    const std::size_t total = std::max<std::size_t>(1, newlines + (last && *last != '\n' ? 1 : 0));
    for (LineRange& l : plan.lines) {
      l.start_line = std::min(l.start_line, total);
      l.end_line = std::max(l.start_line, std::min(l.end_line, total));
    }
  }
  return plan;
}

// The whole lines a hit touches, so that a model can tell candidates apart.
nlohmann::json candidate_json(std::string_view text, const Hit& h) {
  const std::size_t from = h.begin == 0 ? 0 : text.rfind('\n', h.begin - 1) + 1;
  std::size_t last = h.end > h.begin ? h.end - 1 : h.begin;
  std::size_t to = last < text.size() && text[last] == '\n' ? last : text.find('\n', last);
  if (to == std::string_view::npos) to = text.size();
  std::string_view region = text.substr(from, to - from);
  return {{"startLine", h.line},
          {"endLine", h.line + count_newlines(region)},
          {"text", std::string(region)}};
}

}  // namespace

Result<Plan> decide(std::string_view text, LadderResult& found, const Request& request,
                    std::string_view tier_name) {
  std::vector<Hit>& hits = found.result.hits;
  std::vector<std::size_t> lines;
  for (std::size_t i = 0; i < hits.size() && i < kMaxListedLines; ++i)
    lines.push_back(hits[i].line);
  const std::size_t n = hits.size();
  const std::string count =
      n > kMaxRegions ? "more than " + std::to_string(kMaxRegions) : std::to_string(n);
  nlohmann::json data;
  data["lines"] = lines;
  data["found"] = n;
  data["tier"] = tier_name;
  if (n > 1 || request.expected_replacements) {
    nlohmann::json candidates = nlohmann::json::array();
    for (std::size_t i = 0; i < n && i < kMaxCandidates; ++i)
      candidates.push_back(candidate_json(text, hits[i]));
    data["candidates"] = std::move(candidates);
  }
  const std::string where = "lines " + list_lines(lines) + " (tier " + std::string(tier_name) + ")";
  if (found.result.overlapping) {
    data["overlapping"] = true;
    return Error(ErrorKind::kAmbiguous,
                 mention(Input::kOldText) + " can be read at " + count +
                     " overlapping regions at " + where +
                     ": repeated lines (or characters) match in more than one way, and replaceAll "
                     "cannot replace regions that share text; add a line before or after that "
                     "tells them apart so that " +
                     mention(Input::kOldText) + " matches only one",
                 std::move(data));
  }
  if (request.expected_replacements && *request.expected_replacements != n) {
    data["expected"] = *request.expected_replacements;
    data["found"] = n;
    return Error(ErrorKind::kAmbiguous,
                 "expected " + std::to_string(*request.expected_replacements) +
                     " replacements, but " + mention(Input::kOldText) + " matches " + count +
                     " regions at " + where + "; adjust " + mention(Input::kOldText) +
                     " or expectedReplacements",
                 std::move(data));
  }
  if (n > 1 && found.result.single_only) {
    return Error(ErrorKind::kAmbiguous,
                 mention(Input::kOldText) + " loosely matches " + count + " regions at " + where +
                     ", and a loose match is applied only when it is the only one: copy " +
                     mention(Input::kOldText) +
                     " exactly from the file, with enough surrounding lines to pick one",
                 std::move(data));
  }
  if (n > 1 && !request.replace_all) {
    return Error(ErrorKind::kAmbiguous,
                 mention(Input::kOldText) + " matches " + count + " regions at " + where +
                     "; add surrounding lines to " + mention(Input::kOldText) +
                     " so that it matches only one, or set "
                     "replaceAll to replace every one",
                 std::move(data));
  }
  if (n > kMaxRegions)
    return Error(ErrorKind::kTooLarge,
                 "replaceAll would replace " + count + " regions (tier " + std::string(tier_name) +
                     "), more than one call replaces: use write_text, or an " +
                     mention(Input::kOldText) +
                     " that matches "
                     "fewer regions",
                 {{"replacements", n}, {"limit", kMaxRegions}});
  for (const Hit& h : hits)
    if (h.refusal) return *h.refusal;
  // The new text's size, before any of it is built: a large newText times
  // many regions must be refused, not allocated.
  // (Hits do not overlap, and at most text.size() of them each add at most
  // newText's size: no overflow.)
  std::size_t size = text.size();
  for (const Hit& h : hits)
    size = size + (h.replacement ? h.replacement->size() : 0) - (h.end - h.begin);
  if (size > request.max_result_bytes) return too_large_result(n, request.max_result_bytes);
  return build_plan(text, hits, tier_name);
}

}  // namespace editd::match::detail
