#include "catalog/location_backfill.h"

#include <map>

#include <boost/json.hpp>
#include <spdlog/spdlog.h>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn {
namespace {

constexpr size_t kPage = 500;

/// The `location` and `properties` of Iceberg metadata text: whole, or the head of a
/// table stored split (its two arrays emptied), which is valid JSON as well.
Result<std::pair<std::string, Properties>> IcebergLocation(std::string_view metadata) {
  CAIRN_ASSIGN_OR_RAISE(auto object, ParseJsonObject(metadata));
  CAIRN_ASSIGN_OR_RAISE(auto location, GetString(object, "location"));
  Properties properties;
  if (auto parsed = GetOptionalStringMap(object, "properties")) properties = *parsed;
  return std::make_pair(std::move(location), std::move(properties));
}

Result<LocationClaim> ClaimOf(const LocationPolicy& policy, const CatalogRecord& catalog,
                              const UnclaimedEntity& entity) {
  if (entity.kind == EntityKind::kLanceTable) {
    return policy.LegacyClaim(catalog, entity.metadata_location, {});
  }
  CAIRN_ASSIGN_OR_RAISE(auto located, IcebergLocation(entity.metadata));
  return policy.LegacyClaim(catalog, located.first, located.second);
}

}  // namespace

Status ClaimLegacyLocations(MetaStore& store, CatalogService& catalogs) {
  std::map<std::string, CatalogRecord> catalog_cache;
  size_t claimed = 0;
  int64_t after = 0;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(auto page, store.ListUnclaimedEntities(after, kPage));
    for (const auto& entity : page) {
      after = entity.id;
      auto cached = catalog_cache.find(entity.catalog);
      if (cached == catalog_cache.end()) {
        CAIRN_ASSIGN_OR_RAISE(auto record, store.GetCatalog(entity.catalog));
        cached = catalog_cache.emplace(entity.catalog, std::move(record)).first;
      }
      auto claim = ClaimOf(catalogs.locations(), cached->second, entity);
      if (!claim) {
        spdlog::warn("entity {} keeps no location claim: {}", entity.id,
                     claim.error().message);
        continue;
      }
      for (const auto& location : claim->locations) {
        auto used = store.LocationInUse(location, entity.id);
        if (used && *used) {
          spdlog::warn("entity {} at {} overlaps another entity's location (kept as is)",
                       entity.id, location);
        }
      }
      CAIRN_RETURN_IF_ERROR(store.RecordLegacyClaim(entity.id, *claim));
      ++claimed;
    }
    if (page.size() < kPage) break;
  }
  if (claimed > 0) spdlog::info("claimed the locations of {} existing entities", claimed);
  return Ok();
}

}  // namespace cairn
