#include "edit/patch/update.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

#include "edit/change/splice.h"
#include "edit/match/carry.h"
#include "edit/patch/miss.h"
#include "edit/patch/seek.h"
#include "edit/text/text.h"

namespace editd::patch::detail {

namespace {

using Kind = ChunkLine::Kind;
using Ops = std::vector<const ChunkLine*>;
using OldLines = std::vector<std::string_view>;

// Where a unified hunk's line number is taken to be when it is larger.
constexpr std::size_t kFarLine =
    static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max() / 4);

// One run of removed and added lines between context lines: old lines
// [line, line + count) become `added`.
struct Group {
  std::size_t line = 0;
  std::size_t count = 0;
  std::vector<std::string> added;
  std::vector<std::string_view> removed;  // the chunk's own text of the old lines
  // The last added line ends the file without a line break (a unified `\ No
  // newline at end of file` after it). The marker takes away the "\n" alone,
  // as git apply reads it: a line "+B\r" before the marker ends the file with
  // "B\r", which is also how the result's own diff shows such a file.
  bool unterminated = false;
};

// Where a chunk landed: old lines [start, start + old_len), and its groups
// (context lines are not part of any: they keep the file's bytes untouched).
struct Replacement {
  std::size_t start;
  std::size_t old_len;
  std::vector<Group> groups;
};

// A chunk without old lines: all its lines added at `pos`.
Replacement insertion(std::size_t pos, const Ops& ops) {
  Replacement r{pos, 0, {Group{pos, 0, {}, {}}}};
  for (const ChunkLine* l : ops) r.groups.back().added.push_back(l->text);
  return r;
}

// The chunk's lines that take part, with Codex's retry: when the old lines end
// with an empty line (often a blank line the model left before the next header),
// the retry drops it, and an empty last new line with it.
Ops without_trailing_empty(Ops ops) {
  auto last_of = [&](Kind skip) {
    for (std::size_t i = ops.size(); i-- > 0;)
      if (ops[i]->kind != skip) return i;
    return ops.size();
  };
  std::size_t o = last_of(Kind::kAdded);
  if (o == ops.size() || !ops[o]->text.empty()) return {};
  Kind removed_kind = ops[o]->kind;
  ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(o));
  if (removed_kind == Kind::kRemoved) {
    std::size_t n = last_of(Kind::kRemoved);
    if (n != ops.size() && ops[n]->text.empty())
      ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(n));
  }
  return ops;
}

OldLines old_side(const Ops& ops) {
  OldLines out;
  for (const ChunkLine* l : ops)
    if (l->kind != Kind::kAdded) out.push_back(l->text);
  return out;
}

// A chunk being placed: its lines that take part and their old side.
struct Piece {
  const Chunk& chunk;
  std::size_t hunk;  // 1-based
  Ops ops;
  OldLines old_lines;
};

// Where a chunk lands.
struct Landing {
  std::size_t at = 0;        // its first old line, or where its lines are inserted
  bool insertion = false;    // the chunk has no old lines
  bool moves_cursor = true;  // later chunks are looked for after it
  match::TierId tier = match::TierId::kExact;  // the tier of kTiers that found it
};

// A BOM is never a matching problem: in a file with a BOM, a U+FEFF that
// starts the first old line of a chunk for line 1 (git diff shows the BOM as
// part of line 1; a model copies what a view showed) is the BOM, and is taken
// off before matching, so the forgiving tiers never see it. A unified hunk is
// for line 1 when its header says so; a Codex chunk has no number. nullopt
// when no chunk starts so.
std::optional<std::vector<Chunk>> without_bom(Format format, const std::vector<Chunk>& chunks,
                                              const text::Document& doc, std::string_view text) {
  std::optional<std::vector<Chunk>> unbommed;
  if (!doc.bom() || text.starts_with(text::kBom)) return unbommed;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const Chunk& c = chunks[k];
    if (format == Format::kUnified && c.old_start && *c.old_start > 1) continue;
    auto first = std::find_if(c.lines.begin(), c.lines.end(),
                              [](const ChunkLine& l) { return l.kind != Kind::kAdded; });
    if (first == c.lines.end() || !first->text.starts_with(text::kBom)) continue;
    if (!unbommed) unbommed = chunks;
    std::string& t = (*unbommed)[k].lines[static_cast<std::size_t>(first - c.lines.begin())].text;
    t.erase(0, text::kBom.size());
  }
  return unbommed;
}

// The chunks of one file, placed in order, then written as splices.
class FileUpdate {
 public:
  FileUpdate(Format format, const FilePatch& file, const text::Document& doc)
      : format_(format),
        file_(file),
        doc_(doc),
        norm_(doc),
        text_(norm_.view()),
        lines_(text::split_lines(text_)),
        n_(lines_.size()),
        index_(lines_),
        final_newline_(n_ == 0 || doc.final_newline()) {}

  Result<Updated> run() {
    const std::optional<std::vector<Chunk>> unbommed =
        without_bom(format_, file_.chunks, doc_, text_);
    const std::vector<Chunk>& chunks = unbommed ? *unbommed : file_.chunks;
    for (std::size_t k = 0; k < chunks.size(); ++k)
      if (auto placed = place(chunks[k], k + 1); !placed) return placed.error();
    if (auto apart = sort_apart(); !apart) return apart.error();
    splice::Options options;
    options.final_newline = final_newline_;
    splice::Applied applied = splice::apply(doc_, splice::plan(doc_, text_, edits(), options));
    return Updated{std::move(applied.bytes), std::move(applied.windows),
                   doc_.bom() ? text::kBom.size() : 0};
  }

 private:
  // Finds where the chunk lands and what replaces its lines there.
  Result<void> place(const Chunk& chunk, std::size_t hunk) {
    Piece piece{chunk, hunk, {}, {}};
    for (const ChunkLine& l : chunk.lines) piece.ops.push_back(&l);
    piece.old_lines = old_side(piece.ops);
    Result<Landing> landing = format_ == Format::kCodex ? seek_codex(piece) : seek_unified(piece);
    if (!landing) return landing.error();
    if (landing->insertion) {
      replacements_.push_back(insertion(landing->at, piece.ops));
      if (landing->moves_cursor) cursor_ = landing->at;
      end_chunk(piece, replacements_.back(), landing->at);
      return {};
    }
    Replacement r = replacement(piece, landing->at);
    if (match::tier_info(landing->tier).carries) carry_back(r);
    cursor_ = landing->at + piece.old_lines.size();
    end_chunk(piece, r, cursor_);
    replacements_.push_back(std::move(r));
    return {};
  }

  // Codex's search: after the chunk's `@@` anchor line, if any, from the end
  // of the chunk before; a pure addition goes after the anchor line, or at the
  // end of the file.
  Result<Landing> seek_codex(Piece& p) {
    const Chunk& chunk = p.chunk;
    std::size_t from = cursor_;
    std::optional<std::size_t> anchor_line;
    if (chunk.anchor) {
      auto hit = seek::forward(index_, {*chunk.anchor}, cursor_, false);
      if (!hit)
        return miss(p, {*chunk.anchor}, cursor_,
                    "its '@@ " + *chunk.anchor + "' line was not found from line " +
                        std::to_string(cursor_ + 1) + " on");
      anchor_line = hit->index;
      from = hit->index + 1;
    }
    if (p.old_lines.empty()) return Landing{anchor_line ? from : n_, true, anchor_line.has_value()};
    match::TierId tier = match::TierId::kExact;
    auto locate = [&](const OldLines& pattern) -> std::optional<std::size_t> {
      auto hit = seek::forward(index_, pattern, from, chunk.end_of_file);
      // The anchor line may itself be the chunk's first line.
      if (!hit && anchor_line) hit = seek::forward(index_, pattern, *anchor_line, false);
      if (!hit) return std::nullopt;
      tier = hit->tier;
      return hit->index;
    };
    std::optional<std::size_t> at = locate(p.old_lines);
    if (!at) {
      Ops retry = without_trailing_empty(p.ops);
      OldLines retry_old = old_side(retry);
      if (!retry_old.empty()) {
        at = locate(retry_old);
        if (at) {
          p.ops = std::move(retry);
          p.old_lines = std::move(retry_old);
        }
      }
    }
    if (!at) {
      std::string where = chunk.end_of_file ? "at the end of the file or from line " : "from line ";
      return miss(p, p.old_lines, from,
                  "its context and removed lines were not found " + where +
                      std::to_string(from + 1) + " on");
    }
    return Landing{*at, false, true, tier};
  }

  // Line numbers are hints: the search starts there, shifted by how far off
  // the previous hunk was, and moves outwards. A line number far past any file
  // is capped, so that |offset| stays below kFarLine + n and the signed
  // arithmetic cannot overflow.
  Result<Landing> seek_unified(const Piece& p) {
    const Chunk& chunk = p.chunk;
    std::size_t base = cursor_;
    if (chunk.old_start) {
      base = *chunk.old_start;
      if (!(chunk.old_count && *chunk.old_count == 0) && base > 0) --base;
    }
    base = std::min(base, kFarLine);
    std::ptrdiff_t hinted = static_cast<std::ptrdiff_t>(base) + offset_;
    std::size_t hint = static_cast<std::size_t>(std::max<std::ptrdiff_t>(hinted, 0));
    if (p.old_lines.empty()) return Landing{std::clamp(hint, cursor_, n_), true, true};
    auto hit = seek::nearest(index_, p.old_lines, cursor_, hint);
    if (!hit)
      return miss(p, p.old_lines, cursor_,
                  "its context and removed lines were not found (searched from line " +
                      std::to_string(std::min(hint, n_) + 1) + " outwards, not before line " +
                      std::to_string(cursor_ + 1) + ")");
    offset_ = static_cast<std::ptrdiff_t>(hit->index) - static_cast<std::ptrdiff_t>(base);
    return Landing{hit->index, false, true, hit->tier};
  }

  Error miss(const Piece& p, const OldLines& context, std::size_t from, std::string what) {
    return hunk_miss(file_.path, p.hunk, p.chunk, text_, index_, context, from, std::move(what));
  }

  // The chunk's groups, for its old lines found at line `at`.
  static Replacement replacement(const Piece& p, std::size_t at) {
    Replacement r{at, p.old_lines.size(), {}};
    std::size_t old_index = at;
    bool in_group = false;
    for (const ChunkLine* l : p.ops) {
      if (l->kind == Kind::kContext) {
        in_group = false;
        ++old_index;
        continue;
      }
      if (!in_group) r.groups.push_back({old_index, 0, {}, {}});
      in_group = true;
      if (l->kind == Kind::kRemoved) {
        ++r.groups.back().count;
        r.groups.back().removed.push_back(l->text);
        ++old_index;
      } else {
        r.groups.back().added.push_back(l->text);
      }
    }
    return r;
  }

  // Found by a tier that carries (unicode: typography folded): a changed line
  // keeps the file's characters wherever the model did not change them
  // (match/carry.h), as it does for str_replace.
  void carry_back(Replacement& r) const {
    for (Group& g : r.groups) {
      if (g.count == 0 || g.added.empty()) continue;
      const carry::Lines file_lines(lines_.begin() + static_cast<std::ptrdiff_t>(g.line),
                                    lines_.begin() + static_cast<std::ptrdiff_t>(g.line + g.count));
      g.added = carry::carry_lines(file_lines, g.removed, g.added);
    }
  }

  // A unified chunk that ends at the end of the file says by its `\ No
  // newline at end of file` markers whether the new file ends with a line
  // break, and marks the group whose last added line, the chunk's last line,
  // ends it without one.
  void end_chunk(const Piece& p, Replacement& r, std::size_t end) {
    if (format_ != Format::kUnified || end != n_) return;
    const Chunk& chunk = p.chunk;
    if (chunk.old_no_newline || chunk.new_no_newline) final_newline_ = !chunk.new_no_newline;
    if (chunk.new_no_newline && !p.ops.empty() && p.ops.back()->kind == Kind::kAdded &&
        !r.groups.empty())
      r.groups.back().unterminated = true;
  }

  // The replacements in file order; patch_apply when two overlap.
  Result<void> sort_apart() {
    std::stable_sort(replacements_.begin(), replacements_.end(),
                     [](const Replacement& a, const Replacement& b) { return a.start < b.start; });
    for (std::size_t i = 1; i < replacements_.size(); ++i) {
      const Replacement& prev = replacements_[i - 1];
      if (replacements_[i].start < prev.start + prev.old_len)
        return Error(ErrorKind::kPatchApply,
                     "the chunks of '" + file_.path + "' overlap at line " +
                         std::to_string(replacements_[i].start + 1),
                     {{"path", file_.path}, {"line", replacements_[i].start + 1}});
    }
    return {};
  }

  std::size_t start_of(std::size_t line) const {
    return line < n_ ? static_cast<std::size_t>(lines_[line].data() - text_.data()) : text_.size();
  }

  // The sorted replacements as edits of the normalized body.
  std::vector<splice::Edit> edits() const {
    std::vector<splice::Edit> edits;
    // Whether the new text before normalized offset `begin` ends a line (or is
    // empty), given the edits so far: lines added at the end of a file without
    // a final newline need one break before them, not one per chunk.
    auto line_ends_before = [&](std::size_t begin) {
      if (!edits.empty() && edits.back().end == begin) {
        const splice::Edit& prev = edits.back();
        if (!prev.text.empty()) return prev.text.back() == '\n';
        begin = prev.begin;
      }
      return begin == 0 || text_[begin - 1] == '\n';
    };
    for (const Replacement& r : replacements_) {
      for (const Group& g : r.groups) {
        splice::Edit e;
        e.begin = start_of(g.line);
        e.end = start_of(g.line + g.count);
        e.crlf_literal = true;
        // Lines added after a last line without a final newline start with one.
        if (e.begin == text_.size() && !g.added.empty() && !line_ends_before(e.begin))
          e.text.push_back('\n');
        for (const std::string& l : g.added) {
          e.text.append(l);
          e.text.push_back('\n');
        }
        // Without it, "B\r\n" would read as B with a CRLF ending, and the final
        // newline rule would take both bytes away.
        if (g.unterminated && e.text.ends_with("\r\n")) e.text.pop_back();
        if (e.begin == 0) e.text = std::string(text::without_copied_bom(doc_, 0, e.text));
        // Two chunks that meet (one removes lines, the next adds lines where
        // they were) are one replacement: the added lines take the endings of
        // the lines they replace, as they would from one chunk, and the diff
        // of the result applies back to the same bytes.
        if (!edits.empty() && edits.back().end == e.begin) {
          edits.back().end = e.end;
          edits.back().text += e.text;
          continue;
        }
        edits.push_back(std::move(e));
      }
    }
    return edits;
  }

  const Format format_;
  const FilePatch& file_;
  const text::Document& doc_;
  const text::Normalized norm_;
  const std::string_view text_;
  const seek::Lines lines_;
  const std::size_t n_;
  seek::Index index_;  // shared by the file's chunks
  bool final_newline_;
  std::vector<Replacement> replacements_;
  std::size_t cursor_ = 0;
  std::ptrdiff_t offset_ = 0;  // unified: where the last hunk was found minus where it said
};

}  // namespace

Result<Updated> update_content(Format format, const FilePatch& file, const std::string& bytes) {
  if (file.chunks.empty()) return Updated{bytes, {}, 0};
  auto doc = text::Document::decode(bytes);
  if (!doc) {
    Error e = doc.error();
    e.message = "cannot patch '" + file.path + "': " + e.message;
    e.data["path"] = file.path;
    return e;
  }
  return FileUpdate(format, file, *doc).run();
}

}  // namespace editd::patch::detail
