#include "iceberg/table_metadata.h"

#include <set>
#include <string_view>
#include <vector>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

template <class List, class Id, class GetId>
const typename List::value_type* FindBy(const List& items, Id id, GetId get_id) {
  for (const auto& item : items) {
    if (get_id(item) == id) return &item;
  }
  return nullptr;
}

// The checks of `TableMetadata::Validate`, in the order it runs them (which decides the
// error reported when several rules are broken).

Status CheckVersionRules(const TableMetadata& md) {
  if (md.format_version < 1 ||
      md.format_version > TableMetadata::kSupportedFormatVersion) {
    return InvalidArgument("Unsupported format version: v{} (supported: v1 to v{})",
                           md.format_version, TableMetadata::kSupportedFormatVersion);
  }
  if (md.format_version > 1 && md.table_uuid.empty()) {
    return InvalidArgument("UUID is required in format v{}", md.format_version);
  }
  if (md.format_version == 1 &&
      md.last_sequence_number != TableMetadata::kInitialSequenceNumber) {
    return InvalidArgument("Sequence number must be 0 in v1: {}",
                           md.last_sequence_number);
  }
  return Ok();
}

/// Every item valid on its own and no two with the same id; `what` names the items in
/// the message ("schema" for "duplicate schema id 3").
template <class List, class GetId>
Status CheckUniqueValidItems(const List& items, std::string_view what, GetId get_id) {
  std::set<int64_t> ids;
  for (const auto& item : items) {
    if (!ids.insert(get_id(item)).second) {
      return InvalidArgument("Invalid table metadata: duplicate {} id {}", what,
                             get_id(item));
    }
    CAIRN_RETURN_IF_ERROR(item.Validate());
  }
  return Ok();
}

/// Schemas, specs, sort orders and snapshots; v2+ snapshots may not be ahead of
/// `last-sequence-number`.
Status CheckLists(const TableMetadata& md) {
  CAIRN_RETURN_IF_ERROR(CheckUniqueValidItems(
      md.schemas, "schema", [](const Schema& s) { return s.schema_id; }));
  CAIRN_RETURN_IF_ERROR(
      CheckUniqueValidItems(md.partition_specs, "partition spec",
                            [](const PartitionSpec& s) { return s.spec_id; }));
  CAIRN_RETURN_IF_ERROR(CheckUniqueValidItems(
      md.sort_orders, "sort order", [](const SortOrder& o) { return o.order_id; }));
  std::set<int64_t> ids;
  for (const Snapshot& snapshot : md.snapshots) {
    if (!ids.insert(snapshot.snapshot_id).second) {
      return InvalidArgument("Invalid table metadata: duplicate snapshot id {}",
                             snapshot.snapshot_id);
    }
    CAIRN_RETURN_IF_ERROR(snapshot.Validate());
    if (md.format_version > 1 && snapshot.sequence_number > md.last_sequence_number) {
      return ValidationFailed(
          "Invalid snapshot {}: sequence number {} is greater than last sequence number "
          "{}",
          snapshot.snapshot_id, snapshot.sequence_number, md.last_sequence_number);
    }
  }
  return Ok();
}

/// The current schema, default spec and default sort order exist, and the spec and the
/// order bind to the schema.
Status CheckDefaults(const TableMetadata& md) {
  const Schema* schema = md.CurrentSchema();
  if (schema == nullptr) {
    return InvalidArgument("Cannot find current schema with id {}", md.current_schema_id);
  }
  const PartitionSpec* spec = md.DefaultSpec();
  if (spec == nullptr) {
    return InvalidArgument("Cannot find default partition spec with id {}",
                           md.default_spec_id);
  }
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(*spec, *schema));
  const SortOrder* order = md.DefaultSortOrder();
  if (order == nullptr) {
    return InvalidArgument("Cannot find default sort order with id {}",
                           md.default_sort_order_id);
  }
  return CheckCompatibility(*order, *schema);
}

/// The current snapshot and every ref point at existing snapshots, and `main` is a
/// branch at the current snapshot (or absent when there is none).
Status CheckRefs(const TableMetadata& md) {
  if (md.current_snapshot_id && md.SnapshotById(*md.current_snapshot_id) == nullptr) {
    return InvalidArgument("Invalid table metadata: Cannot find current snapshot {}",
                           *md.current_snapshot_id);
  }
  for (const auto& [name, ref] : md.refs) {
    CAIRN_RETURN_IF_ERROR(ref.Validate());
    if (md.SnapshotById(ref.snapshot_id) == nullptr) {
      return InvalidArgument(
          "Invalid table metadata: ref {} points to missing snapshot {}", name,
          ref.snapshot_id);
    }
  }
  const SnapshotRef* main = md.RefByName(SnapshotRef::kMainBranch);
  if (main != nullptr && !main->IsBranch()) {
    return InvalidArgument("Invalid table metadata: ref main must be a branch");
  }
  if (md.current_snapshot_id) {
    if (main != nullptr && main->snapshot_id != *md.current_snapshot_id) {
      return InvalidArgument("Current snapshot ID does not match main branch ({} != {})",
                             *md.current_snapshot_id, main->snapshot_id);
    }
  } else if (main != nullptr) {
    return InvalidArgument("Current snapshot is not set, but main branch exists: {}",
                           main->snapshot_id);
  }
  return Ok();
}

/// `a` is not more than the allowed clock skew before `b`.
bool NotBefore(int64_t a_ms, int64_t b_ms) {
  return a_ms - b_ms >= -TableMetadata::kOneMinuteMs;
}

/// The entries of a log are in time order (up to the clock skew); returns the last one,
/// or null for an empty log. `what` names the log in the message ("snapshot").
template <class Entry>
Result<const Entry*> CheckTimeOrder(const std::vector<Entry>& log,
                                    std::string_view what) {
  const Entry* last = nullptr;
  for (const Entry& entry : log) {
    if (last != nullptr && !NotBefore(entry.timestamp_ms, last->timestamp_ms)) {
      return InvalidArgument(
          "Invalid table metadata: {} log entries are not sorted by time", what);
    }
    last = &entry;
  }
  return last;
}

/// Both logs are in time order and `last-updated-ms` is not before their last entries.
Status CheckLogs(const TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(const SnapshotLogEntry* last_snapshot_entry,
                        CheckTimeOrder(md.snapshot_log, "snapshot"));
  if (last_snapshot_entry != nullptr &&
      !NotBefore(md.last_updated_ms, last_snapshot_entry->timestamp_ms)) {
    return InvalidArgument(
        "Invalid update timestamp {}: before last snapshot log entry at {}",
        md.last_updated_ms, last_snapshot_entry->timestamp_ms);
  }
  CAIRN_ASSIGN_OR_RAISE(const MetadataLogEntry* last_metadata_entry,
                        CheckTimeOrder(md.metadata_log, "metadata"));
  if (last_metadata_entry != nullptr &&
      !NotBefore(md.last_updated_ms, last_metadata_entry->timestamp_ms)) {
    return InvalidArgument(
        "Invalid update timestamp {}: before the latest metadata log entry timestamp {}",
        md.last_updated_ms, last_metadata_entry->timestamp_ms);
  }
  return Ok();
}

}  // namespace

const Schema* TableMetadata::SchemaById(int32_t schema_id) const {
  return FindBy(schemas, schema_id, [](const Schema& s) { return s.schema_id; });
}

const Schema* TableMetadata::CurrentSchema() const {
  return SchemaById(current_schema_id);
}

const PartitionSpec* TableMetadata::SpecById(int32_t spec_id) const {
  return FindBy(partition_specs, spec_id,
                [](const PartitionSpec& s) { return s.spec_id; });
}

const PartitionSpec* TableMetadata::DefaultSpec() const {
  return SpecById(default_spec_id);
}

const SortOrder* TableMetadata::SortOrderById(int32_t order_id) const {
  return FindBy(sort_orders, order_id, [](const SortOrder& o) { return o.order_id; });
}

const SortOrder* TableMetadata::DefaultSortOrder() const {
  return SortOrderById(default_sort_order_id);
}

const Snapshot* TableMetadata::SnapshotById(int64_t snapshot_id) const {
  return FindBy(snapshots, snapshot_id, [](const Snapshot& s) { return s.snapshot_id; });
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? SnapshotById(*current_snapshot_id) : nullptr;
}

const SnapshotRef* TableMetadata::RefByName(std::string_view name) const {
  auto it = refs.find(std::string(name));
  return it == refs.end() ? nullptr : &it->second;
}

Status TableMetadata::Validate() const {
  CAIRN_RETURN_IF_ERROR(CheckVersionRules(*this));
  CAIRN_RETURN_IF_ERROR(CheckLists(*this));
  CAIRN_RETURN_IF_ERROR(CheckDefaults(*this));
  CAIRN_RETURN_IF_ERROR(CheckRefs(*this));
  return CheckLogs(*this);
}

}  // namespace cairn::iceberg
