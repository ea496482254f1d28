// The one-row store transaction of the commit ceilings and the timed loop around it
// (ceiling_store.h): an UPDATE of one row in the same kind of store Cairn uses
// (src/store/sqlite_store.cc / postgres_store.cc), with the same connection settings.

#include "loadgen/ceiling_store.h"

#include <sqlite3.h>

#include <semaphore>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <libpq-fe.h>

#include "common/macros.h"
#include "loadgen/tally.h"

namespace cairn::bench {
namespace {

/// The right to write, shared by every SQLite ceiling connection of this process (a run
/// measures one ceiling store at a time): Cairn's store queues its writers the same way
/// (src/store/sqlite_store.cc, `WriterGate`) instead of letting SQLite's busy handler
/// make them poll with sleeps.
std::binary_semaphore& SqliteWriterGate() {
  static std::binary_semaphore gate(1);
  return gate;
}

class SqliteCeiling final : public CeilingStore {
 public:
  static Result<std::unique_ptr<SqliteCeiling>> Open(const std::string& path, int rows) {
    sqlite3* db = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      std::string message = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close_v2(db);
      return IOError("open SQLite {}: {}", path, message);
    }
    auto store = std::unique_ptr<SqliteCeiling>(new SqliteCeiling(db));
    sqlite3_busy_timeout(db, 5000);
    // The same pragmas as Cairn's connections (synchronous=full is its default).
    CAIRN_RETURN_IF_ERROR(store->Exec(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=full; PRAGMA foreign_keys=ON;"));
    CAIRN_RETURN_IF_ERROR(
        store->Exec("CREATE TABLE IF NOT EXISTS bench_ceiling (id INTEGER PRIMARY KEY, "
                    "version INTEGER NOT NULL, location TEXT NOT NULL)"));
    for (int row = 0; row < rows; ++row) {
      CAIRN_RETURN_IF_ERROR(store->Exec(
          fmt::format("INSERT OR IGNORE INTO bench_ceiling VALUES ({}, 0, '')", row)
              .c_str()));
    }
    if (sqlite3_prepare_v2(
            db,
            "UPDATE bench_ceiling SET version = version + 1, location = ?1 "
            "WHERE id = ?2",
            -1, &store->update_, nullptr) != SQLITE_OK) {
      return store->Fail("prepare");
    }
    return store;
  }

  ~SqliteCeiling() override {
    sqlite3_finalize(update_);
    sqlite3_close_v2(db_);
  }

  Status Update(int row) override {
    // Through the gate, then BEGIN IMMEDIATE, as Cairn's writers do.
    SqliteWriterGate().acquire();
    auto done = UpdateInTransaction(row);
    SqliteWriterGate().release();
    return done;
  }

 private:
  explicit SqliteCeiling(sqlite3* db) : db_(db) {}

  Status UpdateInTransaction(int row) {
    CAIRN_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    sqlite3_reset(update_);
    sqlite3_bind_text(update_, 1, "file:///bench/metadata.json", -1, SQLITE_STATIC);
    sqlite3_bind_int(update_, 2, row);
    if (sqlite3_step(update_) != SQLITE_DONE) {
      auto failure = Fail("update");
      (void)Exec("ROLLBACK");
      return failure;
    }
    return Exec("COMMIT");
  }

  Status Exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return Fail(sql);
    return Ok();
  }
  tl::unexpected<Error> Fail(std::string_view what) {
    return IOError("SQLite {}: {}", what, sqlite3_errmsg(db_));
  }

  sqlite3* db_;
  sqlite3_stmt* update_ = nullptr;
};

class PostgresCeiling final : public CeilingStore {
 public:
  static Result<std::unique_ptr<PostgresCeiling>> Open(const std::string& uri, int rows) {
    auto store =
        std::unique_ptr<PostgresCeiling>(new PostgresCeiling(PQconnectdb(uri.c_str())));
    if (PQstatus(store->conn_) != CONNECTION_OK) return store->Fail("connect");
    // As Cairn's connections: no NOTICE chatter ("relation already exists, skipping").
    CAIRN_RETURN_IF_ERROR(store->Exec("SET client_min_messages = warning"));
    CAIRN_RETURN_IF_ERROR(store->Exec(
        "CREATE TABLE IF NOT EXISTS cairn_bench_ceiling (id integer PRIMARY KEY, "
        "version bigint NOT NULL, location text NOT NULL)"));
    for (int row = 0; row < rows; ++row) {
      CAIRN_RETURN_IF_ERROR(store->Exec(fmt::format(
          "INSERT INTO cairn_bench_ceiling VALUES ({}, 0, '') ON CONFLICT DO NOTHING",
          row)));
    }
    std::unique_ptr<PGresult, decltype(&PQclear)> prepared(
        PQprepare(store->conn_, "update",
                  "UPDATE cairn_bench_ceiling SET version = version + 1, location = $1 "
                  "WHERE id = $2",
                  2, nullptr),
        &PQclear);
    if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) return store->Fail("prepare");
    return store;
  }

  ~PostgresCeiling() override { PQfinish(conn_); }

  Status Update(int row) override {
    // BEGIN, the statement, COMMIT: the round trips of Cairn's store transactions.
    CAIRN_RETURN_IF_ERROR(Exec("BEGIN"));
    const std::string id = std::to_string(row);
    const char* values[] = {"file:///bench/metadata.json", id.c_str()};
    std::unique_ptr<PGresult, decltype(&PQclear)> result(
        PQexecPrepared(conn_, "update", 2, values, nullptr, nullptr, 0), &PQclear);
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
      auto failure = Fail("update");
      (void)Exec("ROLLBACK");
      return failure;
    }
    return Exec("COMMIT");
  }

 private:
  explicit PostgresCeiling(PGconn* conn) : conn_(conn) {}

  Status Exec(const std::string& sql) {
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn_, sql.c_str()),
                                                         &PQclear);
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) return Fail(sql);
    return Ok();
  }
  tl::unexpected<Error> Fail(std::string_view what) {
    return IOError("PostgreSQL {}: {}", what, PQerrorMessage(conn_));
  }

  PGconn* conn_;
};

/// One thread of `RunCeilingLoops`: its own connection, row and latencies.
struct Loop {
  int index = 0;
  uint64_t count = 0;
  std::unique_ptr<CeilingStore> store;
  Histogram latency;
  Status status;

  void Run(const CeilingWrite& write) {
    for (uint64_t op = 0; op < count; ++op) {
      const auto start = Clock::now();
      status = write(index, op);
      if (status) status = store->Update(index);
      if (!status) return;
      latency.Record(MicrosBetween(start, Clock::now()));
    }
  }
};

}  // namespace

Result<std::unique_ptr<CeilingStore>> OpenCeilingStore(const std::string& uri, int rows) {
  if (uri.starts_with("sqlite:")) {
    CAIRN_ASSIGN_OR_RAISE(auto sqlite, SqliteCeiling::Open(uri.substr(7), rows));
    return std::unique_ptr<CeilingStore>(std::move(sqlite));
  }
  if (uri.starts_with("postgresql://") || uri.starts_with("postgres://")) {
    CAIRN_ASSIGN_OR_RAISE(auto postgres, PostgresCeiling::Open(uri, rows));
    return std::unique_ptr<CeilingStore>(std::move(postgres));
  }
  // Not the URI itself: a mistyped scheme may still carry a password.
  return InvalidConfig("Invalid --store: expected sqlite:PATH or postgresql://...");
}

std::string_view CeilingStoreKind(std::string_view uri) {
  return uri.starts_with("sqlite:") ? "sqlite" : "postgresql";
}

Result<CeilingRun> RunCeilingLoops(const std::string& store_uri, int connections,
                                   uint64_t count, const CeilingWrite& write) {
  CAIRN_PRECHECK(connections >= 1 && connections <= 1024,
                 "--connections must be in 1..1024");
  // Every loop opens its own connection, after one has created the table and rows.
  CAIRN_ASSIGN_OR_RAISE(auto setup, OpenCeilingStore(store_uri, connections));
  setup.reset();
  std::vector<Loop> loops(static_cast<size_t>(connections));
  for (size_t i = 0; i < loops.size(); ++i) {
    loops[i].index = static_cast<int>(i);
    loops[i].count = count / loops.size() + (i < count % loops.size() ? 1 : 0);
    CAIRN_ASSIGN_OR_RAISE(loops[i].store, OpenCeilingStore(store_uri, 0));
  }

  const auto start = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(loops.size());
  for (Loop& loop : loops) {
    threads.emplace_back([&loop, &write] { loop.Run(write); });
  }
  for (std::thread& thread : threads) thread.join();
  CeilingRun run;
  run.seconds = SecondsBetween(start, Clock::now());

  for (Loop& loop : loops) {
    CAIRN_RETURN_IF_ERROR(loop.status);
    run.latency.Merge(loop.latency);
  }
  return run;
}

}  // namespace cairn::bench
