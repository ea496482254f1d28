// Applying the schema migrations of a SQL backend (see sql_store.h).

#include "common/macros.h"
#include "store/sql_store.h"
#include "store/sql_store_internal.h"

namespace cairn {
using sql_internal::NowMillis;

Status ApplyMigrations(SqlConnection& conn, const std::vector<const char*>& migrations) {
  CAIRN_RETURN_IF_ERROR(conn.ExecScript(
      "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, "
      "applied_at_ms BIGINT NOT NULL)",
      "create schema_version"));
  for (size_t version = 1; version <= migrations.size(); ++version) {
    CAIRN_RETURN_IF_ERROR(conn.Begin());
    auto applied = [&]() -> Status {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version"));
      Query current(conn, stmt);
      CAIRN_ASSIGN_OR_RAISE(bool row, current.Step("read schema version"));
      const int64_t at = row ? current.Int(0) : 0;
      if (at > static_cast<int64_t>(migrations.size())) {
        return IOError(
            "Database schema version {} is newer than this binary supports ({})", at,
            migrations.size());
      }
      if (at >= static_cast<int64_t>(version)) return Ok();
      CAIRN_RETURN_IF_ERROR(conn.ExecScript(migrations[version - 1], "schema migration"));
      CAIRN_ASSIGN_OR_RAISE(
          auto* insert,
          conn.Prepare(
              "INSERT INTO schema_version (version, applied_at_ms) VALUES (?, ?)"));
      Query record(conn, insert);
      return record.Bind(static_cast<int64_t>(version))
          .Bind(NowMillis())
          .Run("record migration");
    }();
    if (!applied) {
      conn.Rollback();
      return applied;
    }
    CAIRN_RETURN_IF_ERROR(conn.Commit());
  }
  return Ok();
}

Result<SchemaState> ReadSchemaState(SqlConnection& conn,
                                    const std::vector<const char*>& migrations,
                                    const char* has_versions_sql) {
  SchemaState state;
  state.latest = static_cast<int64_t>(migrations.size());
  CAIRN_ASSIGN_OR_RAISE(auto* has_versions, conn.Prepare(has_versions_sql));
  Query exists(conn, has_versions);
  CAIRN_ASSIGN_OR_RAISE(bool row, exists.Step("look for schema_version"));
  if (row && exists.Int(0) > 0) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version"));
    Query current(conn, stmt);
    CAIRN_ASSIGN_OR_RAISE(bool found, current.Step("read schema version"));
    state.current = found ? current.Int(0) : 0;
  }
  for (int64_t version = state.current + 1; version <= state.latest; ++version) {
    state.pending.emplace_back(migrations[static_cast<size_t>(version - 1)]);
  }
  return state;
}

}  // namespace cairn
