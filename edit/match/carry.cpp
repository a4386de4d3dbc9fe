#include "edit/match/carry.h"

#include <algorithm>

#include "edit/change/diff.h"
#include "edit/text/chars.h"
#include "edit/text/text.h"

namespace editd::carry {

namespace {

constexpr std::string_view kFeff = text::kBom;  // U+FEFF, the BOM when it starts a file

// The code points of valid UTF-8 `s`, each a view of its bytes.
std::vector<std::string_view> code_points(std::string_view s) {
  std::vector<std::string_view> out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    n = std::min(n, s.size() - i);
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

// Merges two changes when the equal stretch between them is no longer than
// either: keeping one shared letter of two different words only scatters the
// model's word over the file's letters.
std::vector<diff::Block> merge_short_equalities(const std::vector<diff::Block>& blocks) {
  std::vector<diff::Block> out;
  for (const diff::Block& b : blocks) {
    if (!out.empty()) {
      diff::Block& p = out.back();
      const std::size_t equal = b.a_begin - p.a_end;
      const std::size_t before = std::max(p.a_end - p.a_begin, p.b_end - p.b_begin);
      const std::size_t after = std::max(b.a_end - b.a_begin, b.b_end - b.b_begin);
      if (equal <= before && equal <= after) {
        p.a_end = b.a_end;
        p.b_end = b.b_end;
        continue;
      }
    }
    out.push_back(b);
  }
  return out;
}

std::string folded(std::string_view s) {
  std::string out;
  chars::fold_unicode(s, out);
  return out;
}

bool all_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return chars::is_blank_char(c); });
}

// A line cut into clusters, each one visible code point with the zero-width
// ones before it, so that every cluster folds to at least one character. Only
// the content counts: the clusters between the leading and the trailing ones
// that fold to blanks (or to nothing).
struct Clusters {
  struct Cluster {
    std::size_t raw_begin;   // in the line
    std::size_t fold_begin;  // in `fold`
  };
  std::vector<Cluster> at;
  std::string fold;  // the content, folded
  std::size_t content_begin = 0, content_end = 0;

  explicit Clusters(std::string_view line) {
    struct Piece {
      std::size_t begin, end;
      std::string fold;
    };
    std::vector<Piece> pieces;
    std::size_t pending = std::string_view::npos;  // first zero-width code point waiting
    std::size_t pos = 0;
    for (std::string_view cp : code_points(line)) {
      std::string f = folded(cp);
      const std::size_t begin = pos;
      pos += cp.size();
      if (f.empty()) {
        if (pending == std::string_view::npos) pending = begin;
        continue;
      }
      pieces.push_back({pending == std::string_view::npos ? begin : pending, pos, std::move(f)});
      pending = std::string_view::npos;
    }
    std::size_t first = 0, last = pieces.size();
    while (first < last && all_blank(pieces[first].fold)) ++first;
    while (last > first && all_blank(pieces[last - 1].fold)) --last;
    if (first == last) {
      content_begin = content_end = line.size();
      return;
    }
    content_begin = pieces[first].begin;
    content_end = pieces[last - 1].end;
    for (std::size_t i = first; i < last; ++i) {
      at.push_back({pieces[i].begin, fold.size()});
      fold += pieces[i].fold;
    }
  }

  std::size_t size() const { return at.size(); }
  std::size_t raw(std::size_t i) const { return i < size() ? at[i].raw_begin : content_end; }
  std::size_t fold_pos(std::size_t i) const { return i < size() ? at[i].fold_begin : fold.size(); }

  // The cluster holding raw byte `b` of the content (size() at its end).
  std::size_t holding_raw(std::size_t b) const {
    auto it = std::upper_bound(at.begin(), at.end(), b,
                               [](std::size_t v, const Cluster& c) { return v < c.raw_begin; });
    return it == at.begin() ? 0 : static_cast<std::size_t>(it - at.begin()) - 1;
  }

  // The cluster holding folded position `p` (size() at the end).
  std::size_t holding_fold(std::size_t p) const {
    if (p >= fold.size()) return size();
    auto it = std::upper_bound(at.begin(), at.end(), p,
                               [](std::size_t v, const Cluster& c) { return v < c.fold_begin; });
    return it == at.begin() ? 0 : static_cast<std::size_t>(it - at.begin()) - 1;
  }

  // The nearest cluster boundary at or before / at or after folded position p.
  std::size_t floor_boundary(std::size_t p) const { return fold_pos(holding_fold(p)); }
  std::size_t ceil_boundary(std::size_t p) const {
    const std::size_t i = holding_fold(p);
    return fold_pos(i) == p ? p : fold_pos(i + 1);
  }
};

// One change of the model's line, widened to whole clusters of oldText's line:
// clusters [c0, c1) of old, whose bytes old[ob, oe) became new[nb, ne).
struct Region {
  std::size_t c0, c1;
  std::size_t ob, oe, nb, ne;
};

// How alike two lines are, cheaply: their common prefix and suffix (blanks
// trimmed) over the longer one.
double likeness(std::string_view a, std::string_view b) {
  a = chars::trim(a);
  b = chars::trim(b);
  const std::size_t longer = std::max(a.size(), b.size());
  if (longer == 0) return 1;
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    ++suf;
  return static_cast<double>(pre + suf) / static_cast<double>(longer);
}

// Pairs below this likeness are not the same line rewritten.
constexpr double kPairLikeness = 0.5;
// Blocks with more line pairs than this are not paired (the model's lines are written).
constexpr std::size_t kMaxPairs = 10000;

// For each new line, the old line it rewrites, if any: one for one when both
// sides have as many lines, else the monotone pairing of most total likeness.
std::vector<std::optional<std::size_t>> pair_lines(const Lines& old_lines,
                                                   const std::vector<std::string>& new_lines) {
  const std::size_t a = old_lines.size(), b = new_lines.size();
  std::vector<std::optional<std::size_t>> pairs(b);
  if (a == b) {
    for (std::size_t j = 0; j < b; ++j) pairs[j] = j;
    return pairs;
  }
  if (a == 0 || b == 0 || a * b > kMaxPairs) return pairs;
  std::vector<double> like(a * b);
  for (std::size_t i = 0; i < a; ++i)
    for (std::size_t j = 0; j < b; ++j) like[i * b + j] = likeness(old_lines[i], new_lines[j]);
  // best[i][j]: the most likeness pairing old[0, i) with new[0, j) can have.
  std::vector<double> best((a + 1) * (b + 1), 0);
  auto at = [&](std::size_t i, std::size_t j) -> double& { return best[i * (b + 1) + j]; };
  for (std::size_t i = 1; i <= a; ++i)
    for (std::size_t j = 1; j <= b; ++j) {
      double v = std::max(at(i - 1, j), at(i, j - 1));
      const double l = like[(i - 1) * b + (j - 1)];
      if (l >= kPairLikeness) v = std::max(v, at(i - 1, j - 1) + l);
      at(i, j) = v;
    }
  for (std::size_t i = a, j = b; i > 0 && j > 0;) {
    const double l = like[(i - 1) * b + (j - 1)];
    if (l >= kPairLikeness && at(i, j) == at(i - 1, j - 1) + l) {
      pairs[j - 1] = i - 1;
      --i, --j;
    } else if (at(i, j) == at(i - 1, j)) {
      --i;
    } else {
      --j;
    }
  }
  return pairs;
}

}  // namespace

std::vector<CharChange> diff_chars(std::string_view a, std::string_view b) {
  const std::vector<std::string_view> ca = code_points(a), cb = code_points(b);
  const std::size_t n = ca.size(), m = cb.size();
  std::vector<diff::Block> blocks;
  if (n > kMaxDiffCodePoints || m > kMaxDiffCodePoints) {
    std::size_t pre = 0;
    while (pre < n && pre < m && ca[pre] == cb[pre]) ++pre;
    std::size_t suf = 0;
    while (suf < n - pre && suf < m - pre && ca[n - 1 - suf] == cb[m - 1 - suf]) ++suf;
    if (pre + suf < n || pre + suf < m) blocks.push_back({pre, n - suf, pre, m - suf});
  } else {
    blocks = merge_short_equalities(diff::diff_lines(ca, cb));
  }
  auto offset = [](std::string_view s, const std::vector<std::string_view>& cps, std::size_t i) {
    return i < cps.size() ? static_cast<std::size_t>(cps[i].data() - s.data()) : s.size();
  };
  std::vector<CharChange> out;
  out.reserve(blocks.size());
  for (const diff::Block& blk : blocks)
    out.push_back({offset(a, ca, blk.a_begin), offset(a, ca, blk.a_end), offset(b, cb, blk.b_begin),
                   offset(b, cb, blk.b_end)});
  return out;
}

std::optional<std::string> carry_line(std::string_view file_line, std::string_view old_line,
                                      std::string_view new_line) {
  const Clusters f(file_line), o(old_line), n(new_line);
  if (f.fold != o.fold) return std::nullopt;
  const std::string_view o_content =
      old_line.substr(o.content_begin, o.content_end - o.content_begin);
  const std::string_view n_content =
      new_line.substr(n.content_begin, n.content_end - n.content_begin);

  std::vector<Region> regions;
  for (const CharChange& ch : diff_chars(o_content, n_content)) {
    Region r{0,
             0,
             o.content_begin + ch.a_begin,
             o.content_begin + ch.a_end,
             n.content_begin + ch.b_begin,
             n.content_begin + ch.b_end};
    r.c0 = r.ob == o.content_end ? o.size() : o.holding_raw(r.ob);
    if (r.oe > r.ob)
      r.c1 = o.holding_raw(r.oe - 1) + 1;
    else
      r.c1 = r.c0 < o.size() && o.raw(r.c0) != r.ob ? r.c0 + 1 : r.c0;
    // Widen to a boundary of both lines' clusters: `…` against `...`.
    std::size_t p = o.fold_pos(r.c0), q = o.fold_pos(r.c1);
    for (;;) {
      const std::size_t np = o.floor_boundary(f.floor_boundary(p));
      const std::size_t nq = o.ceil_boundary(f.ceil_boundary(q));
      if (np == p && nq == q) break;
      p = np;
      q = nq;
    }
    r.c0 = o.holding_fold(p);
    r.c1 = o.holding_fold(q);
    if (!regions.empty() && r.c0 < regions.back().c1) {
      Region& prev = regions.back();
      prev.c1 = std::max(prev.c1, r.c1);
      prev.oe = r.oe;
      prev.ne = r.ne;
      continue;
    }
    regions.push_back(r);
  }

  // Blanks around the content: newText's, except where the model left
  // oldText's as they were and the file's fold like them (no-break spaces
  // where the model wrote spaces): those the model did not change.
  auto blanks = [&](std::string_view file_part, std::string_view old_part,
                    std::string_view new_part) {
    return new_part == old_part && folded(file_part) == folded(old_part) ? std::string(file_part)
                                                                         : without_feff(new_part);
  };
  std::string out =
      blanks(file_line.substr(0, f.content_begin), old_line.substr(0, o.content_begin),
             new_line.substr(0, n.content_begin));
  std::size_t pos = f.content_begin;
  for (const Region& r : regions) {
    const std::size_t ob = o.raw(r.c0), oe = o.raw(r.c1);
    std::string text = without_feff(std::string(old_line.substr(ob, r.ob - ob)) +
                                    std::string(new_line.substr(r.nb, r.ne - r.nb)) +
                                    std::string(old_line.substr(r.oe, oe - r.oe)));
    const std::size_t fb = f.raw(f.holding_fold(o.fold_pos(r.c0)));
    const std::size_t fe = f.raw(f.holding_fold(o.fold_pos(r.c1)));
    const bool widened = ob != r.ob || oe != r.oe;
    if (widened && folded(text) == folded(file_line.substr(fb, fe - fb))) continue;
    out.append(file_line.substr(pos, fb - pos));
    out += text;
    pos = fe;
  }
  out.append(file_line.substr(pos, f.content_end - pos));
  out += blanks(file_line.substr(f.content_end), old_line.substr(o.content_end),
                new_line.substr(n.content_end));
  // The result must say what the model's line says, character for folded character.
  if (chars::fold(out) != chars::fold(new_line)) return std::nullopt;
  return out;
}

std::vector<std::string> carry_lines(const Lines& file, const Lines& old_lines,
                                     const std::vector<std::string>& new_lines) {
  const std::vector<std::optional<std::size_t>> pairs = pair_lines(old_lines, new_lines);
  std::vector<std::string> out;
  out.reserve(new_lines.size());
  for (std::size_t j = 0; j < new_lines.size(); ++j) {
    std::optional<std::string> line;
    if (pairs[j]) line = carry_line(file[*pairs[j]], old_lines[*pairs[j]], new_lines[j]);
    out.push_back(line ? std::move(*line) : without_feff(new_lines[j]));
  }
  return out;
}

std::string without_feff(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t pos = 0;;) {
    const std::size_t at = s.find(kFeff, pos);
    out.append(s.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
    if (at == std::string_view::npos) return out;
    pos = at + kFeff.size();
  }
}

std::string keep_matched_feff(std::string_view old_text, std::string_view new_text) {
  if (new_text.find(kFeff) == std::string_view::npos) return std::string(new_text);
  if (old_text.find(kFeff) == std::string_view::npos) return without_feff(new_text);
  std::string out;
  std::size_t pos = 0;
  for (const CharChange& ch : diff_chars(old_text, new_text)) {
    out.append(new_text.substr(pos, ch.b_begin - pos));
    out += without_feff(new_text.substr(ch.b_begin, ch.b_end - ch.b_begin));
    pos = ch.b_end;
  }
  out.append(new_text.substr(pos));
  return out;
}

}  // namespace editd::carry
