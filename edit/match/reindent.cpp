#include "edit/match/reindent.h"

#include <algorithm>
#include <map>
#include <optional>

#include "edit/text/chars.h"

namespace editd::match {

namespace {

using Lines = std::vector<std::string_view>;

// An increase of one column is alignment (the " * " of a C comment), not a step.
constexpr long kMinStep = 2;

// What a window counts as indentation (Window::folded_blanks).
struct Blanks {
  bool folded = false;

  std::string_view lead(std::string_view line) const {
    return folded ? chars::leading_folded_ws(line) : chars::leading_ws(line);
  }
  bool blank(std::string_view line) const {
    return folded ? lead(line).size() == line.size() : chars::is_blank(line);
  }
};

// Columns of indentation `ws`: a tab reaches the next tab stop, a special space
// is one column, a zero-width one none.
long columns(std::string_view ws) {
  long c = 0;
  for (std::size_t i = 0; i < ws.size();) {
    bool zero_width = false;
    if (ws[i] == '\t') {
      c = (c / static_cast<long>(kTabWidth) + 1) * kTabWidth;
      ++i;
    } else if (std::size_t k = chars::folded_blank_size(ws.substr(i), &zero_width)) {
      c += zero_width ? 0 : 1;
      i += k;
    } else {
      ++c;
      ++i;
    }
  }
  return c;
}

long floor_div(long a, long b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

std::string tabs_and_spaces(long cols) {
  const auto width = static_cast<long>(kTabWidth);
  return std::string(static_cast<std::size_t>(cols / width), '\t') +
         std::string(static_cast<std::size_t>(cols % width), ' ');
}

// The indentation step of some text: the most common increase of indentation
// between consecutive non-blank lines.
class StepCounter {
 public:
  explicit StepCounter(Blanks blanks) : blanks_(blanks) {}

  void add(const Lines& lines, std::size_t begin, std::size_t end) {
    std::optional<long> previous;
    for (std::size_t i = begin; i < end; ++i) {
      if (blanks_.blank(lines[i])) continue;
      const long w = columns(blanks_.lead(lines[i]));
      if (previous && w - *previous >= kMinStep) ++counts_[w - *previous];
      previous = w;
    }
  }

  // nullopt when no increase was seen, or when the most common increases tie
  // and the smallest of them does not divide the others.
  std::optional<long> step() const {
    std::size_t most = 0;
    for (const auto& [d, n] : counts_) most = std::max(most, n);
    std::optional<long> smallest;
    for (const auto& [d, n] : counts_) {
      if (n != most) continue;
      if (!smallest) {
        smallest = d;
      } else if (d % *smallest != 0) {
        return std::nullopt;
      }
    }
    return smallest;
  }

 private:
  Blanks blanks_;
  std::map<long, std::size_t> counts_;
};

// How the file indents around the match. kTabs: tabs, each kTabWidth columns,
// then fewer spaces than a tab (tab-indented code, and GNU style); kMixed: lines
// indented with only spaces past a tab's width beside lines indented with tabs,
// or blanks other than spaces and tabs, or a space before a tab.
enum class Style { kNone, kSpaces, kTabs, kMixed };

// The file's lines around the match; studied only when an edit needs it.
class Surroundings {
 public:
  explicit Surroundings(const Window& w)
      : w_(w),
        blanks_{w.folded_blanks},
        begin_(w.start > kIndentContextLines ? w.start - kIndentContextLines : 0),
        end_(std::min(w.file.size(), w.start + w.old_lines.size() + kIndentContextLines)) {}

  std::optional<long> step() {
    if (!step_) step_ = find_step();
    return *step_;
  }

  Style style() {
    if (!style_) style_ = find_style();
    return *style_;
  }

  // The indentation of the line nearest the match that is `cols` deep.
  std::optional<std::string_view> indentation_of(long cols) const {
    std::optional<std::string_view> best;
    std::size_t best_distance = 0;
    for (std::size_t i = begin_; i < end_; ++i) {
      if (blanks_.blank(w_.file[i]) || columns(blanks_.lead(w_.file[i])) != cols) continue;
      const std::size_t d = i < w_.start ? w_.start - i : i - w_.start;
      if (!best || d < best_distance) {
        best = blanks_.lead(w_.file[i]);
        best_distance = d;
      }
    }
    return best;
  }

 private:
  std::optional<long> find_step() const {
    StepCounter counter(blanks_);
    counter.add(w_.file, begin_, end_);
    if (auto s = counter.step()) return s;
    // No step near the match: the nearest shallower line above encloses it.
    long shallowest = -1;
    for (std::size_t j = 0; j < w_.old_lines.size(); ++j) {
      std::string_view l = w_.file[w_.start + j];
      if (blanks_.blank(l)) continue;
      const long c = columns(blanks_.lead(l));
      if (shallowest < 0 || c < shallowest) shallowest = c;
    }
    for (std::size_t i = w_.start; i-- > 0 && w_.start - i <= kIndentEnclosingLines;) {
      if (blanks_.blank(w_.file[i])) continue;
      const long c = columns(blanks_.lead(w_.file[i]));
      if (shallowest - c >= kMinStep) return shallowest - c;
    }
    return std::nullopt;
  }

  // The style of the lines near the match; when none of them is as deep as a
  // tab, whether the file writes a tab there is read from lines further away.
  Style find_style() const {
    Style near = style_of(begin_, end_);
    if (near != Style::kSpaces || deep_line_in(begin_, end_)) return near;
    const std::size_t far_begin =
        w_.start > kIndentEnclosingLines ? w_.start - kIndentEnclosingLines : 0;
    const std::size_t far_end =
        std::min(w_.file.size(), w_.start + w_.old_lines.size() + kIndentEnclosingLines);
    return style_of(far_begin, far_end) == Style::kTabs ? Style::kTabs : near;
  }

  Style style_of(std::size_t begin, std::size_t end) const {
    bool any = false, tab_led = false, wide_spaces = false;
    for (std::size_t i = begin; i < end; ++i) {
      if (blanks_.blank(w_.file[i])) continue;
      std::string_view ws = blanks_.lead(w_.file[i]);
      if (ws.empty()) continue;
      any = true;
      if (ws.find_first_not_of(" \t") != std::string_view::npos) return Style::kMixed;
      const std::size_t space = ws.find(' ');
      if (space != std::string_view::npos && ws.find('\t', space) != std::string_view::npos)
        return Style::kMixed;
      if (ws.front() == '\t') {
        tab_led = true;
      } else if (columns(ws) >= static_cast<long>(kTabWidth)) {
        wide_spaces = true;
      }
    }
    if (tab_led && wide_spaces) return Style::kMixed;
    if (tab_led) return Style::kTabs;
    return any ? Style::kSpaces : Style::kNone;
  }

  bool deep_line_in(std::size_t begin, std::size_t end) const {
    for (std::size_t i = begin; i < end; ++i)
      if (!blanks_.blank(w_.file[i]) &&
          columns(blanks_.lead(w_.file[i])) >= static_cast<long>(kTabWidth))
        return true;
    return false;
  }

  const Window& w_;
  Blanks blanks_;
  std::size_t begin_, end_;
  std::optional<std::optional<long>> step_;
  std::optional<Style> style_;
};

// A non-blank line of oldText and the file's line it matched.
struct Pair {
  std::size_t index;  // in oldText
  long model;         // columns of oldText's indentation
  long file;          // columns of the file's indentation
  std::string_view file_ws;
};

class Reindenter {
 public:
  Reindenter(const Window& w, const Lines& new_lines)
      : w_(w), blanks_{w.folded_blanks}, new_(new_lines), around_(w) {
    for (std::size_t i = 0; i < w.old_lines.size(); ++i) {
      std::string_view o = w.old_lines[i], f = w.file[w.start + i];
      if (blanks_.blank(o) || blanks_.blank(f)) continue;
      pairs_.push_back({i, columns(blanks_.lead(o)), columns(blanks_.lead(f)), blanks_.lead(f)});
    }
    StepCounter model(blanks_);
    model.add(w.old_lines, 0, w.old_lines.size());
    model.add(new_lines, 0, new_lines.size());
    model_step_ = model.step();
    if (pairs_.empty()) return;
    ref_ = &*std::min_element(pairs_.begin(), pairs_.end(),
                              [](const Pair& a, const Pair& b) { return a.model < b.model; });
    mode_ = decide_mode();
  }

  Result<std::string> line(const diff::Block& b, std::size_t j) {
    std::string_view l = new_[j];
    if (blanks_.blank(l) || mode_ == Mode::kVerbatim) return std::string(l);
    std::string_view ws = blanks_.lead(l);
    const long w = columns(ws);
    std::string out;
    if (mode_ == Mode::kMapped) {
      auto d = convert(w - ref_->model);
      if (!d) return refuse(j, unknown_step());
      auto indent = render(ref_->file + *d, ws, w, j);
      if (!indent) return indent.error();
      out = std::move(*indent);
    } else {
      auto indent = per_line(b, j, ws, w);
      if (!indent) return indent.error();
      out = std::move(*indent);
    }
    out += l.substr(ws.size());
    return out;
  }

 private:
  // kVerbatim: oldText has no line to learn from; kMapped: one map (through
  // ref_) holds for every line of oldText; kPerLine: oldText is indented unlike
  // the file (flattened, say), so a line is placed only beside lines of its depth.
  enum class Mode { kVerbatim, kMapped, kPerLine };

  static std::string unknown_step() {
    return "it is deeper or shallower than " + mention(Input::kOldText) +
           "'s lines, and the indentation step there (of the "
           "file, or of " +
           mention(Input::kOldText) + " and " + mention(Input::kNewText) + ") cannot be told";
  }
  static std::string unclear_depth() {
    return mention(Input::kOldText) +
           "'s lines are not indented relative to each other as the file's lines are, so the "
           "depth of this line in the file is unclear";
  }
  static constexpr std::string_view kMixedStyle =
      "the file mixes tabs and spaces there, and no line near the match has the depth it needs";
  static constexpr std::string_view kBeforeColumnZero = "it would start left of column 0";

  Mode decide_mode() {
    const long offset = ref_->file - ref_->model;
    bool same_offset = true, same_depth = true, same_file = true;
    long spread = 0;
    for (const Pair& p : pairs_) {
      same_offset = same_offset && p.file - p.model == offset;
      same_depth = same_depth && p.model == ref_->model;
      same_file = same_file && p.file == ref_->file;
      spread = std::max(spread, p.model - ref_->model);
    }
    // oldText written at the file's own depths, or shifted by a constant that
    // lines at several depths confirm: the model's columns are the file's.
    if (same_offset && (offset == 0 || spread >= kMinStep)) {
      scale_one_ = true;
      identity_ = offset == 0;
      return Mode::kMapped;
    }
    if (same_depth) return same_file ? Mode::kMapped : Mode::kPerLine;
    if (fits()) return Mode::kMapped;
    if (auto s = model_step_from_pairs(); s && s != model_step_) {
      model_step_ = s;
      if (fits()) return Mode::kMapped;
    }
    return Mode::kPerLine;
  }

  // Whether the map through ref_ takes every line of oldText to its file line.
  bool fits() {
    for (const Pair& p : pairs_) {
      auto d = convert(p.model - ref_->model);
      if (!d || ref_->file + *d != p.file) return false;
    }
    return true;
  }

  // The model's step as the pairs show it: the first depth below ref_ is some
  // whole number of file steps deeper in the file.
  std::optional<long> model_step_from_pairs() {
    const Pair* next = nullptr;
    for (const Pair& p : pairs_)
      if (p.model > ref_->model && (next == nullptr || p.model < next->model)) next = &p;
    auto file_step = around_.step();
    if (next == nullptr || !file_step) return std::nullopt;
    const long dm = next->model - ref_->model, df = next->file - ref_->file;
    if (df <= 0 || df % *file_step != 0) return std::nullopt;
    const long levels = df / *file_step;
    if (dm % levels != 0 || dm / levels < kMinStep) return std::nullopt;
    return dm / levels;
  }

  // `delta` columns of the model's indentation in the file's columns: whole
  // model steps become file steps, a remainder (alignment) stays as columns.
  std::optional<long> convert(long delta) {
    if (delta == 0 || scale_one_) return delta;
    auto file_step = around_.step();
    if (!model_step_ || !file_step) return std::nullopt;
    const long levels = floor_div(delta, *model_step_);
    return levels * *file_step + (delta - levels * *model_step_);
  }

  // A line placed beside the lines of oldText it replaces, or (when it replaces
  // none of the same number) beside the block's lines and its neighbours: all
  // of them must be at its model depth and agree on the file's.
  Result<std::string> per_line(const diff::Block& b, std::size_t j, std::string_view ws, long w) {
    std::vector<const Pair*> refs;
    if (b.a_end - b.a_begin == b.b_end - b.b_begin) {
      const std::size_t i = b.a_begin + (j - b.b_begin);
      for (const Pair& p : pairs_)
        if (p.index == i) refs.push_back(&p);
    }
    if (refs.empty()) {
      const Pair* before = nullptr;
      const Pair* after = nullptr;
      for (const Pair& p : pairs_) {
        if (p.index < b.a_begin) {
          before = &p;
        } else if (p.index < b.a_end) {
          refs.push_back(&p);
        } else if (after == nullptr) {
          after = &p;
        }
      }
      if (before != nullptr) refs.push_back(before);
      if (after != nullptr) refs.push_back(after);
    }
    if (refs.empty()) return refuse(j, unclear_depth());
    for (const Pair* p : refs)
      if (p->model != w || p->file != refs.front()->file) return refuse(j, unclear_depth());
    return std::string(refs.front()->file_ws);
  }

  // `cols` columns of indentation as the file writes them: copied from a
  // matched line of that depth, else in the file's style.
  Result<std::string> render(long cols, std::string_view ws, long w, std::size_t j) {
    if (cols < 0) return refuse(j, kBeforeColumnZero);
    for (const Pair& p : pairs_)
      if (p.file == cols) return std::string(p.file_ws);
    switch (around_.style()) {
      case Style::kSpaces:
        return std::string(static_cast<std::size_t>(cols), ' ');
      case Style::kTabs:
        return tabs_and_spaces(cols);
      case Style::kNone:
        if (w == cols) return std::string(ws);
        return ws.find('\t') != std::string_view::npos
                   ? tabs_and_spaces(cols)
                   : std::string(static_cast<std::size_t>(cols), ' ');
      case Style::kMixed:
        break;
    }
    if (auto near = around_.indentation_of(cols)) return std::string(*near);
    if (identity_ && w == cols) return std::string(ws);
    return refuse(j, kMixedStyle);
  }

  Error refuse(std::size_t j, std::string_view why) const {
    const std::size_t first = w_.start + 1, last = w_.start + w_.old_lines.size();
    nlohmann::json data;
    data["startLine"] = first;
    data["endLine"] = last;
    data["hint"] = "send " + mention(Input::kOldText) + " and " + mention(Input::kNewText) +
                   " with the file's exact indentation, copied from read_text: an "
                   "exact match is replaced as written, with no re-indentation";
    return invalid_input(Input::kNewText,
                         mention(Input::kOldText) + " matches lines " + std::to_string(first) +
                             "-" + std::to_string(last) +
                             " at another indentation than the file's, and the indentation of " +
                             mention(Input::kNewText) +
                             "'s "
                             "line " +
                             std::to_string(j + 1) +
                             " cannot be mapped onto the file's safely: " + std::string(why),
                         std::move(data));
  }

  const Window& w_;
  Blanks blanks_;
  const Lines& new_;
  Surroundings around_;
  std::vector<Pair> pairs_;
  const Pair* ref_ = nullptr;  // the shallowest line of oldText
  Mode mode_ = Mode::kVerbatim;
  std::optional<long> model_step_;
  bool scale_one_ = false;  // a model column is a file column
  bool identity_ = false;   // ...and oldText is at the file's own depths
};

}  // namespace

Result<std::vector<std::string>> reindent(const Window& window, const Lines& new_lines,
                                          const std::vector<diff::Block>& blocks) {
  Reindenter reindenter(window, new_lines);
  std::vector<std::string> out;
  for (const diff::Block& b : blocks) {
    for (std::size_t j = b.b_begin; j < b.b_end; ++j) {
      auto line = reindenter.line(b, j);
      if (!line) return line.error();
      out.push_back(std::move(*line));
    }
  }
  return out;
}

}  // namespace editd::match
