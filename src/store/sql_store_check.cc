// The SQL store: rows that point at rows that do not exist (`cairn admin check`).
//
// The schema's foreign keys keep these from appearing on PostgreSQL and on SQLite with
// `foreign_keys=ON` (every connection of the store sets it); a database written by
// other tools, restored from a partial copy, or edited by hand may still hold them.
// Namespaces name their parent by path, without a foreign key: checked here in full.

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

/// One reference of the schema: the statement counting the rows whose target is
/// missing, and what those rows are.
struct Reference {
  const char* count_sql;
  const char* rows;
};

constexpr Reference kReferences[] = {
    {"SELECT COUNT(*) FROM catalog_properties c WHERE NOT EXISTS "
     "(SELECT 1 FROM catalogs p WHERE p.id = c.catalog_id)",
     "catalog_properties rows of a missing catalog"},
    {"SELECT COUNT(*) FROM namespaces c WHERE NOT EXISTS "
     "(SELECT 1 FROM catalogs p WHERE p.id = c.catalog_id)",
     "namespaces of a missing catalog"},
    {"SELECT COUNT(*) FROM namespace_properties c WHERE NOT EXISTS "
     "(SELECT 1 FROM namespaces p WHERE p.id = c.namespace_id)",
     "namespace_properties rows of a missing namespace"},
    {"SELECT COUNT(*) FROM entities c WHERE NOT EXISTS "
     "(SELECT 1 FROM namespaces p WHERE p.id = c.namespace_id)",
     "tables or views (entities) of a missing namespace"},
    {"SELECT COUNT(*) FROM entity_parts c WHERE NOT EXISTS "
     "(SELECT 1 FROM entities p WHERE p.id = c.entity_id)",
     "entity_parts rows of a missing entity"},
    {"SELECT COUNT(*) FROM split_entities c WHERE NOT EXISTS "
     "(SELECT 1 FROM entities p WHERE p.id = c.entity_id)",
     "split_entities rows of a missing entity"},
    {"SELECT COUNT(*) FROM entity_locations c WHERE NOT EXISTS "
     "(SELECT 1 FROM entities p WHERE p.id = c.entity_id)",
     "location claims (entity_locations) of a missing entity"},
    {"SELECT COUNT(*) FROM lance_versions c WHERE NOT EXISTS "
     "(SELECT 1 FROM entities p WHERE p.id = c.entity_id)",
     "Lance versions of a missing table"},
    {"SELECT COUNT(*) FROM metrics_reports c WHERE NOT EXISTS "
     "(SELECT 1 FROM entities p WHERE p.id = c.entity_id)",
     "metrics reports of a missing table"},
    {"SELECT COUNT(*) FROM lance_transaction_properties c WHERE NOT EXISTS "
     "(SELECT 1 FROM lance_transactions p WHERE p.id = c.transaction_id)",
     "lance_transaction_properties rows of a missing transaction"},
    {"SELECT COUNT(*) FROM principal_roles c WHERE NOT EXISTS "
     "(SELECT 1 FROM principals p WHERE p.name = c.principal)",
     "role assignments of a missing principal"},
    {"SELECT COUNT(*) FROM principal_roles c WHERE NOT EXISTS "
     "(SELECT 1 FROM roles p WHERE p.name = c.role)",
     "role assignments of a missing role"},
    {"SELECT COUNT(*) FROM grants c WHERE NOT EXISTS "
     "(SELECT 1 FROM roles p WHERE p.name = c.role)",
     "grants of a missing role"},
};

/// Namespaces below a level that has no row of its own.
Result<int64_t> CountNamespacesWithoutParent(SqlConnection& conn) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* stmt, conn.Prepare("SELECT catalog_id, parent_path, name FROM namespaces"));
  Query query(conn, stmt);
  std::set<std::pair<int64_t, std::string>> present;
  std::vector<std::pair<int64_t, std::string>> parents;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read namespaces"));
    if (!row) break;
    std::string parent = query.Text(1);
    std::string key =
        parent.empty() ? query.Text(2) : parent + kLevelSeparator + query.Text(2);
    present.emplace(query.Int(0), std::move(key));
    if (!parent.empty()) parents.emplace_back(query.Int(0), std::move(parent));
  }
  int64_t orphaned = 0;
  for (const auto& parent : parents) orphaned += present.contains(parent) ? 0 : 1;
  return orphaned;
}

}  // namespace

Result<std::vector<std::string>> SqlStore::FindOrphanedRows() {
  return Read([&](Lease& conn) -> Result<std::vector<std::string>> {
    std::vector<std::string> problems;
    for (const Reference& reference : kReferences) {
      CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(reference.count_sql));
      Query query(*conn, stmt);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check references"));
      const int64_t count = row ? query.Int(0) : 0;
      if (count > 0) problems.push_back(fmt::format("{} {}", count, reference.rows));
    }
    CAIRN_ASSIGN_OR_RAISE(int64_t orphaned, CountNamespacesWithoutParent(*conn));
    if (orphaned > 0) {
      problems.push_back(
          fmt::format("{} namespaces whose parent namespace is missing", orphaned));
    }
    return problems;
  });
}

}  // namespace cairn::sql_internal
