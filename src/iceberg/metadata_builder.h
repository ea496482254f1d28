#pragma once

/// \file
/// \brief Applies `TableUpdate`s to table metadata with the semantics of the Java
/// reference's `TableMetadata.Builder`: id reuse for schemas, specs and sort orders,
/// `-1` = last added in this commit, sequence-number and row-lineage checks, snapshot-log
/// and metadata-log maintenance, `last-updated-ms`, and the build-time invariants.
///
/// Not thread-safe: one builder per commit attempt.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "iceberg/table_metadata.h"
#include "iceberg/table_update.h"

namespace cairn::iceberg {

/// Table property bounding the metadata-log (`write.metadata.previous-versions-max`).
inline constexpr std::string_view kPreviousVersionsMaxProperty =
    "write.metadata.previous-versions-max";
inline constexpr int kPreviousVersionsMaxDefault = 100;

class MetadataBuilder {
 public:
  /// \brief Starts from the current metadata of an existing table, whose metadata file is
  /// `metadata_location` (it enters the metadata-log if anything changes). `now_ms` is
  /// the commit time (server clock).
  static MetadataBuilder FromBase(const TableMetadata& base,
                                  std::string metadata_location, int64_t now_ms);

  /// \brief Starts from nothing, as the create path of a commit (`assert-create`) does.
  static MetadataBuilder FromEmpty(int format_version, int64_t now_ms);

  /// \brief Applies one update. Errors, for an invalid change (naming it), the kind of
  /// the reference's exception: `kInvalidArgument` where `TableMetadata.Builder` checks a
  /// precondition (unknown schema id, downgrade, removing the current schema, ...),
  /// `kValidationFailed` where it throws `ValidationException` (no last-added id, spec or
  /// sort order not applicable to the schema, duplicate or unknown snapshot, main as a
  /// tag, ...), `kBadRequest` for an empty required field and for a schema type the
  /// format version does not support (the reference's IllegalStateException);
  /// `kCommitFailed` for a stale sequence number or first-row-id (the client must
  /// re-base).
  Status Apply(const TableUpdate& update);

  /// \brief True when an applied update changed something.
  bool HasChanges() const { return changes_ > 0; }

  /// \brief Finishes the metadata: `last-updated-ms`, snapshot-log and metadata-log, and
  /// the invariants of `TableMetadata::Validate`. Errors: `kValidationFailed` (snapshot
  /// log not ending at the current snapshot), else those of `TableMetadata::Validate`.
  Result<TableMetadata> Build();

  /// \brief As `Build`, but moves the metadata out instead of copying it (a table's
  /// metadata can hold thousands of snapshots); the builder is spent afterwards.
  Result<TableMetadata> Finish() &&;

 private:
  MetadataBuilder(TableMetadata metadata, std::string previous_location, int64_t now_ms);

  /// What `Build` and `Finish` do to `out` (the applied metadata) with its new `log`.
  Result<TableMetadata> Finalize(TableMetadata out,
                                 std::vector<SnapshotLogEntry> log) const;

  Status ApplyOne(const AssignUuid& u);
  Status ApplyOne(const UpgradeFormatVersion& u);
  Status ApplyOne(const AddSchema& u);
  Status ApplyOne(const SetCurrentSchema& u);
  Status ApplyOne(const AddPartitionSpec& u);
  Status ApplyOne(const SetDefaultSpec& u);
  Status ApplyOne(const AddSortOrder& u);
  Status ApplyOne(const SetDefaultSortOrder& u);
  Status ApplyOne(const AddSnapshot& u);
  Status ApplyOne(const SetSnapshotRef& u);
  Status ApplyOne(const RemoveSnapshots& u);
  Status ApplyOne(const RemoveSnapshotRef& u);
  Status ApplyOne(const SetLocation& u);
  Status ApplyOne(const SetProperties& u);
  Status ApplyOne(const RemoveProperties& u);
  Status ApplyOne(const SetStatistics& u);
  Status ApplyOne(const RemoveStatistics& u);
  Status ApplyOne(const SetPartitionStatistics& u);
  Status ApplyOne(const RemovePartitionStatistics& u);
  Status ApplyOne(const RemovePartitionSpecs& u);
  Status ApplyOne(const RemoveSchemas& u);
  Status ApplyOne(const AddEncryptionKey& u);
  Status ApplyOne(const RemoveEncryptionKey& u);

  void RemoveRef(const std::string& name);
  std::vector<SnapshotLogEntry> UpdatedSnapshotLog() const;

  TableMetadata metadata_;
  /// Metadata file of the base; empty for a new table.
  std::string previous_location_;
  /// `last-updated-ms` of the base (the metadata-log entry's timestamp).
  int64_t base_last_updated_ms_ = 0;
  int64_t now_ms_;
  /// Set by add-snapshot / set-snapshot-ref on main; otherwise `now_ms_` at build.
  std::optional<int64_t> last_updated_ms_;
  int changes_ = 0;

  std::optional<int32_t> last_added_schema_id_;
  std::optional<int32_t> last_added_spec_id_;
  std::optional<int32_t> last_added_order_id_;
  std::set<int32_t> added_schema_ids_;
  std::set<int32_t> added_spec_ids_;
  std::set<int32_t> added_order_ids_;
  std::set<int64_t> added_snapshot_ids_;
  /// Snapshots added in this commit and then made current on main, in order.
  std::vector<int64_t> main_moves_to_added_;
  bool removed_snapshots_ = false;
};

}  // namespace cairn::iceberg
