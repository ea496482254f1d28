#pragma once

/// \file
/// \brief Lance transactions as clients see them (`DescribeTransaction`,
/// `AlterTransaction`): their status life cycle, properties and the actions a client may
/// apply. Cairn's only transactions are the deletions of dropped Lance datasets (see
/// `LanceDropWorker`). Pure: no I/O.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/namespace_path.h"
#include "common/result.h"

namespace cairn {

/// \brief The life cycle of a transaction. QUEUED → RUNNING → SUCCEEDED | FAILED; a
/// client may cancel a QUEUED or FAILED one, and queue a FAILED or CANCELED one again.
enum class LanceTransactionStatus { kQueued, kRunning, kSucceeded, kFailed, kCanceled };

/// \brief `QUEUED`, `RUNNING`, `SUCCEEDED`, `FAILED`, `CANCELED` (the 0.0.1 spelling,
/// which the latest spec's case-insensitive readers accept too). Also the text stored in
/// `TransactionRecord::status`.
std::string_view LanceTransactionStatusName(LanceTransactionStatus status);

/// \brief The status a stored `TransactionRecord::status` names.
/// Errors: `kInternal` for text `LanceTransactionStatusName` never produces.
Result<LanceTransactionStatus> ParseLanceTransactionStatus(std::string_view text);

/// \brief A transaction as clients see it.
struct LanceTransactionInfo {
  std::string id;
  LanceTransactionStatus status = LanceTransactionStatus::kQueued;
  Properties properties;
};

/// \brief How a property action treats an existing (set) or missing (unset) key.
enum class LancePropertyMode { kOverwrite, kFail, kSkip };

/// \brief AlterTransaction actions: exactly one per entry of the request.
struct SetTransactionStatus {
  LanceTransactionStatus status;
};
struct SetTransactionProperty {
  std::string key;
  std::string value;
  LancePropertyMode mode = LancePropertyMode::kOverwrite;  ///< kOverwrite, kFail or kSkip
};
struct UnsetTransactionProperty {
  std::string key;
  LancePropertyMode mode = LancePropertyMode::kSkip;  ///< kSkip or kFail
};
using LanceTransactionAction =
    std::variant<SetTransactionStatus, SetTransactionProperty, UnsetTransactionProperty>;

/// \brief Applies a client's `actions` to `transaction`, in order, all or nothing;
/// returns the changed copy. Status changes follow `LanceTransactionStatus`; setting a
/// status a transaction already has changes nothing. Errors: `kBadRequest` (a status only
/// the server sets, an empty key, a Fail mode that fails), `kCommitFailed` (the status
/// does not allow the change).
Result<LanceTransactionInfo> ApplyTransactionActions(
    LanceTransactionInfo transaction, const std::vector<LanceTransactionAction>& actions);

/// \brief Compare-and-swap attempts on a transaction record before giving up.
inline constexpr int kMaxTransactionSwapAttempts = 10;

}  // namespace cairn
