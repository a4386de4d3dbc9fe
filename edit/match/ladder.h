// Internals of str_replace's matching engine (replace.h), shared by the files
// it is split into, one concern a file. The tiers themselves, in order, are
// not here: they are THE ladder of tier_table.h (kTiers), which apply_patch's
// seek runs too; this header is how str_replace runs them.
// - prefilter.cpp: the file as the tiers see it (its lines, split
//   lazily), each line's normal forms and the keys (slots, skeletons) that
//   turn most lines away before any is compared;
// - exact.cpp: the exact tier, verbatim occurrences;
// - tiers.cpp: Ladder::run, which runs one tier of kTiers, and the tiers that
//   compare whole lines under a line form (trailing_whitespace to blank_runs);
// - block.cpp: the fuzzy tier, block;
// - plan.cpp: what a tier's hits become: a plan, or an ambiguity;
// - replace.cpp: plan_replace, which runs the ladder and, on a miss, the hints
//   (miss.h, apart from the ladder).
// Not part of the public API.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <nlohmann/json.hpp>

#include "edit/change/diff.h"
#include "edit/error.h"
#include "edit/explain/closest.h"
#include "edit/match/line_forms.h"
#include "edit/match/replace.h"
#include "edit/match/tier_table.h"
#include "edit/text/chars.h"
#include "edit/text/line_window.h"
#include "edit/text/text.h"

namespace editd::match::detail {

using Lines = std::vector<std::string_view>;

// ---------------------------------------------------------------------------
// Characters and lines (character classes and folding: text/chars.h).

using chars::count_newlines;
using chars::fold_unicode;
using chars::is_ascii;
using chars::is_blank;
using chars::is_blank_char;
using chars::leading_ws;
using chars::non_blank_chars;
using chars::rtrim;
using chars::trim;

inline std::uint64_t hash_of(std::string_view s) { return line_window::hash(s); }

using text::join_lines;

// How each line tier compares one line of the file with one line of oldText:
// in the form its entry of kTiers names (line_forms.h), the form apply_patch's
// seek compares in when it runs that tier.
using Norm = LineForm;

std::string normalized_copy(Norm norm, std::string_view line);

// The hash of `line` without any blank, folded first (chars::fold_unicode)
// when it is not ASCII. Lines equal under any Norm have equal skeletons, so a
// file line whose skeleton no oldText line has is never normalised.
std::uint64_t skeleton_of(std::string_view line, std::string& buffer, std::string& scratch);

// The first i in [from, end) with have[i] == first and have[i + span] == last,
// else end; have[i + span] must exist for every such i. Eight 16-bit keys at a
// time where SSE2 is at hand.
template <class T>
std::size_t next_candidate(const T* have, std::size_t from, std::size_t end, std::size_t span,
                           T first, T last) {
  std::size_t i = from;
#if defined(__SSE2__)
  if constexpr (sizeof(T) == 2) {
    const __m128i f = _mm_set1_epi16(static_cast<short>(first));
    const __m128i l = _mm_set1_epi16(static_cast<short>(last));
    for (; i + 8 <= end; i += 8) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(have + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(have + i + span));
      const auto m = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi16(a, f), _mm_cmpeq_epi16(b, l))));
      if (m != 0) return i + static_cast<std::size_t>(std::countr_zero(m)) / 2;
    }
  }
#endif
  for (; i < end; ++i)
    if (have[i] == first && have[i + span] == last) return i;
  return end;
}

// Whether some window of `have` (a key of every line of the file) has the keys
// of `want` (oldText's lines) line by line; where keys are equal for lines
// equal under a Norm, no window without them can match. True as well when
// telling would cost more than a few passes over `have` (repeated lines): the
// caller's linear search decides then.
template <class T>
bool may_occur(std::span<const T> have, std::span<const T> want) {
  const std::size_t k = want.size(), n = have.size();
  if (k == 0 || k > n) return false;
  const T first = want.front(), last = want.back();
  std::size_t work = 0;
  const std::size_t budget = 4 * n + 64;
  const std::size_t end = n - k + 1;
  for (std::size_t i = next_candidate(have.data(), 0, end, k - 1, first, last); i < end;
       i = next_candidate(have.data(), i + 1, end, k - 1, first, last)) {
    std::size_t j = 1;
    while (j + 1 < k && have[i + j] == want[j]) ++j;
    if (j + 1 >= k) return true;
    work += j;
    if (work > budget) return true;
  }
  return false;
}

// The skeletons of oldText's lines, with a filter of 2^16 bits in front of
// them: most file lines are turned away by one bit.
class Skeletons {
 public:
  explicit Skeletons(const Lines& lines);
  bool may_equal(std::uint64_t h) const { return filter_[h & kMask] && set_.count(h) != 0; }

  bool may_occur_in(const std::vector<std::uint64_t>& have) const {
    return may_occur<std::uint64_t>(have, sequence_);
  }

 private:
  std::vector<std::uint64_t> sequence_;
  static constexpr std::uint64_t kMask = (1u << 16) - 1;
  std::vector<bool> filter_ = std::vector<bool>(kMask + 1, false);
  std::unordered_set<std::uint64_t> set_;
};

using chars::kSlots;
inline std::uint16_t slot_of(std::string_view line) { return chars::slot(line); }

// The bits of a slot that collapsing runs of blanks inside a line keeps.
inline constexpr std::uint16_t kEndsOfSlot = 0x3FF;

// ---------------------------------------------------------------------------
// The file, split and hashed lazily: an exact hit never splits it.

class File {
 public:
  File(std::string_view text, std::optional<bool> ascii) : text_(text), ascii_(ascii) {}

  std::string_view text() const { return text_; }

  const Lines& lines() {
    if (!split_) {
      lines_ = text::split_lines(text_);
      split_ = true;
    }
    return lines_;
  }

  std::size_t offset(std::size_t line) {
    const Lines& l = lines();
    return line < l.size() ? static_cast<std::size_t>(l[line].data() - text_.data()) : text_.size();
  }

  std::size_t line_end(std::size_t line) { return offset(line) + lines()[line].size(); }

  // The skeleton hash of one line (skeleton_of), computed once.
  std::uint64_t skeleton(std::size_t line) {
    if (skeletons_) return (*skeletons_)[line];
    if (some_skeletons_.empty()) {
      some_skeletons_.assign(lines().size(), 0);
      known_.assign(lines().size(), false);
    }
    if (!known_[line]) {
      some_skeletons_[line] = skeleton_of(lines()[line], buffer_, scratch_);
      known_[line] = true;
    }
    return some_skeletons_[line];
  }

  // Gives the skeleton hashes' memory back (8 bytes a line); they are
  // computed again if asked for.
  void drop_skeletons() {
    skeletons_.reset();
    std::vector<std::uint64_t>().swap(some_skeletons_);
    std::vector<bool>().swap(known_);
  }

  // The skeleton hash of every line (skeleton_of), computed once.
  const std::vector<std::uint64_t>& skeletons();

  // The slot (slot_of) of every line normalised by `norm` (not
  // Norm::kBlankRuns), computed once.
  const std::vector<std::uint16_t>& slots(Norm norm);

  // Whether `needle` may occur verbatim in the text, tested without a pass
  // over its bytes: a needle of three lines or more holds its middle lines as
  // whole lines of the text, one after another, so their slots (under
  // Norm::kTrim) do too. False means it does not occur.
  bool may_hold(std::string_view needle);

  bool ascii() {
    if (!ascii_) ascii_ = is_ascii(text_);
    return *ascii_;
  }

 private:
  std::optional<std::vector<std::uint16_t>> rstrip_slots_, trim_slots_, unicode_slots_;
  std::string_view text_;
  bool split_ = false;
  Lines lines_;
  std::optional<std::vector<std::uint64_t>> skeletons_;
  std::vector<std::uint64_t> some_skeletons_;  // skeleton(), before skeletons()
  std::string buffer_, scratch_;               // skeleton()'s
  std::vector<bool> known_;
  std::optional<bool> ascii_;
};

// ---------------------------------------------------------------------------
// Hits.

Error too_large_result(std::size_t replacements, std::size_t limit);

struct Hit {
  std::size_t begin = 0;  // byte offsets in the file
  std::size_t end = 0;
  // Shared by every hit of one search (a short oldText may occur everywhere);
  // null: the region is only a candidate and is replaced by nothing.
  std::shared_ptr<const std::string> replacement;
  std::size_t line = 0;  // 1-based line of `begin`
  // The region was found, but its replacement cannot be written safely (say,
  // newText's indentation cannot be mapped onto the file's): reported unless
  // the call is refused as ambiguous first. Shared: hits are many and small.
  std::shared_ptr<const Error> refusal;
};

// Every non-overlapping occurrence of `needle`, left to right, in one pass.
std::vector<Hit> find_exact(std::string_view text, std::string_view needle,
                            std::string_view replacement);

// Hits of a tier. Overlapping readings (oldText "a\na\n" in "a\na\na\n") are
// ambiguity, whatever replaceAll says: then `hits` holds every reading, without
// replacements, and `overlapping` is set.
struct Readings {
  std::vector<Hit> hits;
  bool overlapping = false;
};

// The occurrences of `needle`: the non-overlapping ones, or every one when two
// overlap. Some occurrence overlaps another exactly when one overlaps a hit of
// the left-to-right scan (a skipped occurrence starts inside the hit before
// it), so each hit costs one more search of twice the needle's length.
Readings find_readings(std::string_view text, std::string_view needle,
                       std::string_view replacement);

// ---------------------------------------------------------------------------
// Running the tiers of kTiers (tier_table.h) for str_replace.

struct TierResult : Readings {
  bool single_only = false;      // several hits are ambiguous even with replaceAll
  std::optional<Error> refusal;  // the tier found its region but will not guess
};

class Ladder {
 public:
  // `max_result_bytes`: the most replacement text a tier builds for its
  // windows (Request::max_result_bytes).
  Ladder(File& file, std::string_view old_text, std::string_view new_text,
         std::size_t max_result_bytes)
      : file_(file),
        old_(old_text),
        new_(new_text),
        short_(!chars::loose_allowed(non_blank_chars(old_text))),
        max_result_bytes_(max_result_bytes) {}

  bool is_short() const { return short_; }
  // Whether a tier run so far stopped at its work budget (kBlockBudget).
  bool was_cut() const { return cut_; }

  // Runs one tier (tiers.cpp; the block tier is block.cpp's).
  TierResult run(TierId id);

 private:
  // Start lines of every window of the file whose lines equal `old_lines`
  // under `norm`, left to right, overlapping ones included. Each file line
  // whose slot (or, for Norm::kBlankRuns, skeleton) some oldText line has is
  // normalised and interned against oldText's distinct lines (text/line_window.h),
  // and the windows are the occurrences of oldText's ids in the file's:
  // linear in the file and oldText, however repetitive both are. When
  // oldText's slots do not occur in order, no line is normalised at all: that
  // is what a miss costs on a big file.
  std::vector<std::size_t> windows(const Lines& old_lines, Norm norm);

  // The replacement for the window at `start`: lines that newText keeps from
  // oldText keep the file's bytes; changed lines are newText's, re-indented
  // (with `folded_blanks`, special spaces are indentation too: the window
  // matched under the unicode fold), and with `carry` made on the file's lines
  // character by character (carry.h).
  Hit replace_window(std::size_t start, const Lines& o, const Lines& n,
                     const std::vector<diff::Block>& blocks, bool old_nl, bool new_nl, bool carry,
                     bool folded_blanks);

  TierResult lines_tier(std::string_view old_text, std::string_view new_text, Norm norm,
                        bool also_exact, bool carry = false);

  // The texts as rewritten may also occur verbatim (say, mid-line): those are
  // hits of the tier too. A verbatim hit and a window that start on the same
  // line are one reading (the earlier start wins); any other overlap is two
  // readings that share text.
  static void merge_verbatim(TierResult& r, Readings verbatim);

  // Whether a file line is similar enough to oldText's, charging `spent` for
  // the work; nullopt, without comparing, when that would pass kBlockBudget.
  static std::optional<bool> similar_line(std::string_view a, std::string_view b,
                                          std::size_t& spent);

  TierResult block_tier(std::string_view old_text, std::string_view new_text);

  // A tier that ran out of its budget matches nothing; the no_match says so.
  TierResult cut(TierResult& r);

  File& file_;
  std::string_view old_;
  std::string_view new_;
  bool short_;
  std::size_t max_result_bytes_;
  bool cut_ = false;
};

struct LadderResult {
  const TierInfo* tier = nullptr;  // null: no tier had a hit
  TierResult result;
};

// Runs the tiers that `runs` admits, in order, and stops at the first with any
// hit or refusal.
template <class Pred>
LadderResult run_ladder(Ladder& ladder, Pred runs) {
  for (const TierInfo& t : kTiers) {
    if (!runs(t)) continue;
    TierResult r = ladder.run(t.id);
    if (!r.hits.empty() || r.refusal) return {&t, std::move(r)};
  }
  return {};
}

// What the hits of the tier `tier_name` make of `text`: the plan, or the
// error that refuses them (ambiguous, too large, a hit's own refusal).
Result<Plan> decide(std::string_view text, LadderResult& found, const Request& request,
                    std::string_view tier_name);

}  // namespace editd::match::detail
