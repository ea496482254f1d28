#pragma once

/// \file
/// \brief The Iceberg REST route table: every endpoint Cairn implements, registered under
/// `/iceberg` and at the root, each with and without `{prefix}`. The same table yields
/// the `endpoints` list of `/v1/config`, so the advertisement cannot drift from the
/// routes.

#include <string>
#include <vector>

#include "catalog/catalog_service.h"
#include "catalog/table_service.h"
#include "catalog/view_service.h"
#include "http/idempotency.h"
#include "http/router.h"

namespace cairn::iceberg_rest {

/// \brief `"<VERB> <path template>"` for every implemented catalog route, as the spec
/// writes them (with `{prefix}`); `/v1/config` itself is not listed.
std::vector<std::string> AdvertisedEndpoints();

/// \brief Adds all Iceberg REST routes to `router`. The services must outlive the router.
/// With `idempotency`, mutating routes honour `Idempotency-Key` and `/v1/config`
/// advertises `idempotency-key-lifetime`.
void AddIcebergRoutes(Router& router, CatalogService& catalog, TableService& tables,
                      ViewService& views,
                      const IdempotentHandlers* idempotency = nullptr);

}  // namespace cairn::iceberg_rest
