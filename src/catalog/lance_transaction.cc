#include "catalog/lance_transaction.h"

#include "common/macros.h"

namespace cairn {
namespace {

/// A status change a client asks for, checked against the current status.
Status CheckStatusChange(const std::string& id, LanceTransactionStatus from,
                         LanceTransactionStatus to) {
  using S = LanceTransactionStatus;
  if (from == to) return Ok();
  if (to == S::kRunning || to == S::kSucceeded || to == S::kFailed) {
    return BadRequest("Invalid status change of transaction {}: only the server sets {}",
                      id, LanceTransactionStatusName(to));
  }
  const bool allowed =
      (to == S::kCanceled && (from == S::kQueued || from == S::kFailed)) ||
      (to == S::kQueued && (from == S::kFailed || from == S::kCanceled));
  if (!allowed) {
    return CommitFailed("Transaction {} is {}; it cannot become {}", id,
                        LanceTransactionStatusName(from), LanceTransactionStatusName(to));
  }
  return Ok();
}

Status SetProperty(const std::string& id, const SetTransactionProperty& set,
                   Properties& properties) {
  CAIRN_PRECHECK(!set.key.empty(), "Invalid setPropertyAction: key must not be empty");
  const bool exists = properties.count(set.key) > 0;
  if (exists && set.mode == LancePropertyMode::kFail) {
    return BadRequest("Transaction {} already has property '{}' (mode Fail)", id,
                      set.key);
  }
  if (!exists || set.mode == LancePropertyMode::kOverwrite) {
    properties[set.key] = set.value;
  }
  return Ok();
}

Status UnsetProperty(const std::string& id, const UnsetTransactionProperty& unset,
                     Properties& properties) {
  CAIRN_PRECHECK(!unset.key.empty(),
                 "Invalid unsetPropertyAction: key must not be empty");
  if (properties.erase(unset.key) == 0 && unset.mode == LancePropertyMode::kFail) {
    return BadRequest("Transaction {} has no property '{}' (mode Fail)", id, unset.key);
  }
  return Ok();
}

}  // namespace

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

Result<LanceTransactionInfo> ApplyTransactionActions(
    LanceTransactionInfo transaction,
    const std::vector<LanceTransactionAction>& actions) {
  for (const auto& action : actions) {
    if (const auto* set_status = std::get_if<SetTransactionStatus>(&action)) {
      CAIRN_RETURN_IF_ERROR(
          CheckStatusChange(transaction.id, transaction.status, set_status->status));
      transaction.status = set_status->status;
    } else if (const auto* set = std::get_if<SetTransactionProperty>(&action)) {
      CAIRN_RETURN_IF_ERROR(SetProperty(transaction.id, *set, transaction.properties));
    } else if (const auto* unset = std::get_if<UnsetTransactionProperty>(&action)) {
      CAIRN_RETURN_IF_ERROR(
          UnsetProperty(transaction.id, *unset, transaction.properties));
    }
  }
  return transaction;
}

}  // namespace cairn
