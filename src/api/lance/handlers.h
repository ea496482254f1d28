#pragma once

/// \file
/// \brief Lance REST Namespace handlers: plain functions from a parsed `Request` to a
/// `Response` or an `Error`. Each reads the delimiter and the `{id}` path segment, parses
/// the body in either spec version's shape, checks that a body id agrees with the path,
/// and calls the `LanceService`. Thread-safe.

#include "catalog/lance_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::lance_rest {

/// \brief `POST /v1/namespace/{id}/create`.
Result<Response> CreateNamespace(LanceService& lance, const Request& request);
/// \brief `GET` (current) or `POST` (0.0.1) `/v1/namespace/{id}/list`.
Result<Response> ListNamespaces(LanceService& lance, const Request& request);
/// \brief `POST /v1/namespace/{id}/describe`.
Result<Response> DescribeNamespace(LanceService& lance, const Request& request);
/// \brief `POST /v1/namespace/{id}/drop`.
Result<Response> DropNamespace(LanceService& lance, const Request& request);
/// \brief `POST /v1/namespace/{id}/exists`: 200 `{"exists": true}`, or a not-found error.
Result<Response> NamespaceExists(LanceService& lance, const Request& request);
/// \brief `GET /v1/namespace/{id}/table/list`.
Result<Response> ListTables(LanceService& lance, const Request& request);
/// \brief `GET /v1/table`: every Lance table, ids joined with the delimiter.
Result<Response> ListAllTables(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/register`.
Result<Response> RegisterTable(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/declare`.
Result<Response> DeclareTable(LanceService& lance, const Request& request);
// DescribeTable and GetTableStats: api/lance/manifest_handlers.h.
/// \brief `POST /v1/table/{id}/exists`: 200 `{"exists": true}`, or a not-found error.
Result<Response> TableExists(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/drop` (with or without a body).
Result<Response> DropTable(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/deregister`.
Result<Response> DeregisterTable(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/rename`.
Result<Response> RenameTable(LanceService& lance, const Request& request);
/// \brief `POST /v1/transaction/{id}/describe`.
Result<Response> DescribeTransaction(LanceService& lance, const Request& request);
/// \brief `POST /v1/transaction/{id}/alter`.
Result<Response> AlterTransaction(LanceService& lance, const Request& request);

}  // namespace cairn::lance_rest
