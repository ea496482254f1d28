#include "catalog/lance_manifest_cache.h"

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

LanceManifestCache::LanceManifestCache(size_t capacity_bytes)
    : cache_(capacity_bytes),
      gauges_(RegisterCacheGauges(
          CountedCache::kLanceManifest,
          [this] { return static_cast<double>(cache_.size_bytes()); },
          [this] { return static_cast<double>(cache_.entries()); })) {}

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

}  // namespace cairn
