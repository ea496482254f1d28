#pragma once

/// \file
/// \brief Forgets records older than a retention period, in bounded batches, at once and
/// then periodically on a background thread: the shared engine of the prunings of
/// finished Lance transactions and of kept metrics reports.
///
/// Thread-safe. Owns one background thread between `Start` and destruction.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "common/periodic_thread.h"
#include "common/result.h"

namespace cairn {

class RetentionPruner {
 public:
  /// \brief Removes up to `limit` records older than `before_ms` (milliseconds since
  /// the epoch) and returns how many it removed.
  using PruneBatch = std::function<Result<int64_t>(int64_t before_ms, size_t limit)>;

  /// \brief `what` names the records in the log ("finished Lance transaction(s)");
  /// `clock` returns milliseconds since the epoch. A `retention` of 0 prunes nothing
  /// (`Start` does nothing).
  RetentionPruner(std::string what, PruneBatch prune, std::function<int64_t()> clock,
                  std::chrono::seconds retention);
  /// \brief Stops the thread after the pruning it is running.
  ~RetentionPruner() = default;
  RetentionPruner(const RetentionPruner&) = delete;
  RetentionPruner& operator=(const RetentionPruner&) = delete;

  /// \brief Starts pruning on the background thread: at once, then every
  /// `IntervalFor(retention)`. A failure is logged at warn and retried at the next run.
  /// Call once.
  void Start();

  /// \brief Prunes now, in the caller's thread: every record older than the retention,
  /// in batches of `kBatch` while they come back full. Returns how many it removed (0
  /// with a retention of 0). Errors: the batch function's.
  Result<int64_t> PruneNow();

  /// \brief Time between prunings: a tenth of the retention, at least a second and at
  /// most an hour.
  static std::chrono::milliseconds IntervalFor(std::chrono::seconds retention);

  /// \brief Records asked of one batch call.
  static constexpr size_t kBatch = 1000;

 private:
  /// One pruning, its outcome logged.
  void PruneAndLog();

  const std::string what_;
  const PruneBatch prune_;
  const std::function<int64_t()> clock_;
  const std::chrono::seconds retention_;
  /// Declared last: destroyed (stopped) first, while the members it uses still exist.
  PeriodicThread thread_;
};

}  // namespace cairn
