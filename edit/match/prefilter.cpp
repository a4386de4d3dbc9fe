// The file as the matching tiers see it: its lines, their normal forms, and the
// keys (slots, skeletons) that turn most lines away before any is compared.

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "edit/match/ladder.h"

namespace editd::match::detail {

std::uint64_t skeleton_of(std::string_view line, std::string& buffer, std::string& scratch) {
  static constexpr std::array<bool, 256> kKeep = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
      t[static_cast<std::size_t>(c)] = !is_blank_char(static_cast<char>(c));
    return t;
  }();
  // One pass that copies the non-blank bytes and notes any byte above ASCII;
  // branch-free, since lines mix blanks and the rest unpredictably.
  auto strip = [&](std::string_view from) {
    if (buffer.size() < from.size()) buffer.resize(std::max(from.size(), 2 * buffer.size()));
    char* out = buffer.data();
    std::size_t n = 0;
    unsigned high = 0;
    for (char c : from) {
      const auto u = static_cast<unsigned char>(c);
      out[n] = c;
      n += kKeep[u];
      high |= u;
    }
    return std::pair{n, (high & 0x80) != 0};
  };
  auto [n, non_ascii] = strip(line);
  if (non_ascii) {
    scratch.clear();
    fold_unicode(line, scratch);
    n = strip(scratch).first;
  }
  return hash_of(std::string_view(buffer.data(), n));
}

std::string normalized_copy(Norm norm, std::string_view line) {
  std::string out, scratch;
  return std::string(in_form(norm, line, out, scratch));
}

Skeletons::Skeletons(const Lines& lines) {
  std::string buffer, scratch;
  for (std::string_view l : lines) {
    const std::uint64_t h = skeleton_of(l, buffer, scratch);
    filter_[h & kMask] = true;
    set_.insert(h);
    sequence_.push_back(h);
  }
}

const std::vector<std::uint64_t>& File::skeletons() {
  if (!skeletons_) {
    const Lines& l = lines();
    skeletons_.emplace();
    skeletons_->reserve(l.size());
    std::string buffer, scratch;
    for (std::string_view line : l) skeletons_->push_back(skeleton_of(line, buffer, scratch));
  }
  return *skeletons_;
}

const std::vector<std::uint16_t>& File::slots(Norm norm) {
  std::optional<std::vector<std::uint16_t>>& slots = norm == Norm::kTrimEnd ? rstrip_slots_
                                                     : norm == Norm::kTrim ? trim_slots_
                                                                           : unicode_slots_;
  if (slots) return *slots;
  const Lines& l = lines();
  if (norm == Norm::kFolded) {
    // Folding changes only the lines with a byte above ASCII, which are
    // found a word at a time.
    slots = this->slots(Norm::kTrim);
    std::string out, scratch;
    for (std::size_t at = ascii() ? text_.size() : chars::find_non_ascii(text_, 0);
         at < text_.size();) {
      const auto line = static_cast<std::size_t>(
          std::upper_bound(l.begin(), l.end(), text_.data() + at,
                           [](const char* p, std::string_view x) { return p < x.data(); }) -
          l.begin() - 1);
      (*slots)[line] = slot_of(in_form(Norm::kFolded, l[line], out, scratch));
      at = chars::find_non_ascii(text_, offset(line) + l[line].size());
    }
    return *slots;
  }
  // Both trims in one pass.
  rstrip_slots_.emplace();
  trim_slots_.emplace();
  rstrip_slots_->reserve(l.size());
  trim_slots_->reserve(l.size());
  for (std::string_view line : l) {
    const std::string_view right = rtrim(line);
    rstrip_slots_->push_back(slot_of(right));
    trim_slots_->push_back(slot_of(chars::ltrim(right)));
  }
  return *slots;
}

bool File::may_hold(std::string_view needle) {
  const Lines l = text::split_lines(needle);
  // The first line may end a line of the text; the last one is whole only
  // when the needle ends with "\n".
  const std::size_t end = needle.ends_with('\n') ? l.size() : l.size() - 1;
  if (end <= 1) return true;
  std::vector<std::uint16_t> want;
  for (std::size_t j = 1; j < end; ++j) want.push_back(slot_of(trim(l[j])));
  return may_occur<std::uint16_t>(slots(Norm::kTrim), want);
}

}  // namespace editd::match::detail
