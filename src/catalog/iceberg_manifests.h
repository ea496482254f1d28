#pragma once

/// \file
/// \brief Reads an Iceberg table's manifest lists and manifests through `FileIO`, for
/// planning, purge and maintenance. Every location a manifest list or manifest names was
/// written by a client, so each is canonicalised and must lie inside the table's claim
/// (its own locations) before it is read: a table cannot make Cairn read another table's
/// files or anything else. A manifest never changes once written, so parsed files are
/// kept (bounded by bytes; `LruCache`), and a second read of the same snapshot reads
/// nothing from storage. Thread-safe.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/lru_cache.h"
#include "common/result.h"
#include "iceberg/manifest.h"
#include "iceberg/snapshot.h"
#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

using ManifestList = std::vector<iceberg::ManifestFile>;

class IcebergManifests {
 public:
  /// \brief The default bound of parsed manifests kept: over a million data files with
  /// statistics of a handful of columns (packed, about 300 bytes each).
  static constexpr size_t kDefaultCacheBytes = size_t{512} << 20;

  explicit IcebergManifests(FileIO& io, size_t cache_bytes = kDefaultCacheBytes);

  /// \brief Changes the bound (`manifest-cache-bytes`); what no longer fits goes.
  void SetCacheBytes(size_t cache_bytes);

  /// \brief The manifests of `snapshot`: its manifest list's entries, or for a v1
  /// snapshot that embeds `manifests` instead, one entry per path as Java builds them
  /// (spec 0, sequence number 0, counts and summaries unknown).
  ///
  /// Errors: `kBadRequest` when the manifest list lies outside `claim`, does not exist
  /// or is not a readable manifest list (naming it); those of `FileIO::ReadFile`.
  Result<std::shared_ptr<const ManifestList>> ManifestsOf(
      const iceberg::Snapshot& snapshot, const LocationClaim& claim);

  /// \brief The entries of `manifest` (see `iceberg::ReadManifest` for inheritance).
  /// Errors: as `ManifestsOf`; `kUnsupported` for an encrypted manifest.
  Result<std::shared_ptr<const iceberg::Manifest>> Read(
      const iceberg::ManifestFile& manifest, const LocationClaim& claim);

  /// \brief Whether `manifest` is kept parsed (a `Read` of it would read nothing).
  bool IsCached(const iceberg::ManifestFile& manifest, const LocationClaim& claim);

  /// \brief The canonical form of `location` when it lies inside `claim`; `what` names it
  /// in the error. Errors: `kBadRequest` "<what> <location> lies outside the table's
  /// locations".
  static Result<std::string> Confine(std::string_view location,
                                     const LocationClaim& claim, std::string_view what);

  /// \brief Files read from storage so far (cache misses), for tests and metrics.
  uint64_t files_read() const { return files_read_.load(std::memory_order_relaxed); }
  size_t cached_bytes() const { return lists_.size_bytes() + manifests_.size_bytes(); }

 private:
  Result<std::string> ReadFile(const std::string& canonical);
  static std::string KeyOf(const std::string& canonical,
                           const iceberg::ManifestFile& manifest);

  FileIO& io_;
  LruCache<ManifestList> lists_;
  LruCache<iceberg::Manifest> manifests_;
  std::atomic<uint64_t> files_read_{0};
};

}  // namespace cairn
