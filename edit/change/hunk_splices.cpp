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

std::vector<Hunk> of_splices(std::string_view file, std::size_t bom,
                             const std::vector<splice::Splice>& splices) {
  if (splices.empty()) return {};
  const std::size_t begin = bom + splices.front().begin;
  const std::size_t end = bom + splices.back().end;
  const std::size_t from = line_start(file, begin, kContext);
  const std::size_t to = std::max(line_end(file, end, kContext), line_end(file, begin, kContext));
  std::string after(file.substr(from, begin - from));
  std::size_t at = begin;
  for (const splice::Splice& sp : splices) {
    after.append(file.substr(at, bom + sp.begin - at));
    after.append(sp.bytes);
    at = bom + sp.end;
  }
  after.append(file.substr(at, to - at));
  std::vector<Hunk> out = between(file.substr(from, to - from), after);
  const auto lines_above =
      static_cast<std::uint64_t>(std::count(file.begin(), file.begin() + from, '\n'));
  for (Hunk& h : out) {
    h.old_start += lines_above;
    h.new_start += lines_above;
  }
  return out;
}

}  // namespace editd::hunks
