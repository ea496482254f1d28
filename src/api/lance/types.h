#pragma once

/// \file
/// \brief Request payloads of the Lance REST routes as plain structs, in a form both spec
/// versions map onto: the 0.0.1 spec's `name` + `parent`/`namespace` and the current
/// spec's `id` list both become `id`. Their JSON forms live in `api/lance/json_serde`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog/lance_service.h"

namespace cairn::lance_rest {

/// \brief A body that only names its object (DescribeNamespace, NamespaceExists,
/// DescribeTable, TableExists, DropTable, DeregisterTable).
struct IdRequest {
  std::optional<LanceId> id;  ///< absent when the body names nothing (the path decides)
};

/// \brief `CreateNamespaceRequest`.
struct CreateNamespaceRequest {
  std::optional<LanceId> id;
  LanceCreateMode mode = LanceCreateMode::kCreate;
  Properties properties;  ///< `properties` (latest) merged over `options` (0.0.1)
};

/// \brief The paging part of a list request (POST body of 0.0.1, query string of latest).
struct ListRequest {
  std::optional<LanceId> id;  ///< 0.0.1 `parent`
  std::optional<std::string> page_token;
  std::optional<size_t> limit;
};

/// \brief `DropNamespaceRequest`.
struct DropNamespaceRequest {
  std::optional<LanceId> id;
  LanceDropMode mode = LanceDropMode::kFail;
  LanceDropBehavior behavior = LanceDropBehavior::kRestrict;
};

/// \brief `DescribeTableRequest` (only the parts Cairn acts on).
struct DescribeTableRequest {
  std::optional<LanceId> id;
  bool with_table_uri = false;
  bool check_declared = false;
  /// nullopt: the server decides (Cairn vends when the storage does).
  std::optional<bool> vend_credentials;
  /// nullopt: the server decides (Cairn loads them when a version or branch is asked).
  std::optional<bool> load_detailed_metadata;
  /// The version to describe (≥ 0); nullopt: the latest.
  std::optional<int64_t> version;
  /// A tag naming the version (not together with `version` or `branch`).
  std::optional<std::string> tag;
  /// nullopt: the main branch.
  std::optional<std::string> branch;
};

/// \brief `RestoreTableRequest`.
struct RestoreTableRequest {
  std::optional<LanceId> id;
  int64_t version = 0;  ///< required, ≥ 0
  /// nullopt: the main branch.
  std::optional<std::string> branch;
};

/// \brief `GetTableStatsRequest`.
struct TableStatsRequest {
  std::optional<LanceId> id;
  /// nullopt: the main branch.
  std::optional<std::string> branch;
};

/// \brief `RegisterTableRequest`.
struct RegisterTableRequest {
  std::optional<LanceId> id;
  std::string location;  ///< required
  LanceRegisterMode mode = LanceRegisterMode::kCreate;
  Properties properties;
};

/// \brief `DeclareTableRequest`.
struct DeclareTableRequest {
  std::optional<LanceId> id;
  std::optional<std::string> location;
  Properties properties;
  /// nullopt: the server decides (Cairn vends when the storage does).
  std::optional<bool> vend_credentials;
};

/// \brief `RenameTableRequest`.
struct RenameTableRequest {
  std::optional<LanceId> id;
  std::string new_table_name;  ///< required
  std::optional<LanceId> new_namespace_id;
};

/// \brief `DescribeTransactionRequest`: `id` is a string (0.0.1) or a one-element list.
struct TransactionRequest {
  std::optional<std::string> id;
};

/// \brief `AlterTransactionRequest`.
struct AlterTransactionRequest {
  std::optional<std::string> id;
  std::vector<LanceTransactionAction> actions;  ///< at least one
};

}  // namespace cairn::lance_rest
