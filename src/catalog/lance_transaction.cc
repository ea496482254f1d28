#include "catalog/lance_transaction.h"

namespace cairn {

std::string_view LanceTransactionStatusName(LanceTransactionStatus status) {
  switch (status) {
    case LanceTransactionStatus::kQueued:
      return "QUEUED";
    case LanceTransactionStatus::kRunning:
      return "RUNNING";
    case LanceTransactionStatus::kSucceeded:
      return "SUCCEEDED";
    case LanceTransactionStatus::kFailed:
      return "FAILED";
    case LanceTransactionStatus::kCanceled:
      return "CANCELED";
  }
  return "FAILED";
}

Result<LanceTransactionStatus> ParseLanceTransactionStatus(std::string_view text) {
  for (auto status : {LanceTransactionStatus::kQueued, LanceTransactionStatus::kRunning,
                      LanceTransactionStatus::kSucceeded, LanceTransactionStatus::kFailed,
                      LanceTransactionStatus::kCanceled}) {
    if (LanceTransactionStatusName(status) == text) return status;
  }
  return Internal("Unknown transaction status '{}' in the metadata store", text);
}

}  // namespace cairn
