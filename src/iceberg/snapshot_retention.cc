#include "iceberg/snapshot_retention.h"

#include <charconv>
#include <limits>
#include <map>

namespace cairn::iceberg {
namespace {

std::optional<int64_t> PositiveProperty(const TableMetadata& metadata,
                                        const std::string& key) {
  auto found = metadata.properties.find(key);
  if (found == metadata.properties.end()) return std::nullopt;
  int64_t value = 0;
  const std::string& text = found->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0)
    return std::nullopt;
  return value;
}

}  // namespace

RetentionResult ComputeRetention(const TableMetadata& metadata, int64_t now_ms,
                                 const RetentionOverrides& overrides) {
  std::map<int64_t, const Snapshot*> by_id;
  for (const Snapshot& snapshot : metadata.snapshots)
    by_id[snapshot.snapshot_id] = &snapshot;
  const int64_t default_max_age =
      PositiveProperty(metadata, "history.expire.max-snapshot-age-ms")
          .value_or(kDefaultMaxSnapshotAgeMs);
  const int64_t default_min_keep = overrides.retain_last.value_or(static_cast<int32_t>(
      PositiveProperty(metadata, "history.expire.min-snapshots-to-keep")
          .value_or(kDefaultMinSnapshotsToKeep)));
  const int64_t default_older_than =
      overrides.older_than_ms.value_or(now_ms - default_max_age);
  const std::optional<int64_t> default_max_ref_age =
      PositiveProperty(metadata, "history.expire.max-ref-age-ms");

  RetentionResult result;
  std::set<int64_t> referenced;  // reachable from some remaining ref
  for (const auto& [name, ref] : metadata.refs) {
    auto head = by_id.find(ref.snapshot_id);
    const Snapshot* snapshot = head == by_id.end() ? nullptr : head->second;
    const auto max_ref_age =
        ref.max_ref_age_ms ? ref.max_ref_age_ms : default_max_ref_age;
    if (name != SnapshotRef::kMainBranch && max_ref_age && snapshot != nullptr &&
        now_ms - snapshot->timestamp_ms > *max_ref_age) {
      result.expired_refs.push_back(name);
      continue;
    }
    if (!ref.IsBranch()) {
      result.retained.insert(ref.snapshot_id);
      referenced.insert(ref.snapshot_id);
      continue;
    }
    const int64_t min_keep =
        ref.min_snapshots_to_keep.value_or(static_cast<int32_t>(default_min_keep));
    const int64_t older_than =
        ref.max_snapshot_age_ms ? now_ms - *ref.max_snapshot_age_ms : default_older_than;
    int64_t kept = 0;
    bool keeping = true;  // the first ancestor that goes ends the kept run (as Java)
    for (const Snapshot* at = snapshot; at != nullptr;) {
      referenced.insert(at->snapshot_id);
      keeping = keeping && (kept < min_keep || at->timestamp_ms >= older_than);
      if (keeping) {
        result.retained.insert(at->snapshot_id);
        ++kept;
      }
      if (!at->parent_snapshot_id) break;
      auto parent = by_id.find(*at->parent_snapshot_id);
      at = parent == by_id.end() ? nullptr : parent->second;
    }
  }
  for (const auto& [id, snapshot] : by_id) {
    if (referenced.count(id) == 0 && snapshot->timestamp_ms >= default_older_than) {
      result.retained.insert(id);
    }
  }
  for (const auto& [id, snapshot] : by_id) {
    if (result.retained.count(id) == 0) result.expired.push_back(id);
  }
  return result;
}

}  // namespace cairn::iceberg
