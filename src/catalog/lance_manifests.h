#pragma once

/// \file
/// \brief The manifests of Lance tables: where version N of a branch is, and its parsed
/// model, read once per version and cached (`LanceManifestCache`; a manifest never
/// changes). Which version is the latest comes from the store for a table whose versions
/// Cairn manages (one indexed read), and from a listing of the branch's `_versions`
/// directory otherwise. Thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "catalog/lance_manifest_cache.h"
#include "catalog/lance_service.h"
#include "common/result.h"
#include "io/file_io.h"
#include "lance/manifest.h"

namespace cairn {

/// \brief Where one version's manifest is.
struct LanceManifestLocation {
  int64_t version = 0;
  /// The manifest file (absolute URI or path, as the table's location is).
  std::string location = {};

  bool operator==(const LanceManifestLocation&) const = default;
};

class LanceManifests {
 public:
  /// \brief All references must outlive this object.
  LanceManifests(LanceService& lance, FileIO& io,
                 size_t cache_bytes = LanceManifestCache::kDefaultCapacityBytes);

  /// \brief Where version `version` of the table's `branch` (empty: main) is, or its
  /// latest version's when `version` is unset; nullopt when the branch has no version yet
  /// (the table is only declared). Errors: `kBadRequest` (branch name),
  /// `kNoSuchTableVersion` (a given version that does not exist), those of
  /// `LanceVersions::DescribeVersion` for managed tables, storage errors.
  Result<std::optional<LanceManifestLocation>> Locate(const LanceTableInfo& table,
                                                      const std::string& branch,
                                                      std::optional<int64_t> version);

  /// \brief The manifest at `where`, from the cache or read from storage and kept.
  /// Errors: `kInternal` (the file is not a valid manifest, or one of another version),
  /// storage errors (`kNotFound` when the file is gone).
  Result<std::shared_ptr<const lance::LanceManifest>> Read(
      const LanceTableInfo& table, const LanceManifestLocation& where);

  /// \brief The bytes of the manifest file at `where` (never cached: for a rewrite).
  /// Errors: storage errors.
  Result<std::string> ReadBytes(const LanceManifestLocation& where);

  /// \brief The cache (for tests and metrics).
  const LanceManifestCache& cache() const { return cache_; }

 private:
  Result<std::optional<LanceManifestLocation>> LocateManaged(
      const LanceTableInfo& table, const std::string& branch,
      std::optional<int64_t> version);
  Result<std::optional<LanceManifestLocation>> LocateOnStorage(
      const LanceTableInfo& table, const std::string& branch,
      std::optional<int64_t> version);

  LanceService& lance_;
  FileIO& io_;
  LanceManifestCache cache_;
};

}  // namespace cairn
