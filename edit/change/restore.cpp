#include "edit/change/restore.h"

#include <algorithm>
#include <cstring>

namespace editd::restore {

std::uint64_t held_by(const std::vector<Restore>& restores) {
  std::uint64_t n = 0;
  for (const Restore& r : restores) n += sizeof(Restore) + r.before.size();
  return n;
}

std::optional<std::vector<Restore>> of_splices(std::string_view file, std::size_t bom,
                                               const std::vector<splice::Splice>& splices,
                                               std::uint64_t max_held) {
  const std::string_view body = file.substr(bom);
  std::vector<Restore> out;
  out.reserve(splices.size());
  std::uint64_t held = 0;
  std::int64_t shift = 0;  // where a byte is after, less where it was
  for (const splice::Splice& s : splices) {
    held += sizeof(Restore) + (s.end - s.begin);
    if (held > max_held) return std::nullopt;
    Restore& r = out.emplace_back();
    r.at = static_cast<std::uint64_t>(static_cast<std::int64_t>(bom + s.begin) + shift);
    r.after_size = s.bytes.size();
    r.before.assign(body.substr(s.begin, s.end - s.begin));
    shift += static_cast<std::int64_t>(s.bytes.size()) - static_cast<std::int64_t>(s.end - s.begin);
  }
  return out;
}

std::optional<Restore> window(std::string_view before, std::string_view after) {
  // Block by block with memcmp, then byte by byte in the block that differs.
  constexpr std::size_t kBlock = 4096;
  const std::size_t n = std::min(before.size(), after.size());
  std::size_t prefix = 0;
  while (prefix + kBlock <= n &&
         std::memcmp(before.data() + prefix, after.data() + prefix, kBlock) == 0)
    prefix += kBlock;
  while (prefix < n && before[prefix] == after[prefix]) ++prefix;
  if (prefix == n && before.size() == after.size()) return std::nullopt;
  const std::size_t rest = n - prefix;  // the suffix stays clear of the prefix
  std::size_t suffix = 0;
  while (suffix + kBlock <= rest &&
         std::memcmp(before.data() + before.size() - suffix - kBlock,
                     after.data() + after.size() - suffix - kBlock, kBlock) == 0)
    suffix += kBlock;
  while (suffix < rest && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
    ++suffix;
  Restore r;
  r.at = prefix;
  r.after_size = after.size() - prefix - suffix;
  r.before.assign(before.substr(prefix, before.size() - prefix - suffix));
  return r;
}

std::optional<std::string> apply(std::string_view after, const std::vector<Restore>& restores) {
  std::uint64_t from = 0, size = after.size();
  for (const Restore& r : restores) {
    if (r.at < from || r.at > after.size() || r.after_size > after.size() - r.at)
      return std::nullopt;
    from = r.at + r.after_size;
    size = size - r.after_size + r.before.size();
  }
  std::string out;
  out.reserve(size);
  from = 0;
  for (const Restore& r : restores) {
    out.append(after.substr(from, r.at - from));
    out.append(r.before);
    from = r.at + r.after_size;
  }
  out.append(after.substr(from));
  return out;
}

}  // namespace editd::restore
