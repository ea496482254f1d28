#pragma once

/// \file
/// \brief BatchCommitTables of the Lance namespace spec: several operations on Lance
/// tables — declarations, deregistrations, versions created and versions forgotten —
/// committed all or none, in one store transaction, as Cairn's Iceberg multi-table
/// transactions are.
///
/// A commit runs in three steps:
///   1. every operation is checked exactly as its single-operation route checks it
///      (`LanceService::PlanDeclaration`, `LanceVersions::Stage`, ...), reading the
///      store and the staging manifests but writing nothing; a version already recorded
///      fails the commit here (`kCommitFailed`);
///   2. the final manifest of every version is put in place (put-if-absent, as
///      CreateTableVersion does); one already there fails the commit, and the files
///      placed so far are taken back;
///   3. one store transaction records everything (`LanceVersionStore::
///      CommitLanceTables`); when it fails, the placed files are taken back (and any
///      record a concurrent DescribeTableVersion made of them from storage), so that
///      neither the store nor the tables' `_versions/` directories show a part of it.
/// After the transaction the staging manifests are deleted.
///
/// Which operations may meet in one commit (anything else is `kBadRequest` before any
/// read): a table declared or deregistered is named by no other operation of the commit
/// (a version of a table being declared has no table to check against; one of a table
/// being deregistered would go with it); and each table and branch is named by at most
/// one version operation — two versions of one branch are refused as
/// BatchCreateTableVersions refuses them, and a creation beside a deletion would leave
/// open whether the deletion covers the new version.
///
/// Thread-safe.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "catalog/lance_service.h"
#include "catalog/lance_versions.h"
#include "common/result.h"
#include "io/file_io.h"
#include "store/lance_version_store.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief Most operations of one commit (each version's manifest is read into memory).
inline constexpr size_t kMaxLanceCommitOperations = 100;

/// \brief DeclareTable within a commit.
struct LanceDeclareTable {
  LanceId id = {};
  /// Unset: the table's default location, as DeclareTable chooses it.
  std::optional<std::string> location = std::nullopt;
  Properties properties = {};
};

/// \brief BatchDeleteTableVersions within a commit: forgets version records.
struct LanceDeleteVersions {
  LanceId id = {};
  std::string branch = {};  ///< empty: the main branch
  std::vector<LanceVersionRange> ranges = {};
};

/// \brief DeregisterTable within a commit: forgets the table, keeps its files.
struct LanceDeregisterTable {
  LanceId id = {};
};

/// \brief One operation of a commit; a version to create is a `LanceVersionRequest`.
using LanceCommitOperation = std::variant<LanceDeclareTable, LanceVersionRequest,
                                          LanceDeleteVersions, LanceDeregisterTable>;

/// \brief A declared table, as DeclareTable answers it (with its entity id).
struct LanceTableDeclared {
  LanceTableInfo table = {};
};

/// \brief How many version records a deletion forgot.
struct LanceVersionsDeleted {
  int64_t count = 0;
};

/// \brief A deregistered table, as it was.
struct LanceTableDeregistered {
  LanceTableInfo table = {};
};

/// \brief What one operation did, of the alternative matching the operation's.
using LanceCommitResult = std::variant<LanceTableDeclared, LanceVersionInfo,
                                       LanceVersionsDeleted, LanceTableDeregistered>;

class LanceBatchCommit {
 public:
  /// \brief All references must outlive this object; `lance` owns it.
  LanceBatchCommit(MetaStore& store, LanceService& lance, FileIO& io);

  /// \brief Applies `operations` all or none (see the file comment) and returns what
  /// each did, in their order; all its store writes are one write of `write`. Errors:
  /// `kBadRequest` (none or more than 100 operations, operations that may not meet, more
  /// than 1,000 version ranges in all, and whatever the single operation refuses),
  /// `kCommitFailed` (a version exists), `kNoSuchTable`, `kNoSuchNamespace`,
  /// `kAlreadyExists` (a declared name is taken), `kNotFound` (a staging manifest is
  /// missing, or a table went while the commit ran), storage and store errors. On
  /// `kCommitStateUnknown` the placed files stay, since the commit may have happened.
  Result<std::vector<LanceCommitResult>> Commit(
      const std::vector<LanceCommitOperation>& operations,
      const WriteContext& write = WriteContext::Immediate());

 private:
  using Staged = LanceVersions::Staged;
  struct Plan;

  /// Refuses operations that may not meet in one commit, before anything is read.
  static Status CheckShape(const std::vector<LanceCommitOperation>& operations);
  /// Checks one operation and adds what it changes to `plan`.
  Status PlanOperation(const LanceCommitOperation& operation, Plan& plan);
  Status PlanDeclare(const LanceDeclareTable& declare, Plan& plan);
  Status PlanVersion(const LanceVersionRequest& request, Plan& plan);
  Status PlanDeletion(const LanceDeleteVersions& deletion, Plan& plan);
  Status PlanDeregister(const LanceDeregisterTable& deregister, Plan& plan);
  /// Puts every version's final manifest in place; on a conflict or failure, takes back
  /// those it placed.
  Status PlaceFinals(Plan& plan);
  /// The one store transaction. A version the store reports as taken that a lookup
  /// recorded meanwhile from the file this commit placed (the same final path) counts as
  /// recorded: it leaves the batch and the transaction runs again (each round drops one
  /// version, so this ends).
  Result<LanceTableBatchOutcome> Record(Plan& plan, const WriteContext& write);
  /// Deletes the final manifests placed so far and forgets records made of them.
  void TakeBack(const Plan& plan);
  /// The results, in the operations' order, once the transaction committed.
  static std::vector<LanceCommitResult> Results(Plan& plan,
                                                const LanceTableBatchOutcome& outcome);

  LanceVersionStore& versions_;
  LanceService& lance_;
  FileIO& io_;
};

}  // namespace cairn
