// TableService: the Iceberg metrics reports it keeps (see table_service.h).

#include <utility>

#include "catalog/entity_common.h"
#include "catalog/names.h"
#include "catalog/table_service.h"
#include "common/macros.h"

namespace cairn {
namespace {

/// The table's entity id, when `ident` names an Iceberg table of `catalog_id`.
Result<int64_t> IcebergTableId(MetaStore& store, int64_t catalog_id,
                               const TableIdent& ident) {
  CAIRN_ASSIGN_OR_RAISE(auto pointer,
                        store.LoadEntityPointer(catalog_id, ident.ns, ident.name));
  if (!pointer || pointer->kind != EntityKind::kIcebergTable) {
    return NoSuchTable("Table does not exist: {}", DottedName(ident));
  }
  return pointer->id;
}

}  // namespace

Status TableService::KeepMetricsReport(std::string_view catalog, const TableIdent& ident,
                                       std::string_view report_type, std::string report) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(int64_t entity_id, IcebergTableId(store_, record.id, ident));
  if (!keep_metrics_reports_) return Ok();
  auto kept = store_.metrics_reports().AddMetricsReport(MetricsReportRecord{
      0, entity_id, std::string(report_type), clock_(), std::move(report)});
  if (!kept) {
    // A table dropped between the lookup and the insert: as if it had gone first.
    if (kept.error().kind == ErrorKind::kNoSuchTable) {
      return NoSuchTable("Table does not exist: {}", DottedName(ident));
    }
    return tl::unexpected(kept.error());
  }
  return Ok();
}

Result<MetricsReportPage> TableService::ListMetricsReports(std::string_view catalog,
                                                           const TableIdent& ident,
                                                           MetricsReportFilter filter) {
  CAIRN_RETURN_IF_ERROR(ValidateIdent("table name", ident));
  CAIRN_ASSIGN_OR_RAISE(auto record, catalogs_.ResolveCatalog(catalog));
  CAIRN_ASSIGN_OR_RAISE(filter.entity_id, IcebergTableId(store_, record.id, ident));
  return store_.metrics_reports().ListMetricsReports(filter);
}

}  // namespace cairn
