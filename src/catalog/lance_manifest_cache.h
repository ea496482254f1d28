#pragma once

/// \file
/// \brief Parsed Lance manifests kept in memory. A manifest file never changes once
/// written, so its parsed form stays valid as long as it is kept; the key names the table
/// (its store id, which a re-created table does not share) and the manifest's location
/// (which names the branch and the version). What is current is never decided here: the
/// caller resolves the version first (the store for managed tables, storage otherwise).
/// Bounded by an estimate of the bytes the models take; least recently used entries go
/// first, and one model larger than a quarter of the bound is not kept. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/metadata_cache.h"
#include "common/lru_cache.h"
#include "common/op_metrics.h"
#include "lance/manifest.h"

namespace cairn {

class LanceManifestCache {
 public:
  /// \brief The default bound: thousands of versions of ordinary schemas.
  static constexpr size_t kDefaultCapacityBytes = size_t{32} << 20;

  explicit LanceManifestCache(size_t capacity_bytes = kDefaultCapacityBytes);

  /// \brief The key of the manifest at `location` of the table with store id `entity_id`.
  static std::string KeyOf(int64_t entity_id, std::string_view location);

  /// \brief The manifest kept under `key` (now the most recently used), or nullptr.
  /// Counted as a hit or a miss of `lance-manifest` (metadata_cache.h).
  std::shared_ptr<const lance::LanceManifest> Find(const std::string& key) {
    auto found = cache_.Find(key);
    CountCacheLookup(CountedCache::kLanceManifest, found != nullptr);
    return found;
  }

  /// \brief Keeps `manifest` under `key` (a key already kept keeps its entry: the same
  /// file has the same content).
  void Insert(const std::string& key,
              std::shared_ptr<const lance::LanceManifest> manifest) {
    const size_t cost = CostOf(*manifest);
    cache_.Insert(key, std::move(manifest), cost);
  }

  /// \brief Bytes (estimated) and entries held now.
  size_t size_bytes() const { return cache_.size_bytes(); }
  size_t entries() const { return cache_.entries(); }

  /// \brief The estimated bytes a model takes in memory.
  static size_t CostOf(const lance::LanceManifest& manifest);

 private:
  LruCache<lance::LanceManifest> cache_;
  /// Declared last: leaves the metrics before the cache they read goes.
  std::vector<metrics::GaugeFamily::Source> gauges_;
};

}  // namespace cairn
