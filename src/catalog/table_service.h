#pragma once

/// \file
/// \brief Iceberg tables in the catalog: create (also staged), load, list, drop (with
/// purge), rename, register, and commit with the protocol of DESIGN.md §4 — build the new
/// metadata from the current one, write the metadata file, then compare-and-swap the
/// pointer in the store, retrying on a lost swap.
///
/// Loads read the table's pointer from the store and take the metadata for that location
/// from a cache when it is there (`MetadataCache`: a metadata file never changes), so a
/// load of a large table costs a small indexed read, and a commit starts from the parsed
/// model of the current file instead of parsing it again.
///
/// Every method that writes takes the caller's `WriteContext` last (default
/// `WriteContext::Immediate()`: each write commits at once) and makes all its store
/// writes in it; work that must follow the store commit (deleting files) goes through
/// `WriteContext::AfterCommit`.
///
/// Thread-safe: the cache locks itself; the store and FileIO are thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog_service.h"
#include "catalog/commit.h"
#include "catalog/iceberg_manifests.h"
#include "catalog/metadata_cache.h"
#include "catalog/orphan_files.h"
#include "catalog/scan_plans.h"
#include "catalog/storage_registry.h"
#include "catalog/table_access.h"
#include "common/keyed_mutex.h"
#include "common/result.h"
#include "iceberg/json_serde.h"
#include "iceberg/snapshot_retention.h"
#include "iceberg/table_metadata.h"
#include "iceberg/table_update.h"
#include "io/file_io.h"
#include "store/meta_store.h"
#include "store/metrics_report_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief A table's identity inside a catalog.
struct TableIdent {
  NamespacePath ns;
  std::string name;
};

/// \brief `ns.name` as the reference prints identifiers in messages.
std::string DottedName(const TableIdent& ident);

/// \brief A table as loaded or committed.
struct LoadedTable {
  /// Current metadata file; empty for a staged (not yet created) table.
  std::string metadata_location;
  /// The metadata as JSON text (what the store holds and the metadata file contains).
  std::string metadata_json;
};

/// \brief What a create-table request asks for.
struct CreateTableInput {
  std::string name;
  iceberg::Schema schema;
  std::optional<iceberg::PartitionSpec> spec;
  std::optional<iceberg::SortOrder> sort_order;
  std::optional<std::string> location;
  Properties properties;
  bool stage_create = false;
};

/// \brief One page of table names in a namespace.
struct TableListing {
  std::vector<std::string> names;
  std::optional<std::string> next_page_token;
};

/// \brief One table's part of a multi-table transaction.
struct TableChange {
  TableIdent ident;
  std::vector<iceberg::TableRequirement> requirements;
  std::vector<iceberg::TableUpdate> updates;
};

/// \brief Settings of server-side scan planning.
struct ScanPlanningOptions {
  /// `scan-planning-mode` in LoadTableResult's config and /v1/config's defaults:
  /// `server` (clients use planTableScan) or `client`.
  std::string mode = "server";
  /// Plans reading more uncached manifest bytes than this are planned in the background.
  uint64_t async_manifest_bytes = uint64_t{16} << 20;
  /// The bound of parsed manifest lists and manifests kept in memory (planning, purge,
  /// maintenance).
  size_t manifest_cache_bytes = IcebergManifests::kDefaultCacheBytes;
  ScanPlans::Options plans;
};

/// \brief A plan as planTableScan and fetchPlanningResult answer it.
struct PlannedScan {
  PlanView view;
  /// The table's storage, and credentials when the caller asked for them (completed
  /// plans only).
  TableAccess access;
};

/// \brief What a snapshot expiration did, or with `dry_run` would do.
struct ExpirationReport {
  bool dry_run = false;
  std::vector<int64_t> expired_snapshot_ids;
  std::vector<std::string> removed_refs;
  /// Files no remaining snapshot references, deleted (or to delete): the first
  /// `kMaxListedFiles` of them, and how many there are.
  std::vector<std::string> files;
  size_t file_count = 0;
  size_t kept_outside = 0;  ///< unreferenced, but outside the table's locations: kept
  size_t kept_in_use = 0;   ///< unreferenced, but another entity uses them: kept
  size_t failed = 0;        ///< deletions that failed
  static constexpr size_t kMaxListedFiles = 1000;
};

/// \brief Settings of table maintenance (expiration, orphan-file removal).
struct MaintenanceOptions {
  /// Orphan-file removal refuses a threshold younger than this: a file written more
  /// recently may be a writer's that is not committed yet.
  int64_t orphan_min_age_ms = int64_t{24} * 3600 * 1000;
  /// The most files one orphan-file removal lists under a table's locations.
  size_t orphan_max_listed_files = 1'000'000;
};

/// \brief What an orphan-file removal asks for.
struct OrphanRemovalRequest {
  /// Only files last modified before this (milliseconds since the epoch) may go;
  /// unset: `kDefaultOrphanAgeMs` before now.
  std::optional<int64_t> older_than_ms;
  bool dry_run = false;
  /// Three days, as the Java reference's DeleteOrphanFiles.
  static constexpr int64_t kDefaultOrphanAgeMs = int64_t{3} * 24 * 3600 * 1000;
};

/// \brief What an orphan-file removal did, or with `dry_run` would do.
struct OrphanRemovalReport {
  bool dry_run = false;
  int64_t older_than_ms = 0;
  size_t listed = 0;  ///< files found under the table's locations
  /// More files lie there than `orphan_max_listed_files`: only the listed ones were
  /// considered (a later run sees the same first ones on S3).
  bool truncated = false;
  /// Files nothing references, deleted (or to delete): the first `kMaxListedFiles`, and
  /// how many there are.
  std::vector<std::string> files;
  size_t file_count = 0;
  size_t kept_recent = 0;  ///< unreferenced, but not older than the threshold (or of
                           ///< unknown age): kept
  size_t kept_in_use = 0;  ///< unreferenced, but another entity uses them: kept
  size_t failed = 0;       ///< deletions that failed
  static constexpr size_t kMaxListedFiles = 1000;
};

/// \brief Which snapshots a load returns (`snapshots=all|refs`).
enum class SnapshotsMode { kAll, kRefs };

class TableService {
 public:
  /// \brief The catalogs this service's tables live in.
  CatalogService& catalogs() { return catalogs_; }

  /// \brief Commit attempts before a lost race is reported as 409.
  static constexpr int kMaxCommitAttempts = 10;
  /// Commits to one table that may wait for the one in progress (see CommitTable).
  static constexpr int kMaxQueuedCommits = 2;
  /// \brief Memory for cached metadata representations (estimated bytes).
  static constexpr size_t kMetadataCacheBytes = size_t{128} << 20;

  /// \brief All references must outlive the service. `clock` returns the commit time in
  /// milliseconds since the epoch (tests pass a fake).
  /// `storages` describes the object storages (none: every table is local).
  TableService(MetaStore& store, CatalogService& catalogs, FileIO& io,
               std::function<int64_t()> clock,
               const StorageRegistry& storages = NoStorages());

  /// \brief The storage side of `table` (of `catalog`): which storage holds it, from its
  /// metadata file's location alone (nothing is parsed) unless `vend` asks for
  /// credentials, which are confined to the locations its metadata names (read-write
  /// until callers have roles). Errors: `kNoSuchWarehouse`, `kBadRequest`, those of
  /// `StorageRegistry::Vend` (`kServiceUnavailable` when STS cannot be reached, ...).
  Result<TableAccess> AccessTo(std::string_view catalog, const LoadedTable& table,
                               bool vend,
                               StorageAccess access = StorageAccess::kReadWrite);

  /// \brief What remote signing may sign for table `ident`: its storage and the
  /// locations it owns. Errors: those of `LoadTable` and `SigningScopeOf`.
  Result<TableSigningScope> SigningScope(std::string_view catalog,
                                         const TableIdent& ident);

  /// \brief The signing scope of the table (Iceberg or Lance, any catalog) whose
  /// locations hold the canonical `s3://` location `target`: for signing routes that name
  /// no table. Errors: `kForbidden` when no table's locations hold it; those of
  /// `SigningScopeOf`.
  Result<TableSigningScope> SigningScopeHolding(std::string_view target);

  /// \brief The object storages tables may live on.
  const StorageRegistry& storages() const { return storages_; }

  // Server-side scan planning (table_scans.cc). `principal` is the caller's (empty
  // without authentication): a plan is only ever found again by the caller that made it,
  // on the table it was made on (by UUID: a re-created table has other plans).

  /// \brief Settings of scan planning; call before serving.
  void ConfigureScanPlanning(const ScanPlanningOptions& options);
  const ScanPlanningOptions& scan_planning() const { return planning_options_; }

  /// \brief Plans a scan of `ident`: `completed` at once when the manifests to read are
  /// cached or smaller than `async_manifest_bytes`, else `submitted` and planned in the
  /// background. With `vend`, the answer's access carries credentials for `access`.
  /// Errors: those of `LoadTable` and `ScanPlanner::Plan`; `kServiceUnavailable` when
  /// too many plans wait.
  Result<PlannedScan> PlanTableScan(std::string_view catalog, const TableIdent& ident,
                                    const ScanRequest& request,
                                    const std::string& principal, bool vend,
                                    StorageAccess access);
  /// \brief The state of plan `plan_id`. Errors: those of `LoadTable`, `kNoSuchPlanId`.
  Result<PlannedScan> FetchPlanningResult(std::string_view catalog,
                                          const TableIdent& ident,
                                          std::string_view plan_id,
                                          const std::string& principal, bool vend,
                                          StorageAccess access);
  /// \brief Forgets plan `plan_id`. Errors: those of `LoadTable`, `kNoSuchPlanId`.
  Status CancelPlanning(std::string_view catalog, const TableIdent& ident,
                        std::string_view plan_id, const std::string& principal);
  /// \brief The page of file-scan tasks `plan_task` names. Errors: those of
  /// `LoadTable`, `kNoSuchPlanTask`.
  Result<PlanPage> FetchScanTasks(std::string_view catalog, const TableIdent& ident,
                                  std::string_view plan_task,
                                  const std::string& principal);
  /// \brief Expires the snapshots and refs of `ident` that its retention properties (or
  /// `overrides`) no longer keep (`iceberg/snapshot_retention.h`), through the normal
  /// commit (guarded by every ref's current snapshot: a concurrent writer's commit makes
  /// this one re-plan, never lose theirs), then deletes the files only the expired
  /// snapshots referenced — inside the table's locations and used by no other entity.
  /// With `dry_run`, changes nothing and reports what it would do. Errors: those of
  /// `LoadTable` and `CommitTable`; `kBadRequest` when a manifest of a remaining
  /// snapshot cannot be read (nothing is deleted then, the commit stands);
  /// `kCommitFailed` after repeated races.
  Result<ExpirationReport> ExpireSnapshots(
      std::string_view catalog, const TableIdent& ident,
      const iceberg::RetentionOverrides& overrides, bool dry_run,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Settings of maintenance; call before serving.
  void ConfigureMaintenance(const MaintenanceOptions& options) {
    maintenance_options_ = options;
  }
  const MaintenanceOptions& maintenance() const { return maintenance_options_; }

  // --- Iceberg metrics reports (table_metrics_reports.cc).

  /// \brief Whether `KeepMetricsReport` stores reports (else it only checks the table);
  /// call before serving. Default: kept.
  void ConfigureMetricsReports(bool keep) { keep_metrics_reports_ = keep; }

  /// \brief Keeps `report` (JSON text whose `report-type` is `report_type`) for the
  /// table, stamped with the service's clock; only checks that the table exists when
  /// reports are not kept. Errors: `kNoSuchTable`, `kBadRequest` (an invalid name, a
  /// report larger than `kMaxMetricsReportBytes`), `kNoSuchWarehouse`, the store's.
  Status KeepMetricsReport(std::string_view catalog, const TableIdent& ident,
                           std::string_view report_type, std::string report);

  /// \brief One page of the table's kept reports that `filter` selects (its `entity_id`
  /// is the table's, whatever the caller set). Errors: `kNoSuchTable`, `kBadRequest`,
  /// `kNoSuchWarehouse`, the store's.
  Result<MetricsReportPage> ListMetricsReports(std::string_view catalog,
                                               const TableIdent& ident,
                                               MetricsReportFilter filter);

  /// \brief Deletes the files under `ident`'s locations that nothing references — no
  /// snapshot of its current metadata (manifest lists, manifests, every file they list,
  /// statistics) and no metadata file of its log — and that were last modified before
  /// `request.older_than_ms`, and that no other entity uses (table_orphans.cc). Listing
  /// comes first and the metadata is read after it, so a commit that lands meanwhile
  /// keeps its files. With `dry_run`, deletes nothing and reports what it would.
  /// Errors: those of `LoadTable`; `kBadRequest` when `gc.enabled=false`, when the
  /// threshold is younger than `orphan_min_age_ms`, or when a manifest cannot be read
  /// (nothing can be proven unreferenced then; nothing is deleted).
  Result<OrphanRemovalReport> RemoveOrphanFiles(std::string_view catalog,
                                                const TableIdent& ident,
                                                const OrphanRemovalRequest& request);

  /// \brief The manifests this service reads (purge, planning), for tests and metrics.
  IcebergManifests& manifests() { return manifests_; }
  /// \brief The plans held between calls.
  const ScanPlans& plans() const { return *plans_; }

  /// \brief Errors: `kBadRequest`, `kNoSuchWarehouse`, `kNoSuchNamespace`.
  Result<TableListing> ListTables(std::string_view catalog, const NamespacePath& ns,
                                  const PageRequest& page);

  /// \brief Creates a table (writes `00000-<uuid>.metadata.json`), or with
  /// `stage_create` only returns the metadata it would have. Errors: `kBadRequest`,
  /// `kNoSuchWarehouse`, `kNoSuchNamespace`, `kAlreadyExists` (a table or a view has the
  /// name), `kIOError`.
  Result<LoadedTable> CreateTable(std::string_view catalog, const NamespacePath& ns,
                                  const CreateTableInput& input,
                                  const WriteContext& write = WriteContext::Immediate());

  /// \brief Loads from the store only (never object storage). When `client_has` says the
  /// client already holds the current metadata file (a conditional load), returns its
  /// location with empty `metadata_json` without touching the metadata. Errors:
  /// `kNoSuchTable` (also when the namespace does not exist), `kBadRequest`,
  /// `kNoSuchWarehouse`.
  Result<LoadedTable> LoadTable(
      std::string_view catalog, const TableIdent& ident,
      SnapshotsMode mode = SnapshotsMode::kAll,
      const std::function<bool(std::string_view location)>& client_has = {});

  /// \brief LoadTable's answer when it needs nothing but the catalog and pointer reads:
  /// the client's copy is current, or the metadata is cached in the requested form and
  /// not larger than `kMaxFastLoadBytes`. Otherwise, and on any error, nullopt (LoadTable
  /// then does the work and reports the error). For callers that must not wait on more
  /// than a point read, such as the server's I/O thread.
  std::optional<LoadedTable> LoadTableIfCached(
      std::string_view catalog, const TableIdent& ident, SnapshotsMode mode,
      const std::function<bool(std::string_view location)>& client_has = {});
  /// Bodies up to this size are copied by LoadTableIfCached; larger ones take the slow
  /// path, so that one huge response does not hold up its caller.
  static constexpr size_t kMaxFastLoadBytes = 1 << 20;

  /// \brief Errors: `kNoSuchTable`, `kBadRequest`, `kNoSuchWarehouse`.
  Status TableExists(std::string_view catalog, const TableIdent& ident);

  /// \brief Removes the table from the catalog; with `purge`, also deletes its files
  /// (the whole table directory when Cairn chose the location and no other table uses it,
  /// else the metadata files the catalog knows of that no other table points at).
  /// Errors: `kNoSuchTable`, `kBadRequest`.
  Status DropTable(std::string_view catalog, const TableIdent& ident, bool purge,
                   const WriteContext& write = WriteContext::Immediate());

  /// \brief Errors: `kNoSuchTable` (source), `kNoSuchNamespace` (target namespace),
  /// `kAlreadyExists` (target taken by a table or view), `kBadRequest`.
  Status RenameTable(std::string_view catalog, const TableIdent& from,
                     const TableIdent& to,
                     const WriteContext& write = WriteContext::Immediate());

  /// \brief Registers an existing metadata file; with `overwrite` replaces the pointer
  /// of an existing table. Errors: `kNotFound` (no such file), `kBadRequest` (invalid
  /// file), `kNoSuchNamespace`, `kAlreadyExists`.
  Result<LoadedTable> RegisterTable(
      std::string_view catalog, const TableIdent& ident,
      std::string_view metadata_location, bool overwrite,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Applies a commit (DESIGN.md §4). With an `assert-create` requirement, creates
  /// the table from the updates. Errors: `kNoSuchTable`/`kNoSuchNamespace`, `kBadRequest`
  /// (invalid change or requirement mix), `kCommitFailed` (requirement failed, stale
  /// snapshot, or too many lost races), `kAlreadyExists` (lost a create race),
  /// `kCommitStateUnknown` (cannot tell whether the pointer swap happened).
  Result<LoadedTable> CommitTable(
      std::string_view catalog, const TableIdent& ident,
      const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Applies changes to several tables atomically: every table's requirements are
  /// checked and its updates applied, then all pointer swaps happen in one store
  /// transaction — all tables change or none does. A lost swap retries the whole
  /// transaction. Errors: `kBadRequest` (empty, a table twice, `assert-create`, invalid
  /// change), `kNoSuchTable` (naming the table), `kCommitFailed` (naming the table),
  /// `kCommitStateUnknown`.
  Status CommitTransaction(std::string_view catalog,
                           const std::vector<TableChange>& changes,
                           const WriteContext& write = WriteContext::Immediate());

 private:
  /// A metadata file this service wrote: its location and JSON text, and where the
  /// snapshots and the snapshot log are in the text (`layout.json` is moved to `table`).
  struct WrittenMetadata {
    LoadedTable table;
    iceberg::EncodedTableMetadata layout;
  };
  /// A table's pointer and the parsed metadata it points at.
  struct CurrentTable {
    EntityPointer pointer;
    std::shared_ptr<const iceberg::TableMetadata> metadata;
  };
  /// A table's new state, built but not yet written nor swapped in.
  struct PreparedChange {
    TableIdent ident;
    EntityPointer entity;
    std::shared_ptr<const iceberg::TableMetadata> base;
    /// Null when the change leaves the table as it is.
    std::shared_ptr<const iceberg::TableMetadata> updated;
    /// Where `updated`'s metadata file goes.
    std::string metadata_dir;
    /// The table's new claim when the change moves its locations.
    std::optional<LocationClaim> claim;
  };
  /// Built metadata with its location in canonical form, checked against the catalog's
  /// allowed locations.
  struct LocatedMetadata {
    iceberg::TableMetadata metadata;
    std::string metadata_dir;
    /// Set when the change from the base moves any of the table's locations.
    std::optional<LocationClaim> claim;
  };
  /// Confines the locations of `updated` (built from `base`). Errors: `kBadRequest`.
  Result<LocatedMetadata> Locate(const CatalogRecord& catalog,
                                 const iceberg::TableMetadata& base,
                                 iceberg::TableMetadata updated);
  /// Whether a change's errors name the table (they do in a transaction).
  enum class ErrorNaming { kPlain, kNameTable };
  /// Loads, checks and builds one table's change on its current state.
  Result<PreparedChange> PrepareChange(
      const CatalogRecord& catalog, const TableIdent& ident,
      const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates, ErrorNaming naming);
  /// The change as the commit protocol runs it (`catalog/commit.h`): write, then on
  /// commit remember the file and delete the metadata files it dropped (once the store
  /// write of `write` has committed); with `answer`, the committed table is moved there.
  StagedChange Stage(const CatalogRecord& catalog, PreparedChange prepared,
                     const WriteContext& write, LoadedTable* answer = nullptr);
  /// The answer to a commit that changes nothing: the table as it was checked.
  LoadedTable Unchanged(const PreparedChange& change);

  Result<LoadedTable> CreateFromCommit(
      const CatalogRecord& catalog, const TableIdent& ident,
      const std::vector<iceberg::TableRequirement>& requirements,
      const std::vector<iceberg::TableUpdate>& updates, const WriteContext& write);
  /// Loads the table entity; `kNoSuchTable` when absent or not a table.
  Result<EntityRecord> LoadEntity(const CatalogRecord& catalog, const TableIdent& ident);
  /// Loads the table's pointer only; `kNoSuchTable` when absent or not a table.
  Result<EntityPointer> LoadPointer(const CatalogRecord& catalog,
                                    const TableIdent& ident);
  /// A load's answer when the client's copy is current (`client_has`) or the metadata
  /// at `pointer` is cached in the form `mode` asks for, up to `max_bytes` of it.
  std::optional<LoadedTable> CachedAnswer(
      const EntityPointer& pointer, SnapshotsMode mode,
      const std::function<bool(std::string_view location)>& client_has, size_t max_bytes);
  /// The current pointer and parsed metadata (parsed once per metadata file).
  Result<CurrentTable> LoadCurrent(const CatalogRecord& catalog, const TableIdent& ident);
  /// As `LoadCurrent`, for a pointer already read.
  Result<CurrentTable> CurrentFrom(const CatalogRecord& catalog, const TableIdent& ident,
                                   EntityPointer pointer);
  /// Keeps what a commit produced, so that the next load and commit start from it;
  /// `json` is `written`'s text, shared with the swap that stored it (not copied again).
  void Remember(const WrittenMetadata& written, std::shared_ptr<const std::string> json,
                std::shared_ptr<const iceberg::TableMetadata> metadata);
  /// The `snapshots=refs` text of `metadata`, cut from its written text.
  static std::string RefsJson(const WrittenMetadata& written,
                              const iceberg::TableMetadata& metadata);
  /// The error for a name already used in the namespace, by what uses it.
  Error NameTaken(const CatalogRecord& catalog, const TableIdent& ident);
  /// Writes the metadata file of the table at `owner` for `metadata` into the directory
  /// `metadata_dir` (a failed write is recorded as a possible orphan).
  Result<WrittenMetadata> WriteMetadata(const EntityAddress& owner,
                                        const iceberg::TableMetadata& metadata,
                                        std::string_view previous_location,
                                        std::string_view metadata_dir);
  /// After a create's store write failed with `error`: gives up its file, unless the
  /// create may have landed (the file may then be the table's).
  void AbandonCreatedFile(const EntityAddress& owner, std::string_view location,
                          const Error& error);
  /// The swap from `base` (the table's current metadata, at `entity`) to `updated`
  /// (written to `written`), storing the new metadata split so that the snapshots it
  /// shares with `base` are not stored again. The swap holds its own copy of `written`'s
  /// text.
  static EntitySwap SwapTo(const EntityPointer& entity,
                           const iceberg::TableMetadata& base,
                           const iceberg::TableMetadata& updated,
                           const WrittenMetadata& written);
  /// Whether another entity than `entity_id` uses a file inside `claim` (true when
  /// unsure); a store query per file only when another entity touches the claim at all.
  std::function<bool(std::string_view)> UsedElsewhere(const LocationClaim& claim,
                                                      int64_t entity_id);
  /// Deletes a dropped table's files — those its metadata references, read from its
  /// manifests, and its whole directory when Cairn chose it — never those another
  /// entity still uses (`table_purge.h`).
  void PurgeFiles(const CatalogRecord& catalog, const EntityRecord& dropped);
  /// After a commit of entity `entity_id`: with `write.metadata.delete-after-commit`, the
  /// metadata files that fell out of the log, as far as they are provably the table's.
  void DeleteDroppedMetadataFiles(const CatalogRecord& catalog, int64_t entity_id,
                                  const iceberg::TableMetadata& base,
                                  const iceberg::TableMetadata& updated);

  MetadataCache cache_{kMetadataCacheBytes};
  /// Serializes this process's commits per table (see CommitTable).
  KeyedMutex table_commits_;
  MetaStore& store_;
  CatalogService& catalogs_;
  FileIO& io_;
  std::function<int64_t()> clock_;
  const StorageRegistry& storages_;
  /// Writes metadata files and gives up those no table points at.
  OrphanFiles orphans_;
  /// The tables' manifest lists and manifests, read confined and kept parsed.
  IcebergManifests manifests_{io_};
  ScanPlanner planner_{manifests_};
  ScanPlanningOptions planning_options_;
  bool keep_metrics_reports_ = true;
  MaintenanceOptions maintenance_options_;
  /// Declared last: its planning thread uses the members above and stops first.
  std::unique_ptr<ScanPlans> plans_;
};

}  // namespace cairn
