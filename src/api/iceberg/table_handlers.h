#pragma once

#include <optional>

/// \file
/// \brief Iceberg REST table handlers (plain functions, thread-safe). Table routes answer
/// a missing namespace with `NoSuchTableException` where the Java client expects it
/// (load, exists, drop, commit), and with `NoSuchNamespaceException` on list and create.

#include "catalog/table_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief `GET /v1/{prefix}/namespaces/{namespace}/tables`.
Result<Response> ListTables(TableService& tables, const Request& request);
/// \brief `POST /v1/{prefix}/namespaces/{namespace}/tables` (also `stage-create`).
Result<Response> CreateTable(TableService& tables, const Request& request);
/// \brief `GET .../tables/{table}` with `snapshots=all|refs`; `ETag`; `If-None-Match` ⇒
/// 304. `X-Iceberg-Access-Delegation: vended-credentials` adds `storage-credentials`
/// for a table on a storage that vends them (and `Cache-Control: no-store`, no ETag).
/// Also the storage's endpoint, region and addressing in `config` for a table on S3.
Result<Response> LoadTable(TableService& tables, const Request& request);
/// \brief `GET .../tables/{table}/credentials` (loadCredentials): fresh credentials for
/// the table's locations; an empty list when its storage vends none.
Result<Response> LoadCredentials(TableService& tables, const Request& request);
/// \brief LoadTable's fast path (a route's `fast` handler): the same answer when the
/// pointer read finds the metadata cached (or the client's copy current), else nullopt.
std::optional<Response> LoadTableIfCached(TableService& tables, const Request& request);
/// \brief `HEAD .../tables/{table}`: 204, or `kNoSuchTable`.
Result<Response> TableExists(TableService& tables, const Request& request);
/// \brief `POST .../tables/{table}`: a commit (CommitTableRequest).
Result<Response> CommitTable(TableService& tables, const Request& request);
/// \brief `DELETE .../tables/{table}` with `purgeRequested`.
Result<Response> DropTable(TableService& tables, const Request& request);
/// \brief `POST /v1/{prefix}/tables/rename`.
Result<Response> RenameTable(TableService& tables, const Request& request);
/// \brief `POST /v1/{prefix}/namespaces/{namespace}/register`.
Result<Response> RegisterTable(TableService& tables, const Request& request);
/// \brief `POST /v1/{prefix}/transactions/commit`: all tables change or none; 204.
Result<Response> CommitTransaction(TableService& tables, const Request& request);
/// \brief `POST .../tables/{table}/metrics`: checked, logged, 204.
Result<Response> ReportMetrics(TableService& tables, const Request& request);

/// \brief The ETag of a representation: a hash of the metadata location and the
/// snapshots mode, quoted.
std::string TableETag(std::string_view metadata_location, SnapshotsMode mode);

}  // namespace cairn::iceberg_rest
