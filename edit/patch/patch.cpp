#include "edit/patch/patch.h"

#include <cctype>
#include <set>

#include "edit/patch/syntax.h"
#include "edit/text/text.h"

namespace editd::patch {

namespace detail {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A found line in a message: quoted, and cut when long.
std::string quote(std::string_view s) {
  constexpr std::size_t kMax = 120;
  std::string out = "'";
  out.append(s.substr(0, kMax));
  if (s.size() > kMax) out.append("...");
  out.push_back('\'');
  return out;
}

}  // namespace

Error parse_error(std::size_t line, std::string_view expected,
                  std::optional<std::string_view> found, std::string_view why) {
  std::string message =
      "invalid patch at line " + std::to_string(line) + ": expected " + std::string(expected);
  nlohmann::json data = {{"line", line}, {"expected", expected}};
  if (found) {
    message += ", found " + quote(*found);
    data["found"] = *found;
  }
  if (!why.empty()) message += " (" + std::string(why) + ")";
  return Error(ErrorKind::kPatchParse, std::move(message), std::move(data));
}

std::string_view trim_end(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = trim_end(s);
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

Result<void> check_path(const PatchLine& line, std::string_view path, PathRule rule) {
  std::optional<std::string> problem = rule(path);
  if (!problem && !text::is_valid_utf8(path)) problem = "must be valid UTF-8";
  if (!problem) return {};
  return parse_error(line.number, "a file path (not empty, UTF-8, without NUL bytes)", line.text,
                     "the path " + *problem);
}

Result<void> check_added(const PatchLine& line, std::string_view text, std::string_view path) {
  auto ok = text::check_text(text, "the line added at patch line " + std::to_string(line.number));
  if (ok) return {};
  Error e = ok.error();
  e.message += "; nothing was written";
  e.data["line"] = line.number;
  e.data["path"] = path;
  return e;
}

}  // namespace detail

namespace {

using detail::parse_error;
using detail::PatchLine;
using detail::PatchLines;
using detail::trim;

constexpr std::string_view kBeginPatch = "*** Begin Patch";
constexpr std::string_view kEndPatch = "*** End Patch";
constexpr std::string_view kExpectedStart =
    "'*** Begin Patch' or a unified diff ('--- a/<path>', '+++ b/<path>', '@@ ... @@')";

bool blank(const PatchLine& l) { return trim(l.text).empty(); }

// The delimiter of a heredoc opener such as `<<'EOF'`, `<<"EOF"`, `<<EOF` or
// `apply_patch <<'EOF'` (the delimiter ends the line); empty if `line` is none.
std::string_view heredoc_delimiter(std::string_view line) {
  std::size_t at = line.find("<<");
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + 2);
  if (rest.starts_with('-')) rest.remove_prefix(1);
  rest = trim(rest);
  char quote = 0;
  if (rest.starts_with('\'') || rest.starts_with('"')) {
    quote = rest.front();
    rest.remove_prefix(1);
  }
  std::size_t n = 0;
  while (n < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[n])) || rest[n] == '_'))
    ++n;
  if (n == 0) return {};
  std::string_view after = rest.substr(n);
  if (quote) {
    if (!after.starts_with(quote)) return {};
    after.remove_prefix(1);
  }
  if (!trim(after).empty()) return {};
  return rest.substr(0, n);
}

bool looks_unified(const PatchLines& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = lines[i].text;
    if (t.starts_with("diff --git ") || t.starts_with("@@ -")) return true;
    if (t.starts_with("--- ") && i + 1 < lines.size() && lines[i + 1].text.starts_with("+++ "))
      return true;
  }
  return false;
}

}  // namespace

std::string_view format_name(Format format) {
  return format == Format::kCodex ? "codex" : "unified";
}

std::string_view action_name(Action action) {
  switch (action) {
    case Action::kAdd:
      return "add";
    case Action::kDelete:
      return "delete";
    case Action::kUpdate:
      return "update";
    case Action::kMove:
      return "move";
  }
  return "update";
}

Result<Patch> parse(std::string_view text, PathRule path_problem) {
  PatchLines all;
  for (std::string_view l : text::split_lines(text)) {
    const bool cr = l.ends_with('\r');
    if (cr) l.remove_suffix(1);
    all.push_back({l, all.size() + 1, cr});
  }

  std::size_t b = 0, e = all.size();
  auto trim_blank_ends = [&] {
    while (b < e && blank(all[b])) ++b;
    while (e > b && blank(all[e - 1])) --e;
  };
  trim_blank_ends();
  if (b == e) return parse_error(1, kExpectedStart, std::nullopt, "the patch is empty");

  // A heredoc wrapper, as in `apply_patch <<'EOF'` ... `EOF`, then a Markdown fence.
  if (std::string_view delim = heredoc_delimiter(trim(all[b].text)); !delim.empty()) {
    if (e - b < 2 || !trim(all[e - 1].text).ends_with(delim))
      return parse_error(all[e - 1].number,
                         "the heredoc terminator '" + std::string(delim) + "' as the last line",
                         all[e - 1].text);
    ++b;
    --e;
    trim_blank_ends();
  }
  if (e - b >= 2 && trim(all[b].text).starts_with("```") && trim(all[e - 1].text) == "```") {
    ++b;
    --e;
    trim_blank_ends();
  }
  if (b == e)
    return parse_error(all[b - 1].number + 1, kExpectedStart, std::nullopt, "the patch is empty");

  PatchLines lines(all.begin() + b, all.begin() + e);
  Patch patch;
  if (trim(lines.front().text) == kBeginPatch) {
    patch.format = Format::kCodex;
    if (lines.size() < 2 || trim(lines.back().text) != kEndPatch)
      return parse_error(lines.back().number, "'*** End Patch' as the last line",
                         lines.back().text);
    auto files = detail::parse_codex(lines, path_problem);
    if (!files) return files.error();
    patch.files = std::move(*files);
    return patch;
  }
  if (looks_unified(lines)) {
    patch.format = Format::kUnified;
    std::size_t t = e;
    while (t < all.size() && blank(all[t])) ++t;
    auto files =
        detail::parse_unified(lines, PatchLines(all.begin() + e, all.begin() + t), path_problem);
    if (!files) return files.error();
    patch.files = std::move(*files);
    return patch;
  }
  for (const PatchLine& l : lines)
    if (trim(l.text) == kBeginPatch)
      return parse_error(lines.front().number, "'*** Begin Patch' as the first line",
                         lines.front().text);
  return parse_error(lines.front().number, kExpectedStart, lines.front().text);
}

std::vector<std::string> touched_paths(const Patch& patch) {
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  auto add = [&](const std::string& p) {
    if (seen.insert(p).second) out.push_back(p);
  };
  for (const FilePatch& f : patch.files) {
    add(f.path);
    if (f.move_to) add(*f.move_to);
  }
  return out;
}

}  // namespace editd::patch
