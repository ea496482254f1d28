// Table metadata to and from JSON (Java `TableMetadataParser`), and the compact encoding
// whose snapshot texts are memoized per entry. The parts of the metadata have their own
// files: json_serde_schema.cc, json_serde_spec.cc and json_serde_snapshot.cc.

#include "iceberg/json_serde.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <memory>
#include <utility>

#include <boost/json.hpp>

#include "common/json_util.h"
#include "common/macros.h"
#include "iceberg/json_keys_internal.h"
#include "iceberg/json_util_internal.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): private helpers

/// Every member of the metadata object up to `refs`; the callers add the lists after it
/// (in Java's order), of which snapshots and the logs grow with the table's history.
boost::json::object MetadataHeadToJson(const TableMetadata& metadata) {
  const int version = metadata.format_version;
  boost::json::object obj;
  obj[kFormatVersion] = version;
  if (!metadata.table_uuid.empty()) obj[kTableUuid] = metadata.table_uuid;
  obj[kLocation] = metadata.location;
  if (version > 1) obj[kLastSequenceNumber] = metadata.last_sequence_number;
  obj[kLastUpdatedMs] = metadata.last_updated_ms;
  obj[kLastColumnId] = metadata.last_column_id;
  // v1 readers only know the single current schema and default spec.
  if (version == 1) {
    if (const Schema* schema = metadata.CurrentSchema()) obj[kSchema] = ToJson(*schema);
  }
  obj[kCurrentSchemaId] = metadata.current_schema_id;
  obj[kSchemas] = ListToJson(metadata.schemas);
  if (version == 1) {
    if (const PartitionSpec* spec = metadata.DefaultSpec()) {
      obj[kPartitionSpec] = PartitionFieldsToJson(*spec);
    }
  }
  obj[kDefaultSpecId] = metadata.default_spec_id;
  obj[kPartitionSpecs] = ListToJson(metadata.partition_specs);
  obj[kLastPartitionId] = metadata.last_partition_id;
  obj[kDefaultSortOrderId] = metadata.default_sort_order_id;
  obj[kSortOrders] = ListToJson(metadata.sort_orders);
  obj[kProperties] = StringMapToJson(metadata.properties);
  if (metadata.current_snapshot_id) {
    obj[kCurrentSnapshotId] = *metadata.current_snapshot_id;
  } else if (version >= TableMetadata::kMinNullCurrentSnapshotVersion) {
    obj[kCurrentSnapshotId] = nullptr;
  } else {
    obj[kCurrentSnapshotId] = -1;
  }
  if (version >= TableMetadata::kMinRowLineageVersion) {
    obj[kNextRowId] = metadata.next_row_id;
  }
  if (!metadata.encryption_keys.empty()) {
    obj[kEncryptionKeys] = ListToJson(metadata.encryption_keys);
  }
  boost::json::object refs;
  for (const auto& [name, ref] : metadata.refs) refs[name] = ToJson(ref);
  obj[kRefs] = std::move(refs);
  return obj;
}

void AppendKey(std::string& out, std::string_view key) {
  out.append(",\"").append(key).append("\":");
}

using Span = EncodedTableMetadata::Span;

/// Appends `,"key":[...]` with each item written by `append_item`; returns where the
/// items are (inside the brackets), and each item's span when `items_out` is set.
template <class List, class AppendItem>
Span AppendList(std::string& out, std::string_view key, const List& items,
                AppendItem append_item, std::vector<Span>* items_out = nullptr) {
  AppendKey(out, key);
  out.push_back('[');
  const size_t first_item = out.size();
  if (items_out != nullptr) items_out->reserve(items.size());
  for (const auto& item : items) {
    if (out.size() != first_item) out.push_back(',');
    const size_t begin = out.size();
    append_item(item);
    if (items_out != nullptr) items_out->push_back(Span{begin, out.size()});
  }
  const size_t end = out.size();
  out.push_back(']');
  return Span{first_item, end};
}

void AppendSnapshots(std::string& out, const SnapshotList& snapshots,
                     EncodedTableMetadata& encoded) {
  encoded.snapshots = AppendList(
      out, kSnapshots, snapshots.entries(),
      [&](const SnapshotList::EntryPtr& entry) { out.append(SnapshotJson(*entry)); },
      &encoded.snapshot_items);
}

void AppendInt(std::string& out, int64_t value) {
  char digits[24];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
  out.append(digits, end);
}

// The log grows by one entry per commit: written by hand, it costs a fraction of fmt.
void AppendSnapshotLog(std::string& out, const std::vector<SnapshotLogEntry>& log,
                       EncodedTableMetadata& encoded) {
  encoded.snapshot_log = AppendList(
      out, kSnapshotLog, log,
      [&](const SnapshotLogEntry& entry) {
        out.append("{\"").append(kTimestampMs).append("\":");
        AppendInt(out, entry.timestamp_ms);
        out.append(",\"").append(kSnapshotId).append("\":");
        AppendInt(out, entry.snapshot_id);
        out.push_back('}');
      },
      &encoded.snapshot_log_items);
}

// Up to write.metadata.previous-versions-max entries, all written again by each commit:
// by hand too (through fmt they were a twentieth of a commit's CPU).
void AppendMetadataLog(std::string& out, const std::vector<MetadataLogEntry>& log,
                       EncodedTableMetadata& encoded) {
  encoded.metadata_log = AppendList(
      out, kMetadataLog, log,
      [&](const MetadataLogEntry& entry) {
        out.append("{\"").append(kTimestampMs).append("\":");
        AppendInt(out, entry.timestamp_ms);
        out.append(",\"").append(kMetadataFile).append("\":");
        AppendJsonString(out, entry.metadata_file);
        out.push_back('}');
      },
      &encoded.metadata_log_items);
}

}  // namespace

boost::json::value ToJson(const TableMetadata& metadata) {
  boost::json::object obj = MetadataHeadToJson(metadata);
  obj[kSnapshots] = ListToJson(metadata.snapshots);
  obj[kStatistics] = ListToJson(metadata.statistics);
  obj[kPartitionStatistics] = ListToJson(metadata.partition_statistics);
  obj[kSnapshotLog] = ListToJson(metadata.snapshot_log);
  obj[kMetadataLog] = ListToJson(metadata.metadata_log);
  return obj;
}

namespace {

// The steps of `TableMetadataFromJson`, each reading some members of the metadata object
// `obj` (at `path`) into `md`. They run in Java's order, which decides the error
// reported when several members are wrong.

/// `format-version` (supported ones only), `table-uuid`, `location`,
/// `last-sequence-number` (v2+) and `last-column-id`.
Status ReadVersionAndHead(const boost::json::object& obj, std::string_view path,
                          TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(md.format_version, ReadInt32(obj, kFormatVersion, path));
  if (md.format_version < 1 ||
      md.format_version > TableMetadata::kSupportedFormatVersion) {
    return InvalidField(FieldPath(path, kFormatVersion),
                        "Cannot read unsupported version {} (supported: 1 to {})",
                        md.format_version, TableMetadata::kSupportedFormatVersion);
  }
  CAIRN_ASSIGN_OR_RAISE(auto uuid, ReadOptionalString(obj, kTableUuid, path));
  md.table_uuid = uuid.value_or("");
  CAIRN_ASSIGN_OR_RAISE(md.location, ReadString(obj, kLocation, path));
  if (md.format_version > 1) {
    CAIRN_ASSIGN_OR_RAISE(md.last_sequence_number,
                          ReadInt64(obj, kLastSequenceNumber, path));
  }
  CAIRN_ASSIGN_OR_RAISE(md.last_column_id, ReadInt32(obj, kLastColumnId, path));
  return Ok();
}

/// Schemas: the list plus current id, or (v1 only) the single `schema`.
Status ReadSchemas(const boost::json::object& obj, std::string_view path,
                   TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* schemas,
                        ReadOptionalArray(obj, kSchemas, path));
  if (schemas != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(md.current_schema_id, ReadInt32(obj, kCurrentSchemaId, path));
    CAIRN_ASSIGN_OR_RAISE(
        md.schemas,
        ParseList<Schema>(*schemas, FieldPath(path, kSchemas), SchemaFromJson));
    if (md.CurrentSchema() == nullptr) {
      return InvalidField(FieldPath(path, kCurrentSchemaId),
                          "Cannot find schema with current-schema-id={} from schemas",
                          md.current_schema_id);
    }
    return Ok();
  }
  if (md.format_version != 1) {
    return InvalidField(FieldPath(path, kSchemas), "schemas must exist in format v{}",
                        md.format_version);
  }
  const auto* schema = FindNonNull(obj, kSchema);
  if (schema == nullptr) return MissingField(FieldPath(path, kSchema));
  CAIRN_ASSIGN_OR_RAISE(Schema parsed, SchemaFromJson(*schema, FieldPath(path, kSchema)));
  md.current_schema_id = parsed.schema_id;
  md.schemas.push_back(std::move(parsed));
  return Ok();
}

/// Partition specs: the list plus default id, or (v1 only) the bare `partition-spec`.
Status ReadPartitionSpecs(const boost::json::object& obj, std::string_view path,
                          TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* specs,
                        ReadOptionalArray(obj, kPartitionSpecs, path));
  if (specs != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(md.default_spec_id, ReadInt32(obj, kDefaultSpecId, path));
    CAIRN_ASSIGN_OR_RAISE(
        md.partition_specs,
        ParseList<PartitionSpec>(*specs, FieldPath(path, kPartitionSpecs),
                                 PartitionSpecFromJson));
    return Ok();
  }
  if (md.format_version != 1) {
    return InvalidField(FieldPath(path, kPartitionSpecs),
                        "partition-specs must exist in format v{}", md.format_version);
  }
  const auto* fields = FindNonNull(obj, kPartitionSpec);
  if (fields == nullptr) return MissingField(FieldPath(path, kPartitionSpec));
  md.default_spec_id = PartitionSpec::kInitialSpecId;
  CAIRN_ASSIGN_OR_RAISE(PartitionSpec spec,
                        PartitionFieldsFromJson(*fields, PartitionSpec::kInitialSpecId,
                                                FieldPath(path, kPartitionSpec)));
  md.partition_specs.push_back(std::move(spec));
  return Ok();
}

/// `last-partition-id`; v1 files without it get the highest field id of their specs.
Status ReadLastPartitionId(const boost::json::object& obj, std::string_view path,
                           TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(auto last_partition_id,
                        ReadOptionalInt32(obj, kLastPartitionId, path));
  if (last_partition_id) {
    md.last_partition_id = *last_partition_id;
    return Ok();
  }
  if (md.format_version != 1) return MissingField(FieldPath(path, kLastPartitionId));
  md.last_partition_id = kUnpartitionedLastAssignedId;
  for (const PartitionSpec& spec : md.partition_specs) {
    md.last_partition_id = std::max(md.last_partition_id, spec.LastAssignedFieldId());
  }
  return Ok();
}

/// Sort orders: required in v2+; v1 files without them are unsorted.
Status ReadSortOrders(const boost::json::object& obj, std::string_view path,
                      TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* orders,
                        ReadOptionalArray(obj, kSortOrders, path));
  if (orders != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(md.default_sort_order_id,
                          ReadInt32(obj, kDefaultSortOrderId, path));
    CAIRN_ASSIGN_OR_RAISE(
        md.sort_orders,
        ParseList<SortOrder>(*orders, FieldPath(path, kSortOrders), SortOrderFromJson));
    return Ok();
  }
  if (md.format_version != 1) {
    return InvalidField(FieldPath(path, kSortOrders),
                        "sort-orders must exist in format v{}", md.format_version);
  }
  md.sort_orders.push_back(SortOrder::Unsorted());
  md.default_sort_order_id = SortOrder::kUnsortedOrderId;
  return Ok();
}

/// `current-snapshot-id`: missing, null and -1 (any negative id) all mean "no current
/// snapshot".
Status ReadCurrentSnapshotId(const boost::json::object& obj, std::string_view path,
                             TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(auto current_snapshot_id,
                        ReadOptionalInt64(obj, kCurrentSnapshotId, path));
  if (current_snapshot_id && *current_snapshot_id >= 0) {
    md.current_snapshot_id = current_snapshot_id;
  }
  return Ok();
}

/// `refs`; files written before refs existed get their current snapshot as `main`.
Status ReadRefs(const boost::json::object& obj, std::string_view path,
                TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* refs,
                        ReadOptionalObject(obj, kRefs, path));
  if (refs == nullptr) {
    if (md.current_snapshot_id) {
      md.refs.emplace(SnapshotRef::kMainBranch,
                      SnapshotRef::Branch(*md.current_snapshot_id));
    }
    return Ok();
  }
  std::string refs_path = FieldPath(path, kRefs);
  for (const auto& member : *refs) {
    std::string name(member.key());
    CAIRN_ASSIGN_OR_RAISE(
        SnapshotRef ref, SnapshotRefFromJson(member.value(), FieldPath(refs_path, name)));
    md.refs.emplace(std::move(name), ref);
  }
  return Ok();
}

/// The lists that grow with the table's history: snapshots, statistics and the logs
/// (each empty when absent).
Status ReadHistory(const boost::json::object& obj, std::string_view path,
                   TableMetadata& md) {
  CAIRN_ASSIGN_OR_RAISE(
      md.snapshots, ReadOptionalList<Snapshot>(obj, kSnapshots, path, SnapshotFromJson));
  CAIRN_ASSIGN_OR_RAISE(
      md.statistics,
      ReadOptionalList<StatisticsFile>(obj, kStatistics, path, StatisticsFileFromJson));
  CAIRN_ASSIGN_OR_RAISE(
      md.partition_statistics,
      ReadOptionalList<PartitionStatisticsFile>(obj, kPartitionStatistics, path,
                                                PartitionStatisticsFileFromJson));
  CAIRN_ASSIGN_OR_RAISE(md.snapshot_log,
                        ReadOptionalList<SnapshotLogEntry>(obj, kSnapshotLog, path,
                                                           SnapshotLogEntryFromJson));
  CAIRN_ASSIGN_OR_RAISE(md.metadata_log,
                        ReadOptionalList<MetadataLogEntry>(obj, kMetadataLog, path,
                                                           MetadataLogEntryFromJson));
  return Ok();
}

/// `next-row-id` (v3+) and `encryption-keys`.
Status ReadRowLineageAndKeys(const boost::json::object& obj, std::string_view path,
                             TableMetadata& md) {
  if (md.format_version >= TableMetadata::kMinRowLineageVersion) {
    CAIRN_ASSIGN_OR_RAISE(md.next_row_id, ReadInt64(obj, kNextRowId, path));
  }
  CAIRN_ASSIGN_OR_RAISE(
      md.encryption_keys,
      ReadOptionalList<EncryptedKey>(obj, kEncryptionKeys, path, EncryptedKeyFromJson));
  return Ok();
}

}  // namespace

Result<TableMetadata> TableMetadataFromJson(const boost::json::value& json,
                                            std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  TableMetadata md;
  CAIRN_RETURN_IF_ERROR(ReadVersionAndHead(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(ReadSchemas(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(ReadPartitionSpecs(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(ReadLastPartitionId(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(ReadSortOrders(*obj, path, md));
  CAIRN_ASSIGN_OR_RAISE(md.properties, ReadOptionalStringMap(*obj, kProperties, path));
  CAIRN_RETURN_IF_ERROR(ReadCurrentSnapshotId(*obj, path, md));
  CAIRN_ASSIGN_OR_RAISE(md.last_updated_ms, ReadInt64(*obj, kLastUpdatedMs, path));
  CAIRN_RETURN_IF_ERROR(ReadRefs(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(ReadHistory(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(ReadRowLineageAndKeys(*obj, path, md));
  CAIRN_RETURN_IF_ERROR(AtPath(md.Validate(), path));
  return md;
}

const std::string& SnapshotJson(const SnapshotList::Entry& entry) {
  auto encoded = entry.encoded.load(std::memory_order_acquire);
  if (!encoded) {
    auto fresh = std::make_shared<const std::string>(
        boost::json::serialize(ToJson(entry.snapshot)));
    // The first text stored stays for the entry's lifetime (references to it remain
    // valid); a thread that lost the race uses the winner's equal text.
    if (entry.encoded.compare_exchange_strong(encoded, fresh,
                                              std::memory_order_acq_rel)) {
      encoded = std::move(fresh);
    }
  }
  return *encoded;
}

std::string TableMetadataToJsonString(const TableMetadata& metadata, bool pretty) {
  if (pretty) return SerializePretty(ToJson(metadata));
  return EncodeTableMetadata(metadata).json;
}

EncodedTableMetadata EncodeTableMetadata(const TableMetadata& metadata) {
  EncodedTableMetadata encoded;
  // The head is small; the lists are appended as text, the snapshots from their memos.
  std::string& out = encoded.json;
  out = boost::json::serialize(MetadataHeadToJson(metadata));
  size_t expected = out.size() + 64 * (metadata.snapshot_log.size() + 1) +
                    160 * metadata.metadata_log.size();
  for (const auto& entry : metadata.snapshots.entries()) {
    expected += SnapshotJson(*entry).size() + 1;
  }
  out.reserve(expected);
  out.pop_back();  // the head's closing brace: the lists follow
  AppendSnapshots(out, metadata.snapshots, encoded);
  AppendKey(out, kStatistics);
  out.append(boost::json::serialize(ListToJson(metadata.statistics)));
  AppendKey(out, kPartitionStatistics);
  out.append(boost::json::serialize(ListToJson(metadata.partition_statistics)));
  AppendSnapshotLog(out, metadata.snapshot_log, encoded);
  AppendMetadataLog(out, metadata.metadata_log, encoded);
  out.push_back('}');
  return encoded;
}

Result<TableMetadata> TableMetadataFromJsonString(std::string_view text) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseMetadataText(text, "table metadata"));
  return TableMetadataFromJson(json);
}

}  // namespace cairn::iceberg
