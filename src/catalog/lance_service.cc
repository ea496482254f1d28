#include "catalog/lance_service.h"

#include "catalog/lance_batch_commit.h"
#include "catalog/lance_manifests.h"
#include "catalog/lance_refs.h"
#include "catalog/lance_versions.h"

// LanceService: its life cycle, the namespace tree (level 1 = catalog) and transactions.
// Tables are in lance_tables.cc, the deletion of dropped datasets in
// lance_drop_worker.cc.

#include <algorithm>
#include <chrono>

#include <fmt/ranges.h>

#include "catalog/lance_drop_record.h"
#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

/// The catalog property that holds its warehouse location on the Lance wire.
constexpr std::string_view kCatalogLocationProperty = "location";

int64_t SystemMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string FormatLanceId(const LanceId& id) {
  return fmt::format("{}", fmt::join(id, "$"));
}

LanceService::LanceService(MetaStore& store, CatalogService& catalogs, FileIO& io,
                           const LanceSettings& settings, const StorageRegistry& storages)
    : store_(store),
      catalogs_(catalogs),
      io_(io),
      storages_(storages),
      drop_worker_(store, io,
                   LanceDropWorkerSettings{settings.async_drop_files,
                                           settings.run_background_work}),
      pruner_(store, settings.clock ? settings.clock : SystemMillis,
              settings.transaction_retention),
      versions_(std::make_unique<LanceVersions>(store, *this, io)),
      refs_(std::make_unique<LanceRefs>(*this, io)),
      batch_commit_(std::make_unique<LanceBatchCommit>(store, *this, io)),
      manifests_(
          std::make_unique<LanceManifests>(*this, io, settings.manifest_cache_bytes)) {}

LanceService::~LanceService() { drop_worker_.Stop(); }

Result<TableAccess> LanceService::AccessTo(const LanceTableInfo& table, bool vend,
                                           StorageAccess access) const {
  CAIRN_ASSIGN_OR_RAISE(auto location, CanonicalLocation(table.location));
  // A Lance table owns its dataset directory and nothing else.
  EntityStorageLocations locations{location, {location}};
  return TableAccessOf(storages_, locations, vend, access);
}

Status LanceService::Start() {
  CAIRN_RETURN_IF_ERROR(drop_worker_.Start());
  pruner_.Start();
  return Ok();
}

void LanceService::WaitForBackgroundWork() { drop_worker_.WaitUntilIdle(); }

void LanceService::RequestStop() { drop_worker_.RequestStop(); }

// --- namespaces ------------------------------------------------------------------------

Result<Properties> LanceService::CreateNamespace(const LanceId& id, LanceCreateMode mode,
                                                 const Properties& properties,
                                                 const WriteContext& write) {
  if (id.empty())
    return BadRequest("The root namespace always exists; it cannot be created");
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(id));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys(properties));
  if (id.size() == 1) {
    // A catalog's `managed_versioning` is every table's default: refuse a value no
    // table could be declared with.
    CAIRN_RETURN_IF_ERROR(ManagedVersioningOf(CatalogRecord{}, properties));
    return CreateCatalog(id[0], mode, properties, write);
  }
  const NamespacePath ns(id.begin() + 1, id.end());
  CAIRN_ASSIGN_OR_RAISE(auto catalog, ResolveCatalog(id[0]));
  auto created = catalogs_.CreateNamespace(catalog.name, ns, properties, write);
  if (created) return created->properties;
  if (created.error().kind == ErrorKind::kNoSuchNamespace) {
    return NoSuchNamespace("Parent namespace does not exist: {}",
                           FormatLanceId(LanceId(id.begin(), id.end() - 1)));
  }
  if (created.error().kind != ErrorKind::kAlreadyExists)
    return tl::unexpected(created.error());
  switch (mode) {
    case LanceCreateMode::kCreate:
      return NamespaceAlreadyExists("Namespace already exists: {}", FormatLanceId(id));
    case LanceCreateMode::kExistOk: {
      CAIRN_ASSIGN_OR_RAISE(auto existing, catalogs_.LoadNamespace(catalog.name, ns));
      return existing.properties;
    }
    case LanceCreateMode::kOverwrite:
      break;
  }
  // Overwrite = drop and create anew; only an empty namespace is replaced, never its
  // contents dropped silently.
  auto dropped = catalogs_.DropNamespace(catalog.name, ns, write);
  if (!dropped && dropped.error().kind == ErrorKind::kNamespaceNotEmpty) {
    return NamespaceNotEmpty(
        "Cannot overwrite namespace {}: it is not empty (drop it with behavior Cascade "
        "first)",
        FormatLanceId(id));
  }
  if (!dropped && dropped.error().kind != ErrorKind::kNoSuchNamespace) {
    return tl::unexpected(dropped.error());
  }
  auto recreated = catalogs_.CreateNamespace(catalog.name, ns, properties, write);
  if (!recreated && recreated.error().kind == ErrorKind::kAlreadyExists) {
    return CommitFailed("Namespace {} was created concurrently", FormatLanceId(id));
  }
  if (!recreated) return tl::unexpected(recreated.error());
  return recreated->properties;
}

Result<Properties> LanceService::CreateCatalog(const std::string& name,
                                               LanceCreateMode mode,
                                               const Properties& properties,
                                               const WriteContext& write) {
  auto existing = catalogs_.ResolveCatalog(name);
  if (!existing && existing.error().kind != ErrorKind::kNoSuchWarehouse) {
    return tl::unexpected(existing.error());
  }
  if (existing) {
    switch (mode) {
      case LanceCreateMode::kCreate:
        return NamespaceAlreadyExists("Namespace (catalog) already exists: {}", name);
      case LanceCreateMode::kExistOk:
        return CatalogProperties(*existing);
      case LanceCreateMode::kOverwrite:
        break;
    }
    if (catalogs_.IsDefaultCatalog(name)) {
      return BadRequest("The default catalog '{}' cannot be replaced", name);
    }
    auto dropped = catalogs_.DropCatalog(*existing, /*cascade=*/false, nullptr, write);
    if (!dropped && dropped.error().kind == ErrorKind::kNamespaceNotEmpty) {
      return NamespaceNotEmpty(
          "Cannot overwrite catalog {}: it is not empty (drop it with behavior Cascade "
          "first)",
          name);
    }
    if (!dropped && dropped.error().kind != ErrorKind::kNoSuchWarehouse) {
      return tl::unexpected(dropped.error());
    }
  }
  // On the Lance wire the warehouse is the `location` property; the catalog keeps it
  // apart.
  Properties catalog_properties = properties;
  std::optional<std::string> location;
  if (auto it = catalog_properties.find(std::string(kCatalogLocationProperty));
      it != catalog_properties.end()) {
    location = it->second;
    catalog_properties.erase(it);
  }
  auto created =
      catalogs_.CreateCatalog(name, location, std::move(catalog_properties), write);
  if (!created && created.error().kind == ErrorKind::kAlreadyExists) {
    return NamespaceAlreadyExists("Namespace (catalog) already exists: {}", name);
  }
  if (!created) return tl::unexpected(created.error());
  return CatalogProperties(*created);
}

Result<LanceNameListing> LanceService::ListNamespaces(const LanceId& parent,
                                                      const PageRequest& page) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(parent));
  const size_t limit = std::min(page.page_size.value_or(kMaxPageSize), kMaxPageSize);
  LanceNameListing listing;
  if (parent.empty()) {
    CAIRN_ASSIGN_OR_RAISE(std::string after, HexDecode(page.token, "page_token"));
    CAIRN_ASSIGN_OR_RAISE(auto names, store_.ListCatalogs(after, limit));
    listing.names = std::move(names.names);
    if (names.has_more && !listing.names.empty()) {
      listing.next_page_token = HexEncode(listing.names.back());
    }
    return listing;
  }
  CAIRN_ASSIGN_OR_RAISE(auto catalog, ResolveCatalog(parent[0]));
  const NamespacePath ns(parent.begin() + 1, parent.end());
  auto children =
      catalogs_.ListNamespaces(catalog.name, ns, PageRequest{page.token, limit});
  if (!children) return tl::unexpected(NamespaceMissing(parent, children.error()));
  for (auto& child : children->namespaces)
    listing.names.push_back(std::move(child.back()));
  listing.next_page_token = std::move(children->next_page_token);
  return listing;
}

Result<Properties> LanceService::DescribeNamespace(const LanceId& id) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(id));
  if (id.empty()) return Properties{};
  CAIRN_ASSIGN_OR_RAISE(auto catalog, ResolveCatalog(id[0]));
  if (id.size() == 1) return CatalogProperties(catalog);
  auto loaded =
      catalogs_.LoadNamespace(catalog.name, NamespacePath(id.begin() + 1, id.end()));
  if (!loaded) return tl::unexpected(NamespaceMissing(id, loaded.error()));
  return loaded->properties;
}

Status LanceService::NamespaceExists(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto properties, DescribeNamespace(id));
  (void)properties;
  return Ok();
}

Result<LanceDropOutcome> LanceService::DropNamespace(const LanceId& id,
                                                     LanceDropMode mode,
                                                     LanceDropBehavior behavior,
                                                     const WriteContext& write) {
  if (id.empty()) return BadRequest("The root namespace cannot be dropped");
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(id));
  if (id.size() == 1) return DropCatalog(id[0], mode, behavior, write);
  LanceDropOutcome outcome;
  auto properties = DescribeNamespace(id);
  if (!properties) {
    const ErrorKind kind = properties.error().kind;
    if (mode == LanceDropMode::kSkip &&
        (kind == ErrorKind::kNoSuchNamespace || kind == ErrorKind::kNoSuchWarehouse)) {
      outcome.dropped = false;
      return outcome;
    }
    return tl::unexpected(properties.error());
  }
  outcome.properties = std::move(*properties);
  CAIRN_ASSIGN_OR_RAISE(auto catalog, ResolveCatalog(id[0]));
  const NamespacePath ns(id.begin() + 1, id.end());
  if (behavior == LanceDropBehavior::kRestrict) {
    auto dropped = catalogs_.DropNamespace(catalog.name, ns, write);
    if (!dropped && dropped.error().kind == ErrorKind::kNamespaceNotEmpty) {
      return NamespaceNotEmpty(
          "Namespace {} is not empty; drop what it holds first or use behavior Cascade",
          FormatLanceId(id));
    }
    if (!dropped && dropped.error().kind == ErrorKind::kNoSuchNamespace &&
        mode == LanceDropMode::kSkip) {
      outcome.dropped = false;
      return outcome;
    }
    if (!dropped) return tl::unexpected(dropped.error());
    return outcome;
  }
  std::optional<std::string> transaction_id;
  auto dropped = catalogs_.DropNamespaceTree(
      catalog, ns, PlanDeletion("DropNamespace", id, transaction_id), write);
  if (!dropped && dropped.error().kind == ErrorKind::kNoSuchNamespace &&
      mode == LanceDropMode::kSkip) {
    outcome.dropped = false;
    return outcome;
  }
  if (!dropped) return tl::unexpected(dropped.error());
  if (transaction_id) {
    CAIRN_ASSIGN_OR_RAISE(outcome.transaction_id, drop_worker_.Submit(*transaction_id));
  }
  return outcome;
}

Result<LanceDropOutcome> LanceService::DropCatalog(const std::string& name,
                                                   LanceDropMode mode,
                                                   LanceDropBehavior behavior,
                                                   const WriteContext& write) {
  LanceDropOutcome outcome;
  auto catalog = ResolveCatalog(name);
  if (!catalog) {
    if (mode == LanceDropMode::kSkip &&
        catalog.error().kind == ErrorKind::kNoSuchNamespace) {
      outcome.dropped = false;
      return outcome;
    }
    return tl::unexpected(catalog.error());
  }
  outcome.properties = CatalogProperties(*catalog);
  const bool cascade = behavior == LanceDropBehavior::kCascade;
  std::optional<std::string> transaction_id;
  auto dropped = catalogs_.DropCatalog(
      *catalog, cascade, PlanDeletion("DropNamespace", {name}, transaction_id), write);
  if (!dropped && dropped.error().kind == ErrorKind::kNamespaceNotEmpty) {
    return NamespaceNotEmpty(
        "Catalog {} is not empty; drop its namespaces first or use behavior Cascade",
        name);
  }
  if (!dropped && dropped.error().kind == ErrorKind::kNoSuchWarehouse &&
      mode == LanceDropMode::kSkip) {
    outcome.dropped = false;
    return outcome;
  }
  if (!dropped) return tl::unexpected(dropped.error());
  if (transaction_id) {
    CAIRN_ASSIGN_OR_RAISE(outcome.transaction_id, drop_worker_.Submit(*transaction_id));
  }
  return outcome;
}

// --- transactions ----------------------------------------------------------------------

Result<LanceTransactionInfo> LanceService::DescribeTransaction(std::string_view id) {
  CAIRN_ASSIGN_OR_RAISE(auto record, store_.LoadTransaction(id));
  if (!record) return NoSuchTransaction("Transaction does not exist: {}", id);
  CAIRN_ASSIGN_OR_RAISE(auto status, ParseLanceTransactionStatus(record->status));
  return LanceTransactionInfo{record->id, status, record->properties};
}

Result<LanceTransactionInfo> LanceService::AlterTransaction(
    std::string_view id, const std::vector<LanceTransactionAction>& actions,
    const WriteContext& write) {
  for (int attempt = 0; attempt < kMaxTransactionSwapAttempts; ++attempt) {
    CAIRN_ASSIGN_OR_RAISE(auto record, store_.LoadTransaction(id));
    if (!record) return NoSuchTransaction("Transaction does not exist: {}", id);
    CAIRN_ASSIGN_OR_RAISE(auto before, ParseLanceTransactionStatus(record->status));
    CAIRN_ASSIGN_OR_RAISE(
        auto altered,
        ApplyTransactionActions(
            LanceTransactionInfo{record->id, before, record->properties}, actions));
    if (altered.status == before && altered.properties == record->properties) {
      return altered;
    }
    TransactionRecord updated = *record;
    updated.status = std::string(LanceTransactionStatusName(altered.status));
    updated.properties = altered.properties;
    CAIRN_ASSIGN_OR_RAISE(bool swapped,
                          store_.UpdateTransaction(updated, record->version, write));
    if (!swapped) continue;  // the background thread or another client got there first
    if (altered.status == LanceTransactionStatus::kQueued && before != altered.status)
      drop_worker_.Enqueue(updated.id);
    return altered;
  }
  return CommitFailed("Transaction {} is changing concurrently; retry", id);
}

// --- private ---------------------------------------------------------------------------

Status LanceService::ValidatePropertyKeys(const Properties& properties) {
  for (const auto& [key, value] : properties) {
    CAIRN_PRECHECK(!key.empty(), "Invalid properties: keys must not be empty");
  }
  return Ok();
}

Status LanceService::ValidateNamespaceId(const LanceId& id) {
  if (id.empty()) return Ok();
  CAIRN_RETURN_IF_ERROR(ValidateCatalogName(id[0]));
  if (id.size() > 1)
    CAIRN_RETURN_IF_ERROR(ValidateNamespace(NamespacePath(id.begin() + 1, id.end())));
  return Ok();
}

Result<CatalogRecord> LanceService::ResolveCatalog(const std::string& name) {
  auto catalog = catalogs_.ResolveCatalog(name);
  if (!catalog && catalog.error().kind == ErrorKind::kNoSuchWarehouse) {
    return NoSuchNamespace("Namespace (catalog) does not exist: {}", name);
  }
  return catalog;
}

Properties LanceService::CatalogProperties(const CatalogRecord& catalog) {
  Properties properties = catalog.properties;
  properties[std::string(kCatalogLocationProperty)] = catalog.location;
  return properties;
}

Error LanceService::NamespaceMissing(const LanceId& id, Error original) {
  if (original.kind != ErrorKind::kNoSuchNamespace || id.size() < 3) return original;
  auto catalog = catalogs_.ResolveCatalog(id[0]);
  if (!catalog) return original;
  auto kind = store_.EntityKindOf(catalog->id,
                                  NamespacePath(id.begin() + 1, id.end() - 1), id.back());
  if (kind && *kind) {
    return Error{
        ErrorKind::kBadRequest,
        fmt::format("Invalid namespace id '{}': it names a table, not a namespace",
                    FormatLanceId(id))};
  }
  return Error{ErrorKind::kNoSuchNamespace,
               fmt::format("Namespace does not exist: {}", FormatLanceId(id))};
}

DropPlanner LanceService::PlanDeletion(std::string_view operation, const LanceId& target,
                                       std::optional<std::string>& transaction_id) {
  return [operation = std::string(operation), target = FormatLanceId(target),
          &transaction_id](const std::vector<EntityRecord>& dropped)
             -> Result<std::optional<TransactionRecord>> {
    auto record = MakeDropRecord(dropped, operation, target);
    transaction_id = record ? std::optional<std::string>(record->id) : std::nullopt;
    return record;
  };
}

}  // namespace cairn
