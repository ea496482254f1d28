#pragma once

/// \file
/// \brief What the files of the SQL store share (not for use outside `src/store`): the
/// connection pool with its read and write runners (`sql_store.cc`), and the helpers each
/// concern offers the others. One file per concern:
///   - `sql_store.cc`: the pool, retries with backoff, write transactions;
///   - `sql_store_catalogs.cc`: catalogs, namespaces and their properties;
///   - `sql_store_entities.cc`: entity rows, rename, listings;
///   - `sql_store_swaps.cc`: entity compare-and-swap (commits), alone or combined;
///   - `sql_store_split.cc`: metadata stored split (head + parts), written and read;
///   - `sql_store_locations.cc`: location claims;
///   - `sql_store_idempotency.cc`: Idempotency-Key records, parked writes, heartbeats;
///   - `sql_store_drops.cc`: cascading drops and (Lance) transaction records;
///   - `sql_store_identity.cc`, `sql_store_grants.cc`: the identity rows
///     (`sql_store_identity.h`);
///   - `sql_store_lance_versions.cc`: the versions of managed Lance tables;
///   - `sql_store_metrics_reports.cc`: Iceberg metrics reports kept for a while;
///   - `sql_store_check.cc`: finding rows that point at missing rows;
///   - `sql_migrations.cc`: applying the backends' schema migrations.
///
/// Concurrency: a pool of connections; each call borrows one for its duration. Every
/// write runs in one transaction through `SqlStore::Write`, which runs it again when the
/// backend reports a conflict with a concurrent transaction. The checks inside a write
/// (does the parent namespace exist, is the name free) are made safe against concurrent
/// writers by `LockRow` on the rows they depend on; on SQLite, whose writers exclude each
/// other (BEGIN IMMEDIATE), that is a no-op; there, commits' swaps that queue for the
/// write lock share one transaction (`SqlStoreOptions::combine_swaps`,
/// sql_store_swaps.cc). Reads are single statements, or tolerate
/// seeing two states (a catalog and its properties), or check that they saw one
/// (`ReadMetadata`).

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/macros.h"
#include "common/mutex.h"
#include "common/namespace_path.h"
#include "common/op_metrics.h"
#include "common/result.h"
#include "store/idempotency_scope.h"
#include "store/meta_store.h"
#include "store/sql_connection.h"
#include "store/sql_store.h"
#include "store/sql_store_identity.h"
#include "store/sql_store_lance_versions.h"
#include "store/sql_store_metrics_reports.h"
#include "store/write_combiner.h"
#include "store/write_context.h"

namespace cairn::sql_internal {

// --- Keys, limits, time -------------------------------------------------------------

/// Namespace paths are stored as (parent_path, name); levels are joined with 0x1F, a byte
/// that names may not contain, so the encoding is unambiguous and sorts like the levels.
constexpr char kLevelSeparator = '\x1f';

/// The first `count` levels of `path`, joined by `kLevelSeparator`.
std::string JoinLevels(const NamespacePath& path, size_t count);
/// The stored parent path of namespace `path` (all levels but the last).
std::string ParentKey(const NamespacePath& path);
/// `path` joined whole: the parent path its children are stored with.
std::string FullKey(const NamespacePath& path);
/// Inverse of `JoinLevels` (an empty key is the top level).
NamespacePath SplitKey(std::string_view key);

/// The SQL LIMIT for a page of at most `limit` rows: one more, to learn whether more
/// follow; the largest value (no limit) when unbounded or too large to add one to.
int64_t FetchLimit(std::optional<size_t> limit);

int64_t NowMillis();

// --- The pool and its transactions (sql_store.cc) -----------------------------------

/// How often a write transaction runs before a conflict is reported as a busy store.
constexpr int kMaxWriteAttempts = 20;
/// The most commits one combined write transaction holds
/// (`SqlStoreOptions::combine_swaps`): more waiting ones form the next.
constexpr size_t kMaxCombinedSwaps = 32;

/// A short random pause before running a conflicting transaction again, growing with the
/// attempt, so that the writers that collided do not collide again in lockstep.
void BackOff(int attempt);

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

/// Parks the open transaction of `lease` in the idempotency scope `scope`
/// (sql_store_idempotency.cc). Returns false when the scope already holds a parked write.
bool ParkInScope(Lease& lease, IdempotencyScope& scope);

/// A write transaction in the caller's write context; rolls back unless committed.
class WriteTransaction {
 public:
  WriteTransaction(Lease& lease, const WriteContext& write)
      : lease_(lease), write_(write) {}
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
  /// Commits. When the write context has an idempotency scope the transaction is parked
  /// there instead: it commits later together with the request's answer (see
  /// `ParkedSqlWrite`).
  Status Commit();

 private:
  Lease& lease_;
  const WriteContext& write_;
  bool open_ = false;
};

// --- Catalogs and namespaces (sql_store_catalogs.cc) --------------------------------

/// Reads a page of names (column 0) of a query limited by `FetchLimit(limit)`.
Result<NamePage> ReadNamePage(Query& query, std::optional<size_t> limit,
                              std::string_view what);
/// Looks up the id of a namespace; nullopt when absent.
Result<std::optional<int64_t>> FindNamespaceId(SqlConnection& conn, int64_t catalog_id,
                                               const NamespacePath& path);
/// Where writers do not exclude each other: locks the catalog row until the transaction
/// ends (shared by creators, exclusive by the catalog's drop). False when it is gone.
Result<bool> LockCatalog(SqlConnection& conn, int64_t catalog_id, bool exclusive);
/// Finds namespace `path` (non-empty). Where writers do not exclude each other, also
/// locks its catalog and every level of it, outermost first — shared, and the last
/// level exclusive when asked — so that no concurrent drop removes any of them before
/// this transaction ends, and a drop holding one of them waits for this creation first.
/// nullopt when any level is missing.
Result<std::optional<int64_t>> LockNamespace(SqlConnection& conn, int64_t catalog_id,
                                             const NamespacePath& path, bool exclusive);

// --- Entities (sql_store_entities.cc) -----------------------------------------------

/// The kind stored as `text` (see `EntityKindName`).
Result<EntityKind> ParseKind(std::string_view text);
/// The kind of the entity named `name` in namespace `ns_id`; nullopt when none.
Result<std::optional<EntityKind>> FindEntityKind(SqlConnection& conn, int64_t ns_id,
                                                 std::string_view name);
/// The catalog of entity `entity_id`. Errors: `kInternal` when it has none.
Result<int64_t> CatalogOfEntity(SqlConnection& conn, int64_t entity_id);
/// Inside a write transaction: what `CreateEntity` writes — the entity row and its
/// location claim, after locking its namespace. Errors as `MetaStore::CreateEntity`.
Result<EntityRecord> InsertEntity(SqlConnection& conn, int64_t catalog_id,
                                  const NamespacePath& ns, std::string_view name,
                                  EntityKind kind, std::string_view metadata_location,
                                  std::string_view metadata, const LocationClaim& claim);
/// Inside a write transaction: removes entity `entity_id` if it is of `kind` (its claims
/// and Lance versions go with it); false when there is no such entity.
Result<bool> DeleteEntityById(SqlConnection& conn, int64_t entity_id, EntityKind kind);

// --- Metadata stored split (sql_store_split.cc) -------------------------------------

/// Inside a swap's transaction, after its row was updated: stores the new version's
/// lists of parts (keeping each list's shared leading parts when the store holds the
/// current version as the caller believes), or drops an earlier version's parts when
/// the new metadata is whole.
Status WriteParts(SqlConnection& conn, const EntitySwap& swap);
/// Before a swap: its metadata is set, and its lists and their parts lie in it in order.
/// Errors: `kInvalidArgument`.
Status CheckParts(const EntitySwap& swap);
/// What the entity row of a swap holds: its document without the range of each list.
std::string HeadOf(const EntitySwap& swap);
/// Fills the location, version and whole metadata of `record` (whose id is
/// set): the head with its parts put in, when stored split; false when the entity is
/// gone. Head and parts are separate rows: a swap landing between reading one and the
/// other shows as a new version, and the read starts over. Errors: `kServiceUnavailable`
/// when swaps kept landing.
Result<bool> ReadMetadata(SqlConnection& conn, EntityRecord& record);
/// ReadMetadata, and when swaps kept landing between its reads (a table committed to
/// without pause), once more in a read transaction that sees one snapshot (and blocks no
/// writer), so that no load is starved by a busy writer. Outside a transaction only.
Result<bool> ReadMetadataConsistently(SqlConnection& conn, EntityRecord& record);

// --- Location claims (sql_store_locations.cc) ---------------------------------------

/// A location another entity claimed, with that entity's catalog.
struct ClaimedLocation {
  int64_t catalog_id = 0;
  std::string location;
};
/// A location another entity than `entity_id` claimed that overlaps `location`; nullopt
/// when none does. Entities of catalog `catalog_id` are passed over when
/// `overlap_in_catalog`.
Result<std::optional<ClaimedLocation>> FindOverlap(SqlConnection& conn, int64_t entity_id,
                                                   int64_t catalog_id,
                                                   const std::string& location,
                                                   bool overlap_in_catalog);
/// Inside a write transaction: replaces the locations entity `entity_id` (of catalog
/// `catalog_id`) claims by `claim`, after checking — unless told not to, for the claims
/// of entities that exist already — that no other entity's overlap them. Errors:
/// `kBadRequest` on an overlap.
Status ClaimLocations(SqlConnection& conn, int64_t entity_id, int64_t catalog_id,
                      const LocationClaim& claim, bool check_overlap = true);

// --- Idempotency keys (sql_store_idempotency.cc) ------------------------------------

/// Writes the answer into the key row held by `scope` (marking the effect applied when
/// `applied`), then purges a bounded batch of expired keys — so no single request pays
/// for many. Returns false when the key is no longer held by this request.
Result<bool> StoreAnswer(SqlConnection& conn, const IdempotencyScope& scope,
                         std::string_view answer, bool applied);

// --- Cascading drops and transaction records (sql_store_drops.cc) -------------------

/// A namespace row: its id and its path.
struct NamespaceRow {
  int64_t id = 0;
  NamespacePath path;
};
/// Reads `(id, parent_path, name)` rows.
Result<std::vector<NamespaceRow>> ReadNamespaceRows(Query& query);
/// Inside a write transaction: inserts `record` with version 0. Errors:
/// `kAlreadyExists` when the id is taken.
Status InsertTransaction(SqlConnection& conn, const TransactionRecord& record);
/// Inside a write transaction: removes the entities of `namespaces`, records what the
/// planner returns for them, then removes the namespaces. Returns the removed entities.
Result<std::vector<EntityRecord>> DropNamespaceRows(
    SqlConnection& conn, const std::vector<NamespaceRow>& namespaces,
    const DropPlanner& planner);

// --- The store ----------------------------------------------------------------------

/// One commit's swaps (in id order) waiting to share a write transaction with other
/// commits' (sql_store_swaps.cc). Whichever caller runs the batch sets the outcome, or
/// `run_alone` when the batch failed before COMMIT and its caller should try alone.
struct CombinedSwap {
  const std::vector<const EntitySwap*>* ordered = nullptr;
  Result<bool> outcome = tl::unexpected(Error{ErrorKind::kInternal, "Swap did not run"});
  bool run_alone = false;
};
/// Counts the swaps `combiner` holds queued into the gauge `cairn_store_commits_waiting`
/// while the source lives (it must not outlive `combiner`).
metrics::GaugeFamily::Source WatchWaitingSwaps(
    const WriteCombiner<CombinedSwap>& combiner);

class SqlStore final : public MetaStore {
 public:
  explicit SqlStore(SqlStoreOptions options);

  /// Borrows an idle connection, or opens one while fewer than the capacity are open.
  Result<Lease> Acquire();
  /// Takes a connection back; a broken one is closed, and with it every idle one, since
  /// what broke one (a database restart) has broken them all.
  void Release(std::unique_ptr<SqlConnection> conn);

  /// Runs `body(lease, txn)` in a write transaction of context `write`, again when it
  /// failed on a conflict with a concurrent transaction or on a connection that broke
  /// before COMMIT was sent. The body commits with `txn.Commit()` (which parks the
  /// transaction when `write` has a scope); returning without it rolls back.
  template <class Body>
  auto Write(const WriteContext& write, Body&& body)
      -> std::invoke_result_t<Body, Lease&, WriteTransaction&> {
    using R = std::invoke_result_t<Body, Lease&, WriteTransaction&>;
    for (int attempt = 1;; ++attempt) {
      CAIRN_ASSIGN_OR_RAISE(Lease conn, Acquire());
      WriteTransaction txn(conn, write);
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

  /// Whether the parked write of `scope`, whose COMMIT lost its answer on session
  /// `session`, was applied: its key then holds this request's answer.
  Result<bool> ParkedWriteLanded(const IdempotencyScope& scope, int64_t session);

  // MetaStore (see meta_store.h for the contracts).
  Status Ping() override;
  Result<CatalogRecord> CreateCatalog(std::string_view name, std::string_view location,
                                      const Properties& properties,
                                      const WriteContext& write) override;
  Result<CatalogRecord> GetCatalog(std::string_view name) override;
  Status SetCatalogProperties(int64_t catalog_id, const Properties& properties,
                              const WriteContext& write) override;
  Result<bool> SwapCatalogProperties(int64_t catalog_id, const Properties& expected,
                                     const Properties& replacement,
                                     const WriteContext& write) override;
  Result<NamePage> ListCatalogs(std::string_view after,
                                std::optional<size_t> limit) override;
  Result<CatalogPage> ListCatalogRecords(std::string_view after, size_t limit) override;
  Status CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                         const Properties& properties,
                         const WriteContext& write) override;
  Result<NamespaceRecord> LoadNamespace(int64_t catalog_id,
                                        const NamespacePath& path) override;
  Result<bool> NamespaceExists(int64_t catalog_id, const NamespacePath& path) override;
  Result<NamePage> ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                  std::string_view after,
                                  std::optional<size_t> limit) override;
  Status DropNamespace(int64_t catalog_id, const NamespacePath& path,
                       const WriteContext& write) override;
  Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals, const WriteContext& write) override;

  Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                    std::string_view name, EntityKind kind,
                                    std::string_view metadata_location,
                                    std::string_view metadata, const LocationClaim& claim,
                                    const WriteContext& write) override;
  Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override;
  Result<std::optional<EntityPointer>> LoadEntityPointer(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override;
  Result<std::optional<EntityPointer>> FindEntityPointer(std::string_view catalog_name,
                                                         const NamespacePath& ns,
                                                         std::string_view name) override;
  Result<std::optional<EntityKind>> EntityKindOf(int64_t catalog_id,
                                                 const NamespacePath& ns,
                                                 std::string_view name) override;
  Result<bool> SwapEntities(const std::vector<EntitySwap>& unordered,
                            const WriteContext& write) override;
  Result<bool> DropEntity(int64_t catalog_id, const NamespacePath& ns,
                          std::string_view name, EntityKind kind,
                          const WriteContext& write) override;
  Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                      std::string_view from_name, const NamespacePath& to_ns,
                      std::string_view to_name, EntityKind kind,
                      const WriteContext& write) override;
  Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                EntityKind kind, std::string_view after,
                                std::optional<size_t> limit) override;
  Result<EntityPage> ListAllEntities(EntityKind kind, int64_t after_id,
                                     std::optional<size_t> limit) override;

  Result<std::optional<std::vector<std::string>>> TableClaimHolding(
      std::string_view location) override;
  Result<bool> LocationInUse(std::string_view location,
                             int64_t except_entity_id) override;
  Result<std::vector<UnclaimedEntity>> ListUnclaimedEntities(int64_t after_id,
                                                             size_t limit) override;
  Status RecordLegacyClaim(int64_t entity_id, const LocationClaim& claim) override;
  Status RecordOrphanFile(const OrphanFile& file) override;
  Result<std::vector<OrphanFile>> OrphanFilesRecordedBefore(int64_t before_ms,
                                                            size_t limit) override;
  Status ForgetOrphanFile(std::string_view location) override;

  Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const IdempotencyScope& scope, int64_t lease_until_ms) override;
  Status BeatInstance(std::string_view instance, int64_t now_ms,
                      int64_t forget_before_ms) override;
  Status RemoveInstance(std::string_view instance) override;
  Result<std::optional<IdempotencyRecord>> LoadIdempotentResponse(
      std::string_view key, int64_t now_ms) override;
  Status SaveIdempotentResponse(const IdempotencyScope& scope,
                                std::string_view answer) override;
  Status ReleaseIdempotencyKey(const IdempotencyScope& scope) override;

  Result<std::vector<EntityRecord>> DropCatalog(int64_t catalog_id, bool cascade,
                                                const DropPlanner& planner,
                                                const WriteContext& write) override;
  Result<std::vector<EntityRecord>> DropNamespaceTree(int64_t catalog_id,
                                                      const NamespacePath& path,
                                                      const DropPlanner& planner,
                                                      const WriteContext& write) override;
  Result<std::optional<EntityRecord>> DropEntityWithRecord(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const DropPlanner& planner, const WriteContext& write) override;
  Status CreateTransaction(const TransactionRecord& record,
                           const WriteContext& write) override;
  Result<std::optional<TransactionRecord>> LoadTransaction(std::string_view id) override;
  Result<bool> UpdateTransaction(const TransactionRecord& updated,
                                 int64_t expected_version,
                                 const WriteContext& write) override;
  Result<std::vector<TransactionRecord>> ListTransactions(
      const std::vector<std::string>& statuses) override;
  Result<std::map<std::string, int64_t>> CountTransactionsByStatus() override;
  Result<TransactionPage> ListTransactionPage(const std::vector<std::string>& statuses,
                                              std::string_view after_id,
                                              size_t limit) override;
  Result<bool> DeleteTransaction(std::string_view id, const WriteContext& write) override;
  Result<int64_t> PruneTransactions(const std::vector<std::string>& statuses,
                                    int64_t updated_before_ms, size_t limit) override;

  Result<std::vector<std::string>> FindOrphanedRows() override;

  IdentityStore& identity() override { return identity_; }
  LanceVersionStore& lance_versions() override { return lance_versions_; }
  MetricsReportStore& metrics_reports() override { return metrics_reports_; }

 private:
  /// Runs a pointer query whose parameters are the catalog (id or name), the namespace's
  /// parent key and name, and the entity's name.
  template <class CatalogKey>
  Result<std::optional<EntityPointer>> ReadPointer(const char* sql, CatalogKey catalog,
                                                   const NamespacePath& ns,
                                                   std::string_view name,
                                                   const char* what);
  /// Swaps `ordered` (in id order) in a write transaction of their own (context
  /// `write`), with `Write`'s retries.
  Result<bool> SwapAlone(const std::vector<const EntitySwap*>& ordered,
                         const WriteContext& write);
  /// Runs a batch of the combiner: one entry alone; several in one transaction, each
  /// under a savepoint. When that transaction cannot begin, each gets that error; when
  /// its COMMIT's outcome is unknown, each is read back; when it fails otherwise
  /// (nothing applied), each is marked to run alone by its own caller.
  void RunSwapBatch(const std::vector<CombinedSwap*>& batch);
  /// How far `SwapTogether` got.
  struct BatchAttempt {
    bool begun = false;   // its transaction was opened
    int64_t session = 0;  // on this session (for `SwapOutcome`)
  };
  /// The batch's swaps in one transaction; sets each entry's outcome (true, or false
  /// for a conflict) as it goes.
  Status SwapTogether(const std::vector<CombinedSwap*>& batch, BatchAttempt& attempt);
  /// Whether swaps whose COMMIT lost its answer took effect (see sql_store_swaps.cc).
  Result<bool> SwapOutcome(const std::vector<const EntitySwap*>& swaps, int64_t session,
                           const Error& unknown);
  /// Gives up a reserved or open slot.
  void Forget();

  const SqlConnector connect_;
  const size_t capacity_;
  Mutex mutex_;
  /// Signalled (with `mutex_`) when a connection comes back or a slot frees up.
  std::condition_variable available_;
  std::vector<std::unique_ptr<SqlConnection>> idle_ CAIRN_GUARDED_BY(mutex_);
  /// Idle + leased + being opened.
  size_t open_ CAIRN_GUARDED_BY(mutex_);
  /// Non-null where writers exclude each other (`SqlStoreOptions::combine_swaps`).
  std::unique_ptr<WriteCombiner<CombinedSwap>> swap_combiner_;
  const std::chrono::milliseconds combine_wait_;
  metrics::GaugeFamily::Source waiting_swaps_;  // of swap_combiner_, when there is one
  SqlIdentityStore identity_{*this};
  SqlLanceVersionStore lance_versions_{*this};
  SqlMetricsReportStore metrics_reports_{*this};
};

}  // namespace cairn::sql_internal
