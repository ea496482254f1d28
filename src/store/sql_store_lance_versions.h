#pragma once

/// \file
/// \brief The Lance version rows of the SQL store (`LanceVersionStore` on `SqlStore`; not
/// for use outside `src/store`).
///
/// A batch of versions is created in one transaction through `SqlStore::Write`: each
/// insert first looks for its row, and the transaction rolls back at the first one that
/// exists. Two batches racing for the same row both miss it, and the second insert hits
/// the primary key: a retryable failure, so `Write` runs that transaction again, which
/// then finds the row and reports the conflict. `CommitLanceTables` runs the same inserts
/// in a transaction that also creates and removes tables (with the entity helpers of
/// `sql_store_entities.cc`) and forgets versions.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/result.h"
#include "store/lance_version_store.h"

namespace cairn::sql_internal {

class SqlStore;

/// Longest path, e-tag or naming scheme (bytes), longest branch (PostgreSQL must hold it
/// in one entry of the primary key's index), and longest metadata.
constexpr size_t kMaxLanceVersionTextBytes = 4096;
constexpr size_t kMaxLanceBranchBytes = 1024;
constexpr size_t kMaxLanceVersionMetadataBytes = size_t{1} << 20;

/// The Lance version rows of one `SqlStore`, which must outlive it.
class SqlLanceVersionStore final : public LanceVersionStore {
 public:
  explicit SqlLanceVersionStore(SqlStore& store) : store_(store) {}

  Result<std::optional<LanceVersionConflict>> CreateLanceVersions(
      const std::vector<LanceVersionInsert>& inserts, const WriteContext& write) override;
  Result<std::optional<LanceVersionRecord>> GetLanceVersion(
      const LanceVersionKey& key, std::optional<int64_t> version) override;
  Result<LanceVersionPage> ListLanceVersions(const LanceVersionKey& key,
                                             std::optional<int64_t> after, size_t limit,
                                             bool descending) override;
  Result<int64_t> DeleteLanceVersions(const LanceVersionKey& key,
                                      const std::vector<LanceVersionRange>& ranges,
                                      const WriteContext& write) override;
  Result<LanceTableBatchOutcome> CommitLanceTables(const LanceTableBatch& batch,
                                                   const WriteContext& write) override;

 private:
  SqlStore& store_;
};

}  // namespace cairn::sql_internal
