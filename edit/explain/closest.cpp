#include "edit/explain/closest.h"

#define XXH_INLINE_ALL
#include <xxhash.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "edit/match/similarity.h"
#include "edit/text/chars.h"
#include "edit/text/text.h"

namespace editd::match {

double round_down(double similarity) { return std::floor(similarity * 1000.0 + 1e-9) / 1000.0; }

namespace {

using Lines = std::vector<std::string_view>;
using chars::trim;

std::uint64_t hash_of(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

constexpr std::size_t kCandidates = 8;
// Pairs of (file line, needle line) one trimmed line or token may vote for; more
// common ones carry little information and are skipped.
constexpr std::size_t kMaxVotesPerKey = 4096;
// Files with at most this many windows are scored in full when nothing votes.
constexpr std::size_t kScoreAllWindows = 512;

// Bytes of identifier tokens: ASCII letters, digits, '_', and any byte of a
// multi-byte UTF-8 character.
constexpr std::array<bool, 256> kTokenChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
  return t;
}();

// Calls f with every token of `line` (a run of token bytes, two or more long).
// The token bytes of each 64-byte block become a bit mask first, and tokens
// are read off the mask: branches per token, not per byte.
template <class F>
void for_each_token(std::string_view line, F f) {
  const char* p = line.data();
  const std::size_t n = line.size();
  constexpr std::size_t kNone = SIZE_MAX;
  std::size_t start = kNone;  // the token being read, when it began in an earlier block
  for (std::size_t base = 0; base < n; base += 64) {
    const std::size_t len = std::min<std::size_t>(64, n - base);
    const std::uint64_t in = token_mask(p + base, len);
    std::size_t i = 0;  // i < len <= 64 wherever it shifts
    while (i < len) {
      if (start == kNone) {
        const std::uint64_t ahead = in >> i;
        if (ahead == 0) break;
        i += static_cast<std::size_t>(std::countr_zero(ahead));
        start = base + i;
      }
      // Past `len` the mask is 0, so a token ends there at the latest; only
      // a full block can end inside one.
      const std::uint64_t out = ~in >> i;
      if (out == 0) break;
      i += static_cast<std::size_t>(std::countr_zero(out));
      if (base + i - start >= 2) f(std::string_view(p + start, base + i - start));
      start = kNone;
    }
  }
  if (start != kNone && n - start >= 2) f(std::string_view(p + start, n - start));
}

// Keys of the needle (trimmed lines, or tokens), with the needle lines that
// carry each, and the file lines where each was seen.
//
// A key that the file carries so often that it would cast more than
// kMaxVotesPerKey votes carries little information: it is dropped as soon as
// it is seen once too often, and a key of the file is first tested against a
// count of the live keys with its (length, first and last byte), so that keys
// the needle lacks and keys already dropped are turned away before they are
// hashed. On a file made of the needle's own common lines and tokens, which is
// what source code is, that keeps the pass over the file close to one read.
class Keys {
 public:
  void add(std::string_view key, std::size_t j) {
    const std::uint64_t h = hash_of(key);
    std::size_t id = find(h);
    if (id == kNone) {
      id = keys_.size();
      insert(h, id);
      keys_.emplace_back();
      const std::size_t at = chars::slot(key);
      keys_.back().slot = at;
      if (live_[at]++ == 0) any_live_[at / 64] |= std::uint64_t{1} << (at % 64);
    }
    std::vector<std::size_t>& js = keys_[id].needle_lines;
    if (js.empty() || js.back() != j) js.push_back(j);
  }

  // Records that file line `i` carries `key`.
  [[gnu::always_inline]] inline void see(std::string_view key, std::size_t i) {
    if (may_see(chars::slot(key))) record(key, i);
  }
  // Whether a key with this slot (chars::slot) may be recorded.
  [[gnu::always_inline]] inline bool may_see(std::size_t at) const {
    return (any_live_[at / 64] >> (at % 64) & 1) != 0;
  }

  bool empty() const { return keys_.empty(); }

  // Adds votes for windows (by their first line): each file line that carries
  // a key votes, for every needle line that carries it, for the window that
  // puts the two side by side, with `weight` shared among the key's file lines.
  void vote(std::vector<double>& votes, double weight) const {
    const std::size_t last_start = votes.size() - 1;
    for (const Key& k : keys_) {
      if (k.dropped || k.file_lines.empty()) continue;
      const double w = weight / static_cast<double>(k.file_lines.size());
      for (std::size_t line : k.file_lines)
        for (std::size_t j : k.needle_lines) {
          const std::size_t s = line >= j ? line - j : 0;
          votes[std::min(s, last_start)] += w;
        }
    }
  }

 private:
  [[gnu::noinline]] void record(std::string_view key, std::size_t i) {
    const std::size_t id = find(hash_of(key));
    if (id == kNone) return;
    Key& k = keys_[id];
    if (k.dropped) return;
    if ((k.file_lines.size() + 1) * k.needle_lines.size() > kMaxVotesPerKey) {
      k.dropped = true;
      k.file_lines = {};
      if (--live_[k.slot] == 0) any_live_[k.slot / 64] &= ~(std::uint64_t{1} << (k.slot % 64));
      return;
    }
    k.file_lines.push_back(i);
  }

  struct Key {
    std::vector<std::size_t> needle_lines;
    std::vector<std::size_t> file_lines;
    std::size_t slot = 0;
    bool dropped = false;
  };

  static constexpr std::size_t kSlots = chars::kSlots;
  std::vector<std::uint32_t> live_ = std::vector<std::uint32_t>(kSlots, 0);  // live keys a slot has
  std::vector<std::uint64_t> any_live_ = std::vector<std::uint64_t>(kSlots / 64, 0);  // live_ != 0
  // Key ids by hash, open addressing with linear probing: a file line's
  // lookup is one or two reads, not a node of a hash map.
  static constexpr std::size_t kNone = SIZE_MAX;
  std::size_t find(std::uint64_t h) const {
    if (table_.empty()) return kNone;
    const std::size_t mask = table_.size() - 1;
    for (std::size_t at = h & mask;; at = (at + 1) & mask) {
      if (table_[at].id == kNone) return kNone;
      if (table_[at].hash == h) return table_[at].id;
    }
  }
  void insert(std::uint64_t h, std::size_t id) {
    if (2 * (keys_.size() + 1) > table_.size()) {  // at most half full
      std::vector<Slot> old =
          std::exchange(table_, std::vector<Slot>(std::max<std::size_t>(64, 4 * table_.size())));
      for (const Slot& e : old)
        if (e.id != kNone) place(e);
    }
    place({h, id});
  }
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t id = kNone;
  };
  void place(Slot e) {
    const std::size_t mask = table_.size() - 1;
    std::size_t at = e.hash & mask;
    while (table_[at].id != kNone) at = (at + 1) & mask;
    table_[at] = e;
  }
  std::vector<Slot> table_;
  std::vector<Key> keys_;
};

// The windows with the most votes, at most kCandidates, ascending.
std::vector<std::size_t> best_voted(const std::vector<double>& votes) {
  std::vector<std::size_t> candidates;
  for (std::size_t s = 0; s < votes.size(); ++s)
    if (votes[s] > 0) candidates.push_back(s);
  if (candidates.size() > kCandidates) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](std::size_t a, std::size_t b) { return votes[a] > votes[b]; });
    candidates.resize(kCandidates);
    std::sort(candidates.begin(), candidates.end());
  }
  return candidates;
}

}  // namespace

std::optional<Closest> closest_region(std::string_view text, std::string_view needle) {
  return closest_region(text, text::split_lines(text), needle);
}

std::optional<Closest> closest_region(std::string_view text, const Lines& lines,
                                      std::string_view needle,
                                      const std::vector<std::uint16_t>* trimmed_slots) {
  if (lines.empty()) return std::nullopt;
  Lines want = text::split_lines(needle);
  if (want.empty()) want.push_back("");
  const std::size_t k = std::min(want.size(), lines.size());
  const std::size_t starts = lines.size() - k + 1;
  std::vector<double> votes(starts, 0.0);

  Keys by_line, by_token;
  for (std::size_t j = 0; j < want.size(); ++j) {
    std::string_view t = trim(want[j]);
    if (!t.empty()) by_line.add(t, j);
    for_each_token(want[j], [&](std::string_view tok) { by_token.add(tok, j); });
  }
  if (trimmed_slots != nullptr) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if ((*trimmed_slots)[i] != 0 && by_line.may_see((*trimmed_slots)[i]))
        by_line.see(trim(lines[i]), i);
  } else {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string_view t = trim(lines[i]);
      if (!t.empty()) by_line.see(t, i);
    }
  }
  by_line.vote(votes, 1.0);
  std::vector<std::size_t> candidates = best_voted(votes);

  // Tokens find the region when its lines changed; when a candidate already
  // has at least half of the needle's non-blank lines as they are, they
  // would only add cost (a pass over every token of the file).
  std::size_t needle_lines = 0;
  for (std::string_view l : want) needle_lines += trim(l).empty() ? 0 : 1;
  const bool found = std::any_of(candidates.begin(), candidates.end(), [&](std::size_t s) {
    std::size_t same = 0;
    for (std::size_t j = 0; j < k; ++j) {
      std::string_view t = trim(want[j]);
      same += !t.empty() && t == trim(lines[s + j]) ? 1 : 0;
    }
    return 2 * same >= needle_lines;
  });
  if (!found && !by_token.empty()) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      for_each_token(trim(lines[i]), [&](std::string_view tok) { by_token.see(tok, i); });
    by_token.vote(votes, 0.2);
    candidates = best_voted(votes);
  }
  if (candidates.empty()) {
    for (std::size_t s = 0; s < std::min(starts, kScoreAllWindows); ++s) candidates.push_back(s);
  }

  std::size_t best = candidates.front();
  double best_score = -1;
  bool complete = true;
  const std::size_t cells = kClosestCellBudget / candidates.size();
  std::size_t bytes = 0;
  for (std::size_t s : candidates) {
    const std::size_t window_bytes =
        static_cast<std::size_t>(lines[s + k - 1].data() - lines[s].data()) +
        lines[s + k - 1].size() + needle.size() + k;
    if (s != candidates.front() && bytes + window_bytes > kClosestByteBudget) {
      complete = false;
      break;
    }
    bytes += window_bytes;
    Lines window(lines.begin() + static_cast<std::ptrdiff_t>(s),
                 lines.begin() + static_cast<std::ptrdiff_t>(s + k));
    double score = similarity::lines_ratio(window, want, cells);
    if (score > best_score) {
      best_score = score;
      best = s;
    }
  }
  Closest c;
  c.lines = {best + 1, best + k};
  c.text = text::join_lines(lines, best, best + k);
  c.similarity = round_down(best_score);
  c.complete = complete;
  c.begin = static_cast<std::size_t>(lines[best].data() - text.data());
  c.end = static_cast<std::size_t>(lines[best + k - 1].data() - text.data()) +
          lines[best + k - 1].size();
  return c;
}

std::uint64_t token_mask(const char* p, std::size_t len) {
  std::uint64_t in = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  // 16 bytes at a time: letters ((c | 0x20) - 'a' < 26), digits, '_', and the
  // bytes >= 0x80 (their sign bit), with signed compares after a shift by 0x80.
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i to_letter = _mm_set1_epi8(static_cast<char>(0x80 - 'a'));
  const __m128i letter_end = _mm_set1_epi8(static_cast<char>(-128 + 26));
  const __m128i to_digit = _mm_set1_epi8(static_cast<char>(0x80 - '0'));
  const __m128i digit_end = _mm_set1_epi8(static_cast<char>(-128 + 10));
  const __m128i underscore = _mm_set1_epi8('_');
  for (; i + 16 <= len; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i letter =
        _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case_bit), to_letter), letter_end);
    const __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, to_digit), digit_end);
    const __m128i token =
        _mm_or_si128(_mm_or_si128(letter, digit), _mm_or_si128(_mm_cmpeq_epi8(v, underscore), v));
    in |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(token))} << i;
  }
#endif
  for (; i < len; ++i) in |= std::uint64_t{kTokenChar[static_cast<unsigned char>(p[i])]} << i;
  return in;
}

nlohmann::json closest_json(const Closest& c) {
  return {{"startLine", c.lines.start_line},
          {"endLine", c.lines.end_line},
          {"text", c.text},
          {"similarity", c.similarity}};
}

}  // namespace editd::match
