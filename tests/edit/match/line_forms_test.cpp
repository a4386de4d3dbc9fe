#include "edit/match/line_forms.h"

#include <doctest/doctest.h>

#include <string>

#include "edit/match/tier_table.h"
#include "edit/text/chars.h"

using namespace editd;
using match::in_form;
using match::LineForm;

namespace {

std::string form(LineForm f, std::string_view line) {
  std::string out, scratch;
  return std::string(in_form(f, line, out, scratch));
}

}  // namespace

TEST_CASE("each line form forgives what its name says, and no more") {
  const std::string line = " \t\u201Cq\u201D  \u2013\tx \t";
  CHECK(form(LineForm::kVerbatim, line) == line);
  CHECK(form(LineForm::kTrimEnd, line) == " \t\u201Cq\u201D  \u2013\tx");
  CHECK(form(LineForm::kTrim, line) == "\u201Cq\u201D  \u2013\tx");
  CHECK(form(LineForm::kFolded, line) == "\"q\"  -\tx");
  CHECK(form(LineForm::kBlankRuns, line) == "\u201Cq\u201D \u2013 x");
}

TEST_CASE("only the folded form is loose") {
  CHECK(match::is_loose(LineForm::kFolded));
  for (LineForm f :
       {LineForm::kVerbatim, LineForm::kTrimEnd, LineForm::kTrim, LineForm::kBlankRuns})
    CHECK_FALSE(match::is_loose(f));
}

TEST_CASE("the tiers apply_patch shares compare in these forms, folding as chars::fold does") {
  using match::tier_info;
  using match::TierId;
  CHECK(tier_info(TierId::kExact).form == LineForm::kVerbatim);
  CHECK(tier_info(TierId::kTrailingWhitespace).form == LineForm::kTrimEnd);
  CHECK(tier_info(TierId::kIndentation).form == LineForm::kTrim);
  CHECK(tier_info(TierId::kUnicode).form == LineForm::kFolded);
  for (std::string_view l : {"", "  a  ", "\u00A0\u201Cq\u201D \u2013 \u2019s ", "\u200Bx\u3000"})
    CHECK(form(LineForm::kFolded, l) == chars::fold(l));
}
