#include "edit/match/miss.h"

#include <cstdio>
#include <optional>
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
  if (closest) {
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
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
