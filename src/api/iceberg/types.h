#pragma once

/// \file
/// \brief Request and response payloads of the Iceberg REST namespace and config routes,
/// as plain structs. Their JSON forms live in `api/iceberg/json_serde`.

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog_service.h"
#include "common/namespace_path.h"

namespace cairn::iceberg_rest {

/// \brief `CreateNamespaceRequest`: `{namespace: [..], properties?: {..}}`.
struct CreateNamespaceRequest {
  NamespacePath ns;  ///< required; `namespace` on the wire
  Properties properties;
};

/// \brief `UpdateNamespacePropertiesRequest`: `{removals?: [..], updates?: {..}}`.
struct UpdateNamespacePropertiesRequest {
  std::vector<std::string> removals;
  Properties updates;
};

/// \brief `CatalogConfig`: `{defaults, overrides, endpoints}`.
struct CatalogConfig {
  Properties defaults;
  Properties overrides;
  std::vector<std::string> endpoints;
  /// `idempotency-key-lifetime` (ISO-8601 duration); empty = keys are not supported.
  std::string idempotency_key_lifetime;
};

}  // namespace cairn::iceberg_rest
