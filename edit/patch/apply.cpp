// apply(): runs a parsed patch against an in-memory copy of its inputs.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

#include "edit/match/carry.h"
#include "edit/text/chars.h"
#include "edit/match/replace.h"
#include "edit/patch/patch.h"
#include "edit/patch/seek.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"
#include "edit/change/unified_diff.h"

namespace editd::patch {

namespace {

using Kind = ChunkLine::Kind;
using State = FileInput::State;

// Where a unified hunk's line number is taken to be when it is larger.
constexpr std::size_t kFarLine =
    static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max() / 4);

struct VirtualFile {
  State state = State::kMissing;
  std::string bytes;  // unless `input`
  // The original path this content descends from; nullopt for added content.
  std::optional<std::string> origin;
  // Where `bytes` differ from the origin's input, when one update made them
  // (body coordinates, after `bom` bytes); nullopt: diff the whole texts.
  std::optional<std::vector<diff::Window>> windows;
  std::size_t bom = 0;
  bool pristine = false;  // the content is the origin's input, unchanged
  // The content while it is the input's, which is not copied.
  const std::string* input = nullptr;
  std::optional<bool> executable;  // the mode the patch set on it

  const std::string& content() const { return input ? *input : bytes; }
  // The content, moved out when it is this file's own.
  std::string take() { return input ? *input : std::move(bytes); }
};

struct Updated {
  std::string bytes;
  std::vector<diff::Window> windows;
  std::size_t bom = 0;
};

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
Replacement insertion(std::size_t pos, const std::vector<const ChunkLine*>& ops) {
  Replacement r{pos, 0, {Group{pos, 0, {}, {}}}};
  for (const ChunkLine* l : ops) r.groups.back().added.push_back(l->text);
  return r;
}

Error path_error(ErrorKind kind, const std::string& path, std::string message) {
  return Error(kind, std::move(message), {{"path", path}});
}

std::string join(const std::vector<std::string_view>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out.push_back('\n');
    out.append(lines[i]);
  }
  return out;
}

// Where and how a chunk was not found, as the patch_apply error data says.
Error hunk_error(const std::string& path, std::size_t hunk, const Chunk& chunk,
                 std::string_view text, seek::Index& index,
                 const std::vector<std::string_view>& context, std::size_t from, std::string what) {
  std::string needle = join(context);
  std::string message = "hunk " + std::to_string(hunk) + " of '" + path + "' (patch line " +
                        std::to_string(chunk.patch_line) + ") does not apply: " + what;
  nlohmann::json data = {{"path", path},
                         {"hunk", hunk},
                         {"patchLine", chunk.patch_line},
                         {"context", needle},
                         {"fromLine", from + 1}};
  std::vector<std::string> hints;
  if (auto at = seek::folded_too_short(index, context, std::min(from, index.lines().size()))) {
    std::string hint = "the lines differ from the file's at line " + std::to_string(*at + 1) +
                       " only in typographic characters (quotes, dashes, odd spaces), but have "
                       "fewer than " +
                       std::to_string(chars::kMinLooseChars) +
                       " non-blank characters, too few to match loosely: copy them exactly from "
                       "the file, or add a line of context";
    message += "; " + hint;
    hints.push_back(std::move(hint) + ".");
  }
  if (auto closest = match::closest_region(text, needle)) {
    data["closest"] = {{"startLine", closest->lines.start_line},
                       {"endLine", closest->lines.end_line},
                       {"text", closest->text},
                       {"similarity", closest->similarity}};
    if (!closest->complete) hints.push_back(std::string(match::kClosestIncomplete) + ".");
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
    message += "; the closest region is lines " + std::to_string(closest->lines.start_line) + "-" +
               std::to_string(closest->lines.end_line) + " (similarity " + similarity + ")";
  }
  if (!hints.empty()) {
    std::string hint;
    for (const std::string& h : hints) hint += (hint.empty() ? "" : " ") + h;
    data["hint"] = std::move(hint);
  }
  return Error(ErrorKind::kPatchApply, std::move(message), std::move(data));
}

// The chunk's lines that take part, with Codex's retry: when the old lines end
// with an empty line (often a blank line the model left before the next header),
// the retry drops it, and an empty last new line with it.
std::vector<const ChunkLine*> without_trailing_empty(std::vector<const ChunkLine*> ops) {
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

std::vector<std::string_view> old_side(const std::vector<const ChunkLine*>& ops) {
  std::vector<std::string_view> out;
  for (const ChunkLine* l : ops)
    if (l->kind != Kind::kAdded) out.push_back(l->text);
  return out;
}

// The file's new bytes after `file`'s chunks.
Result<Updated> update_content(Format format, const FilePatch& file, const std::string& bytes) {
  if (file.chunks.empty()) return Updated{bytes, {}, 0};
  auto doc = text::Document::decode(bytes);
  if (!doc) {
    Error e = doc.error();
    e.message = "cannot patch '" + file.path + "': " + e.message;
    e.data["path"] = file.path;
    return e;
  }
  const text::Normalized norm(*doc);
  const std::string_view text = norm.view();
  const seek::Lines lines = text::split_lines(text);
  const std::size_t n = lines.size();
  seek::Index index(lines);  // shared by the file's chunks
  bool final_newline = n == 0 || doc->final_newline();

  // A BOM is never a matching problem: in a file with a BOM, a U+FEFF that
  // starts the first old line of a chunk for line 1 (git diff shows the BOM
  // as part of line 1; a model copies what a view showed) is the BOM, and is
  // taken off before matching, so the forgiving tiers never see it. A unified
  // hunk is for line 1 when its header says so; a Codex chunk has no number.
  std::optional<std::vector<Chunk>> unbommed;
  if (doc->bom() && !text.starts_with(text::kBom)) {
    for (std::size_t k = 0; k < file.chunks.size(); ++k) {
      const Chunk& c = file.chunks[k];
      if (format == Format::kUnified && c.old_start && *c.old_start > 1) continue;
      auto first = std::find_if(c.lines.begin(), c.lines.end(),
                                [](const ChunkLine& l) { return l.kind != Kind::kAdded; });
      if (first == c.lines.end() || !first->text.starts_with(text::kBom)) continue;
      if (!unbommed) unbommed = file.chunks;
      std::string& t = (*unbommed)[k].lines[static_cast<std::size_t>(first - c.lines.begin())].text;
      t.erase(0, text::kBom.size());
    }
  }
  const std::vector<Chunk>& chunks = unbommed ? *unbommed : file.chunks;

  std::vector<Replacement> replacements;
  std::size_t cursor = 0;
  std::ptrdiff_t offset = 0;  // unified: where the last hunk was found minus where it said
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const Chunk& chunk = chunks[k];
    const std::size_t hunk = k + 1;
    std::vector<const ChunkLine*> ops;
    for (const ChunkLine& l : chunk.lines) ops.push_back(&l);
    std::vector<std::string_view> old_lines = old_side(ops);
    auto markers_set_final_newline = [&](std::size_t end) {
      if (format == Format::kUnified && end == n && (chunk.old_no_newline || chunk.new_no_newline))
        final_newline = !chunk.new_no_newline;
    };
    // Marks the group whose last added line is the chunk's last line, when a
    // marker says that line ends the new file without a break.
    auto mark_unterminated = [&](Replacement& r, std::size_t end) {
      if (format == Format::kUnified && end == n && chunk.new_no_newline && !ops.empty() &&
          ops.back()->kind == Kind::kAdded && !r.groups.empty())
        r.groups.back().unterminated = true;
    };

    std::optional<std::size_t> at;
    seek::Tier tier = seek::Tier::kExact;
    if (format == Format::kCodex) {
      std::size_t from = cursor;
      std::optional<std::size_t> anchor_line;
      if (chunk.anchor) {
        auto hit = seek::forward(index, {*chunk.anchor}, cursor, false);
        if (!hit)
          return hunk_error(file.path, hunk, chunk, text, index, {*chunk.anchor}, cursor,
                            "its '@@ " + *chunk.anchor + "' line was not found from line " +
                                std::to_string(cursor + 1) + " on");
        anchor_line = hit->index;
        from = hit->index + 1;
      }
      if (old_lines.empty()) {
        // A pure addition goes after the anchor line, or at the end of the file.
        std::size_t pos = anchor_line ? from : n;
        replacements.push_back(insertion(pos, ops));
        if (anchor_line) cursor = from;
        continue;
      }
      auto locate =
          [&](const std::vector<std::string_view>& pattern) -> std::optional<std::size_t> {
        auto hit = seek::forward(index, pattern, from, chunk.end_of_file);
        // The anchor line may itself be the chunk's first line.
        if (!hit && anchor_line) hit = seek::forward(index, pattern, *anchor_line, false);
        if (!hit) return std::nullopt;
        tier = hit->tier;
        return hit->index;
      };
      at = locate(old_lines);
      if (!at) {
        std::vector<const ChunkLine*> retry = without_trailing_empty(ops);
        std::vector<std::string_view> retry_old = old_side(retry);
        if (!retry_old.empty()) {
          at = locate(retry_old);
          if (at) {
            ops = std::move(retry);
            old_lines = std::move(retry_old);
          }
        }
      }
      if (!at) {
        std::string where =
            chunk.end_of_file ? "at the end of the file or from line " : "from line ";
        return hunk_error(file.path, hunk, chunk, text, index, old_lines, from,
                          "its context and removed lines were not found " + where +
                              std::to_string(from + 1) + " on");
      }
    } else {
      // Line numbers are hints: the search starts there, shifted by how far
      // off the previous hunk was, and moves outwards. A line number far past
      // any file is capped, so that |offset| stays below kFarLine + n and the
      // signed arithmetic cannot overflow.
      std::size_t base = cursor;
      if (chunk.old_start) {
        base = *chunk.old_start;
        if (!(chunk.old_count && *chunk.old_count == 0) && base > 0) --base;
      }
      base = std::min(base, kFarLine);
      std::ptrdiff_t hinted = static_cast<std::ptrdiff_t>(base) + offset;
      std::size_t hint = static_cast<std::size_t>(std::max<std::ptrdiff_t>(hinted, 0));
      if (old_lines.empty()) {
        std::size_t pos = std::clamp(hint, cursor, n);
        replacements.push_back(insertion(pos, ops));
        cursor = pos;
        markers_set_final_newline(pos);
        mark_unterminated(replacements.back(), pos);
        continue;
      }
      auto hit = seek::nearest(index, old_lines, cursor, hint);
      if (!hit)
        return hunk_error(file.path, hunk, chunk, text, index, old_lines, cursor,
                          "its context and removed lines were not found (searched from line " +
                              std::to_string(std::min(hint, n) + 1) +
                              " outwards, not before line " + std::to_string(cursor + 1) + ")");
      at = hit->index;
      tier = hit->tier;
      offset = static_cast<std::ptrdiff_t>(hit->index) - static_cast<std::ptrdiff_t>(base);
    }

    Replacement r{*at, old_lines.size(), {}};
    std::size_t old_index = *at;
    bool in_group = false;
    for (const ChunkLine* l : ops) {
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
    // Found only with typography folded: a changed line keeps the file's
    // characters wherever the model did not change them (match/carry.h), as
    // str_replace's unicode tier does.
    if (tier == seek::Tier::kFold) {
      for (Group& g : r.groups) {
        if (g.count == 0 || g.added.empty()) continue;
        const carry::Lines file_lines(
            lines.begin() + static_cast<std::ptrdiff_t>(g.line),
            lines.begin() + static_cast<std::ptrdiff_t>(g.line + g.count));
        g.added = carry::carry_lines(file_lines, g.removed, g.added);
      }
    }
    cursor = *at + old_lines.size();
    markers_set_final_newline(cursor);
    mark_unterminated(r, cursor);
    replacements.push_back(std::move(r));
  }

  std::stable_sort(replacements.begin(), replacements.end(),
                   [](const Replacement& a, const Replacement& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < replacements.size(); ++i) {
    const Replacement& prev = replacements[i - 1];
    if (replacements[i].start < prev.start + prev.old_len)
      return Error(ErrorKind::kPatchApply,
                   "the chunks of '" + file.path + "' overlap at line " +
                       std::to_string(replacements[i].start + 1),
                   {{"path", file.path}, {"line", replacements[i].start + 1}});
  }

  auto start_of = [&](std::size_t line) {
    return line < n ? static_cast<std::size_t>(lines[line].data() - text.data()) : text.size();
  };
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
    return begin == 0 || text[begin - 1] == '\n';
  };
  for (const Replacement& r : replacements) {
    for (const Group& g : r.groups) {
      splice::Edit e;
      e.begin = start_of(g.line);
      e.end = start_of(g.line + g.count);
      e.crlf_literal = true;
      // Lines added after a last line without a final newline start with one.
      if (e.begin == text.size() && !g.added.empty() && !line_ends_before(e.begin))
        e.text.push_back('\n');
      for (const std::string& l : g.added) {
        e.text.append(l);
        e.text.push_back('\n');
      }
      // Without it, "B\r\n" would read as B with a CRLF ending, and the final
      // newline rule would take both bytes away.
      if (g.unterminated && e.text.ends_with("\r\n")) e.text.pop_back();
      if (e.begin == 0) e.text = std::string(text::without_copied_bom(*doc, 0, e.text));
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
  splice::Options options;
  options.final_newline = final_newline;
  splice::Applied applied =
      splice::apply(*doc, splice::plan(*doc, text, std::move(edits), options));
  return Updated{std::move(applied.bytes), std::move(applied.windows),
                 doc->bom() ? text::kBom.size() : 0};
}

// git's own diff applied as git apply applies it: every old line (its CR
// restored, line 1 with the BOM) must equal the file's line byte for byte, at
// the hunk's line or the nearest place after the previous hunk, and the new
// lines replace them byte for byte (endings, BOM, `\ No newline at end of
// file`). nullopt when a hunk does not match so: the diff is not git's output
// of these bytes, and the fidelity rules apply it instead.
std::optional<std::string> git_exact(const FilePatch& file, std::string_view bytes) {
  struct Line {
    std::string_view text;  // without its "\n"
    bool terminated;
  };
  std::vector<Line> lines;
  for (std::size_t pos = 0; pos < bytes.size();) {
    const std::size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) {
      lines.push_back({bytes.substr(pos), false});
      break;
    }
    lines.push_back({bytes.substr(pos, nl - pos), true});
    pos = nl + 1;
  }
  std::string out;
  std::size_t done = 0;  // lines of the file already copied or replaced
  // Line comparisons before the search gives up (and the fidelity rules,
  // whose search is indexed, take over): a bound on a hostile hunk's cost.
  std::size_t budget = std::size_t{1} << 24;
  for (const Chunk& c : file.chunks) {
    if (c.cr.size() != c.lines.size() || !c.old_start) return std::nullopt;
    std::vector<std::string> old_lines, new_lines;
    for (std::size_t i = 0; i < c.lines.size(); ++i) {
      const ChunkLine& l = c.lines[i];
      std::string raw = l.text;
      if (l.kind != Kind::kAdded && c.cr[i]) raw.push_back('\r');
      if (l.kind != Kind::kAdded) old_lines.push_back(raw);
      if (l.kind != Kind::kRemoved) new_lines.push_back(std::move(raw));
    }
    const std::size_t n = old_lines.size();
    auto matches = [&](std::size_t at) {
      if (at + n > lines.size()) return false;
      for (std::size_t i = 0; i < n; ++i) {
        if (budget == 0) return false;
        --budget;
        const Line& l = lines[at + i];
        if (l.text != old_lines[i]) return false;
        // The last old line ends the file without a break exactly when the
        // hunk says so.
        if (i + 1 == n && l.terminated == c.old_no_newline) return false;
      }
      return true;
    };
    std::size_t hint = std::min<std::size_t>(*c.old_start, lines.size());
    if (n > 0 && hint > 0) --hint;
    std::optional<std::size_t> at;
    // Outwards from the hunk's line, never before the end of the previous hunk.
    for (std::size_t d = 0; !at && budget > 0 && (hint >= done + d || hint + d <= lines.size());
         ++d) {
      if (hint + d >= done && matches(hint + d)) {
        at = hint + d;
      } else if (d > 0 && hint >= done + d && matches(hint - d)) {
        at = hint - d;
      }
    }
    if (!at) return std::nullopt;
    // Lines added after a last line without a break: git's diff would show it.
    if (n == 0 && *at == lines.size() && !lines.empty() && !lines.back().terminated)
      return std::nullopt;
    for (; done < *at; ++done) {
      out.append(lines[done].text);
      if (lines[done].terminated) out.push_back('\n');
    }
    for (std::size_t i = 0; i < new_lines.size(); ++i) {
      out.append(new_lines[i]);
      if (i + 1 < new_lines.size() || !c.new_no_newline) out.push_back('\n');
    }
    done = *at + n;
    if (c.new_no_newline && done != lines.size()) return std::nullopt;
  }
  for (; done < lines.size(); ++done) {
    out.append(lines[done].text);
    if (lines[done].terminated) out.push_back('\n');
  }
  return out;
}

void describe(FileOutcome& o, const std::optional<std::vector<diff::Window>>& windows,
              std::size_t bom) {
  const std::string_view before = o.old_bytes ? std::string_view(*o.old_bytes) : std::string_view();
  const std::string_view after = o.new_bytes ? std::string_view(*o.new_bytes) : std::string_view();
  const std::string old_label = o.old_bytes ? "a/" + o.path : "/dev/null";
  const std::string new_label = o.new_bytes ? "b/" + o.moved_to.value_or(o.path) : "/dev/null";
  diff::UnifiedDiff d;
  if (windows && o.old_bytes && o.new_bytes)
    d = diff::unified_windows(before.substr(bom), after.substr(bom), *windows, old_label,
                              new_label);
  else
    d = diff::unified_texts(text::without_bom(before), text::without_bom(after), old_label,
                            new_label);
  o.diff = std::move(d.text);
  o.added = d.added;
  o.removed = d.removed;
}

}  // namespace

Result<std::vector<FileOutcome>> apply(const Patch& patch,
                                       const std::map<std::string, FileInput>& inputs) {
  const std::vector<std::string> order = touched_paths(patch);
  auto input = [&](const std::string& path) -> const FileInput* {
    auto it = inputs.find(path);
    return it == inputs.end() || it->second.state == State::kMissing ? nullptr : &it->second;
  };
  std::map<std::string, VirtualFile> files;
  for (const std::string& p : order) {
    VirtualFile& v = files[p];
    if (const FileInput* in = input(p)) {
      v.state = in->state;
      if (in->state == State::kFile) {
        v.input = &in->bytes;
        v.origin = p;
        v.pristine = true;
      }
    }
  }

  for (const FilePatch& f : patch.files) {
    VirtualFile& source = files[f.path];
    const std::string op(action_name(f.action));
    if (source.state == State::kDirectory)
      return path_error(ErrorKind::kIsDirectory, f.path,
                        "cannot " + op + " '" + f.path + "': it is a directory");
    if (f.action != Action::kAdd && source.state == State::kMissing)
      return path_error(ErrorKind::kNotFound, f.path,
                        "cannot " + op + " '" + f.path + "': no such file");
    switch (f.action) {
      case Action::kAdd:
        source = VirtualFile{State::kFile, f.content, std::nullopt, std::nullopt, 0,
                             false,        nullptr,   f.executable};
        break;
      case Action::kDelete:
        if (!f.chunks.empty()) {
          // A unified deletion carries the content it deletes: it must be the whole file.
          auto rest = update_content(patch.format, f, source.content());
          if (!rest) return rest.error();
          if (!rest->bytes.empty() && rest->bytes != text::kBom)
            return Error(
                ErrorKind::kPatchApply,
                "cannot delete '" + f.path + "': the diff's deleted lines are not the whole file",
                {{"path", f.path}});
        }
        source = {};
        break;
      case Action::kUpdate:
      case Action::kMove: {
        // git's diff of these bytes (of a text file) lands byte for byte.
        std::optional<std::string> exact;
        if (f.git && !f.chunks.empty() && text::Document::decode(source.content()))
          exact = git_exact(f, source.content());
        const bool exactly = exact.has_value();
        Result<Updated> updated = exactly ? Result<Updated>(Updated{std::move(*exact), {}, 0})
                                          : update_content(patch.format, f, source.content());
        if (!updated) return updated.error();
        std::optional<std::vector<diff::Window>> windows;
        if (source.pristine && !exactly) windows = std::move(updated->windows);
        VirtualFile next{State::kFile,  std::move(updated->bytes),
                         source.origin, std::move(windows),
                         updated->bom,  false,
                         nullptr,       f.executable ? f.executable : source.executable};
        if (f.move_to && *f.move_to != f.path) {
          VirtualFile& dest = files[*f.move_to];
          if (dest.state == State::kDirectory)
            return path_error(
                ErrorKind::kIsDirectory, *f.move_to,
                "cannot move '" + f.path + "' to '" + *f.move_to + "': it is a directory");
          dest = std::move(next);
          source = {};
        } else {
          source = std::move(next);
        }
        break;
      }
    }
  }

  // A file whose content came from another path that no longer exists is that
  // path moved; everything else is judged by its first and last state.
  std::map<std::string, std::string> dest_of, source_of;
  for (const std::string& p : order) {
    const VirtualFile& v = files[p];
    if (v.state != State::kFile || !v.origin || *v.origin == p) continue;
    if (files[*v.origin].state == State::kFile || dest_of.count(*v.origin)) continue;
    dest_of[*v.origin] = p;
    source_of[p] = *v.origin;
  }

  std::vector<FileOutcome> outcomes;
  std::set<std::string> done;
  for (const std::string& p : order) {
    if (done.count(p)) continue;
    const FileInput* in = input(p);
    VirtualFile& v = files[p];
    FileOutcome o;
    if (dest_of.count(p) || source_of.count(p)) {
      const std::string& src = dest_of.count(p) ? p : source_of[p];
      const std::string& dst = dest_of[src];
      o.path = src;
      o.action = Action::kMove;
      o.moved_to = dst;
      o.old_bytes = input(src)->bytes;
      o.new_bytes = files[dst].take();
      o.overwritten = input(dst) != nullptr;
      done.insert(src);
      done.insert(dst);
    } else {
      const bool was_file = in && in->state == State::kFile;
      const bool is_file = v.state == State::kFile;
      if (!was_file && !is_file) continue;
      o.path = p;
      if (was_file) o.old_bytes = in->bytes;
      if (is_file) o.new_bytes = v.take();
      if (!was_file) {
        o.action = Action::kAdd;
      } else if (!is_file) {
        o.action = Action::kDelete;
      } else if (v.origin == p) {
        o.action = Action::kUpdate;
      } else {
        o.action = Action::kAdd;
        o.overwritten = true;
      }
      done.insert(p);
    }
    const VirtualFile& last = files[o.moved_to.value_or(o.path)];
    if (o.new_bytes) o.executable = last.executable;
    if (o.action == Action::kUpdate || o.action == Action::kMove)
      describe(o, last.windows, last.bom);
    else
      describe(o, std::nullopt, 0);
    outcomes.push_back(std::move(o));
  }
  return outcomes;
}

}  // namespace editd::patch
