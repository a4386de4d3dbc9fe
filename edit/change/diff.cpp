#include "edit/change/diff.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

namespace editd::diff {
namespace {

// Work limit shared by all searches of one diff_lines call (snake steps plus
// diagonals visited): on the order of a tenth of a second.
constexpr std::int64_t kWorkBudget = 30'000'000;

// Linear-space Myers (1986, section 4b) over interned lines: find the middle of
// an optimal path, then solve the two halves. Points are (x, y) with x indexing
// a and y indexing b; the diagonal of (x, y) is x - y. Changed regions are
// appended to `out` in order, offset by `base`, adjacent ones merged. T is
// an interned line id or a line's full-width hash.
template <typename T>
class Differ {
 public:
  Differ(const T* a, std::size_t na, const T* b, std::size_t nb, std::size_t base,
         std::vector<Block>& out)
      : a_(a),
        b_(b),
        // Diagonals of every subproblem, with one sentinel on each side, lie in
        // [-|b| - 1, |a| + 1].
        offset_(static_cast<std::ptrdiff_t>(nb) + 1),
        // Left unset, as GNU diff leaves them: a search writes each entry (or
        // its sentinel) before it reads it, and pages never reached are never
        // touched, which on a large file with few changes is most of them.
        fwd_(std::make_unique_for_overwrite<std::ptrdiff_t[]>(na + nb + 3)),
        bwd_(std::make_unique_for_overwrite<std::ptrdiff_t[]>(na + nb + 3)),
        base_(base),
        out_(out) {}

  // Appends the changes turning a[xoff, xlim) into b[yoff, ylim).
  void compare(std::ptrdiff_t xoff, std::ptrdiff_t xlim, std::ptrdiff_t yoff, std::ptrdiff_t ylim) {
    while (xoff < xlim && yoff < ylim && a_[xoff] == b_[yoff]) ++xoff, ++yoff;
    while (xoff < xlim && yoff < ylim && a_[xlim - 1] == b_[ylim - 1]) --xlim, --ylim;
    if (xoff == xlim && yoff == ylim) return;
    if (xoff == xlim || yoff == ylim || work_ > kWorkBudget) {
      emit(xoff, xlim, yoff, ylim);
      return;
    }
    std::optional<Point> mid = split(xoff, xlim, yoff, ylim);
    if (!mid) {
      emit(xoff, xlim, yoff, ylim);
      return;
    }
    // Both halves cost strictly less than the whole (which costs at least 2
    // here), so the recursion depth is logarithmic in the edit distance.
    compare(xoff, mid->x, yoff, mid->y);
    compare(mid->x, xlim, mid->y, ylim);
  }

 private:
  struct Point {
    std::ptrdiff_t x, y;
  };

  // A point on an optimal path from (xoff, yoff) to (xlim, ylim), or nullopt
  // when the budget ran out. Needs a non-empty box with no common prefix or
  // suffix. The forward and backward searches hold, per diagonal, the furthest
  // x reached with the current cost; like GNU diff's diag(), the searched
  // diagonals grow by one each round until they hit the box, with sentinels
  // just outside them.
  std::optional<Point> split(std::ptrdiff_t xoff, std::ptrdiff_t xlim, std::ptrdiff_t yoff,
                             std::ptrdiff_t ylim) {
    constexpr std::ptrdiff_t kNone = std::numeric_limits<std::ptrdiff_t>::max();
    const T* const a = a_;
    const T* const b = b_;
    // Counted locally: the stores into fd and bd could alias work_.
    std::int64_t work = work_;
    auto done = [&](std::optional<Point> mid) {
      work_ = work;
      return mid;
    };
    std::ptrdiff_t* fd = fwd_.get() + offset_;
    std::ptrdiff_t* bd = bwd_.get() + offset_;
    const std::ptrdiff_t dmin = xoff - ylim, dmax = xlim - yoff;
    const std::ptrdiff_t fmid = xoff - yoff, bmid = xlim - ylim;
    // With an odd delta the paths first meet on a forward step, otherwise on a
    // backward one.
    const bool odd = ((fmid - bmid) & 1) != 0;
    std::ptrdiff_t fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
    fd[fmid] = xoff;
    bd[bmid] = xlim;
    for (;;) {
      if (fmin > dmin) {
        fd[--fmin - 1] = -1;
      } else {
        ++fmin;
      }
      if (fmax < dmax) {
        fd[++fmax + 1] = -1;
      } else {
        --fmax;
      }
      for (std::ptrdiff_t d = fmax; d >= fmin; d -= 2) {
        const std::ptrdiff_t lo = fd[d - 1], hi = fd[d + 1];
        // A step off the box's right or bottom edge stays on the edge instead.
        std::ptrdiff_t x = std::min({lo < hi ? hi : lo + 1, xlim, ylim + d});
        std::ptrdiff_t y = x - d;
        const std::ptrdiff_t x0 = x;
        while (x < xlim && y < ylim && a[x] == b[y]) ++x, ++y;
        work += 1 + (x - x0);
        fd[d] = x;
        if (odd && bmin <= d && d <= bmax && bd[d] <= x) return done(Point{x, y});
        if (work > kWorkBudget) return done(std::nullopt);
      }

      if (bmin > dmin) {
        bd[--bmin - 1] = kNone;
      } else {
        ++bmin;
      }
      if (bmax < dmax) {
        bd[++bmax + 1] = kNone;
      } else {
        --bmax;
      }
      for (std::ptrdiff_t d = bmax; d >= bmin; d -= 2) {
        const std::ptrdiff_t lo = bd[d - 1], hi = bd[d + 1];
        // Likewise for the left and top edges.
        std::ptrdiff_t x = std::max({lo < hi ? lo : hi - 1, xoff, yoff + d});
        std::ptrdiff_t y = x - d;
        const std::ptrdiff_t x0 = x;
        while (x > xoff && y > yoff && a[x - 1] == b[y - 1]) --x, --y;
        work += 1 + (x0 - x);
        bd[d] = x;
        if (!odd && fmin <= d && d <= fmax && x <= fd[d]) return done(Point{x, y});
        if (work > kWorkBudget) return done(std::nullopt);
      }
    }
  }

  void emit(std::ptrdiff_t xoff, std::ptrdiff_t xlim, std::ptrdiff_t yoff, std::ptrdiff_t ylim) {
    Block block{base_ + static_cast<std::size_t>(xoff), base_ + static_cast<std::size_t>(xlim),
                base_ + static_cast<std::size_t>(yoff), base_ + static_cast<std::size_t>(ylim)};
    if (!out_.empty() && out_.back().a_end == block.a_begin && out_.back().b_end == block.b_begin) {
      out_.back().a_end = block.a_end;
      out_.back().b_end = block.b_end;
    } else {
      out_.push_back(block);
    }
  }

  const T* a_;
  const T* b_;
  std::ptrdiff_t offset_;
  std::unique_ptr<std::ptrdiff_t[]> fwd_, bwd_;
  std::int64_t work_ = 0;
  std::size_t base_;
  std::vector<Block>& out_;
};

// The common prefix and suffix of a and b, as [pre, a_end) and [pre, b_end):
// what remains to compare. Blocks gets the whole answer when that is trivial.
template <typename V>
bool trim(const V& a, const V& b, std::size_t& pre, std::size_t& a_end, std::size_t& b_end,
          std::vector<Block>& blocks) {
  const std::size_t n = a.size(), m = b.size();
  pre = 0;
  while (pre < n && pre < m && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf]) ++suf;
  a_end = n - suf;
  b_end = m - suf;
  if (pre == a_end && pre == b_end) return false;
  if (pre == a_end || pre == b_end) {
    blocks.push_back({pre, a_end, pre, b_end});
    return false;
  }
  return true;
}

}  // namespace

std::vector<Block> diff_hashes(const std::vector<std::uint64_t>& a,
                               const std::vector<std::uint64_t>& b) {
  std::vector<Block> blocks;
  std::size_t pre = 0, a_end = 0, b_end = 0;
  if (!trim(a, b, pre, a_end, b_end, blocks)) return blocks;
  Differ<std::uint64_t>(a.data() + pre, a_end - pre, b.data() + pre, b_end - pre, pre, blocks)
      .compare(0, static_cast<std::ptrdiff_t>(a_end - pre), 0,
               static_cast<std::ptrdiff_t>(b_end - pre));
  return blocks;
}

std::vector<Block> diff_lines(const std::vector<std::string_view>& a,
                              const std::vector<std::string_view>& b) {
  std::vector<Block> blocks;
  std::size_t pre = 0, a_end = 0, b_end = 0;
  if (!trim(a, b, pre, a_end, b_end, blocks)) return blocks;

  // Intern the middle lines so that the search compares integers.
  std::unordered_map<std::string_view, std::int32_t> ids;
  std::vector<std::int32_t> ia, ib;
  ids.reserve((a_end - pre) + (b_end - pre));
  ia.reserve(a_end - pre);
  ib.reserve(b_end - pre);
  auto id = [&](std::string_view s) {
    return ids.emplace(s, static_cast<std::int32_t>(ids.size())).first->second;
  };
  for (std::size_t i = pre; i < a_end; ++i) ia.push_back(id(a[i]));
  for (std::size_t i = pre; i < b_end; ++i) ib.push_back(id(b[i]));

  Differ<std::int32_t>(ia.data(), ia.size(), ib.data(), ib.size(), pre, blocks)
      .compare(0, static_cast<std::ptrdiff_t>(ia.size()), 0,
               static_cast<std::ptrdiff_t>(ib.size()));
  return blocks;
}

}  // namespace editd::diff
