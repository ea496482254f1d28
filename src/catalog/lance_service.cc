#include "catalog/lance_service.h"

#include <algorithm>
#include <charconv>

#include <boost/json.hpp>
#include <fmt/ranges.h>

#include "catalog/lance_datasets.h"
#include "catalog/lance_drop_record.h"
#include "catalog/names.h"
#include "common/json_util.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

// Keys of the JSON kept in an entity's `metadata`.
constexpr std::string_view kPropertiesKey = "properties";
constexpr std::string_view kManagedKey = "managed-location";

/// The catalog property that holds its warehouse location on the Lance wire.
constexpr std::string_view kCatalogLocationProperty = "location";

Status ValidatePropertyKeys(const Properties& properties) {
  for (const auto& [key, value] : properties) {
    CAIRN_PRECHECK(!key.empty(), "Invalid properties: keys must not be empty");
  }
  return Ok();
}

Status ValidateNamespaceId(const LanceId& id) {
  if (id.empty()) return Ok();
  CAIRN_RETURN_IF_ERROR(ValidateCatalogName(id[0]));
  if (id.size() > 1)
    CAIRN_RETURN_IF_ERROR(ValidateNamespace(NamespacePath(id.begin() + 1, id.end())));
  return Ok();
}

std::string TableMetadataJson(const Properties& properties, bool managed) {
  boost::json::object props;
  for (const auto& [key, value] : properties) props[key] = value;
  boost::json::object obj;
  obj[kPropertiesKey] = std::move(props);
  obj[kManagedKey] = managed;
  return boost::json::serialize(obj);
}

/// Reads what `TableMetadataJson` wrote; anything unreadable counts as no properties and
/// an unmanaged location (the safe choice: never delete a whole directory by mistake).
void ReadTableMetadata(std::string_view text, LanceTableInfo& table) {
  auto obj = ParseJsonObject(text);
  if (!obj) return;
  if (auto props = GetOptionalStringMap(*obj, kPropertiesKey)) table.properties = *props;
  if (const auto* managed = FindNonNull(*obj, kManagedKey);
      managed && managed->is_bool()) {
    table.managed_location = managed->as_bool();
  }
}

std::string TransactionStatusText(LanceTransactionStatus status) {
  return std::string(LanceTransactionStatusName(status));
}

LanceTransactionInfo ToInfo(const TransactionRecord& record,
                            LanceTransactionStatus status) {
  return LanceTransactionInfo{record.id, status, record.properties};
}

/// A status change a client asks for, checked against the current status.
Status CheckStatusChange(const std::string& id, LanceTransactionStatus from,
                         LanceTransactionStatus to) {
  using S = LanceTransactionStatus;
  if (from == to) return Ok();
  if (to == S::kRunning || to == S::kSucceeded || to == S::kFailed) {
    return BadRequest("Invalid status change of transaction {}: only the server sets {}",
                      id, LanceTransactionStatusName(to));
  }
  const bool allowed =
      (to == S::kCanceled && (from == S::kQueued || from == S::kFailed)) ||
      (to == S::kQueued && (from == S::kFailed || from == S::kCanceled));
  if (!allowed) {
    return CommitFailed("Transaction {} is {}; it cannot become {}", id,
                        LanceTransactionStatusName(from), LanceTransactionStatusName(to));
  }
  return Ok();
}

/// Applies `actions` to a copy of (status, properties); all or nothing.
Status ApplyActions(const std::string& id,
                    const std::vector<LanceTransactionAction>& actions,
                    LanceTransactionStatus& status, Properties& properties) {
  for (const auto& action : actions) {
    if (const auto* set_status = std::get_if<SetTransactionStatus>(&action)) {
      CAIRN_RETURN_IF_ERROR(CheckStatusChange(id, status, set_status->status));
      status = set_status->status;
    } else if (const auto* set = std::get_if<SetTransactionProperty>(&action)) {
      CAIRN_PRECHECK(!set->key.empty(),
                     "Invalid setPropertyAction: key must not be empty");
      const bool exists = properties.count(set->key) > 0;
      if (exists && set->mode == LancePropertyMode::kFail) {
        return BadRequest("Transaction {} already has property '{}' (mode Fail)", id,
                          set->key);
      }
      if (!exists || set->mode == LancePropertyMode::kOverwrite) {
        properties[set->key] = set->value;
      }
    } else if (const auto* unset = std::get_if<UnsetTransactionProperty>(&action)) {
      CAIRN_PRECHECK(!unset->key.empty(),
                     "Invalid unsetPropertyAction: key must not be empty");
      if (properties.erase(unset->key) == 0 && unset->mode == LancePropertyMode::kFail) {
        return BadRequest("Transaction {} has no property '{}' (mode Fail)", id,
                          unset->key);
      }
    }
  }
  return Ok();
}

}  // namespace

std::string FormatLanceId(const LanceId& id) {
  return fmt::format("{}", fmt::join(id, "$"));
}

LanceService::LanceService(MetaStore& store, CatalogService& catalogs, FileIO& io,
                           LanceSettings settings)
    : store_(store),
      catalogs_(catalogs),
      io_(io),
      drop_worker_(store, io,
                   LanceDropWorkerSettings{settings.async_drop_files,
                                           settings.run_background_work}) {}

LanceService::~LanceService() { drop_worker_.Stop(); }

Status LanceService::Start() { return drop_worker_.Start(); }

void LanceService::WaitForBackgroundWork() { drop_worker_.WaitUntilIdle(); }

// --- namespaces ------------------------------------------------------------------------

Result<Properties> LanceService::CreateNamespace(const LanceId& id, LanceCreateMode mode,
                                                 const Properties& properties) {
  if (id.empty())
    return BadRequest("The root namespace always exists; it cannot be created");
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(id));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys(properties));
  if (id.size() == 1) return CreateCatalog(id[0], mode, properties);
  const NamespacePath ns(id.begin() + 1, id.end());
  CAIRN_ASSIGN_OR_RAISE(auto catalog, ResolveCatalog(id[0]));
  auto created = catalogs_.CreateNamespace(catalog.name, ns, properties);
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
  auto dropped = catalogs_.DropNamespace(catalog.name, ns);
  if (!dropped && dropped.error().kind == ErrorKind::kNamespaceNotEmpty) {
    return NamespaceNotEmpty(
        "Cannot overwrite namespace {}: it is not empty (drop it with behavior Cascade "
        "first)",
        FormatLanceId(id));
  }
  if (!dropped && dropped.error().kind != ErrorKind::kNoSuchNamespace) {
    return tl::unexpected(dropped.error());
  }
  auto recreated = catalogs_.CreateNamespace(catalog.name, ns, properties);
  if (!recreated && recreated.error().kind == ErrorKind::kAlreadyExists) {
    return CommitFailed("Namespace {} was created concurrently", FormatLanceId(id));
  }
  if (!recreated) return tl::unexpected(recreated.error());
  return recreated->properties;
}

Result<Properties> LanceService::CreateCatalog(const std::string& name,
                                               LanceCreateMode mode,
                                               const Properties& properties) {
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
    auto dropped = catalogs_.DropCatalog(*existing, /*cascade=*/false, nullptr);
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
  // On the Lance wire the warehouse is the `location` property; the catalog keeps it apart.
  Properties catalog_properties = properties;
  std::optional<std::string> location;
  if (auto it = catalog_properties.find(std::string(kCatalogLocationProperty));
      it != catalog_properties.end()) {
    location = it->second;
    catalog_properties.erase(it);
  }
  auto created = catalogs_.CreateCatalog(name, location, std::move(catalog_properties));
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
                                                     LanceDropBehavior behavior) {
  if (id.empty()) return BadRequest("The root namespace cannot be dropped");
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(id));
  if (id.size() == 1) return DropCatalog(id[0], mode, behavior);
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
    auto dropped = catalogs_.DropNamespace(catalog.name, ns);
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
      catalog.name, ns, PlanDeletion("DropNamespace", id, transaction_id));
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
                                                   LanceDropBehavior behavior) {
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
      *catalog, cascade, PlanDeletion("DropNamespace", {name}, transaction_id));
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

Result<LanceNameListing> LanceService::ListTables(const LanceId& ns_id,
                                                  const PageRequest& page,
                                                  bool include_declared) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(ns_id));
  LanceNameListing listing;
  // The root holds catalogs and a catalog holds namespaces: neither holds tables.
  if (ns_id.empty()) return listing;
  CAIRN_ASSIGN_OR_RAISE(auto catalog, ResolveCatalog(ns_id[0]));
  if (ns_id.size() == 1) return listing;
  const NamespacePath ns(ns_id.begin() + 1, ns_id.end());
  CAIRN_ASSIGN_OR_RAISE(std::string after, HexDecode(page.token, "page_token"));
  const size_t limit = std::min(page.page_size.value_or(kMaxPageSize), kMaxPageSize);
  auto names = store_.ListEntities(catalog.id, ns, EntityKind::kLanceTable, after, limit);
  if (!names) return tl::unexpected(NamespaceMissing(ns_id, names.error()));
  if (names->has_more && !names->names.empty()) {
    listing.next_page_token = HexEncode(names->names.back());
  }
  for (auto& name : names->names) {
    if (!include_declared) {
      CAIRN_ASSIGN_OR_RAISE(auto entity, store_.LoadEntityPointer(catalog.id, ns, name));
      if (!entity) continue;  // dropped meanwhile
      auto versioned = LanceDatasetHasVersion(io_, entity->metadata_location);
      if (!versioned || !*versioned) continue;
    }
    listing.names.push_back(std::move(name));
  }
  return listing;
}

Result<LanceIdListing> LanceService::ListAllTables(const PageRequest& page) {
  int64_t after = 0;
  if (!page.token.empty()) {
    const auto* end = page.token.data() + page.token.size();
    const auto [ptr, ec] = std::from_chars(page.token.data(), end, after);
    if (ec != std::errc() || ptr != end || after < 0) {
      return BadRequest("Invalid page_token '{}'", page.token);
    }
  }
  const size_t limit = std::min(page.page_size.value_or(kMaxPageSize), kMaxPageSize);
  CAIRN_ASSIGN_OR_RAISE(auto entities,
                        store_.ListAllEntities(EntityKind::kLanceTable, after, limit));
  LanceIdListing listing;
  for (auto& entity : entities.entities) {
    LanceId id{std::move(entity.catalog)};
    id.insert(id.end(), entity.ns.begin(), entity.ns.end());
    id.push_back(std::move(entity.name));
    listing.ids.push_back(std::move(id));
  }
  if (entities.has_more && !entities.entities.empty()) {
    listing.next_page_token = std::to_string(entities.entities.back().id);
  }
  return listing;
}

// --- tables
// --------------------------------------------------------------------------------

Result<LanceTableInfo> LanceService::DeclareTable(
    const LanceId& id, const std::optional<std::string>& location,
    const Properties& properties) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys(properties));
  LanceTableInfo table{id, {}, properties, !location.has_value()};
  if (location) {
    CAIRN_ASSIGN_OR_RAISE(table.location,
                          catalogs_.locations().Confine(ref.catalog, *location, "location"));
  } else {
    // The namespace first, so that a missing one is reported as such, not as a location.
    CAIRN_ASSIGN_OR_RAISE(bool ns_exists,
                          catalogs_.NamespaceExists(ref.catalog.name, ref.ns));
    if (!ns_exists) {
      return NoSuchNamespace("Namespace does not exist: {}",
                             FormatLanceId(LanceId(id.begin(), id.end() - 1)));
    }
    table.location = StripTrailingSlashes(ref.catalog.location);
    // Appended piecewise: `"/" + std::string&&` trips a GCC 12 -O3 false positive
    // (-Wrestrict, GCC bug 105329).
    for (const auto& level : ref.ns)
      table.location.append("/").append(PercentEncodeSegment(level));
    table.location.append("/").append(PercentEncodeSegment(ref.name)).append(".lance");
    CAIRN_ASSIGN_OR_RAISE(table.location, catalogs_.locations().Confine(
                                              ref.catalog, table.location, "location"));
    // A dropped table's files may still be being deleted, a deregistered or renamed one's
    // are kept: never hand out a directory that holds something.
    CAIRN_ASSIGN_OR_RAISE(bool used, store_.LocationInUse(table.location, 0));
    if (used) {
      return AlreadyExists(
          "The location {} of table {} is used by another table; declare it "
          "with another location",
          table.location, FormatLanceId(id));
    }
    if (!LocalPathOfCanonical(table.location).empty()) {
      CAIRN_ASSIGN_OR_RAISE(auto files, io_.List(table.location));
      if (!files.empty()) {
        return AlreadyExists(
            "The location {} of table {} already holds files (of a dropped, deregistered "
            "or "
            "renamed table?); register that dataset, or declare with another location",
            table.location, FormatLanceId(id));
      }
    }
  }
  auto created = store_.CreateEntity(
      ref.catalog.id, ref.ns, ref.name, EntityKind::kLanceTable, table.location,
      TableMetadataJson(table.properties, table.managed_location),
      LocationPolicy::ClaimOf(ref.catalog, table.location));
  if (!created && created.error().kind == ErrorKind::kAlreadyExists) {
    return AlreadyExists("Table already exists: {} ({})", FormatLanceId(id),
                         created.error().message);
  }
  if (!created && created.error().kind == ErrorKind::kNoSuchNamespace) {
    return NoSuchNamespace("Namespace does not exist: {}",
                           FormatLanceId(LanceId(id.begin(), id.end() - 1)));
  }
  if (!created) return tl::unexpected(created.error());
  return table;
}

Result<LanceTableInfo> LanceService::RegisterTable(const LanceId& id,
                                                   std::string_view location,
                                                   LanceRegisterMode mode,
                                                   const Properties& properties) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys(properties));
  LanceTableInfo table{id, {}, properties, false};
  CAIRN_ASSIGN_OR_RAISE(table.location,
                        catalogs_.locations().Confine(ref.catalog, location, "location"));
  CAIRN_RETURN_IF_ERROR(CheckLanceDataset(io_, table.location));
  const LocationClaim claim = LocationPolicy::ClaimOf(ref.catalog, table.location);
  const std::string metadata = TableMetadataJson(table.properties, false);
  if (mode == LanceRegisterMode::kOverwrite) {
    CAIRN_ASSIGN_OR_RAISE(auto existing,
                          store_.LoadEntity(ref.catalog.id, ref.ns, ref.name));
    if (existing && existing->kind != EntityKind::kLanceTable) {
      return AlreadyExists("Name {} is already used by an {}", FormatLanceId(id),
                           EntityKindName(existing->kind));
    }
    if (existing) {
      EntitySwap swap{existing->id, existing->metadata_location, table.location, metadata};
      swap.claim = claim;
      CAIRN_ASSIGN_OR_RAISE(bool swapped, store_.SwapEntities({swap}));
      if (!swapped)
        return CommitFailed("Table {} was changed concurrently", FormatLanceId(id));
      return table;
    }
  }
  auto created = store_.CreateEntity(ref.catalog.id, ref.ns, ref.name,
                                     EntityKind::kLanceTable, table.location, metadata,
                                     claim);
  if (!created && created.error().kind == ErrorKind::kAlreadyExists) {
    return AlreadyExists("Table already exists: {} ({})", FormatLanceId(id),
                         created.error().message);
  }
  if (!created && created.error().kind == ErrorKind::kNoSuchNamespace) {
    return NoSuchNamespace("Namespace does not exist: {}",
                           FormatLanceId(LanceId(id.begin(), id.end() - 1)));
  }
  if (!created) return tl::unexpected(created.error());
  return table;
}

Result<LanceTableInfo> LanceService::DescribeTable(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  return LoadTable(ref, id);
}

Result<bool> LanceService::IsOnlyDeclared(const LanceTableInfo& table) {
  CAIRN_ASSIGN_OR_RAISE(bool versioned, LanceDatasetHasVersion(io_, table.location));
  return !versioned;
}

Status LanceService::TableExists(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto table, DescribeTable(id));
  (void)table;
  return Ok();
}

Result<LanceDropOutcome> LanceService::DropTable(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  std::optional<std::string> transaction_id;
  CAIRN_ASSIGN_OR_RAISE(
      auto dropped,
      store_.DropEntityWithRecord(ref.catalog.id, ref.ns, ref.name, EntityKind::kLanceTable,
                                  PlanDeletion("DropTable", id, transaction_id)));
  if (!dropped) return tl::unexpected(TableMissing(ref, id));
  LanceTableInfo table{id, dropped->metadata_location, {}, false};
  ReadTableMetadata(dropped->metadata, table);
  LanceDropOutcome outcome;
  outcome.properties = std::move(table.properties);
  outcome.location = std::move(table.location);
  if (transaction_id) {
    CAIRN_ASSIGN_OR_RAISE(outcome.transaction_id, drop_worker_.Submit(*transaction_id));
  }
  return outcome;
}

Result<LanceTableInfo> LanceService::DeregisterTable(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_ASSIGN_OR_RAISE(auto table, LoadTable(ref, id));
  CAIRN_ASSIGN_OR_RAISE(bool dropped, store_.DropEntity(ref.catalog.id, ref.ns, ref.name,
                                                        EntityKind::kLanceTable));
  if (!dropped) return tl::unexpected(TableMissing(ref, id));
  return table;
}

Status LanceService::RenameTable(const LanceId& id,
                                 const std::optional<LanceId>& to_namespace,
                                 std::string_view new_name) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_RETURN_IF_ERROR(ValidateName("new table name", new_name));
  LanceId target_ns(id.begin(), id.end() - 1);
  if (to_namespace) {
    CAIRN_PRECHECK(
        to_namespace->size() >= 2,
        "Invalid new namespace id '{}': a table lives in a namespace of a catalog "
        "(at least two levels)",
        FormatLanceId(*to_namespace));
    CAIRN_PRECHECK((*to_namespace)[0] == id[0],
                   "Cannot move table {} to another catalog ({})", FormatLanceId(id),
                   (*to_namespace)[0]);
    CAIRN_RETURN_IF_ERROR(ValidateNamespaceId(*to_namespace));
    target_ns = *to_namespace;
  }
  LanceId target = target_ns;
  target.emplace_back(new_name);
  auto renamed =
      store_.RenameEntity(ref.catalog.id, ref.ns, ref.name,
                          NamespacePath(target_ns.begin() + 1, target_ns.end()), new_name,
                          EntityKind::kLanceTable);
  if (renamed) return Ok();
  switch (renamed.error().kind) {
    case ErrorKind::kNoSuchTable:
      return tl::unexpected(TableMissing(ref, id));
    case ErrorKind::kNoSuchNamespace:
      return NoSuchNamespace("Namespace does not exist: {}", FormatLanceId(target_ns));
    case ErrorKind::kAlreadyExists:
      return AlreadyExists("Table already exists: {} ({})", FormatLanceId(target),
                           renamed.error().message);
    default:
      return renamed;
  }
}

// --- transactions ----------------------------------------------------------------------

Result<LanceTransactionInfo> LanceService::DescribeTransaction(std::string_view id) {
  CAIRN_ASSIGN_OR_RAISE(auto record, store_.LoadTransaction(id));
  if (!record) return NoSuchTransaction("Transaction does not exist: {}", id);
  CAIRN_ASSIGN_OR_RAISE(auto status, ParseLanceTransactionStatus(record->status));
  return ToInfo(*record, status);
}

Result<LanceTransactionInfo> LanceService::AlterTransaction(
    std::string_view id, const std::vector<LanceTransactionAction>& actions) {
  for (int attempt = 0; attempt < kMaxTransactionSwapAttempts; ++attempt) {
    CAIRN_ASSIGN_OR_RAISE(auto record, store_.LoadTransaction(id));
    if (!record) return NoSuchTransaction("Transaction does not exist: {}", id);
    CAIRN_ASSIGN_OR_RAISE(auto status, ParseLanceTransactionStatus(record->status));
    const LanceTransactionStatus before = status;
    TransactionRecord updated = *record;
    CAIRN_RETURN_IF_ERROR(ApplyActions(updated.id, actions, status, updated.properties));
    updated.status = TransactionStatusText(status);
    if (updated.status == record->status && updated.properties == record->properties) {
      return ToInfo(*record, status);
    }
    CAIRN_ASSIGN_OR_RAISE(bool swapped,
                          store_.UpdateTransaction(updated, record->version));
    if (!swapped) continue;  // the background thread or another client got there first
    if (status == LanceTransactionStatus::kQueued && before != status)
      drop_worker_.Enqueue(updated.id);
    return ToInfo(updated, status);
  }
  return CommitFailed("Transaction {} is changing concurrently; retry", id);
}

// --- private ---------------------------------------------------------------------------

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

Result<LanceService::TableRef> LanceService::ResolveTable(const LanceId& id) {
  if (id.size() < 3) {
    return BadRequest(
        "Invalid table id '{}': a Lance table id has at least three levels: catalog, "
        "namespace and table name",
        FormatLanceId(id));
  }
  CAIRN_RETURN_IF_ERROR(ValidateCatalogName(id[0]));
  TableRef ref;
  ref.ns = NamespacePath(id.begin() + 1, id.end() - 1);
  ref.name = id.back();
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(ref.ns));
  CAIRN_RETURN_IF_ERROR(ValidateName("table name", ref.name));
  CAIRN_ASSIGN_OR_RAISE(ref.catalog, ResolveCatalog(id[0]));
  return ref;
}

Result<LanceTableInfo> LanceService::LoadTable(const TableRef& ref, const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto entity, store_.LoadEntity(ref.catalog.id, ref.ns, ref.name));
  if (!entity || entity->kind != EntityKind::kLanceTable) {
    return tl::unexpected(TableMissing(ref, id));
  }
  LanceTableInfo table{id, entity->metadata_location, {}, false};
  ReadTableMetadata(entity->metadata, table);
  return table;
}

Error LanceService::TableMissing(const TableRef& ref, const LanceId& id) {
  auto kind = store_.EntityKindOf(ref.catalog.id, ref.ns, ref.name);
  if (kind && *kind && **kind != EntityKind::kLanceTable) {
    return Error{ErrorKind::kNoSuchTable,
                 fmt::format("Table does not exist: {} (the name belongs to an {})",
                             FormatLanceId(id), EntityKindName(**kind))};
  }
  NamespacePath as_namespace = ref.ns;
  as_namespace.push_back(ref.name);
  auto is_namespace = store_.NamespaceExists(ref.catalog.id, as_namespace);
  if (is_namespace && *is_namespace) {
    return Error{ErrorKind::kBadRequest,
                 fmt::format("Invalid table id '{}': it names a namespace, not a table",
                             FormatLanceId(id))};
  }
  return Error{ErrorKind::kNoSuchTable,
               fmt::format("Table does not exist: {}", FormatLanceId(id))};
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
