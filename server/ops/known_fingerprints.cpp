#include "server/ops/known_fingerprints.h"

#include <algorithm>
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
  std::vector<std::string> own;
  if (auto it = records_.find(canonical); it != records_.end()) {
    own = std::move(it->second.own_befores);
    drop(it);
  } else if (fresh_.size() < kFresh) {
    fresh_.push_back(canonical);
  } else {
    fresh_overflowed_ = true;
  }
  std::size_t cost = canonical.size() + fingerprint.size() + kEntryOverhead;
  for (const std::string& b : own) cost += b.size() + sizeof(std::string);
  if (cost > budget_) {
    forgot_ = true;
    return;
  }
  auto it = records_
                .emplace(canonical,
                         Record{std::move(fingerprint), std::move(own), std::nullopt, cost, {}})
                .first;
  lru_.push_front(&it->first);
  it->second.lru = lru_.begin();
  bytes_ += cost;
  trim();
}

void KnownFingerprints::trim() {
  while (bytes_ > budget_) {
    drop(records_.find(*lru_.back()));
    forgot_ = true;
  }
}

const std::string* KnownFingerprints::told(const std::string& canonical) const {
  auto it = records_.find(canonical);
  if (it == records_.end() || !it->second.told) return nullptr;
  return &*it->second.told;
}

void KnownFingerprints::set_told(const std::string& canonical, std::string fingerprint) {
  auto it = records_.find(canonical);
  if (it == records_.end()) return;
  Record& r = it->second;
  const std::size_t before = r.told ? r.told->size() + sizeof(std::string) : 0;
  r.told = std::move(fingerprint);
  const std::size_t after = r.told->size() + sizeof(std::string);
  r.bytes += after - before;
  bytes_ += after - before;
  trim();
}

void KnownFingerprints::note_own_change(const std::string& canonical, std::string before) {
  auto it = records_.find(canonical);
  if (it == records_.end() || before.empty()) return;
  Record& r = it->second;
  if (r.own_befores.size() == kOwnChanges) {
    r.bytes -= r.own_befores.front().size() + sizeof(std::string);
    bytes_ -= r.own_befores.front().size() + sizeof(std::string);
    r.own_befores.erase(r.own_befores.begin());
  }
  const std::size_t cost = before.size() + sizeof(std::string);
  r.own_befores.push_back(std::move(before));
  r.bytes += cost;
  bytes_ += cost;
  trim();
}

bool KnownFingerprints::replaced_by_own_change(const std::string& canonical,
                                               const std::string& fingerprint) const {
  auto it = records_.find(canonical);
  if (it == records_.end()) return false;
  const auto& own = it->second.own_befores;
  return std::find(own.begin(), own.end(), fingerprint) != own.end();
}

std::vector<std::string> KnownFingerprints::recent(std::size_t n) const {
  std::vector<std::string> out;
  for (auto it = lru_.begin(); it != lru_.end() && out.size() < n; ++it) out.push_back(**it);
  return out;
}

std::vector<std::string> KnownFingerprints::take_fresh() {
  fresh_overflowed_ = false;
  return std::exchange(fresh_, {});
}

void KnownFingerprints::erase(const std::string& canonical) {
  if (auto it = records_.find(canonical); it != records_.end()) drop(it);
}

}  // namespace editd
