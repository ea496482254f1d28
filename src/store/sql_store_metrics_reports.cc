// The metrics report rows of the SQL store (see sql_store_metrics_reports.h).

#include "store/sql_store_metrics_reports.h"

#include <algorithm>
#include <string>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

Status CheckReport(const MetricsReportRecord& record) {
  if (record.report.size() > kMaxMetricsReportBytes) {
    return BadRequest("The metrics report has {} bytes; at most {} are kept",
                      record.report.size(), kMaxMetricsReportBytes);
  }
  if (record.report_type.size() > kMaxMetricsReportTypeBytes) {
    return BadRequest("The report-type is longer than {} bytes",
                      kMaxMetricsReportTypeBytes);
  }
  return Ok();
}

}  // namespace

bool SqlMetricsReportStore::TrimDue(int64_t entity_id) {
  MutexLock lock(mutex_);
  if (inserts_since_trim_.size() >= kMaxCountedTables) inserts_since_trim_.clear();
  int64_t& inserts = inserts_since_trim_[entity_id];
  if (++inserts < kMetricsReportTrimEvery) return false;
  inserts_since_trim_.erase(entity_id);
  return true;
}

Result<int64_t> SqlMetricsReportStore::AddMetricsReport(
    const MetricsReportRecord& record) {
  CAIRN_RETURN_IF_ERROR(CheckReport(record));
  const bool trim = TrimDue(record.entity_id);
  return store_.Write(
      WriteContext::Immediate(),
      [&](Lease& conn, WriteTransaction& txn) -> Result<int64_t> {
        // Inserted only while the entity exists: a table dropped meanwhile gives no row
        // (and no foreign key failure to retry).
        CAIRN_ASSIGN_OR_RAISE(
            auto* insert,
            conn->Prepare("INSERT INTO metrics_reports (entity_id, report_type, "
                          "reported_at_ms, report) SELECT ?, ?, ?, ? WHERE EXISTS "
                          "(SELECT 1 FROM entities WHERE id = ?) RETURNING id"));
        Query query(*conn, insert);
        query.Bind(record.entity_id)
            .Bind(record.report_type)
            .Bind(record.reported_at_ms)
            .Bind(record.report)
            .Bind(record.entity_id);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("keep a metrics report"));
        if (!row) return NoSuchTable("The table was dropped");
        const int64_t id = query.Int(0);
        // Every so often, the table's reports beyond the newest
        // kMaxMetricsReportsPerTable go (a walk of that many index entries, so not on
        // every report).
        if (trim) {
          CAIRN_ASSIGN_OR_RAISE(
              auto* trim_statement,
              conn->Prepare(
                  "DELETE FROM metrics_reports WHERE entity_id = ? AND id < "
                  "(SELECT id FROM metrics_reports WHERE entity_id = ? ORDER BY "
                  "id DESC LIMIT 1 OFFSET ?)"));
          Query trimmed(*conn, trim_statement);
          CAIRN_RETURN_IF_ERROR(trimmed.Bind(record.entity_id)
                                    .Bind(record.entity_id)
                                    .Bind(kMaxMetricsReportsPerTable - 1)
                                    .Run("trim metrics reports"));
        }
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return id;
      });
}

Result<MetricsReportPage> SqlMetricsReportStore::ListMetricsReports(
    const MetricsReportFilter& filter) {
  const size_t limit = std::clamp<size_t>(filter.limit, 1, kMaxMetricsReportBatch);
  return store_.Read([&](Lease& conn) -> Result<MetricsReportPage> {
    // By the (entity_id, id) index: a page reads at most limit + 1 matching rows, plus
    // those of the table outside the time range or type.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn->Prepare("SELECT id, report_type, reported_at_ms, report FROM "
                                  "metrics_reports WHERE entity_id = ? AND id > ? AND "
                                  "reported_at_ms >= ? AND reported_at_ms < ? AND "
                                  "(? = '' OR report_type = ?) ORDER BY id LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(filter.entity_id)
        .Bind(filter.after_id)
        .Bind(filter.from_ms)
        .Bind(filter.to_ms)
        .Bind(filter.report_type)
        .Bind(filter.report_type)
        .Bind(static_cast<int64_t>(limit + 1));
    MetricsReportPage page;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list metrics reports"));
      if (!row) return page;
      if (page.reports.size() == limit) {
        page.has_more = true;
        return page;
      }
      page.reports.push_back(MetricsReportRecord{query.Int(0), filter.entity_id,
                                                 query.Text(1), query.Int(2),
                                                 query.TakeText(3)});
    }
  });
}

Result<int64_t> SqlMetricsReportStore::PruneMetricsReports(int64_t reported_before_ms,
                                                           size_t limit) {
  const auto bounded = static_cast<int64_t>(std::min(limit, kMaxMetricsReportBatch));
  return store_.Write(
      WriteContext::Immediate(),
      [&](Lease& conn, WriteTransaction& txn) -> Result<int64_t> {
        // The ids first, by the reported_at_ms index: one call reads and deletes at most
        // `bounded` rows however many are due.
        CAIRN_ASSIGN_OR_RAISE(
            auto* prune,
            conn->Prepare("DELETE FROM metrics_reports WHERE id IN (SELECT id FROM "
                          "metrics_reports WHERE reported_at_ms < ? ORDER BY "
                          "reported_at_ms LIMIT ?)"));
        Query query(*conn, prune);
        CAIRN_RETURN_IF_ERROR(
            query.Bind(reported_before_ms).Bind(bounded).Run("prune metrics reports"));
        const int64_t pruned = query.Changes();
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return pruned;
      });
}

}  // namespace cairn::sql_internal
