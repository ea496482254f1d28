#pragma once

/// \file
/// \brief The JSON of the scan-planning routes: `PlanTableScanRequest` and
/// `FetchScanTasksRequest` in, `PlanTableScanResult`, `FetchPlanningResult` and
/// `FetchScanTasksResult` out — in the shapes Java 1.11, PyIceberg and DuckDB parse:
/// tasks (`plan-tasks`, `file-scan-tasks`) only with `completed`; content files with
/// Java's keys, partition values as JSON single values in spec order, bounds as the
/// upper-case hex of their binary serialization; `delete-files` per answer, referenced
/// by index; residual filters in the older `term` form.

#include <string>
#include <string_view>

#include "catalog/scan_plans.h"
#include "catalog/table_access.h"
#include "catalog/table_service.h"
#include "common/result.h"

namespace cairn::iceberg_rest {

/// \brief Errors: `kBadRequest` naming the field (a wrong type, `"filter": null`, a
/// filter `ExpressionFromJson` refuses). An empty body plans the latest snapshot.
Result<ScanRequest> PlanTableScanRequestFromJson(std::string_view body);

/// \brief The `plan-task` of a `FetchScanTasksRequest`. Errors: `kBadRequest`.
Result<std::string> FetchScanTasksRequestFromJson(std::string_view body);

/// \brief The answer of planTableScan (`with_plan_id`) or fetchPlanningResult; the first
/// page of a completed plan inline, the other pages as `plan-tasks`.
std::string PlanResultToJson(const PlannedScan& scan, const ScanPlans& plans,
                             bool with_plan_id);

/// \brief The answer of fetchScanTasks.
std::string ScanTasksToJson(const PlanPage& page);

}  // namespace cairn::iceberg_rest
