#pragma once

/// \file
/// \brief `cairn_lance_transactions{status}` on `/metrics`: how many Lance transaction
/// records the store holds in each status (QUEUED, RUNNING, SUCCEEDED, FAILED,
/// CANCELED). Store-wide, so every replica reports the same numbers (aggregate with
/// `max`, not `sum`). A background thread counts them (one grouped count every
/// `kRefresh`); a scrape only reads the last counts, so `/metrics` never waits on the
/// store. A count that fails leaves the last numbers and is logged at debug.
///
/// Thread-safe. Owns one background thread.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "common/op_metrics.h"
#include "common/periodic_thread.h"
#include "store/meta_store.h"

namespace cairn {

class LanceTransactionGauges {
 public:
  /// \brief Time between two counts.
  static constexpr std::chrono::seconds kRefresh{2};

  /// \brief Registers the gauges and starts counting (at once, then every `kRefresh`);
  /// `store` must outlive this object.
  explicit LanceTransactionGauges(MetaStore& store);
  LanceTransactionGauges(const LanceTransactionGauges&) = delete;
  LanceTransactionGauges& operator=(const LanceTransactionGauges&) = delete;

 private:
  /// Counts the records by status into `counts_`.
  void Refresh();

  MetaStore& store_;
  std::array<std::atomic<int64_t>, 5> counts_{};
  /// Leave the family before the counts go: no scrape reads them afterwards.
  std::vector<metrics::GaugeFamily::Source> sources_;
  /// Declared last: stopped first, while the store and the counts still exist.
  PeriodicThread thread_;
};

}  // namespace cairn
