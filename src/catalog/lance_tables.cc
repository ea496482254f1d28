#include "catalog/lance_service.h"

// LanceService: Lance tables (declare, register, describe, drop, deregister, rename) and
// their listings. Namespaces, catalogs and transactions are in lance_service.cc.

#include <algorithm>
#include <charconv>

#include <boost/json.hpp>

#include "catalog/lance_datasets.h"
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
constexpr std::string_view kManagedVersioningKey = "managed-versioning";

std::string TableMetadataJson(const LanceTableInfo& table) {
  boost::json::object props;
  for (const auto& [key, value] : table.properties) props[key] = value;
  boost::json::object obj;
  obj[kPropertiesKey] = std::move(props);
  obj[kManagedKey] = table.managed_location;
  obj[kManagedVersioningKey] = table.managed_versioning;
  return boost::json::serialize(obj);
}

/// A boolean property: "true" or "false" in any case; nullopt when absent.
Result<std::optional<bool>> BoolProperty(const Properties& properties,
                                         std::string_view key) {
  const auto it = properties.find(std::string(key));
  if (it == properties.end()) return std::optional<bool>{};
  std::string lower = it->second;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true") return std::optional<bool>(true);
  if (lower == "false") return std::optional<bool>(false);
  return BadRequest("The property {} must be true or false", key);
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
  if (const auto* versioning = FindNonNull(*obj, kManagedVersioningKey);
      versioning && versioning->is_bool()) {
    table.managed_versioning = versioning->as_bool();
  }
}

}  // namespace

Result<bool> ManagedVersioningOf(const CatalogRecord& catalog,
                                 const Properties& properties) {
  CAIRN_ASSIGN_OR_RAISE(auto own, BoolProperty(properties, kManagedVersioningProperty));
  if (own) return *own;
  CAIRN_ASSIGN_OR_RAISE(auto inherited,
                        BoolProperty(catalog.properties, kManagedVersioningProperty));
  return inherited.value_or(false);
}

namespace {}  // namespace

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

// --- tables ----------------------------------------------------------------------------

Result<LanceTableDeclaration> LanceService::PlanDeclaration(
    const LanceId& id, const std::optional<std::string>& location,
    const Properties& properties) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys(properties));
  LanceTableDeclaration plan;
  LanceTableInfo& table = plan.table;
  table = LanceTableInfo{id, {}, properties, !location.has_value()};
  CAIRN_ASSIGN_OR_RAISE(table.managed_versioning,
                        ManagedVersioningOf(ref.catalog, properties));
  if (location) {
    CAIRN_ASSIGN_OR_RAISE(table.location, catalogs_.locations().Confine(
                                              ref.catalog, *location, "location"));
  } else {
    CAIRN_ASSIGN_OR_RAISE(table.location, FreeDefaultLocation(ref, id));
  }
  plan.catalog_id = ref.catalog.id;
  plan.ns = std::move(ref.ns);
  plan.name = std::move(ref.name);
  plan.metadata = TableMetadataJson(table);
  plan.claim = LocationPolicy::ClaimOf(ref.catalog, table.location);
  return plan;
}

Result<LanceTableInfo> LanceService::DeclareTable(
    const LanceId& id, const std::optional<std::string>& location,
    const Properties& properties, const WriteContext& write) {
  CAIRN_ASSIGN_OR_RAISE(auto plan, PlanDeclaration(id, location, properties));
  CAIRN_ASSIGN_OR_RAISE(plan.table.entity_id, InsertTable(plan, write));
  return std::move(plan.table);
}

Result<LanceTableInfo> LanceService::RegisterTable(const LanceId& id,
                                                   std::string_view location,
                                                   LanceRegisterMode mode,
                                                   const Properties& properties,
                                                   const WriteContext& write) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys(properties));
  LanceTableInfo table{id, {}, properties, false};
  CAIRN_ASSIGN_OR_RAISE(table.managed_versioning,
                        ManagedVersioningOf(ref.catalog, properties));
  CAIRN_ASSIGN_OR_RAISE(table.location,
                        catalogs_.locations().Confine(ref.catalog, location, "location"));
  CAIRN_RETURN_IF_ERROR(CheckLanceDataset(io_, table.location));
  const LocationClaim claim = LocationPolicy::ClaimOf(ref.catalog, table.location);
  const std::string metadata = TableMetadataJson(table);
  if (mode == LanceRegisterMode::kOverwrite) {
    CAIRN_ASSIGN_OR_RAISE(auto existing,
                          store_.LoadEntity(ref.catalog.id, ref.ns, ref.name));
    if (existing && existing->kind != EntityKind::kLanceTable) {
      return AlreadyExists("Name {} is already used by an {}", FormatLanceId(id),
                           EntityKindName(existing->kind));
    }
    if (existing) {
      EntitySwap swap{existing->id, existing->metadata_location, table.location,
                      metadata};
      swap.claim = claim;
      CAIRN_ASSIGN_OR_RAISE(bool swapped, store_.SwapEntities({swap}, write));
      if (!swapped)
        return CommitFailed("Table {} was changed concurrently", FormatLanceId(id));
      return table;
    }
  }
  const LanceTableDeclaration plan{table,    ref.catalog.id, ref.ns,
                                   ref.name, metadata,       claim};
  CAIRN_ASSIGN_OR_RAISE(table.entity_id, InsertTable(plan, write));
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

Result<LanceDropOutcome> LanceService::DropTable(const LanceId& id,
                                                 const WriteContext& write) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  std::optional<std::string> transaction_id;
  CAIRN_ASSIGN_OR_RAISE(auto dropped,
                        store_.DropEntityWithRecord(
                            ref.catalog.id, ref.ns, ref.name, EntityKind::kLanceTable,
                            PlanDeletion("DropTable", id, transaction_id), write));
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

Result<LanceTableInfo> LanceService::DeregisterTable(const LanceId& id,
                                                     const WriteContext& write) {
  CAIRN_ASSIGN_OR_RAISE(auto ref, ResolveTable(id));
  CAIRN_ASSIGN_OR_RAISE(auto table, LoadTable(ref, id));
  CAIRN_ASSIGN_OR_RAISE(bool dropped, store_.DropEntity(ref.catalog.id, ref.ns, ref.name,
                                                        EntityKind::kLanceTable, write));
  if (!dropped) return tl::unexpected(TableMissing(ref, id));
  return table;
}

Status LanceService::RenameTable(const LanceId& id,
                                 const std::optional<LanceId>& to_namespace,
                                 std::string_view new_name, const WriteContext& write) {
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
                          EntityKind::kLanceTable, write);
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

// --- private ---------------------------------------------------------------------------

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

Result<std::string> LanceService::FreeDefaultLocation(const TableRef& ref,
                                                      const LanceId& id) {
  // The namespace first, so that a missing one is reported as such, not as a location.
  // By the catalog's id: `ref` has resolved it already (once per request).
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(ref.catalog.id, ref.ns));
  if (!ns_exists) {
    return NoSuchNamespace("Namespace does not exist: {}",
                           FormatLanceId(LanceId(id.begin(), id.end() - 1)));
  }
  std::string location = StripTrailingSlashes(ref.catalog.location);
  // Appended piecewise: `"/" + std::string&&` trips a GCC 12 -O3 false positive
  // (-Wrestrict, GCC bug 105329).
  for (const auto& level : ref.ns)
    location.append("/").append(PercentEncodeSegment(level));
  location.append("/").append(PercentEncodeSegment(ref.name)).append(".lance");
  CAIRN_ASSIGN_OR_RAISE(location,
                        catalogs_.locations().Confine(ref.catalog, location, "location"));
  // A dropped table's files may still be being deleted, a deregistered or renamed one's
  // are kept: never hand out a directory that holds something.
  CAIRN_ASSIGN_OR_RAISE(bool used, store_.LocationInUse(location, 0));
  if (used) {
    return AlreadyExists(
        "The location {} of table {} is used by another table; declare it "
        "with another location",
        location, FormatLanceId(id));
  }
  // One file is enough to refuse: the location may hold any number.
  CAIRN_ASSIGN_OR_RAISE(const FileListing files, io_.List(location, /*max_files=*/1));
  if (!files.files.empty()) {
    return AlreadyExists(
        "The location {} of table {} already holds files (of a dropped, deregistered "
        "or renamed table?); register that dataset, or declare with another location",
        location, FormatLanceId(id));
  }
  return location;
}

Result<int64_t> LanceService::InsertTable(const LanceTableDeclaration& plan,
                                          const WriteContext& write) {
  auto created =
      store_.CreateEntity(plan.catalog_id, plan.ns, plan.name, EntityKind::kLanceTable,
                          plan.table.location, plan.metadata, plan.claim, write);
  if (!created) return tl::unexpected(DeclarationError(plan.table.id, created.error()));
  return created->id;
}

Status LanceService::CheckDeclarable(const LanceTableDeclaration& plan) {
  CAIRN_ASSIGN_OR_RAISE(bool ns_exists, store_.NamespaceExists(plan.catalog_id, plan.ns));
  if (!ns_exists) {
    return tl::unexpected(DeclarationError(
        plan.table.id, Error{ErrorKind::kNoSuchNamespace, "no such namespace"}));
  }
  CAIRN_ASSIGN_OR_RAISE(auto kind,
                        store_.EntityKindOf(plan.catalog_id, plan.ns, plan.name));
  if (kind) {
    return tl::unexpected(DeclarationError(
        plan.table.id,
        Error{ErrorKind::kAlreadyExists,
              fmt::format("the name is used by an {}", EntityKindName(*kind))}));
  }
  return Ok();
}

Error LanceService::DeclarationError(const LanceId& id, Error error) {
  if (error.kind == ErrorKind::kAlreadyExists) {
    return Error{
        ErrorKind::kAlreadyExists,
        fmt::format("Table already exists: {} ({})", FormatLanceId(id), error.message)};
  }
  if (error.kind == ErrorKind::kNoSuchNamespace) {
    return Error{ErrorKind::kNoSuchNamespace,
                 fmt::format("Namespace does not exist: {}",
                             FormatLanceId(LanceId(id.begin(), id.end() - 1)))};
  }
  return error;
}

Result<LanceTableInfo> LanceService::LoadTable(const TableRef& ref, const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(auto entity, store_.LoadEntity(ref.catalog.id, ref.ns, ref.name));
  if (!entity || entity->kind != EntityKind::kLanceTable) {
    return tl::unexpected(TableMissing(ref, id));
  }
  LanceTableInfo table{id, entity->metadata_location, {}, false};
  ReadTableMetadata(entity->metadata, table);
  table.entity_id = entity->id;
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

}  // namespace cairn
