#include "catalog/location_policy.h"

#include <algorithm>
#include <iterator>

#include <fmt/ranges.h>

#include "common/location.h"
#include "common/macros.h"
#include "common/strings.h"

namespace cairn {
namespace {

constexpr std::string_view kMetadataPathProperty = "write.metadata.path";
/// Properties that put an entity's files somewhere else than its location: the metadata
/// directory, and the data directory under its current and its two older names.
constexpr std::string_view kPathProperties[] = {
    kMetadataPathProperty,
    "write.data.path",
    "write.object-storage.path",
    "write.folder-storage.path",
};

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

bool UnderAny(const std::vector<std::string>& roots, std::string_view canonical) {
  return std::any_of(roots.begin(), roots.end(), [&](const std::string& root) {
    return LocationContains(root, canonical);
  });
}

/// Adds `location` to `claim` unless a location already there contains it; drops those
/// it contains.
void AddToClaim(LocationClaim& claim, std::string location) {
  for (const auto& held : claim.locations) {
    if (LocationContains(held, location)) return;
  }
  std::erase_if(claim.locations, [&](const std::string& held) {
    return LocationContains(location, held);
  });
  claim.locations.push_back(std::move(location));
}

}  // namespace

bool ClaimCovers(const LocationClaim& claim, std::string_view canonical) {
  return UnderAny(claim.locations, canonical);
}

bool SameLocations(std::string_view location_a, const Properties& properties_a,
                   std::string_view location_b, const Properties& properties_b) {
  if (location_a != location_b) return false;
  return std::all_of(std::begin(kPathProperties), std::end(kPathProperties),
                     [&](std::string_view key) {
                       auto a = properties_a.find(std::string(key));
                       auto b = properties_b.find(std::string(key));
                       const bool in_a = a != properties_a.end();
                       const bool in_b = b != properties_b.end();
                       return in_a == in_b && (!in_a || a->second == b->second);
                     });
}

LocationPolicy::LocationPolicy(std::vector<std::string> server_roots)
    : server_roots_(std::move(server_roots)) {}

bool LocationPolicy::UnderServerRoot(std::string_view canonical) const {
  return UnderAny(server_roots_, canonical);
}

Result<std::string> LocationPolicy::ConfineToServer(std::string_view location,
                                                    std::string_view what) const {
  auto canonical = CanonicalLocation(location);
  if (!canonical) {
    return BadRequest("Invalid {}: {}", what, canonical.error().message);
  }
  if (!UnderServerRoot(*canonical)) {
    return BadRequest("Invalid {} {}: it is outside the server's allowed locations", what,
                      ShortLocation(location));
  }
  return canonical;
}

Result<std::string> LocationPolicy::CheckNewCatalog(std::string_view warehouse,
                                                    Properties& properties) const {
  CAIRN_ASSIGN_OR_RAISE(auto canonical, ConfineToServer(warehouse, "catalog location"));
  if (auto it = properties.find(std::string(kAllowedLocationsProperty));
      it != properties.end()) {
    std::vector<std::string> roots;
    for (const auto& entry : SplitList(it->second)) {
      CAIRN_ASSIGN_OR_RAISE(auto root, ConfineToServer(entry, kAllowedLocationsProperty));
      roots.push_back(std::move(root));
    }
    CAIRN_PRECHECK(!roots.empty(), "Invalid {}: must list at least one location",
                   kAllowedLocationsProperty);
    it->second = fmt::format("{}", fmt::join(roots, ","));
  }
  return canonical;
}

std::vector<std::string> LocationPolicy::CatalogRoots(
    const CatalogRecord& catalog) const {
  std::vector<std::string> roots;
  auto it = catalog.properties.find(std::string(kAllowedLocationsProperty));
  const std::vector<std::string> entries =
      it != catalog.properties.end() ? SplitList(it->second)
                                     : std::vector<std::string>{catalog.location};
  for (const auto& entry : entries) {
    // A catalog root outside the server's roots allows nothing: the server's bound the
    // catalog's, also when the server's allowed locations shrank since it was created.
    auto canonical = CanonicalLocation(entry);
    if (canonical && UnderServerRoot(*canonical)) roots.push_back(std::move(*canonical));
  }
  return roots;
}

Result<std::string> LocationPolicy::Confine(const CatalogRecord& catalog,
                                            std::string_view location,
                                            std::string_view what) const {
  auto canonical = CanonicalLocation(location);
  if (!canonical) return BadRequest("Invalid {}: {}", what, canonical.error().message);
  const auto roots = CatalogRoots(catalog);
  if (!UnderAny(roots, *canonical)) {
    return BadRequest(
        "Invalid {} {}: it is outside the allowed locations of catalog {} ({})", what,
        ShortLocation(location), catalog.name,
        roots.empty() ? std::string("none") : fmt::format("{}", fmt::join(roots, ", ")));
  }
  return canonical;
}

std::string LocationPolicy::RootOf(const CatalogRecord& catalog,
                                   std::string_view canonical) const {
  std::string best;
  for (auto& root : CatalogRoots(catalog)) {
    if (LocationContains(root, canonical) && root.size() > best.size()) best = root;
  }
  return best;
}

Result<EntityLocations> LocationPolicy::ConfineEntity(
    const CatalogRecord& catalog, std::string_view location,
    const Properties& properties) const {
  EntityLocations out;
  CAIRN_ASSIGN_OR_RAISE(out.location, Confine(catalog, location, "location"));
  out.claim = ClaimOf(catalog, out.location);
  out.metadata_dir = DescendantPrefix(out.location) + "metadata";
  for (const std::string_view key : kPathProperties) {
    auto it = properties.find(std::string(key));
    if (it == properties.end() || it->second.empty()) continue;
    CAIRN_ASSIGN_OR_RAISE(auto path,
                          Confine(catalog, it->second, fmt::format("property {}", key)));
    if (key == kMetadataPathProperty) out.metadata_dir = path;
    AddToClaim(out.claim, std::move(path));
  }
  return out;
}

Result<LocationClaim> LocationPolicy::LegacyClaim(const CatalogRecord& catalog,
                                                  std::string_view location,
                                                  const Properties& properties) const {
  CAIRN_ASSIGN_OR_RAISE(auto canonical, CanonicalLocation(location));
  LocationClaim claim = ClaimOf(catalog, std::move(canonical));
  for (const std::string_view key : kPathProperties) {
    auto it = properties.find(std::string(key));
    if (it == properties.end() || it->second.empty()) continue;
    if (auto path = CanonicalLocation(it->second)) AddToClaim(claim, std::move(*path));
  }
  return claim;
}

LocationClaim LocationPolicy::ClaimOf(const CatalogRecord& catalog,
                                      std::string canonical) {
  auto it = catalog.properties.find(std::string(kAllowOverlapProperty));
  const bool overlap =
      it != catalog.properties.end() && EqualsIgnoreCase(it->second, "true");
  return LocationClaim{{std::move(canonical)}, overlap};
}

}  // namespace cairn
