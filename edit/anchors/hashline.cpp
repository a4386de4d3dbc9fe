#include "edit/anchors/hashline.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>

#include "edit/text/text.h"

namespace editd::hashline {

namespace {

bool is_blank_byte(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string edit_label(std::size_t index) { return "edit " + std::to_string(index); }

Error edit_param(std::size_t index, const std::string& problem) {
  Error e = invalid_input(Input::kEdits, edit_label(index) + ": " + problem);
  e.data["edit"] = index;
  return e;
}

// The lines of a snapshot, their offsets and (lazily) their tags.
class Lines {
 public:
  explicit Lines(std::string_view normalized)
      : text_(normalized), lines_(text::split_lines(normalized)) {
    std::size_t pos = 0;
    for (std::string_view l : lines_) {
      starts_.push_back(pos);
      pos += l.size() + 1;
    }
    starts_.push_back(normalized.size());
  }

  std::uint64_t count() const { return lines_.size(); }
  // Offset of the start of 0-based line i (the text's size past the end).
  std::size_t offset(std::uint64_t i) const { return starts_[std::min<std::uint64_t>(i, count())]; }
  std::string tag_of(std::uint64_t line) const { return tag(lines_[line - 1]); }  // 1-based
  const std::vector<std::string_view>& lines() const { return lines_; }
  // Lines [first, last] (1-based, clamped) in the hashline view.
  std::string region(std::uint64_t first, std::uint64_t last) const {
    first = std::max<std::uint64_t>(first, 1);
    last = std::min(last, count());
    if (first > last) return "";
    std::vector<std::string_view> part(lines_.begin() + static_cast<std::ptrdiff_t>(first - 1),
                                       lines_.begin() + static_cast<std::ptrdiff_t>(last));
    return render(part, first);
  }
  bool final_newline() const { return !text_.empty() && text_.back() == '\n'; }
  std::size_t size() const { return text_.size(); }

 private:
  std::string_view text_;
  std::vector<std::string_view> lines_;
  std::vector<std::size_t> starts_;
};

Error stale(const Lines& lines, std::size_t index, const Anchor& a, const std::string& why,
            LineRange near) {
  const std::uint64_t lo = near.start_line > kRegion ? near.start_line - kRegion : 1;
  const std::uint64_t hi = near.end_line + kRegion;
  std::string shown = lines.count() == 0 ? std::string("the file is empty")
                      : lo > lines.count()
                          ? "the file has " + std::to_string(lines.count()) + " lines"
                          : "the error's region holds lines " + std::to_string(lo) + "-" +
                                std::to_string(std::min(hi, lines.count())) + " as they are now";
  return Error(ErrorKind::kStale,
               edit_label(index) + ": anchor " + format(a) + " is stale: " + why + "; " + shown +
                   ": take the anchors from there (or read_text again) and retry",
               {{"edit", index}, {"anchor", format(a)}, {"region", lines.region(lo, hi)}});
}

std::uint16_t code_of(const std::string& tag) {
  return static_cast<std::uint16_t>((tag[0] - 'a') * 26 + (tag[1] - 'a'));
}

struct Resolved {
  std::uint64_t line = 0;
  bool rebased = false;
};

// No view of a call's reads: the anchor is used where it stands.
inline constexpr std::size_t kUnread = static_cast<std::size_t>(-1);

bool shows_anchor(const View& view, const Anchor& a) {
  if (a.line == 0 || a.line > view.file->tags.size() ||
      view.file->tags[a.line - 1] != code_of(a.tag))
    return false;
  return std::any_of(view.shown.begin(), view.shown.end(), [&a](const LineRange& r) {
    return r.start_line <= a.line && a.line <= r.end_line;
  });
}

// How the anchors of one call find their lines: each through the view it was
// read from (the first of `reads` that shows it), or where it stands.
class Resolver {
 public:
  Resolver(Lines& lines, const Reads& reads)
      : lines_(lines), reads_(reads), maps_(reads.views.size()) {}

  // The first view that shows `a` (and `b`, when given), or kUnread.
  std::size_t source(const Anchor& a, const Anchor* b = nullptr) const {
    for (std::size_t v = 0; v < reads_.views.size(); ++v)
      if (shows_anchor(reads_.views[v], a) && (!b || shows_anchor(reads_.views[v], *b))) return v;
    return kUnread;
  }

  // Where anchor `a` of edit `index`, read from view `from`, is now.
  Result<Resolved> resolve(std::size_t index, const Anchor& a, std::size_t from) {
    const std::uint64_t n = lines_.count();
    const LineRange here{std::min(a.line, std::max<std::uint64_t>(n, 1)),
                         std::min(a.line, std::max<std::uint64_t>(n, 1))};
    if (from == kUnread && !stands_unread())
      return stale(lines_, index, a,
                   "no read of this file on this connection that editd remembers shows line " +
                       std::to_string(a.line) +
                       " with that tag (the read was forgotten, or the "
                       "anchor was not read here), so where that line is now is unknown",
                   here);
    if (from == kUnread) {
      if (a.line <= n && lines_.tag_of(a.line) == a.tag) return Resolved{a.line, false};
      const std::string now = a.line <= n ? "line " + std::to_string(a.line) + " now reads " +
                                                std::to_string(a.line) + "~" + lines_.tag_of(a.line)
                                          : "the file has only " + std::to_string(n) + " lines";
      return stale(lines_, index, a,
                   now +
                       ", and editd remembers no view of this file that this connection read "
                       "with that anchor in it (an anchor is used only where it stands unless "
                       "its view is remembered)",
                   here);
    }
    const LineMap& map = map_of(from);
    if (auto now = map.line(a.line)) return Resolved{*now, *now != a.line};
    return stale(
        lines_, index, a,
        "line " + std::to_string(a.line) + " was changed or removed since this connection read it",
        map.near(a.line));
  }

  // A replace from `start` to `end` (both resolved through view `from`): the
  // lines between must be the ones read.
  Result<void> check_range(std::size_t index, const Anchor& start, const Anchor& end,
                           const Resolved& s, const Resolved& e, std::size_t from) {
    if (from == kUnread) return {};
    const LineMap& map = map_of(from);
    if (map.together(start.line, end.line) && e.line - s.line == end.line - start.line) return {};
    return stale(lines_, index, end,
                 "lines " + std::to_string(start.line) + "-" + std::to_string(end.line) +
                     " changed between replace.start and replace.end since this connection "
                     "read them, so the range is not the one read",
                 {s.line, std::max(s.line, e.line)});
  }

  // A replace whose start and end no one view showed together, though a
  // view showed one of them: they were read from different versions.
  Result<void> check_apart(std::size_t index, const Anchor& start, const Anchor& end) const {
    if (source(start) == kUnread && source(end) == kUnread) return {};
    return stale(lines_, index, end,
                 "replace.start " + format(start) + " and replace.end " + format(end) +
                     " were not shown together by one read of this file that editd remembers "
                     "for this connection (they come from reads of different versions, or one "
                     "read was forgotten), so the range between them is not known to be the "
                     "one read; read the range in one read_text",
                 {std::min(start.line, std::max<std::uint64_t>(lines_.count(), 1)),
                  std::min(end.line, std::max<std::uint64_t>(lines_.count(), 1))});
  }

 private:
  bool stands_unread() const { return reads_.unread_stand || reads_.views.empty(); }

  const LineMap& map_of(std::size_t v) {
    if (!maps_[v]) {
      if (now_.empty() && lines_.count() > 0) {
        now_.reserve(lines_.count());
        for (std::string_view l : lines_.lines()) now_.push_back(line_hash(l));
      }
      maps_[v].emplace(reads_.views[v].file->hashes, now_);
    }
    return *maps_[v];
  }

  Lines& lines_;
  const Reads& reads_;
  std::vector<std::uint64_t> now_;  // the file's line hashes, made once when a view is used
  std::vector<std::optional<LineMap>> maps_;
};

// One edit as a range of whole lines [begin, end) (0-based) and its text.
struct Item {
  std::size_t index = 0;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::string text;  // normalized; "" or ending in "\n"
  std::uint64_t text_lines = 0;
};

std::string describe(const Item& it) {
  if (it.begin == it.end) return "the point after line " + std::to_string(it.begin);
  if (it.end == it.begin + 1) return "line " + std::to_string(it.end);
  return "lines " + std::to_string(it.begin + 1) + "-" + std::to_string(it.end);
}

Error overlap(const Item& a, const Item& b) {
  const Item& first = a.index < b.index ? a : b;
  const Item& second = a.index < b.index ? b : a;
  Error e = invalid_input(Input::kEdits, "edits " + std::to_string(first.index) + " and " +
                                             std::to_string(second.index) + " overlap (" +
                                             describe(first) + " and " + describe(second) +
                                             "): merge them into one edit");
  e.data["edits"] = {first.index, second.index};
  return e;
}

}  // namespace

std::uint16_t tag_code(std::string_view line) {
  // Most lines fit the buffer on the stack: no allocation per line.
  char small[256];
  std::string large;
  char* kept = small;
  if (line.size() > sizeof small) {
    large.resize(line.size());
    kept = large.data();
  }
  std::size_t n = 0;
  for (char c : line)
    if (!is_blank_byte(c)) kept[n++] = c;
  const XXH64_hash_t h = XXH3_64bits(kept, n);
  return static_cast<std::uint16_t>(h % 676);
}

std::string tag(std::string_view line) {
  const std::uint16_t code = tag_code(line);
  return {static_cast<char>('a' + code / 26), static_cast<char>('a' + code % 26)};
}

std::uint64_t line_hash(std::string_view line) { return XXH3_64bits(line.data(), line.size()); }

Snapshot snapshot(std::string_view normalized) {
  Snapshot s;
  const std::vector<std::string_view> lines = text::split_lines(normalized);
  s.hashes.reserve(lines.size());
  s.tags.reserve(lines.size());
  for (std::string_view l : lines) {
    s.hashes.push_back(line_hash(l));
    s.tags.push_back(tag_code(l));
  }
  return s;
}

bool shows(const View& view, const std::vector<LineEdit>& edits) {
  return std::all_of(edits.begin(), edits.end(), [&view](const LineEdit& e) {
    return shows_anchor(view, e.start) && (!e.end || shows_anchor(view, *e.end));
  });
}

LineMap::LineMap(const std::vector<std::uint64_t>& before, const std::vector<std::uint64_t>& after)
    : blocks_(diff::diff_hashes(before, after)) {}

std::ptrdiff_t LineMap::block_before(std::uint64_t i) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), i,
                             [](std::uint64_t v, const diff::Block& b) { return v < b.a_begin; });
  return (it - blocks_.begin()) - 1;
}

std::optional<std::uint64_t> LineMap::line(std::uint64_t line) const {
  const std::uint64_t i = line - 1;
  const std::ptrdiff_t k = block_before(i);
  if (k < 0) return line;
  const diff::Block& b = blocks_[static_cast<std::size_t>(k)];
  if (i < b.a_end) return std::nullopt;
  return i - b.a_end + b.b_end + 1;
}

bool LineMap::together(std::uint64_t first, std::uint64_t last) const {
  return line(first) && line(last) && block_before(first - 1) == block_before(last - 1);
}

LineRange LineMap::near(std::uint64_t line) const {
  const std::uint64_t i = line - 1;
  const std::ptrdiff_t k = block_before(i);
  if (k < 0) return {line, line};
  const diff::Block& b = blocks_[static_cast<std::size_t>(k)];
  if (i >= b.a_end) return {i - b.a_end + b.b_end + 1, i - b.a_end + b.b_end + 1};
  return {b.b_begin + 1, std::max(b.b_end, b.b_begin + 1)};
}

namespace {

std::size_t digits(std::uint64_t n) {
  std::size_t d = 1;
  for (; n >= 10; n /= 10) ++d;
  return d;
}

// `N~TAG|` and the line's own bytes, before its break.
std::size_t rendered_line(std::uint64_t number, std::string_view line) {
  return digits(number) + 4 + line.size();
}

void append_line(std::string& out, std::uint64_t number, std::string_view line) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, number);
  out.append(buf, end);
  out += '~';
  out += tag(line);
  out += '|';
  out += line;
}

// Calls f(line, ends) for each line of `normalized` (without its break;
// `ends`: a break follows it).
template <class F>
void each_line(std::string_view normalized, F f) {
  std::size_t start = 0;
  while (start < normalized.size()) {
    const std::size_t nl = normalized.find('\n', start);
    if (nl == std::string_view::npos) {
      f(normalized.substr(start), false);
      return;
    }
    f(normalized.substr(start, nl - start), true);
    start = nl + 1;
  }
}

}  // namespace

std::string render(const std::vector<std::string_view>& lines, std::uint64_t first_number,
                   bool final_newline) {
  std::size_t size = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    size += rendered_line(first_number + i, lines[i]) + 1;
  if (!lines.empty() && !final_newline) --size;
  std::string out;
  out.reserve(size);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    append_line(out, first_number + i, lines[i]);
    if (i + 1 < lines.size() || final_newline) out += '\n';
  }
  return out;
}

std::size_t rendered_size(std::string_view normalized, std::uint64_t first_number) {
  std::size_t size = 0;
  std::uint64_t number = first_number;
  each_line(normalized, [&](std::string_view line, bool ends) {
    size += rendered_line(number++, line) + (ends ? 1 : 0);
  });
  return size;
}

std::string render_text(std::string_view normalized, std::uint64_t first_number) {
  std::string out;
  out.reserve(rendered_size(normalized, first_number));
  std::uint64_t number = first_number;
  each_line(normalized, [&](std::string_view line, bool ends) {
    append_line(out, number++, line);
    if (ends) out += '\n';
  });
  return out;
}

std::optional<Anchor> parse_anchor(std::string_view s) {
  if (auto bar = s.find('|'); bar != std::string_view::npos) s = s.substr(0, bar);
  const auto tilde = s.find('~');
  if (tilde == std::string_view::npos || tilde == 0) return std::nullopt;
  Anchor a;
  const char* first = s.data();
  const char* last = s.data() + tilde;
  if (!std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  auto [p, ec] = std::from_chars(first, last, a.line);
  if (ec != std::errc() || p != last || a.line == 0) return std::nullopt;
  std::string_view t = s.substr(tilde + 1);
  if (t.size() != 2 ||
      !std::all_of(t.begin(), t.end(), [](char c) { return c >= 'a' && c <= 'z'; }))
    return std::nullopt;
  a.tag = std::string(t);
  return a;
}

std::string format(const Anchor& a) { return std::to_string(a.line) + "~" + a.tag; }

Result<Plan> plan(std::string_view normalized, const std::vector<LineEdit>& edits,
                  const View* read) {
  Reads reads;
  if (read) reads.views.push_back(*read);
  return plan(normalized, edits, reads);
}

Result<Plan> plan(std::string_view normalized, const std::vector<LineEdit>& edits,
                  const Reads& reads) {
  Lines lines(normalized);
  Resolver resolver(lines, reads);
  Plan out;
  std::vector<Item> items;
  for (std::size_t i = 0; i < edits.size(); ++i) {
    const LineEdit& e = edits[i];
    Item it;
    it.index = i;
    it.text = text::normalize_eol(e.new_text);
    if (!it.text.empty() && it.text.back() != '\n') it.text.push_back('\n');
    it.text_lines = static_cast<std::uint64_t>(std::count(it.text.begin(), it.text.end(), '\n'));
    if (e.kind != Kind::kReplace && it.text.empty())
      return edit_param(i,
                        mention(Input::kNewText) +
                            " must not be empty for an insertion (send \"\\n\" for a blank line)");
    if (e.kind == Kind::kReplace && e.end && e.end->line < e.start.line)
      return edit_param(
          i, "replace.end " + format(*e.end) + " is before replace.start " + format(e.start));
    // A replace's start and end come from one view: the lines between are
    // known only as that read showed them.
    const bool ranged = e.kind == Kind::kReplace && e.end;
    const std::size_t from = resolver.source(e.start, ranged ? &*e.end : nullptr);
    if (ranged && from == kUnread)
      if (auto apart = resolver.check_apart(i, e.start, *e.end); !apart) return apart.error();
    auto start = resolver.resolve(i, e.start, from);
    if (!start) return start.error();
    if (start->rebased) out.rebased.push_back({format(e.start), start->line});
    switch (e.kind) {
      case Kind::kReplace: {
        Resolved end = *start;
        if (e.end) {
          auto r = resolver.resolve(i, *e.end, from);
          if (!r) return r.error();
          end = *r;
          if (auto together = resolver.check_range(i, e.start, *e.end, *start, end, from);
              !together)
            return together.error();
          if (end.rebased) out.rebased.push_back({format(*e.end), end.line});
        }
        it.begin = start->line - 1;
        it.end = end.line;
        break;
      }
      case Kind::kInsertAfter:
        it.begin = it.end = start->line;
        break;
      case Kind::kInsertBefore:
        it.begin = it.end = start->line - 1;
        break;
    }
    items.push_back(std::move(it));
  }

  std::vector<Item> sorted = items;
  std::sort(sorted.begin(), sorted.end(), [](const Item& a, const Item& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.index < b.index;
  });
  // Overlaps: a range that starts inside an earlier one, or two insertions at
  // one point (their order would be a guess).
  std::size_t widest = 0;  // the sorted item reaching furthest so far
  for (std::size_t k = 1; k < sorted.size(); ++k) {
    const Item& prev = sorted[k - 1];
    const Item& cur = sorted[k];
    if (cur.begin < sorted[widest].end) return overlap(sorted[widest], cur);
    if (cur.begin == cur.end && prev.begin == prev.end && prev.begin == cur.begin)
      return overlap(prev, cur);
    if (cur.end > sorted[widest].end) widest = k;
  }

  // New positions, then one splice edit per run of touching items.
  std::vector<LineRange> ranges(items.size());
  std::int64_t delta = 0;
  for (const Item& it : sorted) {
    const std::uint64_t first =
        static_cast<std::uint64_t>(static_cast<std::int64_t>(it.begin) + delta);
    ranges[it.index] = {first + 1, it.text_lines ? first + it.text_lines : first + 1};
    delta +=
        static_cast<std::int64_t>(it.text_lines) - static_cast<std::int64_t>(it.end - it.begin);
  }
  out.lines = std::move(ranges);
  for (std::size_t k = 0; k < sorted.size();) {
    const std::uint64_t begin = sorted[k].begin;
    std::uint64_t end = begin;
    std::string block;
    for (; k < sorted.size() && sorted[k].begin == end; ++k) {
      block += sorted[k].text;
      end = sorted[k].end;
    }
    splice::Edit edit{lines.offset(begin), lines.offset(end), std::move(block)};
    // After a last line without a break, an insertion starts a new line.
    if (edit.begin == lines.size() && edit.begin == edit.end && lines.size() > 0 &&
        !lines.final_newline())
      edit.text.insert(edit.text.begin(), '\n');
    out.edits.push_back(std::move(edit));
  }
  return out;
}

}  // namespace editd::hashline
