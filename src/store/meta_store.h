#pragma once

/// \file
/// \brief The metadata store interface: catalogs, namespaces and the entities that live
/// in namespaces. The store keeps rows and does compare-and-swap; it knows nothing of
/// Iceberg or Lance semantics. One implementation (`sql_store.h`) over two backends
/// (`OpenSqliteStore` below, `OpenPostgresStore` in `postgres_store.h`).
///
/// All implementations are safe for concurrent use from many threads. Every method that
/// writes catalogs, namespaces, entities or transaction records takes the caller's
/// `WriteContext` last (default: `WriteContext::Immediate()`, the write commits at once);
/// a request under an `Idempotency-Key` passes one bound to its scope, and its write is
/// parked there until the request's answer commits with it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/macros.h"
#include "common/namespace_path.h"
#include "common/result.h"
#include "store/idempotency_scope.h"
#include "store/write_context.h"

namespace cairn {

class IdentityStore;       // store/identity_store.h
class LanceVersionStore;   // store/lance_version_store.h
class MetricsReportStore;  // store/metrics_report_store.h

/// \brief A catalog (an Iceberg warehouse, a Gravitino catalog).
struct CatalogRecord {
  int64_t id = 0;
  /// Unique name; the Iceberg `prefix` and the Lance id's first level.
  std::string name;
  /// Absolute URI under which new tables get their default location.
  std::string location;
  Properties properties;

  bool operator==(const CatalogRecord&) const = default;
};

/// \brief A namespace and its properties.
struct NamespaceRecord {
  int64_t id = 0;
  NamespacePath path;
  Properties properties;
};

/// \brief One page of a keyset-paginated listing of names.
struct NamePage {
  /// Names in ascending byte order.
  std::vector<std::string> names;
  /// True when at least one more name follows the last one returned.
  bool has_more = false;
};

/// \brief What an update of namespace properties did.
struct PropertiesUpdateOutcome {
  std::vector<std::string> updated;  ///< every key that was set
  std::vector<std::string> removed;  ///< removal keys that existed
  std::vector<std::string> missing;  ///< removal keys that did not exist
};

/// \brief What lives in a namespace. Iceberg tables, Iceberg views and Lance tables share
/// one identifier space per namespace: a name is used by at most one of them.
enum class EntityKind { kIcebergTable, kIcebergView, kLanceTable };

/// \brief The stable text of a kind (stored in the database).
std::string_view EntityKindName(EntityKind kind);

/// \brief A table or view: where its current metadata file is, and that metadata itself,
/// so that loads never read object storage.
struct EntityRecord {
  int64_t id = 0;
  EntityKind kind = EntityKind::kIcebergTable;
  NamespacePath ns;
  std::string name;
  /// Location of the current metadata file (may be empty for kinds without one).
  std::string metadata_location;
  /// The current metadata (JSON text for Iceberg).
  std::string metadata;
  /// Incremented by every successful swap.
  int64_t version = 0;
};

/// \brief An entity without its metadata: enough for a load to tell whether what it has
/// cached for `metadata_location` is current.
struct EntityPointer {
  int64_t id = 0;
  EntityKind kind = EntityKind::kIcebergTable;
  std::string metadata_location;
};

/// \brief What the store keeps for an `Idempotency-Key`. The answer is opaque bytes:
/// the idempotency layer encodes and decodes it, the store only keeps it.
struct IdempotencyRecord {
  /// Hash of the operation and request the key was first used with.
  std::string fingerprint;
  /// Unset while the request runs, or while its effect is committed but its answer not
  /// yet stored.
  std::optional<std::string> answer;
};

/// \brief A byte range `[begin, end)` of a text.
struct TextSpan {
  size_t begin = 0;
  size_t end = 0;

  size_t size() const { return end - begin; }
  bool operator==(const TextSpan&) const = default;
};

/// \brief One list of parts of metadata stored split (whether to store an entity's
/// metadata split is the caller's choice; the store records it and reads it back without
/// knowing kinds): a head plus lists of parts, so that a version that keeps most parts of
/// the one before (a commit adding a snapshot to a long history) stores only what
/// changed. The list is a range of the document holding its parts joined by `,`; the head
/// is the document without the ranges of its lists. Loads get the document whole.
struct MetadataParts {
  /// Where the list lies in the document; the lists of one swap are given in ascending
  /// order and do not overlap.
  TextSpan range;
  /// Every part of the new version, in order, inside `range`.
  std::vector<TextSpan> parts;
  /// How the new version's list continues the current one's: the current one's first
  /// `dropped` parts are gone, its next `shared` parts are the new one's first `shared`
  /// (the same text), and the current one has `current_count` parts in all. (A log cut
  /// to its last N entries drops one at the front and adds one at the back.) The store
  /// keeps the shared ones only when it holds the current version's list split into
  /// exactly `current_count` parts and `dropped + shared <= current_count`; otherwise it
  /// writes all. It also writes all of a list that drops parts when the list is one of
  /// the first two (which binaries of older schemas write too). `shared` above the number
  /// of parts of either version, or `dropped` above `current_count`, is refused.
  size_t dropped = 0;
  size_t shared = 0;
  size_t current_count = 0;
};

/// \brief The locations an entity owns (canonical, see `common/location.h`): no other
/// entity's claimed location may be one of them, lie inside one or contain one. The
/// store checks and records a claim in the transaction that creates or swaps the
/// entity, so two racing writers cannot both claim overlapping locations.
struct LocationClaim {
  /// Canonical locations, none inside another; empty: the entity claims nothing.
  std::vector<std::string> locations;
  /// True: entities of the same catalog may overlap these (the catalog allows it);
  /// entities of other catalogs never may.
  bool overlap_in_catalog = false;
};

/// \brief An entity found without a location claim (see `ListUnclaimedEntities`).
struct UnclaimedEntity {
  int64_t id = 0;
  std::string catalog;
  EntityKind kind = EntityKind::kIcebergTable;
  std::string metadata_location;
  std::string metadata;
};

/// \brief A metadata file Cairn wrote, or may have written, that nothing references: its
/// write failed with an unknown outcome (an S3 PUT whose answer was lost may land later),
/// or deleting it after a failed commit failed. Kept until a sweep removes it (see
/// `catalog/orphan_files.h`).
struct OrphanFile {
  /// Canonical location of the file.
  std::string location;
  /// The entity whose create or commit wrote it (it may not exist).
  int64_t catalog_id = 0;
  NamespacePath ns;
  std::string name;
  /// When it was recorded (ms since the epoch); a sweep waits long enough after this for
  /// a late write to have landed.
  int64_t recorded_at_ms = 0;
};

/// \brief One compare-and-swap of an entity's metadata pointer. It owns what it carries:
/// it stays valid wherever it is kept, and copies share the document.
struct EntitySwap {
  EntitySwap() = default;
  /// \brief A swap to `metadata`, stored whole.
  EntitySwap(int64_t entity_id, std::string expected_location, std::string new_location,
             std::string metadata)
      : EntitySwap(entity_id, std::move(expected_location), std::move(new_location),
                   std::make_shared<const std::string>(std::move(metadata))) {}
  /// \brief A swap to the document `metadata` (not null), stored split into `parts` (see
  /// `MetadataParts`) or, when they are empty, whole.
  EntitySwap(int64_t entity_id, std::string expected_location, std::string new_location,
             std::shared_ptr<const std::string> metadata,
             std::vector<MetadataParts> parts = {})
      : entity_id(entity_id),
        expected_location(std::move(expected_location)),
        new_location(std::move(new_location)),
        metadata(std::move(metadata)),
        parts(std::move(parts)) {}

  int64_t entity_id = 0;
  /// The swap applies only while the entity still points here.
  std::string expected_location;
  std::string new_location;
  /// The new metadata document, whole; never null.
  std::shared_ptr<const std::string> metadata = std::make_shared<const std::string>();
  /// The lists of parts (ranges of `metadata`) when the new metadata is stored split;
  /// empty: stored whole.
  std::vector<MetadataParts> parts;
  /// Set when the entity's locations change: replaces its claim (see `LocationClaim`).
  std::optional<LocationClaim> claim = std::nullopt;
};

/// \brief An entity with the catalog it lives in, as a listing across catalogs returns
/// it.
struct EntityRef {
  int64_t id = 0;
  std::string catalog;
  NamespacePath ns;
  std::string name;
};

/// \brief One page of a listing of entities across all catalogs, in id order.
struct EntityPage {
  std::vector<EntityRef> entities;
  /// True when at least one more entity follows the last one returned.
  bool has_more = false;
};

/// \brief A durable record of long-running work (a Lance transaction). The store keeps it
/// and compare-and-swaps it by `version`; what `status` and `payload` mean is the
/// service's business.
struct TransactionRecord {
  std::string id;       ///< unique, chosen by the caller
  std::string status;   ///< free text for the store
  std::string payload;  ///< what the work is, opaque to the store (and to clients)
  Properties properties;
  /// Incremented by every successful update.
  int64_t version = 0;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
};

/// \brief One page of catalogs (`MetaStore::ListCatalogRecords`).
struct CatalogPage {
  std::vector<CatalogRecord> records;  ///< by name, ascending byte order
  bool has_more = false;               ///< at least one more catalog follows the last one
};

/// \brief One page of transaction records (`MetaStore::ListTransactionPage`).
struct TransactionPage {
  std::vector<TransactionRecord> records;  ///< by id, ascending byte order
  bool has_more = false;  ///< at least one more record follows the last one
};

/// \brief The most transaction records one `MetaStore::PruneTransactions` call removes.
inline constexpr size_t kMaxTransactionPruneBatch = 10'000;

/// \brief Decides, inside the store transaction of a drop, the transaction record to
/// write with it from every entity the drop removes (nullopt: none). Must not call the
/// store.
using DropPlanner = std::function<Result<std::optional<TransactionRecord>>(
    const std::vector<EntityRecord>&)>;

/// \brief Storage for catalogs, namespaces and the entities in them. Errors common to
/// every method: `kIOError` when the backend fails, `kServiceUnavailable` when it is
/// unreachable or busy.
class MetaStore {
 public:
  virtual ~MetaStore() = default;

  /// \brief Cheap liveness probe of the backend (used by `/health/ready`).
  virtual Status Ping() = 0;

  /// \brief Creates a catalog. Errors: `kAlreadyExists` when the name is taken.
  virtual Result<CatalogRecord> CreateCatalog(
      std::string_view name, std::string_view location, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Loads a catalog by name. Errors: `kNoSuchWarehouse` when it does not exist.
  virtual Result<CatalogRecord> GetCatalog(std::string_view name) = 0;

  /// \brief Replaces every property of a catalog by `properties` (its name and location
  /// stay). Errors: `kNoSuchWarehouse` when it does not exist.
  virtual Status SetCatalogProperties(
      int64_t catalog_id, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Replaces every property of a catalog by `replacement` only if they are
  /// `expected` now (a compare-and-swap, so that two read-modify-write updates never lose
  /// one's change): false, changing nothing, when they are not. Errors:
  /// `kNoSuchWarehouse` when it does not exist.
  virtual Result<bool> SwapCatalogProperties(
      int64_t catalog_id, const Properties& expected, const Properties& replacement,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Creates a namespace whose parent (all levels but the last) must exist.
  /// Errors: `kNoSuchNamespace` (parent missing), `kAlreadyExists`.
  virtual Status CreateNamespace(
      int64_t catalog_id, const NamespacePath& path, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Loads a namespace with its properties. Errors: `kNoSuchNamespace`.
  virtual Result<NamespaceRecord> LoadNamespace(int64_t catalog_id,
                                                const NamespacePath& path) = 0;

  /// \brief True when the namespace exists.
  virtual Result<bool> NamespaceExists(int64_t catalog_id, const NamespacePath& path) = 0;

  /// \brief Lists the names of the direct children of `parent` (empty = top level) that
  /// sort after `after`, at most `limit` of them (`std::nullopt` = all).
  /// Keyset-paginated: never reads the rows before `after`. Errors: `kNoSuchNamespace`
  /// when a non-empty `parent` does not exist.
  virtual Result<NamePage> ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                          std::string_view after,
                                          std::optional<size_t> limit) = 0;

  /// \brief Drops an empty namespace (no child namespaces, tables, views or Lance
  /// tables). Errors: `kNoSuchNamespace`, `kNamespaceNotEmpty`.
  virtual Status DropNamespace(int64_t catalog_id, const NamespacePath& path,
                               const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Sets `updates` and removes `removals` atomically. The caller guarantees the
  /// two are disjoint. Errors: `kNoSuchNamespace`.
  virtual Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Creates an entity in an existing namespace, claiming the locations of
  /// `claim`. Errors: `kNoSuchNamespace`; `kAlreadyExists` when any entity (of any kind)
  /// has the name — the message names the kind that holds it (`EntityKindName`);
  /// `kBadRequest` when a claimed location overlaps another entity's (nothing is
  /// created then).
  virtual Result<EntityRecord> CreateEntity(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      std::string_view metadata_location, std::string_view metadata,
      const LocationClaim& claim = {},
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Loads an entity of any kind; nullopt when the namespace or the name is
  /// absent.
  virtual Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) = 0;

  /// \brief The entity named `name` in `ns` without its metadata (one indexed read of a
  /// few bytes, whatever the metadata's size — so it reads no column stored after the
  /// metadata); nullopt when the namespace or name is absent.
  virtual Result<std::optional<EntityPointer>> LoadEntityPointer(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name) = 0;

  /// \brief LoadEntityPointer with the catalog given by name, in one read (the hot read
  /// of a table load); nullopt when the catalog, the namespace or the name is absent.
  virtual Result<std::optional<EntityPointer>> FindEntityPointer(
      std::string_view catalog_name, const NamespacePath& ns, std::string_view name) = 0;

  /// \brief The kind of the entity named `name` in `ns` (one indexed read, no metadata);
  /// nullopt when the namespace or the name is absent.
  virtual Result<std::optional<EntityKind>> EntityKindOf(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) = 0;

  /// \brief Applies all swaps atomically: true when every entity still pointed at its
  /// `expected_location` and all were updated; false (nothing changed) when any had moved
  /// on or is gone. Errors: `kCommitStateUnknown` when the store cannot tell whether the
  /// swaps were applied (the answer to its commit was lost and reading back could not
  /// decide); `kBadRequest` when a swap's new claim overlaps another entity's; any other
  /// error means nothing was applied.
  virtual Result<bool> SwapEntities(
      const std::vector<EntitySwap>& swaps,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Removes an entity of `kind`; false when no entity of that kind has the name.
  virtual Result<bool> DropEntity(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Moves an entity of `kind` to another namespace and/or name. Errors:
  /// `kNoSuchTable` (no such source of that kind), `kNoSuchNamespace` (target namespace),
  /// `kAlreadyExists` (target name used by any kind; message names the kind).
  virtual Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                              std::string_view from_name, const NamespacePath& to_ns,
                              std::string_view to_name, EntityKind kind,
                              const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Claims the key of `scope` for its request until `lease_until_ms`, recording
  /// `scope.instance` as the process that holds it: succeeds (nullopt) when the key is
  /// new, expired, or held by an abandoned claim — no effect applied, and either its
  /// lease is over or its instance has not beaten since `scope.stale_before_ms` or is no
  /// longer registered (`BeatInstance`). Otherwise returns the existing record (`answer`
  /// unset while another request is still working on it) without writing, so that
  /// duplicates of a running request only read.
  virtual Result<std::optional<IdempotencyRecord>> ClaimIdempotencyKey(
      const IdempotencyScope& scope, int64_t lease_until_ms) = 0;

  /// \brief Records that server process `instance` is alive at `now_ms`, registering it
  /// on its first call; also forgets a bounded batch of instances that have not beaten
  /// since `forget_before_ms`. Claims of an instance that stops beating are taken over
  /// once stale (`ClaimIdempotencyKey`). Thread-safe, like every method.
  virtual Status BeatInstance(std::string_view instance, int64_t now_ms,
                              int64_t forget_before_ms) = 0;

  /// \brief Unregisters `instance` (at a clean shutdown): claims it still holds are
  /// abandoned at once. No error when it is not registered.
  virtual Status RemoveInstance(std::string_view instance) = 0;

  /// \brief The record of `key`, unless it expired by `now_ms`; nullopt when none.
  virtual Result<std::optional<IdempotencyRecord>> LoadIdempotentResponse(
      std::string_view key, int64_t now_ms) = 0;

  /// \brief Stores `answer`, the final answer to the request holding the claim of
  /// `scope`. Also deletes a bounded batch of expired keys.
  virtual Status SaveIdempotentResponse(const IdempotencyScope& scope,
                                        std::string_view answer) = 0;

  /// \brief Gives up the claim of `scope` when its request applied nothing (a 5xx), so a
  /// retry executes.
  virtual Status ReleaseIdempotencyKey(const IdempotencyScope& scope) = 0;

  /// \brief True when an entity other than `except_entity_id` (in any catalog) has its
  /// metadata file at `location` or anywhere below it, or has claimed a location at,
  /// below or above it (`location` canonical): before deleting files, to never delete
  /// what another entity still uses.
  virtual Result<bool> LocationInUse(std::string_view location,
                                     int64_t except_entity_id) = 0;

  /// \brief The locations claimed by the table (Iceberg or Lance; views do not count)
  /// whose claim holds the canonical `location`: it claims `location` itself or one of
  /// its ancestors. nullopt when no table does. One point read per ancestor.
  virtual Result<std::optional<std::vector<std::string>>> TableClaimHolding(
      std::string_view location) = 0;

  /// \brief Entities that claim no location (created before claims existed), with an id
  /// above `after_id`, in id order, at most `limit` of them; `metadata` is what the
  /// entity row holds (for a table stored split, its head).
  virtual Result<std::vector<UnclaimedEntity>> ListUnclaimedEntities(int64_t after_id,
                                                                     size_t limit) = 0;

  /// \brief Records `claim` for an entity that has none, without the overlap check (the
  /// entities it may overlap exist already; refusing would lose the record of both).
  /// Does nothing when the entity claims something by now or is gone.
  virtual Status RecordLegacyClaim(int64_t entity_id, const LocationClaim& claim) = 0;

  /// \brief Records `file` as an orphan to sweep; a location already recorded gets the
  /// later of both times (and the new owner).
  virtual Status RecordOrphanFile(const OrphanFile& file) = 0;

  /// \brief At most `limit` (and at most 10,000) recorded orphans recorded before
  /// `before_ms`, earliest first.
  virtual Result<std::vector<OrphanFile>> OrphanFilesRecordedBefore(int64_t before_ms,
                                                                    size_t limit) = 0;

  /// \brief Forgets the orphan at `location` (nothing when it is not recorded).
  virtual Status ForgetOrphanFile(std::string_view location) = 0;

  /// \brief Keyset-paginated names of the entities of `kind` in `ns`, as
  /// `ListNamespaces`. Errors: `kNoSuchNamespace`.
  virtual Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                        EntityKind kind, std::string_view after,
                                        std::optional<size_t> limit) = 0;

  // --- Catalog listing and removal, cascading drops and transaction records (used by the
  // Lance service).

  /// \brief Keyset-paginated catalog names, as `ListNamespaces`.
  virtual Result<NamePage> ListCatalogs(std::string_view after,
                                        std::optional<size_t> limit) = 0;

  /// \brief One page of catalogs with their properties, by name after `after` (empty:
  /// from the first), at most `limit` (1 to 1000), read in one statement.
  virtual Result<CatalogPage> ListCatalogRecords(std::string_view after,
                                                 size_t limit) = 0;

  /// \brief Drops a catalog. Without `cascade` it must hold no namespace
  /// (`kNamespaceNotEmpty`); with it, every namespace and entity of the catalog goes in
  /// the same store transaction, together with the record `planner` returns for the
  /// dropped entities. Returns the dropped entities. Errors: `kNoSuchWarehouse`,
  /// `kNamespaceNotEmpty`, the planner's error (nothing is dropped then).
  virtual Result<std::vector<EntityRecord>> DropCatalog(
      int64_t catalog_id, bool cascade, const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Drops namespace `path`, every namespace below it and every entity in them,
  /// and writes the record `planner` returns, all in one store transaction. Returns the
  /// dropped entities. Errors: `kNoSuchNamespace`, the planner's error (nothing is
  /// dropped then).
  virtual Result<std::vector<EntityRecord>> DropNamespaceTree(
      int64_t catalog_id, const NamespacePath& path, const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Removes the entity `name` of `kind` and writes the record `planner` returns
  /// for it, in one store transaction. nullopt (and no record) when no entity of that
  /// kind has the name.
  virtual Result<std::optional<EntityRecord>> DropEntityWithRecord(
      int64_t catalog_id, const NamespacePath& ns, std::string_view name, EntityKind kind,
      const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Entities of `kind` in every catalog with an id above `after_id`, in id order,
  /// at most `limit` of them (nullopt = all).
  virtual Result<EntityPage> ListAllEntities(EntityKind kind, int64_t after_id,
                                             std::optional<size_t> limit) = 0;

  /// \brief Writes a new transaction record (its `version` is stored as 0).
  /// Errors: `kAlreadyExists` when the id is taken.
  virtual Status CreateTransaction(
      const TransactionRecord& record,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief The transaction record `id`; nullopt when there is none.
  virtual Result<std::optional<TransactionRecord>> LoadTransaction(
      std::string_view id) = 0;

  /// \brief Replaces status, payload and properties of record `updated.id` if its version
  /// is still `expected_version` (then the version is incremented): true when it was.
  virtual Result<bool> UpdateTransaction(
      const TransactionRecord& updated, int64_t expected_version,
      const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Every transaction record whose status is one of `statuses`, oldest first.
  virtual Result<std::vector<TransactionRecord>> ListTransactions(
      const std::vector<std::string>& statuses) = 0;

  /// \brief How many transaction records each status has (statuses without any are
  /// absent), in one statement. Errors: the store's.
  virtual Result<std::map<std::string, int64_t>> CountTransactionsByStatus() = 0;

  /// \brief At most `limit` transaction records (1 to 1000; more counts as 1000) with an
  /// id after `after_id` (empty: from the first), by id, with their properties; only
  /// those whose status is one of `statuses` unless it is empty. Keyset-paginated: the
  /// cost is the page's, whatever the number of records.
  virtual Result<TransactionPage> ListTransactionPage(
      const std::vector<std::string>& statuses, std::string_view after_id,
      size_t limit) = 0;

  /// \brief Removes a transaction record; false when there was none.
  virtual Result<bool> DeleteTransaction(
      std::string_view id, const WriteContext& write = WriteContext::Immediate()) = 0;

  /// \brief Removes, with their properties, at most `limit` transaction records (above
  /// `kMaxTransactionPruneBatch` counts as that many) whose status is one of `statuses`
  /// and whose `updated_at_ms` is before `updated_before_ms`, oldest first; returns how
  /// many it removed. Bounded work per call: callers repeat while full batches come back.
  /// A record updated meanwhile (so no longer matching) is left alone.
  virtual Result<int64_t> PruneTransactions(const std::vector<std::string>& statuses,
                                            int64_t updated_before_ms, size_t limit) = 0;

  // --- Integrity (`cairn admin check`).

  /// \brief Rows that point at a row that does not exist (a namespace whose parent is
  /// gone, an entity of a missing namespace, a property or version of a missing owner):
  /// one line per kind of problem, naming the table and how many rows; empty when there
  /// are none. Reads every row of the tables it checks: for offline checks only.
  /// Errors: the store's.
  virtual Result<std::vector<std::string>> FindOrphanedRows() = 0;

  // --- Identity (issue 15).

  /// \brief The identity rows of this same store (principals, roles, grants, signing
  /// keys; see `store/identity_store.h`). Lives as long as the store.
  virtual IdentityStore& identity() = 0;

  // --- Lance versions (issue 16).

  /// \brief The versions of managed Lance tables in this same store (see
  /// `store/lance_version_store.h`). Lives as long as the store.
  virtual LanceVersionStore& lance_versions() = 0;

  // --- Iceberg metrics reports (issue 18).

  /// \brief The metrics reports kept in this same store (see
  /// `store/metrics_report_store.h`). Lives as long as the store.
  virtual MetricsReportStore& metrics_reports() = 0;
};

/// \brief Where a database's schema stands against the migrations this binary has.
struct SchemaState {
  /// The schema version the database records (0: none yet, a new database).
  int64_t current = 0;
  /// The version this binary migrates to.
  int64_t latest = 0;
  /// The SQL of each migration still to apply, from version `current + 1` on (empty
  /// when the database is current, or newer than this binary).
  std::vector<std::string> pending;
};

/// \brief Settings of the SQLite backend.
struct SqliteOptions {
  /// Database file path, or `:memory:` (a private in-memory database for tests).
  std::string path;
  /// `PRAGMA synchronous`: `full` (default: a commit survives power loss) or `normal`.
  std::string synchronous = "full";
  /// How long a writer waits for the database lock before failing.
  int busy_timeout_ms = 5000;
  /// Connections kept open: two per worker thread (a request under an Idempotency-Key
  /// holds one open write while it may read with another).
  size_t pool_size = 8;
};

/// \brief Opens (creating if needed) a SQLite store and applies pending schema
/// migrations. Errors: `kIOError` when the file cannot be opened or migrated.
Result<std::unique_ptr<MetaStore>> OpenSqliteStore(const SqliteOptions& options);

/// \brief The schema state of the SQLite database at `options.path`, read without
/// changing it (`cairn admin migrate --dry-run`). The file must exist. Errors:
/// `kIOError` when it cannot be opened or read.
Result<SchemaState> InspectSqliteSchema(const SqliteOptions& options);

}  // namespace cairn
