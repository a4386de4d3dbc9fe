#include "edit/change/format_scope.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "edit/change/diff.h"
#include "edit/text/text.h"

namespace editd::format_scope {
namespace {

// The lines of a text, each a view with its "\n".
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text), starts_(text::line_starts(text)) {}

  std::size_t size() const { return starts_.size() - 1; }
  std::string_view operator[](std::size_t i) const {
    return text_.substr(starts_[i], starts_[i + 1] - starts_[i]);
  }
  // Lines [begin, end) as one view.
  std::string_view range(std::size_t begin, std::size_t end) const {
    return text_.substr(starts_[begin], starts_[end] - starts_[begin]);
  }
  std::size_t offset(std::size_t i) const { return starts_[i]; }

 private:
  std::string_view text_;
  std::vector<std::size_t> starts_;
};

// A change of lines: old [ob, oe) became new [nb, ne).
struct Piece {
  std::size_t ob, oe, nb, ne;
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

std::string without_space(std::string_view line) {
  std::string key;
  key.reserve(line.size());
  for (char c : line)
    if (!is_space(c)) key.push_back(c);
  return key;
}

// A line's words: its letters, digits, '_' and every non-ASCII byte, with
// whitespace and ASCII punctuation left out. A formatter that changes quotes,
// commas, semicolons or parentheses leaves a line's words as they were.
std::string words_of(std::string_view line) {
  std::string key;
  key.reserve(line.size());
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
        c == '_')
      key.push_back(c);
  }
  return key;
}

using Key = std::string (*)(std::string_view);

// Splits the change `run` into pieces by a diff of its lines' keys: each pair
// of lines whose keys are equal a piece of its own (none when the lines are
// equal), the runs between them one piece each.
void split_run(const Lines& a, const Lines& b, const Piece& run, Key key, std::vector<Piece>& out) {
  if (run.ob == run.oe || run.nb == run.ne || (run.oe - run.ob == 1 && run.ne - run.nb == 1)) {
    out.push_back(run);
    return;
  }
  std::vector<std::string> a_keys, b_keys;
  a_keys.reserve(run.oe - run.ob);
  b_keys.reserve(run.ne - run.nb);
  for (std::size_t i = run.ob; i < run.oe; ++i) a_keys.push_back(key(a[i]));
  for (std::size_t i = run.nb; i < run.ne; ++i) b_keys.push_back(key(b[i]));
  const std::vector<std::string_view> a_views(a_keys.begin(), a_keys.end());
  const std::vector<std::string_view> b_views(b_keys.begin(), b_keys.end());
  std::size_t ai = run.ob, bi = run.nb;
  auto pairs_until = [&](std::size_t a_stop) {
    for (; ai < a_stop; ++ai, ++bi)
      if (a[ai] != b[bi]) out.push_back({ai, ai + 1, bi, bi + 1});
  };
  for (const diff::Block& k : diff::diff_lines(a_views, b_views)) {
    pairs_until(run.ob + k.a_begin);
    out.push_back({ai, run.ob + k.a_end, bi, run.nb + k.b_end});
    ai = run.ob + k.a_end;
    bi = run.nb + k.b_end;
  }
  pairs_until(run.oe);
}

// What a side of a piece holds that a formatter never moves between lines
// that stay apart: its words (letters, digits, '_' and non-ASCII bytes, each
// maximal run) and how many brackets of each kind it leaves open. As one
// number that two sides share when they hold the same: the sum of a hash of
// each word, and of each bracket counted +1 when it opens and -1 when it
// closes (a collision can only join pieces that could stay apart).
std::uint64_t content_sum(const Lines& lines, std::size_t begin, std::size_t end) {
  std::uint64_t sum = 0;
  const std::hash<std::string_view> hash;
  for (std::size_t l = begin; l < end; ++l) {
    const std::string_view line = lines[l];
    std::size_t word = std::string_view::npos;
    for (std::size_t i = 0; i <= line.size(); ++i) {
      const auto u = i < line.size() ? static_cast<unsigned char>(line[i]) : 0;
      const bool in_word = i < line.size() && (u >= 0x80 || (u >= '0' && u <= '9') ||
                                               (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                                               u == '_');
      if (in_word && word == std::string_view::npos) word = i;
      if (!in_word && word != std::string_view::npos) {
        sum += hash(line.substr(word, i - word)) | 1;
        word = std::string_view::npos;
      }
      static constexpr std::string_view kOpen = "([{", kClose = ")]}";
      if (const auto k = kOpen.find(static_cast<char>(u)); u != 0 && k != kOpen.npos)
        sum += 0x9E3779B97F4A7C15ull * (k + 1);
      if (const auto k = kClose.find(static_cast<char>(u)); u != 0 && k != kClose.npos)
        sum -= 0x9E3779B97F4A7C15ull * (k + 1);
    }
  }
  return sum;
}

// Joins pieces that took a line's content apart. The splits pair lines by
// their text or words alone, so a brace the formatter joins to the line above
// (`f()` + `{` -> `f() {`), or the words of a line it spreads over several,
// can end in a piece other than the one that lost them: made or dropped
// apart, they would be lost or written twice. A piece whose old and new lines
// hold different content (content_sum) is joined with the pieces after it, up
// to the first with which the content is the same on both sides; one that no
// later piece evens out (a formatter that changes a word itself, such as a
// number's case) stays as it is.
void join_torn(const Lines& a, const Lines& b, std::vector<Piece>& pieces) {
  if (pieces.size() < 2) return;
  // prefix[i]: the new side's content less the old side's, over pieces [0, i).
  std::vector<std::uint64_t> prefix(pieces.size() + 1, 0);
  for (std::size_t i = 0; i < pieces.size(); ++i)
    prefix[i + 1] = prefix[i] + content_sum(b, pieces[i].nb, pieces[i].ne) -
                    content_sum(a, pieces[i].ob, pieces[i].oe);
  // next[i]: the first k > i with prefix[k] == prefix[i], or 0.
  std::vector<std::size_t> next(pieces.size() + 1, 0);
  std::unordered_map<std::uint64_t, std::size_t> seen;
  for (std::size_t k = pieces.size() + 1; k-- > 0;) {
    if (auto it = seen.find(prefix[k]); it != seen.end()) next[k] = it->second;
    seen[prefix[k]] = k;
  }
  std::vector<Piece> joined;
  for (std::size_t i = 0; i < pieces.size();) {
    std::size_t end = i + 1;  // pieces [i, end) become one
    if (prefix[i + 1] != prefix[i] && next[i] > i) end = next[i];
    joined.push_back({pieces[i].ob, pieces[end - 1].oe, pieces[i].nb, pieces[end - 1].ne});
    i = end;
  }
  pieces = std::move(joined);
}

// Splits `block` (a changed block of the line diff) into pieces: each pair of
// lines whose texts differ only in whitespace a piece of its own; then, in
// each run between them, each pair whose words are the same (words_of: the
// formatter changed only punctuation and spacing) a piece of its own; what
// is left between those, one piece each. A pair of equal lines is no change
// and no piece.
void split_block(const Lines& a, const Lines& b, const diff::Block& block,
                 std::vector<Piece>& result) {
  std::vector<Piece> out;
  std::vector<Piece> spaced;
  split_run(a, b, {block.a_begin, block.a_end, block.b_begin, block.b_end}, &without_space,
            spaced);
  std::vector<Piece> worded;
  for (const Piece& p : spaced) {
    worded.clear();
    split_run(a, b, p, &words_of, worded);
    // A line without words that the split would add or remove on its own (a
    // brace joined to the line above it, a parenthesis split off) belongs to
    // its neighbours: taken apart from them it would be lost or doubled.
    // Then the run stays whole.
    const bool strands = std::any_of(worded.begin(), worded.end(), [&](const Piece& w) {
      if (w.ob != w.oe && w.nb != w.ne) return false;
      for (std::size_t l = w.ob; l < w.oe; ++l)
        if (words_of(a[l]).empty()) return true;
      for (std::size_t l = w.nb; l < w.ne; ++l)
        if (words_of(b[l]).empty()) return true;
      return false;
    });
    if (strands && worded.size() > 1)
      out.push_back(p);
    else
      out.insert(out.end(), worded.begin(), worded.end());
  }
  join_torn(a, b, out);
  result.insert(result.end(), out.begin(), out.end());
}

// A line the formatter moves (imports sorted, a declaration hoisted) is a
// removal in one piece and an addition in another: made on one side alone, it
// would be lost or written twice. So a kept piece that removes a line whose
// words a dropped piece adds, or adds one whose words a dropped piece
// removes, is dropped too, until no kept piece does (lines without words,
// such as a lone brace, are not followed). The edit's own lines then stay as
// the model wrote them rather than lose one.
void drop_moved_lines(const Lines& a, const Lines& b, const std::vector<Piece>& pieces,
                      std::vector<bool>& keep) {
  if (std::none_of(keep.begin(), keep.end(), [](bool k) { return k; }) ||
      std::all_of(keep.begin(), keep.end(), [](bool k) { return k; }))
    return;
  // Each piece's words removed (on an old line and no new one) and added.
  std::vector<std::set<std::string>> removed(pieces.size()), added(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    std::set<std::string> olds, news;
    for (std::size_t l = p.ob; l < p.oe; ++l)
      if (std::string k = words_of(a[l]); !k.empty()) olds.insert(std::move(k));
    for (std::size_t l = p.nb; l < p.ne; ++l)
      if (std::string k = words_of(b[l]); !k.empty()) news.insert(std::move(k));
    std::set_difference(olds.begin(), olds.end(), news.begin(), news.end(),
                        std::inserter(removed[i], removed[i].end()));
    std::set_difference(news.begin(), news.end(), olds.begin(), olds.end(),
                        std::inserter(added[i], added[i].end()));
  }
  auto meets = [](const std::set<std::string>& x, const std::set<std::string>& y) {
    return std::any_of(x.begin(), x.end(), [&y](const std::string& k) { return y.count(k) > 0; });
  };
  for (bool again = true; again;) {
    again = false;
    std::set<std::string> dropped_removed, dropped_added;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (keep[i]) continue;
      dropped_removed.insert(removed[i].begin(), removed[i].end());
      dropped_added.insert(added[i].begin(), added[i].end());
    }
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if (!keep[i] || (!meets(removed[i], dropped_added) && !meets(added[i], dropped_removed)))
        continue;
      keep[i] = false;
      again = true;
    }
  }
}

// Whether `range` keeps piece `p` (the rule in the header).
bool keeps(const Span& range, const Piece& p) {
  const std::size_t s = p.ob, hi = p.oe, f = range.first, e = range.end;
  if (s < e && f < hi) return true;
  const bool pure = p.ob == p.oe || p.nb == p.ne;
  return (pure || f == e) && s <= e && f <= hi;
}

bool kept_by_any(const std::vector<Span>& ranges, const Piece& p) {
  return std::any_of(ranges.begin(), ranges.end(), [&](const Span& r) { return keeps(r, p); });
}

// The formatter's output as the text may take it, to be diffed: CRLF folded,
// no BOM of its own, and one final line break (after every other one at the
// end is removed when the text has none: it cannot end with an empty line).
std::string conform(std::string_view normalized, std::string_view formatted) {
  std::string out = text::normalize_eol(formatted);
  if (!normalized.starts_with(text::kBom)) {
    std::size_t bom = 0;
    while (std::string_view(out).substr(bom).starts_with(text::kBom)) bom += text::kBom.size();
    out.erase(0, bom);
  }
  if (!normalized.ends_with('\n'))
    while (out.ends_with('\n')) out.pop_back();
  if (!out.empty() && !out.ends_with('\n')) out.push_back('\n');
  return out;
}

}  // namespace

Result<Scoped> scope(std::string_view normalized, std::string_view formatted,
                     const std::vector<Span>& changed, const Options& options) {
  if (formatted.size() > options.max_bytes)
    return Error(ErrorKind::kTooLarge,
                 "the formatter wrote " + std::to_string(formatted.size()) +
                     " bytes, more than the limit of " + std::to_string(options.max_bytes),
                 {{"reason", "size"}, {"size", formatted.size()}, {"limit", options.max_bytes}});
  if (auto ok = text::check_text(formatted, "the formatter's output"); ok.has_error())
    return ok.error();
  if (normalized.empty()) return Scoped{};
  const std::string out = conform(normalized, formatted);
  // Both texts are diffed with a final line break, so that the last line
  // compares by its text; the edits are made without the one the text lacks.
  const bool unterminated = !normalized.ends_with('\n');
  if (out.empty())
    return Error(ErrorKind::kDelegateFailed, "the formatter wrote no text for a non-empty file",
                 {{"reason", "empty"}});
  std::string terminated;
  if (unterminated) terminated = std::string(normalized) + '\n';
  const std::string_view old_text = unterminated ? std::string_view(terminated) : normalized;
  if (out == old_text) return Scoped{};

  const Lines a(old_text), b(out);
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  const std::size_t na = a.size() - head - tail, nb = b.size() - head - tail;
  if (std::max(na, nb) > options.max_window_lines)
    return Error(
        ErrorKind::kTooLarge,
        "the formatter's changes span " + std::to_string(std::max(na, nb)) +
            " lines, more than the " + std::to_string(options.max_window_lines) +
            " that are compared",
        {{"reason", "window"}, {"lines", std::max(na, nb)}, {"limit", options.max_window_lines}});

  std::vector<std::string_view> a_mid, b_mid;
  a_mid.reserve(na);
  b_mid.reserve(nb);
  for (std::size_t i = 0; i < na; ++i) a_mid.push_back(a[head + i]);
  for (std::size_t i = 0; i < nb; ++i) b_mid.push_back(b[head + i]);
  std::vector<Piece> pieces;
  for (diff::Block block : diff::diff_lines(a_mid, b_mid)) {
    block.a_begin += head, block.a_end += head, block.b_begin += head, block.b_end += head;
    split_block(a, b, block, pieces);
  }

  std::vector<Span> ranges = changed;
  for (Span& r : ranges) {
    r.first = std::min(r.first, a.size());
    r.end = std::clamp(r.end, r.first, a.size());
  }

  std::vector<bool> keeps_piece(pieces.size());
  for (std::size_t i = 0; i < pieces.size(); ++i) keeps_piece[i] = kept_by_any(ranges, pieces[i]);
  drop_moved_lines(a, b, pieces, keeps_piece);

  // Runs of pieces that follow each other and share the decision.
  struct Run {
    Piece lines;
    bool keep;
  };
  std::vector<Run> runs;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    const bool keep = keeps_piece[i];
    if (!runs.empty() && runs.back().keep == keep && runs.back().lines.oe == p.ob &&
        runs.back().lines.ne == p.nb) {
      runs.back().lines.oe = p.oe;
      runs.back().lines.ne = p.ne;
    } else {
      runs.push_back({p, keep});
    }
  }
  // Without a final newline, the text cannot end with an empty line: a kept
  // removal of its last lines that would leave one there is dropped.
  if (unterminated && !runs.empty() && runs.back().keep) {
    const Piece& last = runs.back().lines;
    if (last.oe == a.size() && last.nb == last.ne && last.ob > 0 && a[last.ob - 1] == "\n")
      runs.back().keep = false;
  }

  Scoped scoped;
  std::ptrdiff_t shift = 0;  // lines the kept hunks so far added, less those they removed
  for (const Run& run : runs) {
    if (!run.keep) {
      ++scoped.dropped;
      continue;
    }
    Hunk h{run.lines.ob, run.lines.oe - run.lines.ob, 0, run.lines.ne - run.lines.nb};
    std::string text(b.range(run.lines.nb, run.lines.ne));
    if (unterminated && run.lines.oe == a.size()) {
      // The text's end, without the break it lacks. Lines added after the
      // last line give it one, and removing the last lines takes the break
      // of the line before them: that line is part of the hunk.
      if ((h.old_count == 0 || h.new_count == 0) && h.old_start > 0) {
        text.insert(0, a[h.old_start - 1]);
        --h.old_start;
        ++h.old_count;
        ++h.new_count;
      }
      text.pop_back();
    }
    h.new_start = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(h.old_start) + shift);
    scoped.edits.push_back({a.offset(h.old_start),
                            std::min(a.offset(h.old_start + h.old_count), normalized.size()),
                            std::move(text)});
    scoped.kept.push_back(h);
    shift += static_cast<std::ptrdiff_t>(h.new_count) - static_cast<std::ptrdiff_t>(h.old_count);
  }
  return scoped;
}

}  // namespace editd::format_scope
