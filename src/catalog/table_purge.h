#pragma once

/// \file
/// \brief The purge of a dropped Iceberg table's files, by what its metadata references
/// (DESIGN §4a: Cairn deletes only what it can prove is the table's): the data and delete
/// files of every snapshot's manifests, the manifests, the manifest lists, the statistics
/// files and the metadata files — each only when it lies inside the table's claim and no
/// other entity uses it. Deletion is best effort: a file that cannot be read or deleted
/// is counted and kept, and the purge goes on with the rest.

#include <cstddef>
#include <functional>
#include <string_view>

#include "catalog/iceberg_manifests.h"
#include "iceberg/table_metadata.h"
#include "io/file_io.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief What a purge did.
struct PurgeCounts {
  size_t deleted = 0;     ///< deletions done (a file already gone counts; so does a data
                          ///< file that two manifests list, twice)
  size_t outside = 0;     ///< referenced, but outside the table's claim: kept
  size_t in_use = 0;      ///< inside the claim, but another entity uses it: kept
  size_t failed = 0;      ///< deletions that failed
  size_t unreadable = 0;  ///< manifest lists and manifests that could not be read
};

/// \brief Deletes the files that `metadata` (stored at `metadata_location`) references,
/// as the file comment says. `used_elsewhere(canonical)` says whether another entity
/// uses a file (true when unsure). Data and delete files go first and metadata files
/// last, so that an interrupted purge leaves the references of what is left. With the
/// table property `gc.enabled=false` data and delete files are kept (they may be
/// shared), as the Java reference does.
PurgeCounts PurgeReferencedFiles(
    const iceberg::TableMetadata& metadata, std::string_view metadata_location,
    const LocationClaim& claim, IcebergManifests& manifests, FileIO& io,
    const std::function<bool(std::string_view)>& used_elsewhere);

}  // namespace cairn
