// Unified diffs as `git diff` and `diff -u` write them (see docs/patch.md).
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#include "edit/patch/syntax.h"

namespace editd::patch::detail {

namespace {

constexpr std::string_view kDevNull = "/dev/null";

// A C-quoted git path ("a/t\303\244st"), without its quotes; `s` starts at the
// opening quote and is advanced past the closing one.
std::string unquote(std::string_view& s) {
  std::string out;
  std::size_t i = 1;
  while (i < s.size() && s[i] != '"') {
    char c = s[i++];
    if (c != '\\' || i == s.size()) {
      out.push_back(c);
      continue;
    }
    char e = s[i++];
    switch (e) {
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'a':
        out.push_back('\a');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'v':
        out.push_back('\v');
        break;
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0';
          for (int k = 0; k < 2 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k)
            v = v * 8 + (s[i++] - '0');
          out.push_back(static_cast<char>(v));
        } else {
          out.push_back(e);
        }
    }
  }
  s.remove_prefix(std::min(i + 1, s.size()));
  return out;
}

// The path of a `--- ` or `+++ ` line: quoted, or up to a tab (diff -u puts the
// timestamp after one).
std::string label_path(std::string_view s) {
  s = trim(s);
  if (s.starts_with('"')) return unquote(s);
  if (std::size_t tab = s.find('\t'); tab != std::string_view::npos) s = s.substr(0, tab);
  return std::string(trim_end(s));
}

// Strips git's a/ and b/ prefixes when both sides carry theirs (or /dev/null).
void strip_prefixes(std::string& old_path, std::string& new_path) {
  bool a = old_path.starts_with("a/"), b = new_path.starts_with("b/");
  bool old_null = old_path == kDevNull, new_null = new_path == kDevNull;
  if ((a || old_null) && (b || new_null) && (a || b)) {
    if (a) old_path.erase(0, 2);
    if (b) new_path.erase(0, 2);
  }
}

// The two paths of `diff --git a/x b/y`, used only when no other line names them.
std::pair<std::string, std::string> git_header_paths(std::string_view rest) {
  rest = trim(rest);
  std::string a, b;
  if (rest.starts_with('"')) {
    a = unquote(rest);
    rest = trim(rest);
    b = rest.starts_with('"') ? unquote(rest) : std::string(rest);
  } else if (std::size_t q = rest.find(" \""); q != std::string_view::npos) {
    a = std::string(rest.substr(0, q));
    std::string_view r = rest.substr(q + 1);
    b = unquote(r);
  } else if (rest.size() >= 5 && rest.size() % 2 == 1 && rest[rest.size() / 2] == ' ' &&
             rest.substr(2, rest.size() / 2 - 2) == rest.substr(rest.size() / 2 + 3)) {
    // `a/NAME b/NAME`: the same name on both sides, spaces and all.
    a = std::string(rest.substr(0, rest.size() / 2));
    b = std::string(rest.substr(rest.size() / 2 + 1));
  } else if (std::size_t sp = rest.find(" b/"); sp != std::string_view::npos) {
    a = std::string(rest.substr(0, sp));
    b = std::string(rest.substr(sp + 1));
  } else {
    std::size_t space = rest.find(' ');
    a = std::string(rest.substr(0, space));
    b = space == std::string_view::npos ? a : std::string(rest.substr(space + 1));
  }
  return {a, b};
}

// Reads a decimal number at the front of `s`; a number too large for size_t
// reads as the largest size_t (line numbers are hints, see apply.cpp).
std::optional<std::size_t> number(std::string_view& s) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  std::size_t n = 0, v = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) {
    const std::size_t digit = static_cast<std::size_t>(s[n++] - '0');
    v = v > (kMax - digit) / 10 ? kMax : v * 10 + digit;
  }
  if (n == 0) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

struct Range {
  std::size_t old_start, old_count, new_start, new_count;
};

// `@@ -l[,s] +l[,s] @@[ heading]`; nullopt when the numbers are missing or garbled.
std::optional<Range> hunk_range(std::string_view s) {
  s = trim(s.substr(2));
  Range r{};
  if (!s.starts_with('-')) return std::nullopt;
  s.remove_prefix(1);
  auto os = number(s);
  if (!os) return std::nullopt;
  r.old_start = *os;
  r.old_count = 1;
  if (s.starts_with(',')) {
    s.remove_prefix(1);
    auto oc = number(s);
    if (!oc) return std::nullopt;
    r.old_count = *oc;
  }
  s = trim(s);
  if (!s.starts_with('+')) return std::nullopt;
  s.remove_prefix(1);
  auto ns = number(s);
  if (!ns) return std::nullopt;
  r.new_start = *ns;
  r.new_count = 1;
  if (s.starts_with(',')) {
    s.remove_prefix(1);
    auto nc = number(s);
    if (!nc) return std::nullopt;
    r.new_count = *nc;
  }
  if (!trim(s).starts_with("@@")) return std::nullopt;
  return r;
}

constexpr std::string_view kExpectedGitHeader =
    "a git header line ('index', 'old mode', 'new mode', 'new file mode', 'deleted file mode', "
    "'similarity index', 'rename from', 'rename to'), '--- <old path>' or a hunk '@@ -<line>,"
    "<count> +<line>,<count> @@'";

class UnifiedParser {
 public:
  UnifiedParser(const PatchLines& lines, const PatchLines& trailing_blank, PathRule path_rule)
      : lines_(lines), trailing_blank_(trailing_blank), path_rule_(path_rule) {}

  Result<std::vector<FilePatch>> run() {
    std::vector<FilePatch> files;
    while (i_ < lines_.size()) {
      std::string_view t = lines_[i_].text;
      if (t.starts_with("diff --git ") || file_header_at(i_)) {
        auto file = parse_file();
        if (!file) return file.error();
        if (*file) files.push_back(std::move(**file));
      } else if (t.starts_with("@@")) {
        return parse_error(lines_[i_].number,
                           "'--- <old path>' and '+++ <new path>' before the first hunk", t);
      } else if (t.starts_with("Binary files ") || t.starts_with("GIT binary patch")) {
        return unsupported("binary patches are not supported");
      } else if (std::optional<std::size_t> stray = stray_in_file_header(i_)) {
        return parse_error(lines_[*stray].number, "'+++ <new path>' right after '--- <old path>'",
                           lines_[*stray].text,
                           "git apply and GNU patch read a file header only from consecutive "
                           "'---' and '+++' lines");
      } else {
        ++i_;
      }
    }
    if (files.empty())
      return parse_error(lines_.back().number,
                         "a file change ('--- a/<path>', '+++ b/<path>' "
                         "and hunks)",
                         lines_.back().text, "the diff changes no file");
    return files;
  }

 private:
  bool file_header_at(std::size_t i) const {
    return i + 1 < lines_.size() && lines_[i].text.starts_with("--- ") &&
           lines_[i + 1].text.starts_with("+++ ");
  }

  // A `--- ` line at `i` whose `+++ ` line comes a few lines later instead of
  // right after it: the first line in between.
  std::optional<std::size_t> stray_in_file_header(std::size_t i) const {
    constexpr std::size_t kReach = 4;
    if (!lines_[i].text.starts_with("--- ") || file_header_at(i)) return std::nullopt;
    for (std::size_t k = i + 1; k < lines_.size() && k <= i + kReach; ++k) {
      std::string_view t = lines_[k].text;
      if (t.starts_with("+++ "))
        return k > i + 1 ? std::optional<std::size_t>(i + 1) : std::nullopt;
      if (t.starts_with("@@") || t.starts_with("diff ") || t.starts_with("--- ")) break;
    }
    return std::nullopt;
  }

  // Whether a hunk or a file header comes after line `i` before the next
  // `diff ` line: then line `i` stands inside a file's headers.
  bool headers_go_on_after(std::size_t i) const {
    for (std::size_t k = i + 1; k < lines_.size(); ++k) {
      std::string_view t = lines_[k].text;
      if (t.starts_with("diff ")) return false;
      if (t.starts_with("@@") || file_header_at(k) || stray_in_file_header(k)) return true;
    }
    return false;
  }

  // Whether line `j`, after a hunk whose counts are reached, reads as one more
  // line of that hunk: a ' ', '-' or '+' line that is neither a file header
  // nor a mail signature (`-- `).
  bool continues_hunk(std::size_t j) const {
    std::string_view t = lines_[j].text;
    if (t.empty() || !(t[0] == ' ' || t[0] == '-' || t[0] == '+')) return false;
    return !(t == "-- " || file_header_at(j) || stray_in_file_header(j));
  }

  // patch_parse at the hunk header `head`: its counts are not its body's.
  Error counts_error(const PatchLine& head, const Range& r, std::size_t old_found,
                     std::size_t new_found, std::string_view where) const {
    auto side = [](std::size_t n, std::string_view what) {
      return std::to_string(n) + " " + std::string(what) + (n == 1 ? " line" : " lines");
    };
    Error e = parse_error(
        head.number,
        "a hunk of " + side(r.old_count, "old") + " and " + side(r.new_count, "new") +
            ", as its header says",
        head.text,
        "its body has " + side(old_found, "old") + " (context and '-') and " +
            side(new_found, "new") + " (context and '+') " + std::string(where) +
            "; git apply and GNU patch refuse a hunk whose counts disagree with its body: "
            "correct the counts in the '@@' line, or resend the hunk whole");
    e.data["counts"] = {{"expected", {{"old", r.old_count}, {"new", r.new_count}}},
                        {"found", {{"old", old_found}, {"new", new_found}}}};
    return e;
  }

  Error unsupported(std::string_view why) const {
    return parse_error(lines_[i_].number, "a text change ('@@ -<line>,<count> +<line>,<count> @@')",
                       lines_[i_].text, why);
  }

  // One file: an optional git header, `---`/`+++` and hunks. nullopt for a file
  // entry that changes nothing editd writes (a mode change).
  Result<std::optional<FilePatch>> parse_file() {
    FilePatch f;
    f.patch_line = lines_[i_].number;
    std::optional<std::pair<std::string, std::string>> git_paths;
    std::optional<std::string> old_label, new_label, rename_from, rename_to;
    bool new_file = false, deleted_file = false, mode_change = false, index_line = false;
    std::optional<bool> executable;  // 100755 or 100644; other modes (links) are skipped
    auto read_mode = [&](std::string_view v) {
      v = trim(v);
      if (v == "100755") executable = true;
      if (v == "100644") executable = false;
    };
    // The lines (indexes in lines_) that the old and the new path are read from.
    std::size_t old_at = i_, new_at = i_, rename_from_at = i_, rename_to_at = i_;

    if (lines_[i_].text.starts_with("diff --git ")) {
      git_paths = git_header_paths(lines_[i_].text.substr(11));
      ++i_;
      for (; i_ < lines_.size(); ++i_) {
        std::string_view t = lines_[i_].text;
        auto value = [&](std::string_view key) {
          std::string_view v = trim(t.substr(key.size()));
          return v.starts_with('"') ? unquote(v) : std::string(v);
        };
        if (t.starts_with("diff --git ") || t.starts_with("@@") || file_header_at(i_)) break;
        if (t.starts_with("new file mode")) {
          new_file = true;
          read_mode(t.substr(13));
        } else if (t.starts_with("deleted file mode")) {
          deleted_file = true;
        } else if (t.starts_with("old mode")) {
          mode_change = true;
        } else if (t.starts_with("new mode")) {
          mode_change = true;
          read_mode(t.substr(8));
        } else if (t.starts_with("rename from ")) {
          rename_from = value("rename from ");
          rename_from_at = i_;
        } else if (t.starts_with("rename to ")) {
          rename_to = value("rename to ");
          rename_to_at = i_;
        } else if (t.starts_with("rename old ")) {
          rename_from = value("rename old ");
          rename_from_at = i_;
        } else if (t.starts_with("rename new ")) {
          rename_to = value("rename new ");
          rename_to_at = i_;
        } else if (t.starts_with("copy from ") || t.starts_with("copy to ")) {
          return unsupported("copies are not supported; use an added file");
        } else if (t.starts_with("Binary files ") || t.starts_with("GIT binary patch")) {
          return unsupported("binary patches are not supported");
        } else if (t.starts_with("index ")) {
          index_line = true;
        } else if (!(t.starts_with("similarity index") || t.starts_with("dissimilarity index"))) {
          // Not a git header line: the entry's headers end here. Unless its
          // `---`/`+++` lines or hunks still follow: then the line is stray.
          if (std::optional<std::size_t> stray = stray_in_file_header(i_))
            return parse_error(lines_[*stray].number,
                               "'+++ <new path>' right after '--- <old path>'", lines_[*stray].text,
                               "git apply and GNU patch read a file header only from "
                               "consecutive '---' and '+++' lines");
          if (headers_go_on_after(i_))
            return parse_error(lines_[i_].number, kExpectedGitHeader, t,
                               "git apply refuses a line that is not a header line between "
                               "'diff --git' and the file's hunks");
          break;
        }
      }
    }
    if (file_header_at(i_)) {
      old_label = label_path(lines_[i_].text.substr(4));
      new_label = label_path(lines_[i_ + 1].text.substr(4));
      old_at = i_;
      new_at = i_ + 1;
      i_ += 2;
      if (i_ < lines_.size() && !lines_[i_].text.starts_with("@@") &&
          !lines_[i_].text.starts_with("diff ") && !file_header_at(i_) &&
          !stray_in_file_header(i_) && headers_go_on_after(i_))
        return parse_error(lines_[i_].number, "a hunk '@@ -<line>,<count> +<line>,<count> @@'",
                           lines_[i_].text,
                           "git apply and GNU patch refuse a line between '+++' and the first "
                           "hunk");
    }
    // An added line that is not text: reported with the path it goes to.
    std::optional<Error> not_text;
    while (i_ < lines_.size() && lines_[i_].text.starts_with("@@")) {
      auto chunk = parse_hunk();
      if (!chunk && chunk.error().kind == ErrorKind::kNotText) {
        not_text = chunk.error();
        break;
      }
      if (!chunk) return chunk.error();
      f.chunks.push_back(std::move(*chunk));
    }

    std::string old_path, new_path;
    if (old_label) {
      old_path = *old_label;
      new_path = *new_label;
    } else if (git_paths) {
      std::tie(old_path, new_path) = *git_paths;
    }
    strip_prefixes(old_path, new_path);
    if (rename_from) {
      old_path = *rename_from;
      old_at = rename_from_at;
    }
    if (rename_to) {
      new_path = *rename_to;
      new_at = rename_to_at;
    }
    const bool old_null = old_path == kDevNull, new_null = new_path == kDevNull;
    if (not_text) {
      not_text->data["path"] = new_null ? old_path : new_path;
      return *not_text;
    }
    if (new_file || old_null) {
      f.action = Action::kAdd;
      f.path = new_null ? old_path : new_path;
      for (const Chunk& c : f.chunks) {
        for (const ChunkLine& l : c.lines) {
          if (l.kind != ChunkLine::Kind::kAdded)
            return parse_error(c.patch_line,
                               "a hunk of only '+' lines for the new file '" + f.path + "'",
                               std::nullopt, "a new file has no old lines");
          f.content.append(l.text);
          f.content.push_back('\n');
        }
      }
      if (!f.chunks.empty() && f.chunks.back().new_no_newline && !f.content.empty())
        f.content.pop_back();
      f.chunks.clear();
    } else if (deleted_file || new_null) {
      f.action = Action::kDelete;
      f.path = old_path;
    } else {
      const bool renamed = rename_from || rename_to;
      if (renamed && old_path != new_path) {
        f.action = Action::kMove;
        f.path = old_path;
        f.move_to = new_path;
      } else {
        // Without a rename, differing names (diff -u x.orig x) update the new one.
        f.action = Action::kUpdate;
        f.path = new_path;
      }
      if (f.chunks.empty() && !renamed && !(mode_change && executable)) {
        if (mode_change) return std::optional<FilePatch>();  // a mode editd cannot give
        std::size_t at = std::min(i_, lines_.size() - 1);
        return parse_error(lines_[at].number,
                           "a hunk '@@ -<line>,<count> +<line>,<count> @@' for '" + f.path + "'",
                           lines_[at].text);
      }
    }
    if (f.action != Action::kDelete) f.executable = executable;
    f.git = git_paths.has_value() && index_line;
    if (f.path.empty())
      return parse_error(f.patch_line, "a file path ('--- a/<path>', '+++ b/<path>')",
                         lines_[f.patch_line - lines_.front().number].text);
    const bool path_is_old = f.action == Action::kDelete || f.action == Action::kMove ||
                             (f.action == Action::kAdd && new_null);
    if (auto ok = check_path(lines_[path_is_old ? old_at : new_at], f.path, path_rule_); !ok)
      return ok.error();
    if (f.move_to)
      if (auto ok = check_path(lines_[new_at], *f.move_to, path_rule_); !ok) return ok.error();
    return std::optional<FilePatch>(std::move(f));
  }

  Result<Chunk> parse_hunk() {
    Chunk c;
    const PatchLine& head = lines_[i_];
    c.patch_line = head.number;
    std::optional<Range> range = hunk_range(head.text);
    if (range) {
      c.old_start = range->old_start;
      c.old_count = range->old_count;
    }
    ++i_;
    std::size_t old_seen = 0, new_seen = 0;
    auto body_line = [&](std::size_t i) {
      std::string_view t = lines_[i].text;
      return !t.empty() && (t[0] == ' ' || t[0] == '+' || t[0] == '-') && !file_header_at(i);
    };
    auto satisfied = [&] {
      return range && old_seen >= range->old_count && new_seen >= range->new_count;
    };
    for (; i_ < lines_.size(); ++i_) {
      std::string_view t = lines_[i_].text;
      if (t.starts_with('\\')) {
        if (c.lines.empty()) continue;
        ChunkLine::Kind k = c.lines.back().kind;
        if (k != ChunkLine::Kind::kAdded) c.old_no_newline = true;
        if (k != ChunkLine::Kind::kRemoved) c.new_no_newline = true;
        continue;
      }
      // The counts, when there are any, end the hunk.
      if (satisfied()) break;
      if (t.starts_with("@@") || t.starts_with("diff ") || file_header_at(i_)) break;
      ChunkLine line;
      if (t.empty()) {
        // An empty context line whose ' ' was lost.
        if (!range && !(i_ + 1 < lines_.size() && body_line(i_ + 1))) break;
        line = {ChunkLine::Kind::kContext, ""};
      } else if (t[0] == ' ' || t[0] == '-' || t[0] == '+') {
        line.kind = t[0] == ' '   ? ChunkLine::Kind::kContext
                    : t[0] == '-' ? ChunkLine::Kind::kRemoved
                                  : ChunkLine::Kind::kAdded;
        line.text = std::string(t.substr(1));
        if (line.kind == ChunkLine::Kind::kAdded) {
          if (auto ok = check_added(lines_[i_], line.text, {}); !ok) return ok.error();
          if (lines_[i_].cr) line.text.push_back('\r');
        }
      } else {
        break;
      }
      c.cr.push_back(lines_[i_].cr);
      const bool old_side = line.kind != ChunkLine::Kind::kAdded;
      const bool new_side = line.kind != ChunkLine::Kind::kRemoved;
      if (range && ((old_side && old_seen == range->old_count) ||
                    (new_side && new_seen == range->new_count)))
        return too_long(head, *range, old_seen, new_seen, i_);
      if (old_side) ++old_seen;
      if (new_side) ++new_seen;
      c.lines.push_back(std::move(line));
    }
    if (range && !satisfied()) {
      // Context lines at the very end of the patch that were trimmed with
      // its trailing blank lines (GNU patch also assumes empty ones): each
      // keeps what follows its ' ', so that a context line of blanks is not
      // read as an empty one (and the chunk placed one line off).
      const std::size_t old_missing = range->old_count - std::min(old_seen, range->old_count);
      const std::size_t new_missing = range->new_count - std::min(new_seen, range->new_count);
      if (i_ == lines_.size() && old_missing == new_missing &&
          old_missing <= trailing_blank_.size()) {
        for (std::size_t k = 0; k < old_missing; ++k) {
          std::string_view t = trailing_blank_[k].text;
          if (t.starts_with(' ')) t.remove_prefix(1);
          c.lines.push_back({ChunkLine::Kind::kContext, std::string(t)});
          c.cr.push_back(trailing_blank_[k].cr);
        }
      } else {
        std::string where = i_ < lines_.size()
                                ? "before line " + std::to_string(lines_[i_].number) + " ends it"
                                : std::string("before the patch ends");
        return counts_error(head, *range, old_seen, new_seen, where);
      }
    } else if (range) {
      // Hunk lines after the counts, maybe past blank lines, mean wrong counts:
      // taking them or leaving them out would both be a guess.
      std::size_t j = i_;
      while (j < lines_.size() && trim(lines_[j].text).empty()) ++j;
      if (j < lines_.size() && continues_hunk(j))
        return too_long(head, *range, old_seen, new_seen, i_);
    }
    if (c.lines.empty())
      return parse_error(
          i_ < lines_.size() ? lines_[i_].number : head.number + 1,
          "hunk lines starting with ' ', '-' or '+' after '" + std::string(head.text) + "'",
          i_ < lines_.size() ? std::optional<std::string_view>(lines_[i_].text) : std::nullopt);
    return c;
  }

  // The hunk at `head` goes on at line `j` past its counts (`old_seen` and
  // `new_seen` lines so far): counts the rest of its body for the error.
  Error too_long(const PatchLine& head, const Range& r, std::size_t old_seen, std::size_t new_seen,
                 std::size_t j) const {
    for (; j < lines_.size(); ++j) {
      std::string_view t = lines_[j].text;
      if (t.starts_with('\\')) continue;
      if (t.empty() || trim(t).empty()) {
        std::size_t k = j;
        while (k < lines_.size() && trim(lines_[k].text).empty()) ++k;
        if (k == lines_.size() || !continues_hunk(k)) break;
        ++old_seen;
        ++new_seen;
        continue;
      }
      if (!continues_hunk(j)) break;
      if (t[0] != '+') ++old_seen;
      if (t[0] != '-') ++new_seen;
    }
    return counts_error(head, r, old_seen, new_seen,
                        "up to line " + std::to_string(lines_[j - 1].number));
  }

  const PatchLines& lines_;
  const PatchLines& trailing_blank_;
  PathRule path_rule_;
  std::size_t i_ = 0;
};

}  // namespace

Result<std::vector<FilePatch>> parse_unified(const PatchLines& lines,
                                             const PatchLines& trailing_blank, PathRule path_rule) {
  return UnifiedParser(lines, trailing_blank, path_rule).run();
}

}  // namespace editd::patch::detail
