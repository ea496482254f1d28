// Snapshots, refs, statistics files, encryption keys and log entries to and from JSON
// (Java `SnapshotParser`, `SnapshotRefParser`, `StatisticsFileParser`, ...).

#include <string>
#include <utility>

#include <boost/json.hpp>

#include "common/macros.h"
#include "iceberg/json_keys_internal.h"
#include "iceberg/json_serde.h"
#include "iceberg/json_util_internal.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): private helpers

}  // namespace

// ---- snapshots ----

boost::json::value ToJson(const Snapshot& snapshot) {
  boost::json::object obj;
  if (snapshot.sequence_number > TableMetadata::kInitialSequenceNumber) {
    obj[kSequenceNumber] = snapshot.sequence_number;
  }
  obj[kSnapshotId] = snapshot.snapshot_id;
  if (snapshot.parent_snapshot_id) obj[kParentSnapshotId] = *snapshot.parent_snapshot_id;
  obj[kTimestampMs] = snapshot.timestamp_ms;
  if (!snapshot.summary.empty()) {
    boost::json::object summary;
    if (auto operation = snapshot.Operation()) summary[kOperation] = *operation;
    for (const auto& [key, value] : snapshot.summary) {
      if (key != kOperation) summary[key] = value;
    }
    obj[kSummary] = std::move(summary);
  }
  if (!snapshot.manifest_list.empty() || snapshot.manifests.empty()) {
    obj[kManifestList] = snapshot.manifest_list;
  } else {
    boost::json::array manifests;
    for (const std::string& manifest : snapshot.manifests)
      manifests.emplace_back(manifest);
    obj[kManifests] = std::move(manifests);
  }
  if (snapshot.schema_id) obj[kSchemaId] = *snapshot.schema_id;
  if (snapshot.first_row_id) obj[kFirstRowId] = *snapshot.first_row_id;
  if (snapshot.added_rows) obj[kAddedRows] = *snapshot.added_rows;
  if (snapshot.key_id) obj[kKeyIdField] = *snapshot.key_id;
  return obj;
}

Result<Snapshot> SnapshotFromJson(const boost::json::value& json, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  Snapshot snapshot;
  CAIRN_ASSIGN_OR_RAISE(auto sequence_number,
                        ReadOptionalInt64(*obj, kSequenceNumber, path));
  snapshot.sequence_number =
      sequence_number.value_or(TableMetadata::kInitialSequenceNumber);
  CAIRN_ASSIGN_OR_RAISE(snapshot.snapshot_id, ReadInt64(*obj, kSnapshotId, path));
  CAIRN_ASSIGN_OR_RAISE(snapshot.parent_snapshot_id,
                        ReadOptionalInt64(*obj, kParentSnapshotId, path));
  CAIRN_ASSIGN_OR_RAISE(snapshot.timestamp_ms, ReadInt64(*obj, kTimestampMs, path));
  CAIRN_ASSIGN_OR_RAISE(snapshot.summary, ReadOptionalStringMap(*obj, kSummary, path));
  if (!snapshot.summary.empty() && !snapshot.summary.contains(std::string(kOperation))) {
    // Java reads a summary without an operation as an overwrite.
    snapshot.summary.emplace(kOperation, kOverwrite);
  }
  if (FindNonNull(*obj, kManifestList) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(snapshot.manifest_list, ReadString(*obj, kManifestList, path));
  } else {
    CAIRN_ASSIGN_OR_RAISE(snapshot.manifests, ReadStringList(*obj, kManifests, path));
  }
  CAIRN_ASSIGN_OR_RAISE(snapshot.schema_id, ReadOptionalInt32(*obj, kSchemaId, path));
  CAIRN_ASSIGN_OR_RAISE(snapshot.first_row_id,
                        ReadOptionalInt64(*obj, kFirstRowId, path));
  CAIRN_ASSIGN_OR_RAISE(snapshot.added_rows, ReadOptionalInt64(*obj, kAddedRows, path));
  CAIRN_ASSIGN_OR_RAISE(snapshot.key_id, ReadOptionalString(*obj, kKeyIdField, path));
  CAIRN_RETURN_IF_ERROR(AtPath(snapshot.Validate(), path));
  return snapshot;
}

boost::json::value ToJson(const SnapshotRef& ref) {
  boost::json::object obj;
  obj[kSnapshotId] = ref.snapshot_id;
  obj[kType] = ToString(ref.type);
  if (ref.min_snapshots_to_keep) obj[kMinSnapshotsToKeep] = *ref.min_snapshots_to_keep;
  if (ref.max_snapshot_age_ms) obj[kMaxSnapshotAgeMs] = *ref.max_snapshot_age_ms;
  if (ref.max_ref_age_ms) obj[kMaxRefAgeMs] = *ref.max_ref_age_ms;
  return obj;
}

Result<SnapshotRef> SnapshotRefFromJson(const boost::json::value& json,
                                        std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  SnapshotRef ref;
  CAIRN_ASSIGN_OR_RAISE(ref.snapshot_id, ReadInt64(*obj, kSnapshotId, path));
  CAIRN_ASSIGN_OR_RAISE(std::string type, ReadString(*obj, kType, path));
  auto parsed_type = ParseSnapshotRefType(type);
  if (!parsed_type) return AtPath(parsed_type.error(), FieldPath(path, kType));
  ref.type = *parsed_type;
  CAIRN_ASSIGN_OR_RAISE(ref.min_snapshots_to_keep,
                        ReadOptionalInt32(*obj, kMinSnapshotsToKeep, path));
  CAIRN_ASSIGN_OR_RAISE(ref.max_snapshot_age_ms,
                        ReadOptionalInt64(*obj, kMaxSnapshotAgeMs, path));
  CAIRN_ASSIGN_OR_RAISE(ref.max_ref_age_ms, ReadOptionalInt64(*obj, kMaxRefAgeMs, path));
  CAIRN_RETURN_IF_ERROR(AtPath(ref.Validate(), path));
  return ref;
}

// ---- statistics, encryption keys, logs ----

boost::json::value ToJson(const BlobMetadata& blob) {
  boost::json::object obj;
  obj[kType] = blob.type;
  obj[kSnapshotId] = blob.source_snapshot_id;
  obj[kSequenceNumber] = blob.source_snapshot_sequence_number;
  obj[kFields] = Int32ListToJson(blob.fields);
  if (!blob.properties.empty()) obj[kProperties] = StringMapToJson(blob.properties);
  return obj;
}

Result<BlobMetadata> BlobMetadataFromJson(const boost::json::value& json,
                                          std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  BlobMetadata blob;
  CAIRN_ASSIGN_OR_RAISE(blob.type, ReadString(*obj, kType, path));
  CAIRN_ASSIGN_OR_RAISE(blob.source_snapshot_id, ReadInt64(*obj, kSnapshotId, path));
  CAIRN_ASSIGN_OR_RAISE(blob.source_snapshot_sequence_number,
                        ReadInt64(*obj, kSequenceNumber, path));
  CAIRN_ASSIGN_OR_RAISE(blob.fields, ReadInt32List(*obj, kFields, path));
  CAIRN_ASSIGN_OR_RAISE(blob.properties, ReadOptionalStringMap(*obj, kProperties, path));
  return blob;
}

boost::json::value ToJson(const StatisticsFile& file) {
  boost::json::object obj;
  obj[kSnapshotId] = file.snapshot_id;
  obj[kStatisticsPath] = file.statistics_path;
  obj[kFileSizeInBytes] = file.file_size_in_bytes;
  obj[kFileFooterSizeInBytes] = file.file_footer_size_in_bytes;
  if (file.key_metadata) obj[kKeyMetadata] = *file.key_metadata;
  obj[kBlobMetadata] = ListToJson(file.blob_metadata);
  return obj;
}

Result<StatisticsFile> StatisticsFileFromJson(const boost::json::value& json,
                                              std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  StatisticsFile file;
  CAIRN_ASSIGN_OR_RAISE(file.snapshot_id, ReadInt64(*obj, kSnapshotId, path));
  CAIRN_ASSIGN_OR_RAISE(file.statistics_path, ReadString(*obj, kStatisticsPath, path));
  CAIRN_ASSIGN_OR_RAISE(file.file_size_in_bytes, ReadInt64(*obj, kFileSizeInBytes, path));
  CAIRN_ASSIGN_OR_RAISE(file.file_footer_size_in_bytes,
                        ReadInt64(*obj, kFileFooterSizeInBytes, path));
  CAIRN_ASSIGN_OR_RAISE(file.key_metadata, ReadOptionalString(*obj, kKeyMetadata, path));
  CAIRN_ASSIGN_OR_RAISE(
      file.blob_metadata,
      ReadList<BlobMetadata>(*obj, kBlobMetadata, path, BlobMetadataFromJson));
  return file;
}

boost::json::value ToJson(const PartitionStatisticsFile& file) {
  boost::json::object obj;
  obj[kSnapshotId] = file.snapshot_id;
  obj[kStatisticsPath] = file.statistics_path;
  obj[kFileSizeInBytes] = file.file_size_in_bytes;
  return obj;
}

Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(
    const boost::json::value& json, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  PartitionStatisticsFile file;
  CAIRN_ASSIGN_OR_RAISE(file.snapshot_id, ReadInt64(*obj, kSnapshotId, path));
  CAIRN_ASSIGN_OR_RAISE(file.statistics_path, ReadString(*obj, kStatisticsPath, path));
  CAIRN_ASSIGN_OR_RAISE(file.file_size_in_bytes, ReadInt64(*obj, kFileSizeInBytes, path));
  return file;
}

boost::json::value ToJson(const EncryptedKey& key) {
  boost::json::object obj;
  obj[kKeyIdField] = key.key_id;
  obj[kEncryptedKeyMetadata] = key.encrypted_key_metadata;
  if (key.encrypted_by_id) obj[kEncryptedById] = *key.encrypted_by_id;
  if (!key.properties.empty()) obj[kProperties] = StringMapToJson(key.properties);
  return obj;
}

Result<EncryptedKey> EncryptedKeyFromJson(const boost::json::value& json,
                                          std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  EncryptedKey key;
  CAIRN_ASSIGN_OR_RAISE(key.key_id, ReadString(*obj, kKeyIdField, path));
  CAIRN_ASSIGN_OR_RAISE(key.encrypted_key_metadata,
                        ReadString(*obj, kEncryptedKeyMetadata, path));
  CAIRN_ASSIGN_OR_RAISE(key.encrypted_by_id,
                        ReadOptionalString(*obj, kEncryptedById, path));
  CAIRN_ASSIGN_OR_RAISE(key.properties, ReadOptionalStringMap(*obj, kProperties, path));
  return key;
}

boost::json::value ToJson(const SnapshotLogEntry& entry) {
  boost::json::object obj;
  obj[kTimestampMs] = entry.timestamp_ms;
  obj[kSnapshotId] = entry.snapshot_id;
  return obj;
}

Result<SnapshotLogEntry> SnapshotLogEntryFromJson(const boost::json::value& json,
                                                  std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  SnapshotLogEntry entry;
  CAIRN_ASSIGN_OR_RAISE(entry.timestamp_ms, ReadInt64(*obj, kTimestampMs, path));
  CAIRN_ASSIGN_OR_RAISE(entry.snapshot_id, ReadInt64(*obj, kSnapshotId, path));
  return entry;
}

boost::json::value ToJson(const MetadataLogEntry& entry) {
  boost::json::object obj;
  obj[kTimestampMs] = entry.timestamp_ms;
  obj[kMetadataFile] = entry.metadata_file;
  return obj;
}

Result<MetadataLogEntry> MetadataLogEntryFromJson(const boost::json::value& json,
                                                  std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  MetadataLogEntry entry;
  CAIRN_ASSIGN_OR_RAISE(entry.timestamp_ms, ReadInt64(*obj, kTimestampMs, path));
  CAIRN_ASSIGN_OR_RAISE(entry.metadata_file, ReadString(*obj, kMetadataFile, path));
  return entry;
}

}  // namespace cairn::iceberg
