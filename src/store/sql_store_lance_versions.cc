// The Lance version rows of the SQL store (see sql_store_lance_versions.h).

#include "store/sql_store_lance_versions.h"

#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

constexpr int64_t kHighestVersion = std::numeric_limits<int64_t>::max();

/// The highest version below `bound`. Upper bounds are bound inclusive (`<=`): an
/// exclusive "no bound" of INT64_MAX would leave out a version INT64_MAX, which is valid.
/// Nothing is below INT64_MIN, and no version is as low.
int64_t HighestBelow(int64_t bound) {
  return bound == std::numeric_limits<int64_t>::min() ? bound : bound - 1;
}

/// The columns `ReadRecord` reads, in its order.
#define LANCE_VERSION_COLUMNS                                                     \
  "version, manifest_path, requested_path, manifest_size, e_tag, naming_scheme, " \
  "metadata, timestamp_ms"

Status CheckText(std::string_view what, std::string_view value,
                 size_t limit = kMaxLanceVersionTextBytes) {
  if (value.size() > limit)
    return BadRequest("The {} is longer than {} bytes", what, limit);
  return Ok();
}

Status CheckKey(const LanceVersionKey& key) {
  return CheckText("branch name", key.branch, kMaxLanceBranchBytes);
}

Status CheckInsert(const LanceVersionInsert& insert) {
  CAIRN_RETURN_IF_ERROR(CheckKey(insert.key));
  const LanceVersionRecord& record = insert.record;
  if (record.version < 0) return BadRequest("A version cannot be negative");
  CAIRN_RETURN_IF_ERROR(CheckText("manifest path", record.manifest_path));
  CAIRN_RETURN_IF_ERROR(CheckText("requested manifest path", record.requested_path));
  CAIRN_RETURN_IF_ERROR(CheckText("e-tag", record.e_tag.value_or("")));
  CAIRN_RETURN_IF_ERROR(CheckText("naming scheme", record.naming_scheme));
  if (record.metadata.size() > kMaxLanceVersionMetadataBytes) {
    return BadRequest("The metadata of version {} is longer than {} bytes",
                      record.version, kMaxLanceVersionMetadataBytes);
  }
  if (record.manifest_size && *record.manifest_size < 0) {
    return BadRequest("A manifest size cannot be negative");
  }
  return Ok();
}

LanceVersionRecord ReadRecord(Query& query) {
  LanceVersionRecord record;
  record.version = query.Int(0);
  record.manifest_path = query.TakeText(1);
  record.requested_path = query.TakeText(2);
  // -1 and '' stand for "not given": the columns are NOT NULL.
  if (const int64_t size = query.Int(3); size >= 0) record.manifest_size = size;
  if (std::string e_tag = query.TakeText(4); !e_tag.empty())
    record.e_tag = std::move(e_tag);
  record.naming_scheme = query.TakeText(5);
  record.metadata = query.TakeText(6);
  record.timestamp_ms = query.Int(7);
  return record;
}

/// `kNotFound` unless entity `entity_id` exists and is a Lance table.
Status RequireLanceTable(SqlConnection& conn, int64_t entity_id) {
  CAIRN_ASSIGN_OR_RAISE(auto* stmt,
                        conn.Prepare("SELECT kind FROM entities WHERE id = ?"));
  Query query(conn, stmt);
  query.Bind(entity_id);
  CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find Lance table"));
  if (!row || query.Text(0) != EntityKindName(EntityKind::kLanceTable)) {
    return NotFound("The Lance table no longer exists");
  }
  return Ok();
}

Result<bool> VersionExists(SqlConnection& conn, const LanceVersionInsert& insert) {
  CAIRN_ASSIGN_OR_RAISE(auto* stmt,
                        conn.Prepare("SELECT 1 FROM lance_versions WHERE entity_id = ? "
                                     "AND branch = ? AND version = ?"));
  Query query(conn, stmt);
  query.Bind(insert.key.entity_id).Bind(insert.key.branch).Bind(insert.record.version);
  return query.Step("find Lance version");
}

Status InsertVersion(SqlConnection& conn, const LanceVersionInsert& insert) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt,
      conn.Prepare("INSERT INTO lance_versions (entity_id, branch, " LANCE_VERSION_COLUMNS
                   ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  const LanceVersionRecord& record = insert.record;
  Query query(conn, stmt);
  query.Bind(insert.key.entity_id)
      .Bind(insert.key.branch)
      .Bind(record.version)
      .Bind(record.manifest_path)
      .Bind(record.requested_path)
      .Bind(record.manifest_size.value_or(-1))
      .Bind(record.e_tag.value_or(""))
      .Bind(record.naming_scheme)
      .Bind(record.metadata)
      .Bind(record.timestamp_ms);
  return query.Run("create Lance version");
}

/// Inside a write transaction: inserts every version of `inserts`, or stops at the
/// first whose version is taken or repeats an earlier one's and returns it (the caller
/// then rolls back).
Result<std::optional<LanceVersionConflict>> InsertVersions(
    SqlConnection& conn, const std::vector<LanceVersionInsert>& inserts) {
  std::set<std::tuple<int64_t, std::string_view, int64_t>> seen;
  std::set<int64_t> tables;
  for (size_t i = 0; i < inserts.size(); ++i) {
    const LanceVersionInsert& insert = inserts[i];
    if (tables.insert(insert.key.entity_id).second) {
      CAIRN_RETURN_IF_ERROR(RequireLanceTable(conn, insert.key.entity_id));
    }
    CAIRN_ASSIGN_OR_RAISE(bool exists, VersionExists(conn, insert));
    const bool repeated =
        !seen.emplace(insert.key.entity_id, insert.key.branch, insert.record.version)
             .second;
    if (exists || repeated) return LanceVersionConflict{i};
    CAIRN_RETURN_IF_ERROR(InsertVersion(conn, insert));
  }
  return std::nullopt;
}

Status CheckRanges(const std::vector<LanceVersionRange>& ranges) {
  for (const auto& range : ranges) {
    CAIRN_PRECHECK(range.start >= 0, "A version range cannot start below 0");
  }
  return Ok();
}

/// Inside a write transaction: deletes the versions of `key` in `ranges`; how many went.
Result<int64_t> DeleteRanges(SqlConnection& conn, const LanceVersionKey& key,
                             const std::vector<LanceVersionRange>& ranges) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt,
      conn.Prepare("DELETE FROM lance_versions WHERE entity_id = ? AND branch = ? "
                   "AND version >= ? AND version <= ?"));
  int64_t deleted = 0;
  for (const auto& range : ranges) {
    Query query(conn, stmt);
    query.Bind(key.entity_id)
        .Bind(key.branch)
        .Bind(range.start)
        .Bind(range.end ? HighestBelow(*range.end) : kHighestVersion);
    CAIRN_RETURN_IF_ERROR(query.Run("delete Lance versions"));
    deleted += query.Changes();
  }
  return deleted;
}

/// Checks the bounds of a batch before its transaction starts.
Status CheckBatch(const LanceTableBatch& batch) {
  CAIRN_PRECHECK(batch.remove_tables.size() <= kMaxLanceVersionBatch &&
                     batch.insert_tables.size() <= kMaxLanceVersionBatch &&
                     batch.delete_versions.size() <= kMaxLanceVersionBatch &&
                     batch.insert_versions.size() <= kMaxLanceVersionBatch,
                 "A commit of Lance tables holds at most {} changes of each kind",
                 kMaxLanceVersionBatch);
  size_t ranges = 0;
  for (const auto& deletion : batch.delete_versions) {
    CAIRN_RETURN_IF_ERROR(CheckKey(deletion.key));
    CAIRN_RETURN_IF_ERROR(CheckRanges(deletion.ranges));
    ranges += deletion.ranges.size();
  }
  CAIRN_PRECHECK(ranges <= kMaxLanceVersionBatch,
                 "A commit of Lance tables deletes at most {} version ranges",
                 kMaxLanceVersionBatch);
  for (const auto& insert : batch.insert_versions)
    CAIRN_RETURN_IF_ERROR(CheckInsert(insert));
  return Ok();
}

/// Inside a write transaction: the changes of `batch`, in the order its contract gives.
/// Stops at a version conflict (the caller then rolls back).
Result<LanceTableBatchOutcome> ApplyBatch(SqlConnection& conn,
                                          const LanceTableBatch& batch) {
  LanceTableBatchOutcome outcome;
  for (const int64_t id : batch.remove_tables) {
    CAIRN_ASSIGN_OR_RAISE(bool removed,
                          DeleteEntityById(conn, id, EntityKind::kLanceTable));
    if (!removed) return NotFound("The Lance table no longer exists");
  }
  for (const auto& table : batch.insert_tables) {
    CAIRN_ASSIGN_OR_RAISE(EntityRecord created,
                          InsertEntity(conn, table.catalog_id, table.ns, table.name,
                                       EntityKind::kLanceTable, table.location,
                                       table.metadata, table.claim));
    outcome.table_ids.push_back(created.id);
  }
  for (const auto& deletion : batch.delete_versions) {
    CAIRN_RETURN_IF_ERROR(RequireLanceTable(conn, deletion.key.entity_id));
    CAIRN_ASSIGN_OR_RAISE(int64_t deleted,
                          DeleteRanges(conn, deletion.key, deletion.ranges));
    outcome.deleted_counts.push_back(deleted);
  }
  CAIRN_ASSIGN_OR_RAISE(outcome.conflict, InsertVersions(conn, batch.insert_versions));
  if (outcome.conflict) {
    outcome.table_ids.clear();
    outcome.deleted_counts.clear();
  }
  return outcome;
}

}  // namespace

Result<std::optional<LanceVersionConflict>> SqlLanceVersionStore::CreateLanceVersions(
    const std::vector<LanceVersionInsert>& inserts, const WriteContext& write) {
  CAIRN_PRECHECK(inserts.size() <= kMaxLanceVersionBatch,
                 "At most {} versions can be created at once", kMaxLanceVersionBatch);
  for (const auto& insert : inserts) CAIRN_RETURN_IF_ERROR(CheckInsert(insert));
  return store_.Write(
      write,
      [&](Lease& conn,
          WriteTransaction& txn) -> Result<std::optional<LanceVersionConflict>> {
        CAIRN_ASSIGN_OR_RAISE(auto conflict, InsertVersions(*conn, inserts));
        // A conflict returns without committing: nothing of the batch is written.
        if (!conflict) CAIRN_RETURN_IF_ERROR(txn.Commit());
        return conflict;
      });
}

Result<std::optional<LanceVersionRecord>> SqlLanceVersionStore::GetLanceVersion(
    const LanceVersionKey& key, std::optional<int64_t> version) {
  CAIRN_RETURN_IF_ERROR(CheckKey(key));
  return store_.Read([&](Lease& conn) -> Result<std::optional<LanceVersionRecord>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        version ? conn->Prepare("SELECT " LANCE_VERSION_COLUMNS
                                " FROM lance_versions WHERE entity_id = ? AND branch = ? "
                                "AND version = ?")
                : conn->Prepare("SELECT " LANCE_VERSION_COLUMNS
                                " FROM lance_versions WHERE entity_id = ? AND branch = ? "
                                "ORDER BY version DESC LIMIT 1"));
    Query query(*conn, stmt);
    query.Bind(key.entity_id).Bind(key.branch);
    if (version) query.Bind(*version);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read Lance version"));
    if (!row) return std::nullopt;
    return ReadRecord(query);
  });
}

Result<LanceVersionPage> SqlLanceVersionStore::ListLanceVersions(
    const LanceVersionKey& key, std::optional<int64_t> after, size_t limit,
    bool descending) {
  CAIRN_RETURN_IF_ERROR(CheckKey(key));
  CAIRN_PRECHECK(limit >= 1 && limit <= kMaxLanceVersionBatch,
                 "A page of versions holds 1 to {} versions", kMaxLanceVersionBatch);
  return store_.Read([&](Lease& conn) -> Result<LanceVersionPage> {
    // Keyset paging on the primary key: every page costs the same, however deep.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        descending
            ? conn->Prepare("SELECT " LANCE_VERSION_COLUMNS
                            " FROM lance_versions WHERE entity_id = ? AND "
                            "branch = ? AND version <= ? ORDER BY version DESC "
                            "LIMIT ?")
            : conn->Prepare("SELECT " LANCE_VERSION_COLUMNS
                            " FROM lance_versions WHERE entity_id = ? AND "
                            "branch = ? AND version > ? ORDER BY version LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(key.entity_id)
        .Bind(key.branch)
        .Bind(descending ? (after ? HighestBelow(*after) : kHighestVersion)
                         : after.value_or(-1))
        .Bind(FetchLimit(limit));
    LanceVersionPage page;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list Lance versions"));
      if (!row) break;
      if (page.versions.size() == limit) {
        page.more = true;
        break;
      }
      page.versions.push_back(ReadRecord(query));
    }
    return page;
  });
}

Result<int64_t> SqlLanceVersionStore::DeleteLanceVersions(
    const LanceVersionKey& key, const std::vector<LanceVersionRange>& ranges,
    const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(CheckKey(key));
  CAIRN_PRECHECK(ranges.size() <= kMaxLanceVersionBatch,
                 "At most {} version ranges can be deleted at once",
                 kMaxLanceVersionBatch);
  CAIRN_RETURN_IF_ERROR(CheckRanges(ranges));
  return store_.Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<int64_t> {
    CAIRN_ASSIGN_OR_RAISE(int64_t deleted, DeleteRanges(*conn, key, ranges));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return deleted;
  });
}

Result<LanceTableBatchOutcome> SqlLanceVersionStore::CommitLanceTables(
    const LanceTableBatch& batch, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(CheckBatch(batch));
  return store_.Write(
      write, [&](Lease& conn, WriteTransaction& txn) -> Result<LanceTableBatchOutcome> {
        CAIRN_ASSIGN_OR_RAISE(LanceTableBatchOutcome outcome, ApplyBatch(*conn, batch));
        // A conflict returns without committing: nothing of the batch is written.
        if (!outcome.conflict) CAIRN_RETURN_IF_ERROR(txn.Commit());
        return outcome;
      });
}

#undef LANCE_VERSION_COLUMNS

}  // namespace cairn::sql_internal
