#include "catalog/table_access.h"

#include <utility>

#include "common/location.h"
#include "common/macros.h"
#include "iceberg/json_serde.h"

namespace cairn {

Result<EntityStorageLocations> TableLocationsOf(const LocationPolicy& policy,
                                                const CatalogRecord& catalog,
                                                std::string_view metadata_json) {
  auto metadata = iceberg::TableMetadataFromJsonString(metadata_json);
  if (!metadata) {
    // The store holds what Cairn validated and wrote: a parse failure is Cairn's fault
    // (or the store's), never the client's.
    return Internal("The stored metadata of the table does not parse: {}",
                    metadata.error().message);
  }
  return TableLocationsOf(policy, catalog, *metadata);
}

Result<EntityStorageLocations> TableLocationsOf(const LocationPolicy& policy,
                                                const CatalogRecord& catalog,
                                                const iceberg::TableMetadata& metadata) {
  CAIRN_ASSIGN_OR_RAISE(
      auto claim, policy.LegacyClaim(catalog, metadata.location, metadata.properties));
  CAIRN_ASSIGN_OR_RAISE(auto location, CanonicalLocation(metadata.location));
  return EntityStorageLocations{std::move(location), std::move(claim.locations)};
}

Result<TableAccess> TableAccessOf(const StorageRegistry& storages,
                                  const EntityStorageLocations& locations, bool vend,
                                  StorageAccess access) {
  TableAccess out;
  out.storage = storages.StorageOf(locations.location);
  if (vend && out.storage != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(out.credentials,
                          storages.Vend(locations.location, locations.claimed, access));
  }
  return out;
}

Result<TableSigningScope> SigningScopeOf(const StorageRegistry& storages,
                                         const EntityStorageLocations& locations) {
  TableSigningScope scope;
  scope.storage = storages.StorageOf(locations.location);
  if (scope.storage == nullptr || !scope.storage->signer) {
    return Unsupported("Remote signing is not enabled for the storage of {}",
                       ShortLocation(locations.location));
  }
  for (const auto& location : locations.claimed) {
    if (storages.StorageOf(location) != scope.storage) {
      return BadRequest("Cannot sign for {}: its location {} is on another storage",
                        ShortLocation(locations.location), ShortLocation(location));
    }
    CAIRN_ASSIGN_OR_RAISE(auto parsed, ParseS3Location(location));
    scope.locations.push_back(std::move(parsed));
  }
  return scope;
}

}  // namespace cairn
