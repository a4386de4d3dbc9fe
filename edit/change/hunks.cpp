#include "edit/change/hunks.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>

#include "edit/change/diff.h"
#include "edit/text/text.h"

namespace editd::hunks {
namespace {

// Common prefix and suffix compare this many bytes at once with memcmp.
constexpr std::size_t kBlock = 4096;

// Whether `pos` is where a line of `text` begins (or its end, after a '\n').
bool starts_line(std::string_view text, std::size_t pos) {
  return pos == 0 || text[pos - 1] == '\n';
}

// The lines of `text`, each with its '\n' (the last may have none).
std::size_t count_lines(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) +
         (!text.empty() && text.back() != '\n' ? 1 : 0);
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t p = 0;
  while (p + kBlock <= n && std::memcmp(a.data() + p, b.data() + p, kBlock) == 0) p += kBlock;
  while (p < n && a[p] == b[p]) ++p;
  return p;
}

// The common suffix of `a` and `b`, at most `limit` bytes.
std::size_t common_suffix(std::string_view a, std::string_view b, std::size_t limit) {
  std::size_t s = 0;
  while (s + kBlock <= limit && std::memcmp(a.data() + a.size() - s - kBlock,
                                            b.data() + b.size() - s - kBlock, kBlock) == 0)
    s += kBlock;
  while (s < limit && a[a.size() - 1 - s] == b[b.size() - 1 - s]) ++s;
  return s;
}

// Up to `n` whole lines of `text` just before `pos` (a line start).
std::string_view lines_before(std::string_view text, std::size_t pos, std::size_t n) {
  std::size_t from = pos;
  for (std::size_t i = 0; i < n && from > 0; ++i) {
    const std::size_t nl = from >= 2 ? text.rfind('\n', from - 2) : std::string_view::npos;
    from = nl == std::string_view::npos ? 0 : nl + 1;
  }
  return text.substr(from, pos - from);
}

// Up to `n` whole lines of `text` from `pos` (a line start).
std::string_view lines_from(std::string_view text, std::size_t pos, std::size_t n) {
  std::size_t to = pos;
  for (std::size_t i = 0; i < n && to < text.size(); ++i) {
    const std::size_t nl = text.find('\n', to);
    to = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return text.substr(pos, to - pos);
}

// Whether the whole lines `lines` stand in `text` from `pos` (a line start):
// their bytes, ending where a line ends.
bool stand_at(std::string_view text, std::size_t pos, std::string_view lines) {
  return text.substr(pos).starts_with(lines) &&
         (lines.empty() || lines.back() == '\n' || pos + lines.size() == text.size());
}

// Whether the whole lines `lines` end in `text` at `pos` (a line start).
bool end_at(std::string_view text, std::size_t pos, std::string_view lines) {
  return lines.size() <= pos && text.substr(pos - lines.size(), lines.size()) == lines &&
         starts_line(text, pos - lines.size());
}

// Whether `h` stands in `current` at `pos` (a line start) as its change left
// it: its new lines, and when `with_context` its context beside them (an
// empty context: the file's edge). Old lines without a final '\n' were the
// file's end, and can go back only at its end.
bool stands(std::string_view current, std::size_t pos, const Hunk& h, bool with_context) {
  if (!stand_at(current, pos, h.new_text)) return false;
  const std::size_t end = pos + h.new_text.size();
  if (!h.old_text.empty() && h.old_text.back() != '\n' && end != current.size()) return false;
  if (!with_context) return true;
  const bool before_fits =
      h.context_before.empty() ? pos == 0 : end_at(current, pos, h.context_before);
  const bool after_fits =
      h.context_after.empty() ? end == current.size() : stand_at(current, end, h.context_after);
  return before_fits && after_fits;
}

// Whether `h` says what it counts: old_count lines of old text, new_count of new.
bool well_formed(const Hunk& h) {
  return count_lines(h.old_text) == h.old_count && count_lines(h.new_text) == h.new_count;
}

// The one place of `current` (a line start) where `h` stands with its
// context; nullopt when none does or more than one.
std::optional<std::size_t> search(std::string_view current, const Hunk& h) {
  std::string needle = h.context_before;
  needle += h.new_text;
  needle += h.context_after;
  std::optional<std::size_t> found;
  for (std::size_t at = current.find(needle); at != std::string_view::npos;
       at = at < current.size() ? current.find(needle, at + 1) : std::string_view::npos) {
    const std::size_t pos = at + h.context_before.size();
    if (!starts_line(current, pos) || !stands(current, pos, h, true)) continue;
    if (found) return std::nullopt;  // a second place: not a guess
    found = pos;
  }
  return found;
}

// Where a hunk goes back, as a non-empty half-open range in doubled byte
// offsets: lines [b, e) as [2b + 1, 2e), the point p between lines as
// [2p, 2p + 1). Two places then clash exactly when their ranges meet: lines
// that share a byte, a point strictly inside lines, or two points at the
// same place (whose old lines' order would be a guess). A point at the edge
// of lines does not clash: its old lines go there, before or after theirs.
struct Span {
  std::size_t lo, hi;
};
Span span(std::size_t begin, std::size_t end) {
  return begin == end ? Span{2 * begin, 2 * begin + 1} : Span{2 * begin + 1, 2 * end};
}

// Adds `s` to `taken` (disjoint spans by lo) unless it meets one of them.
bool take(std::map<std::size_t, std::size_t>& taken, Span s) {
  auto next = taken.lower_bound(s.lo);
  if (next != taken.end() && next->first < s.hi) return false;
  if (next != taken.begin() && std::prev(next)->second > s.lo) return false;
  taken.emplace(s.lo, s.hi);
  return true;
}

// The lines of `current` from `line`: up to `n` of them, up to kFoundMax bytes.
std::string found_at(std::string_view current, const std::vector<std::size_t>& starts,
                     std::uint64_t line, std::uint64_t n) {
  const std::size_t lines = starts.size() - 1;
  if (line >= lines) return {};
  const std::size_t last = static_cast<std::size_t>(std::min<std::uint64_t>(lines, line + n));
  const std::size_t from = starts[static_cast<std::size_t>(line)];
  return std::string(current.substr(from, std::min(starts[last] - from, kFoundMax)));
}

}  // namespace

std::vector<Hunk> between(std::string_view before, std::string_view after,
                          std::size_t max_window_lines) {
  const std::size_t prefix = common_prefix(before, after);
  if (prefix == before.size() && prefix == after.size()) return {};
  // The window starts after the last whole line of the common prefix...
  const std::size_t nl = prefix == 0 ? std::string_view::npos : before.rfind('\n', prefix - 1);
  const std::size_t head = nl == std::string_view::npos ? 0 : nl + 1;
  // ...and ends where the first whole line of the common suffix begins in
  // both (the suffix stays clear of the head).
  std::size_t tail = common_suffix(before, after, std::min(before.size(), after.size()) - head);
  if (!starts_line(before, before.size() - tail) || !starts_line(after, after.size() - tail)) {
    const std::size_t first = before.find('\n', before.size() - tail);
    tail = first == std::string_view::npos ? 0 : before.size() - first - 1;
  }
  const std::string_view a = before.substr(head, before.size() - tail - head);
  const std::string_view b = after.substr(head, after.size() - tail - head);
  const std::vector<std::size_t> a_starts = text::line_starts(a), b_starts = text::line_starts(b);
  const std::size_t na = a_starts.size() - 1, nb = b_starts.size() - 1;

  std::vector<diff::Block> blocks;
  if (std::max(na, nb) > max_window_lines) {
    blocks.push_back({0, na, 0, nb});
  } else {
    std::vector<std::string_view> a_lines, b_lines;
    a_lines.reserve(na);
    b_lines.reserve(nb);
    for (std::size_t i = 0; i < na; ++i)
      a_lines.push_back(a.substr(a_starts[i], a_starts[i + 1] - a_starts[i]));
    for (std::size_t i = 0; i < nb; ++i)
      b_lines.push_back(b.substr(b_starts[i], b_starts[i + 1] - b_starts[i]));
    blocks = diff::diff_lines(a_lines, b_lines);
  }

  const auto head_lines =
      static_cast<std::uint64_t>(std::count(before.begin(), before.begin() + head, '\n'));
  std::vector<Hunk> out;
  out.reserve(blocks.size());
  for (const diff::Block& block : blocks) {
    Hunk& h = out.emplace_back();
    h.old_start = head_lines + block.a_begin;
    h.old_count = block.a_end - block.a_begin;
    h.new_start = head_lines + block.b_begin;
    h.new_count = block.b_end - block.b_begin;
    h.old_text.assign(
        a.substr(a_starts[block.a_begin], a_starts[block.a_end] - a_starts[block.a_begin]));
    h.new_text.assign(
        b.substr(b_starts[block.b_begin], b_starts[block.b_end] - b_starts[block.b_begin]));
    h.context_before.assign(lines_before(after, head + b_starts[block.b_begin], kContext));
    h.context_after.assign(lines_from(after, head + b_starts[block.b_end], kContext));
  }
  return out;
}

std::optional<std::uint64_t> follow(const Hunk& h, const std::vector<std::vector<Hunk>>& later) {
  std::uint64_t start = h.new_start;
  for (const std::vector<Hunk>& change : later) {
    const std::uint64_t end = start + h.new_count;
    std::int64_t shift = 0;
    for (const Hunk& g : change) {
      const std::uint64_t g_end = g.old_start + g.old_count;
      const bool inserts = g.old_count == 0;
      if (inserts ? (start < g.old_start && g.old_start < end) ||
                        (h.new_count == 0 && g.old_start == start)
                  : g.old_start < end && start < g_end)
        return std::nullopt;  // replaced, removed, or lines put among them
      if (inserts ? g.old_start <= start : g_end <= start)
        shift += static_cast<std::int64_t>(g.new_count) - static_cast<std::int64_t>(g.old_count);
    }
    if (shift < 0 && static_cast<std::uint64_t>(-shift) > start)
      return std::nullopt;  // not hunks of h's file
    start = static_cast<std::uint64_t>(static_cast<std::int64_t>(start) + shift);
  }
  return start;
}

Reverted revert(std::string_view current, const std::vector<const Hunk*>& hunks,
                const std::vector<std::optional<std::uint64_t>>& expected) {
  const std::vector<std::size_t> starts = text::line_starts(current);
  const std::size_t lines = starts.size() - 1;
  struct Place {
    std::size_t begin, end;
    const Hunk* hunk;
  };
  std::vector<Place> places;
  places.reserve(hunks.size());
  std::map<std::size_t, std::size_t> taken;
  for (std::size_t i = 0; i < hunks.size(); ++i) {
    const Hunk& h = *hunks[i];
    const bool known = i < expected.size() && expected[i].has_value();
    const std::uint64_t look = known ? *expected[i] : h.new_start;  // where it should be
    const auto conflict = [&](std::uint64_t line) {
      return Reverted{std::nullopt,
                      Conflict{i, found_at(current, starts, line, h.new_count + kContext), line}};
    };
    std::optional<std::size_t> pos;
    if (well_formed(h)) {
      if (known && look <= lines && stands(current, starts[look], h, h.new_count == 0))
        pos = starts[look];
      if (!pos) pos = search(current, h);
    }
    if (!pos) return conflict(look);
    const std::size_t end = *pos + h.new_text.size();
    if (!take(taken, span(*pos, end))) {
      const auto line = std::upper_bound(starts.begin(), starts.end(), *pos) - starts.begin() - 1;
      return conflict(static_cast<std::uint64_t>(line));
    }
    places.push_back({*pos, end, &h});
  }
  std::sort(places.begin(), places.end(), [](const Place& x, const Place& y) {
    return span(x.begin, x.end).lo < span(y.begin, y.end).lo;
  });
  std::string out;
  std::size_t size = current.size();
  for (const Place& p : places) size = size - (p.end - p.begin) + p.hunk->old_text.size();
  out.reserve(size);
  std::size_t from = 0;
  for (const Place& p : places) {
    out.append(current.substr(from, p.begin - from));
    out.append(p.hunk->old_text);
    from = p.end;
  }
  out.append(current.substr(from));
  return Reverted{std::move(out), std::nullopt};
}

std::optional<std::string> undo_all(std::string_view after, const std::vector<Hunk>& hunks) {
  std::string out;
  std::size_t from = 0;         // bytes of `after` copied so far
  std::uint64_t from_line = 0;  // the line `from` begins
  for (const Hunk& h : hunks) {
    if (h.new_start < from_line || !well_formed(h)) return std::nullopt;
    std::size_t pos = from;
    for (; from_line < h.new_start; ++from_line) {
      const std::size_t nl = after.find('\n', pos);
      if (nl == std::string_view::npos) return std::nullopt;  // past the end
      pos = nl + 1;
    }
    if (!stand_at(after, pos, h.new_text)) return std::nullopt;
    if (!h.old_text.empty() && h.old_text.back() != '\n' && pos + h.new_text.size() != after.size())
      return std::nullopt;
    out.append(after.substr(from, pos - from));
    out.append(h.old_text);
    from = pos + h.new_text.size();
    from_line += h.new_count;
  }
  out.append(after.substr(from));
  return out;
}

std::uint64_t held_by(const std::vector<Hunk>& hunks) {
  std::uint64_t n = 0;
  for (const Hunk& h : hunks)
    n += h.old_text.size() + h.new_text.size() + h.context_before.size() + h.context_after.size();
  return n;
}

}  // namespace editd::hunks
