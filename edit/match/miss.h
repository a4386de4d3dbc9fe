// What str_replace says when no tier it runs finds oldText: the no_match
// error, with the region of the file most similar to oldText
// (explain/closest.h) and hints that tell a model how to fix its call in one
// retry (a tier its mode does not run, or that oldText is too short for, would
// have matched; newText is already there; a budget ran out). Apart from the
// ladder (ladder.h), which only finds. Internal to replace.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "edit/error.h"
#include "edit/match/ladder.h"

namespace editd::match::detail {

// Which tiers of the ladder a call runs: those its mode admits, and the loose
// ones only for an oldText with enough non-blank characters.
struct Runs {
  Mode mode;
  bool short_old;  // Ladder::is_short()
  bool operator()(const TierInfo& t) const { return mode_runs(mode, t) && !(t.loose && short_old); }
};

// The hints of a no_match, in the order data.hint gives them.
using Hints = std::vector<std::string>;

// no_match for `old_text` in request.text after `ladder` (over `file`) ran the
// tiers that `runs` admits and found nothing: `needle` is oldText as the
// closest region is looked for (without the line numbers a view copied), and
// `hints` the notes found before (on line numbers). data {closest?, hint?}.
Error no_match(const Request& request, File& file, Ladder& ladder, std::string_view old_text,
               std::string_view new_text, std::string_view needle, const Runs& runs, Hints hints);

}  // namespace editd::match::detail
