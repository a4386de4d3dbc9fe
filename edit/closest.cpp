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

// Adds votes for windows from matches of keys: for each key, the file lines
// that carry it and the needle lines that carry it.
void vote(std::vector<double>& votes,
          const std::unordered_map<std::uint64_t, std::vector<std::size_t>>& needle_lines,
          const std::vector<std::pair<std::size_t, std::uint64_t>>& file_hits, double weight) {
  std::unordered_map<std::uint64_t, std::size_t> freq;
  for (const auto& [line, key] : file_hits) ++freq[key];
  const std::size_t last_start = votes.size() - 1;
  for (const auto& [line, key] : file_hits) {
    const auto& js = needle_lines.at(key);
    const std::size_t f = freq[key];
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

  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_line, by_token;
  for (std::size_t j = 0; j < want.size(); ++j) {
    std::string_view t = trim(want[j]);
    if (!t.empty()) by_line[hash_of(t)].push_back(j);
    for_each_token(want[j], [&](std::string_view tok) {
      auto& js = by_token[hash_of(tok)];
      if (js.empty() || js.back() != j) js.push_back(j);
    });
  }
  std::vector<std::pair<std::size_t, std::uint64_t>> line_hits, token_hits;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim(lines[i]);
    if (t.empty()) continue;
    if (!by_line.empty())
      if (std::uint64_t h = hash_of(t); by_line.count(h)) line_hits.push_back({i, h});
    if (!by_token.empty())
      for_each_token(t, [&](std::string_view tok) {
        if (std::uint64_t h = hash_of(tok); by_token.count(h)) token_hits.push_back({i, h});
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
  for (std::size_t s : candidates) {
    Lines window(lines.begin() + static_cast<std::ptrdiff_t>(s),
                 lines.begin() + static_cast<std::ptrdiff_t>(s + k));
    double score = similarity::lines_ratio(window, want);
    if (score > best_score) {
      best_score = score;
      best = s;
    }
  }
  Closest c;
  c.lines = {best + 1, best + k};
  c.text = text::join_lines(lines, best, best + k);
  c.similarity = round_down(best_score);
  return c;
}

}  // namespace editd::match
