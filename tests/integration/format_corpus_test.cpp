// A corpus of format-aware edits (--format, issue 56) through the real binary
// and the real formatters (black, clang-format, prettier): realistic files of
// tests/integration/format_corpus/, written against each formatter's style so
// that it would change most of their lines, and a deterministic sample of
// edits of several shapes on each (a line respaced or reworded, split into
// several, inserted, deleted, a region replaced, the first and the last line,
// a long call). After each edit, whatever the formatter did:
//   (a) the file on disk is the model's text (the original with the reply's
//       `diff`) with `formatted.diff` applied, and each run of lines that diff
//       changes meets or touches the lines the model's call changed: no byte
//       outside the edit's hunks changes;
//   (b) the file parses when the model's text did (Python: ast; TypeScript:
//       prettier reports no syntax error; C++: brackets balance outside
//       strings and comments), and its words (identifiers, numbers) are the
//       model's text's, give or take those the formatter itself adds or drops
//       on the whole text: a line lost or written twice shows there;
//   (c) a single line replaced by one, whose words one line alone holds in the
//       model's text, on disk and in the formatter's own output for the whole
//       model text (the formatter did not rewrap it), reads as that output's
//       line. Edits where this is not well defined are counted and printed.
// Each file is written back with format: false between edits, so every edit
// starts from the corpus file as it is stored.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "helpers/process.h"
#include "helpers/unified_diff.h"

namespace editd::test::format_corpus {
namespace {

const std::string kCorpusDir = EDITD_SOURCE_DIR "/tests/integration/format_corpus/";
const std::string kPrettier =
    EDITD_SOURCE_DIR "/tests/clients/formatters/node_modules/.bin/prettier";

enum class Lang { kPython, kCpp, kTs };

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines, std::size_t begin, std::size_t end) {
  std::string out;
  for (std::size_t i = begin; i < end; ++i) out += lines[i] + "\n";
  return out;
}

std::string read_corpus(const std::string& name) {
  std::ifstream in(kCorpusDir + name, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "no corpus file " << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A run of changed lines of a unified diff, 0-based: old lines [ob, ob + oc)
// became new lines [nb, nb + nc) (oc = 0: inserted before old line ob).
struct DiffRun {
  std::size_t ob = 0, oc = 0, nb = 0, nc = 0;
};

std::vector<DiffRun> diff_runs(const std::string& diff) {
  std::vector<DiffRun> runs;
  std::size_t o = 0, n = 0;
  bool in_run = false, in_hunk = false;
  std::istringstream in(diff);
  for (std::string row; std::getline(in, row);) {
    if (row.starts_with("@@")) {
      unsigned os = 0, oc = 1, ns = 0, nc = 1;
      if (std::sscanf(row.c_str(), "@@ -%u,%u +%u", &os, &oc, &ns) != 3) {
        oc = 1;
        std::sscanf(row.c_str(), "@@ -%u +%u", &os, &ns);
      }
      if (std::sscanf(row.c_str(), "@@ -%*u,%*u +%*u,%u", &nc) != 1 &&
          std::sscanf(row.c_str(), "@@ -%*u +%*u,%u", &nc) != 1)
        nc = 1;
      o = oc == 0 ? os : os - 1;
      n = nc == 0 ? ns : ns - 1;
      in_hunk = true;
      in_run = false;
      continue;
    }
    if (!in_hunk || row.starts_with("\\")) continue;
    const char kind = row.empty() ? ' ' : row[0];
    if (kind == ' ') {
      ++o, ++n;
      in_run = false;
      continue;
    }
    if (!in_run) runs.push_back({o, 0, n, 0});
    in_run = true;
    if (kind == '-') ++o, ++runs.back().oc;
    if (kind == '+') ++n, ++runs.back().nc;
  }
  return runs;
}

// The words of a text: maximal runs of letters, digits, '_' and non-ASCII
// bytes, counted.
std::map<std::string, long> word_counts(const std::string& text) {
  std::map<std::string, long> counts;
  std::string word;
  for (char c : text + " ") {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u) || c == '_') {
      word += c;
    } else if (!word.empty()) {
      ++counts[word];
      word.clear();
    }
  }
  return counts;
}

// A line's words run together, as format_scope pairs lines.
std::string word_key(const std::string& line) {
  std::string key;
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u) || c == '_') key += c;
  }
  return key;
}

// Whether the brackets of C++ code balance, outside comments, string and
// character literals.
bool brackets_balance(const std::string& text) {
  std::string stack;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i = text.find("*/", i + 2);
      if (i == std::string::npos) return false;
      ++i;
    } else if (c == '"' || c == '\'') {
      for (++i; i < text.size() && text[i] != c; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      stack += c;
    } else if (c == ')' || c == ']' || c == '}') {
      const char open = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (stack.empty() || stack.back() != open) return false;
      stack.pop_back();
    }
  }
  return stack.empty();
}

struct Language {
  Lang lang;
  std::string name;
  std::string format;                   // the --format option
  std::vector<std::string> files;       // in format_corpus/
  std::string top_line;                 // a line to insert at the top
  std::string bottom_line;              // a line to append
  std::vector<std::string> formatter;   // argv, as editd runs it (with {file} as %)
};

// What the formatter alone writes for `text` (the whole file) at `shown`
// ("./src/x.py"), run in `root` as editd runs it; nullopt when it fails (for
// prettier: the text does not parse).
std::optional<std::string> formatter_output(const Language& l, const TempDir& root,
                                            const std::string& shown, const std::string& text) {
  std::vector<std::string> argv;
  for (const std::string& a : l.formatter) argv.push_back(a == "%" ? shown : a);
  const std::string program = argv[0];
  argv.erase(argv.begin());
  Run r = run_program(program, argv, root.str(), text);
  if (r.code != 0) return std::nullopt;
  return r.out;
}

bool parses(const Language& l, const TempDir& root, const std::string& shown,
            const std::string& text) {
  switch (l.lang) {
    case Lang::kPython:
      return run_program("/usr/bin/env",
                         {"python3", "-c", "import ast,sys; ast.parse(sys.stdin.read())"}, "",
                         text)
                 .code == 0;
    case Lang::kCpp:
      return brackets_balance(text);
    case Lang::kTs:
      return formatter_output(l, root, shown, text).has_value();
  }
  return false;
}

// The 0-based lines of `text` that are a whole statement on one line, where a
// copy of the statement or a respaced one stays in the same context.
std::vector<std::size_t> statement_lines(const Language& l, const std::vector<std::string>& lines,
                                         const std::string& text) {
  std::vector<std::size_t> out;
  if (l.lang == Lang::kPython) {
    Run r = run_program(
        "/usr/bin/env",
        {"python3", "-c",
         "import ast,sys\n"
         "compound=(ast.FunctionDef,ast.AsyncFunctionDef,ast.ClassDef,ast.If,ast.For,ast.While,"
         "ast.With,ast.Try)\n"
         "for n in ast.walk(ast.parse(sys.stdin.read())):\n"
         "  if isinstance(n,ast.stmt) and not isinstance(n,compound) and n.lineno==n.end_lineno:"
         " print(n.lineno)\n"},
        "", text);
    REQUIRE(r.code == 0);
    std::set<std::size_t> seen;
    std::istringstream in(r.out);
    for (std::size_t n; in >> n;) seen.insert(n - 1);
    out.assign(seen.begin(), seen.end());
    return out;
  }
  auto trimmed = [&](std::size_t i) {
    const std::string& s = lines[i];
    const std::size_t b = s.find_first_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t") + 1 - b);
  };
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string t = trimmed(i);
    if (t.empty() || !t.ends_with(';') || t.starts_with('#') || t.starts_with("//") ||
        t.starts_with("for"))
      continue;
    if (std::count(t.begin(), t.end(), '(') != std::count(t.begin(), t.end(), ')')) continue;
    std::size_t p = i - 1;
    while (p > 0 && trimmed(p).empty()) --p;
    const std::string prev = trimmed(p);
    if (prev.empty() || prev.ends_with(';') || prev.ends_with('{') || prev.ends_with('}') ||
        prev.starts_with("//"))
      out.push_back(i);
  }
  return out;
}

// Where a line's code ends: before a comment outside strings.
std::size_t code_end(const Language& l, const std::string& line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' || c == '\'' || c == '`') {
      for (++i; i < line.size() && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
    } else if (l.lang == Lang::kPython ? c == '#'
                                       : c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
      return i;
    }
  }
  return line.size();
}

// `line` respaced against the formatter's style, its words kept: no space
// around " = " or after ",", one inside each non-empty pair of parentheses,
// Python's and TypeScript's double-quoted strings single-quoted. Strings,
// comments, the indentation and C++ preprocessor lines stay (but for the
// spaces after the directive).
std::string respace(const Language& l, const std::string& line) {
  const std::size_t indent = line.find_first_not_of(" \t");
  if (indent == std::string::npos) return line;
  std::string out = line.substr(0, indent);
  const std::string body = line.substr(indent);
  if (l.lang == Lang::kCpp && body.starts_with('#')) {
    const std::size_t sp = body.find(' ');
    return sp == std::string::npos ? line + "  " : out + body.substr(0, sp) + "   " + body.substr(sp + 1);
  }
  const std::size_t end = code_end(l, body);
  for (std::size_t i = 0; i < end; ++i) {
    const char c = body[i];
    if (c == '"' || c == '\'' || c == '`') {
      std::size_t j = i + 1;
      bool plain = true;
      for (; j < end && body[j] != c; ++j)
        if (body[j] == '\\' || body[j] == '\'' || body[j] == '"') plain = false, ++j;
      const std::string content = body.substr(i + 1, j - i - 1);
      if (c == '"' && plain && l.lang != Lang::kCpp) out += "'" + content + "'";
      else out += body.substr(i, j - i + 1);
      i = j;
    } else if (body.compare(i, 3, " = ") == 0) {
      out += "=";
      i += 2;
    } else if (c == ',' && i + 1 < end && body[i + 1] == ' ') {
      out += ",";
      ++i;
    } else if (c == '(' && i + 1 < end && body[i + 1] != ')' && body[i + 1] != ' ') {
      out += "( ";
    } else if (c == ')' && i > 0 && body[i - 1] != '(' && body[i - 1] != ' ') {
      out += " )";
    } else {
      out += c;
    }
  }
  out += body.substr(end);
  if (out == line) out += "  ";  // nothing to respace: trailing spaces the formatter drops
  return out;
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `line` with one word changed, outside strings: its first number (0 becomes
// 1, others gain a digit), else the name assigned (before the first lone
// "="), everywhere on the line, with "_b"; unchanged when it has neither.
std::string reword(const Language& l, const std::string& line) {
  const std::size_t end = code_end(l, line);
  for (std::size_t i = 0; i < end; ++i) {
    const char c = line[i];
    if (c == '"' || c == '\'' || c == '`') {
      for (++i; i < end && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
      continue;
    }
    if (l.lang == Lang::kCpp && c == '#') return line;
    if (std::isdigit(static_cast<unsigned char>(c)) && (i == 0 || (!word_char(line[i - 1]) && line[i - 1] != '.'))) {
      std::size_t j = i;
      while (j < end && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (c == '0') return line.substr(0, i) + "1" + line.substr(i + 1);
      return line.substr(0, j) + "1" + line.substr(j);
    }
  }
  for (std::size_t i = 0; i < end; ++i) {
    if (line[i] != '=' || (i + 1 < end && (line[i + 1] == '=' || line[i + 1] == '>')) ||
        (i > 0 && std::string("=!<>+-*/%&|^:").find(line[i - 1]) != std::string::npos))
      continue;
    std::size_t e = i;
    while (e > 0 && line[e - 1] == ' ') --e;
    std::size_t b = e;
    while (b > 0 && word_char(line[b - 1])) --b;
    if (b == e || std::isdigit(static_cast<unsigned char>(line[b]))) return line;
    const std::string w = line.substr(b, e - b);
    std::string out;
    for (std::size_t k = 0; k < line.size();) {
      if (line.compare(k, w.size(), w) == 0 && (k == 0 || !word_char(line[k - 1])) &&
          (k + w.size() == line.size() || !word_char(line[k + w.size()]))) {
        out += w + "_b";
        k += w.size();
      } else {
        out += line[k++];
      }
    }
    return out;
  }
  return line;
}

// `line` broken after its first commas inside brackets (outside strings),
// the lines after indented oddly: what a model writes when it wraps by hand.
std::vector<std::string> split_at_commas(const Language& l, const std::string& line) {
  std::vector<std::string> out;
  const std::size_t indent = line.find_first_not_of(" \t");
  const std::size_t end = code_end(l, line);
  if (indent == std::string::npos || (line[indent] == '#' && l.lang == Lang::kCpp)) return {line};
  int depth = 0, breaks = 0;
  std::size_t from = 0;
  for (std::size_t i = indent; i < end && breaks < 2; ++i) {
    const char c = line[i];
    if (c == '"' || c == '\'' || c == '`') {
      for (++i; i < end && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth > 0) {
      out.push_back(line.substr(from, i + 1 - from));
      from = i + 1;
      while (from < line.size() && line[from] == ' ') ++from;
      ++breaks;
    }
  }
  if (out.empty()) return {line};
  out.push_back(line.substr(from));
  for (std::size_t k = 1; k < out.size(); ++k)
    out[k] = line.substr(0, indent) + std::string(k == 1 ? 7 : 3, ' ') + out[k];
  return out;
}

// One edit: lines [first, first + count) of the original become `lines`.
struct Edit {
  std::string shape;
  std::size_t first = 0, count = 0;
  std::vector<std::string> lines;
  bool anchored = false;  // by edit_lines (else str_replace, or insert)
};

std::vector<Edit> sample_edits(const Language& l, const std::vector<std::string>& lines,
                               const std::string& text, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<std::size_t> stmts = statement_lines(l, lines, text);
  REQUIRE(stmts.size() > 5);
  auto pick = [&]() { return stmts[rng() % stmts.size()]; };
  std::vector<Edit> edits;
  const std::size_t last = lines.size() - 1;
  const bool comment = lines[0].starts_with(l.lang == Lang::kPython ? "#" : "//");
  edits.push_back(
      {"first line", 0, 1, {reword(l, respace(l, lines[0])) + (comment ? " (edited)" : "")}});
  edits.push_back({"insert at the top", 0, 0, {l.top_line}});
  edits.push_back({"last line", last, 1, {reword(l, respace(l, lines[last]))}});
  edits.push_back({"append", last + 1, 0, {l.bottom_line}});
  std::size_t longest = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].size() > lines[longest].size()) longest = i;
  edits.push_back({"long call respaced", longest, 1, {respace(l, lines[longest])}});
  edits.push_back({"long call reworded, wrapped", longest, 1,
                   split_at_commas(l, reword(l, respace(l, lines[longest])))});
  static const char* kShapes[] = {"respace", "reword", "split", "insert", "delete", "region"};
  for (int k = 0; k < 3; ++k) {
    const std::string shape = kShapes[rng() % 6];
    const std::size_t at = pick();
    Edit e{shape, at, 1, {}};
    if (shape == "respace") e.lines = {respace(l, lines[at])};
    if (shape == "reword") e.lines = {reword(l, respace(l, lines[at]))};
    if (shape == "split") e.lines = split_at_commas(l, respace(l, lines[at]));
    if (shape == "insert") e = {shape, at + 1, 0, {reword(l, respace(l, lines[at]))}};
    if (shape == "delete") e.lines = {};
    if (shape == "region") {
      e.count = std::min<std::size_t>(2 + rng() % 3, lines.size() - at);
      for (std::size_t i = at; i < at + e.count; ++i)
        e.lines.push_back(i == at ? reword(l, respace(l, lines[i])) : respace(l, lines[i]));
    }
    edits.push_back(std::move(e));
  }
  for (std::size_t i = 0; i < edits.size(); ++i) edits[i].anchored = rng() % 3 == 0;
  return edits;
}

struct Tally {
  int edits = 0, formatted = 0, parse_checked = 0, parse_na = 0, line_checked = 0,
      line_undefined = 0;
  std::map<std::string, int> statuses;
  std::vector<std::string> undefined;
};

// Runs `e` on `path` (the original `before`) through `p`, then checks (a),
// (b) and (c).
void run_edit(const Language& l, Process& p, const TempDir& root, const std::string& path,
              const std::string& before, const Edit& e, Tally& tally) {
  const std::vector<std::string> lines = split_lines(before);
  std::vector<std::string> model_lines(lines.begin(), lines.begin() + e.first);
  model_lines.insert(model_lines.end(), e.lines.begin(), e.lines.end());
  model_lines.insert(model_lines.end(), lines.begin() + e.first + e.count, lines.end());
  const std::string model = join_lines(model_lines, 0, model_lines.size());
  const std::string old_text = join_lines(lines, e.first, e.first + e.count);
  const std::string new_text = join_lines(e.lines, 0, e.lines.size());
  INFO(l.name << " " << path << ": " << e.shape << " at line " << e.first + 1 << ", "
       << e.count << " line(s) -> " << e.lines.size() << ":\n" << new_text);
  if (model == before) return;  // nothing to change

  p.ok("write_text", {{"path", path}, {"content", before}, {"format", false}});
  json r;
  if (e.count == 0) {
    r = p.ok("insert", {{"path", path}, {"line", e.first}, {"text", new_text}});
  } else {
    std::size_t found = 0;
    for (std::size_t at = before.find(old_text); at != std::string::npos;
         at = before.find(old_text, at + 1))
      ++found;
    if (!e.anchored && found == 1) {
      r = p.ok("str_replace", {{"path", path}, {"oldText", old_text}, {"newText", new_text}});
    } else {
      const json view = p.ok("read_text", {{"path", path},
                                          {"line", e.first + 1},
                                          {"limit", e.count},
                                          {"format", "hashline"}});
      const std::vector<std::string> rows = split_lines(view["content"]);
      REQUIRE(rows.size() == e.count);
      auto anchor = [](const std::string& row) { return row.substr(0, row.find('|')); };
      json edit = {{"replace", {{"start", anchor(rows.front())}, {"end", anchor(rows.back())}}},
                   {"newText", new_text}};
      r = p.ok("edit_lines", {{"path", path}, {"edits", json::array({edit})}});
    }
  }
  INFO("reply: " << r.dump());
  ++tally.edits;
  const std::string status = r.value("formatStatus", "(none)");
  ++tally.statuses[status];
  const std::string disk = root.read(path);
  INFO("on disk:\n" << disk);

  // (a) The model's text, then the formatter's hunks, which meet its lines.
  REQUIRE(apply_unified_diff(before, r["diff"]) == model);
  if (r.contains("formatted")) {
    ++tally.formatted;
    CHECK(status == "ok");
    const std::string fdiff = r["formatted"]["diff"];
    CHECK(apply_unified_diff(model, fdiff) == disk);
    const std::vector<DiffRun> changed = diff_runs(r["diff"]);
    for (const DiffRun& f : diff_runs(fdiff)) {
      bool meets = false;
      for (const DiffRun& c : changed)
        meets = meets || (f.ob <= c.nb + c.nc && c.nb <= f.ob + f.oc);
      CHECK_MESSAGE(meets, "the formatter's lines " << f.ob + 1 << "-" << f.ob + f.oc
                                                    << " of the model's text are not the edit's");
    }
    // Every line the formatter wrote is among the reply's formatted lines.
    for (const DiffRun& f : diff_runs(fdiff))
      for (std::size_t n = f.nb; n < f.nb + f.nc; ++n) {
        bool listed = false;
        for (const json& range : r["formatted"]["lines"])
          listed = listed || (range["startLine"].get<std::size_t>() <= n + 1 &&
                              n + 1 <= range["endLine"].get<std::size_t>());
        CHECK_MESSAGE(listed, "line " << n + 1 << " is formatted but not in formatted.lines");
      }
  } else {
    CHECK(disk == model);
  }

  // (b) It parses when the model's text did, and keeps the model's words.
  const std::string shown = "./" + path;
  const std::optional<std::string> whole = formatter_output(l, root, shown, model);
  // The formatter formats what it can format: a failure is the model's text's.
  if (whole) CHECK(status == "ok");
  const bool model_parses = l.lang == Lang::kTs ? whole.has_value() : parses(l, root, shown, model);
  if (model_parses) {
    ++tally.parse_checked;
    if (disk != model) CHECK_MESSAGE(parses(l, root, shown, disk), "the file no longer parses");
  } else {
    ++tally.parse_na;
  }
  if (whole) {
    const auto m = word_counts(model), d = word_counts(disk), f = word_counts(*whole);
    std::set<std::string> words;
    for (const auto* c : {&m, &d}) for (const auto& [w, n] : *c) words.insert(w);
    auto at = [](const std::map<std::string, long>& c, const std::string& w) {
      auto it = c.find(w);
      return it == c.end() ? 0L : it->second;
    };
    for (const std::string& w : words) {
      const long delta = at(d, w) - at(m, w), by_formatter = at(f, w) - at(m, w);
      CHECK_MESSAGE((delta == 0 || (delta > 0 ? by_formatter >= delta : by_formatter <= delta)),
                    "the word '" << w << "' is " << at(m, w) << " times in the model's text, "
                                 << at(d, w) << " on disk, " << at(f, w)
                                 << " in the formatter's output");
    }
  }

  // (c) A line replaced by one reads as the formatter alone writes it.
  if (e.count == 1 && e.lines.size() == 1 && status == "ok" && whole) {
    const std::string key = word_key(e.lines[0]);
    auto with_key = [&](const std::vector<std::string>& ls) {
      std::vector<std::string> found;
      for (const std::string& s : ls)
        if (word_key(s) == key) found.push_back(s);
      return found;
    };
    const auto in_model = with_key(model_lines), in_disk = with_key(split_lines(disk)),
               in_whole = with_key(split_lines(*whole));
    // clang-format sorts #include lines: a moved line is not the formatter's
    // to take (format_scope keeps it as written), so not checked.
    const bool include = l.lang == Lang::kCpp && e.lines[0].starts_with("#include");
    if (!include && !key.empty() && in_model.size() == 1 && in_disk.size() == 1 &&
        in_whole.size() == 1) {
      ++tally.line_checked;
      CHECK_MESSAGE(in_disk[0] == in_whole[0], "the edited line is '" << in_disk[0]
                                                   << "', the formatter alone writes '"
                                                   << in_whole[0] << "'");
    } else {
      ++tally.line_undefined;
      tally.undefined.push_back(path + ":" + std::to_string(e.first + 1) + " " + e.shape +
                                " (lines with its words: model " +
                                std::to_string(in_model.size()) + ", disk " +
                                std::to_string(in_disk.size()) + ", formatter " +
                                std::to_string(in_whole.size()) + ")");
    }
  }
}

void run_language(const Language& l) {
  TempDir root;
  std::vector<std::string> args{"--format", l.format, "--format-timeout", "60"};
  Process p = spawn_editd(root, args);
  p.reply_wait = std::chrono::seconds(90);
  Tally tally;
  std::uint32_t seed = 56;
  for (const std::string& name : l.files) {
    const std::string before = read_corpus(name);
    const std::string path = "src/" + name;
    REQUIRE_MESSAGE(parses(l, root, "./" + path, before), name << " does not parse");
    // A missing formatter fails (make deps and make formatters-deps install them).
    REQUIRE_MESSAGE(formatter_output(l, root, "./" + path, before).has_value(),
                    l.formatter[0] << " " << l.formatter[1] << " did not format " << name);
    for (const Edit& e : sample_edits(l, split_lines(before), before, seed++))
      run_edit(l, p, root, path, before, e, tally);
  }
  std::ostringstream summary;
  summary << l.name << ": " << tally.edits << " edits; formatStatus";
  for (const auto& [s, n] : tally.statuses) summary << " " << s << ": " << n;
  summary << "; formatted: " << tally.formatted << "; parse checked " << tally.parse_checked
          << " (model not parsing: " << tally.parse_na << "); edited line checked "
          << tally.line_checked << ", not well defined " << tally.line_undefined;
  for (const std::string& u : tally.undefined) summary << "\n  not checked: " << u;
  MESSAGE(summary.str());
}

}  // namespace

TEST_CASE("format corpus: black on Python edits") {
  run_language({Lang::kPython, "Python", "*.py=black -q -", {"inventory.py", "geometry.py"},
                "import   re", "print( 'done',{ 'k':1 } )", {"/usr/bin/env", "black", "-q", "-"}});
}

TEST_CASE("format corpus: clang-format on C++ edits") {
  run_language({Lang::kCpp, "C++", "*.cpp=clang-format --assume-filename {file}",
                {"ring_buffer.cpp", "config_parser.cpp"}, "#include   <list>",
                "static  int trailing_value=( 1+2 )*3 ;",
                {"/usr/bin/env", "clang-format", "--assume-filename", "%"}});
}

TEST_CASE("format corpus: prettier on TypeScript edits") {
  run_language({Lang::kTs, "TypeScript", "*.ts=" + kPrettier + " --stdin-filepath {file}",
                {"orders.ts", "settings.ts"}, "import {join} from \"path\"",
                "export const  trailing={a:1,b:[ \"x\",\"y\" ]}",
                {kPrettier, "--no-config", "--stdin-filepath", "%"}});
}

}  // namespace editd::test::format_corpus
