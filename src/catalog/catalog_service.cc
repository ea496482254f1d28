#include "catalog/catalog_service.h"

#include <algorithm>
#include <set>

#include <fmt/ranges.h>

#include "catalog/maintenance_scheduler.h"
#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn {
namespace {

/// Property keys and values are free text but must be valid, bounded strings.
constexpr size_t kMaxPropertyKeyBytes = 1024;

Status ValidatePropertyKeys(std::string_view field,
                            const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    CAIRN_PRECHECK(!key.empty(), "Invalid {}: property keys must not be empty", field);
    CAIRN_PRECHECK(key.size() <= kMaxPropertyKeyBytes,
                   "Invalid {}: property key longer than {} bytes", field,
                   kMaxPropertyKeyBytes);
  }
  return Ok();
}

// The scheduled-maintenance properties are checked when they are set (by any route or
// the configuration file), not first when the scheduler reads them.
Status CheckMaintenanceProperties(const Properties& properties) {
  auto schedule = CatalogMaintenanceOf(properties);
  if (!schedule) return BadRequest("{}", schedule.error().message);
  return Ok();
}

std::vector<std::string> KeysOf(const Properties& properties) {
  std::vector<std::string> keys;
  keys.reserve(properties.size());
  for (const auto& [key, value] : properties) keys.push_back(key);
  return keys;
}

}  // namespace

namespace {

std::vector<std::string> ServerRoots(const CatalogSettings& settings) {
  if (!settings.allowed_locations.empty()) return settings.allowed_locations;
  auto root = CanonicalLocation(settings.warehouse_root);
  if (!root) return {};
  return {std::move(*root)};
}

}  // namespace

CatalogService::CatalogService(MetaStore& store, CatalogSettings settings)
    : store_(store), settings_(std::move(settings)), locations_(ServerRoots(settings_)) {}

Status CatalogService::EnsureDefaultCatalog() {
  CAIRN_RETURN_IF_ERROR(ValidateCatalogName(settings_.default_catalog));
  auto existing = store_.GetCatalog(settings_.default_catalog);
  if (existing) return Ok();
  if (existing.error().kind != ErrorKind::kNoSuchWarehouse) {
    return tl::unexpected(existing.error());
  }
  auto created = CreateCatalog(settings_.default_catalog, std::nullopt, {});
  // Another replica may have created it between our read and our insert.
  if (!created && created.error().kind != ErrorKind::kAlreadyExists) {
    return tl::unexpected(created.error());
  }
  return Ok();
}

Result<CatalogRecord> CatalogService::CreateCatalog(
    std::string_view name, const std::optional<std::string>& location,
    Properties properties, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateCatalogName(name));
  // A client may name the warehouse, but only under the server's allowed locations.
  CAIRN_ASSIGN_OR_RAISE(const std::string warehouse,
                        locations_.CheckNewCatalog(
                            location ? *location : DefaultWarehouseOf(name), properties));
  CAIRN_RETURN_IF_ERROR(CheckMaintenanceProperties(properties));
  return store_.CreateCatalog(name, warehouse, properties, write);
}

Result<CatalogRecord> CatalogService::UpdateCatalogProperties(
    std::string_view name, const Properties& updates,
    const std::vector<std::string>& removals) {
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys("updates", KeysOf(updates)));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys("removals", removals));
  for (const auto& key : removals) {
    if (updates.count(key) > 0) {
      return UnprocessableEntity(
          "Invalid property update: key '{}' in both updates and removals", key);
    }
  }
  // Read, merge, check, then swap only if no one changed them meanwhile: concurrent
  // updates of different keys both land.
  for (int attempt = 0; attempt < kMaxPropertyUpdateAttempts; ++attempt) {
    CAIRN_ASSIGN_OR_RAISE(CatalogRecord record, store_.GetCatalog(name));
    Properties properties = record.properties;
    for (const auto& [key, value] : updates) properties[key] = value;
    for (const auto& key : removals) properties.erase(key);
    CAIRN_RETURN_IF_ERROR(CheckCatalogProperties(record.location, properties));
    CAIRN_ASSIGN_OR_RAISE(bool swapped, store_.SwapCatalogProperties(
                                            record.id, record.properties, properties));
    if (swapped) {
      record.properties = std::move(properties);
      return record;
    }
  }
  return ServiceUnavailable(
      "The properties of catalog '{}' kept changing under this update; retry", name);
}

Result<CatalogRecord> CatalogService::ReplaceCatalogProperties(std::string_view name,
                                                               Properties properties) {
  CAIRN_ASSIGN_OR_RAISE(CatalogRecord record, store_.GetCatalog(name));
  CAIRN_RETURN_IF_ERROR(CheckCatalogProperties(record.location, properties));
  CAIRN_RETURN_IF_ERROR(store_.SetCatalogProperties(record.id, properties));
  record.properties = std::move(properties);
  return record;
}

Status CatalogService::CheckCatalogProperties(std::string_view location,
                                              Properties& properties) const {
  CAIRN_RETURN_IF_ERROR(locations_.CheckNewCatalog(location, properties));
  return CheckMaintenanceProperties(properties);
}

Result<std::vector<CatalogRecord>> CatalogService::ListCatalogs(std::string_view after,
                                                                size_t limit,
                                                                bool& has_more) {
  CAIRN_ASSIGN_OR_RAISE(CatalogPage page, store_.ListCatalogRecords(after, limit));
  has_more = page.has_more;
  return std::move(page.records);
}

Result<std::vector<EntityRecord>> CatalogService::DropCatalog(
    const CatalogRecord& catalog, bool cascade, const DropPlanner& planner,
    const WriteContext& write) {
  if (IsDefaultCatalog(catalog.name)) {
    return BadRequest("The default catalog '{}' cannot be dropped", catalog.name);
  }
  return store_.DropCatalog(catalog.id, cascade, planner, write);
}

std::string CatalogService::DefaultWarehouseOf(std::string_view name) const {
  return StripTrailingSlashes(settings_.warehouse_root) + "/" +
         PercentEncodeSegment(name);
}

Result<CatalogRecord> CatalogService::ResolveCatalog(std::string_view name) {
  return store_.GetCatalog(EffectiveName(name));
}

std::string_view CatalogService::EffectiveName(std::string_view name) const {
  return name.empty() ? std::string_view(settings_.default_catalog) : name;
}

Result<NamespaceRecord> CatalogService::CreateNamespace(std::string_view catalog,
                                                        const NamespacePath& path,
                                                        const Properties& properties,
                                                        const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(path));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys("properties", KeysOf(properties)));
  CAIRN_ASSIGN_OR_RAISE(auto record, ResolveCatalog(catalog));
  CAIRN_RETURN_IF_ERROR(store_.CreateNamespace(record.id, path, properties, write));
  return NamespaceRecord{0, path, properties};
}

Result<NamespaceRecord> CatalogService::LoadNamespace(std::string_view catalog,
                                                      const NamespacePath& path) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(path));
  CAIRN_ASSIGN_OR_RAISE(auto record, ResolveCatalog(catalog));
  return store_.LoadNamespace(record.id, path);
}

Result<bool> CatalogService::NamespaceExists(std::string_view catalog,
                                             const NamespacePath& path) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(path));
  CAIRN_ASSIGN_OR_RAISE(auto record, ResolveCatalog(catalog));
  return store_.NamespaceExists(record.id, path);
}

Result<NamespaceListing> CatalogService::ListNamespaces(std::string_view catalog,
                                                        const NamespacePath& parent,
                                                        const PageRequest& page) {
  if (!parent.empty()) CAIRN_RETURN_IF_ERROR(ValidateNamespace(parent));
  // The token is the last name of the previous page: the next page starts after it.
  CAIRN_ASSIGN_OR_RAISE(std::string after, HexDecode(page.token, "pageToken"));
  CAIRN_ASSIGN_OR_RAISE(auto record, ResolveCatalog(catalog));
  std::optional<size_t> limit;
  if (page.page_size) limit = std::min(*page.page_size, kMaxPageSize);
  CAIRN_ASSIGN_OR_RAISE(auto names,
                        store_.ListNamespaces(record.id, parent, after, limit));
  NamespaceListing listing;
  listing.namespaces.reserve(names.names.size());
  for (auto& name : names.names) {
    NamespacePath child = parent;
    child.push_back(std::move(name));
    listing.namespaces.push_back(std::move(child));
  }
  if (names.has_more && !listing.namespaces.empty()) {
    listing.next_page_token = HexEncode(listing.namespaces.back().back());
  }
  return listing;
}

Status CatalogService::DropNamespace(std::string_view catalog, const NamespacePath& path,
                                     const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(path));
  CAIRN_ASSIGN_OR_RAISE(auto record, ResolveCatalog(catalog));
  return store_.DropNamespace(record.id, path, write);
}

Result<std::vector<EntityRecord>> CatalogService::DropNamespaceTree(
    const CatalogRecord& catalog, const NamespacePath& path, const DropPlanner& planner,
    const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(path));
  return store_.DropNamespaceTree(catalog.id, path, planner, write);
}

Result<PropertiesUpdateOutcome> CatalogService::UpdateNamespaceProperties(
    std::string_view catalog, const NamespacePath& path, const Properties& updates,
    const std::vector<std::string>& removals, const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(ValidateNamespace(path));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys("updates", KeysOf(updates)));
  CAIRN_RETURN_IF_ERROR(ValidatePropertyKeys("removals", removals));
  std::set<std::string_view> both;
  for (const auto& key : removals) {
    if (updates.count(key) > 0) both.insert(key);
  }
  if (!both.empty()) {
    return UnprocessableEntity(
        "Invalid property update: keys in both updates and removals: {}",
        fmt::join(both, ", "));
  }
  // Duplicate removal keys would report a key as both removed and missing.
  std::vector<std::string> unique_removals;
  std::set<std::string_view> seen;
  for (const auto& key : removals) {
    if (seen.insert(key).second) unique_removals.push_back(key);
  }
  CAIRN_ASSIGN_OR_RAISE(auto record, ResolveCatalog(catalog));
  return store_.UpdateNamespaceProperties(record.id, path, updates, unique_removals,
                                          write);
}

}  // namespace cairn
