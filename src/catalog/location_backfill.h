#pragma once

/// \file
/// \brief Claims the locations of entities created before the store kept claims (schema
/// v8 on SQLite, v4 on PostgreSQL), so that the overlap check sees them too. Run once at
/// start; entities claimed already are not read again.

#include "catalog/catalog_service.h"
#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Records the claim of every unclaimed entity: an Iceberg table's or view's
/// location and path properties (read from the metadata the store holds), a Lance
/// table's location. Overlaps among such entities are recorded as they are, with a
/// warning: the check then protects each of them from new entities. An entity whose
/// location cannot be read is skipped with a warning (and tried again at the next start).
/// Errors: those of the store.
Status ClaimLegacyLocations(MetaStore& store, CatalogService& catalogs);

}  // namespace cairn
