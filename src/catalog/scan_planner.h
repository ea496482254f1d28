#pragma once

/// \file
/// \brief Server-side scan planning (the REST spec's `planTableScan`): which data files
/// of a table's snapshot may hold rows matching a filter, each with the delete files
/// that apply to it. The snapshot's manifest list is pruned by partition summaries, its
/// manifests' entries by partition values and column statistics
/// (`iceberg/scan_filter.h`), and deletes are attached as the table spec's "Scan
/// Planning" says: a deletion vector for the data file's path, else position deletes of
/// its partition (or its path) with a sequence number at least the data file's, and
/// equality deletes of its partition (or unpartitioned, global ones) with a greater
/// sequence number. Manifests come through `IcebergManifests` (confined to the table's
/// claim, cached).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "catalog/iceberg_manifests.h"
#include "common/result.h"
#include "iceberg/expression.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "store/meta_store.h"

namespace cairn {

/// \brief What a client asked to plan (`PlanTableScanRequest`).
struct ScanRequest {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> start_snapshot_id;  ///< exclusive, as the spec says
  std::optional<int64_t> end_snapshot_id;    ///< inclusive
  std::vector<std::string> select;
  std::optional<iceberg::Expression> filter;
  bool case_sensitive = true;
  bool use_snapshot_schema = false;
  std::optional<std::vector<std::string>> stats_fields;
  std::optional<int64_t> min_rows_requested;
};

/// \brief A content file of a plan: entry `index` of `manifest`, which the plan keeps
/// alive (`ScanPlan::manifests`).
struct PlannedFile {
  const iceberg::Manifest* manifest = nullptr;
  uint32_t index = 0;

  iceberg::ManifestEntryView entry() const { return manifest->entry(index); }
  iceberg::ContentFileView file() const { return entry().file(); }
};

/// \brief A data file to read and the deletes that apply to it: 24 bytes, a plan of a
/// million files holds a million of them.
struct FileScanTask {
  PlannedFile data;
  uint32_t first_delete =
      0;  ///< its deletes: `ScanPlan::delete_refs`[first, first+count)
  uint32_t delete_count = 0;
};

/// \brief A planned scan: everything the answer needs, independent of the table's later
/// commits.
struct ScanPlan {
  std::shared_ptr<const iceberg::TableMetadata> metadata;
  int32_t schema_id = 0;  ///< the schema the filter was bound to
  /// Every manifest a task or delete file lies in, kept alive for the plan's lifetime.
  std::vector<std::shared_ptr<const iceberg::Manifest>> manifests;
  std::vector<FileScanTask> tasks;
  std::vector<PlannedFile> delete_files;
  /// The deletes of every task, as indexes into `delete_files` (see `FileScanTask`).
  std::vector<uint32_t> delete_refs;
  /// The bound filter, `not`-free (`true` without one): the residual each task carries.
  iceberg::BoundExpression filter = iceberg::BoundExpression::Constant(true);
  /// Field ids whose statistics the answer carries; unset: none (as Java without
  /// `stats-fields`).
  std::optional<std::vector<int32_t>> stats_field_ids;
  /// Manifests read from storage for this plan (the rest came from the cache).
  uint64_t manifests_read = 0;

  /// \brief The deletes of `task`, as indexes into `delete_files`.
  std::span<const uint32_t> DeletesOf(const FileScanTask& task) const {
    return std::span<const uint32_t>(delete_refs)
        .subspan(task.first_delete, task.delete_count);
  }
};

class ScanPlanner {
 public:
  explicit ScanPlanner(IcebergManifests& manifests) : manifests_(manifests) {}

  /// \brief Plans `request` on `metadata` (a table whose files lie in `claim`).
  ///
  /// Errors: `kBadRequest` naming the problem: both a snapshot and an incremental range,
  /// a start without an end, a negative `min-rows-requested`, an unknown snapshot, a
  /// start that is not an ancestor of the end, a filter or stats field that does not bind
  /// (`iceberg::Bind`), a manifest outside the table's locations, missing or not
  /// readable; `kUnsupported` for an encrypted manifest; those of `FileIO::ReadFile`.
  Result<ScanPlan> Plan(std::shared_ptr<const iceberg::TableMetadata> metadata,
                        const LocationClaim& claim, const ScanRequest& request);

  /// \brief The bytes of the data manifests `request` would read that are not in the
  /// cache yet: what planning it costs in storage reads. Errors: as `Plan`.
  Result<uint64_t> UncachedManifestBytes(const iceberg::TableMetadata& metadata,
                                         const LocationClaim& claim,
                                         const ScanRequest& request);

 private:
  IcebergManifests& manifests_;
};

}  // namespace cairn
