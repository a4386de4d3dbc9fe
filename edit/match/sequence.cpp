#include "edit/match/sequence.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "edit/text/chars.h"

namespace editd::match {

namespace {

using chars::count_newlines;

// A composed edit: [begin, end) of the original text becomes `text`.
using Composed = splice::Edit;

// `composed` (edits of the original text, whose result is the current text)
// followed by `step` (edits of the current text): edits of the original text
// whose result is the step's. One pass over both; a step edit that meets or
// touches composed edits takes them in, keeping what they wrote outside it.
std::vector<Composed> compose(std::vector<Composed> composed, std::vector<splice::Edit> step) {
  std::vector<Composed> out;
  out.reserve(composed.size() + step.size());
  std::size_t i = 0;
  // Bytes the composed edits before i added minus those they removed: the
  // current position of an original one is it plus shift.
  std::int64_t shift = 0;
  auto cur_begin = [&](const Composed& c) {
    return static_cast<std::size_t>(static_cast<std::int64_t>(c.begin) + shift);
  };
  auto advance = [&](Composed& c) {
    shift += static_cast<std::int64_t>(c.text.size()) - static_cast<std::int64_t>(c.end - c.begin);
  };
  for (splice::Edit& e : step) {
    // The composed edits wholly before e (not touching it) stay as they are.
    while (i < composed.size() && cur_begin(composed[i]) + composed[i].text.size() < e.begin) {
      advance(composed[i]);
      out.push_back(std::move(composed[i++]));
    }
    Composed merged;
    merged.begin = static_cast<std::size_t>(static_cast<std::int64_t>(e.begin) - shift);
    bool first = true;
    std::string suffix;
    // Those it meets or touches: [cb, ce] meets [e.begin, e.end].
    while (i < composed.size() && cur_begin(composed[i]) <= e.end) {
      Composed& c = composed[i];
      const std::size_t cb = cur_begin(c), ce = cb + c.text.size();
      if (first && cb <= e.begin) {
        merged.begin = c.begin;
        merged.text.assign(c.text, 0, e.begin - cb);
      }
      first = false;
      if (ce > e.end) suffix.assign(c.text, e.end - cb);
      merged.end = c.end;
      advance(c);
      ++i;
    }
    // The end: past the last composed edit taken in, in original terms.
    const std::size_t end_orig = static_cast<std::size_t>(static_cast<std::int64_t>(e.end) - shift);
    if (suffix.empty()) merged.end = std::max(first ? end_orig : merged.end, end_orig);
    merged.text += e.text;
    merged.text += suffix;
    out.push_back(std::move(merged));
  }
  for (; i < composed.size(); ++i) out.push_back(std::move(composed[i]));
  // Edits that touch become one: [a, b) then [b, c).
  std::vector<Composed> joined;
  joined.reserve(out.size());
  for (Composed& c : out) {
    if (!joined.empty() && joined.back().end == c.begin) {
      joined.back().end = c.end;
      joined.back().text += c.text;
    } else {
      joined.push_back(std::move(c));
    }
  }
  return joined;
}

// `text` with `edits` (ascending, not overlapping) applied, into `out`
// (which must not hold `text`), its storage used again.
void apply_into(std::string_view text, const std::vector<splice::Edit>& edits, std::string& out) {
  std::size_t size = text.size();
  for (const splice::Edit& e : edits) size = size + e.text.size() - (e.end - e.begin);
  out.clear();
  out.reserve(size);
  std::size_t pos = 0;
  for (const splice::Edit& e : edits) {
    out.append(text.substr(pos, e.begin - pos));
    out.append(e.text);
    pos = e.end;
  }
  out.append(text.substr(pos));
}

// How one step moved the lines of the text it was matched against: each of
// its edits' lines there (1-based, inclusive, as Plan::lines counts them)
// and the newlines the edits before it added minus those they removed.
struct LineMap {
  std::vector<std::uint64_t> old_start, old_end;
  std::vector<std::int64_t> shift_before;
  const std::vector<LineRange>* new_lines = nullptr;

  LineMap(std::string_view text, const Plan& plan) : new_lines(&plan.lines) {
    std::uint64_t line = 1;
    std::size_t pos = 0;
    std::int64_t shift = 0;
    for (std::size_t j = 0; j < plan.edits.size(); ++j) {
      const splice::Edit& e = plan.edits[j];
      line += count_newlines(text.substr(pos, e.begin - pos));
      const std::string_view old = text.substr(e.begin, e.end - e.begin);
      const std::size_t newlines = count_newlines(old);
      old_start.push_back(line);
      old_end.push_back(line + newlines - (!old.empty() && old.back() == '\n' ? 1 : 0));
      shift_before.push_back(shift);
      shift += static_cast<std::int64_t>(count_newlines(e.text)) -
               static_cast<std::int64_t>(newlines);
      line += newlines;
      pos = e.end;
    }
    shift_before.push_back(shift);
  }

  // Where `line` of the old text is in the new: shifted by the edits before
  // it, or, inside an edit's lines, that edit's first new line (`end`: the
  // last new line of the last edit on it).
  std::uint64_t map(std::uint64_t line, bool end) const {
    std::size_t before = 0;  // edits wholly before `line`
    if (!end) {
      const auto j = static_cast<std::size_t>(
          std::lower_bound(old_end.begin(), old_end.end(), line) - old_end.begin());
      if (j < old_end.size() && old_start[j] <= line) return (*new_lines)[j].start_line;
      before = j;
    } else {
      const auto after = static_cast<std::size_t>(
          std::upper_bound(old_start.begin(), old_start.end(), line) - old_start.begin());
      if (after > 0 && old_end[after - 1] >= line) return (*new_lines)[after - 1].end_line;
      before = after;
    }
    const std::int64_t moved = static_cast<std::int64_t>(line) + shift_before[before];
    return static_cast<std::uint64_t>(std::max<std::int64_t>(moved, 1));
  }
};

}  // namespace

Error step_error(Error e, std::size_t index) {
  std::string lead = mention(Input::kEdits) + "[" + std::to_string(index) + "]: ";
  if (e.input != Input::kNone) {
    lead += mention(e.input) + " ";
    e.input = Input::kEdits;
  }
  e.message = lead + e.message;
  e.data["edit"] = index;
  return e;
}

Result<SequencePlan> plan_sequence(const SequenceRequest& request) {
  SequencePlan out;
  out.steps.reserve(request.steps.size());
  // The text the steps so far left, after the first. A step of a few edits
  // changes it in place (from the last edit back, each a move of the text
  // after it, in memory already touched); a step of many is made in `spare`,
  // so that its cost stays linear. A fresh text each step cost 0.3 ms a step
  // on a 100 KB file here, most of it faulting in new pages.
  std::string current, spare;
  std::string_view text = request.text;
  std::optional<bool> ascii = request.text_ascii;
  std::vector<Composed> composed;
  for (std::size_t k = 0; k < request.steps.size(); ++k) {
    const Step& s = request.steps[k];
    Request req{text, s.old_text, s.new_text, request.mode, s.replace_all, s.expected_replacements};
    req.max_result_bytes = request.max_result_bytes;
    req.text_ascii = ascii;
    auto plan = plan_replace(req);
    if (!plan) {
      Error e = step_error(std::move(plan.error()), k);
      if (k > 0 && (e.kind == ErrorKind::kNoMatch || e.kind == ErrorKind::kAmbiguous))
        e.message += " (" + mention(Input::kEdits) + "[" + std::to_string(k) +
                     "] was matched against the text that the edits before it left: its line "
                     "numbers are of that text)";
      return e;
    }
    out.replacements += plan->replacements;
    if (out.replacements > kMaxRegions)
      return step_error(Error(ErrorKind::kTooLarge,
                              "the edits replace more than " + std::to_string(kMaxRegions) +
                                  " regions in all, more than one call replaces: split them "
                                  "over several calls, or use write_text",
                              {{"replacements", out.replacements}, {"limit", kMaxRegions}}),
                        k);
    // The earlier steps' lines, carried to the text this step leaves.
    if (!out.steps.empty()) {
      const LineMap map(text, *plan);
      for (StepPlan& earlier : out.steps)
        for (LineRange& l : earlier.lines) {
          l.start_line = map.map(l.start_line, false);
          l.end_line = std::max(l.start_line, map.map(l.end_line, true));
        }
    }
    const bool last = k + 1 == request.steps.size();
    if (!last) {
      constexpr std::size_t kInPlaceEdits = 8;
      if (k == 0) {
        std::size_t room = 0;
        for (const Step& later : request.steps) room += later.new_text.size();
        current.reserve(text.size() + room);
        apply_into(text, plan->edits, current);
      } else if (plan->edits.size() <= kInPlaceEdits) {
        for (auto e = plan->edits.rbegin(); e != plan->edits.rend(); ++e)
          current.replace(e->begin, e->end - e->begin, e->text);
      } else {
        apply_into(text, plan->edits, spare);
        current.swap(spare);
      }
      text = current;
      if (ascii && *ascii && !chars::is_ascii(s.new_text)) ascii.reset();
    }
    composed = compose(std::move(composed), std::move(plan->edits));
    out.steps.push_back({std::move(plan->tier), plan->replacements, std::move(plan->lines)});
  }
  out.edits = std::move(composed);
  // The final text's line count: no line lies past it.
  std::size_t size = request.text.size();
  std::uint64_t newlines = count_newlines(request.text);
  std::optional<char> last_char;
  if (!request.text.empty()) last_char = request.text.back();
  for (const Composed& c : out.edits) {
    size = size + c.text.size() - (c.end - c.begin);
    newlines = newlines + count_newlines(c.text) -
               count_newlines(request.text.substr(c.begin, c.end - c.begin));
  }
  if (!out.edits.empty() && out.edits.back().end == request.text.size()) {
    const Composed& c = out.edits.back();
    if (!c.text.empty())
      last_char = c.text.back();
    else if (c.begin > 0)
      last_char = request.text[c.begin - 1];
    else
      last_char.reset();
  }
  const std::uint64_t total =
      std::max<std::uint64_t>(1, newlines + (size > 0 && last_char && *last_char != '\n' ? 1 : 0));
  std::vector<LineRange> all;
  for (StepPlan& st : out.steps)
    for (LineRange& l : st.lines) {
      l.start_line = std::min<std::uint64_t>(l.start_line, total);
      l.end_line = std::max(l.start_line, std::min<std::uint64_t>(l.end_line, total));
      all.push_back(l);
    }
  std::sort(all.begin(), all.end(), [](const LineRange& a, const LineRange& b) {
    return a.start_line < b.start_line || (a.start_line == b.start_line && a.end_line < b.end_line);
  });
  for (const LineRange& l : all) {
    if (!out.lines.empty() && l.start_line <= out.lines.back().end_line)
      out.lines.back().end_line = std::max(out.lines.back().end_line, l.end_line);
    else
      out.lines.push_back(l);
  }
  return out;
}

}  // namespace editd::match
