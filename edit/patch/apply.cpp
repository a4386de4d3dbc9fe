// apply(): runs a parsed patch against an in-memory copy of its inputs; each
// updated file's chunks are update.cpp's.
#include <algorithm>
#include <set>

#include "edit/change/unified_diff.h"
#include "edit/patch/patch.h"
#include "edit/patch/update.h"
#include "edit/text/text.h"

namespace editd::patch {

namespace {

using detail::Updated;
using detail::update_content;
using Kind = ChunkLine::Kind;
using State = FileInput::State;

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

Error path_error(ErrorKind kind, const std::string& path, std::string message) {
  return Error(kind, std::move(message), {{"path", path}});
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
