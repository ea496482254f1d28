#pragma once

/// \file
/// \brief Iceberg metrics reports (`reportMetrics` bodies) kept in the store: one row per
/// report, tied to its table's entity (dropping the table drops its reports) and
/// forgotten after a retention period. The store knows neither Iceberg nor JSON: a
/// report is opaque text the caller checked.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief The largest report text the store keeps (bytes): real reports have a few KiB;
/// the bound keeps a caller who may only read a table from filling the store.
inline constexpr size_t kMaxMetricsReportBytes = size_t{64} << 10;
/// \brief The most reports kept per table: older ones go as new ones come (checked at
/// every `kMetricsReportTrimEvery`-th report of the table a process stores, so a table
/// may briefly hold that many more per replica).
inline constexpr int64_t kMaxMetricsReportsPerTable = 10'000;
inline constexpr int64_t kMetricsReportTrimEvery = 64;
/// \brief The longest `report_type` the store keeps (bytes).
inline constexpr size_t kMaxMetricsReportTypeBytes = 256;
/// \brief The most reports one `ListMetricsReports` page or `PruneMetricsReports` call
/// handles, whatever the caller asks.
inline constexpr size_t kMaxMetricsReportBatch = 10'000;

struct MetricsReportRecord {
  /// Assigned by the store, increasing with every report it keeps.
  int64_t id = 0;
  /// The table's entity (`EntityPointer::id`).
  int64_t entity_id = 0;
  std::string report_type;
  /// When Cairn received it (milliseconds since the epoch).
  int64_t reported_at_ms = 0;
  /// The report as JSON text.
  std::string report;
};

/// \brief Which reports of one table a listing returns: received in
/// `[from_ms, to_ms)`, of `report_type` (empty: any), with ids above `after_id`, by
/// increasing id.
struct MetricsReportFilter {
  int64_t entity_id = 0;
  int64_t from_ms = std::numeric_limits<int64_t>::min();
  int64_t to_ms = std::numeric_limits<int64_t>::max();
  std::string report_type;
  int64_t after_id = 0;
  size_t limit = 100;
};

struct MetricsReportPage {
  std::vector<MetricsReportRecord> reports;
  /// More reports match after the last one of this page.
  bool has_more = false;
};

/// \brief Thread-safe, as the store it belongs to.
class MetricsReportStore {
 public:
  virtual ~MetricsReportStore() = default;

  /// \brief Keeps `record` (its `id` is ignored) and returns its id; past
  /// `kMaxMetricsReportsPerTable` reports of the table, the oldest go. Errors:
  /// `kBadRequest` when the report or its type is longer than the limits above;
  /// `kNotFound`-class `NoSuchTable` when the entity no longer exists (dropped
  /// meanwhile); the store's.
  virtual Result<int64_t> AddMetricsReport(const MetricsReportRecord& record) = 0;

  /// \brief One page of the reports `filter` selects (at most `filter.limit`, itself at
  /// most `kMaxMetricsReportBatch`). Errors: the store's.
  virtual Result<MetricsReportPage> ListMetricsReports(
      const MetricsReportFilter& filter) = 0;

  /// \brief Removes up to `limit` (at most `kMaxMetricsReportBatch`) reports received
  /// before `reported_before_ms`, oldest first; returns how many. Errors: the store's.
  virtual Result<int64_t> PruneMetricsReports(int64_t reported_before_ms,
                                              size_t limit) = 0;
};

}  // namespace cairn
