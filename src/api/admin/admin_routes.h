#pragma once

/// \file
/// \brief Operations endpoints: `/health`, `/health/live`, `/health/ready` (ready only
/// when the store answers) and `/metrics` (Prometheus text).

#include "catalog/catalog_service.h"
#include "http/metrics.h"
#include "http/router.h"

namespace cairn {

/// \brief Adds the operations routes. `catalog` and `metrics` must outlive the router.
void AddAdminRoutes(Router& router, CatalogService& catalog, const HttpMetrics& metrics);

}  // namespace cairn
