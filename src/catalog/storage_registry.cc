#include "catalog/storage_registry.h"

#include <algorithm>
#include <utility>

#include "common/location.h"
#include "common/macros.h"

namespace cairn {

StorageRegistry::StorageRegistry(std::vector<StorageDescription> storages)
    : storages_(std::move(storages)) {}

const StorageDescription* StorageRegistry::StorageOf(std::string_view location) const {
  if (!IsS3Location(location)) return nullptr;
  auto parsed = ParseS3Location(location);
  if (!parsed) return nullptr;
  for (const auto& storage : storages_) {
    const bool serves =
        std::any_of(storage.roots.begin(), storage.roots.end(),
                    [&](const S3Location& root) { return S3IsAtOrBelow(*parsed, root); });
    if (serves) return &storage;
  }
  return nullptr;
}

Result<std::optional<TableCredentials>> StorageRegistry::Vend(
    std::string_view location, const std::vector<std::string>& claimed,
    StorageAccess access) const {
  const StorageDescription* storage = StorageOf(location);
  if (storage == nullptr || !storage->vendor) return std::optional<TableCredentials>();
  std::vector<S3Location> locations;
  std::vector<std::string> prefixes = {std::string(location)};
  for (const auto& path : claimed) {
    if (path != location) prefixes.push_back(path);
    if (StorageOf(path) != storage) {
      return BadRequest(
          "Cannot vend credentials for {}: its location {} is not on storage {}",
          ShortLocation(location), ShortLocation(path), storage->name);
    }
    CAIRN_ASSIGN_OR_RAISE(auto parsed, ParseS3Location(path));
    locations.push_back(std::move(parsed));
  }
  if (locations.empty()) {
    CAIRN_ASSIGN_OR_RAISE(auto parsed, ParseS3Location(location));
    locations.push_back(std::move(parsed));
  }
  auto credentials = storage->vendor->Vend(locations, access);
  if (!credentials && credentials.error().kind == ErrorKind::kUnsupported) {
    // A name no session policy can confine (`*` on Ceph RGW): a fact of the request.
    return BadRequest("Cannot vend credentials for {}: {}", ShortLocation(location),
                      credentials.error().message);
  }
  if (!credentials) return tl::unexpected(credentials.error());
  return std::optional<TableCredentials>(
      TableCredentials{std::move(prefixes), std::move(*credentials), storage});
}

const StorageRegistry& NoStorages() {
  static const StorageRegistry kNone;
  return kNone;
}

}  // namespace cairn
