// Edits by symbol: read_symbols, read_text's `symbol`, and edit_symbol. The
// symbols come from the file's language server (--lsp), asked about the very
// bytes the operation holds under the file's lock chain (Checks::symbols), and
// are mapped onto those bytes by edit/symbols; edit_symbol is then a one-file
// mutation like any other (mutate()): fingerprints, approval, checks, undo.
#include <algorithm>

#include "edit/change/splice.h"
#include "edit/symbols/outline.h"
#include "edit/symbols/symbol_edit.h"
#include "edit/text/fingerprint.h"
#include "edit/text/text.h"
#include "protocol/error.h"
#include "server/ops/pipeline.h"
#include "support/offload.h"

namespace editd {

namespace {

using Status = LspClient::SymbolsStatus;

// Why the symbols of `shown` could not be had, as the error a model acts on.
Error symbols_failure(const std::string& shown, const LspClient::SymbolsOutcome& o) {
  switch (o.status) {
    case Status::kTimeout:
      return Error(ErrorKind::kTimeout,
                   o.detail + " (--check-timeout); edit " + shown +
                       " by text meanwhile (str_replace, edit_lines)",
                   {{"path", shown}});
    case Status::kNoServer:
      return Error(ErrorKind::kUnsupported, o.detail, {{"path", shown}, {"reason", "no_language_server"}});
    case Status::kNotOffered:
      return Error(ErrorKind::kUnsupported, o.detail + "; edit " + shown + " by text (str_replace, edit_lines)",
                   {{"path", shown}, {"reason", "no_document_symbols"}});
    case Status::kFailed:
    case Status::kOk:
      break;
  }
  return Error(ErrorKind::kUnsupported,
               o.detail + "; the next call starts the language server again, or edit " + shown +
                   " by text (str_replace, edit_lines)",
               {{"path", shown}, {"reason", "server_failed"}});
}

// The symbol a query names, with its name path.
struct Found {
  symbols::Symbol symbol;
  std::string name_path;
};

Error shared_lines(const std::string& shown, const Found& f) {
  const symbols::Symbol& s = f.symbol;
  return Error(ErrorKind::kUnsupported,
               f.name_path + " shares its lines (" + std::to_string(s.first_line) + "-" +
                   std::to_string(s.last_line) + ") with another symbol of " + shown +
                   ": an edit of whole lines would change that one too; edit them by text "
                   "(str_replace, edit_lines)",
               {{"path", shown},
                {"reason", "shared_lines"},
                {"startLine", s.first_line},
                {"endLine", s.last_line}});
}

// A symbol whose name is not where the server says: its lines cannot be trusted.
Error misplaced(const std::string& shown, const Found& f) {
  return Error(ErrorKind::kUnsupported,
               "the language server places the name of " + f.name_path + " at line " +
                   std::to_string(f.symbol.name_line) + " of " + shown +
                   ", where the file does not have it: its positions do not fit the file's "
                   "bytes, so the lines it gives for that symbol cannot be trusted; edit them by "
                   "text (str_replace, edit_lines)",
               {{"path", shown}, {"reason", "misplaced_symbol"}, {"namePath", f.name_path}});
}

ops::SymbolLines lines_of(const symbols::Symbol& s, std::string name_path) {
  return {std::move(name_path), std::string(symbols::kind_name(s.kind)), s.first_line,
          s.last_line, s.depth};
}

// What one page of read_symbols lists of name paths at most (a name path can
// be 64 names of 1 KiB): past it the page ends, and nextOffset goes on.
constexpr std::size_t kMaxListedBytes = 1 << 20;

// The one symbol `query` names in `outline`, resolved on the pool (ranking the
// closest names of a miss is work), or the error a model fixes in one retry.
boost::asio::awaitable<Result<Found>> find_symbol(boost::asio::thread_pool& pool,
                                                  const std::vector<symbols::Symbol>& outline,
                                                  const symbols::Query& query,
                                                  const std::string& shown) {
  auto found = co_await offload(pool, [&]() -> Result<Found> {
    auto at = symbols::resolve(outline, query);
    if (!at) return at.error();
    return Found{outline[*at], symbols::name_path(outline, *at)};
  });
  if (!found) {
    Error e = found.error();
    e.data["path"] = shown;
    co_return e;
  }
  if (found->symbol.misplaced) co_return misplaced(shown, *found);
  co_return found;
}

// The request param that carries edit_symbol's text.
std::string_view placement_param(symbols::Placement p) {
  switch (p) {
    case symbols::Placement::kReplace:
      return "replace";
    case symbols::Placement::kInsertBefore:
      return "insertBefore";
    case symbols::Placement::kInsertAfter:
      return "insertAfter";
  }
  return "replace";
}

// A name path that does not parse, named as the request's `symbol`.
Error bad_query(Error e) { return name_input(std::move(e)); }

}  // namespace

boost::asio::awaitable<Result<std::vector<symbols::Symbol>>> Pipeline::outline_of(
    const std::string& canonical, const std::string& shown, const std::string& bytes,
    bool* truncated) {
  auto doc = text::Document::decode(bytes);
  if (!doc) {
    Error e = doc.error();
    e.data["path"] = shown;
    co_return e;
  }
  // Named, not a temporary in the co_await: GCC 12 destroys such a temporary twice.
  const Checks::Target target{canonical, shown};
  LspClient::SymbolsOutcome o = co_await checks_.symbols(target, bytes);
  if (o.status != Status::kOk) co_return symbols_failure(shown, o);
  if (truncated) *truncated = o.truncated;
  // On the pool whatever the size: an answer of many symbols is work on a small file.
  co_return co_await offload(pool_, [&]() -> Result<std::vector<symbols::Symbol>> {
    return symbols::outline(text::without_bom(bytes), *o.roots, o.encoding,
                            LspClient::kMaxSymbols, symbols::leading_markers(shown),
                            o.breaks);
  });
}

boost::asio::awaitable<Result<ops::Symbols>> Operations::read_symbols(RequestContext& ctx,
                                                                      ops::SymbolsRequest p) {
  auto held = co_await pipeline_->read_shared(ctx, p.path);
  if (!held) co_return held.error();
  const std::string& canonical = held->canonical;
  const std::string shown = ctx.backend.display_path(canonical);
  bool truncated = false;
  auto outline = co_await pipeline_->outline_of(canonical, shown, held->bytes, &truncated);
  if (!outline) co_return outline.error();
  ops::Symbols r;
  r.fingerprint = editd::fingerprint(held->bytes);
  r.total_lines = text::count_lines(text::without_bom(held->bytes));
  // The listing at the depth asked, and of it the part asked for, its name
  // paths built for that part alone, within kMaxListedBytes.
  std::size_t listed = 0;
  bool full = false;
  for (std::size_t i = 0; i < outline->size(); ++i) {
    const symbols::Symbol& s = (*outline)[i];
    if (p.depth && s.depth > *p.depth) continue;
    const std::uint64_t at = r.total_symbols++;
    if (full || at < p.offset || (p.limit && at - p.offset >= *p.limit)) continue;
    std::string path = symbols::name_path(*outline, i);
    listed += path.size();
    r.symbols.push_back(lines_of(s, std::move(path)));
    full = listed >= kMaxListedBytes;
  }
  r.offset = p.offset;
  // Past the end: the caller's offset is of another listing (the file changed).
  if (p.offset > 0 && p.offset >= r.total_symbols)
    co_return Error(ErrorKind::kInvalidParams,
                    "param 'offset' is " + std::to_string(p.offset) + ", but " + shown + " has " +
                        std::to_string(r.total_symbols) + " symbols at this depth",
                    {{"param", "offset"}, {"totalSymbols", r.total_symbols}, {"path", shown}});
  r.truncated = truncated || outline->size() >= LspClient::kMaxSymbols;
  // The structure of the file at this fingerprint is what the caller now
  // knows (--require-read): an edit by symbol needs no more.
  if (ctx.known) ctx.known->set(canonical, r.fingerprint);
  co_return r;
}

boost::asio::awaitable<Result<ops::SymbolLines>> Pipeline::symbol_lines(
    const std::string& canonical, const std::string& shown, const std::string& bytes,
    const std::string& name_path) {
  auto query = symbols::parse_query(name_path);
  if (!query) co_return bad_query(query.error());
  auto outline = co_await outline_of(canonical, shown, bytes);
  if (!outline) co_return outline.error();
  auto found = co_await find_symbol(pool_, *outline, *query, shown);
  if (!found) co_return found.error();
  co_return lines_of(found->symbol, found->name_path);
}

Operations::Awaitable Operations::edit_symbol(RequestContext& ctx, ops::SymbolEditRequest p) {
  const std::string_view param = placement_param(p.placement);
  if (auto ok = check_param_text(p.text, param); !ok) co_return ok.error();
  auto query = symbols::parse_query(p.symbol);
  if (!query) co_return bad_query(query.error());
  // Found in prepare, with the file's chain held and its bytes read: the
  // range is of exactly the bytes the transform edits.
  std::optional<Found> hit;
  const symbols::Symbol* found = nullptr;
  Prepare prepare = [&](const Current& cur) -> boost::asio::awaitable<Result<void>> {
    auto outline = co_await pipeline_->outline_of(cur.canonical, cur.shown, *cur.bytes);
    if (!outline) co_return outline.error();
    auto at = co_await find_symbol(pipeline_->pool(), *outline, *query, cur.shown);
    if (!at) co_return at.error();
    if (at->symbol.shares_lines) co_return shared_lines(cur.shown, *at);
    hit = std::move(*at);
    found = &hit->symbol;
    co_return Result<void>();
  };
  co_return co_await pipeline_->mutate(
      ctx, p, false, nullptr,
      [&](const Current& cur) -> Result<Transformed> {
        auto doc = text::Document::decode(*cur.bytes);
        if (!doc) return doc.error();
        text::Normalized normalized(*doc);
        auto edit = symbols::symbol_edit(normalized.view(), found->first_line, found->last_line,
                                         p.placement, p.text);
        if (!edit) {
          InputNames names;
          names.new_text = std::string(param);
          return name_input(edit.error(), names);
        }
        Transformed c;
        c.result.symbol = lines_of(*found, hit->name_path);
        const auto breaks = static_cast<std::uint64_t>(
            std::count(edit->text.begin(), edit->text.end(), '\n'));
        std::optional<ops::LineRange> landed;
        switch (p.placement) {
          case symbols::Placement::kReplace:
            if (!edit->text.empty())
              landed = ops::LineRange{found->first_line, found->first_line + breaks};
            break;
          case symbols::Placement::kInsertBefore:
            landed = ops::LineRange{found->first_line, found->first_line + breaks - 1};
            break;
          case symbols::Placement::kInsertAfter:
            landed = ops::LineRange{found->last_line + 1, found->last_line + breaks};
            break;
        }
        if (landed) c.result.lines = std::vector<ops::LineRange>{*landed};
        c.if_unchanged = "the new lines of " + hit->name_path +
                         " are its lines as they are (line endings and indentation are kept "
                         "as the file has them, byte fidelity)";
        std::vector<splice::Edit> edits;
        edits.push_back(std::move(*edit));
        return spliced(*doc, splice::plan(*doc, normalized.view(), std::move(edits)),
                       std::move(c));
      },
      prepare);
}

}  // namespace editd
