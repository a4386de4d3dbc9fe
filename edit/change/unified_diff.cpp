#include "edit/change/unified_diff.h"

#include <algorithm>
#include <cstring>

#include "edit/text/chars.h"

namespace editd::diff {

namespace {

// True where a range may end without cutting a line: the start or the end of
// the text, or just after a "\n".
bool at_line_boundary(std::string_view s, std::size_t pos) {
  return pos == 0 || pos == s.size() || s[pos - 1] == '\n';
}

using chars::count_newlines;

// Lines of `s` with their "\n" (the last one may lack it).
std::vector<std::string_view> pieces(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t nl = s.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
    out.push_back(s.substr(start, end - start));
    start = end;
  }
  return out;
}

// Windows widened to whole lines on both sides and merged where they meet.
std::vector<Window> widen(std::string_view a, std::string_view b, const std::vector<Window>& in) {
  std::vector<Window> out;
  std::size_t i = 0;
  auto back_to_line_start = [&](Window w) {
    std::size_t start = w.old_begin == 0 ? 0 : a.rfind('\n', w.old_begin - 1);
    start = start == std::string_view::npos || w.old_begin == 0 ? 0 : start + 1;
    const std::size_t d = w.old_begin - start;
    w.old_begin -= d;
    w.new_begin -= d;
    return w;
  };
  while (i < in.size()) {
    Window cur = back_to_line_start(in[i++]);
    while (true) {
      // Forward, through text both sides share, until both end a line.
      while (!(at_line_boundary(a, cur.old_end) && at_line_boundary(b, cur.new_end))) {
        std::size_t nl = a.find('\n', cur.old_end);
        std::size_t target = nl == std::string_view::npos ? a.size() : nl + 1;
        // A window that starts where this line ends joins too: at the end of a text
        // without a final newline, b ends its line only after it.
        if (i < in.size() && in[i].old_begin <= target) {
          cur.old_end = in[i].old_end;
          cur.new_end = in[i].new_end;
          ++i;
          continue;
        }
        const std::size_t d = target - cur.old_end;
        cur.old_end += d;
        cur.new_end += d;
      }
      if (i < in.size() && back_to_line_start(in[i]).old_begin <= cur.old_end) {
        cur.old_end = in[i].old_end;
        cur.new_end = in[i].new_end;
        ++i;
        continue;
      }
      break;
    }
    out.push_back(cur);
  }
  return out;
}

std::string range(std::size_t start, std::size_t count) {
  // GNU style: a one-line range omits its count; an empty range names the line before it.
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

// A changed run of lines: old lines [old_line, old_line + removed.size()) at
// bytes [old_byte, old_byte_end) of the old text became `added`, which start
// at new line `new_line`. Lines between two changes are equal on both sides.
struct Change {
  std::size_t old_line = 0, new_line = 0;
  std::size_t old_byte = 0, old_byte_end = 0;
  std::vector<std::string_view> removed, added;
};

class Printer {
 public:
  explicit Printer(UnifiedDiff& out) : out_(out) {}

  void line(char tag, std::string_view l) {
    out_.text.push_back(tag);
    const bool newline = !l.empty() && l.back() == '\n';
    out_.text.append(l);
    if (!newline) out_.text.append("\n\\ No newline at end of file\n");
  }

 private:
  UnifiedDiff& out_;
};

// Up to `n` whole lines of `a` that end at `pos` (a line start).
std::vector<std::string_view> lines_before(std::string_view a, std::size_t pos, std::size_t n,
                                           std::size_t floor) {
  std::vector<std::string_view> out;
  std::size_t end = pos;
  while (out.size() < n && end > floor) {
    std::size_t start = end - 1 == 0 ? 0 : a.rfind('\n', end - 2);
    start = start == std::string_view::npos || end - 1 == 0 ? 0 : start + 1;
    start = std::max(start, floor);
    out.push_back(a.substr(start, end - start));
    end = start;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

// Up to `n` whole lines of `a` from `pos` (a line start), not past `ceiling`.
std::vector<std::string_view> lines_after(std::string_view a, std::size_t pos, std::size_t n,
                                          std::size_t ceiling) {
  std::vector<std::string_view> out;
  while (out.size() < n && pos < ceiling) {
    std::size_t nl = a.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? a.size() : nl + 1;
    end = std::min(end, ceiling);
    out.push_back(a.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

}  // namespace

UnifiedDiff unified_windows(std::string_view a, std::string_view b,
                            const std::vector<Window>& windows, std::string_view old_label,
                            std::string_view new_label, int context, std::size_t first_line) {
  UnifiedDiff out;
  // Equal texts (an edit that changed nothing): outside the windows they
  // agree, so comparing the windows is enough (not the whole file again).
  bool equal = a.size() == b.size();
  for (const Window& w : windows)
    equal = equal && a.substr(w.old_begin, w.old_end - w.old_begin) ==
                         b.substr(w.new_begin, w.new_end - w.new_begin);
  if (equal) return out;
  // Each widened window's lines are diffed; the changed runs, in whole-file
  // line numbers, are what the hunks are made of.
  std::vector<Change> changes;
  {
    std::size_t counted = 0, line = first_line;
    long shift = 0;  // new line index minus old line index, before the current window
    for (const Window& w : widen(a, b, windows)) {
      if (w.old_begin == w.old_end && w.new_begin == w.new_end) continue;
      line += count_newlines(a.substr(counted, w.old_begin - counted));
      counted = w.old_begin;
      const std::vector<std::string_view> old_lines =
          pieces(a.substr(w.old_begin, w.old_end - w.old_begin));
      const std::vector<std::string_view> new_lines =
          pieces(b.substr(w.new_begin, w.new_end - w.new_begin));
      std::size_t x = 0, byte = w.old_begin;
      for (const Block& blk : diff_lines(old_lines, new_lines)) {
        for (; x < blk.a_begin; ++x) byte += old_lines[x].size();
        Change c;
        c.old_line = line + blk.a_begin;
        c.new_line = static_cast<std::size_t>(static_cast<long>(line + blk.b_begin) + shift);
        c.old_byte = byte;
        for (; x < blk.a_end; ++x) {
          c.removed.push_back(old_lines[x]);
          byte += old_lines[x].size();
        }
        c.old_byte_end = byte;
        c.added.assign(new_lines.begin() + static_cast<std::ptrdiff_t>(blk.b_begin),
                       new_lines.begin() + static_cast<std::ptrdiff_t>(blk.b_end));
        changes.push_back(std::move(c));
      }
      shift += static_cast<long>(new_lines.size()) - static_cast<long>(old_lines.size());
    }
  }
  if (changes.empty()) return out;

  out.text.append("--- ").append(old_label).append("\n");
  out.text.append("+++ ").append(new_label).append("\n");
  Printer print(out);
  const std::size_t ctx = static_cast<std::size_t>(context);
  auto old_end_line = [](const Change& c) { return c.old_line + c.removed.size(); };
  std::size_t i = 0;
  while (i < changes.size()) {
    // Changes whose gaps are at most 2 * context lines share a hunk.
    std::size_t j = i;
    while (j + 1 < changes.size() && changes[j + 1].old_line - old_end_line(changes[j]) <= 2 * ctx)
      ++j;
    const std::vector<std::string_view> before = lines_before(a, changes[i].old_byte, ctx, 0);
    const std::vector<std::string_view> after =
        lines_after(a, changes[j].old_byte_end, ctx, a.size());
    const std::size_t old_start = changes[i].old_line - before.size();
    const std::size_t new_start = changes[i].new_line - before.size();
    const std::size_t span = old_end_line(changes[j]) + after.size() - old_start;
    std::size_t old_count = span, new_count = span;
    for (std::size_t k = i; k <= j; ++k)
      new_count = new_count + changes[k].added.size() - changes[k].removed.size();
    out.text.append("@@ -" + range(old_start, old_count) + " +" + range(new_start, new_count) +
                    " @@\n");
    for (std::string_view l : before) print.line(' ', l);
    for (std::size_t k = i; k <= j; ++k) {
      const Change& c = changes[k];
      for (std::string_view l : c.removed) print.line('-', l);
      for (std::string_view l : c.added) print.line('+', l);
      out.removed += c.removed.size();
      out.added += c.added.size();
      if (k < j)
        for (std::string_view l :
             lines_after(a, c.old_byte_end, ~std::size_t{0}, changes[k + 1].old_byte))
          print.line(' ', l);
    }
    for (std::string_view l : after) print.line(' ', l);
    i = j + 1;
  }
  return out;
}

UnifiedDiff unified_texts(std::string_view a, std::string_view b, std::string_view old_label,
                          std::string_view new_label, int context) {
  if (a == b) return {};
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t pre = 0;
  while (pre < n && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < n - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  return unified_windows(a, b, {{pre, a.size() - suf, pre, b.size() - suf}}, old_label, new_label,
                         context);
}

}  // namespace editd::diff
