// A file's symbols as a language server reports them (textDocument/documentSymbol),
// in editd's terms: each symbol with its name path, its kind and the whole lines
// it covers in the very bytes the server was given.
//
// A language server counts lines as LSP does (LF, CRLF and a lone CR each end a
// line) and characters in its position encoding (UTF-16 code units unless it
// chose UTF-8 or UTF-32); editd counts lines at LF only, a lone CR being content.
// Positions are therefore mapped to byte offsets of the text sent, by LSP's rules
// (positions.h), and only then to editd's lines: a file with lone CRs or
// characters outside the BMP gets the lines the server meant.
//
// A name path is the names from the outermost symbol down, joined by '/'
// (`Parser/parse_command`), a name's own '/' and '\' written with a backslash
// before them (`Vec/operator\/`). Siblings that share a name (overloads, a property's
// getter and setter) are told apart by their index among them in document
// order: `Parser/parse[0]`, `Parser/parse[1]`. A query names a symbol by the
// last segments of its name path (`parse_command`, `Parser/parse_command`), or
// by the whole of it from the top with a leading '/' (`/Parser/parse_command`);
// a segment without an index matches every sibling of that name. docs/protocol.md
// ("Symbols") is the normative description. Pure, like all of edit/: the
// reports come already parsed (server/checks/lsp_client does the protocol).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/error.h"
#include "edit/symbols/positions.h"

namespace editd::symbols {

// One symbol as the server reported it: a DocumentSymbol (children nested), or
// a SymbolInformation (flat: `children` empty, nest() builds the tree).
struct Reported {
  std::string name;
  std::uint32_t kind = 0;  // LSP SymbolKind, 1..26 (anything else reads as "unknown")
  Span range;              // the whole symbol
  std::optional<Span> selection;  // its name; none for SymbolInformation
  std::vector<Reported> children;
};

// Symbols nested deeper than this are dropped (with their children): no
// server's answer makes editd recurse without bound. Whoever builds Reported
// trees from a server's answer drops them as well.
inline constexpr std::size_t kMaxDepth = 64;

// A flat SymbolInformation list as a tree: each symbol becomes a child of the
// smallest symbol before it whose range contains its range. Containment, not
// containerName, decides: names repeat, ranges do not lie about nesting.
std::vector<Reported> nest(std::vector<Reported> flat);

// LSP SymbolKind's name, lower case ("function", "method", "class", ...);
// "unknown" outside 1..26.
std::string_view kind_name(std::uint32_t kind);

struct Symbol {
  std::string name;
  std::uint32_t kind = 0;
  std::size_t depth = 0;  // 0: top level
  std::optional<std::size_t> parent;    // index in the outline
  std::optional<std::size_t> overload;  // index among same-named siblings, when there are several
  // The symbol's lines, 1-based and inclusive, as editd counts lines: the
  // whole lines its range touches, from its leading block's first line (see
  // outline()). What read_text's `symbol` returns and edit_symbol replaces.
  std::size_t first_line = 0;
  std::size_t last_line = 0;
  std::size_t range_line = 0;  // the first line of the server's own range
  std::size_t name_line = 0;  // the line of its name (the selection range's start)
  // Another symbol that is neither its ancestor nor its descendant has code on
  // one of its lines (`int a; int b;` on one line): its whole lines are not its
  // own, so an edit by symbol would touch that one too.
  bool shares_lines = false;
  // Its selection range does not hold its name, or it starts past the text's
  // lines (verify.h): the server's positions for it do not fit the bytes, so
  // its lines are not to be trusted.
  bool misplaced = false;
};

// The name path of symbol `i` of `outline`, with indices where siblings share
// a name: built when asked, as one can be 64 names of 1 KiB long.
std::string name_path(const std::vector<Symbol>& outline, std::size_t i);

// The line starts that open a symbol's leading block in the language of a file
// named `path` (by its extension): decorators, attributes, template headers
// and comments. Python: `@`, `#`; C and C++: `//`, `/*`, `*`, `template`,
// `[[`, `__attribute__`; JavaScript and TypeScript: `@`, `//`, `/*`, `*`;
// any other: `//`, `/*`, `*`, `@`, `#[`, `[[`, `--`.
std::vector<std::string_view> leading_markers(std::string_view path);

// Every symbol of `roots` in document order (a parent before its children,
// siblings by where they start), with ranges mapped onto `text`, the exact
// bytes the server was given (no BOM), its lines counted as `breaks` says
// (verify.h's fit_line_breaks). Positions past a line's end or the
// text's end are clamped as LSP says; a range that ends before it starts is
// read as empty at its start. A symbol whose name is empty is dropped with its
// children. At most `max_symbols` are kept (the first in document order).
//
// Language servers leave out of a symbol's range what is written above it
// and belongs to it: pylsp starts a function at `def`, below its decorators;
// clangd starts a template below its `template <...>` line; neither takes its
// comments. So a symbol's lines begin at its leading block: the lines right
// above its range, each neither blank nor in a symbol before it nor its
// parent's first line, indented at least as the symbol's first line, topped
// by a line at its indentation that starts with one of `markers` (a line
// indented deeper, as inside a decorator's argument list, or one at its
// indentation that starts with `)` or `]`, belongs only below such a line,
// and not below a line comment, `#`, `//` or `--`, which continues onto
// nothing). Then inserting before a symbol never lands between a decorator
// and its function, and a replacement sees the whole of it.
std::vector<Symbol> outline(std::string_view text, const std::vector<Reported>& roots,
                            Encoding encoding, std::size_t max_symbols,
                            const std::vector<std::string_view>& markers = {},
                            LineBreaks breaks = LineBreaks::kLsp);

// A parsed name path query.
struct Query {
  struct Segment {
    std::string name;
    std::optional<std::size_t> index;
  };
  bool absolute = false;
  std::vector<Segment> segments;
  std::string text;  // as given
};

// `Outer/inner`, `/Outer/inner`, `inner[2]`. A segment that ends in brackets
// holding anything but a number keeps them as part of its name (`operator[]`).
// A backslash takes the next character as it is: `operator\/` names C++'s
// `operator/`, `a\[0]` a name that is `a[0]` (segment() writes names so).
// invalid_params (Input::kSymbol) for an empty query or an empty segment.
Result<Query> parse_query(std::string_view text);

// `name` as a segment of a name path: a backslash before each '\' and '/',
// and before the '[' of a name that would read as NAME[INDEX].
std::string segment(std::string_view name);

// The indices of the symbols `query` names.
std::vector<std::size_t> find(const std::vector<Symbol>& outline, const Query& query);

// The one symbol `query` names, or the error a model fixes in one retry:
// no_match with the closest names (data.closest: namePath, kind, line, at most
// kMaxClosest, ranked within kMaxRankCells of edit distance work) when none
// does, ambiguous with the candidates (data.candidates: namePath, kind,
// startLine, endLine; the first kMaxCandidates, data.totalCandidates saying
// how many) when several do.
inline constexpr std::size_t kMaxClosest = 5;
inline constexpr std::size_t kMaxCandidates = 20;
inline constexpr std::size_t kMaxRankCells = 4u << 20;
Result<std::size_t> resolve(const std::vector<Symbol>& outline, const Query& query);

}  // namespace editd::symbols
