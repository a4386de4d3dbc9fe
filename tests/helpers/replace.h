// Test support: str_replace's planner as the method runs it (standard matching,
// one occurrence), and the file its plan makes.
#pragma once

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include "edit/change/splice.h"
#include "edit/match/replace.h"

namespace editd::test {

inline Result<match::Plan> standard_plan(std::string_view text, std::string_view old_text,
                                         std::string_view new_text) {
  return match::plan_replace(match::Request{text, old_text, new_text, match::Mode::kStandard,
                                            false, std::nullopt});
}

// The file after the edit, when the planner found it by `tier` (or by any tier
// but `tier`, when `not_tier`); a refusal fails the test and gives "".
inline std::string edited_by(std::string_view text, std::string_view old_text,
                             std::string_view new_text, std::string_view tier,
                             bool not_tier = false) {
  auto p = standard_plan(text, old_text, new_text);
  if (!p) {
    FAIL_CHECK("refused: " << p.error().message);
    return "";
  }
  if (not_tier)
    CHECK(p->tier != tier);
  else
    CHECK(p->tier == tier);
  return splice::apply_edits(text, p->edits);
}

}  // namespace editd::test
