#include "catalog/lance_schema_edit.h"

#include "catalog/lance_next_version.h"
#include "common/macros.h"
#include "common/uuid.h"

namespace cairn {

Result<LanceSchemaEdited> EditLanceSchema(LanceService& lance, const LanceId& id,
                                          const std::string& branch,
                                          const lance::SchemaEdit& edit,
                                          const WriteContext& write,
                                          const std::function<int64_t()>& clock) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance.DescribeTable(id));
  LanceManifests& manifests = lance.manifests();
  // The attempt that commits leaves its outcome here.
  lance::EditedSchema edited;
  const auto build = [&](const LanceNextVersion& next) -> Result<LanceManifestCommit> {
    CAIRN_ASSIGN_OR_RAISE(std::string latest_bytes, manifests.ReadBytes(next.latest));
    auto result = lance::EditManifestSchema(
        latest_bytes, edit,
        {.version = static_cast<uint64_t>(next.version), .timestamp_ms = next.now_ms},
        static_cast<uint64_t>(next.latest.version), RandomUuid());
    if (!result) {
      // The edit's own message does not know the table.
      return tl::unexpected(Error{
          result.error().kind,
          fmt::format("Table {}: {}", FormatLanceId(table.id), result.error().message)});
    }
    edited = std::move(*result);
    return LanceManifestCommit{.manifest = std::move(edited.manifest),
                               .transaction_file = edited.transaction_file,
                               .transaction = std::move(edited.transaction)};
  };
  CAIRN_ASSIGN_OR_RAISE(
      int64_t version,
      CommitNextVersion(lance, table, branch, "schema edit", build, write, clock));
  return LanceSchemaEdited{.version = version,
                           .schema_metadata = std::move(edited.schema_metadata),
                           .field_metadata = std::move(edited.field_metadata)};
}

}  // namespace cairn
