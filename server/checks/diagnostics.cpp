#include "server/checks/diagnostics.h"

#include <algorithm>
#include <cctype>

#include "edit/change/diff.h"
#include "edit/text/text.h"

namespace editd::diagnostics {

std::string_view status_name(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kTimeout:
      return "timeout";
    case Status::kFailed:
      return "failed";
  }
  return "failed";
}

namespace {

constexpr std::string_view kFileWord = "{file}";

Error option_error(std::string_view flag, std::string message) {
  return Error(ErrorKind::kInvalidParams, std::string(flag) + " " + std::move(message));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits at s[i...]: their value, and i moved past them; nullopt when none.
std::optional<std::uint64_t> digits(std::string_view s, std::size_t& i) {
  std::size_t start = i;
  std::uint64_t v = 0;
  while (i < s.size() && is_digit(s[i]) && i - start < 12) v = v * 10 + (s[i++] - '0');
  if (i == start || (i < s.size() && is_digit(s[i]))) {
    i = start;
    return std::nullopt;
  }
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A leading "SEVERITY:" (or tsc's "SEVERITY CODE:") taken off `rest`.
std::optional<std::string> take_severity(std::string_view& rest) {
  static const std::pair<const char*, const char*> kWords[] = {
      {"fatal error", "error"}, {"error", "error"}, {"warning", "warning"}, {"note", "info"},
      {"remark", "info"},       {"info", "info"},   {"hint", "hint"}};
  const std::string low = lower(rest.substr(0, 16));
  for (auto [word, severity] : kWords) {
    std::string_view w(word);
    if (!std::string_view(low).starts_with(w)) continue;
    std::size_t i = w.size();
    if (i < rest.size() && rest[i] == ':') {
      rest = trim(rest.substr(i + 1));
      return severity;
    }
    // tsc: "error TS2322: message".
    if (i < rest.size() && rest[i] == ' ') {
      std::size_t j = i + 1;
      while (j < rest.size() && std::isalnum(static_cast<unsigned char>(rest[j]))) ++j;
      if (j > i + 1 && j < rest.size() && rest[j] == ':') {
        rest = trim(rest.substr(j + 1));
        return severity;
      }
    }
  }
  return std::nullopt;
}

// eslint's unix format ends a message with "[Error/rule]" or "[Warning/rule]".
std::optional<std::string> trailing_severity(std::string_view message) {
  if (!message.ends_with(']')) return std::nullopt;
  auto open = message.rfind('[');
  if (open == std::string_view::npos) return std::nullopt;
  std::string tag = lower(message.substr(open + 1));
  if (tag.starts_with("error/") || tag == "error]") return "error";
  if (tag.starts_with("warning/") || tag == "warning]") return "warning";
  return std::nullopt;
}

// A tool's prefix before the path ("vet: ./x.go") is not part of it.
std::string path_of(std::string_view printed) {
  auto sep = printed.rfind(": ");
  return std::string(sep == std::string_view::npos ? printed : printed.substr(sep + 2));
}

struct Located {
  std::string path;
  std::uint64_t line = 0;
  std::optional<std::uint64_t> column;
  std::string_view rest;
};

// PATH:LINE[:COLUMN]: REST or PATH(LINE,COLUMN): REST.
std::optional<Located> locate(std::string_view l) {
  for (std::size_t i = 1; i < l.size(); ++i) {
    if (l[i] == ':') {
      std::size_t j = i + 1;
      auto line = digits(l, j);
      if (!line || j >= l.size() || l[j] != ':') continue;
      Located loc{path_of(l.substr(0, i)), *line, std::nullopt, {}};
      std::size_t k = j + 1;
      if (auto col = digits(l, k); col && k < l.size() && l[k] == ':') {
        loc.column = *col;
        j = k;
      }
      loc.rest = trim(l.substr(j + 1));
      if (loc.rest.empty()) return std::nullopt;
      return loc;
    }
    if (l[i] == '(') {
      std::size_t j = i + 1;
      auto line = digits(l, j);
      if (!line || j >= l.size() || l[j] != ',') continue;
      ++j;
      auto col = digits(l, j);
      if (!col || l.substr(j, 2) != "):") continue;
      return Located{path_of(l.substr(0, i)), *line, *col, trim(l.substr(j + 2))};
    }
  }
  return std::nullopt;
}

std::string_view without_dot_slash(std::string_view p) {
  while (p.starts_with("./")) p.remove_prefix(2);
  return p;
}

// Whether a path a checker printed names the checked file.
bool same_file(std::string_view printed, std::string_view shown, std::string_view absolute) {
  printed = without_dot_slash(printed);
  shown = without_dot_slash(shown);
  if (printed == shown || printed == absolute) return true;
  // A checker run elsewhere may print a longer or shorter relative path.
  if (printed.empty()) return false;
  return absolute.size() > printed.size() && absolute.ends_with(printed) &&
         absolute[absolute.size() - printed.size() - 1] == '/';
}

// Python's "  File "PATH", line N[, in NAME]".
std::optional<std::pair<std::string, std::uint64_t>> python_frame(std::string_view l) {
  l = trim(l);
  if (!l.starts_with("File \"")) return std::nullopt;
  auto close = l.find("\", line ", 6);
  if (close == std::string_view::npos) return std::nullopt;
  std::size_t i = close + 8;
  auto line = digits(l, i);
  if (!line) return std::nullopt;
  return std::pair(std::string(l.substr(6, close - 6)), *line);
}

// "SyntaxError: invalid syntax", "IndentationError: ...", "Sorry: ...".
bool python_error_line(std::string_view l) {
  if (l.empty() || l.front() == ' ') return false;
  auto colon = l.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view name = l.substr(0, colon);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  return name.ends_with("Error") || name.ends_with("Exception") || name == "Sorry";
}

}  // namespace

Result<std::vector<std::string>> split_command(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      auto close = command.find('\'', i + 1);
      if (close == std::string_view::npos)
        return Error(ErrorKind::kInvalidParams, "unclosed ' in the command");
      word += command.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        if (command[j] == '\\' && j + 1 < command.size() &&
            (command[j + 1] == '"' || command[j + 1] == '\\'))
          ++j;
        word += command[j];
      }
      if (j >= command.size())
        return Error(ErrorKind::kInvalidParams, "unclosed \" in the command");
      i = j;
    } else if (c == '\\') {
      if (i + 1 < command.size()) word += command[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

namespace {

// `spec` carries the kind (lsp, format); the rest is filled from `value`.
Result<Spec> parse_into(Spec spec, std::string_view value) {
  const std::string_view flag = option_flag(spec);
  auto eq = value.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return option_error(flag, "takes GLOB=COMMAND, got '" + std::string(value) + "'");
  spec.glob = std::string(value.substr(0, eq));
  spec.option = std::string(value);
  if (expand_braces(spec.glob).size() > kMaxAlternatives)
    return option_error(flag, "'" + std::string(value) + "': the glob has more than " +
                                  std::to_string(kMaxAlternatives) + " {a,b} alternatives");
  auto argv = split_command(value.substr(eq + 1));
  if (!argv) return option_error(flag, "'" + std::string(value) + "': " + argv.error().message);
  if (argv->empty()) return option_error(flag, "'" + std::string(value) + "' has no command");
  if (spec.format && (*argv)[0] == kLspFormatter && argv->size() > 1)
    return option_error(flag, "'" + std::string(value) + "': " + std::string(kLspFormatter) +
                                  " stands alone (the --lsp server that covers the file "
                                  "formats it, as that --lsp starts it)");
  // A language server is never given a file's name on its command line.
  if (!spec.lsp) {
    for (std::size_t i = 0; i < argv->size(); ++i) {
      const std::string& w = (*argv)[i];
      if (w.find(kFileWord) == std::string::npos) continue;
      if (i == 0)
        return option_error(flag,
                            "'" + std::string(value) +
                                "': {file} cannot be the program: a client's file is never run");
      if (w != kFileWord)
        return option_error(
            flag,
            "'" + std::string(value) + "': {file} must be a whole word, got '" + w +
                "': a file's name is never pasted into other text (in a shell script, pass it "
                "as a parameter: sh -c '... \"$1\" ...' sh {file})");
    }
  }
  spec.argv = std::move(*argv);
  return spec;
}

}  // namespace

Result<Spec> parse_spec(std::string_view value, bool lsp) {
  Spec spec;
  spec.lsp = lsp;
  return parse_into(std::move(spec), value);
}

Result<Spec> parse_format_spec(std::string_view value) {
  Spec spec;
  spec.format = true;
  return parse_into(std::move(spec), value);
}

bool by_lsp(const Spec& spec) {
  return spec.format && spec.argv.size() == 1 && spec.argv[0] == kLspFormatter;
}

std::string_view option_flag(const Spec& spec) {
  return spec.format ? "--format" : spec.lsp ? "--lsp" : "--check";
}

std::string argument_path(std::string_view file) {
  if (file.starts_with('/')) return std::string(file);
  return "./" + std::string(file);
}

std::vector<std::string> substitute(const std::vector<std::string>& argv, std::string_view file) {
  std::vector<std::string> out;
  for (const std::string& w : argv) out.push_back(w == kFileWord ? argument_path(file) : w);
  return out;
}

std::vector<std::string> expand_braces(std::string_view glob) {
  // The first '{' with its matching '}' and top-level commas.
  std::size_t open = std::string_view::npos;
  int depth = 0;
  std::vector<std::size_t> commas;
  for (std::size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '{') {
      if (depth++ == 0) {
        open = i;
        commas.clear();
      }
    } else if (c == ',' && depth == 1) {
      commas.push_back(i);
    } else if (c == '}' && depth > 0 && --depth == 0) {
      std::vector<std::string> out;
      std::size_t from = open + 1;
      commas.push_back(i);
      for (std::size_t to : commas) {
        if (out.size() > kMaxAlternatives) break;  // parse_spec refuses such a glob
        std::string alt = std::string(glob.substr(0, open)) +
                          std::string(glob.substr(from, to - from)) +
                          std::string(glob.substr(i + 1));
        for (std::string& e : expand_braces(alt)) out.push_back(std::move(e));
        from = to + 1;
      }
      return out;
    }
  }
  return {std::string(glob)};
}

namespace {

// `[...]` at g[gi] against c: whether it matches, and gi moved past it; an
// unclosed '[' is a literal.
bool match_set(std::string_view g, std::size_t& gi, char c, bool& ok) {
  std::size_t i = gi + 1;
  bool negate = i < g.size() && (g[i] == '!' || g[i] == '^');
  if (negate) ++i;
  std::size_t first = i;
  bool hit = false;
  for (; i < g.size() && (g[i] != ']' || i == first); ++i) {
    if (i + 2 < g.size() && g[i + 1] == '-' && g[i + 2] != ']') {
      hit |= g[i] <= c && c <= g[i + 2];
      i += 2;
    } else {
      hit |= g[i] == c;
    }
  }
  if (i >= g.size()) return false;  // no ']': not a set
  gi = i + 1;
  ok = (hit != negate) && c != '/';
  return true;
}

bool match_here(std::string_view g, std::string_view p) {
  std::size_t gi = 0, pi = 0;
  while (gi < g.size()) {
    char c = g[gi];
    if (c == '*') {
      bool deep = gi + 1 < g.size() && g[gi + 1] == '*';
      std::size_t next = gi + (deep ? 2 : 1);
      // "**/" also matches no directory at all.
      if (deep && next < g.size() && g[next] == '/' && match_here(g.substr(next + 1), p.substr(pi)))
        return true;
      for (std::size_t k = pi;; ++k) {
        if (match_here(g.substr(next), p.substr(k))) return true;
        if (k >= p.size() || (!deep && p[k] == '/')) return false;
      }
    }
    if (pi >= p.size()) return false;
    if (c == '?') {
      if (p[pi] == '/') return false;
      ++gi;
      ++pi;
      continue;
    }
    if (c == '[') {
      bool ok = false;
      std::size_t at = gi;
      if (match_set(g, at, p[pi], ok)) {
        if (!ok) return false;
        gi = at;
        ++pi;
        continue;
      }
    }
    if (c == '\\' && gi + 1 < g.size()) c = g[++gi];
    if (c != p[pi]) return false;
    ++gi;
    ++pi;
  }
  return pi == p.size();
}

}  // namespace

bool glob_matches(std::string_view glob, std::string_view path) {
  path = without_dot_slash(path);
  for (const std::string& g : expand_braces(glob)) {
    std::string_view gv = without_dot_slash(g);
    if (gv.find('/') == std::string_view::npos) {
      auto slash = path.rfind('/');
      if (match_here(gv, slash == std::string_view::npos ? path : path.substr(slash + 1)))
        return true;
    } else if (match_here(gv, path)) {
      return true;
    }
  }
  return false;
}

std::vector<Diagnostic> parse_output(std::string_view output, std::string_view shown,
                                     std::string_view absolute, const std::string& source,
                                     bool failed, std::size_t* dropped) {
  std::vector<Diagnostic> out;
  std::size_t extra = 0;
  auto add = [&](Diagnostic d) {
    if (out.size() < kMaxDiagnostics)
      out.push_back(std::move(d));
    else
      ++extra;
  };
  auto lines = text::split_lines(output);
  // A Python frame waiting for its error line.
  std::optional<std::pair<std::string, std::uint64_t>> frame;
  bool parsed = false;
  for (std::string_view raw : lines) {
    std::string_view l = trim(raw);
    if (l.empty()) continue;
    if (auto f = python_frame(raw)) {
      frame = std::move(f);
      continue;
    }
    if (frame && python_error_line(l)) {
      Diagnostic d;
      if (!same_file(frame->first, shown, absolute)) d.file = frame->first;
      d.line = frame->second;
      d.severity = "error";
      d.message = std::string(l);
      d.source = source;
      add(std::move(d));
      frame.reset();
      parsed = true;
      continue;
    }
    if (l.starts_with("In file included from ") || l.starts_with("from ")) continue;
    auto loc = locate(l);
    if (!loc) continue;
    Diagnostic d;
    if (!same_file(loc->path, shown, absolute)) d.file = loc->path;
    d.line = loc->line;
    d.column = loc->column;
    std::string_view rest = loc->rest;
    auto severity = take_severity(rest);
    if (!severity) severity = trailing_severity(rest);
    d.severity = severity.value_or("error");
    d.message = std::string(rest);
    d.source = source;
    add(std::move(d));
    parsed = true;
  }
  if (!parsed && failed) {
    std::string_view all = trim(output);
    while (!all.empty() && (all.front() == '\n' || all.front() == '\r')) all.remove_prefix(1);
    while (!all.empty() && (all.back() == '\n' || all.back() == '\r')) all.remove_suffix(1);
    Diagnostic d;
    d.severity = "error";
    d.message = all.empty() ? std::string("the check failed with no output") : std::string(all);
    d.source = source;
    add(std::move(d));
  }
  if (dropped) *dropped = extra;
  return out;
}

std::vector<Diagnostic> introduced(const std::vector<Diagnostic>& before,
                                   const std::vector<Diagnostic>& after, std::string_view old_text,
                                   std::string_view new_text) {
  const std::string a_text = text::normalize_eol(old_text), b_text = text::normalize_eol(new_text);
  const auto a = text::split_lines(a_text), b = text::split_lines(b_text);
  const auto blocks = diff::diff_lines(a, b);
  // Whether old line `from` (1-based) lands on new line `to` through the diff.
  auto maps = [&](std::uint64_t from, std::uint64_t to) {
    const std::size_t x = from - 1, y = to - 1;
    std::ptrdiff_t shift = 0;
    for (const diff::Block& blk : blocks) {
      if (x < blk.a_begin) break;
      // A changed line lands anywhere in its block's replacement (on the line
      // after it when the block only removed lines).
      if (x < blk.a_end) return y >= blk.b_begin && y < std::max(blk.b_end, blk.b_begin + 1);
      shift = static_cast<std::ptrdiff_t>(blk.b_end) - static_cast<std::ptrdiff_t>(blk.a_end);
    }
    return static_cast<std::ptrdiff_t>(x) + shift == static_cast<std::ptrdiff_t>(y);
  };
  std::vector<bool> used(before.size(), false);
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : after) {
    bool found = false;
    for (std::size_t i = 0; i < before.size() && !found; ++i) {
      const Diagnostic& o = before[i];
      if (used[i] || o.file != d.file || o.severity != d.severity || o.source != d.source ||
          o.message != d.message || o.line.has_value() != d.line.has_value())
        continue;
      bool same_place = !d.line || (d.file ? *o.line == *d.line : maps(*o.line, *d.line));
      if (same_place) used[i] = found = true;
    }
    if (!found) out.push_back(d);
  }
  return out;
}

}  // namespace editd::diagnostics
