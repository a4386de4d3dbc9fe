// Windows of a file's lines that equal a pattern of lines under some
// normalisation: where str_replace's line tiers find oldText (match/tiers.cpp) and
// where apply_patch's seeker finds a chunk (patch/seek.cpp).
//
// Comparing the pattern at every start costs O(file lines x pattern lines) when
// lines repeat (a file of `a` lines and an oldText of 50,000 of them). Instead
// each distinct pattern line gets an id, a file line gets the id of the
// pattern line it equals (by hash, then by text) or none, and windows are the
// occurrences of the pattern's ids among the file's, found by Knuth-Morris-Pratt
// in one pass: O(file + pattern) for any input, in either direction.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace editd::line_window {

// The hash the ids are looked up by (XXH3).
std::uint64_t hash(std::string_view line);

// A pattern's lines, already normalised, interned to ids.
class Pattern {
 public:
  explicit Pattern(std::vector<std::string> lines);

  std::size_t size() const { return ids_.size(); }
  std::span<const std::int32_t> ids() const { return ids_; }

  // The id of the pattern line equal to `line` (normalised like the
  // pattern's), whose hash() is `h`; -1 when none is.
  std::int32_t id(std::uint64_t h, std::string_view line) const;
  std::int32_t id(std::string_view line) const { return id(hash(line), line); }

  // Whether some pattern line has this hash: a cheap test before normalising
  // (one bit of a 4096-bit filter, then the table).
  bool may_hold(std::uint64_t h) const {
    if (((filter_[(h >> 6) & 63] >> (h & 63)) & 1) == 0) return false;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (table_[i].id < 0) return false;
      if (table_[i].hash == h) return true;
    }
  }

  // Knuth-Morris-Pratt state over a stream of ids, fed in file order
  // (`reversed` false) or backwards. feed() returns true when the last size()
  // ids fed are the pattern (read in the same direction).
  class Scanner {
   public:
    Scanner(const Pattern& p, bool reversed) : p_(p), reversed_(reversed) {}
    bool feed(std::int32_t id);

   private:
    std::int32_t at(std::size_t i) const;
    const Pattern& p_;
    bool reversed_;
    std::size_t matched_ = 0;
  };

 private:
  // Open addressing, linear probing, at most half full: a line is looked up
  // for every line of the file, so the table is flat. Lines whose hashes are
  // equal (but not their text) take successive slots.
  struct Slot {
    std::uint64_t hash = 0;
    std::int32_t id = -1;  // -1: empty
  };
  std::vector<std::string> lines_;  // distinct lines, by id
  std::vector<Slot> table_;
  std::size_t mask_ = 0;
  std::array<std::uint64_t, 64> filter_{};  // bit h % 4096 of each line's hash
  std::vector<std::int32_t> ids_;
  std::vector<std::size_t> border_, reversed_border_;  // KMP failure tables
};

// The first window start s of `p` with `begin <= s <= end` (so the windows
// read lines begin .. end + p.size() - 1), the smallest one, or with
// `downward`, the largest one. `id_of(i)` gives the id of line i (see
// Pattern::id). Each line is asked for once; O(end - begin + p.size()).
template <class IdOf>
std::optional<std::size_t> first(const Pattern& p, std::size_t begin, std::size_t end,
                                 bool downward, IdOf id_of) {
  const std::size_t k = p.size();
  if (k == 0 || begin > end) return std::nullopt;
  Pattern::Scanner scan(p, downward);
  if (!downward) {
    for (std::size_t i = begin; i < end + k; ++i)
      if (scan.feed(id_of(i))) return i + 1 - k;
  } else {
    for (std::size_t i = end + k; i-- > begin;)
      if (scan.feed(id_of(i))) return i;
  }
  return std::nullopt;
}

// The window start nearest to `hint` within [begin, end] (hint is clamped
// there), trying hint, hint+1, hint-1, hint+2, hint-2...: after before before
// at equal distance. The search widens by doubling, so a hit at distance d
// costs O(d + p.size()) lines asked for (each a bounded number of times).
template <class IdOf>
std::optional<std::size_t> nearest(const Pattern& p, std::size_t begin, std::size_t end,
                                   std::size_t hint, IdOf id_of) {
  if (p.size() == 0 || begin > end) return std::nullopt;
  hint = std::max(begin, std::min(hint, end));
  for (std::size_t r = p.size();; r *= 2) {
    const std::size_t up_end = end - hint > r ? hint + r : end;
    const std::size_t down_begin = hint - begin > r ? hint - r : begin;
    std::optional<std::size_t> up = first(p, hint, up_end, false, id_of);
    std::optional<std::size_t> down;
    if (hint > begin) down = first(p, down_begin, hint - 1, true, id_of);
    if (up && (!down || *up - hint <= hint - *down)) return up;
    if (down) return down;
    if (up_end == end && down_begin == begin) return std::nullopt;
  }
}

}  // namespace editd::line_window
