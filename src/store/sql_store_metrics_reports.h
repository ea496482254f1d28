#pragma once

/// \file
/// \brief The metrics report rows of the SQL store (`MetricsReportStore` on `SqlStore`;
/// not for use outside `src/store`). Reports reference their entity with ON DELETE
/// CASCADE, so every way a table goes (drop, purge, a catalog's cascade) takes its
/// reports with it.

#include <cstddef>
#include <cstdint>

#include "common/result.h"
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
  SqlStore& store_;
};

}  // namespace cairn::sql_internal
