// Semantics follow the Java reference's TableMetadata.Builder (read for behaviour, not
// copied); comments point out where the reference's behaviour is subtle.

#include "iceberg/metadata_builder.h"

#include <algorithm>
#include <charconv>

#include "common/location.h"
#include "common/macros.h"

namespace cairn::iceberg {
namespace {

int PreviousVersionsMax(const std::map<std::string, std::string>& properties) {
  auto it = properties.find(std::string(kPreviousVersionsMaxProperty));
  if (it == properties.end()) return kPreviousVersionsMaxDefault;
  int value = 0;
  const auto* end = it->second.data() + it->second.size();
  const auto [ptr, ec] = std::from_chars(it->second.data(), end, value);
  if (ec != std::errc() || ptr != end) return kPreviousVersionsMaxDefault;
  return std::max(1, value);
}

template <typename T, typename Id, typename GetId>
bool ContainsId(const std::vector<T>& items, Id id, GetId get_id) {
  return std::any_of(items.begin(), items.end(),
                     [&](const T& t) { return get_id(t) == id; });
}

}  // namespace

MetadataBuilder::MetadataBuilder(TableMetadata metadata, std::string previous_location,
                                 int64_t now_ms)
    : metadata_(std::move(metadata)),
      previous_location_(std::move(previous_location)),
      base_last_updated_ms_(metadata_.last_updated_ms),
      now_ms_(now_ms) {}

MetadataBuilder MetadataBuilder::FromBase(const TableMetadata& base,
                                          std::string metadata_location, int64_t now_ms) {
  return MetadataBuilder(base, std::move(metadata_location), now_ms);
}

MetadataBuilder MetadataBuilder::FromEmpty(int format_version, int64_t now_ms) {
  TableMetadata empty;
  empty.format_version = format_version;
  // No schema, spec or order yet: the create updates add them and set them current.
  empty.current_schema_id = -1;
  empty.default_spec_id = -1;
  empty.default_sort_order_id = -1;
  empty.last_partition_id = kUnpartitionedLastAssignedId;
  return MetadataBuilder(std::move(empty), "", now_ms);
}

Status MetadataBuilder::Apply(const TableUpdate& update) {
  return std::visit([this](const auto& u) { return ApplyOne(u); }, update);
}

Status MetadataBuilder::ApplyOne(const AssignUuid& u) {
  CAIRN_PRECHECK(!u.uuid.empty(), "Invalid assign-uuid: uuid must not be empty");
  if (u.uuid == metadata_.table_uuid) return Ok();
  metadata_.table_uuid = u.uuid;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const UpgradeFormatVersion& u) {
  CAIRN_CHECK_ARGUMENT(
      u.format_version <= TableMetadata::kSupportedFormatVersion,
      "Cannot upgrade table to unsupported format version: v{} (supported: v{})",
      u.format_version, TableMetadata::kSupportedFormatVersion);
  CAIRN_CHECK_ARGUMENT(u.format_version >= metadata_.format_version,
                       "Cannot downgrade v{} table to v{}", metadata_.format_version,
                       u.format_version);
  if (u.format_version == metadata_.format_version) return Ok();
  // next-row-id stays as it is (0 for a table that was never v3); old snapshots keep
  // their null first-row-id.
  metadata_.format_version = u.format_version;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const AddSchema& u) {
  CAIRN_RETURN_IF_ERROR(u.schema.Validate());
  CAIRN_RETURN_IF_ERROR(ValidateForFormatVersion(u.schema, metadata_.format_version));
  const int32_t new_last_column_id =
      std::max(metadata_.last_column_id, u.schema.HighestFieldId());
  // Reuse the id of an identical schema; otherwise one past the highest id.
  int32_t schema_id = Schema::kInitialSchemaId;
  bool found = false;
  for (const auto& existing : metadata_.schemas) {
    if (SameSchema(existing, u.schema)) {
      schema_id = existing.schema_id;
      found = true;
      break;
    }
    schema_id = std::max(schema_id, existing.schema_id + 1);
  }
  if (found && new_last_column_id == metadata_.last_column_id) {
    // Nothing changes; the schema still counts as "last added" only if this commit added
    // it.
    if (added_schema_ids_.count(schema_id) > 0 && last_added_schema_id_) {
      last_added_schema_id_ = schema_id;
    } else {
      last_added_schema_id_.reset();
    }
    return Ok();
  }
  metadata_.last_column_id = new_last_column_id;
  if (!found) {
    Schema schema = u.schema;
    schema.schema_id = schema_id;
    metadata_.schemas.push_back(std::move(schema));
  }
  added_schema_ids_.insert(schema_id);
  last_added_schema_id_ = schema_id;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetCurrentSchema& u) {
  int32_t schema_id = u.schema_id;
  if (schema_id == kLastAdded) {
    CAIRN_CHECK_VALID(last_added_schema_id_.has_value(),
                      "Cannot set last added schema: no schema has been added");
    schema_id = *last_added_schema_id_;
  }
  if (schema_id == metadata_.current_schema_id) return Ok();
  CAIRN_CHECK_ARGUMENT(metadata_.SchemaById(schema_id) != nullptr,
                       "Cannot set current schema to unknown schema: {}", schema_id);
  // Specs and sort orders refer to columns by id; their compatibility with the new
  // current schema is checked when the metadata is built.
  metadata_.current_schema_id = schema_id;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const AddPartitionSpec& u) {
  const Schema* schema = metadata_.CurrentSchema();
  CAIRN_CHECK_ARGUMENT(schema != nullptr,
                       "Cannot add a partition spec before a current schema is set");
  PartitionSpec spec = u.spec;
  // As the reference does, a spec compatible with an existing one is reused before the
  // new-spec checks run.
  int32_t spec_id = PartitionSpec::kInitialSpecId;
  bool found = false;
  for (const auto& existing : metadata_.partition_specs) {
    if (CompatibleWith(existing, spec)) {
      spec_id = existing.spec_id;
      found = true;
      break;
    }
    spec_id = std::max(spec_id, existing.spec_id + 1);
  }
  if (found) {
    // As the reference does: still "last added" only if the previous last-added spec was
    // added by this commit.
    const bool last_is_new =
        last_added_spec_id_ && added_spec_ids_.count(*last_added_spec_id_) > 0;
    if (last_is_new) {
      last_added_spec_id_ = spec_id;
    } else {
      last_added_spec_id_.reset();
    }
    return Ok();
  }
  // As the reference binds the spec: the names (IllegalArgumentException) first, then the
  // sources and transforms (ValidationException).
  CAIRN_RETURN_IF_ERROR(CheckPartitionNames(spec, *schema));
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(spec, *schema));
  if (metadata_.format_version == 1) {
    for (size_t i = 0; i < spec.fields.size(); ++i) {
      CAIRN_CHECK_VALID(
          spec.fields[i].field_id == kPartitionDataIdStart + static_cast<int32_t>(i),
          "Spec does not use sequential IDs that are required in v1");
    }
  }
  spec.spec_id = spec_id;
  metadata_.last_partition_id =
      std::max(metadata_.last_partition_id, spec.LastAssignedFieldId());
  metadata_.partition_specs.push_back(std::move(spec));
  added_spec_ids_.insert(spec_id);
  last_added_spec_id_ = spec_id;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetDefaultSpec& u) {
  int32_t spec_id = u.spec_id;
  if (spec_id == kLastAdded) {
    CAIRN_CHECK_VALID(last_added_spec_id_.has_value(),
                      "Cannot set last added spec: no spec has been added");
    spec_id = *last_added_spec_id_;
  }
  if (spec_id == metadata_.default_spec_id) return Ok();
  // The reference does not check (the build fails later with a NullPointerException).
  CAIRN_CHECK_ARGUMENT(metadata_.SpecById(spec_id) != nullptr,
                       "Cannot set default partition spec to unknown spec: {}", spec_id);
  metadata_.default_spec_id = spec_id;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const AddSortOrder& u) {
  // The order id is advisory and reassigned here; `SortOrderFromJson` already held it to
  // the reference's rules (`SortOrder::Validate`).
  SortOrder order = u.sort_order;
  int32_t order_id = SortOrder::kUnsortedOrderId;
  bool found = false;
  if (order.IsUnsorted()) {
    found = ContainsId(metadata_.sort_orders, SortOrder::kUnsortedOrderId,
                       [](const SortOrder& o) { return o.order_id; });
  } else {
    order_id = SortOrder::kInitialSortOrderId;
    for (const auto& existing : metadata_.sort_orders) {
      if (SameOrder(existing, order)) {
        order_id = existing.order_id;
        found = true;
        break;
      }
      order_id = std::max(order_id, existing.order_id + 1);
    }
  }
  if (found) {
    const bool last_is_new =
        last_added_order_id_ && added_order_ids_.count(*last_added_order_id_) > 0;
    if (last_is_new) {
      last_added_order_id_ = order_id;
    } else {
      last_added_order_id_.reset();
    }
    return Ok();
  }
  const Schema* schema = metadata_.CurrentSchema();
  CAIRN_CHECK_ARGUMENT(schema != nullptr,
                       "Cannot add a sort order before a current schema is set");
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(order, *schema));
  order.order_id = order_id;
  metadata_.sort_orders.push_back(std::move(order));
  added_order_ids_.insert(order_id);
  last_added_order_id_ = order_id;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetDefaultSortOrder& u) {
  int32_t order_id = u.sort_order_id;
  if (order_id == kLastAdded) {
    CAIRN_CHECK_VALID(last_added_order_id_.has_value(),
                      "Cannot set last added sort order: no sort order has been added");
    order_id = *last_added_order_id_;
  }
  if (order_id == metadata_.default_sort_order_id) return Ok();
  // As for set-default-spec, the reference does not check.
  CAIRN_CHECK_ARGUMENT(metadata_.SortOrderById(order_id) != nullptr,
                       "Cannot set default sort order to unknown order: {}", order_id);
  metadata_.default_sort_order_id = order_id;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const AddSnapshot& u) {
  const Snapshot& snapshot = u.snapshot;
  CAIRN_RETURN_IF_ERROR(snapshot.Validate());
  CAIRN_CHECK_VALID(!metadata_.schemas.empty(),
                    "Attempting to add a snapshot before a schema is added");
  CAIRN_CHECK_VALID(!metadata_.partition_specs.empty(),
                    "Attempting to add a snapshot before a partition spec is added");
  CAIRN_CHECK_VALID(!metadata_.sort_orders.empty(),
                    "Attempting to add a snapshot before a sort order is added");
  CAIRN_CHECK_VALID(metadata_.SnapshotById(snapshot.snapshot_id) == nullptr,
                    "Snapshot already exists for id: {}", snapshot.snapshot_id);
  // A stale sequence number means another writer committed first: the client must
  // re-base, so this is a conflict (409), not a bad request. The text is the reference's
  // (RetryableValidationException), naming the snapshot being added after it.
  if (metadata_.format_version > 1 && snapshot.parent_snapshot_id &&
      snapshot.sequence_number <= metadata_.last_sequence_number) {
    return CommitFailed(
        "Validation failed, please retry: Cannot add snapshot with sequence number {} "
        "older than last sequence number {} (snapshot {}, parent {})",
        snapshot.sequence_number, metadata_.last_sequence_number, snapshot.snapshot_id,
        *snapshot.parent_snapshot_id);
  }
  if (metadata_.format_version >= TableMetadata::kMinRowLineageVersion) {
    CAIRN_CHECK_VALID(snapshot.first_row_id.has_value(),
                      "Cannot add a snapshot: first-row-id is null");
    if (*snapshot.first_row_id < metadata_.next_row_id) {
      return CommitFailed(
          "Validation failed, please retry: Cannot add a snapshot, first-row-id is "
          "behind table next-row-id: {} < {} (snapshot {})",
          *snapshot.first_row_id, metadata_.next_row_id, snapshot.snapshot_id);
    }
    metadata_.next_row_id += snapshot.added_rows.value_or(0);
  }
  last_updated_ms_ = snapshot.timestamp_ms;
  metadata_.last_sequence_number = snapshot.sequence_number;
  metadata_.snapshots.push_back(snapshot);
  added_snapshot_ids_.insert(snapshot.snapshot_id);
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetSnapshotRef& u) {
  CAIRN_PRECHECK(!u.ref_name.empty(),
                 "Invalid set-snapshot-ref: ref-name must not be empty");
  CAIRN_RETURN_IF_ERROR(u.ref.Validate());
  const bool is_main = u.ref_name == SnapshotRef::kMainBranch;
  CAIRN_CHECK_VALID(!is_main || u.ref.IsBranch(),
                    "Invalid ref main: must be a branch, not a tag");
  const SnapshotRef* existing = metadata_.RefByName(u.ref_name);
  if (existing != nullptr && *existing == u.ref) return Ok();
  const Snapshot* snapshot = metadata_.SnapshotById(u.ref.snapshot_id);
  CAIRN_CHECK_VALID(snapshot != nullptr, "Cannot set {} to unknown snapshot: {}",
                    u.ref_name, u.ref.snapshot_id);
  const bool added_here = added_snapshot_ids_.count(u.ref.snapshot_id) > 0;
  if (added_here) last_updated_ms_ = snapshot->timestamp_ms;
  if (is_main) {
    metadata_.current_snapshot_id = u.ref.snapshot_id;
    // A rollback or cherry-pick to an older snapshot is logged at commit time.
    if (!last_updated_ms_) last_updated_ms_ = now_ms_;
    metadata_.snapshot_log.push_back(
        SnapshotLogEntry{*last_updated_ms_, u.ref.snapshot_id});
    if (added_here) main_moves_to_added_.push_back(u.ref.snapshot_id);
  }
  metadata_.refs[u.ref_name] = u.ref;
  ++changes_;
  return Ok();
}

void MetadataBuilder::RemoveRef(const std::string& name) {
  if (name == SnapshotRef::kMainBranch) metadata_.current_snapshot_id.reset();
  if (metadata_.refs.erase(name) > 0) ++changes_;
}

Status MetadataBuilder::ApplyOne(const RemoveSnapshots& u) {
  const std::set<int64_t> ids(u.snapshot_ids.begin(), u.snapshot_ids.end());
  auto& snapshots = metadata_.snapshots;
  const size_t removed =
      snapshots.EraseIf([&](const Snapshot& s) { return ids.count(s.snapshot_id) > 0; });
  if (removed == 0) return Ok();  // unknown ids are ignored
  removed_snapshots_ = true;
  ++changes_;
  // Refs left pointing at removed snapshots are removed too (main included).
  std::vector<std::string> dangling;
  for (const auto& [name, ref] : metadata_.refs) {
    if (metadata_.SnapshotById(ref.snapshot_id) == nullptr) dangling.push_back(name);
  }
  for (const auto& name : dangling) RemoveRef(name);
  std::erase_if(metadata_.statistics,
                [&](const StatisticsFile& f) { return ids.count(f.snapshot_id) > 0; });
  std::erase_if(metadata_.partition_statistics, [&](const PartitionStatisticsFile& f) {
    return ids.count(f.snapshot_id) > 0;
  });
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemoveSnapshotRef& u) {
  RemoveRef(u.ref_name);
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetLocation& u) {
  CAIRN_PRECHECK(!u.location.empty(), "Invalid set-location: location must not be empty");
  std::string location = StripTrailingSlashes(u.location);
  if (location == metadata_.location) return Ok();
  metadata_.location = std::move(location);
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetProperties& u) {
  if (u.updates.empty()) return Ok();
  for (const auto& [key, value] : u.updates) metadata_.properties[key] = value;
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemoveProperties& u) {
  if (u.removals.empty()) return Ok();
  for (const auto& key : u.removals) metadata_.properties.erase(key);
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetStatistics& u) {
  // One statistics file per snapshot: replace in place, else append.
  auto& files = metadata_.statistics;
  auto it = std::find_if(files.begin(), files.end(), [&](const StatisticsFile& f) {
    return f.snapshot_id == u.statistics.snapshot_id;
  });
  if (it != files.end()) {
    *it = u.statistics;
  } else {
    files.push_back(u.statistics);
  }
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemoveStatistics& u) {
  if (std::erase_if(metadata_.statistics, [&](const StatisticsFile& f) {
        return f.snapshot_id == u.snapshot_id;
      }) > 0) {
    ++changes_;
  }
  return Ok();
}

Status MetadataBuilder::ApplyOne(const SetPartitionStatistics& u) {
  auto& files = metadata_.partition_statistics;
  auto it =
      std::find_if(files.begin(), files.end(), [&](const PartitionStatisticsFile& f) {
        return f.snapshot_id == u.partition_statistics.snapshot_id;
      });
  if (it != files.end()) {
    *it = u.partition_statistics;
  } else {
    files.push_back(u.partition_statistics);
  }
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemovePartitionStatistics& u) {
  if (std::erase_if(metadata_.partition_statistics,
                    [&](const PartitionStatisticsFile& f) {
                      return f.snapshot_id == u.snapshot_id;
                    }) > 0) {
    ++changes_;
  }
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemovePartitionSpecs& u) {
  const std::set<int32_t> ids(u.spec_ids.begin(), u.spec_ids.end());
  CAIRN_CHECK_ARGUMENT(ids.count(metadata_.default_spec_id) == 0,
                       "Cannot remove the default partition spec");
  if (ids.empty()) return Ok();
  std::erase_if(metadata_.partition_specs,
                [&](const PartitionSpec& s) { return ids.count(s.spec_id) > 0; });
  ++changes_;  // recorded even when no id matched, as the reference does
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemoveSchemas& u) {
  const std::set<int32_t> ids(u.schema_ids.begin(), u.schema_ids.end());
  CAIRN_CHECK_ARGUMENT(ids.count(metadata_.current_schema_id) == 0,
                       "Cannot remove the current schema");
  if (ids.empty()) return Ok();
  std::erase_if(metadata_.schemas,
                [&](const Schema& s) { return ids.count(s.schema_id) > 0; });
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const AddEncryptionKey& u) {
  CAIRN_PRECHECK(!u.key.key_id.empty(),
                 "Invalid add-encryption-key: key-id must not be empty");
  if (ContainsId(metadata_.encryption_keys, u.key.key_id,
                 [](const EncryptedKey& k) { return k.key_id; })) {
    return Ok();
  }
  metadata_.encryption_keys.push_back(u.key);
  ++changes_;
  return Ok();
}

Status MetadataBuilder::ApplyOne(const RemoveEncryptionKey& u) {
  if (std::erase_if(metadata_.encryption_keys,
                    [&](const EncryptedKey& k) { return k.key_id == u.key_id; }) > 0) {
    ++changes_;
  }
  return Ok();
}

std::vector<SnapshotLogEntry> MetadataBuilder::UpdatedSnapshotLog() const {
  // "Intermediate" snapshots: added in this commit and made current on main, then
  // superseded on main within the same commit. They were never visible, so not logged.
  std::set<int64_t> intermediate;
  for (int64_t id : main_moves_to_added_) {
    if (!metadata_.current_snapshot_id || id != *metadata_.current_snapshot_id) {
      intermediate.insert(id);
    }
  }
  if (intermediate.empty() && !removed_snapshots_) return metadata_.snapshot_log;
  std::vector<SnapshotLogEntry> log;
  for (const auto& entry : metadata_.snapshot_log) {
    if (metadata_.SnapshotById(entry.snapshot_id) != nullptr) {
      if (intermediate.count(entry.snapshot_id) == 0) log.push_back(entry);
    } else if (removed_snapshots_) {
      // A removed snapshot leaves a gap; history before a gap would be misleading for
      // time travel, so it is dropped.
      log.clear();
    }
  }
  return log;
}

Result<TableMetadata> MetadataBuilder::Build() {
  auto log = UpdatedSnapshotLog();
  return Finalize(metadata_, std::move(log));
}

Result<TableMetadata> MetadataBuilder::Finish() && {
  auto log = UpdatedSnapshotLog();  // reads metadata_: before it is moved out
  return Finalize(std::move(metadata_), std::move(log));
}

Result<TableMetadata> MetadataBuilder::Finalize(TableMetadata out,
                                                std::vector<SnapshotLogEntry> log) const {
  out.last_updated_ms = last_updated_ms_.value_or(now_ms_);
  const bool log_rewritten = !main_moves_to_added_.empty() || removed_snapshots_;
  out.snapshot_log = std::move(log);
  // Checked only when this commit rewrote the log: files written by other tools may
  // have a log that does not end at the current snapshot, and stay committable.
  if (log_rewritten && out.current_snapshot_id &&
      out.SnapshotById(*out.current_snapshot_id) != nullptr) {
    CAIRN_CHECK_VALID(
        !out.snapshot_log.empty() &&
            out.snapshot_log.back().snapshot_id == *out.current_snapshot_id,
        "Cannot set invalid snapshot log: latest entry is not the current snapshot");
  }
  if (!previous_location_.empty()) {
    out.metadata_log.push_back(
        MetadataLogEntry{base_last_updated_ms_, previous_location_});
    const size_t max = static_cast<size_t>(PreviousVersionsMax(out.properties));
    if (out.metadata_log.size() > max) {
      out.metadata_log.erase(out.metadata_log.begin(),
                             out.metadata_log.end() - static_cast<std::ptrdiff_t>(max));
    }
  }
  CAIRN_RETURN_IF_ERROR(out.Validate());
  return out;
}

}  // namespace cairn::iceberg
