#pragma once

/// \file
/// \brief The catalog service: the one place that implements catalog semantics (name
/// rules, pagination tokens, the default catalog) on top of a `MetaStore`. Protocol
/// adapters (`iceberg/rest`, `lance/rest`) translate wire requests into these calls.
///
/// Every method that writes takes the caller's `WriteContext` last (default
/// `WriteContext::Immediate()`: each write commits at once) and makes all its store
/// writes in it; work that must follow the store commit (deleting files) goes through
/// `WriteContext::AfterCommit`.
///
/// Thread-safe: holds no mutable state of its own; the store is thread-safe.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/location_policy.h"
#include "common/result.h"
#include "store/meta_store.h"
#include "store/write_context.h"

namespace cairn {

/// \brief Settings the service needs from the server configuration.
struct CatalogSettings {
  /// Name of the catalog used when a request names none; created at start if missing.
  std::string default_catalog = "default";
  /// Absolute URI of the directory holding the warehouses of new catalogs
  /// (`file:///.../cairn-data/warehouse`); a catalog named `x` gets `<root>/x`.
  std::string warehouse_root;
  /// Canonical locations every catalog's warehouse and entities must lie under (see
  /// `LocationPolicy`); empty: just `warehouse_root`.
  std::vector<std::string> allowed_locations = {};
};

/// \brief A page request as the protocols express it.
struct PageRequest {
  /// Opaque token from a previous page; empty = first page.
  std::string token;
  /// Upper bound on the page size; nullopt = everything that remains.
  std::optional<size_t> page_size;
};

/// Largest page the server returns, whatever the client asks for.
inline constexpr size_t kMaxPageSize = 1000;

/// \brief One page of namespaces.
struct NamespaceListing {
  std::vector<NamespacePath> namespaces;
  /// Token for the next page; set only when more namespaces remain.
  std::optional<std::string> next_page_token;
};

class CatalogService {
 public:
  /// \brief `store` must outlive the service.
  CatalogService(MetaStore& store, CatalogSettings settings);

  // --- catalogs ----------------------------------------------------------------------

  /// \brief Creates the default catalog (with its warehouse location) when it is missing.
  /// Errors: `kBadRequest` (invalid default name or warehouse root), store errors.
  Status EnsureDefaultCatalog();

  /// \brief Creates catalog `name`. Its warehouse is `location` when given, else
  /// `DefaultWarehouseOf(name)`; either way it must lie under the allowed locations and
  /// is stored canonical, as is its `allowed-locations` property. Errors: `kBadRequest`
  /// (invalid name or location, an invalid `maintenance.*` property), `kAlreadyExists`.
  Result<CatalogRecord> CreateCatalog(
      std::string_view name, const std::optional<std::string>& location,
      Properties properties, const WriteContext& write = WriteContext::Immediate());

  /// \brief Drops `catalog`. Without `cascade` it must hold no namespace; with it, every
  /// namespace and entity of the catalog goes too, in one store transaction with the
  /// record `planner` returns for the dropped entities (may be empty: no record). Returns
  /// the dropped entities. Errors: `kBadRequest` (the default catalog, which is never
  /// dropped), `kNoSuchWarehouse`, `kNamespaceNotEmpty`, the planner's error.
  Result<std::vector<EntityRecord>> DropCatalog(
      const CatalogRecord& catalog, bool cascade, const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Applies `updates` and then `removals` to catalog `name`'s properties, checked
  /// as a new catalog's are (`allowed-locations` canonical, under the server's), and
  /// returns the catalog as stored. The warehouse never moves. Errors:
  /// `kNoSuchWarehouse`, `kBadRequest` (an empty or over-long key, an invalid
  /// `allowed-locations` or `maintenance.*` property), `kUnprocessableEntity` (a key in
  /// both), store errors.
  Result<CatalogRecord> UpdateCatalogProperties(std::string_view name,
                                                const Properties& updates,
                                                const std::vector<std::string>& removals);

  /// \brief Replaces every property of catalog `name` by `properties`, checked as
  /// `UpdateCatalogProperties` checks (a catalog declared in the configuration file, at
  /// start). Errors: as `UpdateCatalogProperties`.
  Result<CatalogRecord> ReplaceCatalogProperties(std::string_view name,
                                                 Properties properties);

  /// \brief One page of catalogs, by name, after `after` (empty: from the first).
  Result<std::vector<CatalogRecord>> ListCatalogs(std::string_view after, size_t limit,
                                                  bool& has_more);

  /// \brief The warehouse of a new catalog that names none:
  /// `<warehouse root>/<name, percent-encoded>` (not yet checked against the policy).
  std::string DefaultWarehouseOf(std::string_view name) const;

  /// \brief True for the catalog requests without a catalog name use.
  bool IsDefaultCatalog(std::string_view name) const {
    return name == settings_.default_catalog;
  }

  /// \brief Resolves a catalog by name; an empty name means the default catalog.
  /// Errors: `kNoSuchWarehouse`.
  Result<CatalogRecord> ResolveCatalog(std::string_view name);
  /// \brief The name a request's catalog name stands for (empty: the default catalog).
  std::string_view EffectiveName(std::string_view name) const;

  /// \brief Creates a namespace. Errors: `kBadRequest` (invalid name or properties),
  /// `kNoSuchWarehouse`, `kNoSuchNamespace` (parent missing), `kAlreadyExists`.
  Result<NamespaceRecord> CreateNamespace(
      std::string_view catalog, const NamespacePath& path, const Properties& properties,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Errors: `kBadRequest`, `kNoSuchWarehouse`, `kNoSuchNamespace`.
  Result<NamespaceRecord> LoadNamespace(std::string_view catalog,
                                        const NamespacePath& path);

  /// \brief Errors: `kBadRequest`, `kNoSuchWarehouse`.
  Result<bool> NamespaceExists(std::string_view catalog, const NamespacePath& path);

  /// \brief Lists the direct children of `parent` (empty = top level).
  /// Errors: `kBadRequest` (invalid parent or token), `kNoSuchWarehouse`,
  /// `kNoSuchNamespace`.
  Result<NamespaceListing> ListNamespaces(std::string_view catalog,
                                          const NamespacePath& parent,
                                          const PageRequest& page);

  /// \brief Errors: `kBadRequest`, `kNoSuchWarehouse`, `kNoSuchNamespace`,
  /// `kNamespaceNotEmpty`.
  Status DropNamespace(std::string_view catalog, const NamespacePath& path,
                       const WriteContext& write = WriteContext::Immediate());

  /// \brief Drops namespace `path` of `catalog` with every namespace below it and every
  /// entity in them, in one store transaction with the record `planner` returns for the
  /// dropped entities. Returns the dropped entities. Errors: `kBadRequest`,
  /// `kNoSuchNamespace`, the planner's error (nothing is dropped then).
  Result<std::vector<EntityRecord>> DropNamespaceTree(
      const CatalogRecord& catalog, const NamespacePath& path, const DropPlanner& planner,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief Errors: `kBadRequest`, `kUnprocessableEntity` (a key both updated and
  /// removed), `kNoSuchWarehouse`, `kNoSuchNamespace`.
  Result<PropertiesUpdateOutcome> UpdateNamespaceProperties(
      std::string_view catalog, const NamespacePath& path, const Properties& updates,
      const std::vector<std::string>& removals,
      const WriteContext& write = WriteContext::Immediate());

  /// \brief True when the store answers. Errors: whatever the store reports.
  Status Ping() { return store_.Ping(); }

  /// \brief Where the catalogs' entities may live.
  const LocationPolicy& locations() const { return locations_; }

 private:
  /// Concurrent updates of one catalog's properties each retry their swap at most this
  /// often before answering 503.
  static constexpr int kMaxPropertyUpdateAttempts = 16;

  /// The checks of a catalog's properties (`allowed-locations`, rewritten canonical;
  /// `maintenance.*`) under warehouse `location`.
  Status CheckCatalogProperties(std::string_view location, Properties& properties) const;

  MetaStore& store_;
  CatalogSettings settings_;
  LocationPolicy locations_;
};

}  // namespace cairn
