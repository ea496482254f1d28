#pragma once

/// \file
/// \brief JSON forms of the Iceberg metadata model (table spec Appendix C), as free
/// functions over Boost.JSON values.
///
/// Writers emit keys in the order Java's parsers (`TableMetadataParser`, `SchemaParser`,
/// ...) do and omit the fields Java omits. Readers follow Java's rules: v1 files with
/// only `schema` / `partition-spec` get `schemas` / `partition-specs` synthesized,
/// missing `refs` with a current snapshot get a `main` branch, and so on.
///
/// Every `XFromJson(json, path)` names the offending field in its error as
/// `<path>.<key>[<index>]...`; `path` is the location of `json` in the enclosing document
/// (empty for the root), e.g. `Invalid field 'schemas[0].fields[2].type': unknown type
/// 'foo'`. JSON that is malformed, of the wrong type or missing a field is `kBadRequest`;
/// a value the model's `Validate()` (or a transform or type string) rejects keeps that
/// check's kind (`kInvalidArgument`, `kValidationFailed`), as the reference's parsers
/// throw its builders' exceptions. Integers are read without going through double, so
/// 64-bit ids are exact.

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "common/result.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "iceberg/snapshot.h"
#include "iceberg/sort_order.h"
#include "iceberg/table_metadata.h"
#include "iceberg/type.h"

namespace cairn::iceberg {

// ---- Types and schemas ----

/// \brief A type: a JSON string for primitives (`"decimal(9, 2)"`), an object for
/// `struct` / `list` / `map`.
boost::json::value ToJson(const Type& type);
/// \brief A struct field: `{id, name, required, type, doc?, initial-default?,
/// write-default?}`.
boost::json::value ToJson(const NestedField& field);
/// \brief `{type: "struct", schema-id, identifier-field-ids? (if non-empty), fields}`.
boost::json::value ToJson(const Schema& schema);

Result<Type> TypeFromJson(const boost::json::value& json, std::string_view path = {});
Result<NestedField> NestedFieldFromJson(const boost::json::value& json,
                                        std::string_view path = {});
/// \brief Reads a schema (`schema-id` defaults to 0) and checks it with
/// `Schema::Validate`.
Result<Schema> SchemaFromJson(const boost::json::value& json, std::string_view path = {});

// ---- Partition specs and sort orders ----

/// \brief `{name, transform, source-id, source-ids? (multi-argument only), field-id}`.
boost::json::value ToJson(const PartitionField& field);
/// \brief `{spec-id, fields}`.
boost::json::value ToJson(const PartitionSpec& spec);
/// \brief Only the fields array: the v1 `partition-spec` form.
boost::json::value PartitionFieldsToJson(const PartitionSpec& spec);

Result<PartitionField> PartitionFieldFromJson(const boost::json::value& json,
                                              std::string_view path = {});
/// \brief Reads `{spec-id, fields}`. Fields without `field-id` get 1000, 1001, ... (v1);
/// mixing fields with and without ids is an error. Errors: also `kInvalidArgument` for
/// `bucket[N]`/`truncate[W]` with N or W below 1, and for empty or repeated names.
Result<PartitionSpec> PartitionSpecFromJson(const boost::json::value& json,
                                            std::string_view path = {});
/// \brief Reads the v1 fields-array form into a spec with id `spec_id`.
Result<PartitionSpec> PartitionFieldsFromJson(const boost::json::value& json,
                                              int32_t spec_id,
                                              std::string_view path = {});

/// \brief `{transform, source-id, source-ids? (multi-argument only), direction,
/// null-order}`.
boost::json::value ToJson(const SortField& field);
/// \brief `{order-id, fields}`.
boost::json::value ToJson(const SortOrder& order);

Result<SortField> SortFieldFromJson(const boost::json::value& json,
                                    std::string_view path = {});
/// \brief Reads `{order-id, fields}` (`order-id` required). Errors: also
/// `kInvalidArgument` when the id does not match the fields (`SortOrder::Validate`).
Result<SortOrder> SortOrderFromJson(const boost::json::value& json,
                                    std::string_view path = {});

// ---- Snapshots and their satellites ----

/// \brief `{sequence-number? (if > 0), snapshot-id, parent-snapshot-id?, timestamp-ms,
/// summary? (operation first), manifest-list | manifests, schema-id?, first-row-id?,
/// added-rows?, key-id?}`.
boost::json::value ToJson(const Snapshot& snapshot);
/// \brief `{snapshot-id, type, min-snapshots-to-keep?, max-snapshot-age-ms?,
/// max-ref-age-ms?}`.
boost::json::value ToJson(const SnapshotRef& ref);
boost::json::value ToJson(const BlobMetadata& blob);
boost::json::value ToJson(const StatisticsFile& file);
boost::json::value ToJson(const PartitionStatisticsFile& file);
boost::json::value ToJson(const EncryptedKey& key);
boost::json::value ToJson(const SnapshotLogEntry& entry);
boost::json::value ToJson(const MetadataLogEntry& entry);

/// \brief Reads a snapshot and checks it with `Snapshot::Validate`.
Result<Snapshot> SnapshotFromJson(const boost::json::value& json,
                                  std::string_view path = {});
/// \brief Reads a ref and checks it with `SnapshotRef::Validate`.
Result<SnapshotRef> SnapshotRefFromJson(const boost::json::value& json,
                                        std::string_view path = {});
Result<BlobMetadata> BlobMetadataFromJson(const boost::json::value& json,
                                          std::string_view path = {});
Result<StatisticsFile> StatisticsFileFromJson(const boost::json::value& json,
                                              std::string_view path = {});
Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(
    const boost::json::value& json, std::string_view path = {});
Result<EncryptedKey> EncryptedKeyFromJson(const boost::json::value& json,
                                          std::string_view path = {});
Result<SnapshotLogEntry> SnapshotLogEntryFromJson(const boost::json::value& json,
                                                  std::string_view path = {});
Result<MetadataLogEntry> MetadataLogEntryFromJson(const boost::json::value& json,
                                                  std::string_view path = {});

// ---- Table metadata ----

/// \brief The metadata object in Java `TableMetadataParser` key order. v1 also gets
/// `schema` (current schema) and `partition-spec` (default spec fields);
/// `last-sequence-number` is written for v2+, `next-row-id` for v3+, `encryption-keys`
/// when non-empty; no current snapshot is `-1` in v1/v2 and `null` in v3.
boost::json::value ToJson(const TableMetadata& metadata);

/// \brief Reads table metadata like Java `TableMetadataParser.fromJson` and checks it
/// with `TableMetadata::Validate`. Errors: `kBadRequest` (unsupported version, missing or
/// invalid fields), or the kind of the broken invariant (`TableMetadata::Validate`).
Result<TableMetadata> TableMetadataFromJson(const boost::json::value& json,
                                            std::string_view path = {});

/// \brief `ToJson(metadata)` as text: compact, or indented by two spaces when `pretty`.
std::string TableMetadataToJsonString(const TableMetadata& metadata, bool pretty = false);

/// \brief Compact metadata text (as `TableMetadataToJsonString`) and where the lists
/// that change little from one version to the next are in it: the inside of the
/// `snapshots`, `snapshot-log` and `metadata-log` arrays (in this order in the text), and
/// each of their items (in order; joined by `,` they make the inside).
struct EncodedTableMetadata {
  struct Span {
    size_t begin = 0;
    size_t end = 0;
  };
  std::string json;
  Span snapshots;
  std::vector<Span> snapshot_items;
  Span snapshot_log;
  std::vector<Span> snapshot_log_items;
  Span metadata_log;
  std::vector<Span> metadata_log_items;
};
EncodedTableMetadata EncodeTableMetadata(const TableMetadata& metadata);

/// \brief The compact JSON text of one snapshot, computed once per entry and shared by
/// every metadata version that holds the entry; valid as long as the entry.
const std::string& SnapshotJson(const SnapshotList::Entry& entry);

/// \brief Parses metadata file content. Errors: `kBadRequest` for malformed JSON (the
/// message does not echo the text) and everything `TableMetadataFromJson` rejects.
Result<TableMetadata> TableMetadataFromJsonString(std::string_view text);

}  // namespace cairn::iceberg
