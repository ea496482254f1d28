#pragma once

/// \file
/// \brief The management API's catalog routes under `/management/v1`, so that a catalog
/// can be added without the Lance routes. Errors use the Iceberg error model.
///
///   GET    /management/v1/catalogs[?pageToken=&pageSize=]  → {"catalogs": [...]}
///   POST   /management/v1/catalogs            {"name", "warehouse"?, "properties"?}
///                                             → 201, the catalog
///   GET    /management/v1/catalogs/{catalog}  → the catalog
///   PATCH  /management/v1/catalogs/{catalog}  {"updates"?: {...}, "removals"?: [...]}
///                                             → the catalog
///   DELETE /management/v1/catalogs/{catalog}  → 204 (only when it holds no namespace)
///
/// A catalog: `{"name", "warehouse", "default": bool, "properties": {...},
/// "storage": {...}}`. `storage` describes the configured object storage whose locations
/// hold the warehouse (name, endpoint, region, addressing, how it vends credentials,
/// whether it signs) — never a secret — and is absent for a local warehouse. Storages
/// are the operator's (`[storage.NAME]` in the configuration): a request picks one only
/// by the warehouse it names. The warehouse never moves once created.
///
/// Access: listing shows the catalogs the caller holds a grant in (every catalog with
/// CATALOG_MANAGE on the service); create, update and delete need CATALOG_MANAGE on the
/// catalog; describe needs some grant on it.

#include "catalog/catalog_service.h"
#include "catalog/storage_registry.h"
#include "http/router.h"

namespace cairn {

/// \brief Adds the routes; `catalogs` and `storages` must outlive the router.
void AddCatalogRoutes(Router& router, CatalogService& catalogs,
                      const StorageRegistry& storages);

}  // namespace cairn
