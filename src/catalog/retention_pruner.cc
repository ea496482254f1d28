#include "catalog/retention_pruner.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/macros.h"

namespace cairn {

RetentionPruner::RetentionPruner(std::string what, PruneBatch prune,
                                 std::function<int64_t()> clock,
                                 std::chrono::seconds retention)
    : what_(std::move(what)),
      prune_(std::move(prune)),
      clock_(std::move(clock)),
      retention_(retention) {}

std::chrono::milliseconds RetentionPruner::IntervalFor(std::chrono::seconds retention) {
  const std::chrono::milliseconds tenth = std::chrono::milliseconds(retention) / 10;
  return std::clamp<std::chrono::milliseconds>(tenth, std::chrono::seconds(1),
                                               std::chrono::hours(1));
}

void RetentionPruner::Start() {
  if (retention_.count() <= 0) return;
  thread_.Start(
      IntervalFor(retention_), [this] { PruneAndLog(); }, /*run_at_start=*/true);
}

Result<int64_t> RetentionPruner::PruneNow() {
  if (retention_.count() <= 0) return 0;
  const int64_t retention_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(retention_).count();
  const int64_t now = clock_();
  // A clock far in the past cannot make the cut-off wrap around.
  const int64_t before = now > std::numeric_limits<int64_t>::min() + retention_ms
                             ? now - retention_ms
                             : std::numeric_limits<int64_t>::min();
  int64_t pruned = 0;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(int64_t batch, prune_(before, kBatch));
    pruned += batch;
    if (batch < static_cast<int64_t>(kBatch)) return pruned;
  }
}

void RetentionPruner::PruneAndLog() {
  auto pruned = PruneNow();
  if (!pruned) {
    spdlog::warn(
        "pruning of {} failed (retried in {} s): {}", what_,
        std::chrono::duration_cast<std::chrono::seconds>(IntervalFor(retention_)).count(),
        pruned.error().message);
  } else if (*pruned > 0) {
    spdlog::info("pruned {} {}", *pruned, what_);
  }
}

}  // namespace cairn
