#include "edit/symbols/verify.h"

#include <array>

namespace editd::symbols {

namespace {

bool same(const Span& a, const Span& b) {
  return a.start.line == b.start.line && a.start.character == b.start.character &&
         a.end.line == b.end.line && a.end.character == b.end.character;
}

// A selection larger than this is not a name.
constexpr std::size_t kMaxNameSpan = 4096;

}  // namespace

NameFit name_fit(const LineIndex& index, const Reported& r, Encoding encoding) {
  if (!index.text().empty() && r.range.start.line >= index.lsp_lines()) return NameFit::kMisplaced;
  if (!r.selection || same(*r.selection, r.range)) return NameFit::kUnknown;
  if (!index.text().empty() && r.selection->start.line >= index.lsp_lines())
    return NameFit::kMisplaced;
  // A name that starts past its line's end is not there.
  if (index.past_end(r.selection->start, encoding)) return NameFit::kMisplaced;
  const std::size_t begin = index.offset(r.selection->start, encoding);
  const std::size_t end = index.offset(r.selection->end, encoding);
  if (end <= begin || end - begin > kMaxNameSpan) return NameFit::kUnknown;
  const std::string_view at = index.text().substr(begin, end - begin);
  const std::string_view name = r.name;
  if (at == name || name.find(at) != std::string_view::npos ||
      at.find(name) != std::string_view::npos)
    return NameFit::kHolds;
  return NameFit::kMisplaced;
}

LineBreaks fit_line_breaks(std::string_view text, const std::vector<Reported>& roots,
                           Encoding encoding, LineBreaks prefer) {
  if (!breaks_differ(text)) return prefer;
  const std::array<LineBreaks, 4> order = {prefer, LineBreaks::kLsp, LineBreaks::kLspAndUnicode,
                                           LineBreaks::kLf};
  LineBreaks best = prefer;
  std::size_t best_holds = 0;
  bool first = true;
  for (LineBreaks breaks : order) {
    if (!first && breaks == prefer) continue;
    const LineIndex index(text, breaks);
    std::size_t holds = 0, checked = 0;
    // Depth first, without recursion: a parent, then its children.
    std::vector<const Reported*> todo;
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) todo.push_back(&*it);
    while (!todo.empty() && checked < kMaxFitChecks) {
      const Reported* r = todo.back();
      todo.pop_back();
      const NameFit fit = name_fit(index, *r, encoding);
      if (fit != NameFit::kUnknown) ++checked;
      if (fit == NameFit::kHolds) ++holds;
      for (auto it = r->children.rbegin(); it != r->children.rend(); ++it) todo.push_back(&*it);
    }
    if (first || holds > best_holds) {
      best = breaks;
      best_holds = holds;
    }
    first = false;
  }
  return best;
}

}  // namespace editd::symbols
