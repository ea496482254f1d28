#pragma once

/// \file
/// \brief The `MetaStore` on a SQL database: one implementation of the store's semantics
/// for every backend (`sqlite_store.cc`, `postgres_store.cc`), which each supply
/// connections and their schema migrations.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/meta_store.h"
#include "store/sql_connection.h"

namespace cairn {

/// \brief Opens a new connection. Errors: `kServiceUnavailable` when the database cannot
/// be reached now.
using SqlConnector = std::function<Result<std::unique_ptr<SqlConnection>>()>;

struct SqlStoreOptions {
  /// At most this many connections are open at once.
  size_t pool_size = 8;
  /// Opens a connection when the pool has none idle and fewer than `pool_size` open.
  /// Empty: the pool keeps exactly the connections it was given.
  SqlConnector connect;
  /// Connections already open (at least one when `connect` is empty).
  std::vector<std::unique_ptr<SqlConnection>> connections;
  /// Commits that arrive while another one's swap runs wait, and then run together in
  /// one write transaction (sharing its COMMIT and fsync) instead of one after the
  /// other; a commit whose entities moved on meanwhile is undone alone. For backends
  /// whose writers exclude each other (SQLite), where such commits queue anyway.
  bool combine_swaps = false;
  /// How long a commit waits in that queue before it is refused as busy (503).
  std::chrono::milliseconds combine_wait{5000};
};

/// \brief The store over a pool of connections. Write transactions that fail with
/// `SqlFailure::kRetryable` run again (bounded); a connection that broke before its
/// transaction committed is replaced and the call runs once more.
std::unique_ptr<MetaStore> MakeSqlStore(SqlStoreOptions options);

/// \brief Applies the pending entries of `migrations` (entry i is schema version i+1),
/// each in its own transaction, recording them in `schema_version`. Errors: `kIOError`,
/// also when the database has a newer schema than `migrations` knows.
Status ApplyMigrations(SqlConnection& conn, const std::vector<const char*>& migrations);

/// \brief Where the database behind `conn` stands against `migrations`.
/// `has_versions_sql` is the backend's query that answers one row with a count: 1 when
/// the `schema_version` table exists (a database without it is at version 0). Reads only.
/// Errors: `kIOError`.
Result<SchemaState> ReadSchemaState(SqlConnection& conn,
                                    const std::vector<const char*>& migrations,
                                    const char* has_versions_sql);

}  // namespace cairn
