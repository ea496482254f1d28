#pragma once

/// \file
/// \brief The PostgreSQL backend of the metadata store: several Cairn replicas share one
/// database. Same schema semantics, keyset pagination and commit protocol as SQLite
/// (`sql_store.h`); concurrent writers are ordered by row locks and conflicting
/// transactions run again.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief Settings of the PostgreSQL backend.
struct PostgresOptions {
  /// libpq connection URI: `postgresql://user@host:port/dbname[?param=value...]`.
  std::string uri;
  /// Password, when not left to libpq (`PGPASSWORD`, `~/.pgpass`); never logged.
  std::string password;
  /// Connections each replica opens at most.
  size_t pool_size = 8;
  /// How long opening a connection may take before the store counts as unreachable.
  int connect_timeout_s = 5;
  /// How long a statement waits for a row lock before the request fails with 503.
  int lock_timeout_ms = 10000;
};

/// \brief True for `postgresql://` and `postgres://` URIs.
bool IsPostgresUri(std::string_view uri);

/// \brief `uri` with any password in it replaced by `***`, for logs.
std::string RedactedPostgresUri(std::string_view uri);

/// \brief Connects, applies pending schema migrations (under an advisory lock, so that
/// replicas starting together apply each once) and returns the store. Connections lost
/// later are reopened on demand. Errors: `kServiceUnavailable` when the database cannot
/// be reached, `kIOError` when a migration fails.
Result<std::unique_ptr<MetaStore>> OpenPostgresStore(const PostgresOptions& options);

/// \brief The schema state of the PostgreSQL database, read without changing it.
/// Errors: `kServiceUnavailable` when it cannot be reached, `kIOError`.
Result<SchemaState> InspectPostgresSchema(const PostgresOptions& options);

}  // namespace cairn
