// hunks::of_splices (hunks.h): a spliced change's hunks from the lines it
// touches alone.
#include <algorithm>

#include "edit/change/hunks.h"

namespace editd::hunks {

namespace {

// The start of the line holding byte `at`, then `extra` lines further up.
std::size_t line_start(std::string_view s, std::size_t at, std::size_t extra) {
  std::size_t i = std::min(at, s.size());
  for (std::size_t n = 0;; ++n) {
    while (i > 0 && s[i - 1] != '\n') --i;
    if (n == extra || i == 0) return i;
    --i;  // into the line above
  }
}

// The end (past its '\n') of the line holding byte `at - 1` when `at` is
// mid-line, else `at`; then `extra` lines further down.
std::size_t line_end(std::string_view s, std::size_t at, std::size_t extra) {
  std::size_t i = std::min(at, s.size());
  if (i > 0 && s[i - 1] != '\n') {
    const std::size_t nl = s.find('\n', i);
    i = nl == std::string_view::npos ? s.size() : nl + 1;
  }
  for (std::size_t n = 0; n < extra && i < s.size(); ++n) {
    const std::size_t nl = s.find('\n', i);
    i = nl == std::string_view::npos ? s.size() : nl + 1;
  }
  return i;
}

}  // namespace

namespace {

// The lines a window takes on each side of its splices: kContext, and one
// more for a splice whose bytes join the line after it to its last line
// (the hunk then takes that line in, and its context is the two after).
constexpr std::size_t kWindow = kContext + 1;

// The hunks of splices [first, last) of `splices`, whose lines with their
// context make one window of `file`: that window diffed against itself with
// the splices made. Lines counted from the window's start.
std::vector<Hunk> window_hunks(std::string_view file, std::size_t bom,
                               const std::vector<splice::Splice>& splices, std::size_t first,
                               std::size_t last, std::size_t& from) {
  const std::size_t begin = bom + splices[first].begin;
  const std::size_t end = bom + splices[last - 1].end;
  from = line_start(file, begin, kWindow);
  const std::size_t to = std::max(line_end(file, end, kWindow), line_end(file, begin, kWindow));
  std::string after(file.substr(from, begin - from));
  std::size_t at = begin;
  for (std::size_t i = first; i < last; ++i) {
    after.append(file.substr(at, bom + splices[i].begin - at));
    after.append(splices[i].bytes);
    at = bom + splices[i].end;
  }
  after.append(file.substr(at, to - at));
  return between(file.substr(from, to - from), after);
}

}  // namespace

std::vector<Hunk> of_splices(std::string_view file, std::size_t bom,
                             const std::vector<splice::Splice>& splices) {
  if (splices.empty()) return {};
  // Splices whose windows (their lines and kWindow lines on each side) do
  // not meet are diffed apart: several edits far apart in a large file (a
  // str_replace with edits) cost their own lines, not a diff of every line
  // between the first and the last.
  std::vector<Hunk> out;
  std::uint64_t lines_above = 0;  // of `file`, above the window
  std::size_t counted = 0;        // bytes of `file` whose newlines are in lines_above
  std::int64_t shift = 0;         // lines the windows above added less those they removed
  std::size_t first = 0;
  while (first < splices.size()) {
    std::size_t last = first + 1;
    std::size_t reach = line_end(file, bom + splices[first].end, kWindow);
    while (last < splices.size() &&
           line_start(file, bom + splices[last].begin, kWindow) <= reach) {
      reach = std::max(reach, line_end(file, bom + splices[last].end, kWindow));
      ++last;
    }
    std::size_t from = 0;
    std::vector<Hunk> hunks = window_hunks(file, bom, splices, first, last, from);
    lines_above += static_cast<std::uint64_t>(
        std::count(file.begin() + static_cast<std::ptrdiff_t>(counted),
                   file.begin() + static_cast<std::ptrdiff_t>(from), '\n'));
    counted = from;
    for (Hunk& h : hunks) {
      h.old_start += lines_above;
      h.new_start = static_cast<std::uint64_t>(static_cast<std::int64_t>(h.new_start + lines_above) +
                                               shift);
      out.push_back(std::move(h));
    }
    for (std::size_t i = out.size() - hunks.size(); i < out.size(); ++i)
      shift += static_cast<std::int64_t>(out[i].new_count) - static_cast<std::int64_t>(out[i].old_count);
    first = last;
  }
  return out;
}

}  // namespace editd::hunks
