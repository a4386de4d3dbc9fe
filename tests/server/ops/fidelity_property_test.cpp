// Byte fidelity as a property: seeded random files (LF, CRLF, mixed endings,
// lone CRs, BOMs, with and without a final newline, tabs, multi-byte UTF-8)
// and random str_replace, insert and apply_patch calls, driven through
// Operations over the memory backend and checked against a small reference
// written here from the byte-fidelity rules (docs/protocol.md, "Byte
// fidelity"). The reference shares no code with edit/: it states the contract
// a second time, so that a bug in the edit core cannot hide behind the same
// bug in its test.
//
// Rules, as numbered in the contract:
//   1. bytes outside the splices never change (except rule 4);
//   2. what the replacement keeps keeps its stored bytes: common prefix and
//      suffix, then the common lines of the middles (an LCS of lines), then
//      each changed block's own common prefix and suffix;
//   3. written text uses the dominant ending D for '\n'; a "\r\n" in the
//      replacement is written as is, and is never kept from the old text;
//   4. the BOM never changes; after all splices, a body that lost its final
//      newline gets D appended, and one that gained one loses it;
//   6. in patches, a '\r' ending a '+' line is content, and unified
//      "\ No newline at end of file" markers decide the final newline.
// When a middle has several optimal line alignments, the exact bytes depend on
// the one the implementation picks; such cases get weaker checks (normalized
// text, untouched bytes around the splices, BOM, final newline).
//
// FIDELITY_SEED=<n> and FIDELITY_CASES=<n> in the environment run other seeds
// or more cases, FIDELITY_CASE=<i> only case i, and FIDELITY_SHOW=<n> shows n
// failures of each kind in full (3 by default).
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/memory/memory_backend.h"
#include "helpers/in_process.h"
#include "protocol/params.h"
#include "server/methods/shared.h"
#include "server/ops/operations.h"

using namespace editd;
namespace asio = boost::asio;

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::uint64_t kSeed = 0x5EED'F1DE'11E7'0001ull;
constexpr std::size_t kCases = 20000;

// ---------------------------------------------------------------------------
// Randomness and printing.

// splitmix64: tiny, seedable, the same on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  std::size_t between(std::size_t lo, std::size_t hi) { return lo + next() % (hi - lo + 1); }
  bool chance(int percent) { return next() % 100 < static_cast<std::uint64_t>(percent); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[next() % v.size()];
  }

 private:
  std::uint64_t state_;
};

// `s` as a C-style literal: \r, \n and \t visible, a BOM as \uFEFF.
std::string escape(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i, 3) == kBom) {
      out += "\\uFEFF";
      i += 2;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

// Where two byte strings first differ, for failure messages.
std::string first_difference(std::string_view want, std::string_view got) {
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  auto around = [i](std::string_view s) {
    std::size_t b = i < 8 ? 0 : i - 8, e = std::min(s.size(), i + 16);
    // Whole UTF-8 characters.
    while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
    while (e < s.size() && (static_cast<unsigned char>(s[e]) & 0xC0) == 0x80) ++e;
    return escape(s.substr(b, e - b));
  };
  return "first difference at byte " + std::to_string(i) + ": expected ..." + around(want) +
         ", got ..." + around(got);
}

// ---------------------------------------------------------------------------
// The reference.

// normalize(s): every "\r\n" becomes "\n"; a lone '\r' stays.
std::string normalize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) out.push_back(s[i]);
  return out;
}

// A file as the rules see it: BOM, body, normalized body N and the map from
// normalized offsets back to the body.
struct Decoded {
  bool bom = false;
  std::string body;
  std::string n;
  // crlf_before[q]: CRLF breaks whose '\n' is before normalized offset q.
  std::vector<std::size_t> crlf_before;
  std::string d;  // the dominant ending: "\r\n" when CRLF breaks outnumber LF ones
  std::vector<std::size_t> line_starts;  // in N

  std::size_t to_body(std::size_t q) const { return q + crlf_before[q]; }
  std::size_t line_count() const { return line_starts.size(); }
  std::size_t line_start(std::size_t l) const {
    return l < line_starts.size() ? line_starts[l] : n.size();
  }
  // Line l of N without its '\n'.
  std::string_view line(std::size_t l) const {
    std::size_t b = line_start(l), e = line_start(l + 1);
    if (e > b && n[e - 1] == '\n') --e;
    return std::string_view(n).substr(b, e - b);
  }
};

Decoded decode(std::string_view bytes) {
  Decoded f;
  f.bom = bytes.starts_with(kBom);
  f.body = std::string(bytes.substr(f.bom ? kBom.size() : 0));
  const std::string& b = f.body;
  std::size_t crlf = 0, lf = 0;
  f.crlf_before.push_back(0);
  for (std::size_t i = 0; i < b.size(); ++i) {
    bool is_crlf = b[i] == '\r' && i + 1 < b.size() && b[i + 1] == '\n';
    if (is_crlf) ++i;
    if (b[i] == '\n') ++(is_crlf ? crlf : lf);
    f.n.push_back(b[i]);
    f.crlf_before.push_back(crlf);
  }
  f.d = crlf > lf ? "\r\n" : "\n";
  if (!f.n.empty()) f.line_starts.push_back(0);
  for (std::size_t i = 0; i + 1 < f.n.size(); ++i)
    if (f.n[i] == '\n') f.line_starts.push_back(i + 1);
  return f;
}

// An edit: N[begin, end) becomes `text` (normalized, but may hold "\r\n": rule 6).
struct Edit {
  std::size_t begin = 0, end = 0;
  std::string text;
};

// A byte splice of the body.
struct Splice {
  std::size_t from = 0, to = 0;
  std::string bytes;
};

struct Plan {
  std::vector<Splice> splices;
  // Some middle has several optimal line alignments: the exact bytes depend on
  // which one the implementation picks (rule 2), so only weaker checks apply.
  bool ambiguous = false;
};

// Rule 6 meets rule 2: a "\r\n" in R (a '+' line ending in '\r') is written
// whole, so neither of its bytes is ever common with O. Read literally, rule 2
// would keep O's '\n' (stored "\r\n") after a new '\r': a CRLF patch line
// replacing a CRLF line would give "x\r\r\n" instead of rule 6's "x\r\n".
bool pinned(std::string_view r, std::size_t k) {
  return (r[k] == '\r' && k + 1 < r.size() && r[k + 1] == '\n') ||
         (r[k] == '\n' && k > 0 && r[k - 1] == '\r');
}

// Rule 2: the longest common prefix p of o and r[rb, re), then the longest
// common suffix s of what follows it.
std::pair<std::size_t, std::size_t> common_ends(std::string_view o, std::string_view r,
                                                std::size_t rb, std::size_t re) {
  std::size_t n = std::min(o.size(), re - rb), p = 0, s = 0;
  while (p < n && o[p] == r[rb + p] && !pinned(r, rb + p)) ++p;
  while (s < n - p && o[o.size() - 1 - s] == r[re - 1 - s] && !pinned(r, re - 1 - s)) ++s;
  return {p, s};
}

// Rule 3: r[from, to) as stored: a '\n' not preceded by '\r' in r is written as D.
std::string stored(std::string_view r, std::size_t from, std::size_t to, std::string_view d) {
  std::string out;
  for (std::size_t k = from; k < to; ++k) {
    if (r[k] == '\n' && !(k > 0 && r[k - 1] == '\r'))
      out.append(d);
    else
      out.push_back(r[k]);
  }
  return out;
}

// Rule 2, last step: the changed block N[ob, oe) -> r[rb, re) keeps its own
// common prefix and suffix; the rest is one splice.
void splice_block(const Decoded& f, std::string_view r, std::size_t ob, std::size_t oe,
                  std::size_t rb, std::size_t re, Plan& plan) {
  std::string_view o = std::string_view(f.n).substr(ob, oe - ob);
  auto [p, s] = common_ends(o, r, rb, re);
  if (p + s == o.size() && p + s == re - rb) return;
  plan.splices.push_back({f.to_body(ob + p), f.to_body(oe - s), stored(r, rb + p, re - s, f.d)});
}

// Rule 2: cuts s[from, to) into pieces that end just after a '\n'. Returns the
// piece boundaries: piece i is [bounds[i], bounds[i + 1]).
std::vector<std::size_t> piece_bounds(std::string_view s, std::size_t from, std::size_t to) {
  std::vector<std::size_t> bounds{from};
  for (std::size_t i = from; i < to; ++i)
    if (s[i] == '\n' && i + 1 < to) bounds.push_back(i + 1);
  if (to > from) bounds.push_back(to);
  return bounds;
}

// Rules 2 and 3 for one edit.
void plan_edit(const Decoded& f, const Edit& e, Plan& plan) {
  std::string_view n = f.n, r = e.text;
  std::string_view o = n.substr(e.begin, e.end - e.begin);
  // 2.1: the common prefix and suffix of O and R keep their stored bytes.
  auto [p, s] = common_ends(o, r, 0, r.size());
  std::vector<std::size_t> a = piece_bounds(n, e.begin + p, e.end - s);
  std::vector<std::size_t> b = piece_bounds(r, p, r.size() - s);
  const std::size_t na = a.size() - 1, nb = b.size() - 1;
  auto piece_a = [&](std::size_t i) { return n.substr(a[i], a[i + 1] - a[i]); };
  auto piece_b = [&](std::size_t j) { return r.substr(b[j], b[j + 1] - b[j]); };
  auto same = [&](std::size_t i, std::size_t j) {
    return piece_a(i) == piece_b(j) && !piece_b(j).ends_with("\r\n");  // see pinned()
  };

  // 2.2: LCS of the pieces over suffixes, with the number of distinct optimal
  // alignments (sets of matched pairs) counted modulo 2^64.
  const std::size_t w = nb + 1;
  std::vector<std::uint32_t> len((na + 1) * w, 0);
  std::vector<std::uint64_t> ways((na + 1) * w, 1);
  auto at = [w](std::size_t i, std::size_t j) { return i * w + j; };
  for (std::size_t i = na; i-- > 0;) {
    for (std::size_t j = nb; j-- > 0;) {
      std::uint32_t down = len[at(i + 1, j)], right = len[at(i, j + 1)],
                    diag = len[at(i + 1, j + 1)];
      std::uint32_t best = std::max(down, right);
      bool equal = same(i, j);
      if (equal) best = std::max(best, diag + 1);
      std::uint64_t count = 0;
      if (equal && diag + 1 == best) count += ways[at(i + 1, j + 1)];
      if (down == best) count += ways[at(i + 1, j)];
      if (right == best) count += ways[at(i, j + 1)];
      if (diag == best) count -= ways[at(i + 1, j + 1)];  // counted twice above
      len[at(i, j)] = best;
      ways[at(i, j)] = count;
    }
  }
  if (ways[at(0, 0)] != 1) plan.ambiguous = true;

  // Walk one optimal alignment; each changed block between kept pieces is spliced.
  std::size_t i = 0, j = 0, i0 = 0, j0 = 0;
  auto block = [&](std::size_t i1, std::size_t j1) {
    if (i0 < i1 || j0 < j1) splice_block(f, r, a[i0], a[i1], b[j0], b[j1], plan);
  };
  while (i < na && j < nb) {
    if (same(i, j) && len[at(i, j)] == len[at(i + 1, j + 1)] + 1) {
      block(i, j);
      i0 = ++i;
      j0 = ++j;
    } else if (len[at(i + 1, j)] >= len[at(i, j + 1)]) {
      ++i;
    } else {
      ++j;
    }
  }
  block(na, nb);
}

// The reference's answer for a whole call on one file.
struct Expected {
  std::string bytes;  // the new file, BOM included
  std::string body;   // the new body
  Plan plan;
  // Rule 4's final adjustment: what it did to the spliced body.
  enum class Adjust { kNone, kAppended, kRemoved } adjust = Adjust::kNone;
  std::size_t removed_bytes = 0;
  std::optional<bool> want_final_newline;
};

// Rules 1-4: applies `edits` (sorted, disjoint) to the file. `final_newline`
// overrides rule 4's wanted final state (rule 6's unified markers).
Expected realize(const Decoded& f, const std::vector<Edit>& edits,
                 std::optional<bool> final_newline = std::nullopt) {
  Expected x;
  for (const Edit& e : edits) plan_edit(f, e, x.plan);
  std::size_t pos = 0;
  for (const Splice& s : x.plan.splices) {
    REQUIRE_MESSAGE(s.from >= pos, "reference: overlapping splices");
    x.body.append(f.body, pos, s.from - pos);
    x.body += s.bytes;
    pos = s.to;
  }
  x.body.append(f.body, pos);
  // Rule 4.
  const std::string& old = f.body;
  x.want_final_newline = final_newline;
  if (!x.want_final_newline && !old.empty()) x.want_final_newline = old.back() == '\n';
  if (x.want_final_newline && !x.body.empty()) {
    if (*x.want_final_newline && x.body.back() != '\n') {
      x.body += f.d;
      x.adjust = Expected::Adjust::kAppended;
    } else if (!*x.want_final_newline && x.body.back() == '\n') {
      x.removed_bytes = x.body.size() >= 2 && x.body[x.body.size() - 2] == '\r' ? 2 : 1;
      x.body.resize(x.body.size() - x.removed_bytes);
      x.adjust = Expected::Adjust::kRemoved;
    }
  }
  x.bytes = (f.bom ? std::string(kBom) : std::string()) + x.body;
  return x;
}

// str_replace with matching "exact": the hits of normalize(oldText) in N,
// non-overlapping, left to right.
std::vector<Edit> str_replace_edits(const Decoded& f, std::string_view old_text,
                                    std::string_view new_text) {
  std::string o = normalize(old_text), r = normalize(new_text);
  std::vector<Edit> edits;
  for (std::size_t at = f.n.find(o); !o.empty() && at != std::string::npos;
       at = f.n.find(o, at + o.size()))
    edits.push_back({at, at + o.size(), r});
  return edits;
}

// True when two occurrences of `old_text` share text: overlapping readings,
// ambiguous even with replaceAll (docs/protocol.md, "Matching").
bool overlapping_occurrences(const Decoded& f, std::string_view old_text) {
  std::string o = normalize(old_text);
  if (o.empty()) return false;
  std::size_t last = std::string::npos;
  for (std::size_t at = f.n.find(o); at != std::string::npos; at = f.n.find(o, at + 1)) {
    if (last != std::string::npos && at < last + o.size()) return true;
    last = at;
  }
  return false;
}

// insert: the normalized text, ending in '\n', at the start of line `line`; at
// the end of a non-empty N without a final '\n', after a '\n' of its own.
Edit insert_edit(const Decoded& f, std::size_t line, std::string_view text) {
  std::string t = normalize(text);
  if (t.empty() || t.back() != '\n') t.push_back('\n');
  std::size_t at = f.line_start(line);
  if (at == f.n.size() && !f.n.empty() && f.n.back() != '\n') t.insert(t.begin(), '\n');
  return {at, at, t};
}

// ---------------------------------------------------------------------------
// A strict applier for the diffs editd returns.

struct DiffLine {
  char tag = ' ';
  std::string text;  // '\r' included
  bool newline = true;
};
struct Hunk {
  std::size_t old_start = 0, old_count = 0, new_start = 0, new_count = 0;
  std::vector<DiffLine> lines;
};
struct FileDiff {
  std::string old_label, new_label;
  std::vector<Hunk> hunks;
  std::size_t added = 0, removed = 0;
};

// "l" or "l,s" (s defaults to 1).
bool parse_range(std::string_view s, std::size_t& start, std::size_t& count) {
  auto number = [](std::string_view t, std::size_t& v) {
    if (t.empty() || t.size() > 12) return false;
    v = 0;
    for (char c : t) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<std::size_t>(c - '0');
    }
    return true;
  };
  std::size_t comma = s.find(',');
  if (comma == std::string_view::npos) {
    count = 1;
    return number(s, start);
  }
  return number(s.substr(0, comma), start) && number(s.substr(comma + 1), count);
}

// Parses a concatenation of unified file diffs. Every diff line ends in '\n';
// a '\r' before it belongs to the line.
std::optional<std::vector<FileDiff>> parse_diffs(std::string_view text, std::string& error) {
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      error = "the diff does not end with a newline";
      return std::nullopt;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::vector<FileDiff> files;
  std::size_t i = 0;
  auto fail = [&](std::string why) {
    error = "diff line " + std::to_string(i + 1) + " " +
            (i < lines.size() ? escape(lines[i]) : std::string("<end>")) + ": " + why;
    return std::nullopt;
  };
  while (i < lines.size()) {
    if (!lines[i].starts_with("--- ")) return fail("expected '--- '");
    if (i + 1 >= lines.size() || !lines[i + 1].starts_with("+++ "))
      return fail("expected '+++ ' next");
    FileDiff fd;
    fd.old_label = std::string(lines[i].substr(4));
    fd.new_label = std::string(lines[i + 1].substr(4));
    i += 2;
    while (i < lines.size() && lines[i].starts_with("@@ ")) {
      std::string_view h = lines[i];
      std::size_t minus = h.find('-'), plus = h.find(" +"), close = h.find(" @@", 3);
      Hunk hunk;
      if (minus != 3 || plus == std::string_view::npos || close == std::string_view::npos ||
          !parse_range(h.substr(4, plus - 4), hunk.old_start, hunk.old_count) ||
          !parse_range(h.substr(plus + 2, close - plus - 2), hunk.new_start, hunk.new_count) ||
          close + 3 != h.size())
        return fail("bad hunk header");
      ++i;
      std::size_t olds = 0, news = 0;
      while (i < lines.size() &&
             (olds < hunk.old_count || news < hunk.new_count || lines[i].starts_with("\\"))) {
        std::string_view l = lines[i];
        if (l.starts_with("\\")) {
          if (l != "\\ No newline at end of file" || hunk.lines.empty() ||
              !hunk.lines.back().newline)
            return fail("misplaced marker");
          hunk.lines.back().newline = false;
        } else if (!l.empty() && (l[0] == ' ' || l[0] == '-' || l[0] == '+')) {
          hunk.lines.push_back({l[0], std::string(l.substr(1))});
          if (l[0] != '+') ++olds;
          if (l[0] != '-') ++news;
          if (l[0] == '+') ++fd.added;
          if (l[0] == '-') ++fd.removed;
        } else {
          return fail("not a hunk line");
        }
        ++i;
      }
      if (olds != hunk.old_count || news != hunk.new_count)
        return fail("hunk counts do not match its lines");
      fd.hunks.push_back(std::move(hunk));
    }
    if (fd.hunks.empty()) return fail("a file diff without hunks");
    files.push_back(std::move(fd));
  }
  return files;
}

struct TextLine {
  std::string_view text;
  bool newline = true;
};

std::vector<TextLine> split_text(std::string_view s) {
  std::vector<TextLine> out;
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.push_back({s.substr(pos), false});
      break;
    }
    out.push_back({s.substr(pos, nl - pos), true});
    pos = nl + 1;
  }
  return out;
}

std::string line_bytes(std::string_view text, bool newline) {
  return std::string(text) + (newline ? "\n" : "");
}

// Applies one file diff to `old` at exactly the lines it names; also checks
// the hunk shape (3 lines of context, hunks merged when 6 or fewer lines apart).
std::optional<std::string> apply_diff(std::string_view old, const FileDiff& fd,
                                      std::string& error) {
  std::vector<TextLine> a = split_text(old);
  std::string out;
  std::size_t cur = 0, out_lines = 0;
  std::optional<std::size_t> last_change_end;
  for (std::size_t h = 0; h < fd.hunks.size(); ++h) {
    const Hunk& hunk = fd.hunks[h];
    auto bad = [&](const std::string& why) {
      error = "hunk " + std::to_string(h + 1) + ": " + why;
      return std::nullopt;
    };
    std::size_t at = hunk.old_count == 0 ? hunk.old_start : hunk.old_start - 1;
    if (at < cur || at > a.size()) return bad("starts outside the old text");
    for (; cur < at; ++cur, ++out_lines) out += line_bytes(a[cur].text, a[cur].newline);
    if (out_lines != (hunk.new_count == 0 ? hunk.new_start : hunk.new_start - 1))
      return bad("its new start line is wrong");

    // The shape: context before the first change, after the last, and between.
    std::size_t first = 0, last = hunk.lines.size();
    while (first < hunk.lines.size() && hunk.lines[first].tag == ' ') ++first;
    while (last > first && hunk.lines[last - 1].tag == ' ') --last;
    const std::size_t trailing = hunk.lines.size() - last;
    if (first > 3 || (first < 3 && at != 0))
      return bad(std::to_string(first) + " leading context lines");
    if (last_change_end && at + first - *last_change_end <= 6)
      return bad("should have been merged with the hunk before it");
    for (std::size_t k = first, run = 0; k < last; ++k) {
      run = hunk.lines[k].tag == ' ' ? run + 1 : 0;
      if (run > 6) return bad("holds a context run of more than 6 lines");
    }

    for (const DiffLine& l : hunk.lines) {
      if (l.tag != '+') {
        if (cur >= a.size() || a[cur].text != l.text || a[cur].newline != l.newline)
          return bad("line " + escape(l.text) + (l.newline ? "" : " (no newline)") +
                     " is not old line " + std::to_string(cur + 1) + " " +
                     (cur < a.size() ? escape(a[cur].text) : std::string("<end>")));
        ++cur;
      }
      if (l.tag != '-') {
        out += line_bytes(l.text, l.newline);
        ++out_lines;
      }
    }
    if (trailing > 3 || (trailing < 3 && cur != a.size()))
      return bad(std::to_string(trailing) + " trailing context lines");
    last_change_end = cur - trailing;
  }
  for (; cur < a.size(); ++cur) out += line_bytes(a[cur].text, a[cur].newline);
  return out;
}

// ---------------------------------------------------------------------------
// Driving Operations in process.

struct Server : test::InProcess {
  std::string fingerprint(const std::string& path) {
    ops::FingerprintRequest p;
    p.path = path;
    auto r = run([&](RequestContext& ctx) { return ops.fingerprint(ctx, p); });
    return r ? r->fingerprint : "error: " + r.error().message;
  }
};

// One call: what the test sends.
struct Op {
  enum class Kind { kStrReplace, kInsert, kApplyPatch };
  Kind kind = Kind::kStrReplace;
  std::string path = "f.txt";
  // str_replace
  std::string old_text, new_text;
  bool replace_all = false;
  // insert
  std::uint64_t line = 0;
  std::string text;
  // apply_patch
  std::string patch;
  std::string flavor;  // how the case was generated, for the summary

  std::string name() const {
    switch (kind) {
      case Kind::kStrReplace:
        return "str_replace";
      case Kind::kInsert:
        return "insert";
      case Kind::kApplyPatch:
        return "apply_patch";
    }
    return "?";
  }
  std::string describe() const {
    switch (kind) {
      case Kind::kStrReplace:
        return "str_replace oldText=" + escape(old_text) + " newText=" + escape(new_text) +
               (replace_all ? " replaceAll" : "") + " (" + flavor + ")";
      case Kind::kInsert:
        return "insert line=" + std::to_string(line) + " text=" + escape(text);
      case Kind::kApplyPatch:
        return "apply_patch (" + flavor + ") patch=" + escape(patch);
    }
    return "?";
  }
};

// What the server answered, in a comparable form.
struct Reply {
  std::optional<Error> error;
  nlohmann::json json;  // the whole result, for dryRun comparisons
  std::string diff;
  struct File {
    std::string path;
    std::uint64_t added = 0, removed = 0;
    std::optional<std::string> fingerprint;
  };
  std::vector<File> files;  // one for str_replace and insert
};

Reply call(Server& s, const Op& op, bool dry_run) {
  Reply reply;
  auto take = [&reply](const auto& r, const std::string& path) {
    if (r.has_error()) {
      reply.error = r.error();
      return;
    }
    reply.json = methods::encode_mutation(*r);  // as the door sends it
    reply.diff = r->diff;
    reply.files.push_back({path, r->added, r->removed, r->fingerprint});
  };
  switch (op.kind) {
    case Op::Kind::kStrReplace: {
      ops::ReplaceRequest p;
      p.path = op.path;
      p.old_text = op.old_text;
      p.new_text = op.new_text;
      p.replace_all = op.replace_all;
      p.matching = match::Mode::kExact;
      p.dry_run = dry_run;
      take(s.run([&](RequestContext& ctx) { return s.ops.str_replace(ctx, p); }), op.path);
      break;
    }
    case Op::Kind::kInsert: {
      ops::InsertRequest p;
      p.path = op.path;
      p.after_line = op.line;
      p.text = op.text;
      p.dry_run = dry_run;
      take(s.run([&](RequestContext& ctx) { return s.ops.insert(ctx, p); }), op.path);
      break;
    }
    case Op::Kind::kApplyPatch: {
      ops::PatchRequest p;
      p.patch = op.patch;
      p.path_rule = protocol::path_problem;
      p.dry_run = dry_run;
      auto r = s.run([&](RequestContext& ctx) { return s.ops.apply_patch(ctx, p); });
      if (r.has_error()) {
        reply.error = r.error();
        break;
      }
      reply.json = methods::encode_patched(*r);
      reply.diff = r->diff;
      for (const auto& f : r->files)
        reply.files.push_back({f.path, f.added, f.removed, f.fingerprint});
      break;
    }
  }
  return reply;
}

// ---------------------------------------------------------------------------
// Generators.

const std::vector<std::string> kTokens = {"a", "b", "x",   "foo", "bar", "hit",  "{",
                                          "}", " ", "  ",  "\t",  "é",   "中文", "😀",
                                          "=", ";", "hit", "a b", "()",  "x"};
// Tokens worth a replaceAll: they repeat.
const std::vector<std::string> kRepeated = {"hit", "a", "x", "foo", "中文", "😀", "}", "\t"};

// A line's content; a lone '\r' may sit between tokens.
std::string random_content(Rng& rng, bool lone_cr) {
  std::string s;
  std::size_t n = rng.between(0, 5);
  for (std::size_t i = 0; i < n; ++i) {
    if (lone_cr && i > 0 && rng.chance(15)) s.push_back('\r');
    s += rng.pick(kTokens);
  }
  return s;
}

struct GeneratedFile {
  std::string bytes;
  std::string style;
};

GeneratedFile random_file(Rng& rng) {
  static const std::vector<std::string> kStyles = {"lf", "crlf", "mixed", "mostly-crlf"};
  GeneratedFile g;
  g.style = rng.pick(kStyles);
  std::size_t roll = rng.between(0, 99);
  std::size_t count = roll < 5 ? 0 : roll < 15 ? 1 : rng.between(2, 14);
  bool final_newline = rng.chance(70);
  bool lone_cr = rng.chance(20);
  std::vector<std::string> lines;
  std::string body;
  for (std::size_t i = 0; i < count; ++i) {
    std::string content =
        !lines.empty() && rng.chance(25) ? rng.pick(lines) : random_content(rng, lone_cr);
    // Rarely a lone CR at the very end of a line: "x\r\r\n", or a merge into CRLF.
    if (lone_cr && rng.chance(4)) content.push_back('\r');
    lines.push_back(content);
    body += content;
    if (i + 1 == count && !final_newline) break;
    bool crlf = g.style == "crlf"    ? true
                : g.style == "lf"    ? false
                : g.style == "mixed" ? rng.chance(50)
                                     : rng.chance(85);
    body += crlf ? "\r\n" : "\n";
  }
  if (rng.chance(25)) {
    g.bytes = std::string(kBom) + body;
    g.style += "+bom";
  } else {
    g.bytes = body;
  }
  return g;
}

// Writes each '\n' of `s` as "\n" (style 0), "\r\n" (1) or either (2).
std::string with_breaks(std::string_view s, Rng& rng, int style) {
  std::string out;
  for (char c : s) {
    if (c == '\n' && (style == 1 || (style == 2 && rng.chance(50)))) out.push_back('\r');
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> split_on_newline(std::string_view s) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    std::size_t nl = s.find('\n', pos);
    if (nl == std::string_view::npos) {
      parts.emplace_back(s.substr(pos));
      return parts;
    }
    parts.emplace_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "\n" : "") + parts[i];
  return out;
}

// A replacement for `o`: fresh text, or `o` with a line changed, added,
// removed or moved, or with text around it, or nothing.
std::string random_replacement(Rng& rng, std::string_view o) {
  std::vector<std::string> parts = split_on_newline(o);
  switch (rng.between(0, 6)) {
    case 0: {
      std::vector<std::string> fresh;
      for (std::size_t i = rng.between(1, 3); i > 0; --i)
        fresh.push_back(random_content(rng, true));
      return join(fresh) + (rng.chance(40) ? "\n" : "");
    }
    case 1:
      parts[rng.between(0, parts.size() - 1)] = random_content(rng, false);
      break;
    case 2:
      parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(rng.between(0, parts.size())),
                   random_content(rng, false));
      break;
    case 3:
      if (parts.size() > 1)
        parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(rng.between(0, parts.size() - 1)));
      break;
    case 4:
      if (parts.size() > 1) std::swap(parts[0], parts[rng.between(1, parts.size() - 1)]);
      break;
    case 5:
      return rng.pick(kTokens) + std::string(o) + rng.pick(kTokens);
    case 6:
      return "";
  }
  return join(parts);
}

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// str_replace: an oldText from the file's own text, written with LF or CRLF.
Op random_str_replace(Rng& rng, const Decoded& f) {
  Op op;
  op.kind = Op::Kind::kStrReplace;
  const std::string& n = f.n;
  std::size_t b = 0, e = 0;
  std::string old_norm;
  switch (rng.between(0, 6)) {
    case 0: {  // inside one line
      std::size_t l = rng.between(0, f.line_count() - 1);
      std::size_t ls = f.line_start(l), len = f.line(l).size();
      if (len == 0) {
        b = ls, e = std::min(n.size(), ls + 1);
      } else {
        b = ls + rng.between(0, len - 1);
        e = rng.between(b + 1, ls + len);
      }
      op.flavor = "in a line";
      break;
    }
    case 1: {  // across line breaks
      b = rng.between(0, n.size() - 1);
      std::size_t nl = n.find('\n', b);
      e = nl == std::string::npos ? n.size() : rng.between(nl + 1, std::min(n.size(), nl + 40));
      op.flavor = "across lines";
      break;
    }
    case 2:
      e = rng.between(1, std::min<std::size_t>(n.size(), 30));
      op.flavor = "at the start";
      break;
    case 3:
      b = n.size() - rng.between(1, std::min<std::size_t>(n.size(), 30));
      e = n.size();
      op.flavor = "at the end";
      break;
    case 4: {  // the last line, which may lack a newline
      std::size_t ls = f.line_start(f.line_count() - 1);
      b = rng.between(ls, n.size() - 1);
      e = n.size();
      op.flavor = "on the last line";
      break;
    }
    case 5: {  // a repeated token
      std::vector<std::string> present;
      for (const std::string& t : kRepeated)
        if (n.find(t) != std::string::npos) present.push_back(t);
      if (present.empty()) return random_str_replace(rng, f);
      old_norm = rng.pick(present);
      op.replace_all = rng.chance(80);
      op.flavor = "repeated token";
      break;
    }
    case 6: {  // a whole line with its break, often repeated
      std::size_t l = rng.between(0, f.line_count() - 1);
      b = f.line_start(l);
      e = f.line_start(l + 1);
      op.replace_all = rng.chance(70);
      op.flavor = "whole line";
      break;
    }
  }
  if (old_norm.empty()) {
    while (b > 0 && continuation(n[b])) --b;
    while (e < n.size() && continuation(n[e])) ++e;
    old_norm = n.substr(b, e - b);
  }
  int style = static_cast<int>(rng.between(0, 2));
  op.old_text = with_breaks(old_norm, rng, style);
  for (int tries = 0; tries < 5 && normalize(op.new_text) == normalize(op.old_text); ++tries)
    op.new_text = with_breaks(random_replacement(rng, old_norm), rng, rng.chance(70) ? style : 2);
  if (normalize(op.new_text) == normalize(op.old_text)) op.new_text = op.old_text + "Z";
  op.flavor += style == 0 ? ", LF" : style == 1 ? ", CRLF" : ", mixed";
  return op;
}

Op random_insert(Rng& rng, const Decoded& f) {
  Op op;
  op.kind = Op::Kind::kInsert;
  op.line = rng.between(0, f.line_count());
  std::vector<std::string> lines;
  for (std::size_t i = rng.between(1, 3); i > 0; --i) lines.push_back(random_content(rng, true));
  std::string text = join(lines) + (rng.chance(60) ? "\n" : "");
  if (text.empty()) text = "\n";
  op.text = with_breaks(text, rng, static_cast<int>(rng.between(0, 2)));
  op.flavor = "insert";
  return op;
}

// A patch line: ' ' context, '-' removed, '+' added; `cr`: a '+' line ending
// in '\r' (rule 6).
struct PatchLine {
  char tag = ' ';
  std::string text;
  bool cr = false;
};

struct Chunk {
  std::size_t at = 0, old_count = 0;  // old lines [at, at + old_count)
  std::vector<PatchLine> lines;
  bool old_marker = false, new_marker = false;  // unified "\ No newline at end of file"
};

// Groups of changed lines list removals before additions, as diffs do.
void canonicalize(std::vector<PatchLine>& lines) {
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i].tag == ' ') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < lines.size() && lines[j].tag != ' ') ++j;
    std::stable_partition(lines.begin() + static_cast<std::ptrdiff_t>(i),
                          lines.begin() + static_cast<std::ptrdiff_t>(j),
                          [](const PatchLine& l) { return l.tag == '-'; });
    i = j;
  }
}

// The replacement text of a chunk: context lines are the file's own, added
// lines the patch's ('\r' included), each followed by '\n'.
// A chunk's edits: one per run of '-' and '+' lines between context lines,
// replacing the whole old lines of the run by its '+' lines (context lines are
// in no edit: they keep their bytes by rule 1).
std::vector<Edit> group_edits(const Decoded& f, const Chunk& c) {
  std::vector<Edit> edits;
  std::size_t old_index = c.at, group_line = 0, removed = 0;
  std::string added;
  bool in_group = false;
  auto close = [&] {
    if (!in_group) return;
    Edit e{f.line_start(group_line), f.line_start(group_line + removed), added};
    if (removed == 0 && group_line == f.line_count() && !added.empty() && !f.n.empty() &&
        f.n.back() != '\n')
      e.text.insert(e.text.begin(), '\n');
    edits.push_back(std::move(e));
    in_group = false;
  };
  for (const PatchLine& l : c.lines) {
    if (l.tag == ' ') {
      close();
      ++old_index;
      continue;
    }
    if (!in_group) {
      in_group = true;
      group_line = old_index;
      removed = 0;
      added.clear();
    }
    if (l.tag == '-') {
      ++removed;
      ++old_index;
    } else {
      added += l.text + (l.cr ? "\r\n" : "\n");
    }
  }
  close();
  return edits;
}

// An apply_patch case built from the file's own lines: the patch, the edits it
// means for f.txt, rule 6's wanted final state, and the files it adds.
struct PatchCase {
  Op op;
  std::vector<Edit> edits;
  std::optional<bool> final_newline;
  std::map<std::string, std::string> added;  // path -> bytes
};

PatchCase random_patch(Rng& rng, const Decoded& f, const std::string& new_path) {
  PatchCase pc;
  pc.op.kind = Op::Kind::kApplyPatch;
  const bool codex = rng.chance(50);
  // Patch line style: LF, LF with some '+' lines ending in '\r', or all CRLF.
  const int style = static_cast<int>(rng.between(0, 3));  // 0, 1: LF; 2: some CR; 3: CRLF
  const bool crlf_patch = style == 3;
  const std::string t = crlf_patch ? "\r\n" : "\n";
  auto plus_cr = [&] { return crlf_patch || (style == 2 && rng.chance(50)); };
  pc.op.flavor =
      std::string(codex ? "codex" : "unified") + (style == 3   ? ", CRLF patch"
                                                  : style == 2 ? ", some '+' lines end in CR"
                                                               : ", LF");

  // Lines ending in '\r' in N would make rule 6's "trailing '\r' ignored" ambiguous.
  bool updatable = true;
  for (std::size_t l = 0; l < f.line_count(); ++l)
    if (f.line(l).ends_with('\r')) updatable = false;

  std::vector<Chunk> chunks;
  const std::size_t count = f.line_count();
  std::size_t cursor = 0;
  std::size_t wanted = updatable ? rng.between(1, 3) : 0;
  for (int tries = 0; chunks.size() < wanted && tries < 12 && cursor <= count; ++tries) {
    Chunk c;
    c.at = rng.between(cursor, std::min(count, cursor + 5));
    std::size_t room = count - c.at, used = 0;
    auto context = [&](std::size_t k) {
      for (k = std::min(k, room - used); k > 0; --k, ++used)
        c.lines.push_back({' ', std::string(f.line(c.at + used))});
    };
    context(rng.between(0, 3));
    for (std::size_t g = rng.between(1, 2); g > 0; --g) {
      std::size_t dels = std::min(room - used, rng.between(0, 3)), adds = rng.between(0, 3);
      if (dels + adds == 0) adds = 1;
      for (; dels > 0; --dels, ++used) c.lines.push_back({'-', std::string(f.line(c.at + used))});
      for (; adds > 0; --adds) c.lines.push_back({'+', random_content(rng, false), plus_cr()});
      if (g > 1) context(rng.between(1, 3));
    }
    context(rng.between(0, 3));
    c.old_count = used;
    if (codex) {
      // A Codex chunk without old lines is appended at the end of the file;
      // one with old lines is found at the first match from the cursor.
      if (used == 0 && c.at != count) continue;
      if (used > 0) {
        std::size_t first = cursor;
        auto matches = [&](std::size_t p) {
          for (std::size_t k = 0, o = 0; k < c.lines.size(); ++k)
            if (c.lines[k].tag != '+' && f.line(p + o++) != c.lines[k].text) return false;
          return true;
        };
        while (first + used <= count && !matches(first)) ++first;
        if (first != c.at) continue;
      }
    }
    canonicalize(c.lines);
    // Unified hunks that reach the end of the file carry the markers.
    if (!codex && used > 0 && c.at + used == count) {
      c.old_marker = !f.n.empty() && f.n.back() != '\n';
      c.new_marker = rng.chance(30);
      if (c.old_marker || c.new_marker) {
        // The last old line must be a '-' line unless it is the hunk's last
        // line, shared by both sides with the same marker.
        std::size_t last_old = c.lines.size();
        while (c.lines[last_old - 1].tag == '+') --last_old;
        PatchLine& lo = c.lines[last_old - 1];
        if (lo.tag == ' ' && !(last_old == c.lines.size() && c.old_marker == c.new_marker)) {
          lo.tag = '-';
          c.lines.insert(c.lines.begin() + static_cast<std::ptrdiff_t>(last_old),
                         PatchLine{'+', lo.text, plus_cr()});
          canonicalize(c.lines);
        }
        // The marker needs a last new line of its own, with text and without a
        // '\r' (an empty line cannot lack its newline).
        const PatchLine& last = c.lines.back();
        if (last.tag == '-' || last.text.empty() || last.cr) c.new_marker = false;
        if (c.old_marker || c.new_marker) pc.final_newline = !c.new_marker;
      }
    }
    // Two insertions at one place would leave their order to the implementation.
    cursor = c.at + std::max<std::size_t>(used, 1);
    chunks.push_back(std::move(c));
    // After a chunk that reaches the end, another one there would see a final
    // newline the first one may have changed: the rules do not say which.
    if (cursor >= count) break;
  }

  // Sometimes an added file too; always one when f.txt gets no chunk.
  std::vector<PatchLine> add;
  bool add_marker = false;
  if (chunks.empty() || rng.chance(30)) {
    int cr_style = static_cast<int>(rng.between(0, 2));  // all CR, none, mixed
    for (std::size_t i = rng.between(1, 4); i > 0; --i) {
      bool cr = crlf_patch || cr_style == 0 || (cr_style == 2 && rng.chance(50));
      add.push_back({'+', random_content(rng, false), cr});
    }
    add_marker = !codex && !add.back().cr && !add.back().text.empty() && rng.chance(25);
    std::string bytes;
    for (const PatchLine& l : add) bytes += l.text + (l.cr ? "\r\n" : "\n");
    if (add_marker) bytes.pop_back();
    pc.added[new_path] = bytes;
    pc.op.flavor += ", adds a file";
  }

  auto line_of = [&](const PatchLine& l) {
    return std::string(1, l.tag) + l.text + (l.cr && !crlf_patch ? "\r" : "") + t;
  };
  const std::string marker = "\\ No newline at end of file" + t;
  std::string& p = pc.op.patch;
  if (codex) {
    p = "*** Begin Patch" + t;
    if (!chunks.empty()) {
      p += "*** Update File: f.txt" + t;
      for (const Chunk& c : chunks) {
        p += "@@" + t;
        for (const PatchLine& l : c.lines) p += line_of(l);
      }
    }
    if (!add.empty()) {
      p += "*** Add File: " + new_path + t;
      for (const PatchLine& l : add) p += line_of(l);
    }
    p += "*** End Patch" + t;
  } else {
    if (!chunks.empty()) {
      p = "--- a/f.txt" + t + "+++ b/f.txt" + t;
      std::ptrdiff_t delta = 0;
      for (const Chunk& c : chunks) {
        std::size_t news = 0;
        for (const PatchLine& l : c.lines) news += l.tag != '-';
        std::size_t new_at = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(c.at) + delta);
        p += "@@ -" + std::to_string(c.old_count == 0 ? c.at : c.at + 1) + "," +
             std::to_string(c.old_count) + " +" + std::to_string(news == 0 ? new_at : new_at + 1) +
             "," + std::to_string(news) + " @@" + t;
        delta += static_cast<std::ptrdiff_t>(news) - static_cast<std::ptrdiff_t>(c.old_count);
        std::size_t last_old = c.lines.size();
        while (last_old > 0 && c.lines[last_old - 1].tag == '+') --last_old;
        for (std::size_t k = 0; k < c.lines.size(); ++k) {
          p += line_of(c.lines[k]);
          bool is_last_old = k + 1 == last_old, is_last = k + 1 == c.lines.size();
          if ((is_last_old && c.old_marker) ||
              (is_last && c.new_marker && !(is_last_old && c.old_marker)))
            p += marker;
        }
      }
    }
    if (!add.empty()) {
      p += "--- /dev/null" + t + "+++ b/" + new_path + t;
      p += "@@ -0,0 +1," + std::to_string(add.size()) + " @@" + t;
      for (const PatchLine& l : add) p += line_of(l);
      if (add_marker) p += marker;
    }
  }
  if (codex) {
    // A CR before the LF of an envelope line is its line ending, as Codex
    // reads it (docs/patch.md): added lines take the file's ending.
    for (Chunk& c : chunks)
      for (PatchLine& l : c.lines) l.cr = false;
    if (!add.empty()) {
      std::string bytes;
      for (const PatchLine& l : add) bytes += l.text + "\n";
      pc.added[new_path] = bytes;
    }
  }
  for (const Chunk& c : chunks)
    for (Edit& e : group_edits(f, c)) {
      // Runs of chunks that meet are one replacement (docs/protocol.md,
      // apply_patch: line endings).
      if (!pc.edits.empty() && pc.edits.back().end == e.begin) {
        pc.edits.back().end = e.end;
        pc.edits.back().text += e.text;
      } else {
        pc.edits.push_back(std::move(e));
      }
    }
  return pc;
}

// ---------------------------------------------------------------------------
// Checking one case.

struct Case {
  std::uint64_t seed = 0;
  std::size_t index = 0;
  std::string bytes;  // f.txt before
  std::string file_style;
  Op op;
  // What the reference expects.
  std::optional<ErrorKind> error;
  std::vector<Edit> edits;
  std::optional<bool> final_newline;
  std::map<std::string, std::string> added;
};

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// Collects failures by category; shows the first few of each in full.
class Failures {
 public:
  void add(const Case& c, const std::string& check, const std::string& detail) {
    std::string key = c.op.name() + ": " + check;
    std::size_t n = ++by_check_[key];
    if (n <= 12) examples_[key] += " " + std::to_string(c.index);
    failed_cases_.emplace(c.index, c.op.name() + (has_cr(c) ? " with CR" : " without CR"));
    if (n > shown_) return;
    FAIL_CHECK("[" << key << "] seed=" << c.seed << " case=" << c.index << "\n  file ("
                   << c.file_style << ") = " << escape(c.bytes) << "\n  op = " << c.op.describe()
                   << "\n  " << detail);
  }
  void ran(const Case& c) { ++ran_[c.op.name() + (has_cr(c) ? " with CR" : " without CR")]; }
  std::size_t total() const { return failed_cases_.size(); }
  std::string summary() const {
    std::map<std::string, std::size_t> failed;
    for (const auto& [index, kind] : failed_cases_) ++failed[kind];
    std::string s = "failing cases / cases:\n";
    for (const auto& [kind, n] : ran_)
      s += "  " + kind + ": " + std::to_string(failed.count(kind) ? failed.at(kind) : 0) + " / " +
           std::to_string(n) + "\n";
    s += "failed checks:\n";
    for (const auto& [key, n] : by_check_)
      s += "  " + key + ": " + std::to_string(n) + " (cases" + examples_.at(key) +
           (n > 12 ? " ..." : "") + ")\n";
    return s;
  }
  // Whether the case involves a '\r' anywhere: in the file or in what is sent.
  static bool has_cr(const Case& c) {
    auto cr = [](std::string_view s) { return s.find('\r') != std::string_view::npos; };
    return cr(c.bytes) || cr(c.op.old_text) || cr(c.op.new_text) || cr(c.op.text) || cr(c.op.patch);
  }

 private:
  std::size_t shown_ = env_number("FIDELITY_SHOW", 3);
  std::map<std::string, std::size_t> by_check_;
  std::map<std::string, std::string> examples_;
  std::map<std::size_t, std::string> failed_cases_;
  std::map<std::string, std::size_t> ran_;
};

std::string reply_text(const Reply& r) {
  if (r.error) return "error " + std::string(kind_name(r.error->kind)) + ": " + r.error->message;
  return r.json.dump();
}

// A real call's reply as its dry run gives it: without the undoId and changeId that only a write gets.
std::string as_dry_run(Reply r) {
  if (!r.error && r.json.is_object()) {
    r.json.erase("undoId");
    r.json.erase("changeId");
  }
  return reply_text(r);
}

// The weaker checks for an ambiguous line alignment: normalized content,
// untouched bytes before the first and after the last splice, BOM, rule 4.
std::string weak_mismatch(const Decoded& f, const Expected& x, std::string_view actual) {
  if (actual.starts_with(kBom) != f.bom) return "the BOM state changed";
  std::string_view body = actual.substr(f.bom ? kBom.size() : 0);
  if (normalize(body) != normalize(x.body))
    return "normalized content differs: expected " + escape(normalize(x.body)) + ", got " +
           escape(normalize(body));
  if (x.plan.splices.empty()) return body == f.body ? "" : "changed without any splice";
  std::string_view head = std::string_view(f.body).substr(0, x.plan.splices.front().from);
  if (!body.starts_with(head)) return "bytes before the first splice changed";
  std::string tail = f.body.substr(x.plan.splices.back().to);
  bool checkable = true;
  if (x.adjust == Expected::Adjust::kAppended) tail += f.d;
  if (x.adjust == Expected::Adjust::kRemoved) {
    checkable = tail.size() >= x.removed_bytes;
    if (checkable) tail.resize(tail.size() - x.removed_bytes);
  }
  if (checkable && !body.ends_with(tail)) return "bytes after the last splice changed";
  // (Compared with the reference's own state: an empty last line cannot lack its newline.)
  if (x.want_final_newline && !body.empty() && body.ends_with('\n') != x.body.ends_with('\n'))
    return "rule 4: the final newline state is wrong";
  return "";
}

// Checks that a file's diff turns `old_body` into `new_body` and matches the counts.
void check_diff(Failures& fails, const Case& c, std::string_view diff_text,
                const std::vector<FileDiff>& diffs, const std::string& path,
                std::string_view old_body, std::string_view new_body, const Reply::File& counts,
                bool added_file) {
  const FileDiff* fd = nullptr;
  for (const FileDiff& d : diffs)
    if (d.new_label == "b/" + path) fd = &d;
  if (old_body == new_body && !added_file) {
    if (fd) fails.add(c, "diff", "a diff for an unchanged file");
    return;
  }
  if (!fd) return fails.add(c, "diff", "no diff section for " + path);
  std::string want_old_label = added_file ? "/dev/null" : "a/" + path;
  if (fd->old_label != want_old_label) fails.add(c, "diff", "old label " + escape(fd->old_label));
  std::string why;
  auto applied = apply_diff(old_body, *fd, why);
  if (!applied)
    fails.add(
        c, "diff",
        "the diff does not apply to the old body: " + why + "\n  diff = " + escape(diff_text));
  else if (*applied != new_body)
    fails.add(c, "diff",
              "the diff applied to the old body gives " + escape(*applied) + ", the file holds " +
                  escape(new_body));
  if (fd->added != counts.added || fd->removed != counts.removed)
    fails.add(c, "counts",
              "added/removed " + std::to_string(counts.added) + "/" +
                  std::to_string(counts.removed) + ", the diff has " + std::to_string(fd->added) +
                  "/" + std::to_string(fd->removed));
}

void check_case(Server& s, Failures& fails, const Case& c) {
  fails.ran(c);
  const Decoded f = decode(c.bytes);
  s.backend.put(c.op.path, c.bytes);

  Reply dry = call(s, c.op, true);
  if (s.backend.get(c.op.path) != c.bytes) fails.add(c, "dryRun", "a dry run changed the file");
  for (const auto& [path, bytes] : c.added)
    if (s.backend.get(path)) fails.add(c, "dryRun", "a dry run created " + path);
  Reply real = call(s, c.op, false);
  if (reply_text(dry) != as_dry_run(real))
    fails.add(c, "dryRun",
              "the dry run answered " + reply_text(dry) + "\n  the real call " + reply_text(real));

  std::optional<std::string> actual = s.backend.get(c.op.path);
  if (c.error) {
    if (!real.error || real.error->kind != *c.error)
      fails.add(c, "error",
                "expected error " + std::string(kind_name(*c.error)) + ", got " + reply_text(real));
    if (actual != c.bytes) fails.add(c, "error", "a failed call changed the file");
    return;
  }
  const Expected x = realize(f, c.edits, c.final_newline);
  // An edit whose change the rules keep out whole answers no_change, never a
  // plain success (docs/protocol.md, str_replace: no silent no-ops).
  if (real.error && real.error->kind == ErrorKind::kNoChange && !x.plan.ambiguous &&
      x.bytes == c.bytes && actual == c.bytes)
    return;
  if (real.error) return fails.add(c, "error", "unexpected " + reply_text(real));

  const std::string got = actual.value_or("<missing>");
  if (!x.plan.ambiguous) {
    if (got != x.bytes)
      fails.add(c, "bytes",
                "expected " + escape(x.bytes) + "\n  actual   " + escape(got) + "\n  " +
                    first_difference(x.bytes, got));
  } else if (std::string why = weak_mismatch(f, x, got); !why.empty()) {
    fails.add(c, "bytes (ambiguous alignment)",
              why + "\n  reference " + escape(x.bytes) + "\n  actual    " + escape(got));
  }

  std::string why;
  auto diffs = parse_diffs(real.diff, why);
  if (!diffs)
    return fails.add(c, "diff", "unparsable diff: " + why + "\n  diff = " + escape(real.diff));
  std::string_view new_body = std::string_view(got).substr(got.starts_with(kBom) ? kBom.size() : 0);
  for (const Reply::File& file : real.files) {
    bool is_added = c.added.count(file.path) > 0;
    std::optional<std::string> now = s.backend.get(file.path);
    if (is_added && now != c.added.at(file.path))
      fails.add(c, "added file",
                "expected " + escape(c.added.at(file.path)) + ", got " +
                    escape(now.value_or("<missing>")));
    std::string_view body = file.path == c.op.path ? new_body
                            : now                  ? std::string_view(*now)
                                                   : std::string_view();
    check_diff(fails, c, real.diff, *diffs, file.path,
               is_added ? std::string_view() : std::string_view(f.body), body, file, is_added);
    if (file.fingerprint && now && *file.fingerprint != s.fingerprint(file.path))
      fails.add(c, "fingerprint", file.path + ": the result's fingerprint is not the file's");
  }
}

// The reference's expectations for a generated call.
Case make_case(std::uint64_t seed, std::size_t index) {
  Rng rng(seed ^ (0xA24BAED4963EE407ull * (index + 1)));
  Case c;
  c.seed = seed;
  c.index = index;
  GeneratedFile g = random_file(rng);
  c.bytes = g.bytes;
  c.file_style = g.style;
  const Decoded f = decode(c.bytes);
  std::size_t kind = rng.between(0, 2);
  if (f.n.empty() && kind == 0) kind = 1;
  if (kind == 0) {
    c.op = random_str_replace(rng, f);
    c.edits = str_replace_edits(f, c.op.old_text, c.op.new_text);
    if (c.edits.empty())
      c.error = ErrorKind::kNoMatch;
    else if ((c.edits.size() > 1 && !c.op.replace_all) ||
             overlapping_occurrences(f, c.op.old_text))
      c.error = ErrorKind::kAmbiguous;
  } else if (kind == 1) {
    c.op = random_insert(rng, f);
    c.edits = {insert_edit(f, c.op.line, c.op.text)};
  } else {
    PatchCase pc = random_patch(rng, f, "new" + std::to_string(index) + ".txt");
    c.op = std::move(pc.op);
    c.edits = std::move(pc.edits);
    c.final_newline = pc.final_newline;
    c.added = std::move(pc.added);
  }
  return c;
}

// A str_replace on one file, run for real; returns the new bytes (or the error).
struct Edited {
  std::string bytes;
  Reply reply;
};

Edited edit_once(Server& s, const Op& op, const std::string& bytes) {
  s.backend.put(op.path, bytes);
  Edited e;
  e.reply = call(s, op, false);
  e.bytes = s.backend.get(op.path).value_or("<missing>");
  return e;
}

Op replace_op(std::string old_text, std::string new_text, bool all = false) {
  Op op;
  op.kind = Op::Kind::kStrReplace;
  op.old_text = std::move(old_text);
  op.new_text = std::move(new_text);
  op.replace_all = all;
  return op;
}

}  // namespace

TEST_CASE("fidelity: random edits of random files keep every byte the rules keep") {
  const std::uint64_t seed = env_number("FIDELITY_SEED", kSeed);
  const std::size_t cases = env_number("FIDELITY_CASES", kCases);
  const std::uint64_t only = env_number("FIDELITY_CASE", ~0ull);
  Server s;
  Failures fails;
  std::size_t ambiguous = 0, errors = 0, self_checked = 0;
  auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < cases; ++i) {
    if (only != ~0ull && i != only) continue;
    Case c = make_case(seed, i);
    const Decoded f = decode(c.bytes);
    if (!c.error) {
      // The reference checks itself where no '\r' can merge with a written
      // '\n': its bytes, normalized, are N with the edits applied.
      bool no_lone_cr = normalize(f.body).find('\r') == std::string::npos;
      for (const Edit& e : c.edits)
        no_lone_cr = no_lone_cr && normalize(e.text).find('\r') == std::string::npos;
      Expected x = realize(f, c.edits, c.final_newline);
      ambiguous += x.plan.ambiguous;
      if (no_lone_cr) {
        std::string want;
        std::size_t pos = 0;
        for (const Edit& e : c.edits) {
          want += f.n.substr(pos, e.begin - pos) + normalize(e.text);
          pos = e.end;
        }
        want += f.n.substr(pos);
        std::optional<bool> nl = c.final_newline;
        if (!nl && !f.n.empty()) nl = f.n.back() == '\n';
        if (nl && !want.empty() && want.ends_with('\n') != *nl) {
          if (*nl)
            want += '\n';
          else
            want.pop_back();
        }
        ++self_checked;
        REQUIRE_MESSAGE((normalize(x.body) == want),
                        "reference self-check, seed="
                            << seed << " case=" << i << " file=" << escape(c.bytes)
                            << " op=" << c.op.describe() << " reference=" << escape(x.bytes));
      }
    } else {
      ++errors;
    }
    check_case(s, fails, c);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("seed " << seed << ": " << cases << " cases in " << seconds << " s (" << ambiguous
                  << " with an ambiguous line alignment, " << errors << " expecting an error, "
                  << self_checked << " self-checked)\n"
                  << fails.summary());
  CHECK_MESSAGE(fails.total() == 0, "seed " << seed << ": " << fails.total() << " failing cases");
}

TEST_CASE("regression: replacing one character of a mixed-ending file changes one byte") {
  Server s;
  const std::string before = "a\r\nb\r\nc\nd\r\ne\r\n", after = "a\r\nb\r\nC\nd\r\ne\r\n";
  CHECK(realize(decode(before), str_replace_edits(decode(before), "c", "C")).bytes == after);
  Edited e = edit_once(s, replace_op("c", "C"), before);
  REQUIRE_MESSAGE(!e.reply.error, reply_text(e.reply));
  CHECK_MESSAGE((e.bytes == after), "got " << escape(e.bytes));
}

TEST_CASE(
    "regression: removing an LF line beside an identical CRLF line removes the one that matched") {
  Server s;
  const std::string before = "a\r\n}\n}\r\nb\r\n", after = "a\r\n}\r\nb\r\n";
  CHECK(realize(decode(before), str_replace_edits(decode(before), "a\n}\n", "a\n")).bytes == after);
  Edited e = edit_once(s, replace_op("a\n}\n", "a\n"), before);
  REQUIRE_MESSAGE(!e.reply.error, reply_text(e.reply));
  CHECK_MESSAGE((e.bytes == after), "got " << escape(e.bytes));
  // Line 2 ("}" with LF) is the one removed, not line 3 ("}\r").
  CHECK_MESSAGE((e.reply.diff.find("-}\n") != std::string::npos), "diff " << escape(e.reply.diff));
  CHECK_MESSAGE((e.reply.diff.find("-}\r\n") == std::string::npos),
                "diff " << escape(e.reply.diff));
  CHECK(e.reply.files.at(0).removed == 1);
  CHECK(e.reply.files.at(0).added == 0);
}

TEST_CASE("regression: replaceAll over a large CRLF file keeps each line's own ending") {
  Server s;
  std::string before, after;
  for (int i = 0; i < 100'000; ++i) {
    std::string n = std::to_string(i);
    if (i % 10 == 0) {
      before += "hit " + n + "\n";
      after += "HIT " + n + "\n";
    } else {
      before += "line " + n + "\r\n";
      after += "line " + n + "\r\n";
    }
  }
  Edited e = edit_once(s, replace_op("hit", "HIT", true), before);
  REQUIRE_MESSAGE(!e.reply.error, reply_text(e.reply));
  CHECK_MESSAGE((e.bytes == after), first_difference(after, e.bytes));
  CHECK(e.reply.files.at(0).added == 10'000);
  CHECK(e.reply.files.at(0).removed == 10'000);
}

TEST_CASE("regression: a unified diff adding a file with CR-ended lines writes CRLF") {
  Server s;
  Op op;
  op.kind = Op::Kind::kApplyPatch;
  op.patch = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\r\n+b\r\n";
  Reply r = call(s, op, false);
  REQUIRE_MESSAGE(!r.error, reply_text(r));
  CHECK_MESSAGE((s.backend.get("new.txt") == "a\r\nb\r\n"),
                "got " << escape(s.backend.get("new.txt").value_or("<missing>")));
}

TEST_CASE(
    "regression: inserting into a file with as many LF as CRLF breaks writes LF and keeps the "
    "CRLF") {
  Server s;
  const std::string before = "L1\r\n\n", after = "L1\nL1\r\n\n";
  CHECK(realize(decode(before), {insert_edit(decode(before), 0, "L1")}).bytes == after);
  Op op;
  op.kind = Op::Kind::kInsert;
  op.line = 0;
  op.text = "L1";
  Edited e = edit_once(s, op, before);
  REQUIRE_MESSAGE(!e.reply.error, reply_text(e.reply));
  CHECK_MESSAGE((e.bytes == after), "got " << escape(e.bytes));
}
