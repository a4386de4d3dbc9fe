// str_replace's edits[]: several replacements of one file, applied in order,
// each to the text the previous ones left, composed into one plan on the
// file's text, so that the caller makes one change of them (one diff, one
// write, one undo) or none.
//
// Each step is plan_replace (replace.h) on the text the steps before it
// made; its edits are composed with theirs into edits of the original text
// (each byte the steps did not touch stays a byte of the original, so the
// splices keep its stored bytes, CRLFs and all), and the lines each step's
// replacements occupy are carried through the later steps to the final text.
// Pure, like all of edit/.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/splice.h"
#include "edit/error.h"
#include "edit/match/replace.h"

namespace editd::match {

// The most steps one call takes, and the most bytes of oldText and newText
// they may carry in all (the request's own bound, before any is matched).
inline constexpr std::size_t kMaxEdits = 1000;
inline constexpr std::size_t kMaxEditsBytes = std::size_t{16} << 20;

// One step: oldText and newText as sent (CRLF already folded to LF).
struct Step {
  std::string_view old_text;
  std::string_view new_text;
  bool replace_all = false;
  std::optional<std::size_t> expected_replacements;
};

struct SequenceRequest {
  std::string_view text;  // the file, LF-normalized, no BOM
  std::vector<Step> steps;
  Mode mode = Mode::kStandard;
  // As Request's, of every step's text (the intermediate ones included).
  std::size_t max_result_bytes = std::numeric_limits<std::size_t>::max();
  std::optional<bool> text_ascii{};
};

// What one step did, its lines in the final text.
struct StepPlan {
  std::string tier;
  std::size_t replacements = 0;
  std::vector<LineRange> lines;
};

struct SequencePlan {
  // On the request's text: ascending, not overlapping, not touching.
  std::vector<splice::Edit> edits;
  std::vector<StepPlan> steps;      // one per request step, in order
  std::size_t replacements = 0;     // of every step
  std::vector<LineRange> lines;     // every step's, ascending, those that overlap joined
};

// Errors: the first step's that fails, as plan_replace gives it (no_match
// with its closest region in the text that step was matched against,
// ambiguous with its candidates, no_change, ...) with its message led by
// "edits[i]: " and data.edit = i (0-based); an invalid_params about one
// step's input (an oldText that is only a copied BOM) is about
// Input::kEdits. too_large when the steps replace more than kMaxRegions
// regions in all.
Result<SequencePlan> plan_sequence(const SequenceRequest& request);

// The error `e` of step `index` as plan_sequence reports it (for a caller
// that refuses a step before planning).
Error step_error(Error e, std::size_t index);

}  // namespace editd::match
