#include "catalog/lance_transaction_pruner.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "catalog/lance_transaction.h"
#include "common/macros.h"

namespace cairn {
namespace {

/// Records removed per store call; a pruning goes on while batches come back full.
constexpr size_t kPruneBatch = 1000;

/// The statuses no one acts on any more (a client may still queue a FAILED or CANCELED
/// one again, which makes it recent).
std::vector<std::string> FinishedStatuses() {
  std::vector<std::string> statuses;
  for (auto status : {LanceTransactionStatus::kSucceeded, LanceTransactionStatus::kFailed,
                      LanceTransactionStatus::kCanceled}) {
    statuses.emplace_back(LanceTransactionStatusName(status));
  }
  return statuses;
}

}  // namespace

LanceTransactionPruner::LanceTransactionPruner(MetaStore& store,
                                               std::function<int64_t()> clock,
                                               std::chrono::seconds retention)
    : store_(store), clock_(std::move(clock)), retention_(retention) {}

std::chrono::milliseconds LanceTransactionPruner::IntervalFor(
    std::chrono::seconds retention) {
  const std::chrono::milliseconds tenth = std::chrono::milliseconds(retention) / 10;
  return std::clamp<std::chrono::milliseconds>(tenth, std::chrono::seconds(1),
                                               std::chrono::hours(1));
}

void LanceTransactionPruner::Start() {
  if (retention_.count() <= 0) return;
  thread_.Start(
      IntervalFor(retention_), [this] { PruneAndLog(); }, /*run_at_start=*/true);
}

Result<int64_t> LanceTransactionPruner::PruneNow() {
  if (retention_.count() <= 0) return 0;
  const int64_t retention_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(retention_).count();
  const int64_t now = clock_();
  // A clock far in the past cannot make the cut-off wrap around.
  const int64_t before = now > std::numeric_limits<int64_t>::min() + retention_ms
                             ? now - retention_ms
                             : std::numeric_limits<int64_t>::min();
  const auto statuses = FinishedStatuses();
  int64_t pruned = 0;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(int64_t batch,
                          store_.PruneTransactions(statuses, before, kPruneBatch));
    pruned += batch;
    if (batch < static_cast<int64_t>(kPruneBatch)) return pruned;
  }
}

void LanceTransactionPruner::PruneAndLog() {
  auto pruned = PruneNow();
  if (!pruned) {
    spdlog::warn(
        "pruning of finished Lance transactions failed (retried in {} s): {}",
        std::chrono::duration_cast<std::chrono::seconds>(IntervalFor(retention_)).count(),
        pruned.error().message);
  } else if (*pruned > 0) {
    spdlog::info("pruned {} finished Lance transaction(s)", *pruned);
  }
}

}  // namespace cairn
