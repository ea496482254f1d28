// The SQL store: cascading drops (a catalog, a namespace tree, an entity with a record)
// and the transaction records written with them (Lance).

#include <algorithm>
#include <map>
#include <utility>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

TransactionRecord ReadTransactionRow(const Query& query) {
  TransactionRecord record;
  record.id = query.Text(0);
  record.status = query.Text(1);
  record.payload = query.Text(2);
  record.version = query.Int(3);
  record.created_at_ms = query.Int(4);
  record.updated_at_ms = query.Int(5);
  return record;
}

Result<Properties> ReadTransactionProperties(SqlConnection& conn, std::string_view id) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt, conn.Prepare("SELECT key, value FROM lance_transaction_properties "
                               "WHERE transaction_id = ?"));
  Query query(conn, stmt);
  query.Bind(id);
  Properties properties;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read transaction properties"));
    if (!row) return properties;
    properties.emplace(query.Text(0), query.Text(1));
  }
}

Status WriteTransactionProperties(SqlConnection& conn, const TransactionRecord& record) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* insert,
      conn.Prepare(
          "INSERT INTO lance_transaction_properties (transaction_id, key, value) "
          "VALUES (?, ?, ?)"));
  for (const auto& [key, value] : record.properties) {
    Query query(conn, insert);
    CAIRN_RETURN_IF_ERROR(
        query.Bind(record.id).Bind(key).Bind(value).Run("set transaction property"));
  }
  return Ok();
}

}  // namespace

/// Reads `(id, parent_path, name)` rows.
Result<std::vector<NamespaceRow>> ReadNamespaceRows(Query& query) {
  std::vector<NamespaceRow> rows;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list namespaces"));
    if (!row) return rows;
    NamespacePath path = SplitKey(query.Text(1));
    path.push_back(query.Text(2));
    rows.push_back(NamespaceRow{query.Int(0), std::move(path)});
  }
}

/// Inside a write transaction: inserts `record` with version 0.
Status InsertTransaction(SqlConnection& conn, const TransactionRecord& record) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* insert,
      conn.Prepare("INSERT INTO lance_transactions (id, status, payload, version, "
                   "created_at_ms, updated_at_ms) VALUES (?, ?, ?, 0, ?, ?) "
                   "ON CONFLICT (id) DO NOTHING"));
  {
    Query query(conn, insert);
    const int64_t now = NowMillis();
    CAIRN_RETURN_IF_ERROR(
        query.Bind(record.id)
            .Bind(record.status)
            .Bind(record.payload)
            .Bind(record.created_at_ms != 0 ? record.created_at_ms : now)
            .Bind(now)
            .Run("create transaction"));
    if (query.Changes() == 0)
      return AlreadyExists("Transaction already exists: {}", record.id);
  }
  return WriteTransactionProperties(conn, record);
}

/// Inside a write transaction: removes the entities of `namespaces`, records what the
/// planner returns for them, then removes the namespaces. Returns the removed entities.
Result<std::vector<EntityRecord>> DropNamespaceRows(
    SqlConnection& conn, const std::vector<NamespaceRow>& namespaces,
    const DropPlanner& planner) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* entities,
      conn.Prepare(
          "SELECT id, kind, name FROM entities WHERE namespace_id = ? ORDER BY name"));
  std::vector<EntityRecord> dropped;
  for (const auto& ns : namespaces) {
    Query query(conn, entities);
    query.Bind(ns.id);
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list entities to drop"));
      if (!row) break;
      EntityRecord record;
      CAIRN_ASSIGN_OR_RAISE(record.kind, ParseKind(query.Text(1)));
      record.id = query.Int(0);
      record.ns = ns.path;
      record.name = query.Text(2);
      dropped.push_back(std::move(record));
    }
  }
  for (auto& record : dropped) CAIRN_RETURN_IF_ERROR(ReadMetadata(conn, record));
  if (planner) {
    CAIRN_ASSIGN_OR_RAISE(auto plan, planner(dropped));
    if (plan) CAIRN_RETURN_IF_ERROR(InsertTransaction(conn, *plan));
  }
  CAIRN_ASSIGN_OR_RAISE(auto* del_entities,
                        conn.Prepare("DELETE FROM entities WHERE namespace_id = ?"));
  CAIRN_ASSIGN_OR_RAISE(auto* del_namespace,
                        conn.Prepare("DELETE FROM namespaces WHERE id = ?"));
  for (const auto& ns : namespaces) {
    Query query(conn, del_entities);
    CAIRN_RETURN_IF_ERROR(query.Bind(ns.id).Run("drop entities"));
  }
  // Namespace rows do not reference each other (children name their parent by path),
  // so any order works; their properties go by ON DELETE CASCADE.
  for (const auto& ns : namespaces) {
    Query query(conn, del_namespace);
    CAIRN_RETURN_IF_ERROR(query.Bind(ns.id).Run("drop namespace"));
  }
  return dropped;
}

Result<std::vector<EntityRecord>> SqlStore::DropCatalog(int64_t catalog_id, bool cascade,
                                                        const DropPlanner& planner,
                                                        const WriteContext& write) {
  return Write(
      write,
      [&](Lease& conn, WriteTransaction& txn) -> Result<std::vector<EntityRecord>> {
        CAIRN_ASSIGN_OR_RAISE(bool locked, LockCatalog(*conn, catalog_id, true));
        if (!locked) return NoSuchWarehouse("Catalog does not exist (id {})", catalog_id);
        CAIRN_ASSIGN_OR_RAISE(auto* exists,
                              conn->Prepare("SELECT 1 FROM catalogs WHERE id = ?"));
        {
          Query query(*conn, exists);
          query.Bind(catalog_id);
          CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find catalog"));
          if (!row) return NoSuchWarehouse("Catalog does not exist (id {})", catalog_id);
        }
        CAIRN_ASSIGN_OR_RAISE(
            auto* all, conn->Prepare("SELECT id, parent_path, name FROM namespaces "
                                     "WHERE catalog_id = ?"));
        std::vector<NamespaceRow> namespaces;
        {
          Query query(*conn, all);
          query.Bind(catalog_id);
          CAIRN_ASSIGN_OR_RAISE(namespaces, ReadNamespaceRows(query));
        }
        if (!cascade && !namespaces.empty()) {
          return NamespaceNotEmpty("Catalog is not empty: it has namespaces");
        }
        CAIRN_ASSIGN_OR_RAISE(auto dropped,
                              DropNamespaceRows(*conn, namespaces, planner));
        CAIRN_ASSIGN_OR_RAISE(auto* del,
                              conn->Prepare("DELETE FROM catalogs WHERE id = ?"));
        {
          Query query(*conn, del);
          CAIRN_RETURN_IF_ERROR(query.Bind(catalog_id).Run("drop catalog"));
        }
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return dropped;
      });
}

Result<std::vector<EntityRecord>> SqlStore::DropNamespaceTree(int64_t catalog_id,
                                                              const NamespacePath& path,
                                                              const DropPlanner& planner,
                                                              const WriteContext& write) {
  return Write(
      write,
      [&](Lease& conn, WriteTransaction& txn) -> Result<std::vector<EntityRecord>> {
        // Creators lock every ancestor of what they create, so once this lock is held no
        // namespace or entity appears below `path` until the drop ends.
        CAIRN_ASSIGN_OR_RAISE(auto id, LockNamespace(*conn, catalog_id, path, true));
        if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
        // The namespace itself, then every descendant: their parent paths are the full
        // key or start with it and the separator, i.e. lie in [key 0x1F, key 0x20).
        const std::string key = FullKey(path);
        std::vector<NamespaceRow> namespaces = {NamespaceRow{*id, path}};
        CAIRN_ASSIGN_OR_RAISE(
            auto* below,
            conn->Prepare(
                "SELECT id, parent_path, name FROM namespaces WHERE catalog_id = ? AND "
                "(parent_path = ? OR (parent_path >= ? AND parent_path < ?))"));
        {
          Query query(*conn, below);
          query.Bind(catalog_id).Bind(key).Bind(key + kLevelSeparator).Bind(key + '\x20');
          CAIRN_ASSIGN_OR_RAISE(auto rows, ReadNamespaceRows(query));
          namespaces.insert(namespaces.end(), rows.begin(), rows.end());
        }
        CAIRN_ASSIGN_OR_RAISE(auto dropped,
                              DropNamespaceRows(*conn, namespaces, planner));
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return dropped;
      });
}

Result<std::optional<EntityRecord>> SqlStore::DropEntityWithRecord(
    int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
    const DropPlanner& planner, const WriteContext& write) {
  return Write(
      write,
      [&](Lease& conn, WriteTransaction& txn) -> Result<std::optional<EntityRecord>> {
        CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
        if (!ns_id) return std::optional<EntityRecord>{};
        CAIRN_ASSIGN_OR_RAISE(
            auto* stmt,
            conn->Prepare(
                "SELECT id, kind FROM entities WHERE namespace_id = ? AND name = ?"));
        EntityRecord record;
        {
          Query query(*conn, stmt);
          query.Bind(*ns_id).Bind(name);
          CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity"));
          if (!row) return std::optional<EntityRecord>{};
          CAIRN_ASSIGN_OR_RAISE(EntityKind found, ParseKind(query.Text(1)));
          if (found != kind) return std::optional<EntityRecord>{};
          record.id = query.Int(0);
          record.kind = kind;
        }
        record.ns = ns;
        record.name = std::string(name);
        CAIRN_ASSIGN_OR_RAISE(bool present, ReadMetadata(*conn, record));
        if (!present) return std::optional<EntityRecord>{};
        CAIRN_ASSIGN_OR_RAISE(auto plan, planner({record}));
        if (plan) CAIRN_RETURN_IF_ERROR(InsertTransaction(*conn, *plan));
        CAIRN_ASSIGN_OR_RAISE(auto* del,
                              conn->Prepare("DELETE FROM entities WHERE id = ?"));
        {
          Query query(*conn, del);
          CAIRN_RETURN_IF_ERROR(query.Bind(record.id).Run("drop entity"));
          if (query.Changes() == 0)
            return std::optional<EntityRecord>{};  // dropped meanwhile
        }
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return std::optional<EntityRecord>(std::move(record));
      });
}

Status SqlStore::CreateTransaction(const TransactionRecord& record,
                                   const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Status {
    CAIRN_RETURN_IF_ERROR(InsertTransaction(*conn, record));
    return txn.Commit();
  });
}

Result<std::optional<TransactionRecord>> SqlStore::LoadTransaction(std::string_view id) {
  return Read([&](Lease& conn) -> Result<std::optional<TransactionRecord>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT id, status, payload, version, created_at_ms, updated_at_ms "
                      "FROM lance_transactions WHERE id = ?"));
    TransactionRecord record;
    {
      Query query(*conn, stmt);
      query.Bind(id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load transaction"));
      if (!row) return std::optional<TransactionRecord>{};
      record = ReadTransactionRow(query);
    }
    CAIRN_ASSIGN_OR_RAISE(record.properties, ReadTransactionProperties(*conn, record.id));
    return std::optional<TransactionRecord>(std::move(record));
  });
}

Result<bool> SqlStore::UpdateTransaction(const TransactionRecord& updated,
                                         int64_t expected_version,
                                         const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* update,
        conn->Prepare(
            "UPDATE lance_transactions SET status = ?, payload = ?, "
            "version = version + 1, updated_at_ms = ? WHERE id = ? AND version = ?"));
    {
      Query query(*conn, update);
      CAIRN_RETURN_IF_ERROR(query.Bind(updated.status)
                                .Bind(updated.payload)
                                .Bind(NowMillis())
                                .Bind(updated.id)
                                .Bind(expected_version)
                                .Run("update transaction"));
      if (query.Changes() == 0) return false;
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* clear,
        conn->Prepare(
            "DELETE FROM lance_transaction_properties WHERE transaction_id = ?"));
    {
      Query query(*conn, clear);
      CAIRN_RETURN_IF_ERROR(query.Bind(updated.id).Run("clear transaction properties"));
    }
    CAIRN_RETURN_IF_ERROR(WriteTransactionProperties(*conn, updated));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return true;
  });
}

Result<std::vector<TransactionRecord>> SqlStore::ListTransactions(
    const std::vector<std::string>& statuses) {
  return Read([&](Lease& conn) -> Result<std::vector<TransactionRecord>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT id, status, payload, version, created_at_ms, updated_at_ms "
            "FROM lance_transactions WHERE status = ? ORDER BY created_at_ms, id"));
    std::vector<TransactionRecord> records;
    for (const auto& status : statuses) {
      Query query(*conn, stmt);
      query.Bind(status);
      for (;;) {
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list transactions"));
        if (!row) break;
        records.push_back(ReadTransactionRow(query));
      }
    }
    for (auto& record : records) {
      CAIRN_ASSIGN_OR_RAISE(record.properties,
                            ReadTransactionProperties(*conn, record.id));
    }
    std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
      return a.created_at_ms < b.created_at_ms;
    });
    return records;
  });
}

Result<std::map<std::string, int64_t>> SqlStore::CountTransactionsByStatus() {
  return Read([&](Lease& conn) -> Result<std::map<std::string, int64_t>> {
    // By the (status, ...) index: the counts without reading the records.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT status, COUNT(*) FROM lance_transactions GROUP BY status"));
    Query query(*conn, stmt);
    std::map<std::string, int64_t> counts;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("count transactions"));
      if (!row) return counts;
      counts.emplace(query.Text(0), query.Int(1));
    }
  });
}

Result<TransactionPage> SqlStore::ListTransactionPage(
    const std::vector<std::string>& statuses, std::string_view after_id, size_t limit) {
  static constexpr size_t kMaxPage = 1000;
  static constexpr size_t kMaxStatuses = 5;  // placeholders of the filtered statement
  limit = std::clamp<size_t>(limit, 1, kMaxPage);
  std::vector<std::string> wanted(statuses);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  if (wanted.size() > kMaxStatuses) {
    return BadRequest("At most {} transaction statuses at once", kMaxStatuses);
  }
  // Statements are cached by the address of their literal: one literal each, the
  // filtered one padded by repeating a status.
  static constexpr const char* kAll =
      "SELECT id, status, payload, version, created_at_ms, updated_at_ms "
      "FROM lance_transactions WHERE id > ? ORDER BY id LIMIT ?";
  static constexpr const char* kFiltered =
      "SELECT id, status, payload, version, created_at_ms, updated_at_ms "
      "FROM lance_transactions WHERE id > ? AND status IN (?, ?, ?, ?, ?) "
      "ORDER BY id LIMIT ?";
  return Read([&](Lease& conn) -> Result<TransactionPage> {
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(wanted.empty() ? kAll : kFiltered));
    TransactionPage page;
    {
      Query query(*conn, stmt);
      query.Bind(after_id);
      for (size_t i = 0; !wanted.empty() && i < kMaxStatuses; ++i) {
        query.Bind(wanted[std::min(i, wanted.size() - 1)]);
      }
      query.Bind(static_cast<int64_t>(limit + 1));
      for (;;) {
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list transactions"));
        if (!row) break;
        page.records.push_back(ReadTransactionRow(query));
      }
    }
    if (page.records.size() > limit) {
      page.records.pop_back();
      page.has_more = true;
    }
    if (page.records.empty()) return page;
    // Every property of the page in one statement (a round trip per record would be a
    // thousand on PostgreSQL): those of the id range the page query walked, by the
    // primary key; a filtered-out record's are skipped here as its row was there.
    CAIRN_ASSIGN_OR_RAISE(
        auto* properties,
        conn->Prepare(
            "SELECT transaction_id, key, value FROM lance_transaction_properties "
            "WHERE transaction_id >= ? AND transaction_id <= ?"));
    std::map<std::string_view, TransactionRecord*> by_id;
    for (auto& record : page.records) by_id.emplace(record.id, &record);
    Query query(*conn, properties);
    query.Bind(page.records.front().id).Bind(page.records.back().id);
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read transaction properties"));
      if (!row) return page;
      const auto found = by_id.find(query.Text(0));
      if (found != by_id.end())
        found->second->properties.emplace(query.Text(1), query.Text(2));
    }
  });
}

Result<bool> SqlStore::DeleteTransaction(std::string_view id, const WriteContext& write) {
  // A transaction even for one statement, so that it parks like every write of `write`.
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(auto* del,
                          conn->Prepare("DELETE FROM lance_transactions WHERE id = ?"));
    Query query(*conn, del);
    CAIRN_RETURN_IF_ERROR(query.Bind(id).Run("delete transaction"));
    const bool deleted = query.Changes() > 0;
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return deleted;
  });
}

Result<int64_t> SqlStore::PruneTransactions(const std::vector<std::string>& statuses,
                                            int64_t updated_before_ms, size_t limit) {
  const auto bounded = static_cast<int64_t>(std::min(limit, kMaxTransactionPruneBatch));
  return Write(
      WriteContext::Immediate(),
      [&](Lease& conn, WriteTransaction& txn) -> Result<int64_t> {
        // The ids first, by the (status, updated_at_ms) index, so that one call reads
        // and deletes at most `bounded` rows however many are due; properties go by ON
        // DELETE CASCADE.
        CAIRN_ASSIGN_OR_RAISE(
            auto* prune,
            conn->Prepare("DELETE FROM lance_transactions WHERE id IN (SELECT id FROM "
                          "lance_transactions WHERE status = ? AND updated_at_ms < ? "
                          "ORDER BY updated_at_ms LIMIT ?)"));
        int64_t pruned = 0;
        for (const auto& status : statuses) {
          if (pruned >= bounded) break;
          Query query(*conn, prune);
          CAIRN_RETURN_IF_ERROR(query.Bind(status)
                                    .Bind(updated_before_ms)
                                    .Bind(bounded - pruned)
                                    .Run("prune transactions"));
          pruned += query.Changes();
        }
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return pruned;
      });
}

}  // namespace cairn::sql_internal
