#include "server/ops/known_fingerprints.h"

#include <utility>

namespace editd {

const std::string* KnownFingerprints::find(const std::string& canonical) {
  auto it = records_.find(canonical);
  if (it == records_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  return &it->second.fingerprint;
}

void KnownFingerprints::drop(Records::iterator it) {
  bytes_ -= it->second.bytes;
  lru_.erase(it->second.lru);
  records_.erase(it);
}

void KnownFingerprints::set(const std::string& canonical, std::string fingerprint) {
  if (auto it = records_.find(canonical); it != records_.end()) drop(it);
  const std::size_t cost = canonical.size() + fingerprint.size() + kEntryOverhead;
  if (cost > budget_) {
    forgot_ = true;
    return;
  }
  auto it = records_.emplace(canonical, Record{std::move(fingerprint), cost, {}}).first;
  lru_.push_front(&it->first);
  it->second.lru = lru_.begin();
  bytes_ += cost;
  while (bytes_ > budget_) {
    drop(records_.find(*lru_.back()));
    forgot_ = true;
  }
}

void KnownFingerprints::erase(const std::string& canonical) {
  if (auto it = records_.find(canonical); it != records_.end()) drop(it);
}

}  // namespace editd
