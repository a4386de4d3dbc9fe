#include "edit/diff.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

namespace editd::diff {
namespace {

// Work limit for the Myers search of the middle part (snake steps plus
// diagonals visited): about a few tens of milliseconds.
constexpr std::int64_t kWorkBudget = 30'000'000;

// Myers' forward search over a[0,n) and b[0,m) (ids). Returns the matched pairs
// in increasing order, or nullopt when the budget ran out.
std::optional<std::vector<std::pair<std::size_t, std::size_t>>> myers(const std::int32_t* a,
                                                                      std::int64_t n,
                                                                      const std::int32_t* b,
                                                                      std::int64_t m) {
  const std::int64_t max = n + m;
  std::vector<std::int64_t> v(2 * max + 3, 0);
  const std::int64_t off = max + 1;
  // trace[d] holds v[k] for k in [-d-1, d+1] at the start of round d.
  std::vector<std::vector<std::int64_t>> trace;
  std::int64_t work = 0;
  bool done = false;
  for (std::int64_t d = 0; d <= max && !done; ++d) {
    trace.emplace_back(v.begin() + (off - d - 1), v.begin() + (off + d + 2));
    for (std::int64_t k = -d; k <= d; k += 2) {
      std::int64_t x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                           ? v[off + k + 1]
                           : v[off + k - 1] + 1;
      std::int64_t y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y, ++work;
      v[off + k] = x;
      if (x >= n && y >= m) {
        done = true;
        break;
      }
      if (++work > kWorkBudget) return std::nullopt;
    }
  }
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  std::int64_t x = n, y = m;
  for (std::int64_t d = static_cast<std::int64_t>(trace.size()) - 1; d >= 0; --d) {
    const auto& t = trace[d];
    auto at = [&](std::int64_t k) { return t[k + d + 1]; };
    std::int64_t k = x - y;
    std::int64_t prev_k = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    std::int64_t prev_x = at(prev_k);
    std::int64_t prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y && x > 0 && y > 0) {
      --x, --y;
      pairs.emplace_back(x, y);
    }
    x = prev_x;
    y = prev_y;
    if (x <= 0 && y <= 0) break;
  }
  std::reverse(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

std::vector<Block> diff_lines(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b) {
  const std::size_t n = a.size(), m = b.size();
  std::size_t pre = 0;
  while (pre < n && pre < m && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf]) ++suf;
  const std::size_t a_end = n - suf, b_end = m - suf;
  std::vector<Block> blocks;
  if (pre == a_end && pre == b_end) return blocks;
  if (pre == a_end || pre == b_end) {
    blocks.push_back({pre, a_end, pre, b_end});
    return blocks;
  }

  // Intern the middle lines so that the search compares integers.
  std::unordered_map<std::string_view, std::int32_t> ids;
  std::vector<std::int32_t> ia, ib;
  ia.reserve(a_end - pre);
  ib.reserve(b_end - pre);
  auto id = [&](std::string_view s) {
    return ids.emplace(s, static_cast<std::int32_t>(ids.size())).first->second;
  };
  for (std::size_t i = pre; i < a_end; ++i) ia.push_back(id(a[i]));
  for (std::size_t i = pre; i < b_end; ++i) ib.push_back(id(b[i]));

  auto pairs = myers(ia.data(), ia.size(), ib.data(), ib.size());
  if (!pairs) {
    blocks.push_back({pre, a_end, pre, b_end});
    return blocks;
  }
  std::size_t x = 0, y = 0;
  for (auto [px, py] : *pairs) {
    if (px != x || py != y) blocks.push_back({pre + x, pre + px, pre + y, pre + py});
    x = px + 1;
    y = py + 1;
  }
  if (x != ia.size() || y != ib.size())
    blocks.push_back({pre + x, pre + ia.size(), pre + y, pre + ib.size()});
  return blocks;
}

namespace {

struct Side {
  std::vector<std::string_view> lines;  // without "\n"
  bool final_newline = true;
};

Side split(std::string_view s) {
  Side side;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      side.lines.push_back(s.substr(start));
      side.final_newline = false;
      break;
    }
    side.lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return side;
}

std::string range(std::size_t start, std::size_t count) {
  // GNU style: a one-line range omits its count; an empty range names the line before it.
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

}  // namespace

UnifiedDiff unified(std::string_view old_text, std::string_view new_text,
                    std::string_view old_label, std::string_view new_label, int context) {
  UnifiedDiff out;
  if (old_text == new_text) return out;
  Side a = split(old_text), b = split(new_text);
  // A last line without "\n" differs from the same text with one: compare with a marker.
  std::string a_last, b_last;
  if (!a.final_newline) {
    a_last = std::string(a.lines.back()) + '\0';
    a.lines.back() = a_last;
  }
  if (!b.final_newline) {
    b_last = std::string(b.lines.back()) + '\0';
    b.lines.back() = b_last;
  }
  std::vector<Block> blocks = diff_lines(a.lines, b.lines);
  auto print = [&](char tag, std::string_view line) {
    out.text.push_back(tag);
    bool no_newline = !line.empty() && line.back() == '\0';
    if (no_newline) line.remove_suffix(1);
    out.text.append(line);
    out.text.push_back('\n');
    if (no_newline) out.text.append("\\ No newline at end of file\n");
  };

  out.text.append("--- ").append(old_label).append("\n");
  out.text.append("+++ ").append(new_label).append("\n");
  const std::size_t ctx = static_cast<std::size_t>(context);
  std::size_t i = 0;
  while (i < blocks.size()) {
    // Group blocks whose gaps are at most 2 * context lines.
    std::size_t j = i;
    while (j + 1 < blocks.size() && blocks[j + 1].a_begin - blocks[j].a_end <= 2 * ctx) ++j;
    std::size_t a_start = blocks[i].a_begin > ctx ? blocks[i].a_begin - ctx : 0;
    std::size_t b_start = blocks[i].b_begin - (blocks[i].a_begin - a_start);
    std::size_t a_stop = std::min(a.lines.size(), blocks[j].a_end + ctx);
    std::size_t b_stop = blocks[j].b_end + (a_stop - blocks[j].a_end);
    out.text.append("@@ -" + range(a_start, a_stop - a_start) + " +" +
                    range(b_start, b_stop - b_start) + " @@\n");
    std::size_t x = a_start;
    for (std::size_t k = i; k <= j; ++k) {
      for (; x < blocks[k].a_begin; ++x) print(' ', a.lines[x]);
      for (std::size_t r = blocks[k].a_begin; r < blocks[k].a_end; ++r) print('-', a.lines[r]);
      for (std::size_t r = blocks[k].b_begin; r < blocks[k].b_end; ++r) print('+', b.lines[r]);
      out.removed += blocks[k].a_end - blocks[k].a_begin;
      out.added += blocks[k].b_end - blocks[k].b_begin;
      x = blocks[k].a_end;
    }
    for (; x < a_stop; ++x) print(' ', a.lines[x]);
    i = j + 1;
  }
  return out;
}

}  // namespace editd::diff
