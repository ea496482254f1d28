#pragma once

/// \file
/// \brief Snapshots, snapshot references (branches and tags), statistics files,
/// encryption keys and the snapshot / metadata log entries of table metadata.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::iceberg {

/// \brief A snapshot of the table's contents.
struct Snapshot {
  /// Summary key holding the operation (`append`, `replace`, `overwrite`, `delete`).
  static constexpr std::string_view kOperationKey = "operation";

  /// `snapshot-id`.
  int64_t snapshot_id = 0;
  /// `parent-snapshot-id`, unset for the first snapshot of a lineage.
  std::optional<int64_t> parent_snapshot_id;
  /// `sequence-number` (v2+); 0 in v1 and then not written.
  int64_t sequence_number = 0;
  /// `timestamp-ms`.
  int64_t timestamp_ms = 0;
  /// `manifest-list` location. Empty only for v1 snapshots with embedded `manifests`.
  std::string manifest_list;
  /// `manifests`: v1 only, manifest paths embedded instead of a manifest list.
  std::vector<std::string> manifests;
  /// `summary`, including the `operation` key. Readers set `operation` to `overwrite`
  /// when a non-empty summary lacks it (as Java does); an empty summary is not written.
  std::map<std::string, std::string> summary;
  /// `schema-id` current when the snapshot was written (absent from old writers).
  std::optional<int32_t> schema_id;
  /// `first-row-id` (v3 row lineage).
  std::optional<int64_t> first_row_id;
  /// `added-rows` (v3 row lineage); required when `first_row_id` is set.
  std::optional<int64_t> added_rows;
  /// `key-id` of the encryption key for the manifest list (Java-only extension).
  std::optional<std::string> key_id;

  /// \brief The summary's `operation`, if any.
  std::optional<std::string> Operation() const;

  /// \brief Java `BaseSnapshot` checks: `first-row-id` and `added-rows` not negative,
  /// `added-rows` present when `first-row-id` is. Errors: `kInvalidArgument`.
  Status Validate() const;

  bool operator==(const Snapshot&) const = default;
};

/// \brief `type` of a snapshot reference.
enum class SnapshotRefType { kBranch, kTag };

/// \brief `"branch"` / `"tag"`.
std::string_view ToString(SnapshotRefType type);
/// \brief Parses `branch` / `tag`, case-insensitively. Errors: `kBadRequest`.
Result<SnapshotRefType> ParseSnapshotRefType(std::string_view text);

/// \brief A named reference to a snapshot (`refs` map value).
struct SnapshotRef {
  /// Name of the main branch.
  static constexpr std::string_view kMainBranch = "main";

  /// `snapshot-id` the ref points at.
  int64_t snapshot_id = 0;
  /// `type`: branch or tag.
  SnapshotRefType type = SnapshotRefType::kBranch;
  /// `min-snapshots-to-keep` (branches only, > 0).
  std::optional<int32_t> min_snapshots_to_keep;
  /// `max-snapshot-age-ms` (branches only, > 0).
  std::optional<int64_t> max_snapshot_age_ms;
  /// `max-ref-age-ms` (> 0).
  std::optional<int64_t> max_ref_age_ms;

  static SnapshotRef Branch(int64_t snapshot_id) {
    return SnapshotRef{snapshot_id, SnapshotRefType::kBranch, {}, {}, {}};
  }
  static SnapshotRef Tag(int64_t snapshot_id) {
    return SnapshotRef{snapshot_id, SnapshotRefType::kTag, {}, {}, {}};
  }

  bool IsBranch() const { return type == SnapshotRefType::kBranch; }

  /// \brief Java `SnapshotRef.Builder` checks: tags have no snapshot retention settings;
  /// set values are positive. Errors: `kInvalidArgument`.
  Status Validate() const;

  bool operator==(const SnapshotRef&) const = default;
};

/// \brief One blob of a Puffin statistics file (`blob-metadata` entry).
struct BlobMetadata {
  /// `type` of the blob (e.g. `apache-datasketches-theta-v1`).
  std::string type;
  /// `snapshot-id` the blob was computed from.
  int64_t source_snapshot_id = 0;
  /// `sequence-number` of that snapshot.
  int64_t source_snapshot_sequence_number = 0;
  /// `fields`: the field ids the blob covers.
  std::vector<int32_t> fields;
  /// `properties` (written only when non-empty).
  std::map<std::string, std::string> properties;

  bool operator==(const BlobMetadata&) const = default;
};

/// \brief A table statistics (Puffin) file of a snapshot (`statistics` entry).
struct StatisticsFile {
  /// `snapshot-id`.
  int64_t snapshot_id = 0;
  /// `statistics-path`.
  std::string statistics_path;
  /// `file-size-in-bytes`.
  int64_t file_size_in_bytes = 0;
  /// `file-footer-size-in-bytes`.
  int64_t file_footer_size_in_bytes = 0;
  /// `key-metadata` (base64), for encrypted files.
  std::optional<std::string> key_metadata;
  /// `blob-metadata`.
  std::vector<BlobMetadata> blob_metadata;

  bool operator==(const StatisticsFile&) const = default;
};

/// \brief A partition statistics file of a snapshot (`partition-statistics` entry).
struct PartitionStatisticsFile {
  /// `snapshot-id`.
  int64_t snapshot_id = 0;
  /// `statistics-path`.
  std::string statistics_path;
  /// `file-size-in-bytes`.
  int64_t file_size_in_bytes = 0;

  bool operator==(const PartitionStatisticsFile&) const = default;
};

/// \brief A table encryption key (`encryption-keys` entry, v3).
struct EncryptedKey {
  /// `key-id`.
  std::string key_id;
  /// `encrypted-key-metadata` (base64).
  std::string encrypted_key_metadata;
  /// `encrypted-by-id`: id of the key that encrypted this one.
  std::optional<std::string> encrypted_by_id;
  /// `properties` (written only when non-empty).
  std::map<std::string, std::string> properties;

  bool operator==(const EncryptedKey&) const = default;
};

/// \brief A `snapshot-log` entry: when the main branch moved to a snapshot.
struct SnapshotLogEntry {
  /// `timestamp-ms`.
  int64_t timestamp_ms = 0;
  /// `snapshot-id`.
  int64_t snapshot_id = 0;

  bool operator==(const SnapshotLogEntry&) const = default;
};

/// \brief A `metadata-log` entry: a previous metadata file.
struct MetadataLogEntry {
  /// `timestamp-ms`: the previous file's `last-updated-ms`.
  int64_t timestamp_ms = 0;
  /// `metadata-file` location.
  std::string metadata_file;

  bool operator==(const MetadataLogEntry&) const = default;
};

}  // namespace cairn::iceberg
