#include "edit/match/miss.h"

#include <cstdio>
#include <optional>
#include <tuple>
#include <utility>

#include "edit/explain/closest.h"
#include "edit/match/occurrences.h"

namespace editd::match::detail {

namespace {

// `\n` written out in s: lines that the escapes tier's oldText has more.
std::size_t escaped_newlines(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t at = s.find("\\n"); at != std::string_view::npos; at = s.find("\\n", at + 2))
    ++n;
  return n;
}

// The bytes of the whole lines from `margin` lines before the line holding
// `begin` to `margin` lines after the one holding `end`.
std::pair<std::size_t, std::size_t> around(std::string_view text, std::size_t begin,
                                           std::size_t end, std::size_t margin) {
  std::size_t from = begin;
  for (std::size_t n = 0; from > 0; --from)
    if (text[from - 1] == '\n' && n++ == margin) break;
  std::size_t to = end;
  for (std::size_t n = 0; to < text.size(); ++to)
    if (text[to] == '\n' && n++ == margin) break;
  return {from, to};
}

// `s` with `\n`, `\t`, `\"` and `\'` written out read as the characters they
// stand for (and `\\` as one backslash); nullopt when it has none of the four.
std::optional<std::string> unescape(std::string_view s) {
  std::string out;
  bool any = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = i + 1 < s.size() && s[i] == '\\' ? s[i + 1] : '\0';
    const char to = c == 'n' ? '\n' : c == 't' ? '\t' : c == '"' || c == '\'' || c == '\\' ? c : '\0';
    if (to == '\0') {
      out += s[i];
      continue;
    }
    any = any || c != '\\';
    out += to;
    ++i;
  }
  if (!any) return std::nullopt;
  return out;
}

// Where oldText would match if its escapes written out were read as characters:
// verbatim, or line by line up to indentation (the whitespace the ladder
// forgives). Never applied (tier_table.h): a no_match shows the region, so that
// the retry sends what the model means. Nothing when oldText has no such
// escapes or, so read, too few non-blank characters to match loosely.
struct EscapedReading {
  std::size_t regions = 0;          // how many places it matches (overlapping counted)
  std::size_t begin = 0, end = 0;   // the whole lines of the first one
  std::size_t start_line = 0, end_line = 0;
};

std::optional<EscapedReading> escaped_reading(File& file, std::string_view old_text,
                                              std::size_t max_result_bytes) {
  const std::optional<std::string> unescaped = unescape(old_text);
  if (!unescaped || !chars::loose_allowed(non_blank_chars(*unescaped))) return std::nullopt;
  Ladder ladder(file, *unescaped, *unescaped, max_result_bytes);
  LadderResult found = run_ladder(ladder, [](const TierInfo& t) {
    return t.id == TierId::kExact || t.id == TierId::kIndentation;
  });
  if (found.tier == nullptr || found.result.hits.empty()) return std::nullopt;
  const std::string_view text = file.text();
  const Hit& first = found.result.hits.front();
  EscapedReading r;
  r.regions = found.result.hits.size();
  std::size_t end = first.end;
  if (end > first.begin && text[end - 1] == '\n') --end;
  std::tie(r.begin, r.end) = around(text, first.begin, end, 0);
  r.start_line = 1 + count_newlines(text.substr(0, r.begin));
  r.end_line = r.start_line + count_newlines(text.substr(r.begin, r.end - r.begin));
  return r;
}

}  // namespace

Error no_match(const Request& request, File& file, Ladder& ladder, std::string_view old_text,
               std::string_view new_text, std::string_view needle, const Runs& runs, Hints hints) {
  const Mode mode = request.mode;
  // In exact mode the line slots that rule newText out cheaply are not at hand.
  if (!trim(new_text).empty() && (mode == Mode::kExact || file.may_hold(new_text))) {
    // The first occurrence only: a short newText may occur on every line.
    if (const std::size_t at = occurrences::find(request.text, new_text, 0);
        at != std::string_view::npos)
      hints.push_back(mention(Input::kNewText) + " is already in the file at line " +
                      std::to_string(1 + count_newlines(request.text.substr(0, at))) +
                      ": was this edit already applied?");
  }

  if (ladder.was_cut())
    hints.push_back("the block tier stopped at its work budget: " + mention(Input::kOldText) +
                    "'s first and last lines occur at too "
                    "many places to check every region between them, so it matched nothing; copy " +
                    mention(Input::kOldText) +
                    " exactly from the file, or start and end it with lines that occur once");

  // A big file's hints run on a part of it, with a File of their own: its
  // skeletons are not needed again, and closest_region's votes take their room.
  if (request.text.size() > kHintScopeBytes) file.drop_skeletons();
  const std::optional<Closest> closest =
      closest_region(request.text, file.lines(), needle,
                     mode == Mode::kExact ? nullptr : &file.slots(Norm::kTrim));

  // Would a tier that this call did not run have found it? On a big file only
  // near the closest region: a hint must not cost a pass over the whole file
  // per tier.
  std::optional<File> scope_file;
  std::optional<Ladder> scope_ladder;
  Ladder* hinting = &ladder;
  std::size_t scope_line = 0;  // lines of the file before the scope
  if (request.text.size() > kHintScopeBytes) {
    if (closest) {
      const std::size_t margin = count_newlines(old_text) + escaped_newlines(old_text) + 1;
      const auto [from, to] = around(request.text, closest->begin, closest->end, margin);
      scope_line = closest->lines.start_line - 1 -
                   count_newlines(request.text.substr(from, closest->begin - from));
      // All ASCII carries over to a part; the rest is for the part to find out.
      scope_file.emplace(request.text.substr(from, to - from),
                         request.text_ascii == true ? std::optional(true) : std::nullopt);
      scope_ladder.emplace(*scope_file, old_text, new_text, request.max_result_bytes);
      hinting = &*scope_ladder;
    } else {
      hinting = nullptr;
    }
  }
  LadderResult disabled;
  if (hinting != nullptr) {
    const bool cut_before = hinting->was_cut();
    disabled = run_ladder(*hinting,
                          [&](const TierInfo& t) { return t.id != TierId::kExact && !runs(t); });
    if (disabled.tier == nullptr && hinting->was_cut() && !cut_before)
      hints.push_back("whether a tier that matching \"" + std::string(mode_name(mode)) +
                      "\" does not run would have matched is not known: the block tier stopped at "
                      "its work budget");
  }
  if (disabled.tier != nullptr && !disabled.result.hits.empty()) {
    const TierInfo& t = *disabled.tier;
    std::string at = "line " + std::to_string(scope_line + disabled.result.hits.front().line);
    if (!mode_runs(mode, t)) {
      hints.push_back(mention(Input::kOldText) + " differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), which matching \"" + std::string(mode_name(mode)) +
                      "\" does not forgive: copy " + mention(Input::kOldText) +
                      " exactly from the file, or retry with "
                      "matching \"" +
                      std::string(mode_name(t.min_mode)) + "\"");
    } else {
      hints.push_back(mention(Input::kOldText) + " differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), but it has fewer than " + std::to_string(kMinLooseChars) +
                      " non-blank characters, too few to match loosely: copy it exactly from the "
                      "file, with some surrounding text");
    }
  }

  nlohmann::json data = nlohmann::json::object();
  std::string message = mention(Input::kOldText) + " was not found in the file";
  const auto escaped = escaped_reading(file, old_text, request.max_result_bytes);
  const bool escaped_once = escaped && escaped->regions == 1;
  if (escaped) {
    const std::string lines =
        "lines " + std::to_string(escaped->start_line) + "-" + std::to_string(escaped->end_line);
    const std::string written_out = mention(Input::kOldText) +
                                    " holds escapes written out as two characters (\\n, \\t, "
                                    "\\\" or \\'); read as the line breaks, tabs and quotes they "
                                    "stand for, it ";
    const std::string retry =
        "editd does not apply such a reading, since the text it would write is not the text that "
        "was sent: retry with " + mention(Input::kOldText) + " and " + mention(Input::kNewText) +
        " written with real line breaks, tabs and quotes (keep a backslash escape that belongs in "
        "the code, such as \\n inside a string literal, as it is)";
    if (escaped->regions == 1) {
      message += "; " + written_out + "matches " + lines + " (data.escapes): copy " +
                 mention(Input::kOldText) + " from data.escapes.text";
      data["escapes"] = {{"startLine", escaped->start_line},
                         {"endLine", escaped->end_line},
                         {"text", request.text.substr(escaped->begin, escaped->end - escaped->begin)}};
    } else {
      hints.push_back(written_out + "occurs " + std::to_string(escaped->regions) +
                      " times, the first at " + lines);
    }
    hints.push_back(retry);
  }
  if (closest) {
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
    if (!escaped_once)
      message += "; the most similar region is lines " + std::to_string(closest->lines.start_line) +
                 "-" + std::to_string(closest->lines.end_line) + " (similarity " + similarity +
                 "): copy " + mention(Input::kOldText) + " from there exactly";
    data["closest"] = closest_json(*closest);
    if (!closest->complete) hints.push_back(kClosestIncomplete);
  }
  if (!hints.empty()) {
    std::string hint;
    for (const std::string& h : hints) hint += (hint.empty() ? "" : " ") + h + ".";
    data["hint"] = hint;
  }
  return Error(ErrorKind::kNoMatch, message, std::move(data));
}

}  // namespace editd::match::detail
