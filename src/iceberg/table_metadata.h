#pragma once

/// \file
/// \brief Iceberg table metadata (the content of a `*.metadata.json` file), format
/// versions 1-3, as a plain struct. JSON lives in `iceberg/json_serde.h`; changing
/// metadata (commits) is the metadata builder's job.
///
/// Differences from Java `TableMetadata`: no metadata file location (the catalog keeps
/// it), no change list, no lazy snapshot loading; v4 is not supported.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "iceberg/snapshot.h"
#include "iceberg/snapshot_list.h"
#include "iceberg/sort_order.h"

namespace cairn::iceberg {

/// \brief Table metadata. Every JSON field of spec v1/v2/v3 has a member here.
struct TableMetadata {
  /// Highest `format-version` this server reads and writes.
  static constexpr int kSupportedFormatVersion = 3;
  /// Format version of new tables unless the `format-version` property says otherwise.
  static constexpr int kDefaultFormatVersion = 2;
  /// First version that writes `current-snapshot-id: null` instead of -1.
  static constexpr int kMinNullCurrentSnapshotVersion = 3;
  /// First version with row lineage (`next-row-id`, snapshot `first-row-id`).
  static constexpr int kMinRowLineageVersion = 3;
  /// `last-sequence-number` of a new table (and of every v1 table).
  static constexpr int64_t kInitialSequenceNumber = 0;
  /// `next-row-id` of a new (or newly upgraded) v3 table.
  static constexpr int64_t kInitialRowId = 0;
  /// Allowed clock skew when checking log ordering (Java `ONE_MINUTE`).
  static constexpr int64_t kOneMinuteMs = 60'000;

  /// `format-version`: 1, 2 or 3.
  int format_version = kDefaultFormatVersion;
  /// `table-uuid`; required in v2+, may be empty for old v1 files (then not written).
  std::string table_uuid;
  /// `location`: table base location.
  std::string location;
  /// `last-sequence-number` (written for v2+; always 0 in v1).
  int64_t last_sequence_number = kInitialSequenceNumber;
  /// `last-updated-ms`.
  int64_t last_updated_ms = 0;
  /// `last-column-id`: highest column id ever assigned.
  int32_t last_column_id = 0;
  /// `current-schema-id`.
  int32_t current_schema_id = Schema::kInitialSchemaId;
  /// `schemas`.
  std::vector<Schema> schemas;
  /// `default-spec-id`.
  int32_t default_spec_id = PartitionSpec::kInitialSpecId;
  /// `partition-specs`.
  std::vector<PartitionSpec> partition_specs;
  /// `last-partition-id`: highest partition field id ever assigned (999 if none).
  int32_t last_partition_id = kUnpartitionedLastAssignedId;
  /// `default-sort-order-id`.
  int32_t default_sort_order_id = SortOrder::kUnsortedOrderId;
  /// `sort-orders`.
  std::vector<SortOrder> sort_orders;
  /// `properties`.
  std::map<std::string, std::string> properties;
  /// `current-snapshot-id`; unset when the table has no current snapshot (read from a
  /// missing field, `null` or -1; written as -1 in v1/v2 and as `null` in v3).
  std::optional<int64_t> current_snapshot_id;
  /// `snapshots`, shared with the metadata versions this one was built from.
  SnapshotList snapshots;
  /// `refs`: branches and tags by name (`main` tracks `current_snapshot_id`).
  std::map<std::string, SnapshotRef> refs;
  /// `statistics`.
  std::vector<StatisticsFile> statistics;
  /// `partition-statistics`.
  std::vector<PartitionStatisticsFile> partition_statistics;
  /// `snapshot-log`: history of the main branch, oldest first.
  std::vector<SnapshotLogEntry> snapshot_log;
  /// `metadata-log`: previous metadata files, oldest first.
  std::vector<MetadataLogEntry> metadata_log;
  /// `next-row-id` (v3 only; written only for v3).
  int64_t next_row_id = kInitialRowId;
  /// `encryption-keys` (written only when non-empty).
  std::vector<EncryptedKey> encryption_keys;

  /// \brief The schema with `schema_id`, or nullptr. Pointers stay valid until the
  /// metadata is modified.
  const Schema* SchemaById(int32_t schema_id) const;
  /// \brief The current schema, or nullptr if `current_schema_id` is unknown.
  const Schema* CurrentSchema() const;
  /// \brief The spec with `spec_id`, or nullptr.
  const PartitionSpec* SpecById(int32_t spec_id) const;
  /// \brief The default partition spec, or nullptr.
  const PartitionSpec* DefaultSpec() const;
  /// \brief The sort order with `order_id`, or nullptr.
  const SortOrder* SortOrderById(int32_t order_id) const;
  /// \brief The default sort order, or nullptr.
  const SortOrder* DefaultSortOrder() const;
  /// \brief The snapshot with `snapshot_id`, or nullptr.
  const Snapshot* SnapshotById(int64_t snapshot_id) const;
  /// \brief The current snapshot, or nullptr.
  const Snapshot* CurrentSnapshot() const;
  /// \brief The ref called `name`, or nullptr.
  const SnapshotRef* RefByName(std::string_view name) const;

  /// \brief The invariants Java's `TableMetadata` constructor checks: supported format
  /// version, UUID in v2+, last-sequence-number 0 in v1, unique
  /// schema/spec/order/snapshot ids, current schema / default spec / default sort order
  /// exist and the latter two bind to the current schema, current snapshot and every ref
  /// point at existing snapshots, `main` agrees with `current-snapshot-id`, v2+ snapshot
  /// sequence numbers do not exceed last-sequence-number, snapshot and metadata logs
  /// ordered (1 minute tolerance) and not after `last-updated-ms`. Errors, as the
  /// reference: `kInvalidArgument` naming the problem; `kValidationFailed` when a spec or
  /// sort order does not bind to the current schema or a snapshot's sequence number is
  /// too high (and the kinds of `Schema::Validate`).
  Status Validate() const;

  bool operator==(const TableMetadata&) const = default;
};

}  // namespace cairn::iceberg
