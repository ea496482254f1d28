#pragma once

/// \file
/// \brief The backends the store contract tests run on — SQLite in memory and in a
/// file, and PostgreSQL (a fresh database per test on the server `scripts/test` starts)
/// — and how a test opens a store on one of them.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "postgres_test_db.h"
#include "store/meta_store.h"
#include "store/postgres_store.h"

namespace cairn {

enum class StoreBackendKind { kSqliteMemory, kSqliteFile, kPostgres };

struct StoreBackend {
  std::string name;  // a valid test-name suffix
  StoreBackendKind kind = StoreBackendKind::kSqliteMemory;
};

inline void PrintTo(const StoreBackend& backend, std::ostream* os) {
  *os << backend.name;
}

inline std::vector<StoreBackend> StoreBackends() {
  return {{"SqliteMemory", StoreBackendKind::kSqliteMemory},
          {"SqliteFile", StoreBackendKind::kSqliteFile},
          {"Postgres", StoreBackendKind::kPostgres}};
}

/// \brief A store on `kind`: the SQLite file `sqlite_path`, or the PostgreSQL database
/// `postgres` (which must be set for that kind), each with a pool of 4.
inline Result<std::unique_ptr<MetaStore>> OpenBackendStore(
    StoreBackendKind kind, const std::string& sqlite_path,
    const ScopedPostgresDatabase* postgres) {
  switch (kind) {
    case StoreBackendKind::kSqliteMemory:
      return OpenSqliteStore({.path = ":memory:"});
    case StoreBackendKind::kSqliteFile:
      return OpenSqliteStore(
          {.path = sqlite_path, .synchronous = "normal", .pool_size = 4});
    case StoreBackendKind::kPostgres: {
      PostgresOptions options;
      options.uri = postgres->uri();
      options.pool_size = 4;
      return OpenPostgresStore(options);
    }
  }
  return tl::unexpected(Error{ErrorKind::kInternal, "unknown store backend"});
}

}  // namespace cairn
