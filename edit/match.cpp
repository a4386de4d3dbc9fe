#include "edit/match.h"

#include <string.h>  // memmem
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

#include "edit/diff.h"
#include "edit/similarity.h"
#include "edit/text.h"

namespace editd::match {

std::optional<Mode> parse_mode(std::string_view s) {
  if (s == "exact") return Mode::kExact;
  if (s == "standard") return Mode::kStandard;
  if (s == "fuzzy") return Mode::kFuzzy;
  return std::nullopt;
}

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::kExact:
      return "exact";
    case Mode::kStandard:
      return "standard";
    case Mode::kFuzzy:
      return "fuzzy";
  }
  return "standard";
}

namespace {

using Lines = std::vector<std::string_view>;

// ---------------------------------------------------------------------------
// Characters and lines.

bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view ltrim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) { return ltrim(rtrim(s)); }

bool is_blank(std::string_view s) { return trim(s).empty(); }

std::string_view leading_ws(std::string_view s) { return s.substr(0, s.size() - ltrim(s).size()); }

std::uint64_t hash_of(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (static_cast<unsigned char>(c) & 0x80) == 0; });
}

std::size_t count_newlines(std::string_view s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Code points that are not whitespace.
std::size_t non_blank_chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if ((u & 0xC0) == 0x80) continue;  // continuation byte
    if (!is_blank_char(c) && c != '\n') ++n;
  }
  return n;
}

// Similarities are reported to three decimals, never rounded up to 1.
double round_down(double similarity) { return std::floor(similarity * 1000.0 + 1e-9) / 1000.0; }

nlohmann::json closest_json(const Closest& c) {
  return {{"startLine", c.lines.start_line},
          {"endLine", c.lines.end_line},
          {"text", c.text},
          {"similarity", c.similarity}};
}

std::string join(const Lines& lines, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin) out += '\n';
    out += lines[i];
  }
  return out;
}

// Appends `in` with typographic punctuation and special spaces folded to ASCII.
void fold_unicode(std::string_view in, std::string& out) {
  for (std::size_t i = 0; i < in.size();) {
    auto b0 = static_cast<unsigned char>(in[i]);
    if (b0 < 0x80) {
      out += in[i++];
      continue;
    }
    if (b0 == 0xC2 && i + 1 < in.size() && static_cast<unsigned char>(in[i + 1]) == 0xA0) {
      out += ' ';  // U+00A0 no-break space
      i += 2;
      continue;
    }
    if ((b0 == 0xE2 || b0 == 0xE3 || b0 == 0xEF) && i + 2 < in.size()) {
      auto b1 = static_cast<unsigned char>(in[i + 1]);
      auto b2 = static_cast<unsigned char>(in[i + 2]);
      std::string_view folded;
      bool known = true;
      if (b0 == 0xE2 && b1 == 0x80) {
        if (b2 >= 0x80 && b2 <= 0x8A)
          folded = " ";  // U+2000..U+200A spaces
        else if (b2 == 0x8B)
          folded = "";  // U+200B zero width space
        else if (b2 >= 0x90 && b2 <= 0x95)
          folded = "-";  // U+2010..U+2015 dashes
        else if (b2 >= 0x98 && b2 <= 0x9B)
          folded = "'";  // U+2018..U+201B single quotes
        else if (b2 >= 0x9C && b2 <= 0x9F)
          folded = "\"";  // U+201C..U+201F double quotes
        else if (b2 == 0xA6)
          folded = "...";  // U+2026 ellipsis
        else if (b2 == 0xAF)
          folded = " ";  // U+202F narrow no-break space
        else if (b2 == 0xB2)
          folded = "'";  // U+2032 prime
        else if (b2 == 0xB3)
          folded = "\"";  // U+2033 double prime
        else
          known = false;
      } else if (b0 == 0xE2 && b1 == 0x81 && b2 == 0x9F) {
        folded = " ";  // U+205F medium mathematical space
      } else if (b0 == 0xE2 && b1 == 0x88 && b2 == 0x92) {
        folded = "-";  // U+2212 minus sign
      } else if (b0 == 0xE3 && b1 == 0x80 && b2 == 0x80) {
        folded = " ";  // U+3000 ideographic space
      } else if (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF) {
        folded = "";  // U+FEFF zero width no-break space
      } else {
        known = false;
      }
      if (known) {
        out += folded;
        i += 3;
        continue;
      }
    }
    out += in[i++];
  }
}

// How each tier compares one line of the file with one line of oldText.
enum class Norm { kRstrip, kTrim, kUnicode, kBlankRuns };

std::string_view normalize(Norm norm, std::string_view line, std::string& out,
                           std::string& scratch) {
  switch (norm) {
    case Norm::kRstrip:
      return rtrim(line);
    case Norm::kTrim:
      return trim(line);
    case Norm::kUnicode:
      scratch.clear();
      fold_unicode(line, scratch);
      out.assign(trim(scratch));
      return out;
    case Norm::kBlankRuns: {
      out.clear();
      bool in_run = false;
      for (char c : trim(line)) {
        if (c == ' ' || c == '\t') {
          if (!in_run) out += ' ';
          in_run = true;
        } else {
          out += c;
          in_run = false;
        }
      }
      return out;
    }
  }
  return line;
}

std::string normalized_copy(Norm norm, std::string_view line) {
  std::string out, scratch;
  return std::string(normalize(norm, line, out, scratch));
}

// ---------------------------------------------------------------------------
// The file, split and hashed lazily: an exact hit never splits it.

class File {
 public:
  explicit File(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }

  const Lines& lines() {
    if (!split_) {
      lines_ = text::split_lines(text_);
      split_ = true;
    }
    return lines_;
  }

  std::size_t offset(std::size_t line) {
    const Lines& l = lines();
    return line < l.size() ? static_cast<std::size_t>(l[line].data() - text_.data()) : text_.size();
  }

  std::size_t line_end(std::size_t line) { return offset(line) + lines()[line].size(); }

  // The hash of every line under `norm`, computed once per norm.
  const std::vector<std::uint64_t>& hashes(Norm norm) {
    auto [it, inserted] = hashes_.try_emplace(norm);
    if (inserted) {
      const Lines& l = lines();
      it->second.reserve(l.size());
      std::string out, scratch;
      for (std::string_view line : l)
        it->second.push_back(hash_of(normalize(norm, line, out, scratch)));
    }
    return it->second;
  }

  bool ascii() {
    if (!ascii_) ascii_ = is_ascii(text_);
    return *ascii_;
  }

 private:
  std::string_view text_;
  bool split_ = false;
  Lines lines_;
  std::map<Norm, std::vector<std::uint64_t>> hashes_;
  std::optional<bool> ascii_;
};

// ---------------------------------------------------------------------------
// Hits.

struct Hit {
  std::size_t begin = 0;  // byte offsets in the file
  std::size_t end = 0;
  std::string replacement;
  std::size_t line = 0;  // 1-based line of `begin`
};

// Every non-overlapping occurrence of `needle`, left to right, in one pass.
std::vector<Hit> find_exact(std::string_view text, std::string_view needle,
                            std::string_view replacement) {
  std::vector<Hit> hits;
  if (needle.empty() || needle.size() > text.size()) return hits;
  std::size_t pos = 0, counted = 0, line = 1;
  while (pos + needle.size() <= text.size()) {
    const void* p = memmem(text.data() + pos, text.size() - pos, needle.data(), needle.size());
    if (p == nullptr) break;
    auto at = static_cast<std::size_t>(static_cast<const char*>(p) - text.data());
    line += count_newlines(text.substr(counted, at - counted));
    counted = at;
    hits.push_back({at, at + needle.size(), std::string(replacement), line});
    pos = at + needle.size();
  }
  return hits;
}

// Maps the indentation of the model's lines onto the file's, learnt from the
// lines of a matched window: each indentation of oldText that lines up with one
// of the file becomes that one, deeper ones add the file's own unit (tabs or
// spaces), shallower ones remove it. Lines indented alike are never indented
// twice.
class Reindenter {
 public:
  Reindenter(const Lines& old_lines, const Lines& file_lines, const Lines& new_lines) {
    std::vector<std::size_t> model_widths, file_widths;
    bool file_tabs = false;
    for (std::size_t j = 0; j < old_lines.size(); ++j) {
      if (is_blank(old_lines[j]) || is_blank(file_lines[j])) continue;
      std::string_view o = leading_ws(old_lines[j]), f = leading_ws(file_lines[j]);
      map_.emplace(o, f);
      file_tabs = file_tabs || f.find('\t') != std::string_view::npos;
      file_widths.push_back(width(f));
    }
    for (const Lines* lines : {&old_lines, &new_lines})
      for (std::string_view l : *lines)
        if (!is_blank(l)) model_widths.push_back(width(leading_ws(l)));
    model_unit_ = unit_of(model_widths).value_or(4);
    if (file_tabs) {
      file_unit_ = "\t";
    } else {
      file_unit_ = std::string(unit_of(file_widths).value_or(model_unit_), ' ');
    }
  }

  std::string apply(std::string_view line) const {
    if (map_.empty() || is_blank(line)) return std::string(line);
    std::string_view indent = leading_ws(line);
    std::string_view rest = line.substr(indent.size());
    if (auto it = map_.find(indent); it != map_.end())
      return std::string(it->second) + std::string(rest);
    // The deepest known indentation that this one extends.
    const std::pair<const std::string_view, std::string_view>* base = nullptr;
    for (const auto& kv : map_)
      if (indent.starts_with(kv.first) && (base == nullptr || kv.first.size() > base->first.size()))
        base = &kv;
    if (base != nullptr)
      return std::string(base->second) + levels(width(indent.substr(base->first.size()))) +
             std::string(rest);
    // Shallower than (or unlike) every known one: measure from the shallowest.
    base = &*std::min_element(map_.begin(), map_.end(), [](const auto& a, const auto& b) {
      return width(a.first) < width(b.first);
    });
    const auto delta = static_cast<long>(width(indent)) - static_cast<long>(width(base->first));
    std::string out(base->second);
    if (delta >= 0) return out + levels(static_cast<std::size_t>(delta)) + std::string(rest);
    for (long n = (-delta + static_cast<long>(model_unit_) - 1) / static_cast<long>(model_unit_);
         n > 0 && !out.empty(); --n) {
      if (out.back() == '\t') {
        out.pop_back();
      } else {
        std::size_t spaces = 0;
        while (spaces < out.size() && spaces < file_unit_.size() &&
               out[out.size() - 1 - spaces] == ' ')
          ++spaces;
        out.resize(out.size() - std::max<std::size_t>(spaces, 1));
      }
    }
    return out + std::string(rest);
  }

 private:
  static std::size_t width(std::string_view ws) {
    std::size_t w = 0;
    for (char c : ws) w += c == '\t' ? 4 : 1;
    return w;
  }

  // The indentation step: the smallest difference between distinct widths,
  // else the smallest non-zero width.
  static std::optional<std::size_t> unit_of(std::vector<std::size_t> widths) {
    std::sort(widths.begin(), widths.end());
    widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
    std::optional<std::size_t> unit;
    for (std::size_t i = 1; i < widths.size(); ++i) {
      std::size_t d = widths[i] - widths[i - 1];
      if (!unit || d < *unit) unit = d;
    }
    if (!unit)
      for (std::size_t w : widths)
        if (w > 0) unit = w;
    return unit;
  }

  // `columns` of the model's indentation in the file's units.
  std::string levels(std::size_t columns) const {
    std::string out;
    for (std::size_t i = 0; i < columns / model_unit_; ++i) out += file_unit_;
    out.append(columns % model_unit_, ' ');
    return out;
  }

  std::map<std::string_view, std::string_view> map_;
  std::size_t model_unit_ = 4;
  std::string file_unit_ = "    ";
};

// ---------------------------------------------------------------------------
// Tiers.

enum class TierId {
  kExact,
  kTrailingWhitespace,
  kIndentation,
  kUnicode,
  kEscapes,
  kBlankPadding,
  kBlankRuns,
  kBlock,
};

struct TierInfo {
  TierId id;
  std::string_view name;
  std::string_view drift;  // for hints: what the tier forgives
  bool loose;              // needs kMinLooseChars
  Mode min_mode;
};

constexpr std::array<TierInfo, 8> kTiers = {{
    {TierId::kExact, "exact", "nothing", false, Mode::kExact},
    {TierId::kTrailingWhitespace, "trailing_whitespace", "trailing whitespace", false,
     Mode::kStandard},
    {TierId::kIndentation, "indentation", "indentation", false, Mode::kStandard},
    {TierId::kUnicode, "unicode", "typographic quotes, dashes or special spaces", true,
     Mode::kStandard},
    {TierId::kEscapes, "escapes", "escaped newlines, tabs or quotes", true, Mode::kStandard},
    {TierId::kBlankPadding, "blank_padding", "blank lines around it", false, Mode::kStandard},
    {TierId::kBlankRuns, "blank_runs", "runs of spaces and tabs", false, Mode::kFuzzy},
    {TierId::kBlock, "block", "small differences in lines between its first and last", true,
     Mode::kFuzzy},
}};

bool mode_runs(Mode mode, const TierInfo& t) {
  return static_cast<int>(t.min_mode) <= static_cast<int>(mode);
}

struct TierResult {
  std::vector<Hit> hits;
  bool single_only = false;      // several hits are ambiguous even with replaceAll
  std::optional<Error> refusal;  // the tier found its region but will not guess
};

struct Texts {
  std::string old_text;
  std::string new_text;
};

// oldText with `\n`, `\t`, `\"` or `\'` written out; nullopt when it has none.
std::optional<std::string> unescape(std::string_view s) {
  std::string out;
  bool any = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[i + 1];
      char to = 0;
      switch (c) {
        case 'n':
          to = '\n';
          any = true;
          break;
        case 't':
          to = '\t';
          any = true;
          break;
        case '"':
          to = '"';
          any = true;
          break;
        case '\'':
          to = '\'';
          any = true;
          break;
        case '\\':
          to = '\\';
          break;
        default:
          break;
      }
      if (to != 0) {
        out += to;
        ++i;
        continue;
      }
    }
    out += s[i];
  }
  if (!any) return std::nullopt;
  return out;
}

// Drops blank lines at the start and end of oldText, and as many (at most) from
// newText; nullopt when oldText has no such padding.
std::optional<Texts> strip_padding(std::string_view old_text, std::string_view new_text) {
  Lines o = text::split_lines(old_text), n = text::split_lines(new_text);
  std::size_t lead = 0, tail = 0;
  while (lead < o.size() && is_blank(o[lead])) ++lead;
  if (lead == o.size()) return std::nullopt;
  while (is_blank(o[o.size() - 1 - tail])) ++tail;
  // A final "\n" only ends the last line; blank lines are what come after it.
  if (lead == 0 && tail == 0) return std::nullopt;
  std::size_t new_lead = 0, new_tail = 0;
  while (new_lead < lead && new_lead < n.size() && is_blank(n[new_lead])) ++new_lead;
  while (new_tail < tail && new_lead + new_tail < n.size() && is_blank(n[n.size() - 1 - new_tail]))
    ++new_tail;
  Texts t;
  t.old_text = join(o, lead, o.size() - tail);
  if (tail == 0 && old_text.ends_with('\n')) t.old_text += '\n';
  t.new_text = join(n, new_lead, n.size() - new_tail);
  if (new_tail == 0 && new_text.ends_with('\n') && !t.new_text.empty()) t.new_text += '\n';
  if (new_tail == 0 && tail > 0 && !t.new_text.empty() && new_text.ends_with('\n'))
    t.new_text.pop_back();  // oldText lost its final newline with its padding; so does newText
  return t;
}

class Ladder {
 public:
  Ladder(File& file, std::string_view old_text, std::string_view new_text)
      : file_(file),
        old_(old_text),
        new_(new_text),
        short_(non_blank_chars(old_text) < kMinLooseChars) {}

  bool is_short() const { return short_; }

  TierResult run(TierId id) {
    switch (id) {
      case TierId::kExact: {
        TierResult r;
        r.hits = find_exact(file_.text(), old_, new_);
        return r;
      }
      case TierId::kTrailingWhitespace:
        return lines_tier(old_, new_, Norm::kRstrip, false);
      case TierId::kIndentation:
        return lines_tier(old_, new_, Norm::kTrim, false);
      case TierId::kUnicode:
        if (file_.ascii() && is_ascii(old_)) return {};
        return lines_tier(old_, new_, Norm::kUnicode, false);
      case TierId::kEscapes: {
        auto old_text = unescape(old_);
        if (!old_text || old_text->empty()) return {};
        std::string new_text = unescape(new_).value_or(std::string(new_));
        return lines_tier(*old_text, new_text, Norm::kTrim, true);
      }
      case TierId::kBlankPadding: {
        auto t = strip_padding(old_, new_);
        if (!t) return {};
        return lines_tier(t->old_text, t->new_text, Norm::kTrim, true);
      }
      case TierId::kBlankRuns: {
        auto t = strip_padding(old_, new_).value_or(Texts{std::string(old_), std::string(new_)});
        return lines_tier(t.old_text, t.new_text, Norm::kBlankRuns, false);
      }
      case TierId::kBlock: {
        auto t = strip_padding(old_, new_).value_or(Texts{std::string(old_), std::string(new_)});
        return block_tier(t.old_text, t.new_text);
      }
    }
    return {};
  }

 private:
  // Start lines of every non-overlapping window of the file whose lines equal
  // `old_lines` under `norm`, left to right.
  std::vector<std::size_t> windows(const Lines& old_lines, Norm norm) {
    std::vector<std::size_t> starts;
    const Lines& lines = file_.lines();
    const std::size_t k = old_lines.size(), n = lines.size();
    if (k == 0 || k > n) return starts;
    std::vector<std::string> want;
    std::vector<std::uint64_t> want_hash;
    for (std::string_view l : old_lines) {
      want.push_back(normalized_copy(norm, l));
      want_hash.push_back(hash_of(want.back()));
    }
    const std::vector<std::uint64_t>& have = file_.hashes(norm);
    std::string out, scratch;
    for (std::size_t i = 0; i + k <= n;) {
      bool match = have[i] == want_hash[0];
      for (std::size_t j = 1; match && j < k; ++j) match = have[i + j] == want_hash[j];
      for (std::size_t j = 0; match && j < k; ++j)
        match = normalize(norm, lines[i + j], out, scratch) == want[j];
      if (match) {
        starts.push_back(i);
        i += k;
      } else {
        ++i;
      }
    }
    return starts;
  }

  // The replacement for the window at `start`: lines that newText keeps from
  // oldText keep the file's bytes; changed lines are newText's, re-indented.
  Hit replace_window(std::size_t start, const Lines& o, const Lines& n,
                     const std::vector<diff::Block>& blocks, bool old_nl, bool new_nl) {
    const Lines& lines = file_.lines();
    const std::size_t k = o.size();
    Lines f(lines.begin() + static_cast<std::ptrdiff_t>(start),
            lines.begin() + static_cast<std::ptrdiff_t>(start + k));
    Reindenter reindent(o, f, n);
    std::string out;
    bool first = true;
    auto emit = [&](std::string_view line) {
      if (!first) out += '\n';
      out += line;
      first = false;
    };
    std::size_t a = 0;
    for (const diff::Block& b : blocks) {
      while (a < b.a_begin) emit(f[a++]);
      for (std::size_t j = b.b_begin; j < b.b_end; ++j) emit(reindent.apply(n[j]));
      a = b.a_end;
    }
    while (a < k) emit(f[a++]);

    Hit hit;
    hit.begin = file_.offset(start);
    hit.end = file_.line_end(start + k - 1);
    hit.line = start + 1;
    if (old_nl && !new_nl && hit.end < file_.text().size()) ++hit.end;  // the newline goes too
    if (!old_nl && new_nl) out += '\n';
    hit.replacement = std::move(out);
    return hit;
  }

  TierResult lines_tier(std::string_view old_text, std::string_view new_text, Norm norm,
                        bool also_exact) {
    TierResult r;
    Lines o = text::split_lines(old_text), n = text::split_lines(new_text);
    if (std::all_of(o.begin(), o.end(), [](std::string_view l) { return is_blank(l); })) return r;
    std::vector<std::size_t> starts = windows(o, norm);
    if (!starts.empty()) {
      auto blocks = diff::diff_lines(o, n);
      for (std::size_t s : starts)
        r.hits.push_back(
            replace_window(s, o, n, blocks, old_text.ends_with('\n'), new_text.ends_with('\n')));
    }
    if (also_exact) {
      // The texts as rewritten may also occur verbatim (say, mid-line): those are
      // hits of this tier too, and where both kinds overlap the earlier one wins.
      std::vector<Hit> exact = find_exact(file_.text(), old_text, new_text);
      exact.insert(exact.end(), std::make_move_iterator(r.hits.begin()),
                   std::make_move_iterator(r.hits.end()));
      std::stable_sort(exact.begin(), exact.end(),
                       [](const Hit& x, const Hit& y) { return x.begin < y.begin; });
      r.hits.clear();
      for (Hit& h : exact)
        if (r.hits.empty() || h.begin >= r.hits.back().end) r.hits.push_back(std::move(h));
    }
    return r;
  }

  static bool similar_line(std::string_view a, std::string_view b) {
    if (a == b) return true;
    if (std::max(a.size(), b.size()) > kBlockMaxFuzzyLineBytes) return false;
    return similarity::at_least(a, b, kBlockLineSimilarity);
  }

  TierResult block_tier(std::string_view old_text, std::string_view new_text) {
    TierResult r;
    r.single_only = true;
    Lines o = text::split_lines(old_text), n = text::split_lines(new_text);
    const std::size_t k = o.size();
    if (k < kBlockMinLines || is_blank(o.front()) || is_blank(o.back())) return r;
    const Lines& lines = file_.lines();
    if (k > lines.size()) return r;
    std::vector<std::string> want;
    for (std::string_view l : o) want.push_back(normalized_copy(Norm::kBlankRuns, l));
    const std::uint64_t first = hash_of(want.front()), last = hash_of(want.back());
    const std::vector<std::uint64_t>& have = file_.hashes(Norm::kBlankRuns);
    std::string out, scratch;
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i + k <= lines.size(); ++i) {
      if (have[i] != first || have[i + k - 1] != last) continue;
      if (normalize(Norm::kBlankRuns, lines[i], out, scratch) != want.front()) continue;
      if (normalize(Norm::kBlankRuns, lines[i + k - 1], out, scratch) != want.back()) continue;
      bool ok = true;
      for (std::size_t j = 1; ok && j + 1 < k; ++j)
        ok = similar_line(normalize(Norm::kBlankRuns, lines[i + j], out, scratch), want[j]);
      if (ok) starts.push_back(i);
    }
    if (starts.size() != 1) {
      for (std::size_t s : starts)
        r.hits.push_back({file_.offset(s), file_.line_end(s + k - 1), "", s + 1});
      return r;
    }
    const std::size_t s = starts.front();
    auto blocks = diff::diff_lines(o, n);
    for (const diff::Block& b : blocks) {
      for (std::size_t j = b.a_begin; j < b.a_end; ++j) {
        if (normalize(Norm::kBlankRuns, lines[s + j], out, scratch) == want[j]) continue;
        std::string line_no = std::to_string(s + j + 1);
        nlohmann::json data;
        Lines window(lines.begin() + static_cast<std::ptrdiff_t>(s),
                     lines.begin() + static_cast<std::ptrdiff_t>(s + k));
        Closest c{
            {s + 1, s + k}, join(lines, s, s + k), round_down(similarity::lines_ratio(window, o))};
        data["closest"] = closest_json(c);
        data["hint"] = "oldText resembles lines " + std::to_string(s + 1) + "-" +
                       std::to_string(s + k) + ", but line " + line_no +
                       ", which the edit changes, differs from the file: copy that line exactly "
                       "from the file (read it again) and retry";
        data["tier"] = "block";
        r.refusal = Error(ErrorKind::kNoMatch,
                          "oldText was not found in the file: it resembles lines " +
                              std::to_string(s + 1) + "-" + std::to_string(s + k) + ", but line " +
                              line_no + ", which the edit changes, differs there",
                          std::move(data));
        return r;
      }
    }
    r.hits.push_back(
        replace_window(s, o, n, blocks, old_text.ends_with('\n'), new_text.ends_with('\n')));
    return r;
  }

  File& file_;
  std::string_view old_;
  std::string_view new_;
  bool short_;
};

struct LadderResult {
  const TierInfo* tier = nullptr;  // null: no tier had a hit
  TierResult result;
};

// Runs the tiers that `runs` admits, in order, and stops at the first with any
// hit or refusal.
template <class Pred>
LadderResult run_ladder(Ladder& ladder, Pred runs) {
  for (const TierInfo& t : kTiers) {
    if (!runs(t)) continue;
    TierResult r = ladder.run(t.id);
    if (!r.hits.empty() || r.refusal) return {&t, std::move(r)};
  }
  return {};
}

// ---------------------------------------------------------------------------
// Line-number prefixes: "12: ", "12:", "12\t" or "12→", after optional spaces.

struct Prefix {
  std::size_t length;
  std::uint64_t number;
};

std::optional<Prefix> line_number_prefix(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  std::size_t digits = i;
  std::uint64_t number = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - digits < 9)
    number = number * 10 + static_cast<std::uint64_t>(line[i++] - '0');
  if (i == digits) return std::nullopt;
  std::string_view rest = line.substr(i);
  if (rest.starts_with(": ")) return Prefix{i + 2, number};
  if (rest.starts_with(":") || rest.starts_with("\t")) return Prefix{i + 1, number};
  if (rest.starts_with("\xE2\x86\x92")) return Prefix{i + 3, number};
  return std::nullopt;
}

enum class Numbering { kNone, kSome, kEvery };

Numbering numbering(std::string_view s) {
  Lines lines = text::split_lines(s);
  std::size_t with = 0;
  std::optional<std::uint64_t> previous;
  bool consecutive = true;
  for (std::string_view l : lines) {
    auto p = line_number_prefix(l);
    if (!p) continue;
    ++with;
    if (previous && p->number != *previous + 1) consecutive = false;
    previous = p->number;
  }
  if (with == 0) return Numbering::kNone;
  return with == lines.size() && consecutive ? Numbering::kEvery : Numbering::kSome;
}

std::string strip_numbers(std::string_view s) {
  std::string out;
  Lines lines = text::split_lines(s);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    auto p = line_number_prefix(lines[i]);
    out += p ? lines[i].substr(p->length) : lines[i];
  }
  if (s.ends_with('\n')) out += '\n';
  return out;
}

// ---------------------------------------------------------------------------
// Outcomes.

std::string list_lines(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < 10; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(lines[i]);
  }
  if (lines.size() > 10) out += ", ...";
  return out;
}

// Every hit knows its line in `text`, so the new text's line numbers follow
// from the newlines each earlier replacement added or removed, without building
// the new text.
Plan build_plan(std::string_view text, std::vector<Hit>& hits, std::string_view tier) {
  Plan plan;
  plan.tier = std::string(tier);
  plan.replacements = hits.size();
  long shift = 0;  // newlines added so far minus newlines removed
  bool may_pass_end = false;
  for (Hit& h : hits) {
    const auto start = static_cast<std::size_t>(static_cast<long>(h.line) + shift);
    const std::string& r = h.replacement;
    const std::size_t added = count_newlines(r);
    std::size_t end = start;
    if (!r.empty()) end = start + added - (r.back() == '\n' ? 1 : 0);
    plan.lines.push_back({start, end});
    shift += static_cast<long>(added) -
             static_cast<long>(count_newlines(text.substr(h.begin, h.end - h.begin)));
    may_pass_end = may_pass_end || h.end == text.size() || r.empty();
    plan.edits.push_back({h.begin, h.end, std::move(h.replacement)});
  }
  if (may_pass_end) {
    // A cut at the very end of the text happened on its last line.
    const auto newlines =
        static_cast<std::size_t>(static_cast<long>(count_newlines(text)) + shift);
    std::size_t pos = text.size();
    std::optional<char> last;
    for (std::size_t i = plan.edits.size(); i-- > 0 && plan.edits[i].end == pos;) {
      if (!plan.edits[i].text.empty()) {
        last = plan.edits[i].text.back();
        break;
      }
      pos = plan.edits[i].begin;
    }
    if (!last && pos > 0) last = text[pos - 1];
    const std::size_t total = std::max<std::size_t>(1, newlines + (last && *last != '\n' ? 1 : 0));
    for (LineRange& l : plan.lines) {
      l.start_line = std::min(l.start_line, total);
      l.end_line = std::max(l.start_line, std::min(l.end_line, total));
    }
  }
  return plan;
}

// The whole lines a hit touches, so that a model can tell candidates apart.
nlohmann::json candidate_json(std::string_view text, const Hit& h) {
  const std::size_t from = h.begin == 0 ? 0 : text.rfind('\n', h.begin - 1) + 1;
  std::size_t last = h.end > h.begin ? h.end - 1 : h.begin;
  std::size_t to = last < text.size() && text[last] == '\n' ? last : text.find('\n', last);
  if (to == std::string_view::npos) to = text.size();
  std::string_view region = text.substr(from, to - from);
  return {{"startLine", h.line},
          {"endLine", h.line + count_newlines(region)},
          {"text", std::string(region)}};
}

Result<Plan> decide(std::string_view text, LadderResult& found, const Request& request,
                    std::string_view tier_name) {
  std::vector<Hit>& hits = found.result.hits;
  std::vector<std::size_t> lines;
  for (const Hit& h : hits) lines.push_back(h.line);
  const std::size_t n = hits.size();
  nlohmann::json data;
  data["lines"] = lines;
  data["tier"] = tier_name;
  if (n > 1 || request.expected_replacements) {
    nlohmann::json candidates = nlohmann::json::array();
    for (std::size_t i = 0; i < n && i < kMaxCandidates; ++i)
      candidates.push_back(candidate_json(text, hits[i]));
    data["candidates"] = std::move(candidates);
  }
  const std::string where = "lines " + list_lines(lines) + " (tier " + std::string(tier_name) + ")";
  if (request.expected_replacements && *request.expected_replacements != n) {
    data["expected"] = *request.expected_replacements;
    data["found"] = n;
    return Error(ErrorKind::kAmbiguous,
                 "expected " + std::to_string(*request.expected_replacements) +
                     " replacements, but oldText matches " + std::to_string(n) + " regions at " +
                     where + "; adjust oldText or expectedReplacements",
                 std::move(data));
  }
  if (n > 1 && found.result.single_only) {
    return Error(ErrorKind::kAmbiguous,
                 "oldText loosely matches " + std::to_string(n) + " regions at " + where +
                     ", and a loose match is applied only when it is the only one: copy oldText "
                     "exactly from the file, with enough surrounding lines to pick one",
                 std::move(data));
  }
  if (n > 1 && !request.replace_all) {
    return Error(ErrorKind::kAmbiguous,
                 "oldText matches " + std::to_string(n) + " regions at " + where +
                     "; add surrounding lines to oldText so that it matches only one, or set "
                     "replaceAll to replace every one",
                 std::move(data));
  }
  return build_plan(text, hits, tier_name);
}

}  // namespace

Result<Plan> plan_replace(const Request& request) {
  if (request.old_text.empty())
    return invalid_param("oldText", "must not be empty (to insert text, use insert or write_text)");
  if (request.old_text == request.new_text)
    return Error(ErrorKind::kNoChange, "oldText and newText are the same: nothing would change");

  File file(request.text);
  const Mode mode = request.mode;
  Ladder ladder(file, request.old_text, request.new_text);
  auto enabled = [&](const TierInfo& t) {
    return mode_runs(mode, t) && !(t.loose && ladder.is_short());
  };
  LadderResult found = run_ladder(ladder, enabled);
  if (found.tier != nullptr && found.result.refusal) return *found.result.refusal;
  if (found.tier != nullptr) return decide(request.text, found, request, found.tier->name);

  std::vector<std::string> hints;
  const Numbering numbered = numbering(request.old_text);
  std::string_view needle = request.old_text;
  std::string stripped_old;
  if (numbered == Numbering::kEvery && mode != Mode::kExact) {
    stripped_old = strip_numbers(request.old_text);
    needle = stripped_old;
    const Numbering new_numbered = numbering(request.new_text);
    if (new_numbered == Numbering::kSome && !text::split_lines(request.new_text).empty()) {
      hints.push_back(
          "oldText carries line-number prefixes (\"12: \" or \"12\\t\") on every line, but "
          "newText only on some: send both without line numbers");
    } else {
      std::string stripped_new = new_numbered == Numbering::kNone ? std::string(request.new_text)
                                                                  : strip_numbers(request.new_text);
      if (stripped_old != stripped_new) {
        Ladder unnumbered(file, stripped_old, stripped_new);
        LadderResult again = run_ladder(unnumbered, [&](const TierInfo& t) {
          return mode_runs(mode, t) && !(t.loose && unnumbered.is_short());
        });
        if (again.tier != nullptr && again.result.refusal) return *again.result.refusal;
        if (again.tier != nullptr) return decide(request.text, again, request, "line_numbers");
      }
      hints.push_back(
          "oldText carries line-number prefixes (\"12: \" or \"12\\t\") on every line; without "
          "them it was not found either");
    }
  } else if (numbered == Numbering::kEvery) {
    hints.push_back(
        "every line of oldText starts with a line number (\"12: \" or \"12\\t\"), as copied from "
        "a numbered view; the file does not contain those numbers: send oldText and newText "
        "without them");
  } else if (numbered == Numbering::kSome && non_blank_chars(request.old_text) > 0) {
    Lines l = text::split_lines(request.old_text);
    if (l.size() > 1)
      hints.push_back(
          "some lines of oldText start with a line number (\"12: \" or \"12\\t\"): if they were "
          "copied from a numbered view, send oldText without them");
  }

  if (!trim(request.new_text).empty()) {
    if (auto hit = find_exact(request.text, request.new_text, ""); !hit.empty()) {
      hints.push_back("newText is already in the file at line " + std::to_string(hit.front().line) +
                      ": was this edit already applied?");
    }
  }

  // Would a tier that this call did not run have found it?
  LadderResult disabled =
      run_ladder(ladder, [&](const TierInfo& t) { return t.id != TierId::kExact && !enabled(t); });
  if (disabled.tier != nullptr && !disabled.result.hits.empty()) {
    const TierInfo& t = *disabled.tier;
    std::string at = "line " + std::to_string(disabled.result.hits.front().line);
    if (!mode_runs(mode, t)) {
      hints.push_back("oldText differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), which matching \"" + std::string(mode_name(mode)) +
                      "\" does not forgive: copy oldText exactly from the file, or retry with "
                      "matching \"" +
                      std::string(mode_name(t.min_mode)) + "\"");
    } else {
      hints.push_back("oldText differs from the file at " + at + " only in " +
                      std::string(t.drift) + " (tier " + std::string(t.name) +
                      "), but it has fewer than " + std::to_string(kMinLooseChars) +
                      " non-blank characters, too few to match loosely: copy it exactly from the "
                      "file, with some surrounding text");
    }
  }

  nlohmann::json data = nlohmann::json::object();
  std::string message = "oldText was not found in the file";
  if (auto closest = closest_region(request.text, needle)) {
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
    message += "; the most similar region is lines " + std::to_string(closest->lines.start_line) +
               "-" + std::to_string(closest->lines.end_line) + " (similarity " + similarity +
               "), in data.closest: copy oldText from there exactly";
    data["closest"] = closest_json(*closest);
  }
  if (!hints.empty()) {
    std::string hint;
    for (const std::string& h : hints) hint += (hint.empty() ? "" : " ") + h + ".";
    data["hint"] = hint;
  }
  return Error(ErrorKind::kNoMatch, message, std::move(data));
}

// ---------------------------------------------------------------------------
// The closest region: windows of the file as long as the needle are voted for
// by lines equal after trimming (weighted by rarity) and by shared identifier
// tokens; the best few are scored line by line with banded edit distances.

namespace {

constexpr std::size_t kCandidates = 8;
// Pairs of (file line, needle line) one trimmed line or token may vote for; more
// common ones carry little information and are skipped.
constexpr std::size_t kMaxVotesPerKey = 4096;
// Files with at most this many windows are scored in full when nothing votes.
constexpr std::size_t kScoreAllWindows = 512;

bool is_token_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         u >= 0x80;
}

template <class F>
void for_each_token(std::string_view line, F f) {
  for (std::size_t i = 0; i < line.size();) {
    if (!is_token_char(line[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && is_token_char(line[j])) ++j;
    if (j - i >= 2) f(line.substr(i, j - i));
    i = j;
  }
}

// Adds votes for windows from matches of keys: for each key, the file lines
// that carry it and the needle lines that carry it.
void vote(std::vector<double>& votes,
          const std::unordered_map<std::uint64_t, std::vector<std::size_t>>& needle_lines,
          const std::vector<std::pair<std::size_t, std::uint64_t>>& file_hits, double weight) {
  std::unordered_map<std::uint64_t, std::size_t> freq;
  for (const auto& [line, key] : file_hits) ++freq[key];
  const std::size_t last_start = votes.size() - 1;
  for (const auto& [line, key] : file_hits) {
    const auto& js = needle_lines.at(key);
    const std::size_t f = freq[key];
    if (f * js.size() > kMaxVotesPerKey) continue;
    const double w = weight / static_cast<double>(f);
    for (std::size_t j : js) {
      std::size_t s = line >= j ? line - j : 0;
      votes[std::min(s, last_start)] += w;
    }
  }
}

}  // namespace

std::optional<Closest> closest_region(std::string_view text, std::string_view needle) {
  Lines lines = text::split_lines(text);
  if (lines.empty()) return std::nullopt;
  Lines want = text::split_lines(needle);
  if (want.empty()) want.push_back("");
  const std::size_t k = std::min(want.size(), lines.size());
  const std::size_t starts = lines.size() - k + 1;
  std::vector<double> votes(starts, 0.0);

  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_line, by_token;
  for (std::size_t j = 0; j < want.size(); ++j) {
    std::string_view t = trim(want[j]);
    if (!t.empty()) by_line[hash_of(t)].push_back(j);
    for_each_token(want[j], [&](std::string_view tok) {
      auto& js = by_token[hash_of(tok)];
      if (js.empty() || js.back() != j) js.push_back(j);
    });
  }
  std::vector<std::pair<std::size_t, std::uint64_t>> line_hits, token_hits;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = trim(lines[i]);
    if (t.empty()) continue;
    if (!by_line.empty())
      if (std::uint64_t h = hash_of(t); by_line.count(h)) line_hits.push_back({i, h});
    if (!by_token.empty())
      for_each_token(t, [&](std::string_view tok) {
        if (std::uint64_t h = hash_of(tok); by_token.count(h)) token_hits.push_back({i, h});
      });
  }
  vote(votes, by_line, line_hits, 1.0);
  vote(votes, by_token, token_hits, 0.2);

  std::vector<std::size_t> candidates;
  for (std::size_t s = 0; s < starts; ++s)
    if (votes[s] > 0) candidates.push_back(s);
  if (candidates.size() > kCandidates) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](std::size_t a, std::size_t b) { return votes[a] > votes[b]; });
    candidates.resize(kCandidates);
    std::sort(candidates.begin(), candidates.end());
  }
  if (candidates.empty()) {
    for (std::size_t s = 0; s < std::min(starts, kScoreAllWindows); ++s) candidates.push_back(s);
  }

  std::size_t best = candidates.front();
  double best_score = -1;
  for (std::size_t s : candidates) {
    Lines window(lines.begin() + static_cast<std::ptrdiff_t>(s),
                 lines.begin() + static_cast<std::ptrdiff_t>(s + k));
    double score = similarity::lines_ratio(window, want);
    if (score > best_score) {
      best_score = score;
      best = s;
    }
  }
  Closest c;
  c.lines = {best + 1, best + k};
  c.text = join(lines, best, best + k);
  c.similarity = round_down(best_score);
  return c;
}

}  // namespace editd::match
