#include "edit/match.h"

#include <string.h>  // memmem

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "edit/carry.h"
#include "edit/chars.h"
#include "edit/diff.h"
#include "edit/line_numbers.h"
#include "edit/line_window.h"
#include "edit/occurrences.h"
#include "edit/reindent.h"
#include "edit/similarity.h"
#include "edit/text.h"

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

using Lines = std::vector<std::string_view>;

// ---------------------------------------------------------------------------
// Characters and lines (character classes and folding: chars.h).

using chars::count_newlines;
using chars::fold_unicode;
using chars::is_ascii;
using chars::is_blank;
using chars::is_blank_char;
using chars::leading_ws;
using chars::non_blank_chars;
using chars::rtrim;
using chars::trim;

std::uint64_t hash_of(std::string_view s) { return line_window::hash(s); }

nlohmann::json closest_json(const Closest& c) {
  return {{"startLine", c.lines.start_line},
          {"endLine", c.lines.end_line},
          {"text", c.text},
          {"similarity", c.similarity}};
}

using text::join_lines;

// How each tier compares one line of the file with one line of oldText.
enum class Norm { kRstrip, kTrim, kUnicode, kBlankRuns };

std::string_view normalize(Norm norm, std::string_view line, std::string& out,
                           std::string& scratch) {
  switch (norm) {
    case Norm::kRstrip:
      return rtrim(line);
    case Norm::kTrim:
      return trim(line);
    case Norm::kUnicode:
      scratch.clear();
      fold_unicode(line, scratch);
      out.assign(trim(scratch));
      return out;
    case Norm::kBlankRuns: {
      out.clear();
      bool in_run = false;
      for (char c : trim(line)) {
        if (c == ' ' || c == '\t') {
          if (!in_run) out += ' ';
          in_run = true;
        } else {
          out += c;
          in_run = false;
        }
      }
      return out;
    }
  }
  return line;
}

// The hash of `line` without any blank, folded first (chars::fold_unicode)
// when it is not ASCII. Lines equal under any Norm have equal skeletons, so a
// file line whose skeleton no oldText line has is never normalised.
std::uint64_t skeleton_of(std::string_view line, std::string& buffer, std::string& scratch) {
  static constexpr std::array<bool, 256> kKeep = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
      t[static_cast<std::size_t>(c)] = !is_blank_char(static_cast<char>(c));
    return t;
  }();
  // One pass that copies the non-blank bytes and notes any byte above ASCII;
  // branch-free, since lines mix blanks and the rest unpredictably.
  auto strip = [&](std::string_view from) {
    if (buffer.size() < from.size()) buffer.resize(std::max(from.size(), 2 * buffer.size()));
    char* out = buffer.data();
    std::size_t n = 0;
    unsigned high = 0;
    for (char c : from) {
      const auto u = static_cast<unsigned char>(c);
      out[n] = c;
      n += kKeep[u];
      high |= u;
    }
    return std::pair{n, (high & 0x80) != 0};
  };
  auto [n, non_ascii] = strip(line);
  if (non_ascii) {
    scratch.clear();
    fold_unicode(line, scratch);
    n = strip(scratch).first;
  }
  return hash_of(std::string_view(buffer.data(), n));
}

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
  explicit Skeletons(const Lines& lines) {
    std::string buffer, scratch;
    for (std::string_view l : lines) {
      const std::uint64_t h = skeleton_of(l, buffer, scratch);
      filter_[h & kMask] = true;
      set_.insert(h);
      sequence_.push_back(h);
    }
  }
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

std::string normalized_copy(Norm norm, std::string_view line) {
  std::string out, scratch;
  return std::string(normalize(norm, line, out, scratch));
}

using chars::kSlots;
std::uint16_t slot_of(std::string_view line) { return chars::slot(line); }

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
  const std::vector<std::uint64_t>& skeletons() {
    if (!skeletons_) {
      const Lines& l = lines();
      skeletons_.emplace();
      skeletons_->reserve(l.size());
      std::string buffer, scratch;
      for (std::string_view line : l) skeletons_->push_back(skeleton_of(line, buffer, scratch));
    }
    return *skeletons_;
  }

  // The slot (slot_of) of every line normalised by `norm` (not
  // Norm::kBlankRuns), computed once.
  const std::vector<std::uint16_t>& slots(Norm norm) {
    std::optional<std::vector<std::uint16_t>>& slots = norm == Norm::kRstrip ? rstrip_slots_
                                                       : norm == Norm::kTrim ? trim_slots_
                                                                             : unicode_slots_;
    if (slots) return *slots;
    const Lines& l = lines();
    if (norm == Norm::kUnicode) {
      // Folding changes only the lines with a byte above ASCII, which are
      // found a word at a time.
      slots = this->slots(Norm::kTrim);
      std::string out, scratch;
      for (std::size_t at = ascii() ? text_.size() : chars::find_non_ascii(text_, 0);
           at < text_.size();) {
        const auto line = static_cast<std::size_t>(
            std::upper_bound(l.begin(), l.end(), text_.data() + at,
                             [](const char* p, std::string_view x) { return p < x.data(); }) -
            l.begin() - 1);
        (*slots)[line] = slot_of(normalize(Norm::kUnicode, l[line], out, scratch));
        at = chars::find_non_ascii(text_, offset(line) + l[line].size());
      }
      return *slots;
    }
    // Both trims in one pass.
    rstrip_slots_.emplace();
    trim_slots_.emplace();
    rstrip_slots_->reserve(l.size());
    trim_slots_->reserve(l.size());
    for (std::string_view line : l) {
      const std::string_view right = rtrim(line);
      rstrip_slots_->push_back(slot_of(right));
      trim_slots_->push_back(slot_of(chars::ltrim(right)));
    }
    return *slots;
  }

  // Whether `needle` may occur verbatim in the text, tested without a pass
  // over its bytes: a needle of three lines or more holds its middle lines as
  // whole lines of the text, one after another, so their slots (under
  // Norm::kTrim) do too. False means it does not occur.
  bool may_hold(std::string_view needle) {
    const Lines l = text::split_lines(needle);
    // The first line may end a line of the text; the last one is whole only
    // when the needle ends with "\n".
    const std::size_t end = needle.ends_with('\n') ? l.size() : l.size() - 1;
    if (end <= 1) return true;
    std::vector<std::uint16_t> want;
    for (std::size_t j = 1; j < end; ++j) want.push_back(slot_of(trim(l[j])));
    return may_occur<std::uint16_t>(slots(Norm::kTrim), want);
  }

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

Error too_large_result(std::size_t replacements, std::size_t limit) {
  return Error(ErrorKind::kTooLarge,
               "replacing the " + std::to_string(replacements) +
                   " regions that oldText matches would make the file larger than the limit of " +
                   std::to_string(limit) + " bytes (--max-file-bytes)",
               {{"replacements", replacements}, {"limit", limit}});
}

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
                            std::string_view replacement) {
  std::vector<Hit> hits;
  if (needle.empty() || needle.size() > text.size()) return hits;
  auto shared = std::make_shared<const std::string>(replacement);
  std::size_t pos = 0, counted = 0, line = 1;
  while (pos + needle.size() <= text.size()) {
    const std::size_t at = occurrences::find(text, needle, pos);
    if (at == std::string_view::npos) break;
    line += count_newlines(text.substr(counted, at - counted));
    counted = at;
    hits.push_back({at, at + needle.size(), shared, line, nullptr});
    if (hits.size() > kMaxRegions) break;  // decide() refuses so many
    pos = at + needle.size();
  }
  return hits;
}

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
                       std::string_view replacement) {
  Readings r;
  r.hits = find_exact(text, needle, replacement);
  const std::size_t k = needle.size();
  for (const Hit& h : r.hits) {
    const std::size_t from = h.begin + 1, to = std::min(text.size(), h.begin + 2 * k - 1);
    if (to >= from + k &&
        occurrences::find(text.substr(0, to), needle, from) != std::string_view::npos) {
      r.overlapping = true;
      break;
    }
  }
  if (!r.overlapping) return r;
  r.hits.clear();
  std::size_t counted = 0, line = 1;
  for (std::size_t at : occurrences::all(text, needle)) {
    line += count_newlines(text.substr(counted, at - counted));
    counted = at;
    r.hits.push_back({at, at + k, nullptr, line, nullptr});
    if (r.hits.size() > kMaxRegions) break;  // decide() refuses so many
  }
  return r;
}

// ---------------------------------------------------------------------------
// Tiers.

enum class TierId {
  kExact,
  kTrailingWhitespace,
  kIndentation,
  kUnicode,
  kEscapes,
  kBlankPadding,
  kBlankRuns,
  kBlock,
};

struct TierInfo {
  TierId id;
  std::string_view name;
  std::string_view drift;  // for hints: what the tier forgives
  bool loose;              // needs kMinLooseChars
  Mode min_mode;
};

constexpr std::array<TierInfo, 8> kTiers = {{
    {TierId::kExact, "exact", "nothing", false, Mode::kExact},
    {TierId::kTrailingWhitespace, "trailing_whitespace", "trailing whitespace", false,
     Mode::kStandard},
    {TierId::kIndentation, "indentation", "indentation", false, Mode::kStandard},
    {TierId::kUnicode, "unicode", "typographic quotes, dashes or special spaces", true,
     Mode::kStandard},
    {TierId::kEscapes, "escapes", "escaped newlines, tabs or quotes", true, Mode::kStandard},
    {TierId::kBlankPadding, "blank_padding", "blank lines around it", false, Mode::kStandard},
    {TierId::kBlankRuns, "blank_runs", "runs of spaces and tabs", false, Mode::kFuzzy},
    {TierId::kBlock, "block", "small differences in lines between its first and last", true,
     Mode::kFuzzy},
}};

bool mode_runs(Mode mode, const TierInfo& t) {
  return static_cast<int>(t.min_mode) <= static_cast<int>(mode);
}

struct TierResult : Readings {
  bool single_only = false;      // several hits are ambiguous even with replaceAll
  std::optional<Error> refusal;  // the tier found its region but will not guess
};

struct Texts {
  std::string old_text;
  std::string new_text;
};

// oldText with `\n`, `\t`, `\"` or `\'` written out; nullopt when it has none.
std::optional<std::string> unescape(std::string_view s) {
  std::string out;
  bool any = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[i + 1];
      char to = 0;
      switch (c) {
        case 'n':
          to = '\n';
          any = true;
          break;
        case 't':
          to = '\t';
          any = true;
          break;
        case '"':
          to = '"';
          any = true;
          break;
        case '\'':
          to = '\'';
          any = true;
          break;
        case '\\':
          to = '\\';
          break;
        default:
          break;
      }
      if (to != 0) {
        out += to;
        ++i;
        continue;
      }
    }
    out += s[i];
  }
  if (!any) return std::nullopt;
  return out;
}

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

  TierResult run(TierId id) {
    switch (id) {
      case TierId::kExact: {
        TierResult r;
        static_cast<Readings&>(r) = find_readings(file_.text(), old_, new_);
        return r;
      }
      case TierId::kTrailingWhitespace:
        return lines_tier(old_, new_, Norm::kRstrip, false);
      case TierId::kIndentation:
        return lines_tier(old_, new_, Norm::kTrim, false);
      case TierId::kUnicode:
        if (file_.ascii() && is_ascii(old_)) return {};
        return lines_tier(old_, new_, Norm::kUnicode, false, true);
      case TierId::kEscapes: {
        auto old_text = unescape(old_);
        if (!old_text || old_text->empty()) return {};
        std::string new_text = unescape(new_).value_or(std::string(new_));
        return lines_tier(*old_text, new_text, Norm::kTrim, true, true);
      }
      case TierId::kBlankPadding: {
        auto t = strip_padding(old_, new_);
        if (!t) return {};
        return lines_tier(t->old_text, t->new_text, Norm::kTrim, true);
      }
      case TierId::kBlankRuns: {
        auto t = strip_padding(old_, new_).value_or(Texts{std::string(old_), std::string(new_)});
        return lines_tier(t.old_text, t.new_text, Norm::kBlankRuns, false);
      }
      case TierId::kBlock: {
        auto t = strip_padding(old_, new_).value_or(Texts{std::string(old_), std::string(new_)});
        return block_tier(t.old_text, t.new_text);
      }
    }
    return {};
  }

 private:
  // Start lines of every window of the file whose lines equal `old_lines`
  // under `norm`, left to right, overlapping ones included. Each file line
  // whose slot (or, for Norm::kBlankRuns, skeleton) some oldText line has is
  // normalised and interned against oldText's distinct lines (line_window.h),
  // and the windows are the occurrences of oldText's ids in the file's:
  // linear in the file and oldText, however repetitive both are. When
  // oldText's slots do not occur in order, no line is normalised at all: that
  // is what a miss costs on a big file.
  std::vector<std::size_t> windows(const Lines& old_lines, Norm norm) {
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
        if (wanted[slots[i]]) ids[i] = pattern.id(normalize(norm, lines[i], out, scratch));
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
      if (skeletons.may_equal(have[i]))
        ids[i] = pattern.id(normalize(norm, lines[i], out, scratch));
    return occurrences::all(ids, pattern.ids());
  }

  // The replacement for the window at `start`: lines that newText keeps from
  // oldText keep the file's bytes; changed lines are newText's, re-indented
  // (with `folded_blanks`, special spaces are indentation too: the window
  // matched under the unicode fold), and with `carry` made on the file's lines
  // character by character (carry.h).
  Hit replace_window(std::size_t start, const Lines& o, const Lines& n,
                     const std::vector<diff::Block>& blocks, bool old_nl, bool new_nl, bool carry,
                     bool folded_blanks) {
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

  TierResult lines_tier(std::string_view old_text, std::string_view new_text, Norm norm,
                        bool also_exact, bool carry = false) {
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
                                        new_text.ends_with('\n'), carry, norm == Norm::kUnicode));
    }
    if (also_exact && file_.may_hold(old_text))
      merge_verbatim(r, find_readings(file_.text(), old_text, new_text));
    return r;
  }

  // The texts as rewritten may also occur verbatim (say, mid-line): those are
  // hits of the tier too. A verbatim hit and a window that start on the same
  // line are one reading (the earlier start wins); any other overlap is two
  // readings that share text.
  static void merge_verbatim(TierResult& r, Readings verbatim) {
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

  // Whether a file line is similar enough to oldText's, charging `spent` for
  // the work; nullopt, without comparing, when that would pass kBlockBudget.
  static std::optional<bool> similar_line(std::string_view a, std::string_view b,
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

  TierResult block_tier(std::string_view old_text, std::string_view new_text) {
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
        std::string_view line = normalize(Norm::kBlankRuns, lines[i + j], out, scratch);
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
            similar_line(normalize(Norm::kBlankRuns, lines[i + j], out, scratch), want[j], spent);
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
        if (normalize(Norm::kBlankRuns, lines[s + j], out, scratch) == want[j]) continue;
        std::string line_no = std::to_string(s + j + 1);
        nlohmann::json data;
        Lines window(lines.begin() + static_cast<std::ptrdiff_t>(s),
                     lines.begin() + static_cast<std::ptrdiff_t>(s + k));
        Closest c{{s + 1, s + k},
                  join_lines(lines, s, s + k),
                  round_down(similarity::lines_ratio(window, o))};
        data["closest"] = closest_json(c);
        data["hint"] = "oldText resembles lines " + std::to_string(s + 1) + "-" +
                       std::to_string(s + k) + ", but line " + line_no +
                       ", which the edit changes, differs from the file: copy that line exactly "
                       "from the file (read it again) and retry";
        data["tier"] = "block";
        r.refusal = Error(ErrorKind::kNoMatch,
                          "oldText was not found in the file: it resembles lines " +
                              std::to_string(s + 1) + "-" + std::to_string(s + k) + ", but line " +
                              line_no + ", which the edit changes, differs there",
                          std::move(data));
        return r;
      }
    }
    r.hits.push_back(replace_window(s, o, n, blocks, old_text.ends_with('\n'),
                                    new_text.ends_with('\n'), false, false));
    return r;
  }

  // A tier that ran out of its budget matches nothing; the no_match says so.
  TierResult cut(TierResult& r) {
    cut_ = true;
    r.hits.clear();
    return std::move(r);
  }

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

// ---------------------------------------------------------------------------
// Outcomes.

std::string list_lines(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < 10; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(lines[i]);
  }
  if (lines.size() > 10) out += ", ...";
  return out;
}

// Every hit knows its line in `text`, so the new text's line numbers follow
// from the newlines each earlier replacement added or removed, without building
// the new text.
Plan build_plan(std::string_view text, std::vector<Hit>& hits, std::string_view tier) {
  Plan plan;
  plan.tier = std::string(tier);
  plan.replacements = hits.size();
  long shift = 0;  // newlines added so far minus newlines removed
  bool may_pass_end = false;
  for (Hit& h : hits) {
    const auto start = static_cast<std::size_t>(static_cast<long>(h.line) + shift);
    const std::string_view r =
        h.replacement ? std::string_view(*h.replacement) : std::string_view();
    const std::size_t added = count_newlines(r);
    std::size_t end = start;
    if (!r.empty()) end = start + added - (r.back() == '\n' ? 1 : 0);
    plan.lines.push_back({start, end});
    shift += static_cast<long>(added) -
             static_cast<long>(count_newlines(text.substr(h.begin, h.end - h.begin)));
    may_pass_end = may_pass_end || h.end == text.size() || r.empty();
    plan.edits.push_back({h.begin, h.end, std::string(r)});
  }
  if (may_pass_end) {
    // A cut at the very end of the text happened on its last line.
    const auto newlines = static_cast<std::size_t>(static_cast<long>(count_newlines(text)) + shift);
    std::size_t pos = text.size();
    std::optional<char> last;
    for (std::size_t i = plan.edits.size(); i-- > 0 && plan.edits[i].end == pos;) {
      if (!plan.edits[i].text.empty()) {
        last = plan.edits[i].text.back();
        break;
      }
      pos = plan.edits[i].begin;
    }
    if (!last && pos > 0) last = text[pos - 1];
    const std::size_t total = std::max<std::size_t>(1, newlines + (last && *last != '\n' ? 1 : 0));
    for (LineRange& l : plan.lines) {
      l.start_line = std::min(l.start_line, total);
      l.end_line = std::max(l.start_line, std::min(l.end_line, total));
    }
  }
  return plan;
}

// The whole lines a hit touches, so that a model can tell candidates apart.
nlohmann::json candidate_json(std::string_view text, const Hit& h) {
  const std::size_t from = h.begin == 0 ? 0 : text.rfind('\n', h.begin - 1) + 1;
  std::size_t last = h.end > h.begin ? h.end - 1 : h.begin;
  std::size_t to = last < text.size() && text[last] == '\n' ? last : text.find('\n', last);
  if (to == std::string_view::npos) to = text.size();
  std::string_view region = text.substr(from, to - from);
  return {{"startLine", h.line},
          {"endLine", h.line + count_newlines(region)},
          {"text", std::string(region)}};
}

Result<Plan> decide(std::string_view text, LadderResult& found, const Request& request,
                    std::string_view tier_name) {
  std::vector<Hit>& hits = found.result.hits;
  std::vector<std::size_t> lines;
  for (std::size_t i = 0; i < hits.size() && i < kMaxListedLines; ++i)
    lines.push_back(hits[i].line);
  const std::size_t n = hits.size();
  const std::string count =
      n > kMaxRegions ? "more than " + std::to_string(kMaxRegions) : std::to_string(n);
  nlohmann::json data;
  data["lines"] = lines;
  data["found"] = n;
  data["tier"] = tier_name;
  if (n > 1 || request.expected_replacements) {
    nlohmann::json candidates = nlohmann::json::array();
    for (std::size_t i = 0; i < n && i < kMaxCandidates; ++i)
      candidates.push_back(candidate_json(text, hits[i]));
    data["candidates"] = std::move(candidates);
  }
  const std::string where = "lines " + list_lines(lines) + " (tier " + std::string(tier_name) + ")";
  if (found.result.overlapping) {
    data["overlapping"] = true;
    return Error(ErrorKind::kAmbiguous,
                 "oldText can be read at " + count + " overlapping regions at " + where +
                     ": repeated lines (or characters) match in more than one way, and replaceAll "
                     "cannot replace regions that share text; add a line before or after that "
                     "tells them apart so that oldText matches only one",
                 std::move(data));
  }
  if (request.expected_replacements && *request.expected_replacements != n) {
    data["expected"] = *request.expected_replacements;
    data["found"] = n;
    return Error(ErrorKind::kAmbiguous,
                 "expected " + std::to_string(*request.expected_replacements) +
                     " replacements, but oldText matches " + count + " regions at " + where +
                     "; adjust oldText or expectedReplacements",
                 std::move(data));
  }
  if (n > 1 && found.result.single_only) {
    return Error(ErrorKind::kAmbiguous,
                 "oldText loosely matches " + count + " regions at " + where +
                     ", and a loose match is applied only when it is the only one: copy oldText "
                     "exactly from the file, with enough surrounding lines to pick one",
                 std::move(data));
  }
  if (n > 1 && !request.replace_all) {
    return Error(ErrorKind::kAmbiguous,
                 "oldText matches " + count + " regions at " + where +
                     "; add surrounding lines to oldText so that it matches only one, or set "
                     "replaceAll to replace every one",
                 std::move(data));
  }
  if (n > kMaxRegions)
    return Error(ErrorKind::kTooLarge,
                 "replaceAll would replace " + count + " regions (tier " + std::string(tier_name) +
                     "), more than one call replaces: use write_text, or an oldText that matches "
                     "fewer regions",
                 {{"replacements", n}, {"limit", kMaxRegions}});
  for (const Hit& h : hits)
    if (h.refusal) return *h.refusal;
  // The new text's size, before any of it is built: a large newText times
  // many regions must be refused, not allocated.
  // (Hits do not overlap, and at most text.size() of them each add at most
  // newText's size: no overflow.)
  std::size_t size = text.size();
  for (const Hit& h : hits)
    size = size + (h.replacement ? h.replacement->size() : 0) - (h.end - h.begin);
  if (size > request.max_result_bytes) return too_large_result(n, request.max_result_bytes);
  return build_plan(text, hits, tier_name);
}

// `\n` written out in s: lines that the escapes tier's oldText has more.
std::size_t escaped_newlines(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t at = s.find("\\n"); at != std::string_view::npos; at = s.find("\\n", at + 2))
    ++n;
  return n;
}

// The bytes of the whole lines from `margin` lines before the line holding
// `begin` to `margin` lines after the one holding `end`.
std::pair<std::size_t, std::size_t> around(std::string_view text, std::size_t begin,
                                           std::size_t end, std::size_t margin) {
  std::size_t from = begin;
  for (std::size_t n = 0; from > 0; --from)
    if (text[from - 1] == '\n' && n++ == margin) break;
  std::size_t to = end;
  for (std::size_t n = 0; to < text.size(); ++to)
    if (text[to] == '\n' && n++ == margin) break;
  return {from, to};
}

// Whether every hit starts at the start of a line and ends at the end of one.
bool whole_lines(std::string_view text, const std::vector<Hit>& hits) {
  return std::all_of(hits.begin(), hits.end(), [&](const Hit& h) {
    return (h.begin == 0 || text[h.begin - 1] == '\n') &&
           (h.end == text.size() || text[h.end] == '\n' || text[h.end - 1] == '\n');
  });
}

// oldText without the U+FEFF that starts it, unless the file holds it there
// verbatim: a BOM copied from a view that shows it (the body never starts with
// the file's BOM, see text.h).
std::string_view without_copied_bom(std::string_view text, std::string_view old_text) {
  if (!old_text.starts_with(text::kBom)) return old_text;
  if (occurrences::find(text, old_text) != std::string_view::npos) return old_text;
  while (old_text.starts_with(text::kBom)) old_text.remove_prefix(text::kBom.size());
  return old_text;
}

}  // namespace

Result<Plan> plan_replace(const Request& request) {
  const std::string_view old_text = without_copied_bom(request.text, request.old_text);
  const std::string new_text = carry::keep_matched_feff(old_text, request.new_text);
  if (old_text.empty())
    return invalid_param("oldText", "must not be empty (to insert text, use insert or write_text)");
  if (old_text == new_text)
    return Error(ErrorKind::kNoChange, "oldText and newText are the same: nothing would change");

  File file(request.text, request.text_ascii);
  const Mode mode = request.mode;
  Ladder ladder(file, old_text, new_text, request.max_result_bytes);
  auto enabled = [&](const TierInfo& t) {
    return mode_runs(mode, t) && !(t.loose && ladder.is_short());
  };
  LadderResult found = run_ladder(ladder, enabled);
  if (found.tier != nullptr && found.result.refusal) return *found.result.refusal;
  if (found.tier != nullptr) return decide(request.text, found, request, found.tier->name);

  std::vector<std::string> hints;
  const std::optional<View> view = numbered_view(old_text);
  std::string_view needle = old_text;
  std::string stripped_old;
  if (view && mode != Mode::kExact) {
    stripped_old = strip_numbers(old_text);
    needle = stripped_old;
    const NewTextNumbers new_numbers = new_text_numbers(new_text, *view);
    if (new_numbers == NewTextNumbers::kRefuse) {
      hints.push_back(
          "oldText carries line-number prefixes (\"12:\", \"12\\t\" or \"12\u2192\") on every "
          "line, but newText carries them only on some lines, or numbered from another line: send "
          "both without line numbers");
    } else {
      std::string stripped_new =
          new_numbers == NewTextNumbers::kStrip ? strip_numbers(new_text) : std::string(new_text);
      if (stripped_old != stripped_new) {
        // A view copies whole lines: the exact tier, which matches inside a
        // line, does not run, and a hit must span whole lines.
        Ladder unnumbered(file, stripped_old, stripped_new, request.max_result_bytes);
        LadderResult again = run_ladder(unnumbered, [&](const TierInfo& t) {
          return t.id != TierId::kExact && mode_runs(mode, t) &&
                 !(t.loose && unnumbered.is_short());
        });
        if (again.tier != nullptr && again.result.refusal) return *again.result.refusal;
        if (again.tier != nullptr && whole_lines(request.text, again.result.hits))
          return decide(request.text, again, request, "line_numbers");
      }
      hints.push_back(
          "oldText carries line-number prefixes (\"12:\", \"12\\t\" or \"12\u2192\") on every "
          "line; without them it was not found either");
    }
  } else if (view) {
    hints.push_back(
        "every line of oldText starts with a line number (\"12:\", \"12\\t\" or \"12\u2192\"), "
        "as copied from a numbered view; the file does not contain those numbers: send oldText "
        "and newText without them");
  } else if (some_line_numbered(old_text) && non_blank_chars(old_text) > 0) {
    Lines l = text::split_lines(old_text);
    if (l.size() > 1)
      hints.push_back(
          "some lines of oldText start with a line number (\"12:\", \"12\\t\" or \"12\u2192\"): "
          "if they were copied from a numbered view, send oldText without them");
  }

  // In exact mode the line slots that rule newText out cheaply are not at hand.
  if (!trim(new_text).empty() && (mode == Mode::kExact || file.may_hold(new_text))) {
    // The first occurrence only: a short newText may occur on every line.
    if (const std::size_t at = occurrences::find(request.text, new_text, 0);
        at != std::string_view::npos)
      hints.push_back("newText is already in the file at line " +
                      std::to_string(1 + count_newlines(request.text.substr(0, at))) +
                      ": was this edit already applied?");
  }

  if (ladder.was_cut())
    hints.push_back(
        "the block tier stopped at its work budget: oldText's first and last lines occur at too "
        "many places to check every region between them, so it matched nothing; copy oldText "
        "exactly from the file, or start and end it with lines that occur once");

  // A big file's hints run on a part of it, with a File of their own: its
  // skeletons are not needed again, and closest_region's votes take their room.
  if (request.text.size() > kHintScopeBytes) file.drop_skeletons();
  const std::optional<Closest> closest =
      closest_region(request.text, file.lines(), needle,
                     mode == Mode::kExact ? nullptr : &file.slots(Norm::kTrim));

  // Would a tier that this call did not run have found it? On a big file only
  // near the closest region: a hint must not cost a pass over the whole file
  // per tier.
  std::optional<File> scope_file;
  std::optional<Ladder> scope_ladder;
  Ladder* hinting = &ladder;
  std::size_t scope_line = 0;  // lines of the file before the scope
  if (request.text.size() > kHintScopeBytes) {
    if (closest) {
      const std::size_t margin = count_newlines(old_text) + escaped_newlines(old_text) + 1;
      const auto [from, to] = around(request.text, closest->begin, closest->end, margin);
      scope_line = closest->lines.start_line - 1 -
                   count_newlines(request.text.substr(from, closest->begin - from));
      // All ASCII carries over to a part; the rest is for the part to find out.
      scope_file.emplace(request.text.substr(from, to - from),
                         request.text_ascii == true ? std::optional(true) : std::nullopt);
      scope_ladder.emplace(*scope_file, old_text, new_text, request.max_result_bytes);
      hinting = &*scope_ladder;
    } else {
      hinting = nullptr;
    }
  }
  LadderResult disabled;
  if (hinting != nullptr) {
    const bool cut_before = hinting->was_cut();
    disabled = run_ladder(*hinting,
                          [&](const TierInfo& t) { return t.id != TierId::kExact && !enabled(t); });
    if (disabled.tier == nullptr && hinting->was_cut() && !cut_before)
      hints.push_back("whether a tier that matching \"" + std::string(mode_name(mode)) +
                      "\" does not run would have matched is not known: the block tier stopped at "
                      "its work budget");
  }
  if (disabled.tier != nullptr && !disabled.result.hits.empty()) {
    const TierInfo& t = *disabled.tier;
    std::string at = "line " + std::to_string(scope_line + disabled.result.hits.front().line);
    if (!mode_runs(mode, t)) {
      hints.push_back("oldText differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), which matching \"" + std::string(mode_name(mode)) +
                      "\" does not forgive: copy oldText exactly from the file, or retry with "
                      "matching \"" +
                      std::string(mode_name(t.min_mode)) + "\"");
    } else {
      hints.push_back("oldText differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), but it has fewer than " + std::to_string(kMinLooseChars) +
                      " non-blank characters, too few to match loosely: copy it exactly from the "
                      "file, with some surrounding text");
    }
  }

  nlohmann::json data = nlohmann::json::object();
  std::string message = "oldText was not found in the file";
  if (closest) {
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
    message += "; the most similar region is lines " + std::to_string(closest->lines.start_line) +
               "-" + std::to_string(closest->lines.end_line) + " (similarity " + similarity +
               "): copy oldText from there exactly";
    data["closest"] = closest_json(*closest);
    if (!closest->complete) hints.push_back(kClosestIncomplete);
  }
  if (!hints.empty()) {
    std::string hint;
    for (const std::string& h : hints) hint += (hint.empty() ? "" : " ") + h + ".";
    data["hint"] = hint;
  }
  return Error(ErrorKind::kNoMatch, message, std::move(data));
}

}  // namespace editd::match
