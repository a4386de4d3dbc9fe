#include "edit/text/line_window.h"

#include <xxhash.h>

#include <utility>

namespace editd::line_window {

std::uint64_t hash(std::string_view line) { return XXH3_64bits(line.data(), line.size()); }

namespace {

// border[i]: length of the longest proper border of ids[0, i] read through `at`.
template <class At>
std::vector<std::size_t> borders(std::size_t k, At at) {
  std::vector<std::size_t> border(k, 0);
  for (std::size_t i = 1, b = 0; i < k; ++i) {
    while (b > 0 && at(i) != at(b)) b = border[b - 1];
    if (at(i) == at(b)) ++b;
    border[i] = b;
  }
  return border;
}

}  // namespace

Pattern::Pattern(std::vector<std::string> lines) {
  ids_.reserve(lines.size());
  std::size_t slots = 8;
  while (slots < 2 * lines.size()) slots *= 2;
  table_.resize(slots);
  mask_ = slots - 1;
  for (std::string& l : lines) {
    const std::uint64_t h = hash(l);
    std::int32_t id = this->id(h, l);
    if (id < 0) {
      id = static_cast<std::int32_t>(lines_.size());
      lines_.push_back(std::move(l));
      std::size_t i = h & mask_;
      while (table_[i].id >= 0) i = (i + 1) & mask_;
      table_[i] = Slot{h, id};
      filter_[(h >> 6) & 63] |= std::uint64_t{1} << (h & 63);
    }
    ids_.push_back(id);
  }
  const std::size_t k = ids_.size();
  border_ = borders(k, [this](std::size_t i) { return ids_[i]; });
  reversed_border_ = borders(k, [this, k](std::size_t i) { return ids_[k - 1 - i]; });
}

std::int32_t Pattern::id(std::uint64_t h, std::string_view line) const {
  for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& s = table_[i];
    if (s.id < 0) return -1;
    if (s.hash == h && lines_[static_cast<std::size_t>(s.id)] == line) return s.id;
  }
}

std::int32_t Pattern::Scanner::at(std::size_t i) const {
  return reversed_ ? p_.ids_[p_.ids_.size() - 1 - i] : p_.ids_[i];
}

bool Pattern::Scanner::feed(std::int32_t id) {
  const std::vector<std::size_t>& border = reversed_ ? p_.reversed_border_ : p_.border_;
  const std::size_t k = p_.ids_.size();
  if (id < 0) {
    matched_ = 0;
    return false;
  }
  while (matched_ > 0 && id != at(matched_)) matched_ = border[matched_ - 1];
  if (id == at(matched_)) ++matched_;
  if (matched_ == k) {
    matched_ = border[k - 1];
    return true;
  }
  return false;
}

}  // namespace editd::line_window
