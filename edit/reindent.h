// The re-indenter of the forgiving tiers: maps the indentation of the model's
// lines onto the file's, learnt from the lines of a matched window.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace editd::match {

// Maps the indentation of the model's lines onto the file's, learnt from the
// lines of a matched window: each indentation of oldText that lines up with one
// of the file becomes that one, deeper ones add the file's own unit (tabs or
// spaces), shallower ones remove it. Lines indented alike are never indented
// twice.
class Reindenter {
 public:
  using Lines = std::vector<std::string_view>;

  // `old_lines` and `file_lines` are the matched window as oldText and the file
  // have it (same length); `new_lines` is newText.
  Reindenter(const Lines& old_lines, const Lines& file_lines, const Lines& new_lines);

  // `line` of newText with its indentation in the file's terms.
  std::string apply(std::string_view line) const;

 private:
  static std::size_t width(std::string_view ws);
  static std::optional<std::size_t> unit_of(std::vector<std::size_t> widths);
  std::string levels(std::size_t columns) const;

  std::map<std::string_view, std::string_view> map_;
  std::size_t model_unit_ = 4;
  std::string file_unit_ = "    ";
};

}  // namespace editd::match
