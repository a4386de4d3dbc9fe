#include "edit/reindent.h"

#include <algorithm>

#include "edit/chars.h"

namespace editd::match {

using chars::is_blank;
using chars::leading_ws;

Reindenter::Reindenter(const Lines& old_lines, const Lines& file_lines, const Lines& new_lines) {
  std::vector<std::size_t> model_widths, file_widths;
  bool file_tabs = false;
  for (std::size_t j = 0; j < old_lines.size(); ++j) {
    if (is_blank(old_lines[j]) || is_blank(file_lines[j])) continue;
    std::string_view o = leading_ws(old_lines[j]), f = leading_ws(file_lines[j]);
    map_.emplace(o, f);
    file_tabs = file_tabs || f.find('\t') != std::string_view::npos;
    file_widths.push_back(width(f));
  }
  for (const Lines* lines : {&old_lines, &new_lines})
    for (std::string_view l : *lines)
      if (!is_blank(l)) model_widths.push_back(width(leading_ws(l)));
  model_unit_ = unit_of(model_widths).value_or(4);
  if (file_tabs) {
    file_unit_ = "\t";
  } else {
    file_unit_ = std::string(unit_of(file_widths).value_or(model_unit_), ' ');
  }
}

std::string Reindenter::apply(std::string_view line) const {
  if (map_.empty() || is_blank(line)) return std::string(line);
  std::string_view indent = leading_ws(line);
  std::string_view rest = line.substr(indent.size());
  if (auto it = map_.find(indent); it != map_.end())
    return std::string(it->second) + std::string(rest);
  // The deepest known indentation that this one extends.
  const std::pair<const std::string_view, std::string_view>* base = nullptr;
  for (const auto& kv : map_)
    if (indent.starts_with(kv.first) && (base == nullptr || kv.first.size() > base->first.size()))
      base = &kv;
  if (base != nullptr)
    return std::string(base->second) + levels(width(indent.substr(base->first.size()))) +
           std::string(rest);
  // Shallower than (or unlike) every known one: measure from the shallowest.
  base = &*std::min_element(map_.begin(), map_.end(), [](const auto& a, const auto& b) {
    return width(a.first) < width(b.first);
  });
  const auto delta = static_cast<long>(width(indent)) - static_cast<long>(width(base->first));
  std::string out(base->second);
  if (delta >= 0) return out + levels(static_cast<std::size_t>(delta)) + std::string(rest);
  for (long n = (-delta + static_cast<long>(model_unit_) - 1) / static_cast<long>(model_unit_);
       n > 0 && !out.empty(); --n) {
    if (out.back() == '\t') {
      out.pop_back();
    } else {
      std::size_t spaces = 0;
      while (spaces < out.size() && spaces < file_unit_.size() &&
             out[out.size() - 1 - spaces] == ' ')
        ++spaces;
      out.resize(out.size() - std::max<std::size_t>(spaces, 1));
    }
  }
  return out + std::string(rest);
}

std::size_t Reindenter::width(std::string_view ws) {
  std::size_t w = 0;
  for (char c : ws) w += c == '\t' ? 4 : 1;
  return w;
}

// The indentation step: the smallest difference between distinct widths,
// else the smallest non-zero width.
std::optional<std::size_t> Reindenter::unit_of(std::vector<std::size_t> widths) {
  std::sort(widths.begin(), widths.end());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  std::optional<std::size_t> unit;
  for (std::size_t i = 1; i < widths.size(); ++i) {
    std::size_t d = widths[i] - widths[i - 1];
    if (!unit || d < *unit) unit = d;
  }
  if (!unit)
    for (std::size_t w : widths)
      if (w > 0) unit = w;
  return unit;
}

// `columns` of the model's indentation in the file's units.
std::string Reindenter::levels(std::size_t columns) const {
  std::string out;
  for (std::size_t i = 0; i < columns / model_unit_; ++i) out += file_unit_;
  out.append(columns % model_unit_, ' ');
  return out;
}

}  // namespace editd::match
