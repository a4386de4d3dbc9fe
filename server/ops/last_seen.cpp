#include "server/ops/last_seen.h"

namespace editd {

LastSeen::File& LastSeen::touch(const std::string& canonical) {
  auto [it, made] = files_.try_emplace(canonical);
  if (made) {
    lru_.push_front(&it->first);
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  it->second.lru = lru_.begin();
  return it->second;
}

void LastSeen::trim() {
  // Bytes first: the least recently kept files' versions go, their stamps stay.
  for (auto l = lru_.rbegin(); bytes_ > budget_ && l != lru_.rend(); ++l) {
    File& f = files_.find(**l)->second;
    for (const Version& v : f.versions) bytes_ -= v.bytes.size();
    f.versions.clear();
  }
  while (files_.size() > kMaxFiles) {
    auto it = files_.find(*lru_.back());
    for (const Version& v : it->second.versions) bytes_ -= v.bytes.size();
    lru_.pop_back();
    files_.erase(it);
  }
}

void LastSeen::keep(const std::string& canonical, const std::string& fingerprint,
                    std::string_view bytes) {
  if (bytes.size() > kMaxFileBytes || bytes.size() > budget_) return;
  std::lock_guard lock(mutex_);
  File& f = touch(canonical);
  for (auto v = f.versions.begin(); v != f.versions.end(); ++v)
    if (v->fingerprint == fingerprint) {
      f.versions.splice(f.versions.begin(), f.versions, v);
      return;
    }
  f.versions.push_front(Version{fingerprint, std::string(bytes)});
  bytes_ += bytes.size();
  if (f.versions.size() > kMaxVersions) {
    bytes_ -= f.versions.back().bytes.size();
    f.versions.pop_back();
  }
  trim();
}

std::optional<std::string> LastSeen::bytes_of(const std::string& canonical,
                                              const std::string& fingerprint) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(canonical);
  if (it == files_.end()) return std::nullopt;
  for (const Version& v : it->second.versions)
    if (v.fingerprint == fingerprint) return v.bytes;
  return std::nullopt;
}

void LastSeen::stamp(const std::string& canonical, const FileStat::Stamp& stamp,
                     const std::string& fingerprint, std::int64_t now_ns) {
  std::lock_guard lock(mutex_);
  const bool racy = now_ns - stamp.mtime_ns < kRacyNs || now_ns - stamp.ctime_ns < kRacyNs;
  auto it = files_.find(canonical);
  if (racy) {
    if (it != files_.end()) it->second.stamp.reset();
    return;
  }
  File& f = touch(canonical);
  f.stamp = stamp;
  f.stamped = fingerprint;
  trim();
}

std::optional<std::string> LastSeen::fingerprint_at(const std::string& canonical,
                                                    const FileStat::Stamp& stamp) {
  std::lock_guard lock(mutex_);
  auto it = files_.find(canonical);
  if (it == files_.end() || !it->second.stamp || !(*it->second.stamp == stamp))
    return std::nullopt;
  return it->second.stamped;
}

}  // namespace editd
