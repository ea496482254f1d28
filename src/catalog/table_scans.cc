// TableService: server-side scan planning (planTableScan and the calls that follow it).
#include <utility>

#include "catalog/table_access.h"
#include "catalog/table_service.h"
#include "common/macros.h"

namespace cairn {

void TableService::ConfigureScanPlanning(const ScanPlanningOptions& options) {
  planning_options_ = options;
  manifests_.SetCacheBytes(options.manifest_cache_bytes);
  plans_.reset();  // its thread stops before the new one starts
  plans_ = std::make_unique<ScanPlans>(planning_options_.plans, clock_);
}

namespace {

LocationClaim ClaimOf(const EntityStorageLocations& locations) {
  LocationClaim claim;
  claim.locations = locations.claimed;
  return claim;
}

}  // namespace

Result<PlannedScan> TableService::PlanTableScan(std::string_view catalog,
                                                const TableIdent& ident,
                                                const ScanRequest& request,
                                                const std::string& principal, bool vend,
                                                StorageAccess access) {
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
  CAIRN_ASSIGN_OR_RAISE(
      auto locations, TableLocationsOf(catalogs_.locations(), record, *current.metadata));
  const LocationClaim claim = ClaimOf(locations);
  const PlanOwner owner{record.name, current.metadata->table_uuid, principal};
  CAIRN_ASSIGN_OR_RAISE(uint64_t uncached, planner_.UncachedManifestBytes(
                                               *current.metadata, claim, request));
  if (uncached > planning_options_.async_manifest_bytes) {
    auto work = [this, metadata = current.metadata, claim, request]() {
      return planner_.Plan(metadata, claim, request);
    };
    CAIRN_ASSIGN_OR_RAISE(auto view, plans_->Submit(owner, std::move(work)));
    return PlannedScan{std::move(view), {}};
  }
  CAIRN_ASSIGN_OR_RAISE(auto plan, planner_.Plan(current.metadata, claim, request));
  PlanView view =
      plans_->AddCompleted(owner, std::make_shared<const ScanPlan>(std::move(plan)));
  CAIRN_ASSIGN_OR_RAISE(auto table_access,
                        TableAccessOf(storages_, locations, vend, access));
  return PlannedScan{std::move(view), std::move(table_access)};
}

Result<PlannedScan> TableService::FetchPlanningResult(std::string_view catalog,
                                                      const TableIdent& ident,
                                                      std::string_view plan_id,
                                                      const std::string& principal,
                                                      bool vend, StorageAccess access) {
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
  const PlanOwner owner{record.name, current.metadata->table_uuid, principal};
  CAIRN_ASSIGN_OR_RAISE(auto view, plans_->Find(plan_id, owner));
  TableAccess table_access;
  if (view.status == PlanStatus::kCompleted && vend) {
    CAIRN_ASSIGN_OR_RAISE(auto locations, TableLocationsOf(catalogs_.locations(), record,
                                                           *current.metadata));
    CAIRN_ASSIGN_OR_RAISE(table_access,
                          TableAccessOf(storages_, locations, vend, access));
  }
  return PlannedScan{std::move(view), std::move(table_access)};
}

Status TableService::CancelPlanning(std::string_view catalog, const TableIdent& ident,
                                    std::string_view plan_id,
                                    const std::string& principal) {
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
  return plans_->Cancel(plan_id,
                        PlanOwner{record.name, current.metadata->table_uuid, principal});
}

Result<PlanPage> TableService::FetchScanTasks(std::string_view catalog,
                                              const TableIdent& ident,
                                              std::string_view plan_task,
                                              const std::string& principal) {
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(auto current, LoadCurrent(record, ident));
  return plans_->Page(plan_task,
                      PlanOwner{record.name, current.metadata->table_uuid, principal});
}

}  // namespace cairn
