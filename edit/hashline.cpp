#include "edit/hashline.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>

#include "edit/text.h"

namespace editd::hashline {

namespace {

bool is_blank_byte(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string edit_label(std::size_t index) { return "edit " + std::to_string(index); }

Error edit_param(std::size_t index, const std::string& problem) {
  Error e = invalid_param("edits", edit_label(index) + ": " + problem);
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
    tags_.resize(lines_.size());
  }

  std::uint64_t count() const { return lines_.size(); }
  // Offset of the start of 0-based line i (the text's size past the end).
  std::size_t offset(std::uint64_t i) const { return starts_[std::min<std::uint64_t>(i, count())]; }
  const std::string& tag_of(std::uint64_t line) {  // 1-based
    std::optional<std::string>& t = tags_[line - 1];
    if (!t) t = tag(lines_[line - 1]);
    return *t;
  }
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
  std::vector<std::optional<std::string>> tags_;
};

std::string join_numbers(const std::vector<std::uint64_t>& v) {
  std::string out;
  for (std::uint64_t n : v) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

Error stale(Lines& lines, std::size_t index, const Anchor& a, const std::string& why,
            std::vector<std::uint64_t> candidates) {
  const std::uint64_t lo = a.line > kWindow ? a.line - kWindow : 1;
  const std::uint64_t hi = a.line + kWindow;
  std::string shown = lines.count() == 0 ? std::string("the file is empty")
                      : lo > lines.count()
                          ? "the file has " + std::to_string(lines.count()) + " lines"
                          : "data.region holds lines " + std::to_string(lo) + "-" +
                                std::to_string(std::min(hi, lines.count())) + " as they are now";
  Error e(ErrorKind::kStale,
          edit_label(index) + ": anchor " + format(a) + " is stale: " + why + "; " + shown +
              ": take the anchors from there (or read_text with format \"hashline\") and retry",
          {{"edit", index}, {"anchor", format(a)}, {"region", lines.region(lo, hi)}});
  if (!candidates.empty()) e.data["candidates"] = candidates;
  return e;
}

struct Resolved {
  std::uint64_t line = 0;
  bool rebased = false;
};

// Where anchor `a` of edit `index` is in `lines`.
Result<Resolved> resolve(Lines& lines, std::size_t index, const Anchor& a) {
  const std::uint64_t n = lines.count();
  if (a.line <= n && lines.tag_of(a.line) == a.tag) return Resolved{a.line, false};
  const std::uint64_t lo = a.line > kWindow ? a.line - kWindow : 1;
  const std::uint64_t hi = std::min(a.line + kWindow, n);
  std::vector<std::uint64_t> found;
  for (std::uint64_t l = lo; l <= hi; ++l)
    if (l != a.line && lines.tag_of(l) == a.tag) found.push_back(l);
  if (found.size() == 1) return Resolved{found.front(), true};
  std::string now = a.line <= n ? "line " + std::to_string(a.line) + " now reads " +
                                      std::to_string(a.line) + "~" + lines.tag_of(a.line)
                                : "the file has only " + std::to_string(n) + " lines";
  if (found.empty())
    return stale(lines, index, a,
                 now + ", and no line within " + std::to_string(kWindow) +
                     " lines either side carries ~" + a.tag,
                 {});
  return stale(lines, index, a,
               now + ", and " + std::to_string(found.size()) + " lines within " +
                   std::to_string(kWindow) + " lines either side carry ~" + a.tag + " (lines " +
                   join_numbers(found) + "): it cannot tell which was meant",
               found);
}

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
  Error e =
      invalid_param("edits", "edits " + std::to_string(first.index) + " and " +
                                 std::to_string(second.index) + " overlap (" + describe(first) +
                                 " and " + describe(second) + "): merge them into one edit");
  e.data["edits"] = {first.index, second.index};
  return e;
}

}  // namespace

std::string tag(std::string_view line) {
  std::string kept;
  kept.reserve(line.size());
  for (char c : line)
    if (!is_blank_byte(c)) kept.push_back(c);
  const XXH64_hash_t h = XXH3_64bits(kept.data(), kept.size());
  return {static_cast<char>('a' + (h / 26) % 26), static_cast<char>('a' + h % 26)};
}

std::string render(const std::vector<std::string_view>& lines, std::uint64_t first_number,
                   bool final_newline) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += std::to_string(first_number + i);
    out += '~';
    out += tag(lines[i]);
    out += '|';
    out += lines[i];
    if (i + 1 < lines.size() || final_newline) out += '\n';
  }
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

Result<Plan> plan(std::string_view normalized, const std::vector<LineEdit>& edits) {
  Lines lines(normalized);
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
      return edit_param(
          i, "newText must not be empty for an insertion (send \"\\n\" for a blank line)");
    if (e.kind == Kind::kReplace && e.end && e.end->line < e.start.line)
      return edit_param(
          i, "replace.end " + format(*e.end) + " is before replace.start " + format(e.start));
    auto start = resolve(lines, i, e.start);
    if (!start) return start.error();
    if (start->rebased) out.rebased.push_back({format(e.start), start->line});
    switch (e.kind) {
      case Kind::kReplace: {
        Resolved end = *start;
        if (e.end) {
          auto r = resolve(lines, i, *e.end);
          if (!r) return r.error();
          end = *r;
          const auto moved = [](const Anchor& from, const Resolved& to) {
            return static_cast<std::int64_t>(to.line) - static_cast<std::int64_t>(from.line);
          };
          if (moved(e.start, *start) != moved(*e.end, end)) {
            std::vector<std::uint64_t> none;
            return stale(lines, i, *e.end,
                         "replace.start " + format(e.start) + " is now at line " +
                             std::to_string(start->line) + " but replace.end is at line " +
                             std::to_string(end.line) +
                             ": the lines between them changed, so the range is not the one read",
                         none);
          }
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
