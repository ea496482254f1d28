#pragma once

/// \file
/// \brief What an engine gets with a table besides its metadata: how to reach the table's
/// storage (endpoint, region, addressing) and, when it asks for them, credentials
/// confined to the table's locations (`storage_registry.h`). Shared by the Iceberg
/// (`X-Iceberg-Access-Delegation`, loadCredentials) and Lance (`vend_credentials`)
/// routes, which render it in their own keys.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/location_policy.h"
#include "catalog/storage_registry.h"
#include "common/result.h"
#include "iceberg/table_metadata.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief The storage side of a table, as the protocols hand it out.
struct TableAccess {
  /// The storage the table lives on; null for local files (nothing to tell).
  const StorageDescription* storage = nullptr;
  /// Credentials, when asked for and the storage vends them.
  std::optional<TableCredentials> credentials;
};

/// \brief Where an entity's files are: its location and the locations it owns (its
/// location and path properties, canonical).
struct EntityStorageLocations {
  std::string location;
  std::vector<std::string> claimed;
};

/// \brief The locations of the table whose metadata is `metadata_json`, in canonical
/// form, as its claim has them (not confined again: the table's commits were).
/// Errors: `kInternal` when `metadata_json` (the stored metadata) does not parse;
/// `kBadRequest` for metadata without a valid location.
Result<EntityStorageLocations> TableLocationsOf(const LocationPolicy& policy,
                                                const CatalogRecord& catalog,
                                                std::string_view metadata_json);
/// \brief The same, from parsed metadata (no parse: for callers with a cached model).
Result<EntityStorageLocations> TableLocationsOf(const LocationPolicy& policy,
                                                const CatalogRecord& catalog,
                                                const iceberg::TableMetadata& metadata);

/// \brief What remote signing may sign for one table: its storage (with the keys to sign
/// with) and the locations it owns there.
struct TableSigningScope {
  const StorageDescription* storage = nullptr;
  std::vector<S3Location> locations;
};

/// \brief The signing scope of the table at `locations`. Errors: `kUnsupported` when its
/// storage does not offer remote signing (or it is local); `kBadRequest` when a location
/// it owns is on another storage.
Result<TableSigningScope> SigningScopeOf(const StorageRegistry& storages,
                                         const EntityStorageLocations& locations);

/// \brief The access to a table at `locations`; with `vend`, credentials for `access`.
/// Errors: those of `StorageRegistry::Vend`.
Result<TableAccess> TableAccessOf(const StorageRegistry& storages,
                                  const EntityStorageLocations& locations, bool vend,
                                  StorageAccess access);

}  // namespace cairn
