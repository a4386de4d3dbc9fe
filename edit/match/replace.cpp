#include "edit/match/replace.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "edit/match/carry.h"
#include "edit/match/ladder.h"
#include "edit/match/miss.h"
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
using detail::decide;
using detail::File;
using detail::Hints;
using detail::Hit;
using detail::Ladder;
using detail::LadderResult;
using detail::Lines;
using detail::Norm;
using detail::no_match;
using detail::run_ladder;
using detail::Runs;

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

// What a ladder that found something makes of it: its refusal, or the plan
// (decide, plan.cpp) under the name `tier`.
Result<Plan> found_plan(const Request& request, LadderResult& found, std::string_view tier) {
  if (found.result.refusal) return *found.result.refusal;
  return decide(request.text, found, request, tier);
}

// oldText whose every line carries a line-number prefix, as copied from a
// numbered view (line_numbers.h): outside exact mode the ladder runs again on
// oldText and newText without the numbers, past the exact tier (a view copies
// whole lines, which exact, matching inside a line, does not ensure), and a
// hit must span whole lines; its plan's tier is "line_numbers". nullopt when
// that finds nothing or does not apply; then `hints` tell why, and `stripped`
// holds oldText without the numbers when they were taken off.
std::optional<Result<Plan>> match_without_numbers(const Request& request, File& file,
                                                  std::string_view old_text,
                                                  std::string_view new_text, Hints& hints,
                                                  std::optional<std::string>& stripped) {
  const std::optional<View> view = numbered_view(old_text);
  if (view && request.mode != Mode::kExact) {
    const std::string& needle = stripped.emplace(strip_numbers(old_text));
    const NewTextNumbers new_numbers = new_text_numbers(new_text, *view);
    if (new_numbers == NewTextNumbers::kRefuse) {
      hints.push_back(mention(Input::kOldText) +
                      " carries line-number prefixes (\"12:\", \"12\\t\" or \"12\u2192\") on every "
                      "line, but " +
                      mention(Input::kNewText) +
                      " carries them only on some lines, or numbered from another line: send "
                      "both without line numbers");
      return std::nullopt;
    }
    const std::string stripped_new =
        new_numbers == NewTextNumbers::kStrip ? strip_numbers(new_text) : std::string(new_text);
    if (needle != stripped_new) {
      Ladder unnumbered(file, needle, stripped_new, request.max_result_bytes);
      const Runs runs{request.mode, unnumbered.is_short()};
      LadderResult again = run_ladder(
          unnumbered, [&](const TierInfo& t) { return t.id != TierId::kExact && runs(t); });
      if (again.tier != nullptr && again.result.refusal) return *again.result.refusal;
      if (again.tier != nullptr && whole_lines(request.text, again.result.hits))
        return found_plan(request, again, "line_numbers");
    }
    hints.push_back(mention(Input::kOldText) +
                    " carries line-number prefixes (\"12:\", \"12\\t\" or \"12\u2192\") on every "
                    "line; without them it was not found either");
  } else if (view) {
    hints.push_back(
        "every line of " + mention(Input::kOldText) +
        " starts with a line number (\"12:\", \"12\\t\" or \"12\u2192\"), "
        "as copied from a numbered view; the file does not contain those numbers: send " +
        mention(Input::kOldText) + " and " + mention(Input::kNewText) + " without them");
  } else if (some_line_numbered(old_text) && non_blank_chars(old_text) > 0) {
    Lines l = text::split_lines(old_text);
    if (l.size() > 1)
      hints.push_back("some lines of " + mention(Input::kOldText) +
                      " start with a line number (\"12:\", \"12\\t\" or \"12\u2192\"): "
                      "if they were copied from a numbered view, send " +
                      mention(Input::kOldText) + " without them");
  }
  return std::nullopt;
}

}  // namespace

Result<Plan> plan_replace(const Request& request) {
  const std::string_view old_text = without_copied_bom(request.text, request.old_text);
  const std::string new_text = carry::keep_matched_feff(old_text, request.new_text);
  if (old_text.empty())
    return invalid_input(Input::kOldText,
                         "must not be empty (to insert text, use insert or write_text)");
  if (old_text == new_text)
    return Error(ErrorKind::kNoChange, mention(Input::kOldText) + " and " +
                                           mention(Input::kNewText) +
                                           " are the same: nothing would change");

  File file(request.text, request.text_ascii);
  Ladder ladder(file, old_text, new_text, request.max_result_bytes);
  const Runs runs{request.mode, ladder.is_short()};
  LadderResult found = run_ladder(ladder, runs);
  if (found.tier != nullptr) return found_plan(request, found, found.tier->name);

  Hints hints;
  std::optional<std::string> stripped;  // oldText without line numbers
  if (auto plan = match_without_numbers(request, file, old_text, new_text, hints, stripped))
    return std::move(*plan);
  const std::string_view needle = stripped ? std::string_view(*stripped) : old_text;
  return no_match(request, file, ladder, old_text, new_text, needle, runs, std::move(hints));
}

}  // namespace editd::match
