// Fuzz target 4: the text model (text::Document, Normalized), byte splices
// (splice::plan, splice::apply, splice::rewrite) and the restores that undo
// them (restore::of_splices, restore::window, restore::apply).
//
// The first byte picks the final-newline option and whether the last part is
// also tried as write_text content; the rest is parts separated by 0x01 bytes:
// the file, then edits, each a 4-byte position pair (begin, end, taken modulo
// the normalized size) and its text. Invariants:
// - Document: the line count agrees with split_lines and count_lines of the
//   normalized body; the BOM and final-newline state are read as stored;
// - splices are ascending, disjoint and inside the body, and every byte outside
//   them is the old byte (the new file is the old one with the splices pasted);
// - the windows cover every difference (old and new agree outside them);
// - the new body, read back (CRLF folded), is what the edits meant, with the
//   one trailing line break that the final-newline rule adds or removes;
// - rewrite(content) reads back as the content, with the same rules;
// - the restores of the splices, and the window between the old and the new
//   file, put the old file back from the new one exactly.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edit/change/restore.h"
#include "edit/change/splice.h"
#include "edit/text/text.h"
#include "fuzz/fuzz_support.h"

namespace {

using namespace editd;

// Text as a reader sees it: a CR directly before a line break (or before
// other such CRs) is part of the break. Content CRs cannot stand there.
std::string canonical(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r') {
      std::size_t j = i;
      while (j < s.size() && s[j] == '\r') ++j;
      if (j < s.size() && s[j] == '\n') {
        i = j - 1;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

void check_splices(const text::Document& doc, const std::vector<splice::Splice>& splices,
                   const splice::Applied& applied) {
  const std::string_view body = doc.body();
  std::string pasted(doc.bom() ? text::kBom : "");
  std::size_t at = 0;
  for (const splice::Splice& s : splices) {
    FUZZ_CHECK(at <= s.begin && s.begin <= s.end && s.end <= body.size(), "splice bounds");
    pasted.append(body.substr(at, s.begin - at));
    pasted.append(s.bytes);
    at = s.end;
  }
  pasted.append(body.substr(at));
  FUZZ_CHECK(applied.bytes == pasted, "bytes outside the splices changed");

  const std::string_view new_body =
      std::string_view(applied.bytes).substr(doc.bom() ? text::kBom.size() : 0);
  std::size_t old_at = 0, new_at = 0;
  for (const diff::Window& w : applied.windows) {
    FUZZ_CHECK(old_at <= w.old_begin && w.old_begin <= w.old_end && w.old_end <= body.size(),
               "window bounds (old)");
    FUZZ_CHECK(new_at <= w.new_begin && w.new_begin <= w.new_end && w.new_end <= new_body.size(),
               "window bounds (new)");
    FUZZ_CHECK(
        body.substr(old_at, w.old_begin - old_at) == new_body.substr(new_at, w.new_begin - new_at),
        "old and new differ outside the windows");
    old_at = w.old_end;
    new_at = w.new_end;
  }
  FUZZ_CHECK(body.substr(old_at) == new_body.substr(new_at),
             "old and new differ after the windows");
}

// The new body read back against what was meant. The final-newline rule: an
// empty body after is left as it is, and so is an empty body before unless the
// caller said what it wants; otherwise the body ends with one line break
// exactly when asked to (or when the file did), which adds or removes at most
// that one break.
void check_meaning(const text::Document& doc, const splice::Applied& applied,
                   const std::string& meant, std::optional<bool> final_newline) {
  const std::string_view new_body =
      std::string_view(applied.bytes).substr(doc.bom() ? text::kBom.size() : 0);
  std::string want = meant;
  bool cut = false;
  if ((!doc.body().empty() || final_newline) && !want.empty()) {
    const bool wanted_break = final_newline.value_or(doc.final_newline());
    if (wanted_break && !want.ends_with('\n')) want.push_back('\n');
    cut = !wanted_break && want.ends_with('\n');
    if (cut) want.pop_back();
  }
  std::string got = canonical(new_body);
  want = canonical(want);
  // A CR before a removed last break was content or part of the break: either reading holds.
  if (cut) {
    while (got.ends_with('\r')) got.pop_back();
    while (want.ends_with('\r')) want.pop_back();
  }
  FUZZ_CHECK(got == want, "old body " + editd::fuzz::shown(doc.body()) + "\nmeant " +
                              editd::fuzz::shown(meant) + "\nnew body reads " +
                              editd::fuzz::shown(got) + "\ninstead of " + editd::fuzz::shown(want));
}

// The restores of `splices`, and the window from the old file to the new one,
// give the old file back from the new one.
void check_restores(std::string_view file, const text::Document& doc,
                    const std::vector<splice::Splice>& splices, const splice::Applied& applied) {
  const std::size_t bom = doc.bom() ? text::kBom.size() : 0;
  auto restores = restore::of_splices(file, bom, splices, std::uint64_t(-1));
  FUZZ_CHECK(restores.has_value(), "of_splices refused with no bound");
  FUZZ_CHECK(restore::apply(applied.bytes, *restores) == std::optional<std::string>(file),
             "the splices' restores do not give the old file back");
  std::optional<restore::Restore> w = restore::window(file, applied.bytes);
  FUZZ_CHECK(w.has_value() == (file != applied.bytes), "window found for the same bytes");
  if (w)
    FUZZ_CHECK(restore::apply(applied.bytes, {*w}) == std::optional<std::string>(file),
               "the window does not give the old file back");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto parts = editd::fuzz::split(input, '\x01', 16);

  auto doc = text::Document::decode(parts[0]);
  if (!doc) {
    FUZZ_CHECK(doc.error().kind == ErrorKind::kNotText, doc.error().message);
    FUZZ_CHECK(!text::check_text(text::without_bom(parts[0]), "file"), "decode refused text");
    return 0;
  }
  FUZZ_CHECK(doc->bom() == parts[0].starts_with(text::kBom), "BOM");
  const text::Normalized norm(*doc);
  const std::string_view text = norm.view();
  FUZZ_CHECK(text == text::normalize_eol(doc->body()), "Normalized is normalize_eol");
  FUZZ_CHECK(doc->line_count() == text::count_lines(text), "line_count and count_lines");
  FUZZ_CHECK(doc->line_count() == text::split_lines(text).size(), "line_count and split_lines");
  FUZZ_CHECK(doc->final_newline() == doc->body().ends_with('\n'), "final newline");

  std::optional<bool> final_newline;
  if (flags % 3 == 1) final_newline = true;
  if (flags % 3 == 2) final_newline = false;
  splice::Options options;
  options.final_newline = final_newline;

  std::vector<splice::Edit> edits;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (p.size() < 4) continue;
    auto pos = [&](std::size_t k) {
      return (static_cast<std::uint8_t>(p[k]) << 8 | static_cast<std::uint8_t>(p[k + 1])) %
             (text.size() + 1);
    };
    std::size_t begin = pos(0), end = pos(2);
    if (begin > end) std::swap(begin, end);
    // Edits never split a character.
    auto continuation = [&](std::size_t at) {
      return at < text.size() && (static_cast<std::uint8_t>(text[at]) & 0xC0) == 0x80;
    };
    while (continuation(begin)) --begin;
    while (continuation(end)) --end;
    splice::Edit e;
    e.begin = begin;
    e.end = end;
    // An edit's text is what a method would send: text, line breaks as "\n".
    if (!text::check_text(p.substr(4), "edit")) continue;
    e.text = text::normalize_eol(p.substr(4));
    edits.push_back(std::move(e));
  }
  std::sort(edits.begin(), edits.end(),
            [](const splice::Edit& a, const splice::Edit& b) { return a.begin < b.begin; });
  std::vector<splice::Edit> disjoint;
  for (splice::Edit& e : edits)
    if (disjoint.empty() || (e.begin >= disjoint.back().end && e.begin != disjoint.back().begin))
      disjoint.push_back(std::move(e));

  const std::string meant = splice::apply_edits(text, disjoint);
  std::vector<splice::Splice> splices = splice::plan(*doc, text, disjoint, options);
  splice::Applied applied = splice::apply(*doc, splices);
  check_splices(*doc, splices, applied);
  check_restores(parts[0], *doc, splices, applied);
  if (!disjoint.empty()) check_meaning(*doc, applied, meant, final_newline);
  FUZZ_CHECK(text::check_text(text::without_bom(applied.bytes), "result").has_value(),
             "the result is not text");

  if (flags & 8 && parts.size() > 1) {
    if (!text::check_text(parts.back(), "content")) return 0;
    const std::string content = text::normalize_eol(parts.back());
    splice::Options own;
    own.final_newline = content.ends_with('\n');
    std::vector<splice::Splice> rewrite = splice::rewrite(*doc, text, content, own);
    splice::Applied rewritten = splice::apply(*doc, rewrite);
    check_splices(*doc, rewrite, rewritten);
    check_restores(parts[0], *doc, rewrite, rewritten);
    check_meaning(*doc, rewritten, content, own.final_newline);
  }
  return 0;
}
