// Requirement checks, with the exact message texts of the Java reference
// (UpdateRequirement.java): clients and the compatibility kit match on them.

#include <algorithm>
#include <cctype>

#include "common/strings.h"
#include "iceberg/table_update.h"

namespace cairn::iceberg {
namespace {

/// The requirements other than assert-create apply to an existing table only.
Status Check(const AssertCreate&, const TableMetadata* base) {
  if (base != nullptr) return CommitFailed("Requirement failed: table already exists");
  return Ok();
}

Status Check(const AssertTableUuid& r, const TableMetadata* base) {
  if (!EqualsIgnoreCase(base->table_uuid, r.uuid)) {
    return CommitFailed("Requirement failed: UUID does not match: expected {} != {}",
                        base->table_uuid, r.uuid);
  }
  return Ok();
}

Status Check(const AssertRefSnapshotId& r, const TableMetadata* base) {
  const SnapshotRef* ref = base->RefByName(r.ref);
  if (ref != nullptr) {
    const std::string_view type = ref->IsBranch() ? "branch" : "tag";
    if (!r.snapshot_id) {
      return CommitFailed("Requirement failed: {} {} was created concurrently", type,
                          r.ref);
    }
    if (*r.snapshot_id != ref->snapshot_id) {
      return CommitFailed("Requirement failed: {} {} has changed: expected id {} != {}",
                          type, r.ref, *r.snapshot_id, ref->snapshot_id);
    }
  } else if (r.snapshot_id) {
    return CommitFailed("Requirement failed: branch or tag {} is missing, expected {}",
                        r.ref, *r.snapshot_id);
  }
  return Ok();
}

Status Check(const AssertLastAssignedFieldId& r, const TableMetadata* base) {
  if (base->last_column_id != r.last_assigned_field_id) {
    return CommitFailed(
        "Requirement failed: last assigned field id changed: expected id {} != {}",
        r.last_assigned_field_id, base->last_column_id);
  }
  return Ok();
}

Status Check(const AssertCurrentSchemaId& r, const TableMetadata* base) {
  if (base->current_schema_id != r.current_schema_id) {
    return CommitFailed(
        "Requirement failed: current schema changed: expected id {} != {}",
        r.current_schema_id, base->current_schema_id);
  }
  return Ok();
}

Status Check(const AssertLastAssignedPartitionId& r, const TableMetadata* base) {
  if (base->last_partition_id != r.last_assigned_partition_id) {
    return CommitFailed(
        "Requirement failed: last assigned partition id changed: expected id {} != {}",
        r.last_assigned_partition_id, base->last_partition_id);
  }
  return Ok();
}

Status Check(const AssertDefaultSpecId& r, const TableMetadata* base) {
  if (base->default_spec_id != r.default_spec_id) {
    return CommitFailed(
        "Requirement failed: default partition spec changed: expected id {} != {}",
        r.default_spec_id, base->default_spec_id);
  }
  return Ok();
}

Status Check(const AssertDefaultSortOrderId& r, const TableMetadata* base) {
  if (base->default_sort_order_id != r.default_sort_order_id) {
    return CommitFailed(
        "Requirement failed: default sort order changed: expected id {} != {}",
        r.default_sort_order_id, base->default_sort_order_id);
  }
  return Ok();
}

}  // namespace

Status CheckRequirement(const TableRequirement& requirement, const TableMetadata* base) {
  return std::visit(
      [base](const auto& r) -> Status {
        using R = std::decay_t<decltype(r)>;
        if constexpr (!std::is_same_v<R, AssertCreate>) {
          // The commit path loads the table first (404 when missing); guard anyway.
          if (base == nullptr)
            return CommitFailed("Requirement failed: table does not exist");
        }
        return Check(r, base);
      },
      requirement);
}

}  // namespace cairn::iceberg
