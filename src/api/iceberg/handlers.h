#pragma once

/// \file
/// \brief Iceberg REST handlers: plain functions from a parsed `Request` to a `Response`
/// or an `Error`. They know the wire format, not HTTP status codes of failures (those
/// come from `http/error_mapping`). Thread-safe.

#include <string>
#include <vector>

#include "catalog/catalog_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief `GET /v1/config[?warehouse=NAME]`: `overrides.prefix` names the catalog,
/// `endpoints` lists `endpoints`. Errors: `kNoSuchWarehouse`.
/// `idempotency_lifetime` (ISO-8601), when not empty, is advertised as
/// `idempotency-key-lifetime`; a `scan_planning_mode`, as `defaults.scan-planning-mode`.
Result<Response> GetConfig(CatalogService& catalog,
                           const std::vector<std::string>& endpoints,
                           std::string_view idempotency_lifetime,
                           std::string_view scan_planning_mode, const Request& request);

/// \brief `GET /v1/{prefix}/namespaces` with `parent`, `pageToken`, `pageSize`.
Result<Response> ListNamespaces(CatalogService& catalog, const Request& request);
/// \brief `POST /v1/{prefix}/namespaces`.
Result<Response> CreateNamespace(CatalogService& catalog, const Request& request);
/// \brief `GET /v1/{prefix}/namespaces/{namespace}`.
Result<Response> LoadNamespace(CatalogService& catalog, const Request& request);
/// \brief `HEAD /v1/{prefix}/namespaces/{namespace}`: 204, or `kNoSuchNamespace`.
Result<Response> NamespaceExists(CatalogService& catalog, const Request& request);
/// \brief `DELETE /v1/{prefix}/namespaces/{namespace}`: 204.
Result<Response> DropNamespace(CatalogService& catalog, const Request& request);
/// \brief `POST /v1/{prefix}/namespaces/{namespace}/properties`.
Result<Response> UpdateNamespaceProperties(CatalogService& catalog,
                                           const Request& request);

}  // namespace cairn::iceberg_rest
