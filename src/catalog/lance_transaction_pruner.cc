#include "catalog/lance_transaction_pruner.h"

#include <string>
#include <utility>
#include <vector>

#include "catalog/lance_transaction.h"

namespace cairn {
namespace {

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
    : pruner_(
          "finished Lance transaction(s)",
          [&store, statuses = FinishedStatuses()](int64_t before_ms, size_t limit) {
            return store.PruneTransactions(statuses, before_ms, limit);
          },
          std::move(clock), retention) {}

}  // namespace cairn
