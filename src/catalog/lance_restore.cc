#include "catalog/lance_restore.h"

#include "catalog/lance_manifests.h"
#include "catalog/lance_next_version.h"
#include "common/macros.h"
#include "common/uuid.h"
#include "lance/manifest_rewrite.h"

namespace cairn {

Result<int64_t> RestoreLanceTable(LanceService& lance, const LanceId& id,
                                  const std::string& branch, int64_t version,
                                  const WriteContext& write,
                                  const std::function<int64_t()>& clock) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance.DescribeTable(id));
  LanceManifests& manifests = lance.manifests();
  const auto build = [&](const LanceNextVersion& next) -> Result<LanceManifestCommit> {
    CAIRN_ASSIGN_OR_RAISE(auto target, manifests.Locate(table, branch, version));
    CAIRN_ASSIGN_OR_RAISE(std::string old_bytes, manifests.ReadBytes(*target));
    CAIRN_ASSIGN_OR_RAISE(auto newest, manifests.Read(table, next.latest));
    const lance::RestoreTransaction transaction =
        lance::MakeRestoreTransaction(static_cast<uint64_t>(next.latest.version),
                                      RandomUuid(), static_cast<uint64_t>(version));
    LanceManifestCommit commit{.transaction_file = transaction.file_name,
                               .transaction = transaction.bytes};
    CAIRN_ASSIGN_OR_RAISE(
        commit.manifest,
        lance::RewriteManifest(old_bytes,
                               {.version = static_cast<uint64_t>(next.version),
                                .timestamp_ms = next.now_ms,
                                .max_fragment_id_at_least = newest->max_fragment_id,
                                .transaction_file = transaction.file_name}));
    return commit;
  };
  return CommitNextVersion(lance, table, branch, "restore", build, write, clock);
}

}  // namespace cairn
