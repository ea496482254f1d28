#pragma once

/// \file
/// \brief The changes a commit applies to table metadata (`TableUpdate`, discriminated by
/// `action` on the wire) and the conditions it asserts first (`TableRequirement`,
/// discriminated by `type`). Plain structs; JSON lives in `iceberg/update_serde.h`.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/result.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "iceberg/snapshot.h"
#include "iceberg/sort_order.h"
#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

/// `-1` in set-current-schema / set-default-spec / set-default-sort-order: the id added
/// last by an add-* update earlier in the same commit.
inline constexpr int32_t kLastAdded = -1;

struct AssignUuid {
  std::string uuid;
};
struct UpgradeFormatVersion {
  int format_version = 0;
};
struct AddSchema {
  Schema schema;
  /// Deprecated and ignored, as by the reference: the builder derives it.
  std::optional<int32_t> last_column_id;
};
struct SetCurrentSchema {
  int32_t schema_id = 0;
};
struct AddPartitionSpec {
  PartitionSpec spec;
};
struct SetDefaultSpec {
  int32_t spec_id = 0;
};
struct AddSortOrder {
  SortOrder sort_order;
};
struct SetDefaultSortOrder {
  int32_t sort_order_id = 0;
};
struct AddSnapshot {
  Snapshot snapshot;
};
struct SetSnapshotRef {
  std::string ref_name;
  SnapshotRef ref;
};
struct RemoveSnapshots {
  std::vector<int64_t> snapshot_ids;
};
struct RemoveSnapshotRef {
  std::string ref_name;
};
struct SetLocation {
  std::string location;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
};
struct RemoveProperties {
  std::vector<std::string> removals;
};
struct SetStatistics {
  StatisticsFile statistics;
};
struct RemoveStatistics {
  int64_t snapshot_id = 0;
};
struct SetPartitionStatistics {
  PartitionStatisticsFile partition_statistics;
};
struct RemovePartitionStatistics {
  int64_t snapshot_id = 0;
};
struct RemovePartitionSpecs {
  std::vector<int32_t> spec_ids;
};
struct RemoveSchemas {
  std::vector<int32_t> schema_ids;
};
struct AddEncryptionKey {
  EncryptedKey key;
};
struct RemoveEncryptionKey {
  std::string key_id;
};

/// \brief One metadata update of a commit, in the order the client sent it.
using TableUpdate = std::variant<
    AssignUuid, UpgradeFormatVersion, AddSchema, SetCurrentSchema, AddPartitionSpec,
    SetDefaultSpec, AddSortOrder, SetDefaultSortOrder, AddSnapshot, SetSnapshotRef,
    RemoveSnapshots, RemoveSnapshotRef, SetLocation, SetProperties, RemoveProperties,
    SetStatistics, RemoveStatistics, SetPartitionStatistics, RemovePartitionStatistics,
    RemovePartitionSpecs, RemoveSchemas, AddEncryptionKey, RemoveEncryptionKey>;

struct AssertCreate {};
struct AssertTableUuid {
  std::string uuid;
};
struct AssertRefSnapshotId {
  std::string ref;
  /// nullopt: the ref must not exist.
  std::optional<int64_t> snapshot_id;
};
struct AssertLastAssignedFieldId {
  int32_t last_assigned_field_id = 0;
};
struct AssertCurrentSchemaId {
  int32_t current_schema_id = 0;
};
struct AssertLastAssignedPartitionId {
  int32_t last_assigned_partition_id = 0;
};
struct AssertDefaultSpecId {
  int32_t default_spec_id = 0;
};
struct AssertDefaultSortOrderId {
  int32_t default_sort_order_id = 0;
};

/// \brief One requirement of a commit.
using TableRequirement = std::variant<AssertCreate, AssertTableUuid, AssertRefSnapshotId,
                                      AssertLastAssignedFieldId, AssertCurrentSchemaId,
                                      AssertLastAssignedPartitionId, AssertDefaultSpecId,
                                      AssertDefaultSortOrderId>;

/// \brief Checks one requirement against the current metadata (`base` = nullptr when the
/// table does not exist). Errors: `kCommitFailed` with the reference's message text
/// ("Requirement failed: ...").
Status CheckRequirement(const TableRequirement& requirement, const TableMetadata* base);

}  // namespace cairn::iceberg
