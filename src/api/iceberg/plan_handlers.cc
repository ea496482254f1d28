#include "api/iceberg/plan_handlers.h"

#include "api/iceberg/access_rules.h"
#include "api/iceberg/plan_serde.h"
#include "api/iceberg/request_util.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn::iceberg_rest {
namespace {

std::string PrincipalOf(const Request& request) {
  return request.caller ? request.caller->principal : std::string();
}

Result<std::string> PlanIdOf(const Request& request) {
  return FormDecodeSegment(request.PathParam("plan-id"));
}

Response PlanResponse(const PlannedScan& scan, const TableService& tables,
                      bool with_plan_id) {
  Response response =
      Response::Json(PlanResultToJson(scan, tables.plans(), with_plan_id));
  // Vended credentials, and plans in general, are for this caller and this moment.
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace

Result<Response> PlanTableScan(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto scan_request, PlanTableScanRequestFromJson(request.body));
  const StorageAccess access =
      VendedAccess(request, TableSecurable(tables.catalogs(), catalog, ident));
  CAIRN_ASSIGN_OR_RAISE(
      auto scan, tables.PlanTableScan(catalog, ident, scan_request, PrincipalOf(request),
                                      AsksForCredentials(request), access));
  return PlanResponse(scan, tables, /*with_plan_id=*/true);
}

Result<Response> FetchPlanningResult(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto plan_id, PlanIdOf(request));
  const StorageAccess access =
      VendedAccess(request, TableSecurable(tables.catalogs(), catalog, ident));
  CAIRN_ASSIGN_OR_RAISE(
      auto scan, tables.FetchPlanningResult(catalog, ident, plan_id, PrincipalOf(request),
                                            AsksForCredentials(request), access));
  return PlanResponse(scan, tables, /*with_plan_id=*/false);
}

Result<Response> CancelPlanning(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto plan_id, PlanIdOf(request));
  CAIRN_RETURN_IF_ERROR(
      tables.CancelPlanning(catalog, ident, plan_id, PrincipalOf(request)));
  return Response::NoContent();
}

Result<Response> FetchScanTasks(TableService& tables, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, TableOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto plan_task, FetchScanTasksRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(
      auto page, tables.FetchScanTasks(catalog, ident, plan_task, PrincipalOf(request)));
  Response response = Response::Json(ScanTasksToJson(page));
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace cairn::iceberg_rest
