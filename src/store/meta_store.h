#pragma once

/// \file
/// \brief The metadata store interface: catalogs, namespaces and (later) the entities that
/// live in namespaces. The store keeps rows and does compare-and-swap; it knows nothing of
/// Iceberg or Lance semantics. One implementation per backend (`sqlite_store`, later
/// `postgres_store`).
///
/// All implementations are safe for concurrent use from many threads.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn {

/// \brief Namespace levels, outermost first (`{"accounting", "tax"}`).
using NamespacePath = std::vector<std::string>;
/// \brief String properties, ordered by key.
using Properties = std::map<std::string, std::string>;

/// \brief Levels joined with `.`, as the Java reference prints namespaces in messages.
std::string DottedName(const NamespacePath& path);

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

/// \brief One compare-and-swap of an entity's metadata pointer.
struct EntitySwap {
  int64_t entity_id = 0;
  /// The swap applies only while the entity still points here.
  std::string expected_location;
  std::string new_location;
  std::string new_metadata;
};

/// \brief Storage for catalogs, namespaces and the entities in them. Errors common to every method: `kIOError`
/// when the backend fails, `kServiceUnavailable` when it is unreachable or busy.
class MetaStore {
 public:
  virtual ~MetaStore() = default;

  /// \brief Cheap liveness probe of the backend (used by `/health/ready`).
  virtual Status Ping() = 0;

  /// \brief Creates a catalog. Errors: `kAlreadyExists` when the name is taken.
  virtual Result<CatalogRecord> CreateCatalog(std::string_view name, std::string_view location,
                                              const Properties& properties) = 0;

  /// \brief Loads a catalog by name. Errors: `kNoSuchWarehouse` when it does not exist.
  virtual Result<CatalogRecord> GetCatalog(std::string_view name) = 0;

  /// \brief Creates a namespace whose parent (all levels but the last) must exist.
  /// Errors: `kNoSuchNamespace` (parent missing), `kAlreadyExists`.
  virtual Status CreateNamespace(int64_t catalog_id, const NamespacePath& path,
                                 const Properties& properties) = 0;

  /// \brief Loads a namespace with its properties. Errors: `kNoSuchNamespace`.
  virtual Result<NamespaceRecord> LoadNamespace(int64_t catalog_id,
                                                const NamespacePath& path) = 0;

  /// \brief True when the namespace exists.
  virtual Result<bool> NamespaceExists(int64_t catalog_id, const NamespacePath& path) = 0;

  /// \brief Lists the names of the direct children of `parent` (empty = top level) that
  /// sort after `after`, at most `limit` of them (`std::nullopt` = all). Keyset-paginated:
  /// never reads the rows before `after`. Errors: `kNoSuchNamespace` when a non-empty
  /// `parent` does not exist.
  virtual Result<NamePage> ListNamespaces(int64_t catalog_id, const NamespacePath& parent,
                                          std::string_view after,
                                          std::optional<size_t> limit) = 0;

  /// \brief Drops an empty namespace (no child namespaces, tables, views or Lance tables).
  /// Errors: `kNoSuchNamespace`, `kNamespaceNotEmpty`.
  virtual Status DropNamespace(int64_t catalog_id, const NamespacePath& path) = 0;

  /// \brief Sets `updates` and removes `removals` atomically. The caller guarantees the
  /// two are disjoint. Errors: `kNoSuchNamespace`.
  virtual Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      int64_t catalog_id, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals) = 0;

  /// \brief Creates an entity in an existing namespace. Errors: `kNoSuchNamespace`;
  /// `kAlreadyExists` when any entity (of any kind) has the name — the message names the
  /// kind that holds it (`EntityKindName`).
  virtual Result<EntityRecord> CreateEntity(int64_t catalog_id, const NamespacePath& ns,
                                            std::string_view name, EntityKind kind,
                                            std::string_view metadata_location,
                                            std::string_view metadata) = 0;

  /// \brief Loads an entity of any kind; nullopt when the namespace or the name is absent.
  virtual Result<std::optional<EntityRecord>> LoadEntity(int64_t catalog_id,
                                                         const NamespacePath& ns,
                                                         std::string_view name) = 0;

  /// \brief Applies all swaps atomically: true when every entity still pointed at its
  /// `expected_location` and all were updated; false (nothing changed) when any had moved
  /// on or is gone.
  virtual Result<bool> SwapEntities(const std::vector<EntitySwap>& swaps) = 0;

  /// \brief Removes an entity of `kind`; false when no entity of that kind has the name.
  virtual Result<bool> DropEntity(int64_t catalog_id, const NamespacePath& ns,
                                  std::string_view name, EntityKind kind) = 0;

  /// \brief Moves an entity of `kind` to another namespace and/or name. Errors:
  /// `kNoSuchTable` (no such source of that kind), `kNoSuchNamespace` (target namespace),
  /// `kAlreadyExists` (target name used by any kind; message names the kind).
  virtual Status RenameEntity(int64_t catalog_id, const NamespacePath& from_ns,
                              std::string_view from_name, const NamespacePath& to_ns,
                              std::string_view to_name, EntityKind kind) = 0;

  /// \brief Keyset-paginated names of the entities of `kind` in `ns`, as
  /// `ListNamespaces`. Errors: `kNoSuchNamespace`.
  virtual Result<NamePage> ListEntities(int64_t catalog_id, const NamespacePath& ns,
                                        EntityKind kind, std::string_view after,
                                        std::optional<size_t> limit) = 0;
};

/// \brief Settings of the SQLite backend.
struct SqliteOptions {
  /// Database file path, or `:memory:` (a private in-memory database for tests).
  std::string path;
  /// `PRAGMA synchronous`: `full` (default: a commit survives power loss) or `normal`.
  std::string synchronous = "full";
  /// How long a writer waits for the database lock before failing.
  int busy_timeout_ms = 5000;
  /// Connections kept open (one per concurrently running worker is enough).
  size_t pool_size = 4;
};

/// \brief Opens (creating if needed) a SQLite store and applies pending schema
/// migrations. Errors: `kIOError` when the file cannot be opened or migrated.
Result<std::unique_ptr<MetaStore>> OpenSqliteStore(const SqliteOptions& options);

}  // namespace cairn
