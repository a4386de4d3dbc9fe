#include "edit/closest.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "edit/chars.h"
#include "edit/similarity.h"
#include "edit/text.h"

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

bool is_token_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         u >= 0x80;
}

template <class F>
void for_each_token(std::string_view line, F f) {
  for (std::size_t i = 0; i < line.size();) {
    if (!is_token_char(line[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && is_token_char(line[j])) ++j;
    if (j - i >= 2) f(line.substr(i, j - i));
    i = j;
  }
}

// Keys of the needle (trimmed lines, or tokens), interned to dense ids with
// the needle lines that carry each. A key of the file is first tested against
// a filter of the needle's (length, first and last byte), so that most keys the
// needle lacks are turned away before they are hashed.
class Keys {
 public:
  void add(std::string_view key, std::size_t j) {
    filter_[slot(key)] = true;
    auto [it, inserted] = ids_.try_emplace(hash_of(key), lines_.size());
    if (inserted) lines_.emplace_back();
    std::vector<std::size_t>& js = lines_[it->second];
    if (js.empty() || js.back() != j) js.push_back(j);
  }
  // The id of `key`, or -1 when the needle lacks it.
  std::ptrdiff_t find(std::string_view key) const {
    if (!filter_[slot(key)]) return -1;
    auto it = ids_.find(hash_of(key));
    return it == ids_.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
  }
  bool empty() const { return lines_.empty(); }
  std::size_t size() const { return lines_.size(); }
  const std::vector<std::size_t>& lines(std::size_t id) const { return lines_[id]; }

 private:
  static std::size_t slot(std::string_view key) {
    return (std::min<std::size_t>(key.size(), 31) << 10) |
           (static_cast<std::size_t>(static_cast<unsigned char>(key.front()) & 0x1F) << 5) |
           (static_cast<unsigned char>(key.back()) & 0x1F);
  }
  std::vector<bool> filter_ = std::vector<bool>(std::size_t{1} << 15, false);
  std::unordered_map<std::uint64_t, std::size_t> ids_;
  std::vector<std::vector<std::size_t>> lines_;
};

// Adds votes for windows from matches of keys: for each key, the file lines
// that carry it and the needle lines that carry it.
void vote(std::vector<double>& votes, const Keys& keys,
          const std::vector<std::pair<std::size_t, std::size_t>>& file_hits, double weight) {
  std::vector<std::size_t> freq(keys.size(), 0);
  for (const auto& [line, id] : file_hits) ++freq[id];
  const std::size_t last_start = votes.size() - 1;
  for (const auto& [line, id] : file_hits) {
    const std::vector<std::size_t>& js = keys.lines(id);
    const std::size_t f = freq[id];
    if (f * js.size() > kMaxVotesPerKey) continue;
    const double w = weight / static_cast<double>(f);
    for (std::size_t j : js) {
      std::size_t s = line >= j ? line - j : 0;
      votes[std::min(s, last_start)] += w;
    }
  }
}

}  // namespace

std::optional<Closest> closest_region(std::string_view text, std::string_view needle) {
  Lines lines = text::split_lines(text);
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
  std::vector<std::pair<std::size_t, std::size_t>> line_hits, token_hits;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim(lines[i]);
    if (t.empty()) continue;
    if (!by_line.empty())
      if (std::ptrdiff_t id = by_line.find(t); id >= 0)
        line_hits.push_back({i, static_cast<std::size_t>(id)});
    if (!by_token.empty())
      for_each_token(t, [&](std::string_view tok) {
        if (std::ptrdiff_t id = by_token.find(tok); id >= 0)
          token_hits.push_back({i, static_cast<std::size_t>(id)});
      });
  }
  vote(votes, by_line, line_hits, 1.0);
  vote(votes, by_token, token_hits, 0.2);

  std::vector<std::size_t> candidates;
  for (std::size_t s = 0; s < starts; ++s)
    if (votes[s] > 0) candidates.push_back(s);
  if (candidates.size() > kCandidates) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](std::size_t a, std::size_t b) { return votes[a] > votes[b]; });
    candidates.resize(kCandidates);
    std::sort(candidates.begin(), candidates.end());
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

}  // namespace editd::match
