#pragma once

/// \file
/// \brief JSON of BatchCommitTables (`POST /v1/table/batch-commit`, latest spec): the
/// request's `operations`, each a `CommitTableOperation` setting exactly one of
/// `declare_table`, `create_table_version`, `delete_table_versions` and
/// `deregister_table` (a null field counts as not set), whose value is the body of that
/// single operation's route read by that route's own parser; and the response's
/// `results`, one `CommitTableResult` per operation in its order, each the single
/// route's response under the same key.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/lance_batch_commit.h"
#include "catalog/table_access.h"
#include "common/result.h"

namespace cairn::lance_rest {

/// \brief `BatchCommitTablesRequest`.
struct BatchCommitBody {
  std::vector<LanceCommitOperation> operations;
  /// Per operation: a `declare_table`'s `vend_credentials` (unset for the others, and
  /// when not sent).
  std::vector<std::optional<bool>> vend_credentials;
};

/// \brief Every operation needs its table `id`; at most 100 operations. Errors:
/// `kBadRequest` naming the operation (`operations[i]`) and the field.
Result<BatchCommitBody> BatchCommitFromJson(std::string_view body);

/// \brief `BatchCommitTablesResponse`: `{"results": [...]}`. `access[i]` is the storage
/// access of a table declared by operation `i` (its `storage_options`); `access` has one
/// entry per result.
std::string BatchCommitToJson(const std::vector<LanceCommitResult>& results,
                              const std::vector<TableAccess>& access);

}  // namespace cairn::lance_rest
