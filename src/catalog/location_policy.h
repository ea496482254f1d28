#pragma once

/// \file
/// \brief Where the entities of a catalog may live (DESIGN.md §4a): every location a
/// request brings is canonicalised (`common/location.h`) and must lie under the
/// catalog's allowed locations, which themselves lie under the server's. What an entity
/// then owns is its `LocationClaim`, which the store keeps free of overlaps.
///
/// - The server's allowed locations (`allowed-locations`; default: the warehouse root)
///   bound every catalog: a catalog's warehouse and allowed locations must lie under
///   them.
/// - A catalog's allowed locations are its `allowed-locations` property (comma-separated)
///   or, without it, its warehouse.
/// - `allow-overlapping-locations=true` on a catalog lets its own entities overlap one
///   another (never those of another catalog).
///
/// Thread-safe: immutable after construction.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief The catalog property listing its allowed locations (comma-separated).
inline constexpr std::string_view kAllowedLocationsProperty = "allowed-locations";
/// \brief The catalog property that lets its entities overlap one another.
inline constexpr std::string_view kAllowOverlapProperty = "allow-overlapping-locations";

/// \brief Where an Iceberg table or view lives, canonical and confined.
struct EntityLocations {
  /// The entity's `location`.
  std::string location;
  /// The directory its metadata files go to: `write.metadata.path`, or
  /// `<location>/metadata`.
  std::string metadata_dir;
  /// What the entity owns: its location and any path property outside it.
  LocationClaim claim;
};

/// \brief True when `canonical` lies at or below one of the locations of `claim`: it is
/// the claiming entity's to write or delete.
bool ClaimCovers(const LocationClaim& claim, std::string_view canonical);

/// \brief True when two versions of an entity keep their files in the same places: the
/// same `location` and the same path properties (see `ConfineEntity`). A change of any is
/// a move, whose claim the store must check again.
bool SameLocations(std::string_view location_a, const Properties& properties_a,
                   std::string_view location_b, const Properties& properties_b);

class LocationPolicy {
 public:
  /// \brief `server_roots`: canonical locations; empty means nothing is allowed.
  explicit LocationPolicy(std::vector<std::string> server_roots);

  /// \brief The server's allowed locations (canonical).
  const std::vector<std::string>& server_roots() const { return server_roots_; }

  /// \brief The canonical form of `location` when it lies under the server's allowed
  /// locations. `what` names the field in messages. Errors: `kBadRequest`.
  Result<std::string> ConfineToServer(std::string_view location,
                                      std::string_view what) const;

  /// \brief A new catalog's canonical warehouse, checked against the server's allowed
  /// locations; rewrites the `allowed-locations` property of `properties` to canonical
  /// form after checking each entry likewise. Errors: `kBadRequest`.
  Result<std::string> CheckNewCatalog(std::string_view warehouse,
                                      Properties& properties) const;

  /// \brief The canonical form of `location` when it lies under one of `catalog`'s
  /// allowed locations (and the server's). Errors: `kBadRequest`, naming `what` and the
  /// catalog's allowed locations, never anything outside them.
  Result<std::string> Confine(const CatalogRecord& catalog, std::string_view location,
                              std::string_view what) const;

  /// \brief The allowed location of `catalog` that `canonical` lies under: the trusted
  /// root a file operation on it may not leave. Empty when none.
  std::string RootOf(const CatalogRecord& catalog, std::string_view canonical) const;

  /// \brief Confines an Iceberg table's or view's `location` and the path properties
  /// (`write.metadata.path`, `write.data.path` and the older data path properties) and
  /// builds its claim. Errors: `kBadRequest`.
  Result<EntityLocations> ConfineEntity(const CatalogRecord& catalog,
                                        std::string_view location,
                                        const Properties& properties) const;

  /// \brief The claim of an entity created before claims existed: its location and path
  /// properties in canonical form, not confined (an older version may have put it
  /// anywhere). Errors: `kBadRequest` when the location has no canonical form.
  Result<LocationClaim> LegacyClaim(const CatalogRecord& catalog,
                                    std::string_view location,
                                    const Properties& properties) const;

  /// \brief A claim of the single location `canonical` (Lance tables).
  static LocationClaim ClaimOf(const CatalogRecord& catalog, std::string canonical);

 private:
  /// The catalog's allowed locations, canonical (unparsable entries are left out).
  std::vector<std::string> CatalogRoots(const CatalogRecord& catalog) const;
  bool UnderServerRoot(std::string_view canonical) const;

  std::vector<std::string> server_roots_;
};

}  // namespace cairn
