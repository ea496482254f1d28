#include "catalog/lance_transaction_gauges.h"

#include <string>

#include <spdlog/spdlog.h>

#include "catalog/lance_transaction.h"

namespace cairn {
namespace {

constexpr std::array kStatuses = {
    LanceTransactionStatus::kQueued, LanceTransactionStatus::kRunning,
    LanceTransactionStatus::kSucceeded, LanceTransactionStatus::kFailed,
    LanceTransactionStatus::kCanceled};

metrics::Label StatusLabel() {
  metrics::Label label{"status", {}};
  for (auto status : kStatuses) {
    label.values.emplace_back(LanceTransactionStatusName(status));
  }
  return label;
}

metrics::GaugeFamily transactions(
    "cairn_lance_transactions",
    "Lance transaction records in the store, by status (store-wide: every replica "
    "reports the same; counted every 2 s; finished ones are pruned after "
    "lance-transaction-retention-s).",
    {StatusLabel()});

}  // namespace

LanceTransactionGauges::LanceTransactionGauges(MetaStore& store) : store_(store) {
  for (size_t i = 0; i < kStatuses.size(); ++i) {
    sources_.push_back(transactions.AddSource(
        [this, i] {
          return static_cast<double>(counts_[i].load(std::memory_order_relaxed));
        },
        i));
  }
  thread_.Start(
      kRefresh, [this] { Refresh(); }, /*run_at_start=*/true);
}

void LanceTransactionGauges::Refresh() {
  auto counts = store_.CountTransactionsByStatus();
  if (!counts) {
    spdlog::debug("cairn_lance_transactions: the store did not answer: {}",
                  counts.error().message);
    return;
  }
  for (size_t i = 0; i < kStatuses.size(); ++i) {
    const auto found =
        counts->find(std::string(LanceTransactionStatusName(kStatuses[i])));
    counts_[i].store(found == counts->end() ? 0 : found->second,
                     std::memory_order_relaxed);
  }
}

}  // namespace cairn
