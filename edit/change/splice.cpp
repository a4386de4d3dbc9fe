#include "edit/change/splice.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "edit/change/diff.h"
#include "edit/text/chars.h"

namespace editd::splice {

namespace {

using text::Eol;

// A part of one edit that really changes something: normalized [ob, oe) of the
// body becomes text[rb, re) of the edit.
struct Change {
  std::size_t ob, oe;
  std::size_t rb, re;
};

// In a crlf_literal text, the "\n" of a "\r\n" is part of a CRLF that the text
// writes itself: it never counts as kept from the file.
bool literal_newline(const Edit& e, std::size_t k) {
  return e.crlf_literal && e.text[k] == '\n' && k > 0 && e.text[k - 1] == '\r';
}

// Narrows [ob, oe) -> [rb, re) by their common prefix and suffix, and records
// what is left, if anything.
void keep_common_ends(std::string_view norm, const Edit& e, std::size_t ob, std::size_t oe,
                      std::size_t rb, std::size_t re, std::vector<Change>& out) {
  const std::string& r = e.text;
  // A literal "\r\n" is one line break: its CR is never kept apart from it.
  while (ob < oe && rb < re && norm[ob] == r[rb] && !literal_newline(e, rb) &&
         !(rb + 1 < re && literal_newline(e, rb + 1)))
    ++ob, ++rb;
  while (oe > ob && re > rb && norm[oe - 1] == r[re - 1] && !literal_newline(e, re - 1)) --oe, --re;
  if (ob < oe || rb < re) out.push_back({ob, oe, rb, re});
}

// Offsets of the lines of s[begin, end), each line with its "\n", plus `end`.
std::vector<std::size_t> piece_starts(std::string_view s, std::size_t begin, std::size_t end) {
  std::vector<std::size_t> starts;
  std::size_t pos = begin;
  while (pos < end) {
    starts.push_back(pos);
    const void* nl = std::memchr(s.data() + pos, '\n', end - pos);
    pos =
        nl == nullptr ? end : static_cast<std::size_t>(static_cast<const char*>(nl) - s.data()) + 1;
  }
  starts.push_back(end);
  return starts;
}

// Rule 2 for one edit: the common ends, then inside them the lines that a line
// diff keeps, then the common ends of each changed block.
void refine(std::string_view norm, const Edit& e, std::vector<Change>& out) {
  std::vector<Change> outer;
  keep_common_ends(norm, e, e.begin, e.end, 0, e.text.size(), outer);
  if (outer.empty()) return;
  const Change c = outer.front();
  if (c.ob == c.oe || c.rb == c.re) {
    out.push_back(c);
    return;
  }
  const std::vector<std::size_t> os = piece_starts(norm, c.ob, c.oe);
  const std::vector<std::size_t> rs = piece_starts(e.text, c.rb, c.re);
  if (os.size() == 2 && rs.size() == 2) {
    out.push_back(c);
    return;
  }
  std::vector<std::string_view> a, b;
  std::vector<std::string> marked;  // literal CRLF lines never equal a file line
  marked.reserve(rs.size());
  for (std::size_t i = 0; i + 1 < os.size(); ++i)
    a.push_back(norm.substr(os[i], os[i + 1] - os[i]));
  for (std::size_t i = 0; i + 1 < rs.size(); ++i) {
    std::string_view line = std::string_view(e.text).substr(rs[i], rs[i + 1] - rs[i]);
    if (line.ends_with('\n') && literal_newline(e, rs[i + 1] - 1)) {
      marked.push_back(std::string(line) + '\0');
      line = marked.back();
    }
    b.push_back(line);
  }
  for (const diff::Block& blk : diff::diff_lines(a, b))
    keep_common_ends(norm, e, os[blk.a_begin], os[blk.a_end], rs[blk.b_begin], rs[blk.b_end], out);
}

// Normalized offsets to stored ones, for offsets that never decrease.
class OffsetMap {
 public:
  explicit OffsetMap(const text::Document& doc) : body_(doc.body()), any_(doc.crlf_count() > 0) {}

  std::size_t to_body(std::size_t q) {
    if (!any_) return q;
    // Count the CRLFs whose "\n" lies before normalized offset q.
    while (true) {
      if (next_ == kUnknown) next_ = find_next();
      if (next_ == std::string_view::npos) break;
      const std::size_t norm_of_lf = next_ - 1 - removed_;
      if (norm_of_lf >= q) break;
      ++removed_;
      scan_ = next_ + 1;
      next_ = kUnknown;
    }
    return q + removed_;
  }

 private:
  static constexpr std::size_t kUnknown = std::string_view::npos - 1;

  // The next "\n" of a CRLF at or after scan_, or npos.
  std::size_t find_next() {
    while (scan_ < body_.size()) {
      const void* nl = std::memchr(body_.data() + scan_, '\n', body_.size() - scan_);
      if (nl == nullptr) break;
      const auto at = static_cast<std::size_t>(static_cast<const char*>(nl) - body_.data());
      if (at > 0 && body_[at - 1] == '\r') return at;
      scan_ = at + 1;
    }
    scan_ = body_.size();
    return std::string_view::npos;
  }

  std::string_view body_;
  bool any_;
  std::size_t scan_ = 0;
  std::size_t next_ = kUnknown;
  std::size_t removed_ = 0;
};

// text[rb, re) as stored: line breaks in the dominant ending (a literal CRLF stays).
void render(const Edit& e, std::size_t rb, std::size_t re, std::string_view eol, std::string& out) {
  std::string_view t = std::string_view(e.text).substr(rb, re - rb);
  std::size_t pos = 0;
  while (pos < t.size()) {
    std::size_t nl = t.find('\n', pos);
    if (nl == std::string_view::npos) {
      out.append(t.substr(pos));
      break;
    }
    out.append(t.substr(pos, nl - pos));
    out.append(literal_newline(e, rb + nl) ? std::string_view("\n") : eol);
    pos = nl + 1;
  }
}

// The last character of the normalized text after `edits`, or nullopt when it is empty.
std::optional<char> last_char_after(std::string_view norm, const std::vector<Edit>& edits) {
  std::size_t pos = norm.size();
  for (std::size_t i = edits.size(); i-- > 0;) {
    const Edit& e = edits[i];
    if (e.end != pos) break;
    if (!e.text.empty()) return e.text.back();
    pos = e.begin;
  }
  if (pos == 0) return std::nullopt;
  return norm[pos - 1];
}

// Rule 4: what the new body's end needs so that it ends with a line break
// exactly when it should. Decided on the edits; done on the splices, after rule
// 2, so that the break added or removed is never matched against the file's.
enum class FinalBreak { kKeep, kAppend, kStrip };

FinalBreak final_break(const text::Document& doc, std::string_view norm,
                       const std::vector<Edit>& edits, const Options& options) {
  // An empty file has no ending of its own to keep: only a caller's explicit
  // word (a diff's "\ No newline at end of file") decides.
  if (norm.empty() && !options.final_newline) return FinalBreak::kKeep;
  const bool want = options.final_newline.value_or(doc.final_newline());
  const std::optional<char> last = last_char_after(norm, edits);
  if (!last || want == (*last == '\n')) return FinalBreak::kKeep;
  return want ? FinalBreak::kAppend : FinalBreak::kStrip;
}

// Removes the new body's last line break (a CRLF whole) from `splices`.
// `breaks[i]` is the length of the line break that splices[i].bytes end with as
// written (0 when they end otherwise): a CR before an LF that the edit wrote as
// "a line break" in an LF file is content, not part of that break.
void strip_final_break(std::string_view body, std::vector<Splice>& splices,
                       const std::vector<std::uint8_t>& breaks) {
  std::size_t end = body.size();
  std::size_t chain = splices.size();  // first splice of the run that reaches `end`
  for (std::size_t i = splices.size(); i-- > 0 && splices[i].end == end;) {
    std::string& bytes = splices[i].bytes;
    if (!bytes.empty()) {
      bytes.resize(bytes.size() - std::min<std::size_t>(breaks[i], bytes.size()));
      return;
    }
    end = splices[i].begin;
    chain = i;
  }
  if (end == 0 || body[end - 1] != '\n') return;
  const std::size_t floor = chain == 0 ? 0 : splices[chain - 1].end;
  std::size_t begin = end - 1;
  if (begin > floor && body[begin - 1] == '\r') --begin;
  if (chain < splices.size()) {
    splices[chain].begin = begin;
  } else {
    splices.push_back({begin, end, ""});
  }
}

}  // namespace

std::vector<Splice> plan(const text::Document& doc, std::string_view norm, std::vector<Edit> edits,
                         const Options& options) {
  const FinalBreak fix = final_break(doc, norm, edits, options);
  const std::string_view eol = text::eol_bytes(doc.dominant_eol());
  OffsetMap map(doc);
  std::vector<Splice> splices;
  std::vector<std::uint8_t> breaks;  // per splice, for strip_final_break
  std::vector<Change> changes;
  for (const Edit& e : edits) {
    changes.clear();
    refine(norm, e, changes);
    for (const Change& c : changes) {
      Splice s;
      s.begin = map.to_body(c.ob);
      s.end = map.to_body(c.oe);
      render(e, c.rb, c.re, eol, s.bytes);
      if (s.begin == s.end && s.bytes.empty()) continue;
      const bool ends_in_break = c.re > c.rb && e.text[c.re - 1] == '\n';
      breaks.push_back(!ends_in_break                 ? 0
                       : literal_newline(e, c.re - 1) ? 2
                                                      : static_cast<std::uint8_t>(eol.size()));
      splices.push_back(std::move(s));
    }
  }
  if (fix == FinalBreak::kAppend) {
    const std::size_t end = doc.body().size();
    if (splices.empty() || splices.back().end != end) splices.push_back({end, end, ""});
    splices.back().bytes.append(eol);
  } else if (fix == FinalBreak::kStrip) {
    strip_final_break(doc.body(), splices, breaks);
    while (!splices.empty() && splices.back().begin == splices.back().end &&
           splices.back().bytes.empty())
      splices.pop_back();
  }
  return splices;
}

std::vector<Splice> rewrite(const text::Document& doc, std::string_view norm,
                            std::string_view content, const Options& options) {
  Edit whole{0, norm.size(), std::string(content)};
  std::vector<Edit> edits;
  edits.push_back(std::move(whole));
  if (final_break(doc, norm, edits, options) == FinalBreak::kAppend)
    edits.front().text.push_back('\n');
  const Edit& e = edits.front();
  const std::string_view r = e.text;
  // Whole lines common to the start and to the end keep their stored bytes.
  Change c{0, e.end, 0, r.size()};
  while (c.ob < c.oe && c.rb < c.re) {
    const std::size_t a = norm.find('\n', c.ob), b = r.find('\n', c.rb);
    const std::size_t a_end = a == std::string_view::npos ? c.oe : a + 1;
    const std::size_t b_end = b == std::string_view::npos ? c.re : b + 1;
    if (norm.substr(c.ob, a_end - c.ob) != r.substr(c.rb, b_end - c.rb)) break;
    c.ob = a_end;
    c.rb = b_end;
  }
  while (c.oe > c.ob && c.re > c.rb) {
    const std::size_t a = c.oe - 1 == 0 ? std::string_view::npos : norm.rfind('\n', c.oe - 2);
    const std::size_t b = c.re - 1 == 0 ? std::string_view::npos : r.rfind('\n', c.re - 2);
    std::size_t a_begin = a == std::string_view::npos ? 0 : a + 1;
    std::size_t b_begin = b == std::string_view::npos ? 0 : b + 1;
    a_begin = std::max(a_begin, c.ob);
    b_begin = std::max(b_begin, c.rb);
    if (norm.substr(a_begin, c.oe - a_begin) != r.substr(b_begin, c.re - b_begin)) break;
    c.oe = a_begin;
    c.re = b_begin;
  }
  if (c.ob == c.oe && c.rb == c.re) return {};

  // The stored ending of each line of the replaced middle; kNone marks lines
  // whose copies disagree.
  const std::string_view body = doc.body();
  OffsetMap map(doc);
  std::unordered_map<std::string_view, Eol> endings;
  for (std::size_t pos = c.ob; pos < c.oe;) {
    std::size_t nl = norm.find('\n', pos);
    if (nl == std::string_view::npos || nl >= c.oe) break;
    const std::size_t stored = map.to_body(nl);
    const Eol eol = body[stored] == '\r' ? Eol::kCrLf : Eol::kLf;
    auto [it, inserted] = endings.emplace(norm.substr(pos, nl + 1 - pos), eol);
    if (!inserted && it->second != eol) it->second = Eol::kNone;
    pos = nl + 1;
  }
  OffsetMap ends(doc);
  Splice s;
  s.begin = ends.to_body(c.ob);
  s.end = ends.to_body(c.oe);
  const Eol dominant = doc.dominant_eol();
  const std::string_view middle = r.substr(c.rb, c.re - c.rb);
  s.bytes.reserve(middle.size() + middle.size() / 16);
  for (std::size_t pos = 0; pos < middle.size();) {
    std::size_t nl = middle.find('\n', pos);
    if (nl == std::string_view::npos) {
      s.bytes.append(middle.substr(pos));
      break;
    }
    s.bytes.append(middle.substr(pos, nl - pos));
    Eol eol = dominant;
    auto it = endings.find(middle.substr(pos, nl + 1 - pos));
    if (it != endings.end() && it->second != Eol::kNone) eol = it->second;
    s.bytes.append(text::eol_bytes(eol));
    pos = nl + 1;
  }
  std::vector<Splice> out;
  out.push_back(std::move(s));
  return out;
}

Applied apply(const text::Document& doc, const std::vector<Splice>& splices) {
  Applied a;
  const std::string_view body = doc.body();
  const std::string_view bom = doc.bom() ? text::kBom : std::string_view();
  std::size_t grow = 0, shrink = 0;
  for (const Splice& s : splices) {
    grow += s.bytes.size();
    shrink += s.end - s.begin;
  }
  a.bytes.reserve(bom.size() + body.size() + grow - shrink);
  a.bytes.append(bom);
  a.windows.reserve(splices.size());
  std::size_t pos = 0;
  for (const Splice& s : splices) {
    a.bytes.append(body.substr(pos, s.begin - pos));
    const std::size_t new_begin = a.bytes.size() - bom.size();
    a.bytes.append(s.bytes);
    a.windows.push_back({s.begin, s.end, new_begin, new_begin + s.bytes.size()});
    pos = s.end;
  }
  a.bytes.append(body.substr(pos));
  return a;
}

std::vector<std::string_view> pieces(std::string_view bom, std::string_view body,
                                     const std::vector<Splice>& splices) {
  std::vector<std::string_view> out;
  out.reserve(2 * splices.size() + 2);
  auto add = [&out](std::string_view p) {
    if (!p.empty()) out.push_back(p);
  };
  add(bom);
  std::size_t pos = 0;
  for (const Splice& s : splices) {
    add(body.substr(pos, s.begin - pos));
    add(s.bytes);
    pos = s.end;
  }
  add(body.substr(pos));
  return out;
}

std::vector<diff::Window> windows(const std::vector<Splice>& splices) {
  std::vector<diff::Window> out;
  out.reserve(splices.size());
  std::size_t grown = 0, shrunk = 0;  // bytes the splices so far put in and took out
  for (const Splice& s : splices) {
    const std::size_t new_begin = s.begin + grown - shrunk;
    out.push_back({s.begin, s.end, new_begin, new_begin + s.bytes.size()});
    grown += s.bytes.size();
    shrunk += s.end - s.begin;
  }
  return out;
}

namespace {

// The start of the line `n` lines before the one that holds `pos` (0 when
// there are fewer).
std::size_t lines_back(std::string_view body, std::size_t pos, int n) {
  std::size_t start = pos == 0 ? 0 : body.rfind('\n', pos - 1);
  start = start == std::string_view::npos || pos == 0 ? 0 : start + 1;
  for (int i = 0; i < n && start > 0; ++i) {
    const std::size_t nl = start < 2 ? std::string_view::npos : body.rfind('\n', start - 2);
    start = nl == std::string_view::npos ? 0 : nl + 1;
  }
  return start;
}

// Just past the `n`th line break at or after `pos` (the end of the body when
// there are fewer).
std::size_t lines_forward(std::string_view body, std::size_t pos, int n) {
  for (int i = 0; i < n && pos < body.size(); ++i) {
    const std::size_t nl = body.find('\n', pos);
    pos = nl == std::string_view::npos ? body.size() : nl + 1;
  }
  return pos;
}

}  // namespace

diff::UnifiedDiff diff(std::string_view body, const std::vector<Splice>& splices,
                       std::string_view old_label, std::string_view new_label, int context) {
  if (splices.empty()) return {};
  const std::size_t from = lines_back(body, splices.front().begin, context + 1);
  const std::size_t to = lines_forward(body, splices.back().end, context + 2);
  std::string after;
  std::size_t size = to - from;
  for (const Splice& s : splices) size = size + s.bytes.size() - (s.end - s.begin);
  after.reserve(size);
  std::vector<diff::Window> w;
  w.reserve(splices.size());
  std::size_t pos = from;
  for (const Splice& s : splices) {
    after.append(body.substr(pos, s.begin - pos));
    w.push_back({s.begin - from, s.end - from, after.size(), after.size() + s.bytes.size()});
    after.append(s.bytes);
    pos = s.end;
  }
  after.append(body.substr(pos, to - pos));
  return diff::unified_windows(body.substr(from, to - from), after, w, old_label, new_label,
                               context, chars::count_newlines(body.substr(0, from)));
}

std::string apply_edits(std::string_view normalized, const std::vector<Edit>& edits) {
  std::string out;
  std::size_t pos = 0;
  for (const Edit& e : edits) {
    out.append(normalized.substr(pos, e.begin - pos));
    out.append(e.text);
    pos = e.end;
  }
  out.append(normalized.substr(pos));
  return out;
}

}  // namespace editd::splice
