#pragma once

/// \file
/// \brief Forgets finished Lance transactions (SUCCEEDED, FAILED, CANCELED) once they
/// have not changed for the retention period, so that their records do not pile up in
/// the store forever. QUEUED and RUNNING ones are never pruned: their work is not done.
/// A pruned transaction is gone: DescribeTransaction answers that it does not exist.
///
/// Thread-safe. Owns one background thread between `Start` and destruction.

#include <chrono>
#include <cstdint>
#include <functional>

#include "catalog/retention_pruner.h"
#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Default retention of finished Lance transactions: 7 days.
inline constexpr std::chrono::seconds kDefaultLanceTransactionRetention{7 * 24 * 3600};

class LanceTransactionPruner {
 public:
  /// \brief `store` must outlive the pruner; `clock` returns milliseconds since the
  /// epoch. A `retention` of 0 keeps every transaction (`Start` does nothing).
  LanceTransactionPruner(MetaStore& store, std::function<int64_t()> clock,
                         std::chrono::seconds retention);

  /// \brief Starts pruning on the background thread: at once, then every
  /// `RetentionPruner::IntervalFor(retention)`. A failure is logged and retried at the
  /// next run. Call once.
  void Start() { pruner_.Start(); }

  /// \brief Prunes now, in the caller's thread: every finished transaction last updated
  /// more than the retention ago, in batches. Returns how many it removed (0 with a
  /// retention of 0). Errors: the store's.
  Result<int64_t> PruneNow() { return pruner_.PruneNow(); }

 private:
  RetentionPruner pruner_;
};

}  // namespace cairn
