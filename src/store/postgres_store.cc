// PostgreSQL backend of the SQL metadata store (postgres_store.h, sql_store.h).
//
// Transactions run at READ COMMITTED: the compare-and-swap UPDATEs re-check their WHERE
// against the latest committed row, and the checks that precede an insert are protected
// by row locks (`LockRow`). What can still collide — two inserts of one name, a deadlock,
// a serialization failure — is reported as retryable and the store runs the transaction
// again. Statements are prepared once per connection; values travel as text.

#include "store/postgres_store.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <libpq-fe.h>

#include "common/macros.h"
#include "store/sql_store.h"

namespace cairn {
namespace {

/// Key of the advisory lock that serializes schema migrations across replicas ("Cairn").
constexpr int64_t kMigrationLockKey = 0x436169726E;

/// How long the outcome of a COMMIT whose answer was lost is waited for.
constexpr auto kSessionEndWait = std::chrono::seconds(10);

/// Each entry is one schema version; applied in order, each in its own transaction, and
/// recorded in `schema_version`. Never edit a released entry: append a new one. Names,
/// paths and locations use the "C" collation so that they sort and compare byte-wise, as
/// keyset pagination and the location range scans expect (and as SQLite does).
const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> kMigrations = {
      // v1: the schema of SQLite's v1-v5 in one step.
      R"sql(
      CREATE TABLE catalogs (
        id            BIGSERIAL PRIMARY KEY,
        name          TEXT COLLATE "C" NOT NULL UNIQUE,
        location      TEXT NOT NULL,
        created_at_ms BIGINT NOT NULL
      );
      CREATE TABLE catalog_properties (
        catalog_id BIGINT NOT NULL REFERENCES catalogs(id) ON DELETE CASCADE,
        key        TEXT COLLATE "C" NOT NULL,
        value      TEXT NOT NULL,
        PRIMARY KEY (catalog_id, key)
      );
      CREATE TABLE namespaces (
        id            BIGSERIAL PRIMARY KEY,
        catalog_id    BIGINT NOT NULL REFERENCES catalogs(id),
        parent_path   TEXT COLLATE "C" NOT NULL,
        name          TEXT COLLATE "C" NOT NULL,
        created_at_ms BIGINT NOT NULL,
        UNIQUE (catalog_id, parent_path, name)
      );
      CREATE TABLE namespace_properties (
        namespace_id BIGINT NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
        key          TEXT COLLATE "C" NOT NULL,
        value        TEXT NOT NULL,
        PRIMARY KEY (namespace_id, key)
      );
      CREATE TABLE entities (
        id                BIGSERIAL PRIMARY KEY,
        namespace_id      BIGINT NOT NULL REFERENCES namespaces(id),
        name              TEXT COLLATE "C" NOT NULL,
        kind              TEXT NOT NULL
                          CHECK (kind IN ('iceberg-table', 'iceberg-view', 'lance-table')),
        metadata_location TEXT COLLATE "C",
        metadata          TEXT,
        version           BIGINT NOT NULL DEFAULT 0,
        created_at_ms     BIGINT NOT NULL,
        updated_at_ms     BIGINT NOT NULL,
        UNIQUE (namespace_id, name)
      );
      CREATE INDEX entities_by_kind ON entities (namespace_id, kind, name);
      CREATE INDEX entities_by_metadata_location ON entities (metadata_location);
      CREATE TABLE lance_transactions (
        id            TEXT COLLATE "C" PRIMARY KEY,
        status        TEXT NOT NULL,
        payload       TEXT NOT NULL,
        version       BIGINT NOT NULL DEFAULT 0,
        created_at_ms BIGINT NOT NULL,
        updated_at_ms BIGINT NOT NULL
      );
      CREATE INDEX lance_transactions_by_status ON lance_transactions (status, created_at_ms);
      CREATE TABLE lance_transaction_properties (
        transaction_id TEXT COLLATE "C" NOT NULL
                       REFERENCES lance_transactions(id) ON DELETE CASCADE,
        key            TEXT COLLATE "C" NOT NULL,
        value          TEXT NOT NULL,
        PRIMARY KEY (transaction_id, key)
      );
      CREATE TABLE idempotency_keys (
        key            TEXT COLLATE "C" PRIMARY KEY,
        fingerprint    TEXT NOT NULL,
        owner          TEXT NOT NULL,
        applied        INTEGER NOT NULL DEFAULT 0,
        lease_until_ms BIGINT NOT NULL,
        status         INTEGER,
        content_type   TEXT,
        body           TEXT,
        etag           TEXT,
        created_at_ms  BIGINT NOT NULL,
        expires_at_ms  BIGINT NOT NULL
      );
      CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at_ms);
      )sql",
      // v2: metadata stored split (see MetadataParts), as SQLite's v6.
      R"sql(
      CREATE TABLE entity_parts (
        entity_id BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        list      BIGINT NOT NULL,
        position  BIGINT NOT NULL,
        body      TEXT NOT NULL,
        PRIMARY KEY (entity_id, list, position)
      );
      CREATE TABLE split_entities (
        entity_id  BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        list       BIGINT NOT NULL,
        parts_at   BIGINT NOT NULL,
        part_count BIGINT NOT NULL,
        PRIMARY KEY (entity_id, list)
      );
      )sql",
      // v3: server instances and the instance holding each idempotency claim, as
      // SQLite's v7.
      R"sql(
      ALTER TABLE idempotency_keys ADD COLUMN instance TEXT COLLATE "C" NOT NULL DEFAULT '';
      CREATE TABLE server_instances (
        id            TEXT COLLATE "C" PRIMARY KEY,
        started_at_ms BIGINT NOT NULL,
        heartbeat_ms  BIGINT NOT NULL
      );
      CREATE INDEX server_instances_by_heartbeat ON server_instances (heartbeat_ms);
      )sql",
      // v4: the locations each entity owns, as SQLite's v8.
      R"sql(
      CREATE TABLE entity_locations (
        entity_id  BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        catalog_id BIGINT NOT NULL,
        location   TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (entity_id, location)
      );
      CREATE INDEX entity_locations_by_location ON entity_locations (location);
      )sql",
      // v5: the answer of an idempotent request as one opaque value, as SQLite's v9.
      R"sql(
      ALTER TABLE idempotency_keys ADD COLUMN answer TEXT;
      UPDATE idempotency_keys SET answer = status::text || chr(10) ||
        COALESCE(content_type, '') || chr(10) || COALESCE(etag, '') || chr(10) ||
        COALESCE(body, '')
        WHERE status IS NOT NULL;
      ALTER TABLE idempotency_keys DROP COLUMN status, DROP COLUMN content_type,
        DROP COLUMN body, DROP COLUMN etag;
      )sql",
      // v6: orphaned metadata files, as SQLite's v10.
      R"sql(
      CREATE TABLE orphan_files (
        location   TEXT COLLATE "C" PRIMARY KEY,
        catalog_id BIGINT NOT NULL,
        namespace  TEXT COLLATE "C" NOT NULL,
        name       TEXT COLLATE "C" NOT NULL,
        recorded_at_ms  BIGINT NOT NULL
      );
      CREATE INDEX orphan_files_by_time ON orphan_files (recorded_at_ms);
      )sql",
      // v7: identity (principals, roles, assignments, grants, signing keys and the
      // generation), as SQLite's v11.
      R"sql(
      CREATE TABLE principals (
        name              TEXT COLLATE "C" PRIMARY KEY,
        client_id         TEXT COLLATE "C" NOT NULL UNIQUE,
        secret_hash       TEXT NOT NULL,
        created_ms        BIGINT NOT NULL,
        secret_rotated_ms BIGINT NOT NULL
      );
      CREATE TABLE roles (
        name       TEXT COLLATE "C" PRIMARY KEY,
        created_ms BIGINT NOT NULL
      );
      CREATE TABLE principal_roles (
        principal TEXT COLLATE "C" NOT NULL REFERENCES principals(name) ON DELETE CASCADE,
        role      TEXT COLLATE "C" NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
        PRIMARY KEY (principal, role)
      );
      CREATE INDEX principal_roles_by_role ON principal_roles (role);
      CREATE TABLE grants (
        role           TEXT COLLATE "C" NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
        privilege      TEXT COLLATE "C" NOT NULL,
        securable_kind TEXT COLLATE "C" NOT NULL,
        catalog        TEXT COLLATE "C" NOT NULL,
        namespace      TEXT COLLATE "C" NOT NULL,
        name           TEXT COLLATE "C" NOT NULL,
        UNIQUE (role, privilege, securable_kind, catalog, namespace, name)
      );
      CREATE TABLE signing_keys (
        kid         TEXT COLLATE "C" PRIMARY KEY,
        private_jwk TEXT NOT NULL,
        created_ms  BIGINT NOT NULL
      );
      CREATE INDEX signing_keys_by_time ON signing_keys (created_ms, kid);
      CREATE TABLE identity_generation (
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        generation BIGINT NOT NULL
      );
      INSERT INTO identity_generation (id, generation) VALUES (1, 0);
      )sql",
      // v8: the versions of managed Lance tables, as SQLite's v12.
      R"sql(
      CREATE TABLE lance_versions (
        entity_id      BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        branch         TEXT COLLATE "C" NOT NULL,
        version        BIGINT NOT NULL,
        manifest_path  TEXT NOT NULL,
        requested_path TEXT NOT NULL,
        manifest_size  BIGINT NOT NULL,
        e_tag          TEXT NOT NULL,
        naming_scheme  TEXT NOT NULL,
        metadata       TEXT NOT NULL,
        timestamp_ms   BIGINT NOT NULL,
        PRIMARY KEY (entity_id, branch, version)
      );
      )sql",
      // v9: finished Lance transactions pruned by age (SQLite's v13): find the due ones
      // of a status
      // without reading every record of that status.
      R"sql(
      CREATE INDEX lance_transactions_by_update ON lance_transactions (status, updated_at_ms);
      )sql",
      // v10: Iceberg metrics reports (SQLite's v14), listed per table by id and pruned
      // by age.
      R"sql(
      CREATE TABLE metrics_reports (
        id             BIGSERIAL PRIMARY KEY,
        entity_id      BIGINT NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        report_type    TEXT NOT NULL,
        reported_at_ms BIGINT NOT NULL,
        report         TEXT NOT NULL
      );
      CREATE INDEX metrics_reports_by_entity ON metrics_reports (entity_id, id);
      CREATE INDEX metrics_reports_by_age ON metrics_reports (reported_at_ms);
      )sql",
      // v11 (SQLite's v15): a list of parts may drop parts at its front (a metadata log
      // cut to its last N entries), so it starts at any position. Only lists from the
      // third on do (sql_store_split.cc): older binaries, which count positions from
      // 0, write the first two and drop the others, so one still running beside a
      // newer replica (a rolling upgrade) corrupts nothing.
      R"sql(
      ALTER TABLE split_entities ADD COLUMN first_position BIGINT NOT NULL DEFAULT 0;
      )sql",
  };
  return kMigrations;
}

/// `sql` with its `?` placeholders numbered `$1, $2, ...` (none appear inside literals).
std::string NumberPlaceholders(const char* sql) {
  std::string out;
  int next = 0;
  bool in_literal = false;
  for (const char* c = sql; *c != '\0'; ++c) {
    if (*c == '\'') in_literal = !in_literal;
    if (*c == '?' && !in_literal) {
      out.push_back('$');
      out += std::to_string(++next);
    } else {
      out += *c;
    }
  }
  return out;
}

/// The row-lock statements `LockRow` runs (literals, so that they are prepared once);
/// nullptr for a table rows of which are never locked.
const char* LockSql(std::string_view table, bool exclusive) {
  if (table == "catalogs") {
    return exclusive ? "SELECT 1 FROM catalogs WHERE id = ? FOR UPDATE"
                     : "SELECT 1 FROM catalogs WHERE id = ? FOR SHARE";
  }
  if (table == "namespaces") {
    return exclusive ? "SELECT 1 FROM namespaces WHERE id = ? FOR UPDATE"
                     : "SELECT 1 FROM namespaces WHERE id = ? FOR SHARE";
  }
  return nullptr;
}

/// libpq's message on one line, for logs and error bodies.
std::string OneLine(std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

/// What a failed statement means for the caller, by SQLSTATE.
SqlFailure Classify(std::string_view sqlstate) {
  // 40001 serialization_failure, 40P01 deadlock_detected; 23505 unique_violation and
  // 23503 foreign_key_violation: a concurrent insert or delete the checks before could
  // not see.
  if (sqlstate == "40001" || sqlstate == "40P01" || sqlstate == "23505" ||
      sqlstate == "23503") {
    return SqlFailure::kRetryable;
  }
  // Class 08 connection exceptions; 57P01-57P03 the server shutting down or starting.
  if (sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
      sqlstate == "57P03") {
    return SqlFailure::kConnectionLost;
  }
  return SqlFailure::kOther;
}

class PgStatement final : public SqlStatement {
 public:
  explicit PgStatement(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

/// Frees a PGresult when it goes out of scope.
struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

class PgConnection final : public SqlConnection {
 public:
  explicit PgConnection(PGconn* conn) : conn_(conn), session_(PQbackendPID(conn)) {}
  ~PgConnection() override { PQfinish(conn_); }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Result<SqlStatement*> Prepare(const char* sql) override {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second.get();
    auto statement =
        std::make_unique<PgStatement>(fmt::format("s{}", statements_.size()));
    PgResult result(PQprepare(conn_, statement->name().c_str(),
                              NumberPlaceholders(sql).c_str(), 0, nullptr));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
      return Fail(result.get(), "prepare");
    failure_ = SqlFailure::kNone;
    auto& slot = statements_[sql];
    slot = std::move(statement);
    return slot.get();
  }

  Result<SqlResult> Execute(SqlStatement* statement, const std::vector<SqlParam>& params,
                            std::string_view what) override {
    std::vector<std::string> numbers;
    numbers.reserve(params.size());
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (const auto& param : params) {
      const std::string* text = std::get_if<std::string>(&param);
      if (text == nullptr) {
        text = &numbers.emplace_back(std::to_string(std::get<int64_t>(param)));
      }
      // Text parameters end at the first NUL: refuse rather than store a shortened value.
      if (text->find('\0') != std::string::npos) {
        failure_ = SqlFailure::kOther;
        return BadRequest(
            "The PostgreSQL metadata store cannot hold the character U+0000 (in {})",
            what);
      }
      values.push_back(text->c_str());
      lengths.push_back(static_cast<int>(text->size()));
    }
    PgResult result(PQexecPrepared(
        conn_, static_cast<PgStatement*>(statement)->name().c_str(),
        static_cast<int>(params.size()), values.data(), lengths.data(), nullptr, 0));
    const auto status = PQresultStatus(result.get());
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
      return Fail(result.get(), what);
    failure_ = SqlFailure::kNone;
    return ReadResult(result.get());
  }

  Status ExecScript(const char* sql, std::string_view what) override {
    PgResult result(PQexec(conn_, sql));
    const auto status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      return Fail(result.get(), what);
    failure_ = SqlFailure::kNone;
    return Ok();
  }

  Status Begin() override { return ExecScript("BEGIN", "begin transaction"); }
  // READ COMMITTED (the default) takes a new snapshot per statement: a read of several
  // statements that must agree needs REPEATABLE READ, which never blocks writers.
  Status BeginSnapshot() override {
    return ExecScript("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", "begin read");
  }

  Status Commit() override {
    PgResult result(PQexec(conn_, "COMMIT"));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
      auto error = Fail(result.get(), "commit");
      if (failure_ != SqlFailure::kConnectionLost) return error;
      return CommitStateUnknown(
          "The connection to the metadata store broke during COMMIT: {}",
          error.value().message);
    }
    // COMMIT of a transaction that failed earlier answers ROLLBACK.
    if (std::string_view(PQcmdStatus(result.get())) != "COMMIT") {
      failure_ = SqlFailure::kOther;
      return IOError("Metadata store rolled the transaction back");
    }
    failure_ = SqlFailure::kNone;
    return Ok();
  }

  void Rollback() override { PgResult result(PQexec(conn_, "ROLLBACK")); }

  bool SerializesWriters() const override { return false; }

  Result<bool> LockRow(const char* table, int64_t id, bool exclusive) override {
    const char* sql = LockSql(table, exclusive);
    if (sql == nullptr) return Internal("Rows of table {} are not locked", table);
    CAIRN_ASSIGN_OR_RAISE(auto* statement, Prepare(sql));
    CAIRN_ASSIGN_OR_RAISE(auto result, Execute(statement, {SqlParam{id}}, "lock row"));
    return !result.rows.empty();
  }

  SqlFailure LastFailure() const override { return failure_; }
  bool Usable() const override {
    return failure_ != SqlFailure::kConnectionLost && PQstatus(conn_) == CONNECTION_OK;
  }
  int64_t SessionId() const override { return session_; }

  Status AwaitSessionEnd(int64_t id) override {
    if (id == 0) return Ok();
    CAIRN_ASSIGN_OR_RAISE(auto* statement,
                          Prepare("SELECT 1 FROM pg_stat_activity WHERE pid = ?"));
    const auto deadline = std::chrono::steady_clock::now() + kSessionEndWait;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(auto running,
                            Execute(statement, {SqlParam{id}}, "await session"));
      if (running.rows.empty()) return Ok();
      if (std::chrono::steady_clock::now() >= deadline) {
        return ServiceUnavailable("Session {} still runs on the metadata store", id);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  static SqlResult ReadResult(PGresult* result) {
    SqlResult out;
    const int rows = PQntuples(result);
    const int columns = PQnfields(result);
    out.rows.reserve(static_cast<size_t>(rows));
    for (int r = 0; r < rows; ++r) {
      auto& row = out.rows.emplace_back(static_cast<size_t>(columns));
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(result, r, c)) continue;
        row[static_cast<size_t>(c)].emplace(
            PQgetvalue(result, r, c), static_cast<size_t>(PQgetlength(result, r, c)));
      }
    }
    const std::string_view changed = PQcmdTuples(result);
    std::from_chars(changed.data(), changed.data() + changed.size(), out.changes);
    return out;
  }

  /// Records why `result` failed and returns the error for it.
  tl::unexpected<Error> Fail(const PGresult* result, std::string_view what) {
    const char* sqlstate =
        result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    failure_ = sqlstate ? Classify(sqlstate) : SqlFailure::kOther;
    if (PQstatus(conn_) != CONNECTION_OK) failure_ = SqlFailure::kConnectionLost;
    const std::string message = OneLine(PQerrorMessage(conn_));
    const std::string_view state = sqlstate ? sqlstate : "";
    switch (failure_) {
      case SqlFailure::kConnectionLost:
        return tl::unexpected(Error{
            ErrorKind::kServiceUnavailable,
            fmt::format("Metadata store is unreachable during {}: {}", what, message)});
      case SqlFailure::kRetryable:
        return tl::unexpected(
            Error{ErrorKind::kServiceUnavailable,
                  fmt::format("Metadata store conflict during {} ({}): {}", what, state,
                              message)});
      default:
        break;
    }
    // 55P03 lock_not_available (lock_timeout), 57014 query_canceled, 53xxx out of
    // resources.
    if (state == "55P03" || state == "57014" || state.starts_with("53")) {
      return tl::unexpected(
          Error{ErrorKind::kServiceUnavailable,
                fmt::format("Metadata store is busy during {}: {}; retry later", what,
                            message)});
    }
    // Class 22: a value the database cannot hold (such as bytes that are not UTF-8).
    if (state.starts_with("22")) {
      return tl::unexpected(
          Error{ErrorKind::kBadRequest,
                fmt::format("The metadata store cannot hold a value of this request: {}",
                            message)});
    }
    return tl::unexpected(Error{
        ErrorKind::kIOError,
        fmt::format("Metadata store error during {} ({}): {}", what, state, message)});
  }

  PGconn* conn_;
  const int64_t session_;
  std::unordered_map<const char*, std::unique_ptr<PgStatement>> statements_;
  SqlFailure failure_ = SqlFailure::kNone;
};

/// Opens one connection. Our defaults come before the URI, so that parameters in the URI
/// override them; the password comes after, so that the configured one wins.
Result<std::unique_ptr<SqlConnection>> Connect(const PostgresOptions& options) {
  const std::string timeout = std::to_string(options.connect_timeout_s);
  const std::string server_options = fmt::format(
      "-c lock_timeout={} -c idle_in_transaction_session_timeout=60000 -c "
      "client_min_messages=warning",
      options.lock_timeout_ms);
  std::vector<const char*> keywords = {
      "connect_timeout", "application_name", "options",         "keepalives",
      "keepalives_idle", "tcp_user_timeout", "client_encoding", "dbname"};
  std::vector<const char*> values = {
      timeout.c_str(), "cairn", server_options.c_str(), "1", "10",
      "15000",         "UTF8",  options.uri.c_str()};
  if (!options.password.empty()) {
    keywords.push_back("password");
    values.push_back(options.password.c_str());
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* conn = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (conn == nullptr)
    return ServiceUnavailable("Cannot connect to the metadata store: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string message = OneLine(PQerrorMessage(conn));
    PQfinish(conn);
    return ServiceUnavailable("Cannot connect to the metadata store {}: {}",
                              RedactedPostgresUri(options.uri), message);
  }
  return std::unique_ptr<SqlConnection>(std::make_unique<PgConnection>(conn));
}

/// Applies the migrations while holding the advisory lock, so that replicas starting at
/// once apply each migration exactly once (the others wait, then find nothing to do).
Status MigrateUnderLock(SqlConnection& conn) {
  const std::string lock = fmt::format("SELECT pg_advisory_lock({})", kMigrationLockKey);
  const std::string unlock =
      fmt::format("SELECT pg_advisory_unlock({})", kMigrationLockKey);
  CAIRN_RETURN_IF_ERROR(conn.ExecScript(lock.c_str(), "take the migration lock"));
  auto migrated = ApplyMigrations(conn, Migrations());
  auto unlocked = conn.ExecScript(unlock.c_str(), "release the migration lock");
  CAIRN_RETURN_IF_ERROR(migrated);
  return unlocked;
}

}  // namespace

bool IsPostgresUri(std::string_view uri) {
  return uri.starts_with("postgresql://") || uri.starts_with("postgres://");
}

std::string RedactedPostgresUri(std::string_view uri) {
  const size_t scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos) return std::string(uri);
  const size_t authority = scheme_end + 3;
  const size_t at = uri.find('@', authority);
  const size_t slash = uri.find('/', authority);
  std::string out(uri);
  if (at != std::string_view::npos && (slash == std::string_view::npos || at < slash)) {
    const size_t colon = uri.find(':', authority);
    if (colon != std::string_view::npos && colon < at) {
      out = fmt::format("{}***{}", uri.substr(0, colon + 1), uri.substr(at));
    }
  }
  // A password may also come as a query parameter.
  const size_t param = out.find("password=");
  if (param != std::string::npos) {
    const size_t end = out.find('&', param);
    const std::string_view rest =
        end == std::string::npos ? std::string_view() : std::string_view(out).substr(end);
    out = fmt::format("{}password=***{}", std::string_view(out).substr(0, param), rest);
  }
  return out;
}

Result<SchemaState> InspectPostgresSchema(const PostgresOptions& options) {
  if (!IsPostgresUri(options.uri)) {
    return InvalidConfig("store: expected a postgresql:// URI, got '{}'",
                         RedactedPostgresUri(options.uri));
  }
  CAIRN_ASSIGN_OR_RAISE(auto conn, Connect(options));
  return ReadSchemaState(*conn, Migrations(),
                         "SELECT COUNT(*) FROM information_schema.tables WHERE "
                         "table_schema = current_schema() AND table_name = "
                         "'schema_version'");
}

Result<std::unique_ptr<MetaStore>> OpenPostgresStore(const PostgresOptions& options) {
  if (!IsPostgresUri(options.uri)) {
    return InvalidConfig("store: expected a postgresql:// URI, got '{}'",
                         RedactedPostgresUri(options.uri));
  }
  CAIRN_ASSIGN_OR_RAISE(auto first, Connect(options));
  CAIRN_RETURN_IF_ERROR(MigrateUnderLock(*first));
  SqlStoreOptions store;
  store.pool_size = std::max<size_t>(1, options.pool_size);
  store.connect = [options] { return Connect(options); };
  store.connections.push_back(std::move(first));
  return MakeSqlStore(std::move(store));
}

}  // namespace cairn
