// The SQL store: metadata files that nothing references, waiting for a sweep
// (OrphanFile).

#include <algorithm>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

/// At most this many orphans per `OrphanFilesRecordedBefore` call, whatever the caller
/// asks.
constexpr size_t kMaxBatch = 10000;

}  // namespace

Status SqlStore::RecordOrphanFile(const OrphanFile& file) {
  return Write(
      WriteContext::Immediate(), [&](Lease& conn, WriteTransaction& txn) -> Status {
        CAIRN_ASSIGN_OR_RAISE(
            auto* upsert,
            conn->Prepare(
                "INSERT INTO orphan_files (location, catalog_id, namespace, name, "
                "recorded_at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (location) DO UPDATE "
                "SET "
                "catalog_id = excluded.catalog_id, namespace = excluded.namespace, "
                "name = excluded.name, recorded_at_ms = CASE WHEN "
                "excluded.recorded_at_ms > "
                "orphan_files.recorded_at_ms THEN excluded.recorded_at_ms "
                "ELSE orphan_files.recorded_at_ms END"));
        Query query(*conn, upsert);
        CAIRN_RETURN_IF_ERROR(query.Bind(file.location)
                                  .Bind(file.catalog_id)
                                  .Bind(FullKey(file.ns))
                                  .Bind(file.name)
                                  .Bind(file.recorded_at_ms)
                                  .Run("record an orphaned file"));
        return txn.Commit();
      });
}

Result<std::vector<OrphanFile>> SqlStore::OrphanFilesRecordedBefore(int64_t before_ms,
                                                                    size_t limit) {
  return Read([&](Lease& conn) -> Result<std::vector<OrphanFile>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT location, catalog_id, namespace, name, recorded_at_ms "
                      "FROM orphan_files WHERE recorded_at_ms < ? "
                      "ORDER BY recorded_at_ms, location LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(before_ms).Bind(static_cast<int64_t>(std::min<size_t>(limit, kMaxBatch)));
    std::vector<OrphanFile> due;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list orphaned files"));
      if (!row) return due;
      due.push_back(OrphanFile{query.Text(0), query.Int(1), SplitKey(query.Text(2)),
                               query.Text(3), query.Int(4)});
    }
  });
}

Status SqlStore::ForgetOrphanFile(std::string_view location) {
  return Write(
      WriteContext::Immediate(), [&](Lease& conn, WriteTransaction& txn) -> Status {
        CAIRN_ASSIGN_OR_RAISE(
            auto* remove, conn->Prepare("DELETE FROM orphan_files WHERE location = ?"));
        Query query(*conn, remove);
        CAIRN_RETURN_IF_ERROR(query.Bind(location).Run("forget an orphaned file"));
        return txn.Commit();
      });
}

}  // namespace cairn::sql_internal
