// The MetaStore on SQL, for every backend (see sql_store.h).
//
// Concurrency: a pool of connections; each call borrows one for its duration. Every write
// runs in one transaction through `Write`, which runs it again when the backend reports a
// conflict with a concurrent transaction. The checks inside a write (does the parent
// namespace exist, is the name free) are made safe against concurrent writers by
// `LockRow` on the rows they depend on; on SQLite, whose writers exclude each other
// (BEGIN IMMEDIATE), that is a no-op. Reads are single statements or tolerate seeing two
// states (a catalog and its properties).

#include "store/sql_store.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <random>
#include <thread>
#include <type_traits>
#include <utility>

#include "common/macros.h"
#include "common/location.h"
#include "store/idempotency_scope.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

/// Namespace paths are stored as (parent_path, name); levels are joined with 0x1F, a byte
/// that names may not contain, so the encoding is unambiguous and sorts like the levels.
constexpr char kLevelSeparator = '\x1f';

/// How often a write transaction runs before a conflict is reported as a busy store.
constexpr int kMaxWriteAttempts = 20;

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
/// follow; the largest value (no limit) when unbounded or too large to add one to.
int64_t FetchLimit(std::optional<size_t> limit) {
  constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max();
  if (!limit || *limit >= static_cast<size_t>(kUnlimited)) return kUnlimited;
  return static_cast<int64_t>(*limit) + 1;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A short random pause before running a conflicting transaction again, growing with the
/// attempt, so that the writers that collided do not collide again in lockstep.
void BackOff(int attempt) {
  thread_local std::minstd_rand random(std::random_device{}());
  const int ceiling_us = 200 * std::min(attempt, 10);
  std::this_thread::sleep_for(std::chrono::microseconds(
      std::uniform_int_distribution<int>(0, ceiling_us)(random)));
}

/// Writes the answer into the key row held by `scope` (marking the effect applied when
/// `applied`), then purges a bounded batch of expired keys — so no single request pays
/// for many. Returns false when the key is no longer held by this request.
Result<bool> StoreAnswer(SqlConnection& conn, const IdempotencyScope& scope,
                         const StoredResponse& answer, bool applied) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* save,
      conn.Prepare(
          "UPDATE idempotency_keys SET applied = CASE WHEN ? = 1 THEN 1 ELSE applied "
          "END, status = ?, content_type = ?, body = ?, etag = ? "
          "WHERE key = ? AND owner = ?"));
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
      conn.Prepare("DELETE FROM idempotency_keys WHERE key IN (SELECT key FROM "
                   "idempotency_keys WHERE expires_at_ms <= ? LIMIT 64)"));
  Query query(conn, purge);
  CAIRN_RETURN_IF_ERROR(
      query.Bind(scope.created_ms).Run("purge expired idempotency keys"));
  return held;
}

class SqlStore;

/// Borrows a connection from the pool for the scope of one store call; a connection that
/// broke goes back as broken, and the pool closes it.
class Lease {
 public:
  Lease(SqlStore& store, std::unique_ptr<SqlConnection> conn)
      : store_(&store), conn_(std::move(conn)) {}
  Lease(Lease&& other) noexcept = default;
  Lease& operator=(Lease&&) = delete;
  ~Lease();
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  SqlConnection& operator*() { return *conn_; }
  SqlConnection* operator->() { return conn_.get(); }
  SqlStore& store() { return *store_; }
  /// Takes the connection out of the lease (it then returns nothing to the pool).
  std::unique_ptr<SqlConnection> Take() { return std::move(conn_); }

 private:
  SqlStore* store_;
  std::unique_ptr<SqlConnection> conn_;
};

/// Parks the open transaction of `lease` in the current idempotency scope; defined after
/// `SqlStore`. Returns false when the scope already holds a parked write.
bool ParkInScope(Lease& lease, IdempotencyScope& scope);

/// A write transaction; rolls back unless committed.
class WriteTransaction {
 public:
  explicit WriteTransaction(Lease& lease) : lease_(lease) {}
  ~WriteTransaction() {
    if (open_) lease_->Rollback();
  }
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;

  Status Begin() {
    CAIRN_RETURN_IF_ERROR(lease_->Begin());
    open_ = true;
    return Ok();
  }
  /// Commits. Under an Idempotency-Key the transaction is parked instead: it commits
  /// later together with the request's answer (see `ParkedSqlWrite`).
  Status Commit() {
    IdempotencyScope* scope = CurrentIdempotencyScope();
    if (scope != nullptr) {
      if (!ParkInScope(lease_, *scope)) {
        return Internal("An idempotent request may write only once");
      }
      open_ = false;
      return Ok();
    }
    open_ = false;
    return lease_->Commit();
  }

 private:
  Lease& lease_;
  bool open_ = false;
};

/// The value type of a `Result`.
template <class R>
using ValueOf = typename std::remove_cvref_t<R>::value_type;

class SqlStore final : public MetaStore {
 public:
  explicit SqlStore(SqlStoreOptions options)
      : connect_(std::move(options.connect)),
        capacity_(std::max(options.pool_size, options.connections.size())),
        idle_(std::move(options.connections)),
        open_(idle_.size()) {}

  /// Borrows an idle connection, or opens one while fewer than the capacity are open.
  Result<Lease> Acquire() {
    std::unique_lock lock(mutex_);
    available_.wait(lock,
                    [this] { return !idle_.empty() || (connect_ && open_ < capacity_); });
    if (!idle_.empty()) {
      auto conn = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(conn));
    }
    ++open_;  // reserve the slot, then connect without holding the lock
    lock.unlock();
    auto conn = connect_();
    if (!conn) {
      Forget();
      return tl::unexpected(conn.error());
    }
    return Lease(*this, std::move(*conn));
  }

  /// Takes a connection back; a broken one is closed, and with it every idle one, since
  /// what broke one (a database restart) has broken them all.
  void Release(std::unique_ptr<SqlConnection> conn) {
    std::vector<std::unique_ptr<SqlConnection>> closing;
    {
      std::lock_guard lock(mutex_);
      if (conn->Usable() || !connect_) {
        idle_.push_back(std::move(conn));
      } else {
        closing.push_back(std::move(conn));
        for (auto& idle : idle_) closing.push_back(std::move(idle));
        idle_.clear();
        open_ -= closing.size();
      }
    }
    available_.notify_all();
  }

  /// Runs `body(lease, txn)` in a write transaction, again when it failed on a conflict
  /// with a concurrent transaction or on a connection that broke before COMMIT was sent.
  /// The body commits with `txn.Commit()`; returning without it rolls back.
  template <class Body>
  auto Write(Body&& body) -> std::invoke_result_t<Body, Lease&, WriteTransaction&> {
    using R = std::invoke_result_t<Body, Lease&, WriteTransaction&>;
    for (int attempt = 1;; ++attempt) {
      CAIRN_ASSIGN_OR_RAISE(Lease conn, Acquire());
      WriteTransaction txn(conn);
      R result = [&]() -> R {
        CAIRN_RETURN_IF_ERROR(txn.Begin());
        return body(conn, txn);
      }();
      if (result) return result;
      const SqlFailure failure = conn->LastFailure();
      if (failure == SqlFailure::kRetryable && attempt < kMaxWriteAttempts) {
        BackOff(attempt);
        continue;
      }
      if (failure == SqlFailure::kConnectionLost && attempt == 1 &&
          result.error().kind != ErrorKind::kCommitStateUnknown) {
        continue;  // nothing was applied: once more on a fresh connection
      }
      if (failure == SqlFailure::kRetryable) {
        return ServiceUnavailable("Metadata store is busy: {} conflicting attempts ({})",
                                  attempt, result.error().message);
      }
      return result;
    }
  }

  /// Runs `body(lease)` for reads; once more on a fresh connection if the first broke.
  template <class Body>
  auto Read(Body&& body) -> std::invoke_result_t<Body, Lease&> {
    for (int attempt = 1;; ++attempt) {
      CAIRN_ASSIGN_OR_RAISE(Lease conn, Acquire());
      auto result = body(conn);
      if (result || attempt > 1 || conn->LastFailure() != SqlFailure::kConnectionLost) {
        return result;
      }
    }
  }

  Status Ping() override {
    return Read([&](Lease& conn) -> Status {
      CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare("SELECT 1"));
      Query query(*conn, stmt);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("ping"));
      if (!row) return IOError("Metadata store ping returned no row");
      return Ok();
    });
  }

  Result<CatalogRecord> CreateCatalog(std::string_view name, std::string_view location,
                                      const Properties& properties) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Result<CatalogRecord> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* insert,
          conn->Prepare("INSERT INTO catalogs (name, location, created_at_ms) "
                        "VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING "
                        "RETURNING id"));
      CatalogRecord record{0, std::string(name), std::string(location), properties};
      {
        Query query(*conn, insert);
        query.Bind(name).Bind(location).Bind(NowMillis());
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("create catalog"));
        if (!row) return AlreadyExists("Catalog already exists: {}", name);
        record.id = query.Int(0);
      }
      CAIRN_ASSIGN_OR_RAISE(auto* prop,
                            conn->Prepare("INSERT INTO catalog_properties (catalog_id, "
                                          "key, value) VALUES (?, ?, ?)"));
      for (const auto& [key, value] : properties) {
        Query query(*conn, prop);
        CAIRN_RETURN_IF_ERROR(
            query.Bind(record.id).Bind(key).Bind(value).Run("set catalog property"));
      }
      CAIRN_RETURN_IF_ERROR(txn.Commit());
      return record;
    });
  }

  Result<CatalogRecord> GetCatalog(std::string_view name) override {
    // Every request resolves its catalog: one statement, the properties joined in.
    return Read([&](Lease& conn) -> Result<CatalogRecord> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare("SELECT c.id, c.location, p.key, p.value FROM catalogs c "
                        "LEFT JOIN catalog_properties p ON p.catalog_id = c.id "
                        "WHERE c.name = ?"));
      Query query(*conn, stmt);
      query.Bind(name);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load catalog"));
      if (!row) return NoSuchWarehouse("Warehouse does not exist: {}", name);
      CatalogRecord record{query.Int(0), std::string(name), query.Text(1), {}};
      for (; row;) {
        if (!query.IsNull(2)) record.properties.emplace(query.Text(2), query.Text(3));
        CAIRN_ASSIGN_OR_RAISE(row, query.Step("load catalog properties"));
      }
      return record;
    });
  }

  Status CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                         const Properties& properties) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Status {
      if (path.size() > 1) {
        NamespacePath parent(path.begin(), path.end() - 1);
        CAIRN_ASSIGN_OR_RAISE(auto parent_id,
                              LockNamespace(*conn, catalog_id, parent, false));
        if (!parent_id) {
          return NoSuchNamespace("Namespace does not exist: {}", DottedName(parent));
        }
      } else {
        CAIRN_ASSIGN_OR_RAISE(bool catalog_exists, LockCatalog(*conn, catalog_id, false));
        if (!catalog_exists)
          return NoSuchWarehouse("Catalog does not exist (id {})", catalog_id);
      }
      CAIRN_ASSIGN_OR_RAISE(
          auto* insert,
          conn->Prepare(
              "INSERT INTO namespaces (catalog_id, parent_path, name, created_at_ms) "
              "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id"));
      int64_t id = 0;
      {
        Query query(*conn, insert);
        query.Bind(catalog_id).Bind(ParentKey(path)).Bind(path.back()).Bind(NowMillis());
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("create namespace"));
        if (!row) return AlreadyExists("Namespace already exists: {}", DottedName(path));
        id = query.Int(0);
      }
      CAIRN_RETURN_IF_ERROR(WriteProperties(*conn, id, properties));
      return txn.Commit();
    });
  }

  Result<NamespaceRecord> LoadNamespace(int64_t catalog_id,
                                        const NamespacePath& path) override {
    return Read([&](Lease& conn) -> Result<NamespaceRecord> {
      CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
      if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
      CAIRN_ASSIGN_OR_RAISE(
          auto* props,
          conn->Prepare(
              "SELECT key, value FROM namespace_properties WHERE namespace_id = ?"));
      CAIRN_ASSIGN_OR_RAISE(auto properties, ReadProperties(*conn, props, *id));
      return NamespaceRecord{*id, path, std::move(properties)};
    });
  }

  Result<bool> NamespaceExists(int64_t catalog_id, const NamespacePath& path) override {
    return Read([&](Lease& conn) -> Result<bool> {
      CAIRN_ASSIGN_OR_RAISE(auto id, FindNamespaceId(*conn, catalog_id, path));
      return id.has_value();
    });
  }

  Result<NamePage> ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                  std::string_view after,
                                  std::optional<size_t> limit) override {
    return Read([&](Lease& conn) -> Result<NamePage> {
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
          conn->Prepare(
              "SELECT name FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
              "AND name > ? ORDER BY name LIMIT ?"));
      Query query(*conn, stmt);
      query.Bind(catalog_id).Bind(FullKey(parent)).Bind(after).Bind(FetchLimit(limit));
      return ReadNamePage(query, limit, "list namespaces");
    });
  }

  Status DropNamespace(int64_t catalog_id, const NamespacePath& path) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Status {
      CAIRN_ASSIGN_OR_RAISE(auto id, LockNamespace(*conn, catalog_id, path, true));
      if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
      CAIRN_ASSIGN_OR_RAISE(
          auto* children,
          conn->Prepare(
              "SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM namespaces WHERE "
              "catalog_id = ? AND parent_path = ? LIMIT 1) AS child), "
              "(SELECT COUNT(*) FROM (SELECT 1 FROM entities WHERE namespace_id = ? "
              "LIMIT 1) AS entity)"));
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
      CAIRN_ASSIGN_OR_RAISE(auto* del,
                            conn->Prepare("DELETE FROM namespaces WHERE id = ?"));
      {
        Query query(*conn, del);
        CAIRN_RETURN_IF_ERROR(query.Bind(*id).Run("drop namespace"));
      }
      return txn.Commit();
    });
  }

  Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals) override {
    return Write([&](Lease& conn,
                     WriteTransaction& txn) -> Result<PropertiesUpdateOutcome> {
      CAIRN_ASSIGN_OR_RAISE(auto id, LockNamespace(*conn, catalog_id, path, true));
      if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
      PropertiesUpdateOutcome outcome;
      CAIRN_ASSIGN_OR_RAISE(
          auto* del,
          conn->Prepare(
              "DELETE FROM namespace_properties WHERE namespace_id = ? AND key = ?"));
      for (const auto& key : removals) {
        Query query(*conn, del);
        CAIRN_RETURN_IF_ERROR(query.Bind(*id).Bind(key).Run("remove namespace property"));
        (query.Changes() > 0 ? outcome.removed : outcome.missing).push_back(key);
      }
      CAIRN_RETURN_IF_ERROR(WriteProperties(*conn, *id, updates));
      for (const auto& [key, value] : updates) outcome.updated.push_back(key);
      CAIRN_RETURN_IF_ERROR(txn.Commit());
      return outcome;
    });
  }

  Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                    std::string_view name, EntityKind kind,
                                    std::string_view metadata_location,
                                    std::string_view metadata,
                                    const LocationClaim& claim) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Result<EntityRecord> {
      CAIRN_ASSIGN_OR_RAISE(auto ns_id, LockNamespace(*conn, catalog_id, ns, false));
      if (!ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
      CAIRN_ASSIGN_OR_RAISE(auto existing, FindEntityKind(*conn, *ns_id, name));
      if (existing) {
        return AlreadyExists("Name {}.{} is already used by an {}", DottedName(ns), name,
                             EntityKindName(*existing));
      }
      CAIRN_ASSIGN_OR_RAISE(
          auto* insert,
          conn->Prepare(
              "INSERT INTO entities (namespace_id, name, kind, metadata_location, "
              "metadata, version, created_at_ms, updated_at_ms) "
              "VALUES (?, ?, ?, ?, ?, 0, ?, ?) RETURNING id"));
      const int64_t now = NowMillis();
      EntityRecord record{0,
                          kind,
                          ns,
                          std::string(name),
                          std::string(metadata_location),
                          std::string(metadata),
                          0};
      {
        Query query(*conn, insert);
        query.Bind(*ns_id)
            .Bind(name)
            .Bind(EntityKindName(kind))
            .Bind(metadata_location)
            .Bind(metadata)
            .Bind(now)
            .Bind(now);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("create entity"));
        if (!row) return IOError("Creating {}.{} returned no id", DottedName(ns), name);
        record.id = query.Int(0);
      }
      CAIRN_RETURN_IF_ERROR(ClaimLocations(*conn, record.id, catalog_id, claim));
      CAIRN_RETURN_IF_ERROR(txn.Commit());
      return record;
    });
  }

  Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    return Read([&](Lease& conn) -> Result<std::optional<EntityRecord>> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare("SELECT e.id, e.kind "
                        "FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
                        "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
                        "AND e.name = ?"));
      EntityRecord record;
      {
        Query query(*conn, stmt);
        query.Bind(catalog_id).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity"));
        if (!row) return std::optional<EntityRecord>{};
        CAIRN_ASSIGN_OR_RAISE(record.kind, ParseKind(query.Text(1)));
        record.id = query.Int(0);
      }
      record.ns = ns;
      record.name = std::string(name);
      CAIRN_ASSIGN_OR_RAISE(bool present, ReadMetadataConsistently(*conn, record));
      if (!present) return std::optional<EntityRecord>{};  // dropped meanwhile
      return std::optional<EntityRecord>(std::move(record));
    });
  }

  /// Steps a query that selects (id, kind, metadata_location) of at most one entity.
  static Result<std::optional<EntityPointer>> StepPointer(Query& query,
                                                          const char* what) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step(what));
    if (!row) return std::optional<EntityPointer>{};
    CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(1)));
    return std::optional<EntityPointer>(EntityPointer{query.Int(0), kind, query.Text(2)});
  }

  Result<std::optional<EntityPointer>> LoadEntityPointer(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override {
    // Only columns stored before `metadata`: SQLite reads a row's columns in order, so
    // naming a later one would walk the metadata's overflow pages.
    return ReadPointer(
        "SELECT e.id, e.kind, e.metadata_location "
        "FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
        "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
        "AND e.name = ?",
        catalog_id, ns, name, "load entity pointer");
  }

  Result<std::optional<EntityPointer>> FindEntityPointer(std::string_view catalog_name,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override {
    // As LoadEntityPointer, with the catalog joined in.
    return ReadPointer(
        "SELECT e.id, e.kind, e.metadata_location FROM catalogs c "
        "JOIN namespaces n ON n.catalog_id = c.id "
        "JOIN entities e ON e.namespace_id = n.id "
        "WHERE c.name = ? AND n.parent_path = ? AND n.name = ? "
        "AND e.name = ?",
        catalog_name, ns, name, "find entity pointer");
  }

  /// Runs a pointer query whose parameters are the catalog (id or name), the namespace's
  /// parent key and name, and the entity's name.
  template <class CatalogKey>
  Result<std::optional<EntityPointer>> ReadPointer(const char* sql, CatalogKey catalog,
                                                   const NamespacePath& ns,
                                                   std::string_view name,
                                                   const char* what) {
    return Read([&](Lease& conn) -> Result<std::optional<EntityPointer>> {
      CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn->Prepare(sql));
      Query query(*conn, stmt);
      query.Bind(catalog).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
      return StepPointer(query, what);
    });
  }

  Result<std::optional<EntityKind>> EntityKindOf(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override {
    return Read([&](Lease& conn) -> Result<std::optional<EntityKind>> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT e.kind FROM entities e JOIN namespaces n ON e.namespace_id = n.id "
              "WHERE n.catalog_id = ? AND n.parent_path = ? AND n.name = ? "
              "AND e.name = ?"));
      Query query(*conn, stmt);
      query.Bind(catalog_id).Bind(ParentKey(ns)).Bind(ns.back()).Bind(name);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find entity kind"));
      if (!row) return std::optional<EntityKind>{};
      CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(0)));
      return std::optional<EntityKind>(kind);
    });
  }

  Result<bool> SwapEntities(const std::vector<EntitySwap>& unordered) override {
    // Rows are updated in id order, so that two multi-table commits never wait for each
    // other's rows in opposite orders (a deadlock).
    std::vector<const EntitySwap*> swaps;
    for (const auto& swap : unordered) swaps.push_back(&swap);
    std::sort(swaps.begin(), swaps.end(),
              [](const auto* a, const auto* b) { return a->entity_id < b->entity_id; });
    int64_t session = 0;
    auto swapped = Write([&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
      session = conn->SessionId();
      CAIRN_ASSIGN_OR_RAISE(
          auto* update,
          conn->Prepare("UPDATE entities SET metadata_location = ?, metadata = ?, "
                        "version = version + 1, updated_at_ms = ? "
                        "WHERE id = ? AND metadata_location = ?"));
      const int64_t now = NowMillis();
      for (const auto* swap : swaps) {
        Query query(*conn, update);
        CAIRN_RETURN_IF_ERROR(query.Bind(swap->new_location)
                                  .Bind(swap->new_metadata)
                                  .Bind(now)
                                  .Bind(swap->entity_id)
                                  .Bind(swap->expected_location)
                                  .Run("swap entity metadata"));
        if (query.Changes() == 0) return false;  // the transaction rolls back
        CAIRN_RETURN_IF_ERROR(WriteParts(*conn, *swap));
        if (swap->claim) {
          CAIRN_ASSIGN_OR_RAISE(int64_t catalog_id, CatalogOfEntity(*conn, swap->entity_id));
          CAIRN_RETURN_IF_ERROR(
              ClaimLocations(*conn, swap->entity_id, catalog_id, *swap->claim));
        }
      }
      CAIRN_RETURN_IF_ERROR(txn.Commit());
      return true;
    });
    if (!swapped && swapped.error().kind == ErrorKind::kCommitStateUnknown) {
      return SwapOutcome(unordered, session, swapped.error());
    }
    return swapped;
  }

  /// Inside a swap's transaction, after its row was updated: stores the new version's
  /// lists of parts (keeping each list's shared leading parts when the store holds the
  /// current version as the caller believes), or drops an earlier version's parts when
  /// the new metadata is whole.
  static Status WriteParts(SqlConnection& conn, const EntitySwap& swap) {
    const int64_t id = swap.entity_id;
    const auto lists = static_cast<int64_t>(swap.parts.size());
    // Lists the new version does not have (all of them when it is whole).
    CAIRN_ASSIGN_OR_RAISE(
        auto* drop_lists,
        conn.Prepare("DELETE FROM split_entities WHERE entity_id = ? AND list >= ?"));
    {
      Query query(conn, drop_lists);
      CAIRN_RETURN_IF_ERROR(query.Bind(id).Bind(lists).Run("drop entity part lists"));
      if (query.Changes() > 0) {
        CAIRN_ASSIGN_OR_RAISE(
            auto* drop_parts,
            conn.Prepare("DELETE FROM entity_parts WHERE entity_id = ? AND list >= ?"));
        Query parts(conn, drop_parts);
        CAIRN_RETURN_IF_ERROR(parts.Bind(id).Bind(lists).Run("drop entity parts"));
      }
    }
    for (int64_t list = 0; list < lists; ++list) {
      CAIRN_RETURN_IF_ERROR(WritePartList(conn, id, list, swap.parts[list]));
    }
    return Ok();
  }

  static Status WritePartList(SqlConnection& conn, int64_t id, int64_t list,
                              const MetadataParts& parts) {
    size_t keep = 0;
    if (parts.shared > 0) {
      CAIRN_ASSIGN_OR_RAISE(auto* count,
                            conn.Prepare("SELECT part_count FROM split_entities "
                                         "WHERE entity_id = ? AND list = ?"));
      Query query(conn, count);
      query.Bind(id).Bind(list);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("count entity parts"));
      if (row && query.Int(0) == static_cast<int64_t>(parts.current_count)) {
        keep = std::min(parts.shared, parts.parts.size());
      }
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* del, conn.Prepare("DELETE FROM entity_parts "
                                "WHERE entity_id = ? AND list = ? AND position >= ?"));
    {
      Query query(conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(id)
                                .Bind(list)
                                .Bind(static_cast<int64_t>(keep))
                                .Run("drop entity parts"));
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO entity_parts (entity_id, list, position, body) "
                     "VALUES (?, ?, ?, ?)"));
    for (size_t i = keep; i < parts.parts.size(); ++i) {
      Query query(conn, insert);
      CAIRN_RETURN_IF_ERROR(query.Bind(id)
                                .Bind(list)
                                .Bind(static_cast<int64_t>(i))
                                .Bind(parts.parts[i])
                                .Run("store entity part"));
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* layout,
        conn.Prepare("INSERT INTO split_entities (entity_id, list, parts_at, part_count) "
                     "VALUES (?, ?, ?, ?) ON CONFLICT (entity_id, list) DO UPDATE SET "
                     "parts_at = excluded.parts_at, part_count = excluded.part_count"));
    Query query(conn, layout);
    return query.Bind(id)
        .Bind(list)
        .Bind(static_cast<int64_t>(parts.insert_at))
        .Bind(static_cast<int64_t>(parts.parts.size()))
        .Run("store entity layout");
  }

  /// Fills the location, version and whole metadata of `record` (whose id and kind are
  /// set): the head with its parts put in, when stored split; false when the entity is
  /// gone. Head and parts are separate
  /// rows: a swap landing between reading one and the other shows as a new version,
  /// and the read starts over.
  static Result<bool> ReadMetadata(SqlConnection& conn, EntityRecord& record) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* row_stmt,
        conn.Prepare(
            "SELECT metadata_location, metadata, version FROM entities WHERE id = ?"));
    CAIRN_ASSIGN_OR_RAISE(auto* layout_stmt,
                          conn.Prepare("SELECT list, parts_at FROM split_entities "
                                       "WHERE entity_id = ? ORDER BY list"));
    CAIRN_ASSIGN_OR_RAISE(auto* parts_stmt,
                          conn.Prepare("SELECT list, body FROM entity_parts "
                                       "WHERE entity_id = ? ORDER BY list, position"));
    CAIRN_ASSIGN_OR_RAISE(auto* version_stmt,
                          conn.Prepare("SELECT version FROM entities WHERE id = ?"));
    constexpr int kMaxReads = 16;
    for (int read = 0; read < kMaxReads; ++read) {
      {
        Query query(conn, row_stmt);
        query.Bind(record.id);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity metadata"));
        if (!row) return false;
        record.metadata_location = query.Text(0);
        record.metadata = query.TakeText(1);
        record.version = query.Int(2);
      }
      // Only Iceberg tables are stored split (MetadataParts): the rest is whole.
      if (record.kind != EntityKind::kIcebergTable) return true;
      // nullopt: stored whole. An error here may only mean that the layout read belongs
      // to a newer version than the head: the version check below tells.
      Result<std::optional<std::string>> whole = std::optional<std::string>{};
      {
        Query layout(conn, layout_stmt);
        layout.Bind(record.id);
        std::vector<std::pair<int64_t, int64_t>> lists;  // (list, parts_at)
        for (;;) {
          CAIRN_ASSIGN_OR_RAISE(bool row, layout.Step("load entity layout"));
          if (!row) break;
          lists.emplace_back(layout.Int(0), layout.Int(1));
        }
        if (!lists.empty()) {
          Query parts(conn, parts_stmt);
          parts.Bind(record.id);
          auto joined = JoinParts(record.metadata, lists, parts);
          if (joined) {
            whole = std::optional<std::string>(std::move(*joined));
          } else {
            whole = tl::unexpected(joined.error());
          }
        }
      }
      Query again(conn, version_stmt);
      again.Bind(record.id);
      CAIRN_ASSIGN_OR_RAISE(bool row, again.Step("check entity version"));
      if (!row) return false;
      if (again.Int(0) != record.version) continue;
      if (!whole) return tl::unexpected(whole.error());  // consistent, yet unreadable
      if (*whole) record.metadata = std::move(**whole);
      return true;
    }
    return ServiceUnavailable("The metadata of entity {} kept changing while being read",
                              record.id);
  }

  /// ReadMetadata, and when swaps kept landing between its reads (a table committed to
  /// without pause), once more in a transaction that holds them off for that one read,
  /// so that no load is starved by a busy writer. Outside a transaction only.
  static Result<bool> ReadMetadataConsistently(SqlConnection& conn, EntityRecord& record) {
    auto read = ReadMetadata(conn, record);
    if (read || read.error().kind != ErrorKind::kServiceUnavailable) return read;
    CAIRN_RETURN_IF_ERROR(conn.Begin());
    auto locked = [&]() -> Result<bool> {
      CAIRN_ASSIGN_OR_RAISE(bool exists, conn.LockRow("entities", record.id, false));
      if (!exists) return false;
      return ReadMetadata(conn, record);
    }();
    conn.Rollback();
    return locked;
  }

  /// The head with each list's parts (rows of `parts`: list, body), joined by `,`, put in
  /// at the list's offset.
  static Result<std::string> JoinParts(
      const std::string& head, const std::vector<std::pair<int64_t, int64_t>>& lists,
      Query& parts) {
    std::vector<std::pair<int64_t, std::string>> bodies;
    size_t total = head.size();
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, parts.Step("load entity parts"));
      if (!row) break;
      bodies.emplace_back(parts.Int(0), parts.TakeText(1));
      total += bodies.back().second.size() + 1;
    }
    std::string whole;
    whole.reserve(total);
    size_t copied = 0;  // of the head
    size_t next = 0;    // in bodies
    for (const auto& [list, at] : lists) {
      if (at < static_cast<int64_t>(copied) || static_cast<size_t>(at) > head.size()) {
        return Internal("Stored metadata splits at {}, outside its {} bytes", at,
                        head.size());
      }
      whole.append(head, copied, static_cast<size_t>(at) - copied);
      copied = static_cast<size_t>(at);
      while (next < bodies.size() && bodies[next].first < list) ++next;  // never written
      for (bool first = true; next < bodies.size() && bodies[next].first == list;
           ++next) {
        if (!first) whole.push_back(',');
        first = false;
        whole.append(bodies[next].second);
      }
    }
    whole.append(head, copied);
    return whole;
  }

  /// Whether swaps whose COMMIT lost its answer took effect: once the session that sent
  /// it has ended, the pointers are either all new (applied) or all expected (not
  /// applied); anything else (a later commit moved on, or the store is unreachable) stays
  /// `unknown`.
  Result<bool> SwapOutcome(const std::vector<EntitySwap>& swaps, int64_t session,
                           const Error& unknown) {
    auto outcome = Read([&](Lease& conn) -> Result<bool> {
      CAIRN_RETURN_IF_ERROR(conn->AwaitSessionEnd(session));
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare("SELECT metadata_location FROM entities WHERE id = ?"));
      size_t applied = 0;
      size_t not_applied = 0;
      for (const auto& swap : swaps) {
        Query query(*conn, stmt);
        query.Bind(swap.entity_id);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read back swapped entity"));
        const std::string location = row ? query.Text(0) : std::string();
        if (location == swap.new_location) ++applied;
        if (row && location == swap.expected_location) ++not_applied;
      }
      if (applied == swaps.size()) return true;
      if (not_applied == swaps.size()) return false;
      return tl::unexpected(unknown);
    });
    if (!outcome) return tl::unexpected(unknown);
    return outcome;
  }

  Result<bool> DropEntity(int64_t catalog_id, const NamespacePath& ns,
                          std::string_view name, EntityKind kind) override {
    // A transaction even for one statement: an Idempotency-Key commits with the effect.
    return Write([&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* del,
          conn->Prepare(
              "DELETE FROM entities WHERE kind = ? AND name = ? AND namespace_id = "
              "(SELECT id FROM namespaces WHERE catalog_id = ? AND parent_path = ? "
              "AND name = ?)"));
      bool dropped = false;
      {
        Query query(*conn, del);
        CAIRN_RETURN_IF_ERROR(query.Bind(EntityKindName(kind))
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
    });
  }

  Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                      std::string_view from_name, const NamespacePath& to_ns,
                      std::string_view to_name, EntityKind kind) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Status {
      CAIRN_ASSIGN_OR_RAISE(auto from_ns_id, FindNamespaceId(*conn, catalog_id, from_ns));
      std::optional<EntityKind> source_kind;
      if (from_ns_id) {
        CAIRN_ASSIGN_OR_RAISE(source_kind, FindEntityKind(*conn, *from_ns_id, from_name));
      }
      if (!source_kind || *source_kind != kind) {
        return NoSuchTable("{} does not exist: {}.{}", EntityKindName(kind),
                           DottedName(from_ns), from_name);
      }
      CAIRN_ASSIGN_OR_RAISE(auto to_ns_id,
                            LockNamespace(*conn, catalog_id, to_ns, false));
      if (!to_ns_id)
        return NoSuchNamespace("Namespace does not exist: {}", DottedName(to_ns));
      CAIRN_ASSIGN_OR_RAISE(auto target_kind, FindEntityKind(*conn, *to_ns_id, to_name));
      if (target_kind) {
        return AlreadyExists("Name {}.{} is already used by an {}", DottedName(to_ns),
                             to_name, EntityKindName(*target_kind));
      }
      CAIRN_ASSIGN_OR_RAISE(
          auto* update,
          conn->Prepare(
              "UPDATE entities SET namespace_id = ?, name = ?, updated_at_ms = ? "
              "WHERE namespace_id = ? AND name = ?"));
      {
        Query query(*conn, update);
        CAIRN_RETURN_IF_ERROR(query.Bind(*to_ns_id)
                                  .Bind(to_name)
                                  .Bind(NowMillis())
                                  .Bind(*from_ns_id)
                                  .Bind(from_name)
                                  .Run("rename entity"));
        if (query.Changes() == 0) {  // dropped meanwhile
          return NoSuchTable("{} does not exist: {}.{}", EntityKindName(kind),
                             DottedName(from_ns), from_name);
        }
      }
      return txn.Commit();
    });
  }

  Result<bool> LocationInUse(std::string_view location,
                             int64_t except_entity_id) override {
    return Read([&](Lease& conn) -> Result<bool> {
      // An index range: the location itself, or anything below it ('0' follows '/').
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT 1 FROM entities WHERE id != ? AND (metadata_location = ? OR "
              "(metadata_location > ? AND metadata_location < ?)) LIMIT 1"));
      Query query(*conn, stmt);
      const std::string dir(location);
      query.Bind(except_entity_id).Bind(dir).Bind(dir + "/").Bind(dir + "0");
      CAIRN_ASSIGN_OR_RAISE(bool pointed_at, query.Step("check location use"));
      if (pointed_at) return true;
      // Or a location another entity claims at, above or below it.
      CAIRN_ASSIGN_OR_RAISE(auto overlap, FindOverlap(*conn, except_entity_id, 0, dir,
                                                      /*overlap_in_catalog=*/false));
      return overlap.has_value();
    });
  }

  Result<std::vector<UnclaimedEntity>> ListUnclaimedEntities(int64_t after_id,
                                                             size_t limit) override {
    return Read([&](Lease& conn) -> Result<std::vector<UnclaimedEntity>> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare("SELECT e.id, c.name, e.kind, e.metadata_location, "
                        "e.metadata FROM entities e JOIN namespaces n "
                        "ON n.id = e.namespace_id JOIN catalogs c ON c.id = n.catalog_id "
                        "WHERE e.id > ? AND NOT EXISTS "
                        "(SELECT 1 FROM entity_locations l WHERE l.entity_id = e.id) "
                        "ORDER BY e.id LIMIT ?"));
      Query query(*conn, stmt);
      query.Bind(after_id).Bind(static_cast<int64_t>(limit));
      std::vector<UnclaimedEntity> out;
      for (;;) {
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list unclaimed entities"));
        if (!row) break;
        CAIRN_ASSIGN_OR_RAISE(auto kind, ParseKind(query.Text(2)));
        out.push_back(UnclaimedEntity{query.Int(0), query.Text(1), kind, query.Text(3),
                                      query.TakeText(4)});
      }
      return out;
    });
  }

  Status RecordLegacyClaim(int64_t entity_id, const LocationClaim& claim) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Status {
      CAIRN_ASSIGN_OR_RAISE(
          auto* check,
          conn->Prepare("SELECT n.catalog_id, (SELECT COUNT(*) FROM entity_locations l "
                        "WHERE l.entity_id = e.id) FROM entities e JOIN namespaces n "
                        "ON n.id = e.namespace_id WHERE e.id = ?"));
      Query query(*conn, check);
      query.Bind(entity_id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check an entity's claim"));
      if (!row || query.Int(1) != 0) return Ok();
      CAIRN_RETURN_IF_ERROR(
          ClaimLocations(*conn, entity_id, query.Int(0), claim, /*check_overlap=*/false));
      return txn.Commit();
    });
  }

  Result<std::optional<StoredResponse>> ClaimIdempotencyKey(
      const IdempotencyScope& scope, int64_t lease_until_ms) override {
    // Read first: a key that is answered or held by a live request is returned without
    // writing, so that duplicates of a running request never wait for the write lock
    // (SQLite) or a row lock, and cost one indexed read.
    auto held = Read([&](Lease& conn) -> Result<std::optional<StoredResponse>> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT fingerprint, status, content_type, body, etag, CASE WHEN "
              "idempotency_keys.expires_at_ms <= ? OR "
              "(idempotency_keys.status IS NULL AND idempotency_keys.applied = 0 AND "
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
      if (!row || query.Int(5) == 1) return std::optional<StoredResponse>{};
      StoredResponse stored{query.Text(0), std::nullopt, query.Text(2), query.Text(3),
                            query.Text(4)};
      if (!query.IsNull(1)) stored.status = static_cast<int>(query.Int(1));
      return std::optional<StoredResponse>(std::move(stored));
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
              "status = NULL, content_type = NULL, body = NULL, etag = NULL, "
              "created_at_ms = excluded.created_at_ms, expires_at_ms = "
              "excluded.expires_at_ms "
              "WHERE idempotency_keys.expires_at_ms <= excluded.created_at_ms OR "
              "(idempotency_keys.status IS NULL AND idempotency_keys.applied = 0 AND "
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
    if (*claimed) return std::optional<StoredResponse>{};
    CAIRN_ASSIGN_OR_RAISE(auto existing,
                          LoadIdempotentResponse(scope.key, scope.created_ms));
    if (!existing) {
      // Expired between the two statements: report "in progress" so the caller retries.
      return std::optional<StoredResponse>(
          StoredResponse{scope.fingerprint, {}, {}, {}, {}});
    }
    return existing;
  }

  Status BeatInstance(std::string_view instance, int64_t now_ms,
                      int64_t forget_before_ms) override {
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

  Status RemoveInstance(std::string_view instance) override {
    return Read([&](Lease& conn) -> Status {
      CAIRN_ASSIGN_OR_RAISE(
          auto* remove, conn->Prepare("DELETE FROM server_instances WHERE id = ?"));
      Query query(*conn, remove);
      return query.Bind(instance).Run("remove instance");
    });
  }

  Result<std::optional<StoredResponse>> LoadIdempotentResponse(std::string_view key,
                                                               int64_t now_ms) override {
    return Read([&](Lease& conn) -> Result<std::optional<StoredResponse>> {
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
    });
  }

  Status SaveIdempotentResponse(const IdempotencyScope& scope,
                                const StoredResponse& response) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Status {
      // A claim taken over meanwhile keeps the other request's answer.
      CAIRN_ASSIGN_OR_RAISE(bool held,
                            StoreAnswer(*conn, scope, response, /*applied=*/false));
      (void)held;
      return txn.Commit();
    });
  }

  Status ReleaseIdempotencyKey(const IdempotencyScope& scope) override {
    return Read([&](Lease& conn) -> Status {
      CAIRN_ASSIGN_OR_RAISE(auto* release,
                            conn->Prepare("DELETE FROM idempotency_keys WHERE key = ? "
                                          "AND owner = ? AND applied = 0"));
      Query query(*conn, release);
      return query.Bind(scope.key).Bind(scope.owner).Run("release idempotency key");
    });
  }

  Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                EntityKind kind, std::string_view after,
                                std::optional<size_t> limit) override {
    return Read([&](Lease& conn) -> Result<NamePage> {
      CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
      if (!ns_id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(ns));
      // Keyset pagination on the (namespace_id, kind, name) index, as for namespaces.
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare("SELECT name FROM entities WHERE namespace_id = ? AND kind = ? "
                        "AND name > ? ORDER BY name LIMIT ?"));
      Query query(*conn, stmt);
      query.Bind(*ns_id).Bind(EntityKindName(kind)).Bind(after).Bind(FetchLimit(limit));
      return ReadNamePage(query, limit, "list entities");
    });
  }

  Result<NamePage> ListCatalogs(std::string_view after,
                                std::optional<size_t> limit) override {
    return Read([&](Lease& conn) -> Result<NamePage> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT name FROM catalogs WHERE name > ? ORDER BY name LIMIT ?"));
      Query query(*conn, stmt);
      query.Bind(after).Bind(FetchLimit(limit));
      return ReadNamePage(query, limit, "list catalogs");
    });
  }

  Result<std::vector<EntityRecord>> DropCatalog(int64_t catalog_id, bool cascade,
                                                const DropPlanner& planner) override {
    return Write([&](Lease& conn,
                     WriteTransaction& txn) -> Result<std::vector<EntityRecord>> {
      CAIRN_ASSIGN_OR_RAISE(bool locked, LockCatalog(*conn, catalog_id, true));
      if (!locked) return NoSuchWarehouse("Catalog does not exist (id {})", catalog_id);
      CAIRN_ASSIGN_OR_RAISE(auto* exists,
                            conn->Prepare("SELECT 1 FROM catalogs WHERE id = ?"));
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
      CAIRN_ASSIGN_OR_RAISE(auto* del,
                            conn->Prepare("DELETE FROM catalogs WHERE id = ?"));
      {
        Query query(*conn, del);
        CAIRN_RETURN_IF_ERROR(query.Bind(catalog_id).Run("drop catalog"));
      }
      CAIRN_RETURN_IF_ERROR(txn.Commit());
      return dropped;
    });
  }

  Result<std::vector<EntityRecord>> DropNamespaceTree(
      int64_t catalog_id, const NamespacePath& path,
      const DropPlanner& planner) override {
    return Write([&](Lease& conn,
                     WriteTransaction& txn) -> Result<std::vector<EntityRecord>> {
      // Creators lock every ancestor of what they create, so once this lock is held no
      // namespace or entity appears below `path` until the drop ends.
      CAIRN_ASSIGN_OR_RAISE(auto id, LockNamespace(*conn, catalog_id, path, true));
      if (!id) return NoSuchNamespace("Namespace does not exist: {}", DottedName(path));
      // The namespace itself, then every descendant: their parent paths are the full key
      // or start with it and the separator, i.e. lie in [key 0x1F, key 0x20).
      const std::string key = FullKey(path);
      std::vector<NamespaceRow> namespaces = {NamespaceRow{*id, path}};
      CAIRN_ASSIGN_OR_RAISE(
          auto* below,
          conn->Prepare(
              "SELECT id, parent_path, name FROM namespaces WHERE catalog_id = ? AND "
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
    });
  }

  Result<std::optional<EntityRecord>> DropEntityWithRecord(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const DropPlanner& planner) override {
    return Write(
        [&](Lease& conn, WriteTransaction& txn) -> Result<std::optional<EntityRecord>> {
          CAIRN_ASSIGN_OR_RAISE(auto ns_id, FindNamespaceId(*conn, catalog_id, ns));
          if (!ns_id) return std::optional<EntityRecord>{};
          CAIRN_ASSIGN_OR_RAISE(
              auto* stmt,
              conn->Prepare(
                  "SELECT id, kind FROM entities WHERE namespace_id = ? AND name = ?"));
          EntityRecord record;
          {
            Query query(*conn, stmt);
            query.Bind(*ns_id).Bind(name);
            CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity"));
            if (!row) return std::optional<EntityRecord>{};
            CAIRN_ASSIGN_OR_RAISE(EntityKind found, ParseKind(query.Text(1)));
            if (found != kind) return std::optional<EntityRecord>{};
            record.id = query.Int(0);
            record.kind = kind;
          }
          record.ns = ns;
          record.name = std::string(name);
          CAIRN_ASSIGN_OR_RAISE(bool present, ReadMetadata(*conn, record));
          if (!present) return std::optional<EntityRecord>{};
          CAIRN_ASSIGN_OR_RAISE(auto plan, planner({record}));
          if (plan) CAIRN_RETURN_IF_ERROR(InsertTransaction(*conn, *plan));
          CAIRN_ASSIGN_OR_RAISE(auto* del,
                                conn->Prepare("DELETE FROM entities WHERE id = ?"));
          {
            Query query(*conn, del);
            CAIRN_RETURN_IF_ERROR(query.Bind(record.id).Run("drop entity"));
            if (query.Changes() == 0)
              return std::optional<EntityRecord>{};  // dropped meanwhile
          }
          CAIRN_RETURN_IF_ERROR(txn.Commit());
          return std::optional<EntityRecord>(std::move(record));
        });
  }

  Result<EntityPage> ListAllEntities(EntityKind kind, int64_t after_id,
                                     std::optional<size_t> limit) override {
    return Read([&](Lease& conn) -> Result<EntityPage> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT e.id, c.name, n.parent_path, n.name, e.name FROM entities e "
              "JOIN namespaces n ON e.namespace_id = n.id "
              "JOIN catalogs c ON n.catalog_id = c.id "
              "WHERE e.id > ? AND e.kind = ? ORDER BY e.id LIMIT ?"));
      Query query(*conn, stmt);
      query.Bind(after_id).Bind(EntityKindName(kind)).Bind(FetchLimit(limit));
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
        page.entities.push_back(
            EntityRef{query.Int(0), query.Text(1), std::move(ns), query.Text(4)});
      }
      return page;
    });
  }

  Status CreateTransaction(const TransactionRecord& record) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Status {
      CAIRN_RETURN_IF_ERROR(InsertTransaction(*conn, record));
      return txn.Commit();
    });
  }

  Result<std::optional<TransactionRecord>> LoadTransaction(std::string_view id) override {
    return Read([&](Lease& conn) -> Result<std::optional<TransactionRecord>> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT id, status, payload, version, created_at_ms, updated_at_ms "
              "FROM lance_transactions WHERE id = ?"));
      TransactionRecord record;
      {
        Query query(*conn, stmt);
        query.Bind(id);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load transaction"));
        if (!row) return std::optional<TransactionRecord>{};
        record = ReadTransactionRow(query);
      }
      CAIRN_ASSIGN_OR_RAISE(record.properties,
                            ReadTransactionProperties(*conn, record.id));
      return std::optional<TransactionRecord>(std::move(record));
    });
  }

  Result<bool> UpdateTransaction(const TransactionRecord& updated,
                                 int64_t expected_version) override {
    return Write([&](Lease& conn, WriteTransaction& txn) -> Result<bool> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* update,
          conn->Prepare(
              "UPDATE lance_transactions SET status = ?, payload = ?, "
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
          conn->Prepare(
              "DELETE FROM lance_transaction_properties WHERE transaction_id = ?"));
      {
        Query query(*conn, clear);
        CAIRN_RETURN_IF_ERROR(query.Bind(updated.id).Run("clear transaction properties"));
      }
      CAIRN_RETURN_IF_ERROR(WriteTransactionProperties(*conn, updated));
      CAIRN_RETURN_IF_ERROR(txn.Commit());
      return true;
    });
  }

  Result<std::vector<TransactionRecord>> ListTransactions(
      const std::vector<std::string>& statuses) override {
    return Read([&](Lease& conn) -> Result<std::vector<TransactionRecord>> {
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare(
              "SELECT id, status, payload, version, created_at_ms, updated_at_ms "
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
        CAIRN_ASSIGN_OR_RAISE(record.properties,
                              ReadTransactionProperties(*conn, record.id));
      }
      std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
        return a.created_at_ms < b.created_at_ms;
      });
      return records;
    });
  }

  Result<bool> DeleteTransaction(std::string_view id) override {
    return Read([&](Lease& conn) -> Result<bool> {
      CAIRN_ASSIGN_OR_RAISE(auto* del,
                            conn->Prepare("DELETE FROM lance_transactions WHERE id = ?"));
      Query query(*conn, del);
      CAIRN_RETURN_IF_ERROR(query.Bind(id).Run("delete transaction"));
      return query.Changes() > 0;
    });
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
      SqlConnection& conn, const std::vector<NamespaceRow>& namespaces,
      const DropPlanner& planner) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* entities,
        conn.Prepare(
            "SELECT id, kind, name FROM entities WHERE namespace_id = ? ORDER BY name"));
    std::vector<EntityRecord> dropped;
    for (const auto& ns : namespaces) {
      Query query(conn, entities);
      query.Bind(ns.id);
      for (;;) {
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list entities to drop"));
        if (!row) break;
        EntityRecord record;
        CAIRN_ASSIGN_OR_RAISE(record.kind, ParseKind(query.Text(1)));
        record.id = query.Int(0);
        record.ns = ns.path;
        record.name = query.Text(2);
        dropped.push_back(std::move(record));
      }
    }
    for (auto& record : dropped) CAIRN_RETURN_IF_ERROR(ReadMetadata(conn, record));
    if (planner) {
      CAIRN_ASSIGN_OR_RAISE(auto plan, planner(dropped));
      if (plan) CAIRN_RETURN_IF_ERROR(InsertTransaction(conn, *plan));
    }
    CAIRN_ASSIGN_OR_RAISE(auto* del_entities,
                          conn.Prepare("DELETE FROM entities WHERE namespace_id = ?"));
    CAIRN_ASSIGN_OR_RAISE(auto* del_namespace,
                          conn.Prepare("DELETE FROM namespaces WHERE id = ?"));
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

  static Result<Properties> ReadTransactionProperties(SqlConnection& conn,
                                                      std::string_view id) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt, conn.Prepare("SELECT key, value FROM lance_transaction_properties "
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

  static Status WriteTransactionProperties(SqlConnection& conn,
                                           const TransactionRecord& record) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare(
            "INSERT INTO lance_transaction_properties (transaction_id, key, value) "
            "VALUES (?, ?, ?)"));
    for (const auto& [key, value] : record.properties) {
      Query query(conn, insert);
      CAIRN_RETURN_IF_ERROR(
          query.Bind(record.id).Bind(key).Bind(value).Run("set transaction property"));
    }
    return Ok();
  }

  /// Inside a write transaction: inserts `record` with version 0.
  static Status InsertTransaction(SqlConnection& conn, const TransactionRecord& record) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO lance_transactions (id, status, payload, version, "
                     "created_at_ms, updated_at_ms) VALUES (?, ?, ?, 0, ?, ?) "
                     "ON CONFLICT (id) DO NOTHING"));
    {
      Query query(conn, insert);
      const int64_t now = NowMillis();
      CAIRN_RETURN_IF_ERROR(
          query.Bind(record.id)
              .Bind(record.status)
              .Bind(record.payload)
              .Bind(record.created_at_ms != 0 ? record.created_at_ms : now)
              .Bind(now)
              .Run("create transaction"));
      if (query.Changes() == 0)
        return AlreadyExists("Transaction already exists: {}", record.id);
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
    for (auto kind :
         {EntityKind::kIcebergTable, EntityKind::kIcebergView, EntityKind::kLanceTable}) {
      if (EntityKindName(kind) == text) return kind;
    }
    return Internal("Unknown entity kind '{}' in the metadata store", text);
  }

  /// The kind of the entity named `name` in namespace `ns_id`; nullopt when none.
  static Result<std::optional<EntityKind>> FindEntityKind(SqlConnection& conn,
                                                          int64_t ns_id,
                                                          std::string_view name) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn.Prepare("SELECT kind FROM entities WHERE namespace_id = ? AND name = ?"));
    Query query(conn, stmt);
    query.Bind(ns_id).Bind(name);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find entity"));
    if (!row) return std::optional<EntityKind>{};
    CAIRN_ASSIGN_OR_RAISE(EntityKind kind, ParseKind(query.Text(0)));
    return std::optional<EntityKind>(kind);
  }

  /// Looks up the id of a namespace; nullopt when absent.
  static Result<std::optional<int64_t>> FindNamespaceId(SqlConnection& conn,
                                                        int64_t catalog_id,
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

  static Result<Properties> ReadProperties(SqlConnection& conn, SqlStatement* stmt,
                                           int64_t id) {
    Query query(conn, stmt);
    query.Bind(id);
    Properties properties;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read properties"));
      if (!row) return properties;
      properties.emplace(query.Text(0), query.Text(1));
    }
  }

  static Status WriteProperties(SqlConnection& conn, int64_t namespace_id,
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

  /// A location another entity claimed that overlaps `location`, with that entity's
  /// catalog; nullopt when none does. Entities of catalog `catalog_id` are passed over
  /// when `overlap_in_catalog`.
  struct ClaimedLocation {
    int64_t catalog_id = 0;
    std::string location;
  };
  static Result<std::optional<ClaimedLocation>> FindOverlap(SqlConnection& conn,
                                                            int64_t entity_id,
                                                            int64_t catalog_id,
                                                            const std::string& location,
                                                            bool overlap_in_catalog) {
    // The location itself and everything below it are one index range ('0' follows '/');
    // each ancestor is one point read. Both grow with the location's depth only.
    CAIRN_ASSIGN_OR_RAISE(
        auto* below,
        conn.Prepare("SELECT catalog_id, location FROM entity_locations "
                     "WHERE entity_id != ? AND (location = ? OR (location >= ? AND "
                     "location < ?)) AND NOT (? = 1 AND catalog_id = ?) LIMIT 1"));
    CAIRN_ASSIGN_OR_RAISE(
        auto* at, conn.Prepare("SELECT catalog_id, location FROM entity_locations "
                               "WHERE location = ? AND entity_id != ? "
                               "AND NOT (? = 1 AND catalog_id = ?) LIMIT 1"));
    const std::string prefix = DescendantPrefix(location);
    std::string upper = prefix;
    upper.back() = static_cast<char>(upper.back() + 1);
    const int64_t skip_catalog = overlap_in_catalog ? 1 : 0;
    {
      Query query(conn, below);
      query.Bind(entity_id).Bind(location).Bind(prefix).Bind(upper).Bind(skip_catalog).Bind(
          catalog_id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check locations below"));
      if (row) return std::optional<ClaimedLocation>({query.Int(0), query.Text(1)});
    }
    for (const auto& ancestor : LocationAncestors(location)) {
      Query query(conn, at);
      query.Bind(ancestor).Bind(entity_id).Bind(skip_catalog).Bind(catalog_id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check locations above"));
      if (row) return std::optional<ClaimedLocation>({query.Int(0), query.Text(1)});
    }
    return std::optional<ClaimedLocation>{};
  }

  /// Inside a write transaction: replaces the locations entity `entity_id` (of catalog
  /// `catalog_id`) claims by `claim`, after checking — unless told not to, for the claims
  /// of entities that exist already — that no other entity's overlap them.
  static Status ClaimLocations(SqlConnection& conn, int64_t entity_id, int64_t catalog_id,
                               const LocationClaim& claim, bool check_overlap = true) {
    if (!conn.SerializesWriters()) {
      // Overlap is no single row to lock: concurrent claims queue on one advisory lock
      // until their transactions end. Only creates and location changes take it.
      CAIRN_RETURN_IF_ERROR(conn.ExecScript("SELECT pg_advisory_xact_lock(7143924019)",
                                            "lock entity locations"));
    }
    CAIRN_ASSIGN_OR_RAISE(
        auto* clear, conn.Prepare("DELETE FROM entity_locations WHERE entity_id = ?"));
    CAIRN_RETURN_IF_ERROR(Query(conn, clear).Bind(entity_id).Run("clear entity locations"));
    CAIRN_ASSIGN_OR_RAISE(
        auto* insert,
        conn.Prepare("INSERT INTO entity_locations (entity_id, catalog_id, location) "
                     "VALUES (?, ?, ?)"));
    for (const auto& location : claim.locations) {
      std::optional<ClaimedLocation> overlap;
      if (check_overlap) {
        CAIRN_ASSIGN_OR_RAISE(overlap, FindOverlap(conn, entity_id, catalog_id, location,
                                                   claim.overlap_in_catalog));
      }
      if (overlap) {
        if (overlap->catalog_id == catalog_id) {
          return BadRequest(
              "Location {} overlaps location {} of another table, view or Lance table",
              ShortLocation(location), ShortLocation(overlap->location));
        }
        return BadRequest(
            "Location {} overlaps the location of a table, view or Lance table of "
            "another catalog",
            ShortLocation(location));
      }
      CAIRN_RETURN_IF_ERROR(Query(conn, insert)
                                .Bind(entity_id)
                                .Bind(catalog_id)
                                .Bind(location)
                                .Run("claim entity location"));
    }
    return Ok();
  }

  static Result<int64_t> CatalogOfEntity(SqlConnection& conn, int64_t entity_id) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn.Prepare("SELECT n.catalog_id FROM entities e JOIN namespaces n "
                     "ON n.id = e.namespace_id WHERE e.id = ?"));
    Query query(conn, stmt);
    query.Bind(entity_id);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find the catalog of an entity"));
    if (!row) return Internal("Entity {} has no namespace", entity_id);
    return query.Int(0);
  }

  /// Where writers do not exclude each other: locks the catalog row until the transaction
  /// ends (shared by creators, exclusive by the catalog's drop). False when it is gone.
  static Result<bool> LockCatalog(SqlConnection& conn, int64_t catalog_id,
                                  bool exclusive) {
    if (conn.SerializesWriters()) return true;
    return conn.LockRow("catalogs", catalog_id, exclusive);
  }

  /// Finds namespace `path` (non-empty). Where writers do not exclude each other, also
  /// locks its catalog and every level of it, outermost first — shared, and the last
  /// level exclusive when asked — so that no concurrent drop removes any of them before
  /// this transaction ends, and a drop holding one of them waits for this creation first.
  /// nullopt when any level is missing.
  static Result<std::optional<int64_t>> LockNamespace(SqlConnection& conn,
                                                      int64_t catalog_id,
                                                      const NamespacePath& path,
                                                      bool exclusive) {
    if (conn.SerializesWriters()) return FindNamespaceId(conn, catalog_id, path);
    CAIRN_ASSIGN_OR_RAISE(bool catalog_exists, LockCatalog(conn, catalog_id, false));
    if (!catalog_exists) return std::optional<int64_t>{};
    std::optional<int64_t> id;
    for (size_t depth = 1; depth <= path.size(); ++depth) {
      const NamespacePath level(path.begin(),
                                path.begin() + static_cast<ptrdiff_t>(depth));
      CAIRN_ASSIGN_OR_RAISE(id, FindNamespaceId(conn, catalog_id, level));
      if (!id) return id;
      CAIRN_ASSIGN_OR_RAISE(
          bool still_there,
          conn.LockRow("namespaces", *id, exclusive && depth == path.size()));
      if (!still_there) return std::optional<int64_t>{};
    }
    return id;
  }

 public:
  /// Whether the parked write of `scope`, whose COMMIT lost its answer on session
  /// `session`, was applied: its key then holds this request's answer.
  Result<bool> ParkedWriteLanded(const IdempotencyScope& scope, int64_t session) {
    return Read([&](Lease& conn) -> Result<bool> {
      CAIRN_RETURN_IF_ERROR(conn->AwaitSessionEnd(session));
      CAIRN_ASSIGN_OR_RAISE(
          auto* stmt,
          conn->Prepare("SELECT 1 FROM idempotency_keys WHERE key = ? AND owner = ? "
                        "AND applied = 1 AND status IS NOT NULL"));
      Query query(*conn, stmt);
      query.Bind(scope.key).Bind(scope.owner);
      return query.Step("read back idempotent commit");
    });
  }

 private:
  /// Gives up a reserved or open slot.
  void Forget() {
    {
      std::lock_guard lock(mutex_);
      --open_;
    }
    available_.notify_one();
  }

  const SqlConnector connect_;
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<SqlConnection>> idle_;
  size_t open_;  ///< idle + leased + being opened
};

Lease::~Lease() {
  if (conn_) store_->Release(std::move(conn_));
}

/// A transaction left open by `WriteTransaction::Commit` under an Idempotency-Key; it
/// owns its connection until it commits or rolls back, then returns it to the pool.
class ParkedSqlWrite final : public ParkedWrite {
 public:
  ParkedSqlWrite(SqlStore& store, std::unique_ptr<SqlConnection> conn)
      : store_(store), conn_(std::move(conn)) {}
  ~ParkedSqlWrite() override {
    if (!committed_) conn_->Rollback();
    store_.Release(std::move(conn_));
  }

  Status Commit(const IdempotencyScope& scope, const StoredResponse& answer) override {
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

bool ParkInScope(Lease& lease, IdempotencyScope& scope) {
  if (scope.parked) return false;
  scope.parked = std::make_unique<ParkedSqlWrite>(lease.store(), lease.Take());
  return true;
}

}  // namespace

std::unique_ptr<MetaStore> MakeSqlStore(SqlStoreOptions options) {
  return std::make_unique<SqlStore>(std::move(options));
}

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
