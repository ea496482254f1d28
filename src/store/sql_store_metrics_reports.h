#pragma once

/// \file
/// \brief The metrics report rows of the SQL store (`MetricsReportStore` on `SqlStore`;
/// not for use outside `src/store`). Reports reference their entity with ON DELETE
/// CASCADE, so every way a table goes (drop, purge, a catalog's cascade) takes its
/// reports with it.

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"
#include "store/metrics_report_store.h"

namespace cairn::sql_internal {

class SqlStore;

/// The metrics reports of one `SqlStore`, which must outlive it.
class SqlMetricsReportStore final : public MetricsReportStore {
 public:
  explicit SqlMetricsReportStore(SqlStore& store) : store_(store) {}

  Result<int64_t> AddMetricsReport(const MetricsReportRecord& record) override;
  Result<MetricsReportPage> ListMetricsReports(
      const MetricsReportFilter& filter) override;
  Result<int64_t> PruneMetricsReports(int64_t reported_before_ms, size_t limit) override;

 private:
  /// Counts an insert for `entity_id`: true on every kMetricsReportTrimEvery-th of the
  /// table's inserts through this store (then its reports are trimmed). Per table, so
  /// that tables taking turns cannot all escape the trim (the global id cannot decide
  /// it); per process, so several replicas each trim at their own count.
  bool TrimDue(int64_t entity_id) CAIRN_EXCLUDES(mutex_);

  /// Tables counted at most; past it the counts start again (a trim comes at most
  /// kMetricsReportTrimEvery inserts later).
  static constexpr size_t kMaxCountedTables = 100'000;

  SqlStore& store_;
  Mutex mutex_;
  std::unordered_map<int64_t, int64_t> inserts_since_trim_ CAIRN_GUARDED_BY(mutex_);
};

}  // namespace cairn::sql_internal
