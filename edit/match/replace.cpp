#include "edit/match/replace.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "edit/match/carry.h"
#include "edit/match/ladder.h"
#include "edit/match/occurrences.h"
#include "edit/text/chars.h"
#include "edit/text/line_numbers.h"
#include "edit/text/text.h"

namespace editd::match {

std::optional<Mode> parse_mode(std::string_view s) {
  if (s == "exact") return Mode::kExact;
  if (s == "standard") return Mode::kStandard;
  if (s == "fuzzy") return Mode::kFuzzy;
  return std::nullopt;
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::kExact:
      return "exact";
    case Mode::kStandard:
      return "standard";
    case Mode::kFuzzy:
      return "fuzzy";
  }
  return "standard";
}

namespace {

using chars::count_newlines;
using chars::non_blank_chars;
using chars::trim;
using detail::closest_json;
using detail::decide;
using detail::File;
using detail::Hit;
using detail::Ladder;
using detail::LadderResult;
using detail::Lines;
using detail::Norm;
using detail::run_ladder;
using detail::TierId;
using detail::TierInfo;

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

// Whether every hit starts at the start of a line and ends at the end of one.
bool whole_lines(std::string_view text, const std::vector<Hit>& hits) {
  return std::all_of(hits.begin(), hits.end(), [&](const Hit& h) {
    return (h.begin == 0 || text[h.begin - 1] == '\n') &&
           (h.end == text.size() || text[h.end] == '\n' || text[h.end - 1] == '\n');
  });
}

// oldText without the U+FEFF that starts it, unless the file holds it there
// verbatim: a BOM copied from a view that shows it (the body never starts with
// the file's BOM, see text/text.h).
std::string_view without_copied_bom(std::string_view text, std::string_view old_text) {
  if (!old_text.starts_with(text::kBom)) return old_text;
  if (occurrences::find(text, old_text) != std::string_view::npos) return old_text;
  while (old_text.starts_with(text::kBom)) old_text.remove_prefix(text::kBom.size());
  return old_text;
}

}  // namespace

Result<Plan> plan_replace(const Request& request) {
  const std::string_view old_text = without_copied_bom(request.text, request.old_text);
  const std::string new_text = carry::keep_matched_feff(old_text, request.new_text);
  if (old_text.empty())
    return invalid_input(Input::kOldText,
                         "must not be empty (to insert text, use insert or write_text)");
  if (old_text == new_text)
    return Error(ErrorKind::kNoChange, "oldText and newText are the same: nothing would change");

  File file(request.text, request.text_ascii);
  const Mode mode = request.mode;
  Ladder ladder(file, old_text, new_text, request.max_result_bytes);
  auto enabled = [&](const TierInfo& t) {
    return mode_runs(mode, t) && !(t.loose && ladder.is_short());
  };
  LadderResult found = run_ladder(ladder, enabled);
  if (found.tier != nullptr && found.result.refusal) return *found.result.refusal;
  if (found.tier != nullptr) return decide(request.text, found, request, found.tier->name);

  std::vector<std::string> hints;
  const std::optional<View> view = numbered_view(old_text);
  std::string_view needle = old_text;
  std::string stripped_old;
  if (view && mode != Mode::kExact) {
    stripped_old = strip_numbers(old_text);
    needle = stripped_old;
    const NewTextNumbers new_numbers = new_text_numbers(new_text, *view);
    if (new_numbers == NewTextNumbers::kRefuse) {
      hints.push_back(
          "oldText carries line-number prefixes (\"12:\", \"12\\t\" or \"12\u2192\") on every "
          "line, but newText carries them only on some lines, or numbered from another line: send "
          "both without line numbers");
    } else {
      std::string stripped_new =
          new_numbers == NewTextNumbers::kStrip ? strip_numbers(new_text) : std::string(new_text);
      if (stripped_old != stripped_new) {
        // A view copies whole lines: the exact tier, which matches inside a
        // line, does not run, and a hit must span whole lines.
        Ladder unnumbered(file, stripped_old, stripped_new, request.max_result_bytes);
        LadderResult again = run_ladder(unnumbered, [&](const TierInfo& t) {
          return t.id != TierId::kExact && mode_runs(mode, t) &&
                 !(t.loose && unnumbered.is_short());
        });
        if (again.tier != nullptr && again.result.refusal) return *again.result.refusal;
        if (again.tier != nullptr && whole_lines(request.text, again.result.hits))
          return decide(request.text, again, request, "line_numbers");
      }
      hints.push_back(
          "oldText carries line-number prefixes (\"12:\", \"12\\t\" or \"12\u2192\") on every "
          "line; without them it was not found either");
    }
  } else if (view) {
    hints.push_back(
        "every line of oldText starts with a line number (\"12:\", \"12\\t\" or \"12\u2192\"), "
        "as copied from a numbered view; the file does not contain those numbers: send oldText "
        "and newText without them");
  } else if (some_line_numbered(old_text) && non_blank_chars(old_text) > 0) {
    Lines l = text::split_lines(old_text);
    if (l.size() > 1)
      hints.push_back(
          "some lines of oldText start with a line number (\"12:\", \"12\\t\" or \"12\u2192\"): "
          "if they were copied from a numbered view, send oldText without them");
  }

  // In exact mode the line slots that rule newText out cheaply are not at hand.
  if (!trim(new_text).empty() && (mode == Mode::kExact || file.may_hold(new_text))) {
    // The first occurrence only: a short newText may occur on every line.
    if (const std::size_t at = occurrences::find(request.text, new_text, 0);
        at != std::string_view::npos)
      hints.push_back("newText is already in the file at line " +
                      std::to_string(1 + count_newlines(request.text.substr(0, at))) +
                      ": was this edit already applied?");
  }

  if (ladder.was_cut())
    hints.push_back(
        "the block tier stopped at its work budget: oldText's first and last lines occur at too "
        "many places to check every region between them, so it matched nothing; copy oldText "
        "exactly from the file, or start and end it with lines that occur once");

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
                          [&](const TierInfo& t) { return t.id != TierId::kExact && !enabled(t); });
    if (disabled.tier == nullptr && hinting->was_cut() && !cut_before)
      hints.push_back("whether a tier that matching \"" + std::string(mode_name(mode)) +
                      "\" does not run would have matched is not known: the block tier stopped at "
                      "its work budget");
  }
  if (disabled.tier != nullptr && !disabled.result.hits.empty()) {
    const TierInfo& t = *disabled.tier;
    std::string at = "line " + std::to_string(scope_line + disabled.result.hits.front().line);
    if (!mode_runs(mode, t)) {
      hints.push_back("oldText differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), which matching \"" + std::string(mode_name(mode)) +
                      "\" does not forgive: copy oldText exactly from the file, or retry with "
                      "matching \"" +
                      std::string(mode_name(t.min_mode)) + "\"");
    } else {
      hints.push_back("oldText differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), but it has fewer than " + std::to_string(kMinLooseChars) +
                      " non-blank characters, too few to match loosely: copy it exactly from the "
                      "file, with some surrounding text");
    }
  }

  nlohmann::json data = nlohmann::json::object();
  std::string message = "oldText was not found in the file";
  if (closest) {
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
    message += "; the most similar region is lines " + std::to_string(closest->lines.start_line) +
               "-" + std::to_string(closest->lines.end_line) + " (similarity " + similarity +
               "): copy oldText from there exactly";
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

}  // namespace editd::match
