// The SQL store: catalogs, namespaces and their properties (see sql_store_internal.h).

#include <algorithm>
#include <limits>
#include <utility>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

Result<Properties> ReadProperties(SqlConnection& conn, SqlStatement* stmt, int64_t id) {
  Query query(conn, stmt);
  query.Bind(id);
  Properties properties;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read properties"));
    if (!row) return properties;
    properties.emplace(query.Text(0), query.Text(1));
  }
}

Status WriteProperties(SqlConnection& conn, int64_t namespace_id,
                       const Properties& properties) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* upsert,
      conn.Prepare("INSERT INTO namespace_properties (namespace_id, key, value) "
                   "VALUES (?, ?, ?) ON CONFLICT (namespace_id, key) "
                   "DO UPDATE SET value = excluded.value"));
  for (const auto& [key, value] : properties) {
    Query query(conn, upsert);
    CAIRN_RETURN_IF_ERROR(
        query.Bind(namespace_id).Bind(key).Bind(value).Run("set namespace property"));
  }
  return Ok();
}

}  // namespace

Result<NamePage> ReadNamePage(Query& query, std::optional<size_t> limit,
                              std::string_view what) {
  NamePage page;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step(what));
    if (!row) break;
    if (limit && page.names.size() == *limit) {
      page.has_more = true;
      break;
    }
    page.names.push_back(query.Text(0));
  }
  return page;
}

/// Looks up the id of a namespace; nullopt when absent.
Result<std::optional<int64_t>> FindNamespaceId(SqlConnection& conn, int64_t catalog_id,
                                               const NamespacePath& path) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt,
      conn.Prepare("SELECT id FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
                   "AND name = ?"));
  Query query(conn, stmt);
  query.Bind(catalog_id).Bind(ParentKey(path)).Bind(path.back());
  CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find namespace"));
  if (!row) return std::optional<int64_t>{};
  return std::optional<int64_t>(query.Int(0));
}

/// Where writers do not exclude each other: locks the catalog row until the transaction
/// ends (shared by creators, exclusive by the catalog's drop). False when it is gone.
Result<bool> LockCatalog(SqlConnection& conn, int64_t catalog_id, bool exclusive) {
  if (conn.SerializesWriters()) return true;
  return conn.LockRow("catalogs", catalog_id, exclusive);
}

/// Finds namespace `path` (non-empty). Where writers do not exclude each other, also
/// locks its catalog and every level of it, outermost first — shared, and the last
/// level exclusive when asked — so that no concurrent drop removes any of them before
/// this transaction ends, and a drop holding one of them waits for this creation first.
/// nullopt when any level is missing.
Result<std::optional<int64_t>> LockNamespace(SqlConnection& conn, int64_t catalog_id,
                                             const NamespacePath& path, bool exclusive) {
  if (conn.SerializesWriters()) return FindNamespaceId(conn, catalog_id, path);
  CAIRN_ASSIGN_OR_RAISE(bool catalog_exists, LockCatalog(conn, catalog_id, false));
  if (!catalog_exists) return std::optional<int64_t>{};
  std::optional<int64_t> id;
  for (size_t depth = 1; depth <= path.size(); ++depth) {
    const NamespacePath level(path.begin(), path.begin() + static_cast<ptrdiff_t>(depth));
    CAIRN_ASSIGN_OR_RAISE(id, FindNamespaceId(conn, catalog_id, level));
    if (!id) return id;
    CAIRN_ASSIGN_OR_RAISE(
        bool still_there,
        conn.LockRow("namespaces", *id, exclusive && depth == path.size()));
    if (!still_there) return std::optional<int64_t>{};
  }
  return id;
}

Result<CatalogRecord> SqlStore::CreateCatalog(std::string_view name,
                                              std::string_view location,
                                              const Properties& properties,
                                              const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<CatalogRecord> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn->Prepare("INSERT INTO catalogs (name, location, created_at_ms) "
                      "VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING "
                      "RETURNING id"));
    CatalogRecord record{0, std::string(name), std::string(location), properties};
    {
      Query query(*conn, insert);
      query.Bind(name).Bind(location).Bind(NowMillis());
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("create catalog"));
      if (!row) return AlreadyExists("Catalog already exists: {}", name);
      record.id = query.Int(0);
    }
    CAIRN_ASSIGN_OR_RAISE(auto* prop,
                          conn->Prepare("INSERT INTO catalog_properties (catalog_id, "
                                        "key, value) VALUES (?, ?, ?)"));
    for (const auto& [key, value] : properties) {
      Query query(*conn, prop);
      CAIRN_RETURN_IF_ERROR(
          query.Bind(record.id).Bind(key).Bind(value).Run("set catalog property"));
    }
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return record;
  });
}

namespace {

/// Locks catalog `catalog_id` for writing. Errors: `kNoSuchWarehouse` when it does not
/// exist.
Status LockExistingCatalog(SqlConnection& conn, int64_t catalog_id) {
  CAIRN_ASSIGN_OR_RAISE(bool locked, LockCatalog(conn, catalog_id, true));
  CAIRN_ASSIGN_OR_RAISE(auto* find, conn.Prepare("SELECT 1 FROM catalogs WHERE id = ?"));
  Query found(conn, find);
  found.Bind(catalog_id);
  CAIRN_ASSIGN_OR_RAISE(bool exists, found.Step("find catalog"));
  if (!locked || !exists) return NoSuchWarehouse("Catalog {} does not exist", catalog_id);
  return Ok();
}

Status ReplaceCatalogProperties(SqlConnection& conn, int64_t catalog_id,
                                const Properties& properties) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* clear, conn.Prepare("DELETE FROM catalog_properties WHERE catalog_id = ?"));
  {
    Query query(conn, clear);
    CAIRN_RETURN_IF_ERROR(query.Bind(catalog_id).Run("clear catalog properties"));
  }
  CAIRN_ASSIGN_OR_RAISE(auto* prop,
                        conn.Prepare("INSERT INTO catalog_properties "
                                     "(catalog_id, key, value) VALUES (?, ?, ?)"));
  for (const auto& [key, value] : properties) {
    Query query(conn, prop);
    CAIRN_RETURN_IF_ERROR(
        query.Bind(catalog_id).Bind(key).Bind(value).Run("set catalog property"));
  }
  return Ok();
}

}  // namespace

Status SqlStore::SetCatalogProperties(int64_t catalog_id, const Properties& properties,
                                      const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Status {
    CAIRN_RETURN_IF_ERROR(LockExistingCatalog(*conn, catalog_id));
    CAIRN_RETURN_IF_ERROR(ReplaceCatalogProperties(*conn, catalog_id, properties));
    return txn.Commit();
  });
}

Result<bool> SqlStore::SwapCatalogProperties(int64_t catalog_id,
                                             const Properties& expected,
                                             const Properties& replacement,
                                             const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
    // Under the catalog's write lock, no other update reads or writes its properties
    // between this read and the replacement.
    CAIRN_RETURN_IF_ERROR(LockExistingCatalog(*conn, catalog_id));
    CAIRN_ASSIGN_OR_RAISE(
        auto* read,
        conn->Prepare("SELECT key, value FROM catalog_properties WHERE catalog_id = ?"));
    CAIRN_ASSIGN_OR_RAISE(Properties current, ReadProperties(*conn, read, catalog_id));
    if (current != expected) return false;
    CAIRN_RETURN_IF_ERROR(ReplaceCatalogProperties(*conn, catalog_id, replacement));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return true;
  });
}

Result<CatalogRecord> SqlStore::GetCatalog(std::string_view name) {
  // Every request resolves its catalog: one statement, the properties joined in.
  return Read([&](Lease& conn) -> Result<CatalogRecord> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT c.id, c.location, p.key, p.value FROM catalogs c "
                      "LEFT JOIN catalog_properties p ON p.catalog_id = c.id "
                      "WHERE c.name = ?"));
    Query query(*conn, stmt);
    query.Bind(name);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load catalog"));
    if (!row) return NoSuchWarehouse("Warehouse does not exist: {}", name);
    CatalogRecord record{query.Int(0), std::string(name), query.Text(1), {}};
    for (; row;) {
      if (!query.IsNull(2)) record.properties.emplace(query.Text(2), query.Text(3));
      CAIRN_ASSIGN_OR_RAISE(row, query.Step("load catalog properties"));
    }
    return record;
  });
}

Result<NamePage> SqlStore::ListCatalogs(std::string_view after,
                                        std::optional<size_t> limit) {
  return Read([&](Lease& conn) -> Result<NamePage> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT name FROM catalogs WHERE name > ? ORDER BY name LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(after).Bind(FetchLimit(limit));
    return ReadNamePage(query, limit, "list catalogs");
  });
}

Result<CatalogPage> SqlStore::ListCatalogRecords(std::string_view after, size_t limit) {
  static constexpr size_t kMaxPage = 1000;
  limit = std::clamp<size_t>(limit, 1, kMaxPage);
  return Read([&](Lease& conn) -> Result<CatalogPage> {
    // The page's catalogs and their properties in one statement: one row per property
    // (one without any for a catalog that has none), by name.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT c.id, c.name, c.location, p.key, p.value FROM (SELECT id, "
            "name, location FROM catalogs WHERE name > ? ORDER BY name LIMIT ?) "
            "c LEFT JOIN catalog_properties p ON p.catalog_id = c.id "
            "ORDER BY c.name"));
    Query query(*conn, stmt);
    query.Bind(after).Bind(static_cast<int64_t>(limit + 1));
    CatalogPage page;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list catalogs"));
      if (!row) break;
      if (page.records.empty() || page.records.back().id != query.Int(0)) {
        page.records.push_back(
            CatalogRecord{query.Int(0), query.Text(1), query.Text(2), {}});
      }
      if (!query.IsNull(3))
        page.records.back().properties.emplace(query.Text(3), query.Text(4));
    }
    if (page.records.size() > limit) {
      page.records.pop_back();
      page.has_more = true;
    }
    return page;
  });
}

Status SqlStore::CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                                 const Properties& properties,
                                 const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Status {
    if (path.size() > 1) {
      NamespacePath parent(path.begin(), path.end() - 1);
      CAIRN_ASSIGN_OR_RAISE(auto parent_id,
                            LockNamespace(*conn, catalog_id, parent, false));
      if (!parent_id) {
        return NoSuchNamespace("Namespace does not exist: {}", DottedName(parent));
      }
    } else {
      CAIRN_ASSIGN_OR_RAISE(bool catalog_exists, LockCatalog(*conn, catalog_id, false));
      if (!catalog_exists)
        return NoSuchWarehouse("Catalog does not exist (id {})", catalog_id);
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn->Prepare(
            "INSERT INTO namespaces (catalog_id, parent_path, name, created_at_ms) "
            "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"));
    int64_t id = 0;
    {
      Query query(*conn, insert);
      query.Bind(catalog_id).Bind(ParentKey(path)).Bind(path.back()).Bind(NowMillis());
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("create namespace"));
      if (!row) return AlreadyExists("Namespace already exists: {}", DottedName(path));
      id = query.Int(0);
    }
    CAIRN_RETURN_IF_ERROR(WriteProperties(*conn, id, properties));
    return txn.Commit();
  });
}

Result<NamespaceRecord> SqlStore::LoadNamespace(int64_t catalog_id,
                                                const NamespacePath& path) {
  return Read([&](Lease& conn) -> Result<NamespaceRecord> {
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
    CAIRN_ASSIGN_OR_RAISE(
        auto* props,
        conn->Prepare(
            "SELECT key, value FROM namespace_properties WHERE namespace_id = ?"));
    CAIRN_ASSIGN_OR_RAISE(auto properties, ReadProperties(*conn, props, *id));
    return NamespaceRecord{*id, path, std::move(properties)};
  });
}

Result<bool> SqlStore::NamespaceExists(int64_t catalog_id, const NamespacePath& path) {
  return Read([&](Lease& conn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    return id.has_value();
  });
}

Result<NamePage> SqlStore::ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                          std::string_view after,
                                          std::optional<size_t> limit) {
  return Read([&](Lease& conn) -> Result<NamePage> {
    if (!parent.empty()) {
      CAIRN_ASSIGN_OR_RAISE(auto parent_id, FindNamespaceId(*conn, catalog_id, parent));
      if (!parent_id) {
        return NoSuchNamespace("Namespace does not exist: {}", DottedName(parent));
      }
    }
    // Keyset pagination on the (catalog_id, parent_path, name) unique index: the rows
    // before `after` are never visited. One extra row tells whether more follow.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT name FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
            "AND name > ? ORDER BY name LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(catalog_id).Bind(FullKey(parent)).Bind(after).Bind(FetchLimit(limit));
    return ReadNamePage(query, limit, "list namespaces");
  });
}

Status SqlStore::DropNamespace(int64_t catalog_id, const NamespacePath& path,
                               const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Status {
    CAIRN_ASSIGN_OR_RAISE(auto id, LockNamespace(*conn, catalog_id, path, true));
    if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
    CAIRN_ASSIGN_OR_RAISE(
        auto* children,
        conn->Prepare(
            "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM namespaces WHERE "
            "catalog_id = ? AND parent_path = ? LIMIT 1) AS child), "
            "(SELECT COUNT(*) FROM (SELECT 1 FROM entities WHERE namespace_id = ? "
            "LIMIT 1) AS entity)"));
    {
      Query query(*conn, children);
      query.Bind(catalog_id).Bind(FullKey(path)).Bind(*id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check namespace is empty"));
      if (row && query.Int(0) > 0) {
        return NamespaceNotEmpty("Namespace is not empty: {} (it has child namespaces)",
                                 DottedName(path));
      }
      if (row && query.Int(1) > 0) {
        return NamespaceNotEmpty("Namespace is not empty: {} (it has tables or views)",
                                 DottedName(path));
      }
    }
    CAIRN_ASSIGN_OR_RAISE(auto* del,
                          conn->Prepare("DELETE FROM namespaces WHERE id = ?"));
    {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(*id).Run("drop namespace"));
    }
    return txn.Commit();
  });
}

Result<PropertiesUpdateOutcome> SqlStore::UpdateNamespaceProperties(
    int64_t catalog_id, const NamespacePath& path, const Properties& updates,
    const std::vector<std::string>& removals, const WriteContext& write) {
  return Write(
      write, [&](Lease& conn, WriteTransaction& txn) -> Result<PropertiesUpdateOutcome> {
        CAIRN_ASSIGN_OR_RAISE(auto id, LockNamespace(*conn, catalog_id, path, true));
        if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
        PropertiesUpdateOutcome outcome;
        CAIRN_ASSIGN_OR_RAISE(
            auto* del,
            conn->Prepare(
                "DELETE FROM namespace_properties WHERE namespace_id = ? AND key = ?"));
        for (const auto& key : removals) {
          Query query(*conn, del);
          CAIRN_RETURN_IF_ERROR(
              query.Bind(*id).Bind(key).Run("remove namespace property"));
          (query.Changes() > 0 ? outcome.removed : outcome.missing).push_back(key);
        }
        CAIRN_RETURN_IF_ERROR(WriteProperties(*conn, *id, updates));
        for (const auto& [key, value] : updates) outcome.updated.push_back(key);
        CAIRN_RETURN_IF_ERROR(txn.Commit());
        return outcome;
      });
}

}  // namespace cairn::sql_internal
