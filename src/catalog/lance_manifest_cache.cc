#include "catalog/lance_manifest_cache.h"

#include <utility>

#include <fmt/format.h>

namespace cairn {
namespace {

/// What a string, a map node and a field cost beyond their characters (allocator and
/// container overhead, roughly).
constexpr size_t kStringOverhead = 32;
constexpr size_t kMapEntryOverhead = 64;
constexpr size_t kFieldOverhead = 128;

size_t CostOf(const std::map<std::string, std::string>& map) {
  size_t cost = 0;
  for (const auto& [key, value] : map) {
    cost += kMapEntryOverhead + key.size() + value.size();
  }
  return cost;
}

}  // namespace

std::string LanceManifestCache::KeyOf(int64_t entity_id, std::string_view location) {
  return fmt::format("{}\x1f{}", entity_id, location);
}

size_t LanceManifestCache::CostOf(const lance::LanceManifest& manifest) {
  size_t cost = sizeof(lance::LanceManifest) + 8 * kStringOverhead + manifest.tag.size() +
                manifest.writer_library.size() + manifest.writer_version.size() +
                manifest.data_format.size() + manifest.data_format_version.size() +
                manifest.transaction_file.size() + manifest.branch.value_or("").size();
  for (const auto& field : manifest.fields) {
    cost += kFieldOverhead + field.name.size() + field.logical_type.size() +
            cairn::CostOf(field.metadata);
  }
  return cost + cairn::CostOf(manifest.schema_metadata) +
         cairn::CostOf(manifest.table_metadata) + cairn::CostOf(manifest.config);
}

std::shared_ptr<const lance::LanceManifest> LanceManifestCache::Find(
    const std::string& key) {
  MutexLock lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->manifest;
}

void LanceManifestCache::Insert(const std::string& key,
                                std::shared_ptr<const lance::LanceManifest> manifest) {
  const size_t cost = CostOf(*manifest) + 2 * key.size() + kMapEntryOverhead;
  if (cost > capacity_ / 4) return;  // one huge schema must not flush everything else
  MutexLock lock(mutex_);
  if (index_.count(key) > 0) return;
  lru_.push_front(Entry{key, std::move(manifest), cost});
  index_.emplace(lru_.front().key, lru_.begin());
  size_ += cost;
  while (size_ > capacity_ && !lru_.empty()) {
    size_ -= lru_.back().cost;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

size_t LanceManifestCache::size_bytes() const {
  MutexLock lock(mutex_);
  return size_;
}

size_t LanceManifestCache::entries() const {
  MutexLock lock(mutex_);
  return lru_.size();
}

}  // namespace cairn
