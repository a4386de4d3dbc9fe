#include "edit/patch/miss.h"

#include <algorithm>
#include <cstdio>

#include "edit/explain/closest.h"
#include "edit/text/chars.h"

namespace editd::patch::detail {

namespace {

std::string join(const std::vector<std::string_view>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out.push_back('\n');
    out.append(lines[i]);
  }
  return out;
}

}  // namespace

Error hunk_miss(const std::string& path, std::size_t hunk, const Chunk& chunk,
                std::string_view text, seek::Index& index,
                const std::vector<std::string_view>& context, std::size_t from, std::string what) {
  std::string needle = join(context);
  std::string message = "hunk " + std::to_string(hunk) + " of '" + path + "' (patch line " +
                        std::to_string(chunk.patch_line) + ") does not apply: " + what;
  nlohmann::json data = {{"path", path},
                         {"hunk", hunk},
                         {"patchLine", chunk.patch_line},
                         {"context", needle},
                         {"fromLine", from + 1}};
  std::vector<std::string> hints;
  if (auto at = seek::folded_too_short(index, context, std::min(from, index.lines().size()))) {
    std::string hint = "the lines differ from the file's at line " + std::to_string(*at + 1) +
                       " only in typographic characters (quotes, dashes, odd spaces), but have "
                       "fewer than " +
                       std::to_string(chars::kMinLooseChars) +
                       " non-blank characters, too few to match loosely: copy them exactly from "
                       "the file, or add a line of context";
    message += "; " + hint;
    hints.push_back(std::move(hint) + ".");
  }
  if (auto closest = match::closest_region(text, needle)) {
    data["closest"] = match::closest_json(*closest);
    if (!closest->complete) hints.push_back(std::string(match::kClosestIncomplete) + ".");
    char similarity[16];
    std::snprintf(similarity, sizeof similarity, "%.2f", closest->similarity);
    message += "; the closest region is lines " + std::to_string(closest->lines.start_line) + "-" +
               std::to_string(closest->lines.end_line) + " (similarity " + similarity + ")";
  }
  if (!hints.empty()) {
    std::string hint;
    for (const std::string& h : hints) hint += (hint.empty() ? "" : " ") + h;
    data["hint"] = std::move(hint);
  }
  return Error(ErrorKind::kPatchApply, std::move(message), std::move(data));
}

}  // namespace editd::patch::detail
