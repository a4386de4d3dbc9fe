// Fuzz target 2: the Codex and unified patch parsers and the applier.
//
// The input is parts separated by 0x01 bytes: the patch, then the contents of
// the paths it touches, in touched_paths() order (a part "\x02" is a directory;
// a path without a part does not exist). Invariants:
// - parse() fails only with patch_parse or not_text, naming a line of the patch;
// - a parsed patch's paths pass the path param checks and its added text is
//   text (no NUL, valid UTF-8);
// - apply() fails only with not_found, is_directory, not_text or patch_apply;
// - an applied patch re-diffs to its result: each outcome's diff, parsed and
//   applied to the old content, gives the new content (bytes, BOM aside);
// - parsing and applying stay within the time budget.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "edit/patch/patch.h"
#include "edit/text/text.h"
#include "fuzz/fuzz_support.h"
#include "protocol/params.h"

namespace {

using namespace editd;
using namespace editd::patch;

std::size_t line_count(std::string_view s) {
  std::size_t n = 1;
  for (char c : s) n += c == '\n';
  return n;
}

// A path the unified labels `a/PATH` and `b/PATH` carry through unchanged.
bool plain(std::string_view path) {
  if (path.empty() || path == "dev/null" || path == "/dev/null") return false;
  for (char c : path)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
          c == '/'))
      return false;
  return true;
}

void check_parsed(const Patch& p) {
  FUZZ_CHECK(!p.files.empty(), "a parsed patch has a file operation");
  for (const FilePatch& f : p.files) {
    FUZZ_CHECK(!protocol::path_problem(f.path) && text::is_valid_utf8(f.path), f.path);
    if (f.move_to)
      FUZZ_CHECK(!protocol::path_problem(*f.move_to) && text::is_valid_utf8(*f.move_to),
                 *f.move_to);
    FUZZ_CHECK(text::check_text(f.content, "content").has_value(), f.path);
    for (const Chunk& c : f.chunks)
      for (const ChunkLine& l : c.lines)
        if (l.kind == ChunkLine::Kind::kAdded)
          FUZZ_CHECK(text::check_text(l.text, "added line").has_value(), l.text);
  }
}

// Applies an outcome's diff to its old content: the new content must come out.
// `several`: the patch set this file's state in more than one operation.
void check_rediff(const FileOutcome& o, bool several) {
  auto bytes = [](const auto& b) { return b ? text::without_bom(*b) : std::string_view(); };
  const std::string_view old_text = bytes(o.old_bytes);
  std::string_view new_text = bytes(o.new_bytes);
  if (o.diff.empty()) {
    FUZZ_CHECK(old_text == new_text, "an empty diff between different texts: " + o.path);
    return;
  }
  if (!plain(o.path) || (o.moved_to && !plain(*o.moved_to))) return;
  if (!text::check_text(old_text, "old") || !text::check_text(new_text, "new")) return;
  auto diff = parse(o.diff, protocol::path_problem);
  FUZZ_CHECK(diff.has_value(), "the diff does not parse: " + diff.error().message + "\n" + o.diff);
  FUZZ_CHECK(diff->format == Format::kUnified && diff->files.size() == 1, o.diff);
  const FilePatch& f = diff->files[0];
  std::map<std::string, FileInput> inputs;
  // The old file as it was stored, BOM included: a body that itself starts
  // with U+FEFF (a second BOM) would otherwise be read as the BOM.
  if (o.old_bytes) inputs[f.path] = {FileInput::State::kFile, std::string(*o.old_bytes)};
  auto applied = patch::apply(*diff, inputs);
  FUZZ_CHECK(applied.has_value(),
             "the diff does not apply: " + applied.error().message + "\n" + o.diff);
  FUZZ_CHECK(applied->size() == 1, o.diff);
  // A diff shows bodies without the BOM, so a body that itself starts with
  // U+FEFF reads back as a BOM (and a BOM that an added first line brings reads
  // back as one): at the start of a file, a run of U+FEFF is compared as BOMs.
  auto without_boms = [](std::string_view s) {
    while (s.starts_with(text::kBom)) s.remove_prefix(text::kBom.size());
    return s;
  };
  const std::string_view again = without_boms(bytes(applied->front().new_bytes));
  new_text = without_boms(new_text);
  // Where only the text counts:
  // - an Add over a file wrote its bytes as given, while the diff, as any
  //   update, gives its new lines the old file's dominant ending;
  // - a file that several operations changed: each applied the ending rules to
  //   the file as the one before left it, and the diff is one splice where they
  //   made several, so an added line break next to a line that a later
  //   operation removed can take that line's ending from the diff alone
  //   (docs/patch.md).
  const bool text_only = several || (o.action == Action::kAdd && o.old_bytes);
  FUZZ_CHECK(
      text_only ? text::normalize_eol(again) == text::normalize_eol(new_text) : again == new_text,
      "the diff gives other bytes:\n" + editd::fuzz::shown(o.diff) + "\ngives\n" +
          editd::fuzz::shown(again) + "\ninstead of\n" + editd::fuzz::shown(new_text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> parts = editd::fuzz::split(input, '\x01', 64);
  const std::string_view text = parts[0];

  editd::fuzz::Budget budget("parse and apply");
  auto parsed = parse(text, protocol::path_problem);
  if (!parsed) {
    const Error& e = parsed.error();
    FUZZ_CHECK(e.kind == ErrorKind::kPatchParse || e.kind == ErrorKind::kNotText, e.message);
    FUZZ_CHECK(e.data.contains("line") && e.data["line"].is_number_unsigned(), e.message);
    const auto line = e.data["line"].get<std::size_t>();
    FUZZ_CHECK(line >= 1 && line <= line_count(text) + 1, e.message);
    budget.check(size);
    return 0;
  }
  check_parsed(*parsed);

  std::map<std::string, FileInput> inputs;
  const std::vector<std::string> paths = touched_paths(*parsed);
  for (std::size_t i = 0; i < paths.size() && i + 1 < parts.size(); ++i) {
    if (parts[i + 1] == "\x02")
      inputs[paths[i]] = {FileInput::State::kDirectory, {}};
    else
      inputs[paths[i]] = {FileInput::State::kFile, std::string(parts[i + 1])};
  }
  auto outcomes = patch::apply(*parsed, inputs);
  budget.check(size);
  if (!outcomes) {
    const ErrorKind k = outcomes.error().kind;
    FUZZ_CHECK(k == ErrorKind::kNotFound || k == ErrorKind::kIsDirectory ||
                   k == ErrorKind::kNotText || k == ErrorKind::kPatchApply,
               outcomes.error().message);
    FUZZ_CHECK(outcomes.error().data.contains("path"), outcomes.error().message);
    return 0;
  }
  std::map<std::string, int> seen, operations;
  for (const FilePatch& f : parsed->files) {
    ++operations[f.path];
    if (f.move_to && *f.move_to != f.path) ++operations[*f.move_to];
  }
  for (const FileOutcome& o : *outcomes) {
    FUZZ_CHECK(++seen[o.path] == 1, "two outcomes for " + o.path);
    if (o.moved_to) FUZZ_CHECK(++seen[*o.moved_to] == 1, "two outcomes for " + *o.moved_to);
    check_rediff(o, operations[o.path] > 1 || (o.moved_to && operations[*o.moved_to] > 1));
  }
  return 0;
}
