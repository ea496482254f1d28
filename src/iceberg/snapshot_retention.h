#pragma once

/// \file
/// \brief Which snapshots and refs of a table a snapshot expiration removes: the table
/// spec's "Snapshot Retention Policy" with the Java reference's `RemoveSnapshots` rules.
/// A ref other than `main` expires when its snapshot is older than its `max-ref-age-ms`
/// (else the table's `history.expire.max-ref-age-ms`; default never). Each remaining
/// branch keeps the ancestors of its head while fewer than its `min-snapshots-to-keep`
/// are kept or while they are younger than its `max-snapshot-age-ms` (each else the
/// table's `history.expire.min-snapshots-to-keep`, default 1, and
/// `history.expire.max-snapshot-age-ms`, default 5 days); each remaining tag keeps its
/// snapshot; a snapshot no ref reaches is kept while younger than the table's maximum
/// age. Everything else expires.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "iceberg/table_metadata.h"

namespace cairn::iceberg {

inline constexpr int64_t kDefaultMaxSnapshotAgeMs = int64_t{5} * 24 * 3600 * 1000;
inline constexpr int32_t kDefaultMinSnapshotsToKeep = 1;

/// \brief What a caller may override of the table's defaults (an expiration run's
/// `older-than` and `retain-last`, as Java's `expireOlderThan` and `retainLast`).
struct RetentionOverrides {
  std::optional<int64_t> older_than_ms;  ///< a timestamp: replaces now - max age
  std::optional<int32_t> retain_last;    ///< replaces the table's min snapshots to keep
};

struct RetentionResult {
  std::set<int64_t> retained;
  std::vector<int64_t> expired;  ///< ascending
  std::vector<std::string> expired_refs;
};

/// \brief The expiration of `metadata` at time `now_ms`. Table property values that do
/// not parse as positive numbers count as absent.
RetentionResult ComputeRetention(const TableMetadata& metadata, int64_t now_ms,
                                 const RetentionOverrides& overrides = {});

}  // namespace cairn::iceberg
