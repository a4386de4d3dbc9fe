// Test support: editd's unified diffs applied to the bytes they were made
// from, to check that a reply's diff says exactly what the call did.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace editd::test {

// `bytes` with the unified diff `diff` (editd's: line endings kept, "\ No
// newline at end of file", the lines of the text after a BOM, which stays)
// applied; each context and removed line must be the text's, byte for byte.
std::string apply_unified_diff(const std::string& bytes, const std::string& diff) {
  const std::string bom = bytes.starts_with("\xEF\xBB\xBF") ? "\xEF\xBB\xBF" : "";
  const std::string text = bytes.substr(bom.size());
  std::vector<std::string> lines;  // with their endings
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  std::vector<std::string> rows;  // the diff's lines, without their '\n'
  for (std::size_t pos = 0; pos < diff.size();) {
    std::size_t nl = diff.find('\n', pos);
    if (nl == std::string::npos) nl = diff.size();
    rows.push_back(diff.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::string out;
  std::size_t next = 0;  // the next line of `lines` not yet copied
  std::size_t r = 0;
  while (r < rows.size() && !rows[r].starts_with("@@")) ++r;  // the --- and +++ headers
  while (r < rows.size()) {
    unsigned old_start = 0, old_count = 1, new_start = 0, new_count = 1;
    const std::string& head = rows[r];
    REQUIRE_MESSAGE(head.starts_with("@@ -"), "not a hunk header: " << head);
    if (std::sscanf(head.c_str(), "@@ -%u,%u +%u,%u @@", &old_start, &old_count, &new_start,
                    &new_count) != 4) {
      old_count = new_count = 1;
      if (std::sscanf(head.c_str(), "@@ -%u,%u +%u @@", &old_start, &old_count, &new_start) != 3 &&
          std::sscanf(head.c_str(), "@@ -%u +%u,%u @@", &old_start, &new_start, &new_count) != 3)
        REQUIRE(std::sscanf(head.c_str(), "@@ -%u +%u @@", &old_start, &new_start) == 2);
    }
    ++r;
    const std::size_t first = old_count == 0 ? old_start : old_start - 1;
    REQUIRE(first >= next);
    REQUIRE(first <= lines.size());
    for (; next < first; ++next) out += lines[next];
    unsigned old_seen = 0, new_seen = 0;
    while (old_seen < old_count || new_seen < new_count) {
      REQUIRE_MESSAGE(r < rows.size(), "a hunk ends early: " << head);
      const char kind = rows[r].empty() ? ' ' : rows[r][0];
      std::string content = rows[r].empty() ? "" : rows[r].substr(1);
      ++r;
      if (r < rows.size() && rows[r].starts_with("\\")) ++r;  // no newline at the end
      else content += "\n";
      if (kind == ' ' || kind == '-') {
        REQUIRE(next < lines.size());
        CHECK_MESSAGE(lines[next] == content, "line " << next + 1 << " is not the diff's");
        ++next;
        ++old_seen;
      }
      if (kind == ' ' || kind == '+') {
        out += content;
        ++new_seen;
      }
      REQUIRE((kind == ' ' || kind == '-' || kind == '+'));
    }
    while (r < rows.size() && rows[r].empty()) ++r;
  }
  for (; next < lines.size(); ++next) out += lines[next];
  return bom + out;
}

}  // namespace editd::test
