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

}  // namespace cairn
