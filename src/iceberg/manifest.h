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
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

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

namespace manifest_internal {

/// \brief The fixed part of one packed entry; the rest lies in the manifest's arena.
struct PackedEntry {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int64_t file_sequence_number = 0;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  uint32_t offset = 0;          ///< path, format and partition values
  uint32_t columns_offset = 0;  ///< column statistics
  uint32_t tail_offset = 0;     ///< the optional fields
  int32_t spec_id = 0;
  uint16_t present = 0;  ///< which optional fields are set (`PackedField` bits)
  uint8_t status = 0;
  uint8_t content = 0;
};

}  // namespace manifest_internal

/// \brief One column's statistics of a file (unset: the manifest has none).
struct ColumnStatsView {
  int32_t field_id = 0;
  std::optional<int64_t> column_size;
  std::optional<int64_t> value_count;
  std::optional<int64_t> null_value_count;
  std::optional<int64_t> nan_value_count;
  std::optional<std::string_view> lower_bound;
  std::optional<std::string_view> upper_bound;
};

/// \brief One partition value of a file: its partition field id and single-value
/// serialization (unset for null).
struct PartitionValueView {
  int32_t field_id = 0;
  std::optional<std::string_view> value;
};

/// \brief A content file as a `Manifest` keeps it: read in place, valid while the
/// manifest lives. The fields mean what `ContentFile`'s do.
class ContentFileView {
 public:
  ContentFileView(const manifest_internal::PackedEntry* packed, const char* arena)
      : packed_(packed), arena_(arena) {}

  FileContent content() const { return static_cast<FileContent>(packed_->content); }
  std::string_view file_path() const;
  std::string_view file_format() const;
  int32_t spec_id() const { return packed_->spec_id; }
  int64_t record_count() const { return packed_->record_count; }
  int64_t file_size_in_bytes() const { return packed_->file_size_in_bytes; }

  /// \brief The partition values, in the writer's order (a walk of a few bytes each).
  size_t partition_size() const;
  PartitionValueView partition_value(size_t index) const;

  /// \brief The statistics of column `field_id`, if the file has any.
  std::optional<ColumnStatsView> column(int32_t field_id) const;
  /// \brief Every column with statistics, by field id.
  std::vector<ColumnStatsView> columns() const;

  std::optional<std::string_view> key_metadata() const;
  std::vector<int64_t> split_offsets() const;
  std::vector<int32_t> equality_ids() const;
  std::optional<int32_t> sort_order_id() const;
  std::optional<int64_t> first_row_id() const;
  std::optional<std::string_view> referenced_data_file() const;
  std::optional<int64_t> content_offset() const;
  std::optional<int64_t> content_size_in_bytes() const;

  /// \brief A copy that owns its values (statistics ordered by field id).
  ContentFile ToContentFile() const;

 private:
  const manifest_internal::PackedEntry* packed_;
  const char* arena_;
};

/// \brief A manifest entry as a `Manifest` keeps it (see `ManifestEntry`).
class ManifestEntryView {
 public:
  ManifestEntryView(const manifest_internal::PackedEntry* packed, const char* arena)
      : packed_(packed), arena_(arena) {}

  EntryStatus status() const { return static_cast<EntryStatus>(packed_->status); }
  std::optional<int64_t> snapshot_id() const;
  std::optional<int64_t> sequence_number() const;
  std::optional<int64_t> file_sequence_number() const;
  bool IsLive() const { return status() != EntryStatus::kDeleted; }
  ContentFileView file() const { return ContentFileView(packed_, arena_); }

  /// \brief A copy that owns its values.
  ManifestEntry ToEntry() const;

 private:
  const manifest_internal::PackedEntry* packed_;
  const char* arena_;
};

/// \brief A manifest: its format version (from the header, 1 when absent) and entries
/// in file order. Entries are packed into one buffer (a fixed part each, the rest as
/// varints and length-prefixed bytes): a cached million-file table takes a few hundred
/// bytes a file instead of kilobytes of small allocations. Views stay valid until the
/// next `Append`; a manifest shared as const never changes.
class Manifest {
 public:
  int format_version = 1;

  /// \brief Appends `entry`, packed.
  /// Errors: `kBadRequest` when the packed manifest would outgrow 4 GiB.
  Status Append(const ManifestEntry& entry);
  /// \brief Releases the spare capacity that appending left (once, after the last).
  void ShrinkToFit();

  size_t size() const { return packed_.size(); }
  ManifestEntryView entry(size_t index) const {
    return ManifestEntryView(&packed_[index], arena_.data());
  }
  /// \brief A copy of entry `index` that owns its values.
  ManifestEntry Entry(size_t index) const { return entry(index).ToEntry(); }

  /// \brief The entries, for a range-for.
  class Iterator {
   public:
    Iterator(const Manifest& manifest, size_t index)
        : manifest_(&manifest), index_(index) {}
    ManifestEntryView operator*() const { return manifest_->entry(index_); }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return index_ != other.index_; }

   private:
    const Manifest* manifest_;
    size_t index_;
  };
  Iterator begin() const { return Iterator(*this, 0); }
  Iterator end() const { return Iterator(*this, packed_.size()); }

  /// \brief The bytes this manifest takes in memory (for cache bounds).
  size_t EstimatedBytes() const;

 private:
  std::vector<manifest_internal::PackedEntry> packed_;
  std::string arena_;
};

/// \brief The estimated bytes a manifest list takes in memory (for cache bounds).
size_t EstimatedBytes(const std::vector<ManifestFile>& manifest_list);

}  // namespace cairn::iceberg
