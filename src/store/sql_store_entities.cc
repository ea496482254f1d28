// The SQL store: entity rows — create, load, drop, rename, list (see
// sql_store_internal.h; their compare-and-swap is in sql_store_swaps.cc).

#include <algorithm>
#include <utility>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

/// Steps a query that selects (id, kind, metadata_location) of at most one entity.
Result<std::optional<EntityPointer>> StepPointer(Query& query, const char* what) {
  CAIRN_ASSIGN_OR_RAISE(bool row, query.Step(what));
  if (!row) return std::optional<EntityPointer>{};
  CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(1)));
  return std::optional<EntityPointer>(EntityPointer{query.Int(0), kind, query.Text(2)});
}

}  // namespace

Result<EntityKind> ParseKind(std::string_view text) {
  for (auto kind :
       {EntityKind::kIcebergTable, EntityKind::kIcebergView, EntityKind::kLanceTable}) {
    if (EntityKindName(kind) == text) return kind;
  }
  return Internal("Unknown entity kind '{}' in the metadata store", text);
}

/// The kind of the entity named `name` in namespace `ns_id`; nullopt when none.
Result<std::optional<EntityKind>> FindEntityKind(SqlConnection& conn, int64_t ns_id,
                                                 std::string_view name) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt,
      conn.Prepare("SELECT kind FROM entities WHERE namespace_id = ? AND name = ?"));
  Query query(conn, stmt);
  query.Bind(ns_id).Bind(name);
  CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find entity"));
  if (!row) return std::optional<EntityKind>{};
  CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(0)));
  return std::optional<EntityKind>(kind);
}

Result<int64_t> CatalogOfEntity(SqlConnection& conn, int64_t entity_id) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt, conn.Prepare("SELECT n.catalog_id FROM entities e JOIN namespaces n "
                               "ON n.id = e.namespace_id WHERE e.id = ?"));
  Query query(conn, stmt);
  query.Bind(entity_id);
  CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find the catalog of an entity"));
  if (!row) return Internal("Entity {} has no namespace", entity_id);
  return query.Int(0);
}

Result<EntityRecord> InsertEntity(SqlConnection& conn, int64_t catalog_id,
                                  const NamespacePath& ns, std::string_view name,
                                  EntityKind kind, std::string_view metadata_location,
                                  std::string_view metadata, const LocationClaim& claim) {
  CAIRN_ASSIGN_OR_RAISE(auto ns_id, LockNamespace(conn, catalog_id, ns, false));
  if (!ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
  CAIRN_ASSIGN_OR_RAISE(auto existing, FindEntityKind(conn, *ns_id, name));
  if (existing) {
    return AlreadyExists("Name {}.{} is already used by an {}", DottedName(ns), name,
                         EntityKindName(*existing));
  }
  CAIRN_ASSIGN_OR_RAISE(
      auto* insert,
      conn.Prepare("INSERT INTO entities (namespace_id, name, kind, metadata_location, "
                   "metadata, version, created_at_ms, updated_at_ms) "
                   "VALUES (?, ?, ?, ?, ?, 0, ?, ?) RETURNING id"));
  const int64_t now = NowMillis();
  EntityRecord record{0,
                      kind,
                      ns,
                      std::string(name),
                      std::string(metadata_location),
                      std::string(metadata),
                      0};
  {
    Query query(conn, insert);
    query.Bind(*ns_id)
        .Bind(name)
        .Bind(EntityKindName(kind))
        .Bind(metadata_location)
        .Bind(metadata)
        .Bind(now)
        .Bind(now);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("create entity"));
    if (!row) return IOError("Creating {}.{} returned no id", DottedName(ns), name);
    record.id = query.Int(0);
  }
  CAIRN_RETURN_IF_ERROR(ClaimLocations(conn, record.id, catalog_id, claim));
  return record;
}

Result<bool> DeleteEntityById(SqlConnection& conn, int64_t entity_id, EntityKind kind) {
  CAIRN_ASSIGN_OR_RAISE(auto* del,
                        conn.Prepare("DELETE FROM entities WHERE id = ? AND kind = ?"));
  Query query(conn, del);
  CAIRN_RETURN_IF_ERROR(
      query.Bind(entity_id).Bind(EntityKindName(kind)).Run("drop entity by id"));
  return query.Changes() > 0;
}

Result<EntityRecord> SqlStore::CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                            std::string_view name, EntityKind kind,
                                            std::string_view metadata_location,
                                            std::string_view metadata,
                                            const LocationClaim& claim,
                                            const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<EntityRecord> {
    CAIRN_ASSIGN_OR_RAISE(EntityRecord record,
                          InsertEntity(*conn, catalog_id, ns, name, kind,
                                       metadata_location, metadata, claim));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return record;
  });
}

Result<std::optional<EntityRecord>> SqlStore::LoadEntity(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) {
  return Read([&](Lease& conn) -> Result<std::optional<EntityRecord>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT e.id, e.kind "
                      "FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
                      "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
                      "AND e.name = ?"));
    EntityRecord record;
    {
      Query query(*conn, stmt);
      query.Bind(catalog_id).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity"));
      if (!row) return std::optional<EntityRecord>{};
      CAIRN_ASSIGN_OR_RAISE(record.kind, ParseKind(query.Text(1)));
      record.id = query.Int(0);
    }
    record.ns = ns;
    record.name = std::string(name);
    CAIRN_ASSIGN_OR_RAISE(bool present, ReadMetadataConsistently(*conn, record));
    if (!present) return std::optional<EntityRecord>{};  // dropped meanwhile
    return std::optional<EntityRecord>(std::move(record));
  });
}

Result<std::optional<EntityPointer>> SqlStore::LoadEntityPointer(int64_t catalog_id,
                                                                 const NamespacePath& ns,
                                                                 std::string_view name) {
  // Only columns stored before `metadata`: SQLite reads a row's columns in order, so
  // naming a later one would walk the metadata's overflow pages.
  return ReadPointer(
      "SELECT e.id, e.kind, e.metadata_location "
      "FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
      "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
      "AND e.name = ?",
      catalog_id, ns, name, "load entity pointer");
}

Result<std::optional<EntityPointer>> SqlStore::FindEntityPointer(
    std::string_view catalog_name, const NamespacePath& ns, std::string_view name) {
  // As LoadEntityPointer, with the catalog joined in.
  return ReadPointer(
      "SELECT e.id, e.kind, e.metadata_location FROM catalogs c "
      "JOIN namespaces n ON n.catalog_id = c.id "
      "JOIN entities e ON e.namespace_id = n.id "
      "WHERE c.name = ? AND n.parent_path = ? AND n.name = ? "
      "AND e.name = ?",
      catalog_name, ns, name, "find entity pointer");
}

template <class CatalogKey>
Result<std::optional<EntityPointer>> SqlStore::ReadPointer(const char* sql,
                                                           CatalogKey catalog,
                                                           const NamespacePath& ns,
                                                           std::string_view name,
                                                           const char* what) {
  return Read([&](Lease& conn) -> Result<std::optional<EntityPointer>> {
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(sql));
    Query query(*conn, stmt);
    query.Bind(catalog).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
    return StepPointer(query, what);
  });
}

Result<std::optional<EntityKind>> SqlStore::EntityKindOf(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) {
  return Read([&](Lease& conn) -> Result<std::optional<EntityKind>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT e.kind FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
            "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
            "AND e.name = ?"));
    Query query(*conn, stmt);
    query.Bind(catalog_id).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find entity kind"));
    if (!row) return std::optional<EntityKind>{};
    CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(0)));
    return std::optional<EntityKind>(kind);
  });
}

Result<bool> SqlStore::DropEntity(int64_t catalog_id, const NamespacePath& ns,
                                  std::string_view name, EntityKind kind,
                                  const WriteContext& write) {
  // A transaction even for one statement: an Idempotency-Key commits with the effect.
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* del,
        conn->Prepare(
            "DELETE FROM entities WHERE kind = ? AND name = ? AND namespace_id = "
            "(SELECT id FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
            "AND name = ?)"));
    bool dropped = false;
    {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(EntityKindName(kind))
                                .Bind(name)
                                .Bind(catalog_id)
                                .Bind(ParentKey(ns))
                                .Bind(ns.back())
                                .Run("drop entity"));
      dropped = query.Changes() > 0;
    }
    if (!dropped) return false;
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return true;
  });
}

Status SqlStore::RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                              std::string_view from_name, const NamespacePath& to_ns,
                              std::string_view to_name, EntityKind kind,
                              const WriteContext& write) {
  return Write(write, [&](Lease& conn, WriteTransaction& txn) -> Status {
    CAIRN_ASSIGN_OR_RAISE(auto from_ns_id, FindNamespaceId(*conn, catalog_id, from_ns));
    std::optional<EntityKind> source_kind;
    if (from_ns_id) {
      CAIRN_ASSIGN_OR_RAISE(source_kind, FindEntityKind(*conn, *from_ns_id, from_name));
    }
    if (!source_kind || *source_kind != kind) {
      return NoSuchTable("{} does not exist: {}.{}", EntityKindName(kind),
                         DottedName(from_ns), from_name);
    }
    CAIRN_ASSIGN_OR_RAISE(auto to_ns_id, LockNamespace(*conn, catalog_id, to_ns, false));
    if (!to_ns_id)
      return NoSuchNamespace("Namespace does not exist: {}", DottedName(to_ns));
    CAIRN_ASSIGN_OR_RAISE(auto target_kind, FindEntityKind(*conn, *to_ns_id, to_name));
    if (target_kind) {
      return AlreadyExists("Name {}.{} is already used by an {}", DottedName(to_ns),
                           to_name, EntityKindName(*target_kind));
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* update,
        conn->Prepare("UPDATE entities SET namespace_id = ?, name = ?, updated_at_ms = ? "
                      "WHERE namespace_id = ? AND name = ?"));
    {
      Query query(*conn, update);
      CAIRN_RETURN_IF_ERROR(query.Bind(*to_ns_id)
                                .Bind(to_name)
                                .Bind(NowMillis())
                                .Bind(*from_ns_id)
                                .Bind(from_name)
                                .Run("rename entity"));
      if (query.Changes() == 0) {  // dropped meanwhile
        return NoSuchTable("{} does not exist: {}.{}", EntityKindName(kind),
                           DottedName(from_ns), from_name);
      }
    }
    return txn.Commit();
  });
}

Result<NamePage> SqlStore::ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                        EntityKind kind, std::string_view after,
                                        std::optional<size_t> limit) {
  return Read([&](Lease& conn) -> Result<NamePage> {
    CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
    if (!ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
    // Keyset pagination on the (namespace_id, kind, name) index, as for namespaces.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT name FROM entities WHERE namespace_id = ? AND kind = ? "
                      "AND name > ? ORDER BY name LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(*ns_id).Bind(EntityKindName(kind)).Bind(after).Bind(FetchLimit(limit));
    return ReadNamePage(query, limit, "list entities");
  });
}

Result<EntityPage> SqlStore::ListAllEntities(EntityKind kind, int64_t after_id,
                                             std::optional<size_t> limit) {
  return Read([&](Lease& conn) -> Result<EntityPage> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT e.id, c.name, n.parent_path, n.name, e.name FROM entities e "
            "JOIN namespaces n ON e.namespace_id = n.id "
            "JOIN catalogs c ON n.catalog_id = c.id "
            "WHERE e.id > ? AND e.kind = ? ORDER BY e.id LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(after_id).Bind(EntityKindName(kind)).Bind(FetchLimit(limit));
    EntityPage page;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list all entities"));
      if (!row) break;
      if (limit && page.entities.size() == *limit) {
        page.has_more = true;
        break;
      }
      NamespacePath ns = SplitKey(query.Text(2));
      ns.push_back(query.Text(3));
      page.entities.push_back(
          EntityRef{query.Int(0), query.Text(1), std::move(ns), query.Text(4)});
    }
    return page;
  });
}

}  // namespace cairn::sql_internal
