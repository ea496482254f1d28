#include "catalog/iceberg_manifests.h"

#include <utility>

#include <fmt/format.h>

#include "catalog/location_policy.h"
#include "common/location.h"
#include "common/macros.h"
#include "iceberg/manifest_reader.h"

namespace cairn {
namespace {

// Manifest lists are few and small next to manifests: a sixteenth of the bound.
constexpr size_t kListShareDivisor = 16;

}  // namespace

IcebergManifests::IcebergManifests(FileIO& io, size_t cache_bytes)
    : io_(io),
      lists_(cache_bytes / kListShareDivisor),
      manifests_(cache_bytes - cache_bytes / kListShareDivisor) {}

void IcebergManifests::SetCacheBytes(size_t cache_bytes) {
  lists_.SetCapacity(cache_bytes / kListShareDivisor);
  manifests_.SetCapacity(cache_bytes - cache_bytes / kListShareDivisor);
}

Result<std::string> IcebergManifests::Confine(std::string_view location,
                                              const LocationClaim& claim,
                                              std::string_view what) {
  auto canonical = CanonicalLocation(location);
  if (!canonical || !ClaimCovers(claim, *canonical)) {
    return BadRequest("{} {} lies outside the table's locations", what, location);
  }
  return std::move(*canonical);
}

Result<std::string> IcebergManifests::ReadFile(const std::string& canonical) {
  files_read_.fetch_add(1, std::memory_order_relaxed);
  auto bytes = io_.ReadFile(canonical);
  // The table exists; a file its metadata names does not: the table is damaged, which
  // a client must not read as "no such table" (a 404 of these routes means that).
  if (!bytes && bytes.error().kind == ErrorKind::kNotFound) {
    return BadRequest("A file the table's metadata references does not exist: {}",
                      canonical);
  }
  return bytes;
}

Result<std::shared_ptr<const ManifestList>> IcebergManifests::ManifestsOf(
    const iceberg::Snapshot& snapshot, const LocationClaim& claim) {
  if (snapshot.manifest_list.empty()) {
    auto embedded = std::make_shared<ManifestList>();
    for (const std::string& path : snapshot.manifests) {
      iceberg::ManifestFile file;
      file.path = path;
      file.added_snapshot_id = snapshot.snapshot_id;
      embedded->push_back(std::move(file));
    }
    return embedded;
  }
  // Confined before the cache is asked: a kept file is no one else's to see.
  CAIRN_ASSIGN_OR_RAISE(std::string key,
                        Confine(snapshot.manifest_list, claim, "Manifest list"));
  if (auto kept = lists_.Find(key)) return kept;
  CAIRN_ASSIGN_OR_RAISE(std::string bytes, ReadFile(key));
  auto list = iceberg::ReadManifestList(bytes, io_.MaxReadBytes());
  if (!list) {
    return tl::unexpected(Error{
        list.error().kind, fmt::format("Cannot read manifest list {}: {}",
                                       snapshot.manifest_list, list.error().message)});
  }
  auto shared = std::make_shared<const ManifestList>(std::move(*list));
  lists_.Insert(key, shared, iceberg::EstimatedBytes(*shared));
  return shared;
}

std::string IcebergManifests::KeyOf(const std::string& canonical,
                                    const iceberg::ManifestFile& manifest) {
  // The listing's own facts go into the entries (inheritance), so they are in the key.
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", canonical, manifest.sequence_number,
                     manifest.added_snapshot_id, manifest.partition_spec_id,
                     manifest.first_row_id.value_or(-1));
}

bool IcebergManifests::IsCached(const iceberg::ManifestFile& manifest,
                                const LocationClaim& claim) {
  auto canonical = Confine(manifest.path, claim, "Manifest");
  return canonical && manifests_.Find(KeyOf(*canonical, manifest)) != nullptr;
}

Result<std::shared_ptr<const iceberg::Manifest>> IcebergManifests::Read(
    const iceberg::ManifestFile& manifest, const LocationClaim& claim) {
  CAIRN_ASSIGN_OR_RAISE(std::string canonical, Confine(manifest.path, claim, "Manifest"));
  const std::string key = KeyOf(canonical, manifest);
  if (auto kept = manifests_.Find(key)) return kept;
  CAIRN_ASSIGN_OR_RAISE(std::string bytes, ReadFile(canonical));
  auto parsed = iceberg::ReadManifest(bytes, manifest, io_.MaxReadBytes());
  if (!parsed) {
    return tl::unexpected(
        Error{parsed.error().kind, fmt::format("Cannot read manifest {}: {}",
                                               manifest.path, parsed.error().message)});
  }
  auto shared = std::make_shared<const iceberg::Manifest>(std::move(*parsed));
  manifests_.Insert(key, shared, shared->EstimatedBytes());
  return shared;
}

}  // namespace cairn
