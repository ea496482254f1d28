#pragma once

/// \file
/// \brief `cairn_lance_transactions{status}` on `/metrics`: how many Lance transaction
/// records the store holds in each status (QUEUED, RUNNING, SUCCEEDED, FAILED,
/// CANCELED). Store-wide, so every replica reports the same numbers (aggregate with
/// `max`, not `sum`). Read at scrape time with one grouped count, shared by the five
/// series of one scrape; a store that does not answer leaves the last numbers.
///
/// Thread-safe.

#include <array>
#include <chrono>
#include <cstdint>
#include <vector>

#include "common/mutex.h"
#include "common/op_metrics.h"
#include "common/thread_annotations.h"
#include "store/meta_store.h"

namespace cairn {

class LanceTransactionGauges {
 public:
  /// \brief Registers the gauges; `store` must outlive this object, which must be
  /// destroyed before the store.
  explicit LanceTransactionGauges(MetaStore& store);
  LanceTransactionGauges(const LanceTransactionGauges&) = delete;
  LanceTransactionGauges& operator=(const LanceTransactionGauges&) = delete;

  /// \brief The count of status `index` (in `LanceTransactionStatus` order), read again
  /// from the store when the last read is older than a second.
  double Count(size_t index) CAIRN_EXCLUDES(mutex_);

 private:
  /// Counts older than this are read again: the five series of one scrape share a read.
  static constexpr std::chrono::seconds kFreshFor{1};

  MetaStore& store_;
  Mutex mutex_;
  std::array<int64_t, 5> counts_ CAIRN_GUARDED_BY(mutex_){};
  std::chrono::steady_clock::time_point read_at_ CAIRN_GUARDED_BY(mutex_){};
  bool ever_read_ CAIRN_GUARDED_BY(mutex_) = false;
  /// Declared last: they leave the family (no scrape calls Count) before the rest goes.
  std::vector<metrics::GaugeFamily::Source> sources_;
};

}  // namespace cairn
