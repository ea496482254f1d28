#pragma once

/// \file
/// \brief The Iceberg metrics reports kept in the store, read through the management API
/// (a plain function, thread-safe): `GET /management/v1/catalogs/{catalog}/namespaces/
/// {namespace}/tables/{table}/metrics-reports` with the optional query parameters
/// `from-ms` (inclusive) and `to-ms` (exclusive) — when Cairn received the report, in
/// milliseconds since the epoch — `report-type` (`scan-report`, `commit-report`),
/// `pageSize` (1 to 1000, default 100; a page holds at most 200) and `pageToken`. The
/// answer:
/// `{"reports":[{"id","report-type","reported-at-ms","report"}], "next-page-token"?}`,
/// oldest first, each `report` as the client sent it.

#include "catalog/table_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief The management path of a table's metrics reports (its `{prefix}` is the
/// catalog).
inline constexpr const char* kMetricsReportsPath =
    "/management/v1/catalogs/{prefix}/namespaces/{namespace}/tables/{table}/"
    "metrics-reports";

/// \brief One page of the table's kept reports. Errors: `kBadRequest` naming a query
/// parameter that is not a whole number (or `from-ms` after `to-ms`); those of
/// `TableService::ListMetricsReports`.
Result<Response> ListMetricsReports(TableService& tables, const Request& request);

}  // namespace cairn::iceberg_rest
