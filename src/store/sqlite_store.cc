// SQLite implementation of MetaStore.
//
// Concurrency: a fixed pool of connections; each call borrows one for its duration. WAL
// mode lets readers run beside the single writer. Writers open with BEGIN IMMEDIATE so
// that two writers never both hold a read lock and then deadlock upgrading it.

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "common/macros.h"
#include "store/idempotency_scope.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

/// Namespace paths are stored as (parent_path, name); levels are joined with 0x1F, a byte
/// that names may not contain, so the encoding is unambiguous and sorts like the levels.
constexpr char kLevelSeparator = '\x1f';

std::string JoinLevels(const NamespacePath& path, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out.push_back(kLevelSeparator);
    out += path[i];
  }
  return out;
}

std::string ParentKey(const NamespacePath& path) {
  return JoinLevels(path, path.empty() ? 0 : path.size() - 1);
}
std::string FullKey(const NamespacePath& path) { return JoinLevels(path, path.size()); }

/// The SQL LIMIT for a page of at most `limit` rows: one more, to learn whether more
/// follow; -1 (no limit) when unbounded or too large to add one to.
int64_t FetchLimit(std::optional<size_t> limit) {
  if (!limit || *limit >= static_cast<size_t>(std::numeric_limits<int64_t>::max())) return -1;
  return static_cast<int64_t>(*limit) + 1;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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
  };
  return kMigrations;
}

/// One open database connection with its cache of prepared statements.
class Connection {
 public:
  explicit Connection(sqlite3* db) : db_(db) {}
  ~Connection() {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* db() const { return db_; }

  /// Returns a reset prepared statement for `sql` (cached by text).
  Result<sqlite3_stmt*> Prepare(const char* sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) {
      sqlite3_reset(it->second);
      sqlite3_clear_bindings(it->second);
      return it->second;
    }
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) !=
        SQLITE_OK) {
      return IOError("SQLite prepare failed: {}", sqlite3_errmsg(db_));
    }
    statements_.emplace(sql, stmt);
    return stmt;
  }

  Error LastError(std::string_view what) const {
    const int code = sqlite3_extended_errcode(db_);
    if ((code & 0xFF) == SQLITE_BUSY || (code & 0xFF) == SQLITE_LOCKED) {
      return Error{ErrorKind::kServiceUnavailable,
                   fmt::format("Metadata store is busy ({}); retry later", what)};
    }
    return Error{ErrorKind::kIOError,
                 fmt::format("Metadata store error during {}: {}", what, sqlite3_errmsg(db_))};
  }

  Status Exec(const char* sql, std::string_view what) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      Error error = LastError(what);
      sqlite3_free(message);
      return tl::unexpected(std::move(error));
    }
    return Ok();
  }

 private:
  sqlite3* db_;
  std::unordered_map<const char*, sqlite3_stmt*> statements_;
};

/// A bound statement being stepped; resets itself when it goes out of scope.
class Query {
 public:
  Query(Connection& conn, sqlite3_stmt* stmt) : conn_(conn), stmt_(stmt) {}
  ~Query() { sqlite3_reset(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& Bind(int64_t value) {
    sqlite3_bind_int64(stmt_, ++index_, value);
    return *this;
  }
  Query& Bind(EntityKind kind) { return Bind(EntityKindName(kind)); }
  Query& Bind(std::string_view value) {
    sqlite3_bind_text(stmt_, ++index_, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
  }

  /// True when a row is available, false when done.
  Result<bool> Step(std::string_view what) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return tl::unexpected(conn_.LastError(what));
  }

  /// Runs a statement that returns no rows.
  Status Run(std::string_view what) {
    CAIRN_ASSIGN_OR_RAISE(bool row, Step(what));
    (void)row;
    return Ok();
  }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string Text(int col) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return text == nullptr ? std::string()
                           : std::string(text, sqlite3_column_bytes(stmt_, col));
  }
  int Changes() const { return sqlite3_changes(conn_.db()); }

 private:
  Connection& conn_;
  sqlite3_stmt* stmt_;
  int index_ = 0;
};

/// Writes the answer into the key row held by `scope` (marking the effect applied when
/// `applied`), then purges a bounded batch of expired keys — so no single request pays for
/// many. Returns false when the key is no longer held by this request.
Result<bool> StoreAnswer(Connection& conn, const IdempotencyScope& scope,
                         const StoredResponse& answer, bool applied) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* save,
      conn.Prepare("UPDATE idempotency_keys SET applied = MAX(applied, ?), status = ?, "
                   "content_type = ?, body = ?, etag = ? WHERE key = ? AND owner = ?"));
  bool held = false;
  {
    Query query(conn, save);
    CAIRN_RETURN_IF_ERROR(query.Bind(int64_t{applied ? 1 : 0})
                              .Bind(static_cast<int64_t>(answer.status.value_or(0)))
                              .Bind(answer.content_type)
                              .Bind(answer.body)
                              .Bind(answer.etag)
                              .Bind(scope.key)
                              .Bind(scope.owner)
                              .Run("store idempotent response"));
    held = query.Changes() > 0;
  }
  CAIRN_ASSIGN_OR_RAISE(
      auto* purge,
      conn.Prepare("DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM "
                   "idempotency_keys WHERE expires_at_ms <= ? LIMIT 64)"));
  Query query(conn, purge);
  CAIRN_RETURN_IF_ERROR(query.Bind(scope.created_ms).Run("purge expired idempotency keys"));
  return held;
}

class Lease;

/// Parks the open transaction of `lease` in the current idempotency scope; defined after
/// `SqliteStore`. Returns false when the scope already holds a parked write.
bool ParkInScope(Lease& lease, IdempotencyScope& scope);

/// A write transaction; rolls back unless committed.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& conn) : conn_(conn) {}
  /// A transaction on a leased connection: under an Idempotency-Key it can be parked so
  /// that the request's answer commits with it.
  explicit WriteTransaction(Lease& lease);
  ~WriteTransaction() {
    if (open_) (void)conn_.Exec("ROLLBACK", "rollback");
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

  Status Begin() {
    CAIRN_RETURN_IF_ERROR(conn_.Exec("BEGIN IMMEDIATE", "begin transaction"));
    open_ = true;
    return Ok();
  }
  /// Commits. Under an Idempotency-Key the transaction is parked instead: it commits
  /// later together with the request's answer (see `ParkedSqliteWrite`).
  Status Commit() {
    IdempotencyScope* scope = CurrentIdempotencyScope();
    if (scope != nullptr) {
      if (lease_ == nullptr || !ParkInScope(*lease_, *scope)) {
        return Internal("An idempotent request may write only once");
      }
      open_ = false;
      return Ok();
    }
    CAIRN_RETURN_IF_ERROR(conn_.Exec("COMMIT", "commit"));
    open_ = false;
    return Ok();
  }

 private:
  Connection& conn_;
  Lease* lease_ = nullptr;
  bool open_ = false;
};

class SqliteStore;

/// Borrows a connection from the pool for the scope of one store call.
class Lease {
 public:
  Lease(SqliteStore& store, std::unique_ptr<Connection> conn)
      : store_(store), conn_(std::move(conn)) {}
  ~Lease();
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  Connection& operator*() { return *conn_; }
  Connection* operator->() { return conn_.get(); }
  SqliteStore& store() { return store_; }
  /// Takes the connection out of the lease (it then returns nothing to the pool).
  std::unique_ptr<Connection> Take() { return std::move(conn_); }

 private:
  SqliteStore& store_;
  std::unique_ptr<Connection> conn_;
};

Result<std::unique_ptr<Connection>> OpenConnection(const SqliteOptions& options) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(options.path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return IOError("Cannot open SQLite database '{}': {}", options.path, message);
  }
  auto conn = std::make_unique<Connection>(db);
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  const std::string pragmas = fmt::format(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous={}; PRAGMA foreign_keys=ON;",
      options.synchronous);
  CAIRN_RETURN_IF_ERROR(conn->Exec(pragmas.c_str(), "configure connection"));
  return conn;
}

Status ApplyMigrations(Connection& conn) {
  CAIRN_RETURN_IF_ERROR(conn.Exec(
      "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, "
      "applied_at_ms INTEGER NOT NULL)",
      "create schema_version"));
  const auto& migrations = Migrations();
  for (size_t version = 1; version <= migrations.size(); ++version) {
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto* stmt,
                          conn.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version"));
    int64_t current = 0;
    {
      Query query(conn, stmt);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read schema version"));
      current = row ? query.Int(0) : 0;
    }
    if (current > static_cast<int64_t>(migrations.size())) {
      return IOError("Database schema version {} is newer than this binary supports ({})",
                     current, migrations.size());
    }
    if (current >= static_cast<int64_t>(version)) continue;
    CAIRN_RETURN_IF_ERROR(conn.Exec(migrations[version - 1], "schema migration"));
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO schema_version (version, applied_at_ms) VALUES (?, ?)"));
    Query record(conn, insert);
    CAIRN_RETURN_IF_ERROR(
        record.Bind(static_cast<int64_t>(version)).Bind(NowMillis()).Run("record migration"));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
  }
  return Ok();
}

class SqliteStore final : public MetaStore {
 public:
  explicit SqliteStore(std::vector<std::unique_ptr<Connection>> connections)
      : idle_(std::move(connections)) {}

  Lease Acquire() {
    std::unique_lock lock(mutex_);
    available_.wait(lock, [this] { return !idle_.empty(); });
    auto conn = std::move(idle_.back());
    idle_.pop_back();
    return Lease(*this, std::move(conn));
  }

  void Release(std::unique_ptr<Connection> conn) {
    {
      std::lock_guard lock(mutex_);
      idle_.push_back(std::move(conn));
    }
    available_.notify_one();
  }

  Status Ping() override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare("SELECT 1"));
    Query query(*conn, stmt);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("ping"));
    if (!row) return IOError("Metadata store ping returned no row");
    return Ok();
  }

  Result<CatalogRecord> CreateCatalog(std::string_view name, std::string_view location,
                                      const Properties& properties) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto* insert,
                          conn->Prepare("INSERT INTO catalogs (name, location, created_at_ms) "
                                        "VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING"));
    {
      Query query(*conn, insert);
      CAIRN_RETURN_IF_ERROR(
          query.Bind(name).Bind(location).Bind(NowMillis()).Run("create catalog"));
      if (query.Changes() == 0) return AlreadyExists("Catalog already exists: {}", name);
    }
    CatalogRecord record{sqlite3_last_insert_rowid(conn->db()), std::string(name),
                         std::string(location), properties};
    CAIRN_ASSIGN_OR_RAISE(
        auto* prop,
        conn->Prepare("INSERT INTO catalog_properties (catalog_id, key, value) VALUES (?, ?, ?)"));
    for (const auto& [key, value] : properties) {
      Query query(*conn, prop);
      CAIRN_RETURN_IF_ERROR(
          query.Bind(record.id).Bind(key).Bind(value).Run("set catalog property"));
    }
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return record;
  }

  Result<CatalogRecord> GetCatalog(std::string_view name) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(auto* stmt,
                          conn->Prepare("SELECT id, location FROM catalogs WHERE name = ?"));
    CatalogRecord record;
    {
      Query query(*conn, stmt);
      query.Bind(name);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load catalog"));
      if (!row) return NoSuchWarehouse("Warehouse does not exist: {}", name);
      record = CatalogRecord{query.Int(0), std::string(name), query.Text(1), {}};
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* props,
        conn->Prepare("SELECT key, value FROM catalog_properties WHERE catalog_id = ?"));
    CAIRN_ASSIGN_OR_RAISE(record.properties, ReadProperties(*conn, props, record.id));
    return record;
  }

  Status CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                         const Properties& properties) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    if (path.size() > 1) {
      NamespacePath parent(path.begin(), path.end() - 1);
      CAIRN_ASSIGN_OR_RAISE(auto parent_id, FindNamespaceId(*conn, catalog_id, parent));
      if (!parent_id) {
        return NoSuchNamespace("Namespace does not exist: {}", DottedName(parent));
      }
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn->Prepare("INSERT INTO namespaces (catalog_id, parent_path, name, created_at_ms) "
                      "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"));
    {
      Query query(*conn, insert);
      CAIRN_RETURN_IF_ERROR(query.Bind(catalog_id)
                                .Bind(ParentKey(path))
                                .Bind(path.back())
                                .Bind(NowMillis())
                                .Run("create namespace"));
      if (query.Changes() == 0) {
        return AlreadyExists("Namespace already exists: {}", DottedName(path));
      }
    }
    const int64_t id = sqlite3_last_insert_rowid(conn->db());
    CAIRN_RETURN_IF_ERROR(WriteProperties(*conn, id, properties));
    return txn.Commit();
  }

  Result<NamespaceRecord> LoadNamespace(int64_t catalog_id,
                                        const NamespacePath& path) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
    CAIRN_ASSIGN_OR_RAISE(
        auto* props,
        conn->Prepare("SELECT key, value FROM namespace_properties WHERE namespace_id = ?"));
    CAIRN_ASSIGN_OR_RAISE(auto properties, ReadProperties(*conn, props, *id));
    return NamespaceRecord{*id, path, std::move(properties)};
  }

  Result<bool> NamespaceExists(int64_t catalog_id, const NamespacePath& path) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    return id.has_value();
  }

  Result<NamePage> ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                  std::string_view after,
                                  std::optional<size_t> limit) override {
    auto conn = Acquire();
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
        conn->Prepare("SELECT name FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
                      "AND name > ? ORDER BY name LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(catalog_id).Bind(FullKey(parent)).Bind(after).Bind(FetchLimit(limit));
    return ReadNamePage(query, limit, "list namespaces");
  }

  Status DropNamespace(int64_t catalog_id, const NamespacePath& path) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
    CAIRN_ASSIGN_OR_RAISE(
        auto* children,
        conn->Prepare("SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM namespaces WHERE "
                      "catalog_id = ? AND parent_path = ? LIMIT 1)), "
                      "(SELECT COUNT(*) FROM (SELECT 1 FROM entities WHERE namespace_id = ? "
                      "LIMIT 1))"));
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
    CAIRN_ASSIGN_OR_RAISE(auto* del, conn->Prepare("DELETE FROM namespaces WHERE id = ?"));
    {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(*id).Run("drop namespace"));
    }
    return txn.Commit();
  }

  Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
    PropertiesUpdateOutcome outcome;
    CAIRN_ASSIGN_OR_RAISE(
        auto* del,
        conn->Prepare("DELETE FROM namespace_properties WHERE namespace_id = ? AND key = ?"));
    for (const auto& key : removals) {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(*id).Bind(key).Run("remove namespace property"));
      (query.Changes() > 0 ? outcome.removed : outcome.missing).push_back(key);
    }
    CAIRN_RETURN_IF_ERROR(WriteProperties(*conn, *id, updates));
    for (const auto& [key, value] : updates) outcome.updated.push_back(key);
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return outcome;
  }

  Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                    std::string_view name, EntityKind kind,
                                    std::string_view metadata_location,
                                    std::string_view metadata) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
    if (!ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
    CAIRN_ASSIGN_OR_RAISE(auto existing, FindEntityKind(*conn, *ns_id, name));
    if (existing) {
      return AlreadyExists("Name {}.{} is already used by an {}", DottedName(ns), name,
                           EntityKindName(*existing));
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn->Prepare("INSERT INTO entities (namespace_id, name, kind, metadata_location, "
                      "metadata, version, created_at_ms, updated_at_ms) "
                      "VALUES (?, ?, ?, ?, ?, 0, ?, ?)"));
    const int64_t now = NowMillis();
    {
      Query query(*conn, insert);
      CAIRN_RETURN_IF_ERROR(query.Bind(*ns_id)
                                .Bind(name)
                                .Bind(kind)
                                .Bind(metadata_location)
                                .Bind(metadata)
                                .Bind(now)
                                .Bind(now)
                                .Run("create entity"));
    }
    EntityRecord record{sqlite3_last_insert_rowid(conn->db()), kind, ns, std::string(name),
                        std::string(metadata_location), std::string(metadata), 0};
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return record;
  }

  Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id, const NamespacePath& ns,
                                                 std::string_view name) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT e.id, e.kind, e.metadata_location, e.metadata, e.version "
                      "FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
                      "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
                      "AND e.name = ?"));
    Query query(*conn, stmt);
    query.Bind(catalog_id).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity"));
    if (!row) return std::optional<EntityRecord>{};
    CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(1)));
    return std::optional<EntityRecord>(EntityRecord{query.Int(0), kind, ns, std::string(name),
                                                    query.Text(2), query.Text(3),
                                                    query.Int(4)});
  }

  Result<std::optional<EntityKind>> EntityKindOf(int64_t catalog_id, const NamespacePath& ns,
                                                 std::string_view name) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT e.kind FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
                      "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
                      "AND e.name = ?"));
    Query query(*conn, stmt);
    query.Bind(catalog_id).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find entity kind"));
    if (!row) return std::optional<EntityKind>{};
    CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(0)));
    return std::optional<EntityKind>(kind);
  }

  Result<bool> SwapEntities(const std::vector<EntitySwap>& swaps) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(
        auto* update,
        conn->Prepare("UPDATE entities SET metadata_location = ?, metadata = ?, "
                      "version = version + 1, updated_at_ms = ? "
                      "WHERE id = ? AND metadata_location = ?"));
    const int64_t now = NowMillis();
    for (const auto& swap : swaps) {
      Query query(*conn, update);
      CAIRN_RETURN_IF_ERROR(query.Bind(swap.new_location)
                                .Bind(swap.new_metadata)
                                .Bind(now)
                                .Bind(swap.entity_id)
                                .Bind(swap.expected_location)
                                .Run("swap entity metadata"));
      if (query.Changes() == 0) return false;  // the transaction rolls back
    }
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return true;
  }

  Result<bool> DropEntity(int64_t catalog_id, const NamespacePath& ns, std::string_view name,
                          EntityKind kind) override {
    auto conn = Acquire();
    // A transaction even for one statement: an Idempotency-Key commits with the effect.
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(
        auto* del,
        conn->Prepare("DELETE FROM entities WHERE kind = ? AND name = ? AND namespace_id = "
                      "(SELECT id FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
                      "AND name = ?)"));
    bool dropped = false;
    {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(kind)
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
  }

  Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                      std::string_view from_name, const NamespacePath& to_ns,
                      std::string_view to_name, EntityKind kind) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto from_ns_id, FindNamespaceId(*conn, catalog_id, from_ns));
    std::optional<EntityKind> source_kind;
    if (from_ns_id) {
      CAIRN_ASSIGN_OR_RAISE(source_kind, FindEntityKind(*conn, *from_ns_id, from_name));
    }
    if (!source_kind || *source_kind != kind) {
      return NoSuchTable("{} does not exist: {}.{}", EntityKindName(kind), DottedName(from_ns),
                         from_name);
    }
    CAIRN_ASSIGN_OR_RAISE(auto to_ns_id, FindNamespaceId(*conn, catalog_id, to_ns));
    if (!to_ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(to_ns));
    CAIRN_ASSIGN_OR_RAISE(auto target_kind, FindEntityKind(*conn, *to_ns_id, to_name));
    if (target_kind) {
      return AlreadyExists("Name {}.{} is already used by an {}", DottedName(to_ns), to_name,
                           EntityKindName(*target_kind));
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
    }
    return txn.Commit();
  }

  Result<bool> LocationInUse(std::string_view location, int64_t except_entity_id) override {
    auto conn = Acquire();
    // An index range: the location itself, or anything below it ('0' follows '/').
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT 1 FROM entities WHERE id != ? AND (metadata_location = ? OR "
                      "(metadata_location > ? AND metadata_location < ?)) LIMIT 1"));
    Query query(*conn, stmt);
    const std::string dir(location);
    query.Bind(except_entity_id).Bind(dir).Bind(dir + "/").Bind(dir + "0");
    return query.Step("check location use");
  }

  Result<std::optional<StoredResponse>> ClaimIdempotencyKey(const IdempotencyScope& scope,
                                                            int64_t lease_until_ms) override {
    {
      auto conn = Acquire();
      // A new key, an expired one, or an abandoned claim (lease over, nothing applied)
      // is taken; anything else stays with its holder.
      CAIRN_ASSIGN_OR_RAISE(
          auto* claim,
          conn->Prepare(
              "INSERT INTO idempotency_keys (key, fingerprint, owner, applied, lease_until_ms, "
              "created_at_ms, expires_at_ms) VALUES (?, ?, ?, 0, ?, ?, ?) "
              "ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, "
              "owner = excluded.owner, applied = 0, lease_until_ms = excluded.lease_until_ms, "
              "status = NULL, content_type = NULL, body = NULL, etag = NULL, "
              "created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms "
              "WHERE idempotency_keys.expires_at_ms <= excluded.created_at_ms OR "
              "(idempotency_keys.status IS NULL AND idempotency_keys.applied = 0 AND "
              "idempotency_keys.lease_until_ms <= excluded.created_at_ms)"));
      Query query(*conn, claim);
      CAIRN_RETURN_IF_ERROR(query.Bind(scope.key)
                                .Bind(scope.fingerprint)
                                .Bind(scope.owner)
                                .Bind(lease_until_ms)
                                .Bind(scope.created_ms)
                                .Bind(scope.expires_ms)
                                .Run("claim idempotency key"));
      if (query.Changes() > 0) return std::optional<StoredResponse>{};
    }
    CAIRN_ASSIGN_OR_RAISE(auto existing, LoadIdempotentResponse(scope.key, scope.created_ms));
    if (!existing) {
      // Expired between the two statements: report "in progress" so the caller retries.
      return std::optional<StoredResponse>(StoredResponse{scope.fingerprint, {}, {}, {}, {}});
    }
    return existing;
  }

  Result<std::optional<StoredResponse>> LoadIdempotentResponse(std::string_view key,
                                                               int64_t now_ms) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT fingerprint, status, content_type, body, etag FROM "
                      "idempotency_keys WHERE key = ? AND expires_at_ms > ?"));
    Query query(*conn, stmt);
    query.Bind(key).Bind(now_ms);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load idempotency key"));
    if (!row) return std::optional<StoredResponse>{};
    StoredResponse stored{query.Text(0), std::nullopt, query.Text(2), query.Text(3),
                          query.Text(4)};
    if (!query.IsNull(1)) stored.status = static_cast<int>(query.Int(1));
    return std::optional<StoredResponse>(std::move(stored));
  }

  Status SaveIdempotentResponse(const IdempotencyScope& scope,
                                const StoredResponse& response) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    // A claim taken over meanwhile keeps the other request's answer.
    CAIRN_ASSIGN_OR_RAISE(bool held, StoreAnswer(*conn, scope, response, /*applied=*/false));
    (void)held;
    return txn.Commit();
  }

  Status ReleaseIdempotencyKey(const IdempotencyScope& scope) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* release,
        conn->Prepare("DELETE FROM idempotency_keys WHERE key = ? AND owner = ? AND applied = 0"));
    Query query(*conn, release);
    return query.Bind(scope.key).Bind(scope.owner).Run("release idempotency key");
  }

  Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns, EntityKind kind,
                                std::string_view after, std::optional<size_t> limit) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
    if (!ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
    // Keyset pagination on the (namespace_id, kind, name) index, as for namespaces.
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT name FROM entities WHERE namespace_id = ? AND kind = ? "
                      "AND name > ? ORDER BY name LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(*ns_id).Bind(kind).Bind(after).Bind(FetchLimit(limit));
    return ReadNamePage(query, limit, "list entities");
  }

  Result<NamePage> ListCatalogs(std::string_view after, std::optional<size_t> limit) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn->Prepare("SELECT name FROM catalogs WHERE name > ? ORDER BY name LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(after).Bind(FetchLimit(limit));
    return ReadNamePage(query, limit, "list catalogs");
  }

  Result<std::vector<EntityRecord>> DropCatalog(int64_t catalog_id, bool cascade,
                                                const DropPlanner& planner) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto* exists, conn->Prepare("SELECT 1 FROM catalogs WHERE id = ?"));
    {
      Query query(*conn, exists);
      query.Bind(catalog_id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find catalog"));
      if (!row) return NoSuchWarehouse("Catalog does not exist (id {})", catalog_id);
    }
    CAIRN_ASSIGN_OR_RAISE(auto* all,
                          conn->Prepare("SELECT id, parent_path, name FROM namespaces "
                                        "WHERE catalog_id = ?"));
    std::vector<NamespaceRow> namespaces;
    {
      Query query(*conn, all);
      query.Bind(catalog_id);
      CAIRN_ASSIGN_OR_RAISE(namespaces, ReadNamespaceRows(query));
    }
    if (!cascade && !namespaces.empty()) {
      return NamespaceNotEmpty("Catalog is not empty: it has namespaces");
    }
    CAIRN_ASSIGN_OR_RAISE(auto dropped, DropNamespaceRows(*conn, namespaces, planner));
    CAIRN_ASSIGN_OR_RAISE(auto* del, conn->Prepare("DELETE FROM catalogs WHERE id = ?"));
    {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(catalog_id).Run("drop catalog"));
    }
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return dropped;
  }

  Result<std::vector<EntityRecord>> DropNamespaceTree(int64_t catalog_id,
                                                      const NamespacePath& path,
                                                      const DropPlanner& planner) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
    if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
    // The namespace itself, then every descendant: their parent paths are the full key or
    // start with it and the separator, i.e. lie in [key 0x1F, key 0x20).
    const std::string key = FullKey(path);
    std::vector<NamespaceRow> namespaces = {NamespaceRow{*id, path}};
    CAIRN_ASSIGN_OR_RAISE(
        auto* below,
        conn->Prepare("SELECT id, parent_path, name FROM namespaces WHERE catalog_id = ? AND "
                      "(parent_path = ? OR (parent_path >= ? AND parent_path < ?))"));
    {
      Query query(*conn, below);
      query.Bind(catalog_id).Bind(key).Bind(key + kLevelSeparator).Bind(key + '\x20');
      CAIRN_ASSIGN_OR_RAISE(auto rows, ReadNamespaceRows(query));
      namespaces.insert(namespaces.end(), rows.begin(), rows.end());
    }
    CAIRN_ASSIGN_OR_RAISE(auto dropped, DropNamespaceRows(*conn, namespaces, planner));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return dropped;
  }

  Result<std::optional<EntityRecord>> DropEntityWithRecord(int64_t catalog_id,
                                                           const NamespacePath& ns,
                                                           std::string_view name,
                                                           EntityKind kind,
                                                           const DropPlanner& planner) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
    if (!ns_id) return std::optional<EntityRecord>{};
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT id, kind, metadata_location, metadata, version FROM entities "
                      "WHERE namespace_id = ? AND name = ?"));
    EntityRecord record;
    {
      Query query(*conn, stmt);
      query.Bind(*ns_id).Bind(name);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity"));
      if (!row) return std::optional<EntityRecord>{};
      CAIRN_ASSIGN_OR_RAISE(EntityKind found, ParseKind(query.Text(1)));
      if (found != kind) return std::optional<EntityRecord>{};
      record = EntityRecord{query.Int(0), kind, ns, std::string(name), query.Text(2),
                            query.Text(3), query.Int(4)};
    }
    CAIRN_ASSIGN_OR_RAISE(auto plan, planner({record}));
    if (plan) CAIRN_RETURN_IF_ERROR(InsertTransaction(*conn, *plan));
    CAIRN_ASSIGN_OR_RAISE(auto* del, conn->Prepare("DELETE FROM entities WHERE id = ?"));
    {
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(record.id).Run("drop entity"));
    }
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return std::optional<EntityRecord>(std::move(record));
  }

  Result<EntityPage> ListAllEntities(EntityKind kind, int64_t after_id,
                                     std::optional<size_t> limit) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT e.id, c.name, n.parent_path, n.name, e.name FROM entities e "
                      "JOIN namespaces n ON e.namespace_id = n.id "
                      "JOIN catalogs c ON n.catalog_id = c.id "
                      "WHERE e.id > ? AND e.kind = ? ORDER BY e.id LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(after_id).Bind(kind).Bind(FetchLimit(limit));
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
      page.entities.push_back(EntityRef{query.Int(0), query.Text(1), std::move(ns), query.Text(4)});
    }
    return page;
  }

  Status CreateTransaction(const TransactionRecord& record) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_RETURN_IF_ERROR(InsertTransaction(*conn, record));
    return txn.Commit();
  }

  Result<std::optional<TransactionRecord>> LoadTransaction(std::string_view id) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT id, status, payload, version, created_at_ms, updated_at_ms "
                      "FROM lance_transactions WHERE id = ?"));
    TransactionRecord record;
    {
      Query query(*conn, stmt);
      query.Bind(id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load transaction"));
      if (!row) return std::optional<TransactionRecord>{};
      record = ReadTransactionRow(query);
    }
    CAIRN_ASSIGN_OR_RAISE(record.properties, ReadTransactionProperties(*conn, record.id));
    return std::optional<TransactionRecord>(std::move(record));
  }

  Result<bool> UpdateTransaction(const TransactionRecord& updated,
                                 int64_t expected_version) override {
    auto conn = Acquire();
    WriteTransaction txn(conn);
    CAIRN_RETURN_IF_ERROR(txn.Begin());
    CAIRN_ASSIGN_OR_RAISE(
        auto* update,
        conn->Prepare("UPDATE lance_transactions SET status = ?, payload = ?, "
                      "version = version + 1, updated_at_ms = ? WHERE id = ? AND version = ?"));
    {
      Query query(*conn, update);
      CAIRN_RETURN_IF_ERROR(query.Bind(updated.status)
                                .Bind(updated.payload)
                                .Bind(NowMillis())
                                .Bind(updated.id)
                                .Bind(expected_version)
                                .Run("update transaction"));
      if (query.Changes() == 0) return false;
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* clear,
        conn->Prepare("DELETE FROM lance_transaction_properties WHERE transaction_id = ?"));
    {
      Query query(*conn, clear);
      CAIRN_RETURN_IF_ERROR(query.Bind(updated.id).Run("clear transaction properties"));
    }
    CAIRN_RETURN_IF_ERROR(WriteTransactionProperties(*conn, updated));
    CAIRN_RETURN_IF_ERROR(txn.Commit());
    return true;
  }

  Result<std::vector<TransactionRecord>> ListTransactions(
      const std::vector<std::string>& statuses) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT id, status, payload, version, created_at_ms, updated_at_ms "
                      "FROM lance_transactions WHERE status = ? ORDER BY created_at_ms, id"));
    std::vector<TransactionRecord> records;
    for (const auto& status : statuses) {
      Query query(*conn, stmt);
      query.Bind(status);
      for (;;) {
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list transactions"));
        if (!row) break;
        records.push_back(ReadTransactionRow(query));
      }
    }
    for (auto& record : records) {
      CAIRN_ASSIGN_OR_RAISE(record.properties, ReadTransactionProperties(*conn, record.id));
    }
    std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
      return a.created_at_ms < b.created_at_ms;
    });
    return records;
  }

  Result<bool> DeleteTransaction(std::string_view id) override {
    auto conn = Acquire();
    CAIRN_ASSIGN_OR_RAISE(auto* del, conn->Prepare("DELETE FROM lance_transactions WHERE id = ?"));
    Query query(*conn, del);
    CAIRN_RETURN_IF_ERROR(query.Bind(id).Run("delete transaction"));
    return query.Changes() > 0;
  }

 private:
  /// A namespace row: its id and its path.
  struct NamespaceRow {
    int64_t id = 0;
    NamespacePath path;
  };

  /// Inverse of `JoinLevels` (an empty key is the top level).
  static NamespacePath SplitKey(std::string_view key) {
    NamespacePath levels;
    if (key.empty()) return levels;
    size_t start = 0;
    for (;;) {
      const size_t pos = key.find(kLevelSeparator, start);
      levels.emplace_back(key.substr(start, pos - start));
      if (pos == std::string_view::npos) return levels;
      start = pos + 1;
    }
  }

  /// Reads `(id, parent_path, name)` rows.
  static Result<std::vector<NamespaceRow>> ReadNamespaceRows(Query& query) {
    std::vector<NamespaceRow> rows;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list namespaces"));
      if (!row) return rows;
      NamespacePath path = SplitKey(query.Text(1));
      path.push_back(query.Text(2));
      rows.push_back(NamespaceRow{query.Int(0), std::move(path)});
    }
  }

  /// Inside a write transaction: removes the entities of `namespaces`, records what the
  /// planner returns for them, then removes the namespaces. Returns the removed entities.
  static Result<std::vector<EntityRecord>> DropNamespaceRows(
      Connection& conn, const std::vector<NamespaceRow>& namespaces, const DropPlanner& planner) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* entities,
        conn.Prepare("SELECT id, kind, name, metadata_location, metadata, version "
                     "FROM entities WHERE namespace_id = ? ORDER BY name"));
    std::vector<EntityRecord> dropped;
    for (const auto& ns : namespaces) {
      Query query(conn, entities);
      query.Bind(ns.id);
      for (;;) {
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list entities to drop"));
        if (!row) break;
        CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(1)));
        dropped.push_back(EntityRecord{query.Int(0), kind, ns.path, query.Text(2),
                                       query.Text(3), query.Text(4), query.Int(5)});
      }
    }
    if (planner) {
      CAIRN_ASSIGN_OR_RAISE(auto plan, planner(dropped));
      if (plan) CAIRN_RETURN_IF_ERROR(InsertTransaction(conn, *plan));
    }
    CAIRN_ASSIGN_OR_RAISE(auto* del_entities,
                          conn.Prepare("DELETE FROM entities WHERE namespace_id = ?"));
    CAIRN_ASSIGN_OR_RAISE(auto* del_namespace, conn.Prepare("DELETE FROM namespaces WHERE id = ?"));
    for (const auto& ns : namespaces) {
      Query query(conn, del_entities);
      CAIRN_RETURN_IF_ERROR(query.Bind(ns.id).Run("drop entities"));
    }
    // Namespace rows do not reference each other (children name their parent by path),
    // so any order works; their properties go by ON DELETE CASCADE.
    for (const auto& ns : namespaces) {
      Query query(conn, del_namespace);
      CAIRN_RETURN_IF_ERROR(query.Bind(ns.id).Run("drop namespace"));
    }
    return dropped;
  }

  static TransactionRecord ReadTransactionRow(const Query& query) {
    TransactionRecord record;
    record.id = query.Text(0);
    record.status = query.Text(1);
    record.payload = query.Text(2);
    record.version = query.Int(3);
    record.created_at_ms = query.Int(4);
    record.updated_at_ms = query.Int(5);
    return record;
  }

  static Result<Properties> ReadTransactionProperties(Connection& conn, std::string_view id) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn.Prepare("SELECT key, value FROM lance_transaction_properties "
                     "WHERE transaction_id = ?"));
    Query query(conn, stmt);
    query.Bind(id);
    Properties properties;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read transaction properties"));
      if (!row) return properties;
      properties.emplace(query.Text(0), query.Text(1));
    }
  }

  static Status WriteTransactionProperties(Connection& conn, const TransactionRecord& record) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO lance_transaction_properties (transaction_id, key, value) "
                     "VALUES (?, ?, ?)"));
    for (const auto& [key, value] : record.properties) {
      Query query(conn, insert);
      CAIRN_RETURN_IF_ERROR(
          query.Bind(record.id).Bind(key).Bind(value).Run("set transaction property"));
    }
    return Ok();
  }

  /// Inside a write transaction: inserts `record` with version 0.
  static Status InsertTransaction(Connection& conn, const TransactionRecord& record) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO lance_transactions (id, status, payload, version, "
                     "created_at_ms, updated_at_ms) VALUES (?, ?, ?, 0, ?, ?) "
                     "ON CONFLICT (id) DO NOTHING"));
    {
      Query query(conn, insert);
      const int64_t now = NowMillis();
      CAIRN_RETURN_IF_ERROR(query.Bind(record.id)
                                .Bind(record.status)
                                .Bind(record.payload)
                                .Bind(record.created_at_ms != 0 ? record.created_at_ms : now)
                                .Bind(now)
                                .Run("create transaction"));
      if (query.Changes() == 0) return AlreadyExists("Transaction already exists: {}", record.id);
    }
    return WriteTransactionProperties(conn, record);
  }

  static Result<NamePage> ReadNamePage(Query& query, std::optional<size_t> limit,
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

  static Result<EntityKind> ParseKind(std::string_view text) {
    for (auto kind : {EntityKind::kIcebergTable, EntityKind::kIcebergView,
                      EntityKind::kLanceTable}) {
      if (EntityKindName(kind) == text) return kind;
    }
    return Internal("Unknown entity kind '{}' in the metadata store", text);
  }

  /// The kind of the entity named `name` in namespace `ns_id`; nullopt when none.
  static Result<std::optional<EntityKind>> FindEntityKind(Connection& conn, int64_t ns_id,
                                                          std::string_view name) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn.Prepare("SELECT kind FROM entities WHERE namespace_id = ? AND name = ?"));
    Query query(conn, stmt);
    query.Bind(ns_id).Bind(name);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find entity"));
    if (!row) return std::optional<EntityKind>{};
    CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(0)));
    return std::optional<EntityKind>(kind);
  }

  /// Looks up the id of a namespace; nullopt when absent.
  static Result<std::optional<int64_t>> FindNamespaceId(Connection& conn, int64_t catalog_id,
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

  static Result<Properties> ReadProperties(Connection& conn, sqlite3_stmt* stmt, int64_t id) {
    Query query(conn, stmt);
    query.Bind(id);
    Properties properties;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read properties"));
      if (!row) return properties;
      properties.emplace(query.Text(0), query.Text(1));
    }
  }

  static Status WriteProperties(Connection& conn, int64_t namespace_id,
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

  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Connection>> idle_;
};

Lease::~Lease() {
  if (conn_) store_.Release(std::move(conn_));
}

WriteTransaction::WriteTransaction(Lease& lease) : conn_(*lease), lease_(&lease) {}

/// A transaction left open by `WriteTransaction::Commit` under an Idempotency-Key; it
/// owns its connection until it commits or rolls back, then returns it to the pool.
class ParkedSqliteWrite final : public ParkedWrite {
 public:
  ParkedSqliteWrite(SqliteStore& store, std::unique_ptr<Connection> conn)
      : store_(store), conn_(std::move(conn)) {}
  ~ParkedSqliteWrite() override {
    if (!committed_) (void)conn_->Exec("ROLLBACK", "rollback");
    store_.Release(std::move(conn_));
  }

  Status Commit(const IdempotencyScope& scope, const StoredResponse& answer) override {
    CAIRN_ASSIGN_OR_RAISE(bool held, StoreAnswer(*conn_, scope, answer, /*applied=*/true));
    if (!held) return CommitFailed("Another request holds Idempotency-Key {}", scope.key);
    CAIRN_RETURN_IF_ERROR(conn_->Exec("COMMIT", "commit"));
    committed_ = true;
    return Ok();
  }

 private:
  SqliteStore& store_;
  std::unique_ptr<Connection> conn_;
  bool committed_ = false;
};

bool ParkInScope(Lease& lease, IdempotencyScope& scope) {
  if (scope.parked) return false;
  scope.parked = std::make_unique<ParkedSqliteWrite>(lease.store(), lease.Take());
  return true;
}

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenSqliteStore(const SqliteOptions& options) {
  if (options.synchronous != "full" && options.synchronous != "normal") {
    return InvalidConfig("Invalid SQLite synchronous mode '{}': expected full or normal",
                         options.synchronous);
  }
  // A private in-memory database exists per connection, so it can have only one.
  const size_t pool_size =
      options.path == ":memory:" ? 1 : std::max<size_t>(1, options.pool_size);
  std::vector<std::unique_ptr<Connection>> connections;
  for (size_t i = 0; i < pool_size; ++i) {
    CAIRN_ASSIGN_OR_RAISE(auto conn, OpenConnection(options));
    if (i == 0) CAIRN_RETURN_IF_ERROR(ApplyMigrations(*conn));
    connections.push_back(std::move(conn));
  }
  return std::make_unique<SqliteStore>(std::move(connections));
}

}  // namespace cairn
