#include "server/ops/views.h"

#include <algorithm>

namespace editd {

namespace {

// Adds `r` to `shown` (oldest first), merging what it overlaps or touches;
// past `limit` runs the oldest go (lines forgotten, never lines added).
void add_range(std::vector<hashline::LineRange>& shown, hashline::LineRange r, std::size_t limit) {
  std::vector<hashline::LineRange> out;
  for (const hashline::LineRange& s : shown) {
    if (s.end_line + 1 < r.start_line || r.end_line + 1 < s.start_line) {
      out.push_back(s);
    } else {
      r.start_line = std::min(r.start_line, s.start_line);
      r.end_line = std::max(r.end_line, s.end_line);
    }
  }
  out.push_back(r);
  if (out.size() > limit) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(limit));
  shown = std::move(out);
}

}  // namespace

std::uint64_t Views::open_reader() {
  std::lock_guard lock(mutex_);
  return next_reader_++;
}

void Views::close_reader(std::uint64_t reader) {
  std::lock_guard lock(mutex_);
  auto it = entries_.lower_bound(Key{reader, "", "", ""});
  while (it != entries_.end() && std::get<0>(it->first) == reader) erase(it++);
}

std::size_t Views::cost(const Key& key, const Entry& e) {
  // A map node (three links, a colour, the key and the entry), a list node
  // (two links and the iterator), the snapshot made by make_shared.
  static_assert(sizeof(Entries::value_type) + 4 * sizeof(void*) + 3 * sizeof(void*) +
                    sizeof(hashline::Snapshot) + 2 * sizeof(void*) <=
                kEntryOverhead);
  return e.file->bytes() + e.shown.size() * sizeof(hashline::LineRange) +
         std::get<1>(key).size() + std::get<2>(key).size() + std::get<3>(key).size() +
         kEntryOverhead;
}

void Views::touch(Entries::iterator it) {
  it->second.stamp = ++stamp_;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
}

void Views::erase(Entries::iterator it) {
  bytes_ -= it->second.bytes;
  lru_.erase(it->second.lru);
  entries_.erase(it);
}

void Views::evict() {
  while (bytes_ > budget_ && !lru_.empty()) erase(lru_.back());
}

bool Views::add_lines(const Where& where, const std::string& fingerprint,
                      hashline::LineRange shown) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(Key{where.reader, where.scope, where.path, fingerprint});
  if (it == entries_.end()) return false;
  Entry& e = it->second;
  add_range(e.shown, shown, kRangesPerView);
  bytes_ -= e.bytes;
  e.bytes = cost(it->first, e);
  bytes_ += e.bytes;
  touch(it);
  evict();
  return true;
}

void Views::remember(const Where& where, const std::string& fingerprint, hashline::LineRange shown,
                     std::shared_ptr<const hashline::Snapshot> file) {
  if (where.reader == 0) return;
  std::lock_guard lock(mutex_);
  Key key{where.reader, where.scope, where.path, fingerprint};
  auto it = entries_.find(key);
  if (it != entries_.end()) erase(it);
  Entry e;
  e.file = std::move(file);
  e.shown.push_back(shown);
  e.bytes = cost(key, e);
  if (e.bytes > budget_) return;
  // At most kVersionsPerFile versions of this file here: the least recent go.
  std::vector<Entries::iterator> versions;
  for (auto v = entries_.lower_bound(Key{where.reader, where.scope, where.path, ""});
       v != entries_.end() && std::get<0>(v->first) == where.reader &&
       std::get<1>(v->first) == where.scope && std::get<2>(v->first) == where.path;
       ++v)
    versions.push_back(v);
  if (versions.size() >= kVersionsPerFile) {
    std::sort(versions.begin(), versions.end(), [](Entries::iterator a, Entries::iterator b) {
      return a->second.stamp < b->second.stamp;
    });
    for (std::size_t i = 0; i + kVersionsPerFile - 1 < versions.size(); ++i) erase(versions[i]);
  }
  bytes_ += e.bytes;
  it = entries_.emplace(std::move(key), std::move(e)).first;
  lru_.push_front(it);
  it->second.lru = lru_.begin();
  it->second.stamp = ++stamp_;
  evict();
}

std::vector<Views::Found> Views::find(const Where& where) const {
  std::vector<std::pair<std::uint64_t, Found>> found;
  {
    std::lock_guard lock(mutex_);
    for (auto v = entries_.lower_bound(Key{where.reader, where.scope, where.path, ""});
         v != entries_.end() && std::get<0>(v->first) == where.reader &&
         std::get<1>(v->first) == where.scope && std::get<2>(v->first) == where.path;
         ++v)
      found.push_back(
          {v->second.stamp, Found{std::get<3>(v->first), v->second.file, v->second.shown}});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Found> out;
  out.reserve(found.size());
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

std::uint64_t Views::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace editd
