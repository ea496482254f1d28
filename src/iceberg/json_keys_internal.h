#pragma once

/// \file
/// \brief Private: the member names of the Iceberg metadata JSON (table spec Appendix C),
/// shared by the readers and writers of `iceberg/json_serde.h` and
/// `iceberg/view_json_serde.h` so that each name is spelled once. Include only from .cc
/// files.

#include <string_view>

namespace cairn::iceberg::json_internal {

// Types and schemas (SchemaParser)
inline constexpr std::string_view kType = "type";
inline constexpr std::string_view kStruct = "struct";
inline constexpr std::string_view kList = "list";
inline constexpr std::string_view kMap = "map";
inline constexpr std::string_view kFields = "fields";
inline constexpr std::string_view kElement = "element";
inline constexpr std::string_view kKey = "key";
inline constexpr std::string_view kValue = "value";
inline constexpr std::string_view kDoc = "doc";
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kId = "id";
inline constexpr std::string_view kInitialDefault = "initial-default";
inline constexpr std::string_view kWriteDefault = "write-default";
inline constexpr std::string_view kElementId = "element-id";
inline constexpr std::string_view kKeyId = "key-id";  // a map type's key field id
inline constexpr std::string_view kValueId = "value-id";
inline constexpr std::string_view kRequired = "required";
inline constexpr std::string_view kElementRequired = "element-required";
inline constexpr std::string_view kValueRequired = "value-required";
inline constexpr std::string_view kSchemaId = "schema-id";
inline constexpr std::string_view kIdentifierFieldIds = "identifier-field-ids";

// Partition specs and sort orders (PartitionSpecParser, SortOrderParser)
inline constexpr std::string_view kSpecId = "spec-id";
inline constexpr std::string_view kSourceId = "source-id";
inline constexpr std::string_view kSourceIds = "source-ids";
inline constexpr std::string_view kFieldId = "field-id";
inline constexpr std::string_view kTransform = "transform";
inline constexpr std::string_view kOrderId = "order-id";
inline constexpr std::string_view kDirection = "direction";
inline constexpr std::string_view kNullOrder = "null-order";

// Snapshots and refs (SnapshotParser, SnapshotRefParser)
inline constexpr std::string_view kSequenceNumber = "sequence-number";
inline constexpr std::string_view kSnapshotId = "snapshot-id";
inline constexpr std::string_view kParentSnapshotId = "parent-snapshot-id";
inline constexpr std::string_view kTimestampMs = "timestamp-ms";
inline constexpr std::string_view kSummary = "summary";
inline constexpr std::string_view kOperation = "operation";
inline constexpr std::string_view kOverwrite = "overwrite";
inline constexpr std::string_view kManifestList = "manifest-list";
inline constexpr std::string_view kManifests = "manifests";
inline constexpr std::string_view kFirstRowId = "first-row-id";
inline constexpr std::string_view kAddedRows = "added-rows";
// The same spelling as a map's `key-id`, but an encryption key's id (a string).
inline constexpr std::string_view kKeyIdField = "key-id";
inline constexpr std::string_view kMinSnapshotsToKeep = "min-snapshots-to-keep";
inline constexpr std::string_view kMaxSnapshotAgeMs = "max-snapshot-age-ms";
inline constexpr std::string_view kMaxRefAgeMs = "max-ref-age-ms";

// Statistics and encryption keys (StatisticsFileParser, EncryptedKeyParser)
inline constexpr std::string_view kStatisticsPath = "statistics-path";
inline constexpr std::string_view kFileSizeInBytes = "file-size-in-bytes";
inline constexpr std::string_view kFileFooterSizeInBytes = "file-footer-size-in-bytes";
inline constexpr std::string_view kKeyMetadata = "key-metadata";
inline constexpr std::string_view kBlobMetadata = "blob-metadata";
inline constexpr std::string_view kProperties = "properties";
inline constexpr std::string_view kEncryptedKeyMetadata = "encrypted-key-metadata";
inline constexpr std::string_view kEncryptedById = "encrypted-by-id";

// Table metadata (TableMetadataParser)
inline constexpr std::string_view kFormatVersion = "format-version";
inline constexpr std::string_view kTableUuid = "table-uuid";
inline constexpr std::string_view kLocation = "location";
inline constexpr std::string_view kLastSequenceNumber = "last-sequence-number";
inline constexpr std::string_view kLastUpdatedMs = "last-updated-ms";
inline constexpr std::string_view kLastColumnId = "last-column-id";
inline constexpr std::string_view kSchema = "schema";
inline constexpr std::string_view kSchemas = "schemas";
inline constexpr std::string_view kCurrentSchemaId = "current-schema-id";
inline constexpr std::string_view kPartitionSpec = "partition-spec";
inline constexpr std::string_view kPartitionSpecs = "partition-specs";
inline constexpr std::string_view kDefaultSpecId = "default-spec-id";
inline constexpr std::string_view kLastPartitionId = "last-partition-id";
inline constexpr std::string_view kDefaultSortOrderId = "default-sort-order-id";
inline constexpr std::string_view kSortOrders = "sort-orders";
inline constexpr std::string_view kCurrentSnapshotId = "current-snapshot-id";
inline constexpr std::string_view kNextRowId = "next-row-id";
inline constexpr std::string_view kEncryptionKeys = "encryption-keys";
inline constexpr std::string_view kRefs = "refs";
inline constexpr std::string_view kSnapshots = "snapshots";
inline constexpr std::string_view kStatistics = "statistics";
inline constexpr std::string_view kPartitionStatistics = "partition-statistics";
inline constexpr std::string_view kSnapshotLog = "snapshot-log";
inline constexpr std::string_view kMetadataLog = "metadata-log";
inline constexpr std::string_view kMetadataFile = "metadata-file";

}  // namespace cairn::iceberg::json_internal
