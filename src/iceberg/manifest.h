#pragma once

/// \file
/// \brief Iceberg manifest lists and manifests as read for planning, purge and
/// maintenance (format v1, v2 and v3; the table spec's "Manifest Lists" and "Manifests"
/// sections). Field values keep Iceberg's meaning; bounds and partition values are kept
/// in the spec's single-value binary serialization (Appendix D), which is also what the
/// planning answers carry, so nothing is converted twice.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cairn::iceberg {

/// \brief `content` of a manifest (517): what its entries are.
enum class ManifestContent { kData = 0, kDeletes = 1 };

/// \brief A `field_summary` (508) of a manifest-list entry: one per partition field.
struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<std::string> lower_bound;  ///< single-value serialization
  std::optional<std::string> upper_bound;
};

/// \brief One entry of a manifest list (`manifest_file`), with v1's missing fields read
/// as the spec says (content data, sequence numbers 0).
struct ManifestFile {
  std::string path;                                  // 500
  int64_t length = 0;                                // 501
  int32_t partition_spec_id = 0;                     // 502
  ManifestContent content = ManifestContent::kData;  // 517
  int64_t sequence_number = 0;                       // 515
  int64_t min_sequence_number = 0;                   // 516
  int64_t added_snapshot_id = 0;                     // 503
  std::optional<int32_t> added_files_count;     // 504; unset: unknown, maybe non-zero
  std::optional<int32_t> existing_files_count;  // 505
  std::optional<int32_t> deleted_files_count;   // 506
  std::optional<int64_t> added_rows_count;      // 512
  std::optional<int64_t> existing_rows_count;   // 513
  std::optional<int64_t> deleted_rows_count;    // 514
  /// 507; unset when the writer gave none (then nothing can be pruned by it).
  std::optional<std::vector<PartitionFieldSummary>> partitions;
  bool has_key_metadata = false;        // 519 (encrypted manifests are not read)
  std::optional<int64_t> first_row_id;  // 520

  /// \brief Whether the manifest may hold live (added or existing) entries; an unknown
  /// count counts as "may".
  bool MayHaveLiveFiles() const;
};

/// \brief `content` of a file (134).
enum class FileContent { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };

/// \brief `status` of a manifest entry (0).
enum class EntryStatus { kExisting = 0, kAdded = 1, kDeleted = 2 };

/// \brief A column statistic keyed by field id.
template <typename T>
using ColumnStats = std::vector<std::pair<int32_t, T>>;

/// \brief A data file or delete file (`data_file`, 2), as its manifest describes it.
struct ContentFile {
  FileContent content = FileContent::kData;  // 134
  std::string file_path;                     // 100
  std::string file_format;                   // 101, lower-cased
  int32_t spec_id = 0;  ///< the manifest's partition spec (from the manifest list)
  /// 102: one value per field of the partition record, in the writer's order; unset for
  /// null. Single-value serialization of the partition field's result type.
  std::vector<std::optional<std::string>> partition;
  /// The field ids of `partition`'s values, in the same order.
  std::vector<int32_t> partition_field_ids;
  int64_t record_count = 0;                         // 103
  int64_t file_size_in_bytes = 0;                   // 104
  ColumnStats<int64_t> column_sizes;                // 108
  ColumnStats<int64_t> value_counts;                // 109
  ColumnStats<int64_t> null_value_counts;           // 110
  ColumnStats<int64_t> nan_value_counts;            // 137
  ColumnStats<std::string> lower_bounds;            // 125
  ColumnStats<std::string> upper_bounds;            // 128
  std::optional<std::string> key_metadata;          // 131
  std::vector<int64_t> split_offsets;               // 132
  std::vector<int32_t> equality_ids;                // 135
  std::optional<int32_t> sort_order_id;             // 140
  std::optional<int64_t> first_row_id;              // 142, after inheritance
  std::optional<std::string> referenced_data_file;  // 143
  std::optional<int64_t> content_offset;            // 144
  std::optional<int64_t> content_size_in_bytes;     // 145
};

/// \brief A `manifest_entry` after inheritance (snapshot id and sequence numbers filled
/// from the manifest list as the spec says; unset only where the spec leaves them so).
struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;           // 1
  std::optional<int64_t> sequence_number;       // 3: the data sequence number
  std::optional<int64_t> file_sequence_number;  // 4
  ContentFile file;

  bool IsLive() const { return status != EntryStatus::kDeleted; }
};

/// \brief A manifest: its format version (from the header, 1 when absent) and entries
/// in file order.
struct Manifest {
  int format_version = 1;
  std::vector<ManifestEntry> entries;
};

/// \brief The estimated bytes a manifest takes in memory (for cache bounds).
size_t EstimatedBytes(const Manifest& manifest);
size_t EstimatedBytes(const std::vector<ManifestFile>& manifest_list);

}  // namespace cairn::iceberg
