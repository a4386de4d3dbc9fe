#include "server/undo_history.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "edit/fingerprint.h"

namespace editd {

namespace {

std::uint64_t size_of(const UndoEntry& e) {
  std::uint64_t n = 0;
  for (const UndoFile& f : e.files) n += f.before ? f.before->size() : 0;
  return n;
}

// Whether the mutation left `f` as it found it.
bool unchanged(const UndoFile& f) {
  if (!f.before || !f.after_fingerprint) return !f.before && !f.after_fingerprint;
  const std::string& before =
      f.before_fingerprint.empty() ? fingerprint(*f.before) : f.before_fingerprint;
  return before == *f.after_fingerprint;
}

}  // namespace

UndoHistory::UndoHistory(std::uint64_t max_entries, std::uint64_t max_bytes)
    : max_entries_(max_entries), max_bytes_(max_bytes) {
  std::random_device rd;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rd()));
  prefix_ = buf;
}

std::optional<std::string> UndoHistory::record(std::string scope, std::vector<UndoFile> files,
                                               std::vector<std::string> made_directories) {
  auto entry = std::make_shared<UndoEntry>();
  entry->scope = std::move(scope);
  entry->made_directories = std::move(made_directories);
  for (UndoFile& f : files) {
    auto same = std::find_if(entry->files.begin(), entry->files.end(),
                             [&](const UndoFile& g) { return g.canonical == f.canonical; });
    if (same == entry->files.end())
      entry->files.push_back(std::move(f));
    else
      same->after_fingerprint = std::move(f.after_fingerprint);
  }
  std::erase_if(entry->files, unchanged);
  if (entry->files.empty() || max_entries_ == 0) return std::nullopt;
  const std::uint64_t size = size_of(*entry);
  if (size > max_bytes_) return std::nullopt;
  std::lock_guard lock(mutex_);
  entry->id = "undo-" + prefix_ + "-" + std::to_string(next_++);
  std::string id = entry->id;
  entries_.push_back(std::move(entry));
  bytes_ += size;
  while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
    bytes_ -= size_of(*entries_.front());
    entries_.pop_front();
  }
  return id;
}

std::shared_ptr<const UndoEntry> UndoHistory::find(const std::string& id) const {
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_)
    if (e->id == id) return e;
  return nullptr;
}

}  // namespace editd
