#include "edit/symbols/outline.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <tuple>

#include "edit/match/similarity.h"
#include "edit/symbols/verify.h"

namespace editd::symbols {

namespace {

bool before(const Position& a, const Position& b) {
  return std::tie(a.line, a.character) < std::tie(b.line, b.character);
}
bool contains(const Span& outer, const Span& inner) {
  return !before(inner.start, outer.start) && !before(outer.end, inner.end);
}
// A range that ends before it starts is empty at its start.
Span sane(Span s) {
  if (before(s.end, s.start)) s.end = s.start;
  return s;
}

}  // namespace

std::vector<Reported> nest(std::vector<Reported> flat) {
  for (Reported& r : flat) r.range = sane(r.range);
  // By start, the longer first: a container comes before what it contains.
  std::stable_sort(flat.begin(), flat.end(), [](const Reported& a, const Reported& b) {
    if (before(a.range.start, b.range.start)) return true;
    if (before(b.range.start, a.range.start)) return false;
    return before(b.range.end, a.range.end);
  });
  const std::size_t n = flat.size();
  std::vector<std::optional<std::size_t>> parent(n);
  std::vector<std::size_t> depth(n, 0), open;
  for (std::size_t i = 0; i < n; ++i) {
    while (!open.empty() && !contains(flat[open.back()].range, flat[i].range)) open.pop_back();
    if (!open.empty()) {
      parent[i] = open.back();
      depth[i] = depth[open.back()] + 1;
    }
    open.push_back(i);
  }
  // Children have larger indices than their parent: moved last to first, each
  // has all its children (in reverse) when it moves. No recursion, however deep
  // the nesting.
  std::vector<Reported> roots;
  for (std::size_t i = n; i-- > 0;) {
    if (depth[i] > kMaxDepth) continue;
    std::reverse(flat[i].children.begin(), flat[i].children.end());
    std::vector<Reported>& into = parent[i] ? flat[*parent[i]].children : roots;
    into.push_back(std::move(flat[i]));
  }
  std::reverse(roots.begin(), roots.end());
  return roots;
}

std::string_view kind_name(std::uint32_t kind) {
  static constexpr std::array<std::string_view, 26> kNames = {
      "file",     "module",   "namespace",   "package",  "class",     "method",   "property",
      "field",    "constructor", "enum",     "interface", "function", "variable", "constant",
      "string",   "number",   "boolean",     "array",    "object",    "key",      "null",
      "enum_member", "struct", "event",      "operator", "type_parameter"};
  if (kind < 1 || kind > kNames.size()) return "unknown";
  return kNames[kind - 1];
}

namespace {

struct Builder {
  const LineIndex& index;
  Encoding encoding;
  std::size_t max_symbols;
  std::vector<Symbol> out;

  void add(const std::vector<Reported>& siblings, std::optional<std::size_t> parent,
           std::size_t depth) {
    // Document order, whatever order the server sent.
    std::vector<const Reported*> order;
    order.reserve(siblings.size());
    for (const Reported& r : siblings)
      if (!r.name.empty()) order.push_back(&r);
    std::stable_sort(order.begin(), order.end(), [](const Reported* a, const Reported* b) {
      return before(sane(a->range).start, sane(b->range).start);
    });
    std::map<std::string_view, std::size_t> count, seen;
    for (const Reported* r : order) ++count[r->name];
    for (const Reported* r : order) {
      if (out.size() >= max_symbols) return;
      const Span range = sane(r->range);
      const std::size_t begin = index.offset(range.start, encoding);
      const std::size_t end = std::max(begin, index.offset(range.end, encoding));
      Symbol s;
      s.name = r->name;
      s.kind = r->kind;
      s.depth = depth;
      s.parent = parent;
      if (count[r->name] > 1) s.overload = seen[r->name]++;
      s.misplaced = name_fit(index, *r, encoding) == NameFit::kMisplaced;
      s.first_line = s.range_line = index.editd_line(begin);
      // A range that ends at the very start of a line (after its break) does
      // not touch that line.
      const bool ends_at_line_start = end > begin && index.text()[end - 1] == '\n';
      s.last_line = std::max(s.first_line, index.editd_line(ends_at_line_start ? end - 1 : end));
      s.name_line = r->selection ? index.editd_line(index.offset(r->selection->start, encoding))
                                 : s.first_line;
      const std::size_t at = out.size();
      out.push_back(std::move(s));
      if (depth < kMaxDepth) add(r->children, at, depth + 1);
    }
  }
};

// Whether two symbols' whole lines overlap.
bool overlap(const Symbol& a, const Symbol& b) {
  return a.first_line <= b.last_line && b.first_line <= a.last_line;
}

}  // namespace

std::vector<std::string_view> leading_markers(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');
  const std::string_view ext = dot == std::string_view::npos ? "" : name.substr(dot + 1);
  auto any = [&](std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), ext) != list.end();
  };
  if (any({"py", "pyi"})) return {"@", "#"};
  if (any({"c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "m", "mm"}))
    return {"//", "/*", "*", "template", "[[", "__attribute__"};
  if (any({"js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"})) return {"@", "//", "/*", "*"};
  return {"//", "/*", "*", "@", "#[", "[[", "--"};
}

namespace {

std::string_view line_text(const LineIndex& index, std::size_t line) {
  const std::size_t b = index.editd_line_start(line);
  return index.text().substr(b, index.editd_line_end(line) - b);
}

std::size_t indent_width(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

// The first line of the leading block above `s` (outline()'s rule): `floor`
// is the last line it may not take (a symbol before it, or its parent's first
// line; 0 for none).
std::size_t leading_start(const LineIndex& index, const Symbol& s, std::size_t floor,
                          const std::vector<std::string_view>& markers) {
  const std::string_view first = line_text(index, s.range_line);
  const std::size_t indent = indent_width(first);
  const std::string_view own = first.substr(0, indent);
  std::size_t top = s.range_line;  // the highest line taken that starts with a marker
  // Lines passed over since `top` (deeper ones, a closing bracket): they are
  // taken only with a line above them that can continue onto them, a
  // decorator or a block comment's opening; a line comment (`#`, `//`, `--`)
  // cannot, so they are code of their own (the body of an `if` above).
  bool continued = false;
  for (std::size_t l = s.range_line; l > floor + 1;) {
    --l;
    const std::string_view t = line_text(index, l);
    const std::size_t w = indent_width(t);
    if (w == t.size() || w < indent) break;  // blank, or less indented
    if (w == indent) {
      if (t.substr(0, w) != own) break;  // indented with other characters
      const std::string_view content = t.substr(w);
      // The closing line of a decorator's argument list goes on up.
      if (content.starts_with(')') || content.starts_with(']')) {
        continued = true;
        continue;
      }
      const auto marker = std::find_if(markers.begin(), markers.end(),
                                       [&](std::string_view m) { return content.starts_with(m); });
      if (marker == markers.end()) break;
      if (continued && (*marker == "#" || *marker == "//" || *marker == "--")) break;
      top = l;
      continued = false;
    } else {
      continued = true;
    }
  }
  return top;
}

}  // namespace

std::vector<Symbol> outline(std::string_view text, const std::vector<Reported>& roots,
                            Encoding encoding, std::size_t max_symbols,
                            const std::vector<std::string_view>& markers, LineBreaks breaks) {
  const LineIndex index(text, breaks);
  Builder b{index, encoding, max_symbols, {}};
  b.add(roots, std::nullopt, 0);
  std::vector<Symbol>& out = b.out;
  // Siblings whose lines overlap share them; so does a descendant of a symbol
  // that shares lines, when it reaches one of the shared lines (its first or
  // last: what lies between is the symbol's own).
  std::map<std::optional<std::size_t>, std::vector<std::size_t>> children;
  for (std::size_t i = 0; i < out.size(); ++i) children[out[i].parent].push_back(i);
  for (auto& [parent, ids] : children)
    for (std::size_t k = 0; k + 1 < ids.size(); ++k)
      if (overlap(out[ids[k]], out[ids[k + 1]]))
        out[ids[k]].shares_lines = out[ids[k + 1]].shares_lines = true;
  for (Symbol& s : out)  // parents come first
    if (s.parent && out[*s.parent].shares_lines) {
      const Symbol& p = out[*s.parent];
      if (s.first_line == p.first_line || s.last_line == p.last_line) s.shares_lines = true;
    }
  if (!markers.empty())
    for (auto& [parent, ids] : children)
      for (std::size_t k = 0; k < ids.size(); ++k) {
        Symbol& s = out[ids[k]];
        std::size_t floor = parent ? out[*parent].range_line : 0;
        if (k > 0) floor = std::max(floor, out[ids[k - 1]].last_line);
        if (!s.shares_lines) s.first_line = leading_start(index, s, floor, markers);
      }
  return out;
}

namespace {

// Where `seg` ends in an index, [DIGITS] after at least one character: the
// position of its '['.
std::optional<std::size_t> index_bracket(std::string_view seg) {
  if (seg.size() < 4 || seg.back() != ']') return std::nullopt;
  const std::size_t open = seg.rfind('[');
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  const std::string_view digits = seg.substr(open + 1, seg.size() - open - 2);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return open;
}

}  // namespace

std::string segment(std::string_view name) {
  const std::optional<std::size_t> bracket = index_bracket(name);
  std::string out;
  out.reserve(name.size());
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '\\' || name[i] == '/' || (bracket && i == *bracket)) out += '\\';
    out += name[i];
  }
  return out;
}

std::string name_path(const std::vector<Symbol>& outline, std::size_t i) {
  std::vector<std::size_t> chain;
  for (std::optional<std::size_t> at = i; at; at = outline[*at].parent) chain.push_back(*at);
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Symbol& s = outline[*it];
    if (!out.empty()) out += '/';
    out += segment(s.name);
    if (s.overload) out += "[" + std::to_string(*s.overload) + "]";
  }
  return out;
}

Result<Query> parse_query(std::string_view text) {
  Query q;
  q.text = std::string(text);
  std::string_view rest = text;
  if (rest.starts_with('/')) {
    q.absolute = true;
    rest.remove_prefix(1);
  }
  auto bad = [&](std::string problem) {
    return invalid_input(Input::kSymbol,
                         "\"" + std::string(text) + "\" is not a name path: " + problem +
                             " (a name path is names joined by '/', like Outer/inner, or "
                             "/Outer/inner from the top; name[1] picks the second of "
                             "same-named siblings; a backslash keeps the next character as "
                             "it is, as in operator\\/)");
  };
  if (rest.empty()) return bad("it names nothing");
  std::size_t i = 0;
  while (true) {
    // One segment, up to an unescaped '/': its name, and where an unescaped
    // '[' ends it as an index.
    Query::Segment s;
    std::optional<std::size_t> open;
    bool close = false;  // the last character is an unescaped ']'
    for (; i < rest.size() && rest[i] != '/'; ++i) {
      if (rest[i] == '\\' && i + 1 < rest.size()) {
        s.name += rest[++i];
        close = false;
        continue;
      }
      if (rest[i] == '[') open = s.name.size();
      close = rest[i] == ']';
      s.name += rest[i];
    }
    if (s.name.empty()) return bad("it has an empty segment");
    // NAME[DIGITS] picks one of same-named siblings; any other brackets are
    // part of the name (C++'s operator[]).
    if (close && open && index_bracket(s.name) == open) {
      s.index = std::stoul(s.name.substr(*open + 1, s.name.size() - *open - 2));
      s.name.resize(*open);
    }
    q.segments.push_back(std::move(s));
    if (i >= rest.size()) break;
    ++i;  // the '/'
    if (i >= rest.size()) return bad("it has an empty segment");
  }
  return q;
}

namespace {

bool segment_matches(const Query::Segment& seg, const Symbol& s) {
  if (seg.name != s.name) return false;
  return !seg.index || *seg.index == s.overload.value_or(0);
}

}  // namespace

std::vector<std::size_t> find(const std::vector<Symbol>& outline, const Query& query) {
  std::vector<std::size_t> hits;
  for (std::size_t i = 0; i < outline.size(); ++i) {
    std::optional<std::size_t> at = i;
    bool ok = true;
    for (auto seg = query.segments.rbegin(); seg != query.segments.rend(); ++seg) {
      if (!at || !segment_matches(*seg, outline[*at])) {
        ok = false;
        break;
      }
      at = outline[*at].parent;
    }
    if (ok && (!query.absolute || !at)) hits.push_back(i);
  }
  return hits;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s.substr(0, 256));
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// How far `name` is from `wanted` (lower case, cut at 256 bytes), for ranking
// the closest names: the bounded edit distance, with a name that contains the
// other first.
std::size_t distance(const std::string& w, const std::string& n) {
  if (w == n) return 0;
  if (n.find(w) != std::string::npos || w.find(n) != std::string::npos) return 1;
  return 2 + similarity::bounded_levenshtein(w, n, 64);
}

// The closest names to `wanted`, at most kMaxClosest: the names nearest in
// length compared first (a length apart is an edit distance at least), as many
// as kMaxRankCells of comparison work allows.
std::vector<std::size_t> closest(const std::vector<Symbol>& outline, std::string_view wanted) {
  const std::string w = lower(wanted);
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (length apart, index)
  order.reserve(outline.size());
  for (std::size_t i = 0; i < outline.size(); ++i) {
    const std::size_t n = std::min<std::size_t>(outline[i].name.size(), 256);
    order.emplace_back(n > w.size() ? n - w.size() : w.size() - n, i);
  }
  std::sort(order.begin(), order.end());
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // (distance, index)
  std::size_t cells = 0;
  for (const auto& [apart, i] : order) {
    const std::size_t cost =
        (w.size() + 1) * (std::min<std::size_t>(outline[i].name.size(), 256) + 1);
    if (cells + cost > kMaxRankCells && !ranked.empty()) break;
    cells += cost;
    ranked.emplace_back(distance(w, lower(outline[i].name)), i);
  }
  const std::size_t keep = std::min(kMaxClosest, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                    ranked.end());
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < keep; ++k) out.push_back(ranked[k].second);
  return out;
}

}  // namespace

Result<std::size_t> resolve(const std::vector<Symbol>& outline, const Query& query) {
  const std::vector<std::size_t> hits = find(outline, query);
  if (hits.size() == 1) return hits.front();
  if (hits.empty()) {
    nlohmann::json near = nlohmann::json::array();
    std::string listed;
    for (std::size_t i : closest(outline, query.segments.back().name)) {
      const Symbol& s = outline[i];
      const std::string path = name_path(outline, i);
      near.push_back({{"namePath", path}, {"kind", kind_name(s.kind)}, {"line", s.first_line}});
      listed += (listed.empty() ? "" : ", ") + path + " (line " + std::to_string(s.first_line) + ")";
    }
    std::string message = "no symbol has the name path \"" + query.text + "\"";
    message += outline.empty() ? ": the language server reports no symbols in this file"
                               : "; the closest: " + listed;
    return Error(ErrorKind::kNoMatch, std::move(message), {{"closest", std::move(near)}});
  }
  nlohmann::json candidates = nlohmann::json::array();
  std::string listed;
  const std::size_t shown = std::min(hits.size(), kMaxCandidates);
  for (std::size_t k = 0; k < shown; ++k) {
    const Symbol& s = outline[hits[k]];
    const std::string path = name_path(outline, hits[k]);
    candidates.push_back({{"namePath", path},
                          {"kind", kind_name(s.kind)},
                          {"startLine", s.first_line},
                          {"endLine", s.last_line}});
    listed += (k ? ", " : "") + path + " (lines " + std::to_string(s.first_line) + "-" +
              std::to_string(s.last_line) + ")";
  }
  if (shown < hits.size()) listed += ", and " + std::to_string(hits.size() - shown) + " more";
  return Error(ErrorKind::kAmbiguous,
               std::to_string(hits.size()) + " symbols match \"" + query.text +
                   "\": " + listed + "; name one by its whole name path",
               {{"candidates", std::move(candidates)}, {"totalCandidates", hits.size()}});
}

}  // namespace editd::symbols
