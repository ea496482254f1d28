#include "iceberg/snapshot.h"

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace cairn::iceberg {

std::optional<std::string> Snapshot::Operation() const {
  auto it = summary.find(std::string(kOperationKey));
  if (it == summary.end()) return std::nullopt;
  return it->second;
}

Status Snapshot::Validate() const {
  if (first_row_id && *first_row_id < 0) {
    return InvalidArgument("Invalid first-row-id (cannot be negative): {}",
                           *first_row_id);
  }
  if (added_rows && *added_rows < 0) {
    return InvalidArgument("Invalid added-rows (cannot be negative): {}", *added_rows);
  }
  if (first_row_id && !added_rows) {
    return InvalidArgument(
        "Invalid added-rows (required when first-row-id is set): null");
  }
  return Ok();
}

std::string_view ToString(SnapshotRefType type) {
  return type == SnapshotRefType::kBranch ? "branch" : "tag";
}

Result<SnapshotRefType> ParseSnapshotRefType(std::string_view text) {
  const std::string lower = AsciiLower(text);
  if (lower == "branch") return SnapshotRefType::kBranch;
  if (lower == "tag") return SnapshotRefType::kTag;
  return BadRequest("unknown snapshot ref type '{}': expected branch or tag", text);
}

Status SnapshotRef::Validate() const {
  if (type == SnapshotRefType::kTag && min_snapshots_to_keep) {
    return InvalidArgument("Tags do not support setting minSnapshotsToKeep");
  }
  if (type == SnapshotRefType::kTag && max_snapshot_age_ms) {
    return InvalidArgument("Tags do not support setting maxSnapshotAgeMs");
  }
  if (min_snapshots_to_keep && *min_snapshots_to_keep <= 0) {
    return InvalidArgument("Min snapshots to keep must be greater than 0");
  }
  if (max_snapshot_age_ms && *max_snapshot_age_ms <= 0) {
    return InvalidArgument("Max snapshot age must be greater than 0 ms");
  }
  if (max_ref_age_ms && *max_ref_age_ms <= 0) {
    return InvalidArgument("Max reference age must be greater than 0");
  }
  return Ok();
}

}  // namespace cairn::iceberg
