#include "iceberg/table_metadata.h"

#include <set>

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
  if (format_version < 1 || format_version > kSupportedFormatVersion) {
    return InvalidArgument("Unsupported format version: v{} (supported: v1 to v{})",
                           format_version, kSupportedFormatVersion);
  }
  if (format_version > 1 && table_uuid.empty()) {
    return InvalidArgument("UUID is required in format v{}", format_version);
  }
  if (format_version == 1 && last_sequence_number != kInitialSequenceNumber) {
    return InvalidArgument("Sequence number must be 0 in v1: {}", last_sequence_number);
  }

  std::set<int64_t> ids;
  for (const Schema& schema : schemas) {
    if (!ids.insert(schema.schema_id).second) {
      return InvalidArgument("Invalid table metadata: duplicate schema id {}",
                             schema.schema_id);
    }
    CAIRN_RETURN_IF_ERROR(schema.Validate());
  }
  ids.clear();
  for (const PartitionSpec& spec : partition_specs) {
    if (!ids.insert(spec.spec_id).second) {
      return InvalidArgument("Invalid table metadata: duplicate partition spec id {}",
                             spec.spec_id);
    }
    CAIRN_RETURN_IF_ERROR(spec.Validate());
  }
  ids.clear();
  for (const SortOrder& order : sort_orders) {
    if (!ids.insert(order.order_id).second) {
      return InvalidArgument("Invalid table metadata: duplicate sort order id {}",
                             order.order_id);
    }
    CAIRN_RETURN_IF_ERROR(order.Validate());
  }
  ids.clear();
  for (const Snapshot& snapshot : snapshots) {
    if (!ids.insert(snapshot.snapshot_id).second) {
      return InvalidArgument("Invalid table metadata: duplicate snapshot id {}",
                             snapshot.snapshot_id);
    }
    CAIRN_RETURN_IF_ERROR(snapshot.Validate());
    if (format_version > 1 && snapshot.sequence_number > last_sequence_number) {
      return ValidationFailed(
          "Invalid snapshot {}: sequence number {} is greater than last sequence number "
          "{}",
          snapshot.snapshot_id, snapshot.sequence_number, last_sequence_number);
    }
  }

  const Schema* schema = CurrentSchema();
  if (schema == nullptr) {
    return InvalidArgument("Cannot find current schema with id {}", current_schema_id);
  }
  const PartitionSpec* spec = DefaultSpec();
  if (spec == nullptr) {
    return InvalidArgument("Cannot find default partition spec with id {}",
                           default_spec_id);
  }
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(*spec, *schema));
  const SortOrder* order = DefaultSortOrder();
  if (order == nullptr) {
    return InvalidArgument("Cannot find default sort order with id {}",
                           default_sort_order_id);
  }
  CAIRN_RETURN_IF_ERROR(CheckCompatibility(*order, *schema));

  if (current_snapshot_id && SnapshotById(*current_snapshot_id) == nullptr) {
    return InvalidArgument("Invalid table metadata: Cannot find current snapshot {}",
                           *current_snapshot_id);
  }
  for (const auto& [name, ref] : refs) {
    CAIRN_RETURN_IF_ERROR(ref.Validate());
    if (SnapshotById(ref.snapshot_id) == nullptr) {
      return InvalidArgument(
          "Invalid table metadata: ref {} points to missing snapshot {}", name,
          ref.snapshot_id);
    }
  }
  const SnapshotRef* main = RefByName(SnapshotRef::kMainBranch);
  if (main != nullptr && !main->IsBranch()) {
    return InvalidArgument("Invalid table metadata: ref main must be a branch");
  }
  if (current_snapshot_id) {
    if (main != nullptr && main->snapshot_id != *current_snapshot_id) {
      return InvalidArgument("Current snapshot ID does not match main branch ({} != {})",
                             *current_snapshot_id, main->snapshot_id);
    }
  } else if (main != nullptr) {
    return InvalidArgument("Current snapshot is not set, but main branch exists: {}",
                           main->snapshot_id);
  }

  const SnapshotLogEntry* last_snapshot_entry = nullptr;
  for (const SnapshotLogEntry& entry : snapshot_log) {
    if (last_snapshot_entry != nullptr &&
        entry.timestamp_ms - last_snapshot_entry->timestamp_ms < -kOneMinuteMs) {
      return InvalidArgument(
          "Invalid table metadata: snapshot log entries are not sorted by time");
    }
    last_snapshot_entry = &entry;
  }
  if (last_snapshot_entry != nullptr &&
      last_updated_ms - last_snapshot_entry->timestamp_ms < -kOneMinuteMs) {
    return InvalidArgument(
        "Invalid update timestamp {}: before last snapshot log entry at {}",
        last_updated_ms, last_snapshot_entry->timestamp_ms);
  }
  const MetadataLogEntry* last_metadata_entry = nullptr;
  for (const MetadataLogEntry& entry : metadata_log) {
    if (last_metadata_entry != nullptr &&
        entry.timestamp_ms - last_metadata_entry->timestamp_ms < -kOneMinuteMs) {
      return InvalidArgument(
          "Invalid table metadata: metadata log entries are not sorted by time");
    }
    last_metadata_entry = &entry;
  }
  if (last_metadata_entry != nullptr &&
      last_updated_ms - last_metadata_entry->timestamp_ms < -kOneMinuteMs) {
    return InvalidArgument(
        "Invalid update timestamp {}: before the latest metadata log entry timestamp {}",
        last_updated_ms, last_metadata_entry->timestamp_ms);
  }
  return Ok();
}

}  // namespace cairn::iceberg
