// The Codex `*** Begin Patch` grammar, with Codex's own leniencies and a few more
// (see docs/patch.md).
#include <cctype>
#include <string>

#include "edit/patch/syntax.h"

namespace editd::patch::detail {

namespace {

constexpr std::string_view kAddFile = "*** Add File:";
constexpr std::string_view kDeleteFile = "*** Delete File:";
constexpr std::string_view kUpdateFile = "*** Update File:";
constexpr std::string_view kMoveTo = "*** Move to:";
constexpr std::string_view kEndOfFile = "*** End of File";
constexpr std::string_view kEndPatch = "*** End Patch";
constexpr std::string_view kExpectedHeader =
    "a file operation: '*** Add File: <path>', '*** Delete File: <path>' or "
    "'*** Update File: <path>'";
constexpr std::string_view kExpectedChunkLine =
    "a chunk line starting with ' ' (context), '-' (removed) or '+' (added)";

constexpr std::string_view kBeginPatch = "*** Begin Patch";

// An operation header or a marker, once trimmed.
bool is_marker(std::string_view line) {
  std::string_view t = trim(line);
  return t.starts_with(kAddFile) || t.starts_with(kDeleteFile) || t.starts_with(kUpdateFile) ||
         t.starts_with(kMoveTo) || t == kEndOfFile || t == kEndPatch || t == kBeginPatch;
}

bool indented(std::string_view line) {
  return !line.empty() && (line[0] == ' ' || line[0] == '\t');
}

// The header or marker that `line` means but does not spell: `*** Update File
// x` (no colon), `*** update file: x`, `***Update File: x`, `** End Patch`.
// Empty when `line` looks like none of them.
std::string_view meant_marker(std::string_view line) {
  std::string_view t = trim(line);
  if (!t.starts_with("**")) return {};
  while (t.starts_with('*')) t.remove_prefix(1);
  t = trim(t);
  static constexpr std::string_view kMarkers[] = {kAddFile,   kDeleteFile, kUpdateFile, kMoveTo,
                                                  kEndOfFile, kEndPatch,   kBeginPatch};
  for (std::string_view m : kMarkers) {
    std::string_view name = m.substr(4);  // without "*** "
    if (name.ends_with(':')) name.remove_suffix(1);
    if (t.size() < name.size()) continue;
    bool same = true;
    for (std::size_t k = 0; k < name.size() && same; ++k)
      same = std::tolower(static_cast<unsigned char>(t[k])) ==
             std::tolower(static_cast<unsigned char>(name[k]));
    if (same) return m;
  }
  return {};
}

// The header or marker at `line` is misspelled (see meant_marker): the error
// shows the form Codex reads.
Error misspelled_marker(const PatchLine& line, std::string_view marker) {
  std::string form(marker);
  if (form.ends_with(':')) form += " <path>";
  return parse_error(line.number, "'" + form + "'", line.text,
                     "a header or marker is spelled exactly so, with '*** ' before it" +
                         std::string(marker.ends_with(':') ? " and ': ' before the path" : ""));
}

// Why a well-formed marker `t` (trimmed) cannot stand where a file operation starts.
std::string misplaced(std::string_view t) {
  if (t.starts_with(kMoveTo))
    return "'*** Move to: <path>' goes right after its '*** Update File: <path>' line";
  if (t == kEndOfFile) return "'*** End of File' goes right after a chunk's last line";
  if (t == kEndPatch) return "only the patch's last line is '*** End Patch'";
  return "only the patch's first line is '*** Begin Patch'";
}

// An operation header or marker indented inside an Update's chunks: Codex reads
// it as a context line, and taking it for a header would split the chunk.
Error indented_marker(const PatchLine& line) {
  return parse_error(
      line.number,
      "a chunk line starting with ' ', '-' or '+', or a '*** ' header at the start of its line",
      line.text,
      "this file header or marker is indented inside a chunk, where Codex reads it as a "
      "context line: write it without indentation, after the chunk's last line; if the file "
      "really has this line, change it with str_replace or a unified diff");
}

// `@@ -12,3 +12,4 @@ ...`, a unified hunk header written where a Codex chunk header goes.
bool is_unified_range(std::string_view s) {
  s = trim(s);
  if (!s.starts_with('-')) return false;
  std::size_t close = s.find("@@");
  if (close == std::string_view::npos) return false;
  for (char c : trim(s.substr(0, close)))
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == ',' ||
          c == ' '))
      return false;
  return true;
}

class CodexParser {
 public:
  CodexParser(const PatchLines& lines, PathRule path_rule) : lines_(lines), path_rule_(path_rule) {}

  Result<std::vector<FilePatch>> run() {
    // lines_.front() is `*** Begin Patch`, lines_.back() `*** End Patch`.
    i_ = 1;
    end_ = lines_.size() - 1;
    std::vector<FilePatch> files;
    while (i_ < end_) {
      const PatchLine& l = lines_[i_];
      std::string_view t = trim(l.text);
      if (t.empty()) {
        ++i_;
        continue;
      }
      Result<FilePatch> file = Error();
      if (t.starts_with(kAddFile)) {
        file = add_file();
      } else if (t.starts_with(kDeleteFile)) {
        file = delete_file();
      } else if (t.starts_with(kUpdateFile)) {
        file = update_file();
      } else if (is_marker(l.text)) {
        return parse_error(l.number, kExpectedHeader, l.text, misplaced(t));
      } else if (std::string_view m = meant_marker(l.text); !m.empty()) {
        return misspelled_marker(l, m);
      } else {
        return parse_error(l.number, kExpectedHeader, l.text);
      }
      if (!file) return file.error();
      files.push_back(std::move(*file));
    }
    if (files.empty())
      return parse_error(lines_[end_].number, kExpectedHeader, lines_[end_].text,
                         "the patch has no file operations");
    return files;
  }

 private:
  // The path after a header's marker, or an error if there is none.
  Result<std::string> header_path(std::string_view marker) {
    const PatchLine& l = lines_[i_];
    std::string_view path = trim(trim(l.text).substr(marker.size()));
    if (path.empty())
      return parse_error(l.number, "a path after '" + std::string(marker) + " '", l.text);
    if (auto ok = check_path(l, path, path_rule_); !ok) return ok.error();
    return std::string(path);
  }

  Result<FilePatch> add_file() {
    FilePatch f;
    f.action = Action::kAdd;
    f.patch_line = lines_[i_].number;
    auto path = header_path(kAddFile);
    if (!path) return path.error();
    f.path = std::move(*path);
    ++i_;
    while (i_ < end_ && lines_[i_].text.starts_with('+')) {
      if (auto ok = check_added(lines_[i_], lines_[i_].text.substr(1), f.path); !ok)
        return ok.error();
      // A CR before the LF is the envelope's line ending, as Codex reads it.
      f.content.append(lines_[i_].text.substr(1));
      f.content.push_back('\n');
      ++i_;
    }
    return f;
  }

  Result<FilePatch> delete_file() {
    FilePatch f;
    f.action = Action::kDelete;
    f.patch_line = lines_[i_].number;
    auto path = header_path(kDeleteFile);
    if (!path) return path.error();
    f.path = std::move(*path);
    ++i_;
    return f;
  }

  Result<FilePatch> update_file() {
    FilePatch f;
    f.action = Action::kUpdate;
    f.patch_line = lines_[i_].number;
    auto path = header_path(kUpdateFile);
    if (!path) return path.error();
    f.path = std::move(*path);
    ++i_;
    if (i_ < end_ && trim(lines_[i_].text).starts_with(kMoveTo)) {
      auto to = header_path(kMoveTo);
      if (!to) return to.error();
      f.action = Action::kMove;
      f.move_to = std::move(*to);
      ++i_;
    }
    while (i_ < end_) {
      std::string_view text = lines_[i_].text;
      if (trim(text).empty()) {
        ++i_;
        continue;
      }
      if (indented(text) && is_marker(text)) return indented_marker(lines_[i_]);
      if (text.starts_with('*') && !is_marker(text))
        if (std::string_view m = meant_marker(text); !m.empty())
          return misspelled_marker(lines_[i_], m);
      if (text.starts_with('*') || is_marker(text)) break;
      auto chunk = parse_chunk(f.chunks.empty(), f.move_to.value_or(f.path));
      if (!chunk) return chunk.error();
      f.chunks.push_back(std::move(*chunk));
    }
    if (f.chunks.empty())
      return parse_error(lines_[i_].number,
                         "a chunk for '" + f.path +
                             "': '@@' or '@@ <context line>' followed by "
                             "lines starting with ' ', '-' or '+'",
                         lines_[i_].text, "an Update File needs at least one chunk");
    return f;
  }

  // `path`: the file the chunk's added lines go to.
  Result<Chunk> parse_chunk(bool first, std::string_view path) {
    Chunk c;
    const PatchLine& head = lines_[i_];
    c.patch_line = head.number;
    if (trim_end(head.text) == "@@") {
      ++i_;
    } else if (head.text.starts_with("@@ ")) {
      std::string_view anchor = head.text.substr(3);
      if (!trim(anchor).empty() && !is_unified_range(anchor)) c.anchor = std::string(anchor);
      ++i_;
    } else if (!first) {
      return parse_error(head.number,
                         "'@@' or '@@ <context line>' to start the next chunk, or a "
                         "'*** ' header",
                         head.text, "every line of a chunk starts with ' ', '-' or '+'");
    }
    std::size_t count = 0;
    while (i_ < end_) {
      std::string_view text = lines_[i_].text;
      if (indented(text) && is_marker(text)) return indented_marker(lines_[i_]);
      if (trim_end(text) == kEndOfFile) {
        if (count == 0) break;
        c.end_of_file = true;
        ++i_;
        break;
      }
      if (is_marker(text)) break;
      ChunkLine line;
      if (text.empty()) {
        line = {ChunkLine::Kind::kContext, ""};
      } else if (text[0] == ' ') {
        line = {ChunkLine::Kind::kContext, std::string(text.substr(1))};
      } else if (text[0] == '-') {
        line = {ChunkLine::Kind::kRemoved, std::string(text.substr(1))};
      } else if (text[0] == '+') {
        if (auto ok = check_added(lines_[i_], text.substr(1), path); !ok) return ok.error();
        // A CR before the LF is the envelope's line ending, as Codex reads
        // it: the added line takes the file's ending by the fidelity rules.
        line = {ChunkLine::Kind::kAdded, std::string(text.substr(1))};
      } else {
        break;
      }
      c.lines.push_back(std::move(line));
      ++count;
      ++i_;
    }
    if (count == 0)
      return parse_error(lines_[i_].number, kExpectedChunkLine, lines_[i_].text,
                         "a chunk needs at least one line");
    return c;
  }

  const PatchLines& lines_;
  PathRule path_rule_;
  std::size_t i_ = 0;
  std::size_t end_ = 0;
};

}  // namespace

Result<std::vector<FilePatch>> parse_codex(const PatchLines& lines, PathRule path_rule) {
  return CodexParser(lines, path_rule).run();
}

}  // namespace editd::patch::detail
