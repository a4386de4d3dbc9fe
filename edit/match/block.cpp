// The fuzzy tier of the matching ladder, block: a region whose first and last
// lines match and whose lines between are similar.

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "edit/match/ladder.h"
#include "edit/match/similarity.h"

namespace editd::match::detail {

std::optional<bool> Ladder::similar_line(std::string_view a, std::string_view b,
                                         std::size_t& spent) {
  spent += 1 + a.size() + b.size();
  if (spent > kBlockBudget) return std::nullopt;
  if (a == b) return true;
  const std::size_t longer = std::max(a.size(), b.size());
  if (longer > kBlockMaxFuzzyLineBytes) return false;
  const auto allowed =
      static_cast<std::size_t>((1.0 - kBlockLineSimilarity) * static_cast<double>(longer));
  spent += similarity::levenshtein_cells(a.size(), b.size(), allowed + 1);
  if (spent > kBlockBudget) return std::nullopt;
  return similarity::at_least(a, b, kBlockLineSimilarity);
}

TierResult Ladder::block_tier(std::string_view old_text, std::string_view new_text) {
  TierResult r;
  r.single_only = true;
  Lines o = text::split_lines(old_text), n = text::split_lines(new_text);
  const std::size_t k = o.size();
  if (k < kBlockMinLines || is_blank(o.front()) || is_blank(o.back())) return r;
  const Lines& lines = file_.lines();
  if (k > lines.size()) return r;
  std::vector<std::string> want;
  for (std::string_view l : o) want.push_back(normalized_copy(Norm::kBlankRuns, l));
  std::string buffer, scratch_skeleton;
  const std::uint64_t first = skeleton_of(o.front(), buffer, scratch_skeleton);
  const std::uint64_t last = skeleton_of(o.back(), buffer, scratch_skeleton);
  // Equal skeletons need equal first and last bytes (kEndsOfSlot): most
  // lines are turned away before their skeleton is computed.
  const std::vector<std::uint16_t>& slots = file_.slots(Norm::kTrim);
  const std::uint16_t first_ends = slot_of(want.front()) & kEndsOfSlot;
  const std::uint16_t last_ends = slot_of(want.back()) & kEndsOfSlot;
  std::string out, scratch;
  std::vector<std::size_t> starts;
  std::size_t spent = 0;
  std::size_t rejected_by = 0;  // a middle line, or 0
  for (std::size_t i = 0; i + k <= lines.size(); ++i) {
    if ((slots[i] & kEndsOfSlot) != first_ends || (slots[i + k - 1] & kEndsOfSlot) != last_ends)
      continue;
    // A line as oldText has it has its skeleton: no need to compute it.
    if ((lines[i] != o.front() && file_.skeleton(i) != first) ||
        (lines[i + k - 1] != o.back() && file_.skeleton(i + k - 1) != last))
      continue;
    // A line as oldText has it needs no normalising (repeated lines are
    // the case the budget is for).
    auto verbatim = [&](std::size_t j) {
      spent += 1 + o[j].size();
      return lines[i + j] == o[j];
    };
    bool ok = true;
    for (std::size_t j : {std::size_t{0}, k - 1}) {
      if (verbatim(j)) continue;
      std::string_view line = in_form(Norm::kBlankRuns, lines[i + j], out, scratch);
      spent += line.size() + want[j].size();
      ok = ok && line == want[j];
    }
    if (spent > kBlockBudget) return cut(r);
    // The line that turned the last window away goes first: in repetitive
    // code, windows that share their first and last lines tend to differ
    // from oldText at the same line, and most are then turned away by one
    // comparison instead of one per line up to it.
    auto middle = [&](std::size_t j) -> bool {
      if (verbatim(j)) return true;
      auto similar =
          similar_line(in_form(Norm::kBlankRuns, lines[i + j], out, scratch), want[j], spent);
      if (!similar) return false;  // the budget is spent
      ok = *similar;
      if (!ok) rejected_by = j;
      return true;
    };
    if (ok && rejected_by != 0 && !middle(rejected_by)) return cut(r);
    for (std::size_t j = 1; ok && j + 1 < k; ++j)
      if (j != rejected_by && !middle(j)) return cut(r);
    if (spent > kBlockBudget) return cut(r);
    if (ok) starts.push_back(i);
  }
  if (starts.size() != 1) {
    if (starts.size() > kMaxRegions + 1) starts.resize(kMaxRegions + 1);  // decide() refuses
    for (std::size_t s : starts)
      r.hits.push_back({file_.offset(s), file_.line_end(s + k - 1), nullptr, s + 1, nullptr});
    return r;
  }
  const std::size_t s = starts.front();
  auto blocks = diff::diff_lines(o, n);
  for (const diff::Block& b : blocks) {
    for (std::size_t j = b.a_begin; j < b.a_end; ++j) {
      if (in_form(Norm::kBlankRuns, lines[s + j], out, scratch) == want[j]) continue;
      std::string line_no = std::to_string(s + j + 1);
      nlohmann::json data;
      Lines window(lines.begin() + static_cast<std::ptrdiff_t>(s),
                   lines.begin() + static_cast<std::ptrdiff_t>(s + k));
      Closest c{{s + 1, s + k},
                join_lines(lines, s, s + k),
                round_down(similarity::lines_ratio(window, o))};
      data["closest"] = closest_json(c);
      data["hint"] = mention(Input::kOldText) + " resembles lines " + std::to_string(s + 1) + "-" +
                     std::to_string(s + k) + ", but line " + line_no +
                     ", which the edit changes, differs from the file: copy that line exactly "
                     "from the file (read it again) and retry";
      data["tier"] = "block";
      r.refusal =
          Error(ErrorKind::kNoMatch,
                mention(Input::kOldText) + " was not found in the file: it resembles lines " +
                    std::to_string(s + 1) + "-" + std::to_string(s + k) + ", but line " + line_no +
                    ", which the edit changes, differs there",
                std::move(data));
      return r;
    }
  }
  r.hits.push_back(replace_window(s, o, n, blocks, old_text.ends_with('\n'),
                                  new_text.ends_with('\n'), false, false));
  return r;
}

TierResult Ladder::cut(TierResult& r) {
  cut_ = true;
  r.hits.clear();
  return std::move(r);
}

}  // namespace editd::match::detail
