#pragma once

/// \file
/// \brief Iceberg REST scan-planning handlers (plain functions, thread-safe): the four
/// routes of the spec's "Server-side scan planning". A plan belongs to the caller that
/// made it and to its table; for anyone else it does not exist (404).

#include "catalog/table_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::iceberg_rest {

/// \brief `POST .../tables/{table}/plan` (planTableScan): `completed` with the first page
/// of file-scan tasks and the rest as `plan-tasks`, or `submitted` with a plan id for a
/// plan that reads many uncached manifests. `X-Iceberg-Access-Delegation:
/// vended-credentials` adds `storage-credentials` to a completed answer.
Result<Response> PlanTableScan(TableService& tables, const Request& request);
/// \brief `GET .../tables/{table}/plan/{plan-id}` (fetchPlanningResult).
Result<Response> FetchPlanningResult(TableService& tables, const Request& request);
/// \brief `DELETE .../tables/{table}/plan/{plan-id}` (cancelPlanning): 204.
Result<Response> CancelPlanning(TableService& tables, const Request& request);
/// \brief `POST .../tables/{table}/tasks` (fetchScanTasks).
Result<Response> FetchScanTasks(TableService& tables, const Request& request);

}  // namespace cairn::iceberg_rest
