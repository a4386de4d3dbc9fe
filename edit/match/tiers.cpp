// How str_replace runs a tier of the ladder (tier_table.h's kTiers, which
// apply_patch's seek shares): Ladder::run, and the tiers that compare whole
// lines in their tier's line form (trailing_whitespace, indentation, unicode,
// blank_padding, blank_runs). Which tiers a call runs, and in which
// order, is run_ladder's (ladder.h), called by replace.cpp.

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "edit/match/carry.h"
#include "edit/match/ladder.h"
#include "edit/match/occurrences.h"
#include "edit/match/reindent.h"

namespace editd::match::detail {

namespace {

struct Texts {
  std::string old_text;
  std::string new_text;
};

// Drops blank lines at the start and end of oldText, and as many (at most) from
// newText; nullopt when oldText has no such padding.
std::optional<Texts> strip_padding(std::string_view old_text, std::string_view new_text) {
  Lines o = text::split_lines(old_text), n = text::split_lines(new_text);
  std::size_t lead = 0, tail = 0;
  while (lead < o.size() && is_blank(o[lead])) ++lead;
  if (lead == o.size()) return std::nullopt;
  while (is_blank(o[o.size() - 1 - tail])) ++tail;
  // A final "\n" only ends the last line; blank lines are what come after it.
  if (lead == 0 && tail == 0) return std::nullopt;
  std::size_t new_lead = 0, new_tail = 0;
  while (new_lead < lead && new_lead < n.size() && is_blank(n[new_lead])) ++new_lead;
  while (new_tail < tail && new_lead + new_tail < n.size() && is_blank(n[n.size() - 1 - new_tail]))
    ++new_tail;
  Texts t;
  t.old_text = join_lines(o, lead, o.size() - tail);
  if (tail == 0 && old_text.ends_with('\n')) t.old_text += '\n';
  t.new_text = join_lines(n, new_lead, n.size() - new_tail);
  if (new_tail == 0 && new_text.ends_with('\n') && !t.new_text.empty()) t.new_text += '\n';
  if (new_tail == 0 && tail > 0 && !t.new_text.empty() && new_text.ends_with('\n'))
    t.new_text.pop_back();  // oldText lost its final newline with its padding; so does newText
  return t;
}

}  // namespace

TierResult Ladder::run(TierId id) {
  const TierInfo& t = tier_info(id);
  switch (id) {
    case TierId::kExact: {
      TierResult r;
      static_cast<Readings&>(r) = find_readings(file_.text(), old_, new_);
      return r;
    }
    case TierId::kTrailingWhitespace:
    case TierId::kIndentation:
      return lines_tier(old_, new_, t.form, false, t.carries);
    case TierId::kUnicode:
      if (file_.ascii() && is_ascii(old_)) return {};
      return lines_tier(old_, new_, t.form, false, t.carries);
    case TierId::kBlankPadding: {
      auto p = strip_padding(old_, new_);
      if (!p) return {};
      return lines_tier(p->old_text, p->new_text, t.form, true, t.carries);
    }
    case TierId::kBlankRuns: {
      auto p = strip_padding(old_, new_).value_or(Texts{std::string(old_), std::string(new_)});
      return lines_tier(p.old_text, p.new_text, t.form, false, t.carries);
    }
    case TierId::kBlock: {
      auto p = strip_padding(old_, new_).value_or(Texts{std::string(old_), std::string(new_)});
      return block_tier(p.old_text, p.new_text);
    }
  }
  return {};
}

std::vector<std::size_t> Ladder::windows(const Lines& old_lines, Norm norm) {
  const Lines& lines = file_.lines();
  const std::size_t k = old_lines.size(), n = lines.size();
  if (k == 0 || k > n) return {};
  std::vector<std::string> want;
  for (std::string_view l : old_lines) want.push_back(normalized_copy(norm, l));
  std::string out, scratch;
  if (norm != Norm::kBlankRuns) {
    // These norms keep a line's slot: first whether the slots occur in
    // order at all, then one test per file line, most of them turned away
    // without normalising or hashing.
    std::vector<bool> wanted(kSlots, false);
    std::vector<std::uint16_t> want_slots;
    for (const std::string& w : want) {
      want_slots.push_back(slot_of(w));
      wanted[want_slots.back()] = true;
    }
    const std::vector<std::uint16_t>& slots = file_.slots(norm);
    if (!may_occur<std::uint16_t>(slots, want_slots)) return {};
    const line_window::Pattern pattern(std::move(want));
    std::vector<std::int32_t> ids(n, -1);
    for (std::size_t i = 0; i < n; ++i)
      if (wanted[slots[i]]) ids[i] = pattern.id(in_form(norm, lines[i], out, scratch));
    return occurrences::all(ids, pattern.ids());
  }
  // Collapsing blanks keeps the first and last bytes of a trimmed line: a
  // cheap test before the skeletons, which cost a pass over every byte.
  {
    std::vector<std::uint16_t> ends(n), want_ends;
    const std::vector<std::uint16_t>& slots = file_.slots(Norm::kTrim);
    for (std::size_t i = 0; i < n; ++i) ends[i] = slots[i] & kEndsOfSlot;
    for (const std::string& w : want) want_ends.push_back(slot_of(w) & kEndsOfSlot);
    if (!may_occur<std::uint16_t>(ends, want_ends)) return {};
  }
  const Skeletons skeletons(old_lines);
  const std::vector<std::uint64_t>& have = file_.skeletons();
  if (!skeletons.may_occur_in(have)) return {};
  const line_window::Pattern pattern(std::move(want));
  std::vector<std::int32_t> ids(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (skeletons.may_equal(have[i])) ids[i] = pattern.id(in_form(norm, lines[i], out, scratch));
  return occurrences::all(ids, pattern.ids());
}

Hit Ladder::replace_window(std::size_t start, const Lines& o, const Lines& n,
                           const std::vector<diff::Block>& blocks, bool old_nl, bool new_nl,
                           bool carry, bool folded_blanks) {
  const Lines& lines = file_.lines();
  const std::size_t k = o.size();
  Lines f(lines.begin() + static_cast<std::ptrdiff_t>(start),
          lines.begin() + static_cast<std::ptrdiff_t>(start + k));
  Hit hit;
  hit.begin = file_.offset(start);
  hit.end = file_.line_end(start + k - 1);
  hit.line = start + 1;
  auto added = reindent(Window{lines, start, o, folded_blanks}, n, blocks);
  if (!added) {
    hit.refusal = std::make_shared<const Error>(std::move(added.error()));
    return hit;
  }
  std::string out;
  bool first = true;
  auto emit = [&](std::string_view line) {
    if (!first) out += '\n';
    out += line;
    first = false;
  };
  std::size_t a = 0, next = 0;
  for (const diff::Block& b : blocks) {
    while (a < b.a_begin) emit(f[a++]);
    std::vector<std::string> written;
    for (std::size_t j = b.b_begin; j < b.b_end; ++j) written.push_back((*added)[next++]);
    if (carry) {
      auto block_of = [&b](const Lines& l) {  // the lines the block replaces
        return Lines(l.begin() + static_cast<std::ptrdiff_t>(b.a_begin),
                     l.begin() + static_cast<std::ptrdiff_t>(b.a_end));
      };
      written = carry::carry_lines(block_of(f), block_of(o), written);
    }
    for (const std::string& line : written) emit(line);
    a = b.a_end;
  }
  while (a < k) emit(f[a++]);

  if (old_nl && !new_nl && hit.end < file_.text().size()) ++hit.end;  // the newline goes too
  if (!old_nl && new_nl) out += '\n';
  hit.replacement = std::make_shared<const std::string>(std::move(out));
  return hit;
}

TierResult Ladder::lines_tier(std::string_view old_text, std::string_view new_text, Norm norm,
                              bool also_exact, bool carry) {
  TierResult r;
  Lines o = text::split_lines(old_text), n = text::split_lines(new_text);
  if (std::all_of(o.begin(), o.end(), [](std::string_view l) { return is_blank(l); })) return r;
  std::vector<std::size_t> starts = windows(o, norm);
  r.overlapping = occurrences::any_overlap(starts, o.size());
  if (starts.size() > kMaxRegions + 1) starts.resize(kMaxRegions + 1);  // decide() refuses
  if (r.overlapping) {
    for (std::size_t s : starts)
      r.hits.push_back(
          {file_.offset(s), file_.line_end(s + o.size() - 1), nullptr, s + 1, nullptr});
  } else if (starts.size() > 1 && starts.size() > max_result_bytes_ / (new_text.size() + 1)) {
    // Each window gets a replacement of its own (reindented): so many of
    // them would pass the limit, so none is built.
    auto refusal =
        std::make_shared<const Error>(too_large_result(starts.size(), max_result_bytes_));
    for (std::size_t s : starts) {
      Hit h{file_.offset(s), file_.line_end(s + o.size() - 1), nullptr, s + 1, refusal};
      r.hits.push_back(std::move(h));
    }
  } else if (!starts.empty()) {
    auto blocks = diff::diff_lines(o, n);
    for (std::size_t s : starts)
      r.hits.push_back(replace_window(s, o, n, blocks, old_text.ends_with('\n'),
                                      new_text.ends_with('\n'), carry, norm == Norm::kFolded));
  }
  if (also_exact && file_.may_hold(old_text))
    merge_verbatim(r, find_readings(file_.text(), old_text, new_text));
  return r;
}

void Ladder::merge_verbatim(TierResult& r, Readings verbatim) {
  std::vector<Hit> all = std::move(verbatim.hits);
  all.insert(all.end(), std::make_move_iterator(r.hits.begin()),
             std::make_move_iterator(r.hits.end()));
  std::stable_sort(all.begin(), all.end(),
                   [](const Hit& x, const Hit& y) { return x.begin < y.begin; });
  r.overlapping = r.overlapping || verbatim.overlapping;
  r.hits.clear();
  for (Hit& h : all) {
    if (!r.hits.empty() && h.begin < r.hits.back().end) {
      if (h.line == r.hits.back().line) continue;
      r.overlapping = true;
    }
    r.hits.push_back(std::move(h));
  }
}

}  // namespace editd::match::detail
