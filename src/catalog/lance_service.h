#pragma once

/// \file
/// \brief Lance tables and the Lance view of the namespace tree (DESIGN.md §4): a Lance
/// id is `[catalog, namespace levels..., table]`, so level 1 of the Lance tree is a
/// catalog, deeper levels are that catalog's namespaces (shared with Iceberg), and Lance
/// tables live in namespaces beside Iceberg tables and views, in one identifier space.
///
/// Lance tables are storage-managed: the catalog keeps each table's dataset location and
/// properties; clients read and write the dataset themselves. DropTable and a cascading
/// DropNamespace delete the datasets' files through a durable transaction record: small
/// deletions finish within the request, larger ones (and non-local storage) continue in a
/// background thread and can be followed with DescribeTransaction; interrupted ones
/// resume when the service starts again.
///
/// Every method that writes takes the caller's `WriteContext` last (default
/// `WriteContext::Immediate()`: each write commits at once) and makes all its store
/// writes in it.
///
/// Finished transactions are forgotten after `LanceSettings::transaction_retention` (see
/// `LanceTransactionPruner`).
///
/// Thread-safe. Owns two background threads (its `LanceDropWorker`'s and its
/// `LanceTransactionPruner`'s) between `Start` and destruction.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_service.h"
#include "catalog/lance_drop_worker.h"
#include "catalog/lance_manifest_cache.h"
#include "catalog/lance_transaction.h"
#include "catalog/lance_transaction_pruner.h"
#include "catalog/storage_registry.h"
#include "catalog/table_access.h"
#include "common/result.h"
#include "io/file_io.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

class LanceVersions;     // catalog/lance_versions.h
class LanceRefs;         // catalog/lance_refs.h
class LanceBatchCommit;  // catalog/lance_batch_commit.h
class LanceManifests;    // catalog/lance_manifests.h

/// \brief The levels of a Lance identifier below the root, outermost first. Empty = root.
using LanceId = std::vector<std::string>;

/// \brief `a$b$c`, for messages (`$` is the delimiter today's clients use).
std::string FormatLanceId(const LanceId& id);

/// \brief What CreateNamespace does when the namespace exists.
enum class LanceCreateMode {
  kCreate,     ///< fail with `kNamespaceAlreadyExists`
  kExistOk,    ///< keep the existing one
  kOverwrite,  ///< replace it by a new, empty one (refused while it is not empty)
};
/// \brief What DropNamespace does when the namespace does not exist.
enum class LanceDropMode { kFail, kSkip };
/// \brief Whether DropNamespace may drop what the namespace holds.
enum class LanceDropBehavior { kRestrict, kCascade };
/// \brief What RegisterTable does when the name is taken by a Lance table.
enum class LanceRegisterMode { kCreate, kOverwrite };

/// \brief Settings of the Lance service.
/// (Where new catalogs go and which one is the default, the `CatalogService` decides.)
struct LanceSettings {
  /// A drop whose datasets hold more files than this continues in the background and
  /// answers with a transaction id (0: every drop of a non-empty dataset does).
  size_t async_drop_files = 10000;
  /// False keeps background work queued without running it (for tests).
  bool run_background_work = true;
  /// Finished transactions (SUCCEEDED, FAILED, CANCELED) unchanged for this long are
  /// forgotten (0: kept forever); see `LanceTransactionPruner`.
  std::chrono::seconds transaction_retention = kDefaultLanceTransactionRetention;
  /// Milliseconds since the epoch, for the retention (null: the system clock).
  std::function<int64_t()> clock = nullptr;
  /// The bound of the parsed manifests kept in memory (see `LanceManifestCache`).
  size_t manifest_cache_bytes = LanceManifestCache::kDefaultCapacityBytes;
};

/// \brief A Lance table as the catalog knows it.
struct LanceTableInfo {
  LanceId id;
  /// The dataset's root (absolute URI or path), where clients read and write it.
  std::string location;
  Properties properties;
  /// True when Cairn chose the location (DeclareTable without one): the whole directory
  /// belongs to the table.
  bool managed_location = false;
  /// True when Cairn manages the table's versions (clients commit each version through
  /// `LanceVersions`); fixed when the table is declared or registered, from its
  /// `managed_versioning` property, else its catalog's (see `ManagedVersioningOf`).
  bool managed_versioning = false;
  /// The store's id of the table (0 until it is stored).
  int64_t entity_id = 0;
  /// The table's latest version, when the caller looked it up (managed tables).
  std::optional<int64_t> version = std::nullopt;
};

/// \brief The property that asks for managed versioning, on a table or its catalog.
inline constexpr std::string_view kManagedVersioningProperty = "managed_versioning";

/// \brief Whether a table with `properties` in `catalog` has its versions managed: its
/// own `managed_versioning` property when set ("true" or "false", any case), else the
/// catalog's, else false. Errors: `kBadRequest` for another value.
Result<bool> ManagedVersioningOf(const CatalogRecord& catalog,
                                 const Properties& properties);

/// \brief A declaration checked and its location chosen, not recorded yet: what
/// `LanceService::DeclareTable` records (see `PlanDeclaration`).
struct LanceTableDeclaration {
  /// The table as it will be (its `entity_id` still 0).
  LanceTableInfo table = {};
  int64_t catalog_id = 0;
  NamespacePath ns = {};
  std::string name = {};
  /// What the store keeps in the entity's metadata.
  std::string metadata = {};
  LocationClaim claim = {};
};

/// \brief One page of names.
struct LanceNameListing {
  std::vector<std::string> names;
  /// Set only when more names follow.
  std::optional<std::string> next_page_token;
};

/// \brief One page of table ids across all catalogs.
struct LanceIdListing {
  std::vector<LanceId> ids;
  std::optional<std::string> next_page_token;
};

/// \brief What a drop did.
struct LanceDropOutcome {
  /// False when DropNamespace with mode Skip found nothing to drop.
  bool dropped = true;
  /// Properties of the dropped namespace or table.
  Properties properties;
  /// The dropped table's location (DropTable only).
  std::string location;
  /// Set when deleting the files did not finish within the request: it continues in the
  /// background, or it failed (DescribeTransaction tells which).
  std::optional<std::string> transaction_id;
};

class LanceService {
 public:
  /// \brief All references must outlive the service.
  /// `storages` describes the object storages (none: every table is local).
  LanceService(MetaStore& store, CatalogService& catalogs, FileIO& io,
               const LanceSettings& settings,
               const StorageRegistry& storages = NoStorages());
  /// \brief Stops the background thread; work in progress stays RUNNING in the store and
  /// resumes at the next `Start` (see `LanceDropWorker`).
  ~LanceService();
  LanceService(const LanceService&) = delete;
  LanceService& operator=(const LanceService&) = delete;

  /// \brief Queues every QUEUED or RUNNING transaction of the store (interrupted by a
  /// stop or crash) and starts the background threads (the pruner's prunes at once, in
  /// the background). Call once. Errors: the store's.
  Status Start();

  /// \brief Blocks until the background thread has nothing queued or running (tests).
  void WaitForBackgroundWork();

  /// \brief Starts stopping the background deletions without waiting
  /// (`LanceDropWorker::RequestStop`): called when the server's grace period is over,
  /// before its storage requests are aborted. Thread-safe.
  void RequestStop();

  // --- namespaces (level 1 = catalog) ------------------------------------------------

  /// \brief Creates a catalog (one level: its warehouse is the `location` property, else
  /// `<warehouse root>/<name>`) or a namespace; returns its properties. Errors:
  /// `kBadRequest` (root, invalid name or location, Overwrite of the default catalog),
  /// `kNamespaceAlreadyExists` (mode Create), `kNamespaceNotEmpty` (Overwrite of a
  /// non-empty one), `kNoSuchWarehouse`/`kNoSuchNamespace` (parent missing).
  Result<Properties> CreateNamespace(
      const LanceId& id, LanceCreateMode mode, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief The children of `parent` (root: the catalogs). Errors: `kBadRequest` (invalid
  /// id or token, a table id), `kNoSuchWarehouse`, `kNoSuchNamespace`.
  Result<LanceNameListing> ListNamespaces(const LanceId& parent, const PageRequest& page);

  /// \brief Properties of a namespace; a catalog's include its `location`. Errors as
  /// `ListNamespaces`.
  Result<Properties> DescribeNamespace(const LanceId& id);

  /// \brief OK when the namespace exists. Errors as `ListNamespaces`.
  Status NamespaceExists(const LanceId& id);

  /// \brief Drops a namespace or catalog. Restrict: it must be empty
  /// (`kNamespaceNotEmpty`). Cascade: everything below goes too — Iceberg tables and
  /// views are forgotten (their files kept, as an Iceberg drop without purge), Lance
  /// tables are dropped with their data as `DropTable` does. Errors: `kBadRequest` (root,
  /// the default catalog), `kNoSuchWarehouse`/`kNoSuchNamespace` (mode Fail),
  /// `kNamespaceNotEmpty`.
  Result<LanceDropOutcome> DropNamespace(
      const LanceId& id, LanceDropMode mode, LanceDropBehavior behavior,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Names of the Lance tables in a namespace (a catalog or the root holds none).
  /// Without `include_declared`, only tables whose dataset has a version. Errors as
  /// `ListNamespaces`.
  Result<LanceNameListing> ListTables(const LanceId& ns, const PageRequest& page,
                                      bool include_declared);

  /// \brief Ids of all Lance tables of all catalogs, oldest first. Errors: `kBadRequest`
  /// (token).
  Result<LanceIdListing> ListAllTables(const PageRequest& page);

  // --- tables (id = catalog, namespace levels..., name) --------------------------------

  /// \brief Reserves the name and returns the location the client is to write the dataset
  /// to: `location` when given, else `<catalog warehouse>/<namespace path>/<name>.lance`.
  /// Errors: `kBadRequest` (id, location), `kNoSuchWarehouse`, `kNoSuchNamespace`,
  /// `kAlreadyExists` (name taken by any table or view, or the default location already
  /// holds files or another table).
  Result<LanceTableInfo> DeclareTable(
      const LanceId& id, const std::optional<std::string>& location,
      const Properties& properties,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Everything `DeclareTable` checks and decides, without recording the table:
  /// for a commit that records it together with other changes (`LanceBatchCommit`).
  /// Errors as `DeclareTable`, except a name taken, which only recording finds.
  Result<LanceTableDeclaration> PlanDeclaration(
      const LanceId& id, const std::optional<std::string>& location,
      const Properties& properties);

  /// \brief Checks that the namespace of a planned table exists and its name is free, as
  /// recording it would find (one read each): for a commit that must refuse before it
  /// writes any file. Errors: `kNoSuchNamespace`, `kAlreadyExists`.
  Status CheckDeclarable(const LanceTableDeclaration& plan);

  /// \brief The error DeclareTable answers when recording table `id` failed with
  /// `error`: `kAlreadyExists` and `kNoSuchNamespace` worded for the table.
  static Error DeclarationError(const LanceId& id, Error error);

  /// \brief Registers the Lance dataset at `location` (it must have a valid manifest
  /// under `_versions/`). Errors: `kBadRequest` (no Lance dataset there, invalid id or
  /// location), `kUnsupported` (storage without a FileIO), `kAlreadyExists` (name taken;
  /// with Overwrite only by a non-Lance entity), `kNoSuchWarehouse`, `kNoSuchNamespace`.
  Result<LanceTableInfo> RegisterTable(
      const LanceId& id, std::string_view location, LanceRegisterMode mode,
      const Properties& properties,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Errors: `kBadRequest` (invalid id, or it names a namespace), `kNoSuchTable`
  /// (also when the name belongs to an Iceberg table or view), `kNoSuchWarehouse`.
  Result<LanceTableInfo> DescribeTable(const LanceId& id);

  /// \brief The storage side of `table`: its storage, and with `vend` credentials for
  /// its location (read-write until callers have roles). Errors: those of
  /// `StorageRegistry::Vend`.
  Result<TableAccess> AccessTo(const LanceTableInfo& table, bool vend,
                               StorageAccess access = StorageAccess::kReadWrite) const;

  /// \brief Whether the table is declared only: its dataset has no version yet.
  /// Errors: storage errors.
  Result<bool> IsOnlyDeclared(const LanceTableInfo& table);

  /// \brief OK when a Lance table has the id. Errors as `DescribeTable`.
  Status TableExists(const LanceId& id);

  /// \brief Forgets the table and deletes its dataset (see the file comment). Errors as
  /// `DescribeTable`.
  Result<LanceDropOutcome> DropTable(
      const LanceId& id, const WriteContext& write = WriteContext::Immediate());

  /// \brief Forgets the table and keeps its files. Errors as `DescribeTable`.
  Result<LanceTableInfo> DeregisterTable(
      const LanceId& id, const WriteContext& write = WriteContext::Immediate());

  /// \brief Renames a table, optionally into another namespace `to_namespace` of the
  /// same catalog; its location is unchanged. Errors: `kBadRequest` (ids, another
  /// catalog), `kNoSuchTable`, `kNoSuchNamespace`, `kAlreadyExists`.
  Status RenameTable(const LanceId& id, const std::optional<LanceId>& to_namespace,
                     std::string_view new_name,
                     const WriteContext& write = WriteContext::Immediate());

  /// \brief The versions of the tables whose versions Cairn manages.
  LanceVersions& versions() { return *versions_; }

  /// \brief The tags and branches of the tables, in their datasets.
  LanceRefs& refs() { return *refs_; }

  /// \brief Commits of several table operations at once (BatchCommitTables).
  LanceBatchCommit& batch_commit() { return *batch_commit_; }

  /// \brief The manifests of the tables' versions (parsed, cached).
  LanceManifests& manifests() { return *manifests_; }

  // --- transactions
  // ---------------------------------------------------------------------

  /// \brief Errors: `kNoSuchTransaction`.
  Result<LanceTransactionInfo> DescribeTransaction(std::string_view id);

  /// \brief Applies every action or none (see `LanceTransactionStatus` for the status
  /// changes a client may make). Errors: `kNoSuchTransaction`, `kBadRequest` (a status
  /// only the server sets, an empty key, a Fail mode that fails), `kCommitFailed` (the
  /// current status does not allow the change).
  Result<LanceTransactionInfo> AlterTransaction(
      std::string_view id, const std::vector<LanceTransactionAction>& actions,
      const WriteContext& write = WriteContext::Immediate());

 private:
  struct TableRef {
    CatalogRecord catalog;
    NamespacePath ns;
    std::string name;
  };

  /// Keys must not be empty (`kBadRequest`).
  static Status ValidatePropertyKeys(const Properties& properties);
  /// A valid catalog name, then valid namespace levels (`kBadRequest`); the root is
  /// valid.
  static Status ValidateNamespaceId(const LanceId& id);
  /// The catalog `name`; `kNoSuchNamespace` when missing (a catalog is a Lance
  /// namespace).
  Result<CatalogRecord> ResolveCatalog(const std::string& name);
  /// A catalog's properties on the Lance wire: its own plus `location`.
  static Properties CatalogProperties(const CatalogRecord& catalog);
  Result<TableRef> ResolveTable(const LanceId& id);
  Result<LanceTableInfo> LoadTable(const TableRef& ref, const LanceId& id);
  /// `<catalog warehouse>/<namespace levels>/<name>.lance`, when the namespace exists and
  /// nothing uses or lies at that location.
  Result<std::string> FreeDefaultLocation(const TableRef& ref, const LanceId& id);
  /// Records the planned table; returns its entity id. Errors: `kAlreadyExists` or
  /// `kNoSuchNamespace` worded for its id (`DeclarationError`).
  Result<int64_t> InsertTable(const LanceTableDeclaration& plan,
                              const WriteContext& write);
  /// The error for a table id that names no Lance table: a namespace, another kind, none.
  Error TableMissing(const TableRef& ref, const LanceId& id);
  /// The error for a namespace id that names no namespace: maybe it names a table.
  Error NamespaceMissing(const LanceId& id, Error original);
  Result<Properties> CreateCatalog(const std::string& name, LanceCreateMode mode,
                                   const Properties& properties,
                                   const WriteContext& write);
  Result<LanceDropOutcome> DropCatalog(const std::string& name, LanceDropMode mode,
                                       LanceDropBehavior behavior,
                                       const WriteContext& write);
  /// A planner for the store's drop of `target` by `operation`: records the deletion of
  /// the Lance datasets among the dropped entities, and its id in `transaction_id`.
  static DropPlanner PlanDeletion(std::string_view operation, const LanceId& target,
                                  std::optional<std::string>& transaction_id);

  MetaStore& store_;
  CatalogService& catalogs_;
  FileIO& io_;
  const StorageRegistry& storages_;
  LanceDropWorker drop_worker_;
  LanceTransactionPruner pruner_;
  std::unique_ptr<LanceVersions> versions_;
  std::unique_ptr<LanceRefs> refs_;
  std::unique_ptr<LanceBatchCommit> batch_commit_;
  std::unique_ptr<LanceManifests> manifests_;
};

}  // namespace cairn
