// SQLite backend of the SQL metadata store (sql_store.h).
//
// WAL mode lets readers run beside the single writer. Writers open with BEGIN IMMEDIATE
// so that two writers never both hold a read lock and then deadlock upgrading it — and so
// that every write transaction sees no concurrent change (`SerializesWriters`).

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <unordered_map>
#include <utility>

#include "common/macros.h"
#include "common/mutex.h"
#include "common/thread_annotations.h"
#include "store/meta_store.h"
#include "store/sql_store.h"

namespace cairn {
namespace {

/// Each entry is one schema version; applied in order, each in its own transaction, and
/// recorded in `schema_version`. Never edit a released entry: append a new one.
const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> kMigrations = {
      // v1: catalogs, namespaces with properties, and one identifier space per namespace
      // for Iceberg tables, Iceberg views and Lance tables ("entities").
      R"sql(
      CREATE TABLE catalogs (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE,
        location      TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      );
      CREATE TABLE catalog_properties (
        catalog_id INTEGER NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
        key        TEXT NOT NULL,
        value      TEXT NOT NULL,
        PRIMARY KEY (catalog_id, key)
      ) WITHOUT ROWID;
      CREATE TABLE namespaces (
        id            INTEGER PRIMARY KEY,
        catalog_id    INTEGER NOT NULL REFERENCES catalogs(id),
        parent_path   TEXT NOT NULL,
        name          TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        UNIQUE (catalog_id, parent_path, name)
      );
      CREATE TABLE namespace_properties (
        namespace_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
        key          TEXT NOT NULL,
        value        TEXT NOT NULL,
        PRIMARY KEY (namespace_id, key)
      ) WITHOUT ROWID;
      CREATE TABLE entities (
        id                INTEGER PRIMARY KEY,
        namespace_id      INTEGER NOT NULL REFERENCES namespaces(id),
        name              TEXT NOT NULL,
        kind              TEXT NOT NULL
                          CHECK (kind IN ('iceberg-table', 'iceberg-view', 'lance-table')),
        metadata_location TEXT,
        metadata          BLOB,
        version           INTEGER NOT NULL DEFAULT 0,
        created_at_ms     INTEGER NOT NULL,
        updated_at_ms     INTEGER NOT NULL,
        UNIQUE (namespace_id, name)
      );
      )sql",
      // v2: list one kind of entity in a namespace by keyset on (kind, name).
      R"sql(
      CREATE INDEX entities_by_kind ON entities (namespace_id, kind, name);
      )sql",
      // v3: find the entities whose metadata lives at or under a location (purge safety).
      R"sql(
      CREATE INDEX entities_by_metadata_location ON entities (metadata_location);
      )sql",
      // v4: durable Lance transactions (background drops), with their properties.
      R"sql(
      CREATE TABLE lance_transactions (
        id            TEXT PRIMARY KEY,
        status        TEXT NOT NULL,
        payload       TEXT NOT NULL,
        version       INTEGER NOT NULL DEFAULT 0,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
      );
      CREATE INDEX lance_transactions_by_status ON lance_transactions (status, created_at_ms);
      CREATE TABLE lance_transaction_properties (
        transaction_id TEXT NOT NULL REFERENCES lance_transactions(id) ON DELETE CASCADE,
        key            TEXT NOT NULL,
        value          TEXT NOT NULL,
        PRIMARY KEY (transaction_id, key)
      ) WITHOUT ROWID;
      )sql",
      // v5: Idempotency-Key records: the first request's final answer, kept until expiry.
      // `owner` holds the claim while the request runs; `applied` marks that its effect
      // committed (in the same transaction), so the claim can no longer be taken over.
      R"sql(
      CREATE TABLE idempotency_keys (
        key            TEXT PRIMARY KEY,
        fingerprint    TEXT NOT NULL,
        owner          TEXT NOT NULL,
        applied        INTEGER NOT NULL DEFAULT 0,
        lease_until_ms INTEGER NOT NULL,
        status         INTEGER,
        content_type   TEXT,
        body           BLOB,
        etag           TEXT,
        created_at_ms  INTEGER NOT NULL,
        expires_at_ms  INTEGER NOT NULL
      );
      CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at_ms);
      )sql",
      // v6: metadata stored split (see MetadataParts): the parts, and where they go.
      R"sql(
      CREATE TABLE entity_parts (
        entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        list      INTEGER NOT NULL,
        position  INTEGER NOT NULL,
        body      BLOB NOT NULL,
        PRIMARY KEY (entity_id, list, position)
      );
      CREATE TABLE split_entities (
        entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        list       INTEGER NOT NULL,
        parts_at   INTEGER NOT NULL,
        part_count INTEGER NOT NULL,
        PRIMARY KEY (entity_id, list)
      );
      )sql",
      // v7: the running server processes ("instances"), each with the heartbeat it
      // refreshes, and which instance holds each idempotency claim: a claim whose process
      // stopped beating is taken over without waiting for its lease.
      R"sql(
      ALTER TABLE idempotency_keys ADD COLUMN instance TEXT NOT NULL DEFAULT '';
      CREATE TABLE server_instances (
        id            TEXT PRIMARY KEY,
        started_at_ms INTEGER NOT NULL,
        heartbeat_ms  INTEGER NOT NULL
      );
      CREATE INDEX server_instances_by_heartbeat ON server_instances (heartbeat_ms);
      )sql",
      // v8: the locations each entity owns (LocationClaim), to refuse overlapping ones.
      R"sql(
      CREATE TABLE entity_locations (
        entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        catalog_id INTEGER NOT NULL,
        location   TEXT NOT NULL,
        PRIMARY KEY (entity_id, location)
      );
      CREATE INDEX entity_locations_by_location ON entity_locations (location);
      )sql",
      // v9: the answer of an idempotent request is one opaque value that the HTTP layer
      // encodes (http/idempotency.cc), no longer four HTTP columns. Answers stored by
      // an older binary are converted to that encoding — status, content type and ETag
      // on a line each, then the body — so that their retries still replay.
      R"sql(
      ALTER TABLE idempotency_keys ADD COLUMN answer TEXT;
      UPDATE idempotency_keys SET answer = CAST(status AS TEXT) || char(10) ||
        COALESCE(content_type, '') || char(10) || COALESCE(etag, '') || char(10) ||
        COALESCE(CAST(body AS TEXT), '')
        WHERE status IS NOT NULL;
      ALTER TABLE idempotency_keys DROP COLUMN status;
      ALTER TABLE idempotency_keys DROP COLUMN content_type;
      ALTER TABLE idempotency_keys DROP COLUMN body;
      ALTER TABLE idempotency_keys DROP COLUMN etag;
      )sql",
      // v10: metadata files written (or maybe written) that nothing references, kept
      // until a sweep deletes them (catalog/orphan_files.h).
      R"sql(
      CREATE TABLE orphan_files (
        location   TEXT PRIMARY KEY,
        catalog_id INTEGER NOT NULL,
        namespace  TEXT NOT NULL,
        name       TEXT NOT NULL,
        recorded_at_ms  INTEGER NOT NULL
      );
      CREATE INDEX orphan_files_by_time ON orphan_files (recorded_at_ms);
      )sql",
      // v11: identity (store/identity_store.h): principals, roles, which principal holds
      // which role, the grants roles hold (a securable by name, its namespace as the key
      // namespaces are stored with), signing keys, and the one-row generation that
      // every identity change bumps.
      R"sql(
      CREATE TABLE principals (
        name              TEXT PRIMARY KEY,
        client_id         TEXT NOT NULL UNIQUE,
        secret_hash       TEXT NOT NULL,
        created_ms        INTEGER NOT NULL,
        secret_rotated_ms INTEGER NOT NULL
      );
      CREATE TABLE roles (
        name       TEXT PRIMARY KEY,
        created_ms INTEGER NOT NULL
      );
      CREATE TABLE principal_roles (
        principal TEXT NOT NULL REFERENCES principals(name) ON DELETE CASCADE,
        role      TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
        PRIMARY KEY (principal, role)
      ) WITHOUT ROWID;
      CREATE INDEX principal_roles_by_role ON principal_roles (role);
      CREATE TABLE grants (
        role           TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
        privilege      TEXT NOT NULL,
        securable_kind TEXT NOT NULL,
        catalog        TEXT NOT NULL,
        namespace      TEXT NOT NULL,
        name           TEXT NOT NULL,
        UNIQUE (role, privilege, securable_kind, catalog, namespace, name)
      );
      CREATE TABLE signing_keys (
        kid         TEXT PRIMARY KEY,
        private_jwk TEXT NOT NULL,
        created_ms  INTEGER NOT NULL
      );
      CREATE INDEX signing_keys_by_time ON signing_keys (created_ms, kid);
      CREATE TABLE identity_generation (
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        generation INTEGER NOT NULL
      );
      INSERT INTO identity_generation (id, generation) VALUES (1, 0);
      )sql",
      // v12: the versions of Lance tables whose versions Cairn manages
      // (store/lance_version_store.h). -1 and '' stand for a size or e-tag not given.
      R"sql(
      CREATE TABLE lance_versions (
        entity_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        branch         TEXT NOT NULL,
        version        INTEGER NOT NULL,
        manifest_path  TEXT NOT NULL,
        requested_path TEXT NOT NULL,
        manifest_size  INTEGER NOT NULL,
        e_tag          TEXT NOT NULL,
        naming_scheme  TEXT NOT NULL,
        metadata       TEXT NOT NULL,
        timestamp_ms   INTEGER NOT NULL,
        PRIMARY KEY (entity_id, branch, version)
      );
      )sql",
      // v13: finished Lance transactions pruned by age: find the due ones of a status
      // without reading every record of that status.
      R"sql(
      CREATE INDEX lance_transactions_by_update ON lance_transactions (status, updated_at_ms);
      )sql",
      // v14: Iceberg metrics reports, listed per table by id and pruned by age.
      R"sql(
      CREATE TABLE metrics_reports (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        entity_id      INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        report_type    TEXT NOT NULL,
        reported_at_ms INTEGER NOT NULL,
        report         TEXT NOT NULL
      );
      CREATE INDEX metrics_reports_by_entity ON metrics_reports (entity_id, id);
      CREATE INDEX metrics_reports_by_age ON metrics_reports (reported_at_ms);
      )sql",
      // v15: a list of parts may drop parts at its front (a metadata log cut to its last
      // N entries), so it starts at any position. Only lists from the third on do
      // (sql_store_split.cc): older binaries, which count positions from 0, write the
      // first two and drop the others, so one still running beside a newer replica
      // corrupts nothing.
      R"sql(
      ALTER TABLE split_entities ADD COLUMN first_position INTEGER NOT NULL DEFAULT 0;
      )sql",
  };
  return kMigrations;
}

class SqliteStatement final : public SqlStatement {
 public:
  explicit SqliteStatement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_;
};

/// The right to write, shared by the connections of one store. SQLite lets one writer in
/// at a time and makes the others poll with growing sleeps (1, 2, 5, 10, ... ms): with
/// many writers, the lock was often free while they slept. Writers of this process wait
/// here instead and one of them goes in as soon as the last one ends (in no set order);
/// SQLite's own lock still keeps other processes (an admin command) out. Not a mutex held
/// by a scope: it is taken in `Begin` and given back when the transaction ends, in
/// another call. Not `std::binary_semaphore` either: libstdc++ 12 waits in its
/// `try_acquire_for` by spinning and sleeping ever longer (tens of ms after a few ms of
/// waiting), so waiters slept past a free gate as they did past SQLite's lock; a
/// condition variable wakes one as soon as the gate is left.
class WriterGate {
 public:
  /// Takes the gate, waiting for it at most `timeout`; false when it stayed taken.
  bool TryEnterFor(std::chrono::milliseconds timeout) CAIRN_EXCLUDES(mutex_) {
    MutexLock lock(mutex_);
    if (!lock.WaitFor(left_, timeout,
                      [this]() CAIRN_REQUIRES(mutex_) { return !taken_; })) {
      return false;
    }
    taken_ = true;
    return true;
  }
  /// Gives the gate back (taken by this caller's TryEnterFor) and wakes one waiter.
  void Leave() CAIRN_EXCLUDES(mutex_) {
    {
      MutexLock lock(mutex_);
      taken_ = false;
    }
    left_.notify_one();
  }

 private:
  Mutex mutex_;
  std::condition_variable left_;
  bool taken_ CAIRN_GUARDED_BY(mutex_) = false;
};

/// One open database connection with its cache of prepared statements.
class SqliteConnection final : public SqlConnection {
 public:
  /// `gate`: shared by the store's connections (null: none, as for a lone connection);
  /// a writer waits for it at most `busy_timeout`, as SQLite waits for its lock.
  SqliteConnection(sqlite3* db, std::shared_ptr<WriterGate> gate,
                   std::chrono::milliseconds busy_timeout)
      : db_(db), gate_(std::move(gate)), busy_timeout_(busy_timeout) {}
  ~SqliteConnection() override {
    statements_.clear();    // finalized before the database closes
    sqlite3_close_v2(db_);  // rolls back an open transaction
    LeaveGate();
  }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Result<SqlStatement*> Prepare(const char* sql) override {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second.get();
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) !=
        SQLITE_OK) {
      return Fail("prepare");
    }
    auto& slot = statements_[sql];
    slot = std::make_unique<SqliteStatement>(stmt);
    return slot.get();
  }

  Result<SqlResult> Execute(SqlStatement* statement, const std::vector<SqlParam>& params,
                            std::string_view what) override {
    sqlite3_stmt* stmt = static_cast<SqliteStatement*>(statement)->get();
    // A write outside a transaction (claiming an idempotency key, a heartbeat) is a
    // writer too: left to SQLite's polling, it could wait out its busy timeout while the
    // gated writers hand the lock to each other.
    const bool lone_write = gate_ != nullptr && !in_gate_ &&
                            sqlite3_get_autocommit(db_) != 0 &&
                            sqlite3_stmt_readonly(stmt) == 0;
    if (lone_write) CAIRN_RETURN_IF_ERROR(EnterGate(what));
    auto result = Run(stmt, params, what);
    if (lone_write) LeaveGate();
    return result;
  }

  Status ExecScript(const char* sql, std::string_view what) override {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
    sqlite3_free(message);
    if (rc != SQLITE_OK) return Fail(what);
    failure_ = SqlFailure::kNone;
    return Ok();
  }

  Status Begin() override {
    if (gate_ != nullptr) CAIRN_RETURN_IF_ERROR(EnterGate("begin transaction"));
    auto begun = ExecScript("BEGIN IMMEDIATE", "begin transaction");
    if (!begun) LeaveGate();
    return begun;
  }
  // In WAL mode a deferred transaction reads one snapshot, taken at its first read.
  Status BeginSnapshot() override { return ExecScript("BEGIN DEFERRED", "begin read"); }
  Status Commit() override {
    auto committed = ExecScript("COMMIT", "commit");
    if (!committed && sqlite3_get_autocommit(db_) == 0) {
      // A COMMIT that failed may leave the transaction open, and nobody else ends it:
      // the connection would go back to the pool holding the lock (and the gate).
      const SqlFailure failure = failure_;
      (void)ExecScript("ROLLBACK", "rollback after a failed commit");
      failure_ = failure;
    }
    LeaveGateOnceEnded();
    return committed;
  }
  void Rollback() override {
    (void)ExecScript("ROLLBACK", "rollback");
    LeaveGateOnceEnded();
  }
  bool SerializesWriters() const override { return true; }
  Result<bool> LockRow(const char*, int64_t, bool) override { return true; }
  SqlFailure LastFailure() const override { return failure_; }
  bool Usable() const override { return true; }

 private:
  Result<SqlResult> Run(sqlite3_stmt* stmt, const std::vector<SqlParam>& params,
                        std::string_view what) {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    for (size_t i = 0; i < params.size(); ++i)
      Bind(stmt, static_cast<int>(i) + 1, params[i]);
    SqlResult result;
    const int columns = sqlite3_column_count(stmt);
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        sqlite3_reset(stmt);
        return Fail(what);
      }
      auto& row = result.rows.emplace_back(static_cast<size_t>(columns));
      for (int col = 0; col < columns; ++col) {
        if (sqlite3_column_type(stmt, col) == SQLITE_NULL) continue;
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
        row[static_cast<size_t>(col)].emplace(text, sqlite3_column_bytes(stmt, col));
      }
    }
    result.changes = sqlite3_changes(db_);
    sqlite3_reset(stmt);
    failure_ = SqlFailure::kNone;
    return result;
  }

  static void Bind(sqlite3_stmt* stmt, int index, const SqlParam& param) {
    if (const auto* number = std::get_if<int64_t>(&param)) {
      sqlite3_bind_int64(stmt, index, *number);
      return;
    }
    const auto& text = std::get<std::string>(param);
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()),
                      SQLITE_STATIC);
  }

  /// The error of the last failed call: a busy database is worth retrying later.
  tl::unexpected<Error> Fail(std::string_view what) {
    failure_ = SqlFailure::kOther;
    const int code = sqlite3_extended_errcode(db_);
    if ((code & 0xFF) == SQLITE_BUSY || (code & 0xFF) == SQLITE_LOCKED) {
      return Busy(what);
    }
    return tl::unexpected(Error{
        ErrorKind::kIOError,
        fmt::format("Metadata store error during {}: {}", what, sqlite3_errmsg(db_))});
  }

  /// What a writer gets when the database stayed busy for its whole busy timeout,
  /// whether it waited for SQLite's lock or for the gate.
  static tl::unexpected<Error> Busy(std::string_view what) {
    return ServiceUnavailable("Metadata store is busy ({}); retry later", what);
  }

  /// Takes the gate, waiting at most the busy timeout, as SQLite waits for its lock.
  Status EnterGate(std::string_view what) {
    if (!gate_->TryEnterFor(busy_timeout_)) {
      failure_ = SqlFailure::kOther;  // as when SQLite's busy timeout runs out
      return Busy(what);
    }
    in_gate_ = true;
    return Ok();
  }
  void LeaveGate() {
    if (!in_gate_) return;
    in_gate_ = false;
    gate_->Leave();
  }
  void LeaveGateOnceEnded() {
    if (sqlite3_get_autocommit(db_) != 0) LeaveGate();
  }

  sqlite3* db_;
  std::shared_ptr<WriterGate> gate_;
  std::chrono::milliseconds busy_timeout_;
  bool in_gate_ = false;  // this connection's write transaction holds the gate
  std::unordered_map<const char*, std::unique_ptr<SqliteStatement>> statements_;
  SqlFailure failure_ = SqlFailure::kNone;
};

Result<std::unique_ptr<SqlConnection>> OpenConnection(
    const SqliteOptions& options, std::shared_ptr<WriterGate> gate = nullptr) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(options.path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return IOError("Cannot open SQLite database '{}': {}", options.path, message);
  }
  auto conn = std::make_unique<SqliteConnection>(
      db, std::move(gate), std::chrono::milliseconds(options.busy_timeout_ms));
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  const std::string pragmas = fmt::format(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous={}; PRAGMA foreign_keys=ON;",
      options.synchronous);
  CAIRN_RETURN_IF_ERROR(conn->ExecScript(pragmas.c_str(), "configure connection"));
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace

Result<SchemaState> InspectSqliteSchema(const SqliteOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(auto conn, OpenConnection(options));
  return ReadSchemaState(
      *conn, Migrations(),
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = "
      "'schema_version'");
}

Result<std::unique_ptr<MetaStore>> OpenSqliteStore(const SqliteOptions& options) {
  if (options.synchronous != "full" && options.synchronous != "normal") {
    return InvalidConfig("Invalid SQLite synchronous mode '{}': expected full or normal",
                         options.synchronous);
  }
  // A private in-memory database exists per connection, so it can have only one.
  const size_t pool_size =
      options.path == ":memory:" ? 1 : std::max<size_t>(1, options.pool_size);
  SqlStoreOptions store;
  store.pool_size = pool_size;
  store.combine_swaps = true;
  store.combine_wait = std::chrono::milliseconds(options.busy_timeout_ms);
  auto gate = std::make_shared<WriterGate>();
  for (size_t i = 0; i < pool_size; ++i) {
    CAIRN_ASSIGN_OR_RAISE(auto conn, OpenConnection(options, gate));
    if (i == 0) CAIRN_RETURN_IF_ERROR(ApplyMigrations(*conn, Migrations()));
    store.connections.push_back(std::move(conn));
  }
  return MakeSqlStore(std::move(store));
}

}  // namespace cairn
