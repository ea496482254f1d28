#pragma once

/// \file
/// \brief Table maintenance through the management API (plain functions, thread-safe):
/// `POST /management/v1/catalogs/{catalog}/namespaces/{namespace}/tables/{table}/
/// maintenance/expire-snapshots` with `{"dry-run"?, "older-than-ms"?, "retain-last"?}`,
/// and `.../maintenance/remove-orphan-files` with `{"dry-run"?, "older-than-ms"?}`.

#include "catalog/table_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief The management path of snapshot expiration (its `{prefix}` is the catalog).
inline constexpr const char* kExpireSnapshotsPath =
    "/management/v1/catalogs/{prefix}/namespaces/{namespace}/tables/{table}/maintenance/"
    "expire-snapshots";

/// \brief Expires the table's snapshots (`TableService::ExpireSnapshots`) and answers
/// what was (or, with `dry-run`, would be) removed. Errors: `kBadRequest` for a body
/// field of the wrong type or a `retain-last` below 1; those of `ExpireSnapshots`.
Result<Response> ExpireSnapshots(TableService& tables, const Request& request);

/// \brief The management path of orphan-file removal.
inline constexpr const char* kRemoveOrphanFilesPath =
    "/management/v1/catalogs/{prefix}/namespaces/{namespace}/tables/{table}/maintenance/"
    "remove-orphan-files";

/// \brief Removes the table's orphan files (`TableService::RemoveOrphanFiles`) and
/// answers what was (or would be) deleted. Errors: `kBadRequest` for a body field of the
/// wrong type; those of `RemoveOrphanFiles`.
Result<Response> RemoveOrphanFiles(TableService& tables, const Request& request);

}  // namespace cairn::iceberg_rest
