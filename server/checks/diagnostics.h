// Diagnostics after an edit, the pure part: which files a check covers, how
// its command line is split, what its output says, and which diagnostics an
// edit introduced. No processes and no I/O here (server/checks/checks.h runs them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/error.h"

namespace editd::diagnostics {

// A problem a checker (--check) or a language server (--lsp) reported in a
// file after a mutation wrote it. Its wire form is
// server/methods/shared.cpp's (docs/protocol.md).
struct Diagnostic {
  std::optional<std::string> file;      // set when it is in another file than the one written
  std::optional<std::uint64_t> line;    // 1-based; absent for output nothing could parse
  std::optional<std::uint64_t> column;  // 1-based
  std::string severity;                 // error | warning | info | hint
  std::string message;
  std::string source;  // the checker's program, or the language server's own name
};

// How the checks of a file went: they ran, one did not finish in time, or
// one could not run (the wire's "ok", "timeout", "failed": status_name).
enum class Status { kOk, kTimeout, kFailed };
std::string_view status_name(Status status);

// The checks of one written file: every diagnostic after the write, those
// that were not there before it, and how the checks went.
struct Report {
  std::vector<Diagnostic> all;
  std::vector<Diagnostic> introduced;
  Status status = Status::kOk;
  std::optional<std::string> detail;  // what went wrong, when not ok
};

// One --check, --lsp or --format option: GLOB=COMMAND.
struct Spec {
  std::string glob;
  std::vector<std::string> argv;  // split as a shell would, with no shell: see split_command
  bool lsp = false;
  // A --format: argv reads a file's text on stdin and writes it formatted on
  // stdout; or argv is {kLspFormatter}, and the --lsp server that covers the
  // file formats it (by_lsp). Never a check nor a language server of its own.
  bool format = false;
  std::string option;  // the option's value as given, for messages
  // What a language server is sent as initialize's initializationOptions,
  // besides what editd sends every one (set at start: server/checks/launch.h).
  nlohmann::json initialization_options = nlohmann::json::object();
};

// "GLOB=COMMAND" (split at the first '='). Errors name the option. In a
// --check COMMAND, `{file}` may only stand as a whole word, and not as the
// program: a client names the files, so its name must never be pasted into an
// option (`-o{file}`) or a shell script (`sh -c '... {file}'`); a script takes
// it as a positional parameter (`sh -c '... "$1"' sh {file}`).
Result<Spec> parse_spec(std::string_view value, bool lsp);

// The COMMAND of a --format that has the --lsp server covering the file
// format it (textDocument/rangeFormatting).
inline constexpr std::string_view kLspFormatter = "@lsp";

// A --format's "GLOB=COMMAND": as parse_spec for a --check ({file} only as a
// whole word, never the program), with `format` set; a COMMAND that is
// exactly kLspFormatter gives argv {kLspFormatter}, one that starts with it
// and has more words is refused (the server takes no arguments here).
Result<Spec> parse_format_spec(std::string_view value);

// Whether a --format spec has the language server format (kLspFormatter).
bool by_lsp(const Spec& spec);

// "--check", "--lsp" or "--format": the option a spec came from, for messages.
std::string_view option_flag(const Spec& spec);

// Splits a command line into words: blanks separate words; single quotes keep
// everything literally; double quotes keep everything but \" and \\; a
// backslash outside quotes keeps the next character. No variables, globs or
// redirections: a command that needs them asks for a shell (sh -c '...').
Result<std::vector<std::string>> split_command(std::string_view command);

// The path given to a checker for `file` (relative to the root, or absolute):
// a relative path gets "./" so that no name can read as an option ("-x",
// "--flag", "@responsefile") or anything but a path.
std::string argument_path(std::string_view file);

// argv with every word that is exactly "{file}" replaced by argument_path(file)
// (parse_spec refuses any other place for it).
std::vector<std::string> substitute(const std::vector<std::string>& argv, std::string_view file);

// `{a,b}` alternatives expanded (nested and repeated), left to right; past
// kMaxAlternatives the rest are dropped (and parse_spec refuses the glob).
inline constexpr std::size_t kMaxAlternatives = 256;
std::vector<std::string> expand_braces(std::string_view glob);

// Whether `path` (relative to the root, '/'-separated) matches `glob`. A glob
// without '/' is matched against the file name alone, anywhere in the tree
// ("*.py"); with one, against the whole relative path ("src/**/*.c"). `*` and
// `?` stop at '/', `**` crosses directories, `[...]` is a set (`[!...]` or
// `[^...]` its complement), `{a,b}` alternatives.
bool glob_matches(std::string_view glob, std::string_view path);

// What a checker's combined stdout and stderr say about the file it checked.
// `shown` is the path given to the checker ({file}), `absolute` its canonical
// form: a diagnostic naming either is about that file; one naming another file
// keeps that name in `file`. Lines in the shapes
//   PATH:LINE[:COLUMN]: [SEVERITY:] MESSAGE    gcc, clang, pyflakes, go vet, eslint -f unix
//   PATH(LINE,COLUMN): SEVERITY CODE: MESSAGE  tsc
//   File "PATH", line N ... ERROR: MESSAGE     Python's tracebacks (py_compile)
// become diagnostics (severity error unless the line names another, eslint's
// trailing [Warning/rule] included); other lines of such output (source
// echoes, carets, "In function" headers) are dropped. When no line parses and
// the checker failed (`failed`), the whole output is one diagnostic with no
// line. At most kMaxDiagnostics are kept; `dropped` counts the rest.
inline constexpr std::size_t kMaxDiagnostics = 200;
std::vector<Diagnostic> parse_output(std::string_view output, std::string_view shown,
                                     std::string_view absolute, const std::string& source,
                                     bool failed, std::size_t* dropped = nullptr);

// The diagnostics of `after` that were not in `before`: each of `after` is
// matched, at most once, against one of `before` with the same file, severity,
// source and message whose line maps onto its line through the line diff from
// `old_text` to `new_text` (a line inside a changed block maps onto any line of
// the block's replacement; lines in other files stay put; no line matches no
// line). Columns are not compared: an edit moves them.
std::vector<Diagnostic> introduced(const std::vector<Diagnostic>& before,
                                   const std::vector<Diagnostic>& after, std::string_view old_text,
                                   std::string_view new_text);

}  // namespace editd::diagnostics
