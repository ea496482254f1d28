#pragma once

/// \file
/// \brief Handlers of the Lance table-version operations (managed versioning, see
/// `catalog/lance_versions.h`): plain functions from a parsed `Request` to a `Response`.
/// The table is the path's `{id}` (a body `id` must agree); `branch` comes from the body
/// or, for ListTableVersions, the query string as LanceDB sends it. Thread-safe.

#include "catalog/lance_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::lance_rest {

/// \brief `POST /v1/table/{id}/version/create`.
Result<Response> CreateTableVersion(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/version/describe`.
Result<Response> DescribeTableVersion(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/version/list` (paging and order in the body or the
/// query string).
Result<Response> ListTableVersions(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/{id}/version/delete`: forgets version records.
Result<Response> BatchDeleteTableVersions(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/version/batch-create`: TABLE_WRITE on every table named.
Result<Response> BatchCreateTableVersions(LanceService& lance, const Request& request);
/// \brief `POST /v1/table/batch-commit`: several operations all or none (see
/// `catalog/lance_batch_commit.h`); each needs what its own route needs — TABLE_CREATE
/// on the namespace of a table declared, TABLE_WRITE on a table whose versions are
/// created or deleted, TABLE_DROP on a table deregistered.
Result<Response> BatchCommitTables(LanceService& lance, const Request& request);

}  // namespace cairn::lance_rest
