// The SQL store: Idempotency-Key records, the writes parked until their answer commits
// with them, and the heartbeats of server instances.

#include <utility>

#include "common/macros.h"
#include "store/idempotency_scope.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

class ParkedSqlWrite final : public ParkedWrite {
 public:
  ParkedSqlWrite(SqlStore& store, std::unique_ptr<SqlConnection> conn)
      : store_(store), conn_(std::move(conn)) {}
  ~ParkedSqlWrite() override {
    if (!committed_) conn_->Rollback();
    store_.Release(std::move(conn_));
  }

  Status Commit(const IdempotencyScope& scope, std::string_view answer) override {
    CAIRN_ASSIGN_OR_RAISE(bool held,
                          StoreAnswer(*conn_, scope, answer, /*applied=*/true));
    if (!held) return CommitFailed("Another request holds Idempotency-Key {}", scope.key);
    committed_ = true;  // from here on, COMMIT or the server ends the transaction
    auto status = conn_->Commit();
    if (status || status.error().kind != ErrorKind::kCommitStateUnknown) return status;
    auto landed = store_.ParkedWriteLanded(scope, conn_->SessionId());
    if (landed && *landed) return Ok();
    if (landed) return ServiceUnavailable("The connection to the metadata store broke");
    return status;
  }

 private:
  SqlStore& store_;
  std::unique_ptr<SqlConnection> conn_;
  bool committed_ = false;
};

/// The record in the first two columns of `query`'s row: fingerprint, answer.
IdempotencyRecord RecordOf(Query& query) {
  IdempotencyRecord record{query.Text(0), std::nullopt};
  if (!query.IsNull(1)) record.answer = query.Text(1);
  return record;
}

}  // namespace

/// Writes the answer into the key row held by `scope` (marking the effect applied when
/// `applied`), then purges a bounded batch of expired keys — so no single request pays
/// for many. Returns false when the key is no longer held by this request.
Result<bool> StoreAnswer(SqlConnection& conn, const IdempotencyScope& scope,
                         std::string_view answer, bool applied) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* save,
      conn.Prepare(
          "UPDATE idempotency_keys SET applied = CASE WHEN ? = 1 THEN 1 ELSE applied "
          "END, answer = ? WHERE key = ? AND owner = ?"));
  bool held = false;
  {
    Query query(conn, save);
    CAIRN_RETURN_IF_ERROR(query.Bind(int64_t{applied ? 1 : 0})
                              .Bind(answer)
                              .Bind(scope.key)
                              .Bind(scope.owner)
                              .Run("store idempotent response"));
    held = query.Changes() > 0;
  }
  CAIRN_ASSIGN_OR_RAISE(
      auto* purge,
      conn.Prepare("DELETE FROM idempotency_keys WHERE key IN (SELECT key FROM "
                   "idempotency_keys WHERE expires_at_ms <= ? LIMIT 64)"));
  Query query(conn, purge);
  CAIRN_RETURN_IF_ERROR(
      query.Bind(scope.created_ms).Run("purge expired idempotency keys"));
  return held;
}

bool ParkInScope(Lease& lease, IdempotencyScope& scope) {
  if (scope.parked) return false;
  scope.parked = std::make_unique<ParkedSqlWrite>(lease.store(), lease.Take());
  return true;
}

/// Whether the parked write of `scope`, whose COMMIT lost its answer on session
/// `session`, was applied: its key then holds this request's answer.
Result<bool> SqlStore::ParkedWriteLanded(const IdempotencyScope& scope, int64_t session) {
  return Read([&](Lease& conn) -> Result<bool> {
    CAIRN_RETURN_IF_ERROR(conn->AwaitSessionEnd(session));
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT 1 FROM idempotency_keys WHERE key = ? AND owner = ? "
                      "AND applied = 1 AND answer IS NOT NULL"));
    Query query(*conn, stmt);
    query.Bind(scope.key).Bind(scope.owner);
    return query.Step("read back idempotent commit");
  });
}

Result<std::optional<IdempotencyRecord>> SqlStore::ClaimIdempotencyKey(
    const IdempotencyScope& scope, int64_t lease_until_ms) {
  // Read first: a key that is answered or held by a live request is returned without
  // writing, so that duplicates of a running request never wait for the write lock
  // (SQLite) or a row lock, and cost one indexed read.
  auto held = Read([&](Lease& conn) -> Result<std::optional<IdempotencyRecord>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT fingerprint, answer, CASE WHEN "
            "idempotency_keys.expires_at_ms <= ? OR "
            "(idempotency_keys.answer IS NULL AND idempotency_keys.applied = 0 AND "
            "(idempotency_keys.lease_until_ms <= ? OR "
            "(idempotency_keys.instance <> '' AND NOT EXISTS (SELECT 1 FROM "
            "server_instances WHERE server_instances.id = idempotency_keys.instance "
            "AND server_instances.heartbeat_ms >= ?)))) THEN 1 ELSE 0 END "
            "FROM idempotency_keys WHERE key = ?"));
    Query query(*conn, stmt);
    query.Bind(scope.created_ms)
        .Bind(scope.created_ms)
        .Bind(scope.stale_before_ms)
        .Bind(scope.key);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("look up idempotency key"));
    if (!row || query.Int(2) == 1) return std::optional<IdempotencyRecord>{};
    return std::optional<IdempotencyRecord>(RecordOf(query));
  });
  if (!held) return tl::unexpected(held.error());
  if (*held) return held;
  auto claimed = Read([&](Lease& conn) -> Result<bool> {
    // A new key, an expired one, or an abandoned claim (nothing applied, and its lease
    // is over or its instance stopped beating or is gone) is taken; anything else
    // stays with its holder. The same condition as above, checked again atomically.
    CAIRN_ASSIGN_OR_RAISE(
        auto* claim,
        conn->Prepare(
            "INSERT INTO idempotency_keys (key, fingerprint, owner, instance, applied, "
            "lease_until_ms, "
            "created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, 0, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, "
            "owner = excluded.owner, instance = excluded.instance, applied = 0, "
            "lease_until_ms = excluded.lease_until_ms, "
            "answer = NULL, "
            "created_at_ms = excluded.created_at_ms, expires_at_ms = "
            "excluded.expires_at_ms "
            "WHERE idempotency_keys.expires_at_ms <= excluded.created_at_ms OR "
            "(idempotency_keys.answer IS NULL AND idempotency_keys.applied = 0 AND "
            "(idempotency_keys.lease_until_ms <= excluded.created_at_ms OR "
            "(idempotency_keys.instance <> '' AND NOT EXISTS (SELECT 1 FROM "
            "server_instances WHERE server_instances.id = idempotency_keys.instance "
            "AND server_instances.heartbeat_ms >= ?))))"));
    Query query(*conn, claim);
    CAIRN_RETURN_IF_ERROR(query.Bind(scope.key)
                              .Bind(scope.fingerprint)
                              .Bind(scope.owner)
                              .Bind(scope.instance)
                              .Bind(lease_until_ms)
                              .Bind(scope.created_ms)
                              .Bind(scope.expires_ms)
                              .Bind(scope.stale_before_ms)
                              .Run("claim idempotency key"));
    return query.Changes() > 0;
  });
  if (!claimed) return tl::unexpected(claimed.error());
  if (*claimed) return std::optional<IdempotencyRecord>{};
  CAIRN_ASSIGN_OR_RAISE(auto existing,
                        LoadIdempotentResponse(scope.key, scope.created_ms));
  if (!existing) {
    // Expired between the two statements: report "in progress" so the caller retries.
    return std::optional<IdempotencyRecord>(IdempotencyRecord{scope.fingerprint, {}});
  }
  return existing;
}

Result<std::optional<IdempotencyRecord>> SqlStore::LoadIdempotentResponse(
    std::string_view key, int64_t now_ms) {
  return Read([&](Lease& conn) -> Result<std::optional<IdempotencyRecord>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT fingerprint, answer FROM idempotency_keys WHERE key = ? "
                      "AND expires_at_ms > ?"));
    Query query(*conn, stmt);
    query.Bind(key).Bind(now_ms);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load idempotency key"));
    if (!row) return std::optional<IdempotencyRecord>{};
    return std::optional<IdempotencyRecord>(RecordOf(query));
  });
}

Status SqlStore::SaveIdempotentResponse(const IdempotencyScope& scope,
                                        std::string_view answer) {
  return Write(WriteContext::Immediate(),
               [&](Lease& conn, WriteTransaction& txn) -> Status {
                 // A claim taken over meanwhile keeps the other request's answer.
                 CAIRN_ASSIGN_OR_RAISE(
                     bool held, StoreAnswer(*conn, scope, answer, /*applied=*/false));
                 (void)held;
                 return txn.Commit();
               });
}

Status SqlStore::ReleaseIdempotencyKey(const IdempotencyScope& scope) {
  return Read([&](Lease& conn) -> Status {
    CAIRN_ASSIGN_OR_RAISE(auto* release,
                          conn->Prepare("DELETE FROM idempotency_keys WHERE key = ? "
                                        "AND owner = ? AND applied = 0"));
    Query query(*conn, release);
    return query.Bind(scope.key).Bind(scope.owner).Run("release idempotency key");
  });
}

Status SqlStore::BeatInstance(std::string_view instance, int64_t now_ms,
                              int64_t forget_before_ms) {
  return Read([&](Lease& conn) -> Status {
    CAIRN_ASSIGN_OR_RAISE(
        auto* beat,
        conn->Prepare("INSERT INTO server_instances (id, started_at_ms, heartbeat_ms) "
                      "VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET heartbeat_ms = "
                      "excluded.heartbeat_ms"));
    {
      Query query(*conn, beat);
      CAIRN_RETURN_IF_ERROR(
          query.Bind(instance).Bind(now_ms).Bind(now_ms).Run("beat instance"));
    }
    // Instances that died long ago: their claims are abandoned either way.
    CAIRN_ASSIGN_OR_RAISE(
        auto* forget,
        conn->Prepare("DELETE FROM server_instances WHERE id IN (SELECT id FROM "
                      "server_instances WHERE heartbeat_ms < ? LIMIT 16)"));
    Query query(*conn, forget);
    return query.Bind(forget_before_ms).Run("forget dead instances");
  });
}

Status SqlStore::RemoveInstance(std::string_view instance) {
  return Read([&](Lease& conn) -> Status {
    CAIRN_ASSIGN_OR_RAISE(auto* remove,
                          conn->Prepare("DELETE FROM server_instances WHERE id = ?"));
    Query query(*conn, remove);
    return query.Bind(instance).Run("remove instance");
  });
}

}  // namespace cairn::sql_internal
