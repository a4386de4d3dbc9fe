// Fuzz target 3: str_replace's matcher (match::plan_replace) over a small file.
//
// The first byte picks the mode (exact, standard, fuzzy), replaceAll and
// expectedReplacements; the rest is the file, oldText and newText separated by
// 0x01 bytes, prepared as str_replace prepares them (the file decoded and
// normalized, newText refused unless it is text). Invariants:
// - errors are only invalid_params, no_change, no_match or ambiguous;
// - a plan's edits are ascending, disjoint and inside the text, one per
//   replacement, with one line range per replacement inside the new text;
// - applied, the plan puts each replacement at its reported lines, and the
//   exact tier's replacement is newText;
// - one call stays within the time budget (the matcher has no step counter).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "edit/match/carry.h"
#include "edit/match/replace.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace editd;

// Lines [first, last] (1-based) of `text`, joined with "\n".
std::string lines_of(std::string_view text, std::size_t first, std::size_t last) {
  std::vector<std::string_view> lines = text::split_lines(text);
  std::string out;
  for (std::size_t i = first; i <= last && i <= lines.size(); ++i) {
    if (i > first) out.push_back('\n');
    out.append(lines[i - 1]);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto parts = editd::fuzz::split(input, '\x01', 3);
  if (parts.size() < 3) return 0;

  auto doc = text::Document::decode(parts[0]);
  if (!doc) return 0;
  if (!text::check_text(parts[2], "newText")) return 0;
  const text::Normalized norm(*doc);
  const std::string old_text = text::normalize_eol(parts[1]);
  const std::string new_text = text::normalize_eol(parts[2]);

  match::Request request;
  request.text = norm.view();
  request.old_text = old_text;
  request.new_text = new_text;
  request.mode = static_cast<match::Mode>(flags % 3);
  request.replace_all = flags & 4;
  if (std::size_t expected = (flags >> 3) & 3) request.expected_replacements = expected;

  editd::fuzz::Budget budget("plan_replace");
  auto plan = match::plan_replace(request);
  budget.check(size);
  if (!plan) {
    const ErrorKind k = plan.error().kind;
    FUZZ_CHECK(k == ErrorKind::kInvalidParams || k == ErrorKind::kNoChange ||
                   k == ErrorKind::kNoMatch || k == ErrorKind::kAmbiguous,
               plan.error().message);
    return 0;
  }
  const std::string_view text = norm.view();
  FUZZ_CHECK(!plan->tier.empty(), "a plan names its tier");
  FUZZ_CHECK(plan->edits.size() == plan->replacements, plan->tier);
  FUZZ_CHECK(plan->lines.size() == plan->replacements, plan->tier);
  FUZZ_CHECK(plan->replacements >= 1, plan->tier);
  if (!request.replace_all && !request.expected_replacements)
    FUZZ_CHECK(plan->replacements == 1, plan->tier);
  if (request.expected_replacements)
    FUZZ_CHECK(plan->replacements == *request.expected_replacements, plan->tier);
  for (std::size_t i = 0; i < plan->edits.size(); ++i) {
    const splice::Edit& e = plan->edits[i];
    FUZZ_CHECK(e.begin <= e.end && e.end <= text.size(), plan->tier);
    if (i > 0) FUZZ_CHECK(plan->edits[i - 1].end <= e.begin, plan->tier);
  }

  const std::string result = splice::apply_edits(text, plan->edits);
  const std::size_t total = std::max<std::size_t>(1, text::count_lines(result));
  for (std::size_t i = 0; i < plan->lines.size(); ++i) {
    const match::LineRange& l = plan->lines[i];
    FUZZ_CHECK(l.start_line >= 1 && l.start_line <= l.end_line && l.end_line <= total,
               "line range " + std::to_string(l.start_line) + "-" + std::to_string(l.end_line) +
                   " of " + std::to_string(total) + " lines");
    // Every tier: the replacement text lies at the reported lines; the exact
    // tier's replacement is newText itself, less any U+FEFF that stands for
    // none of oldText's (docs/protocol.md: a copied BOM never reaches the body).
    if (plan->tier == "exact") {
      if (new_text.find(text::kBom) == std::string_view::npos)
        FUZZ_CHECK(plan->edits[i].text == new_text, "exact replacement");
      else
        FUZZ_CHECK(carry::without_feff(plan->edits[i].text) == carry::without_feff(new_text),
                   "exact replacement, but for U+FEFF");
    }
    std::string_view wanted = plan->edits[i].text;
    if (wanted.ends_with('\n')) wanted.remove_suffix(1);
    const std::string region = lines_of(result, l.start_line, l.end_line);
    FUZZ_CHECK(region.find(wanted) != std::string::npos,
               "tier " + plan->tier + ": the replacement " + editd::fuzz::shown(wanted) +
                   " is not at lines " + std::to_string(l.start_line) + "-" +
                   std::to_string(l.end_line) + ": " + editd::fuzz::shown(region));
  }
  return 0;
}
