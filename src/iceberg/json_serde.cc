#include "iceberg/json_serde.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <memory>
#include <utility>

#include <boost/json.hpp>
#include <fmt/format.h>

#include "common/macros.h"
#include "iceberg/json_util_internal.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): private helpers

// Types and schemas (SchemaParser)
constexpr std::string_view kType = "type";
constexpr std::string_view kStruct = "struct";
constexpr std::string_view kList = "list";
constexpr std::string_view kMap = "map";
constexpr std::string_view kFields = "fields";
constexpr std::string_view kElement = "element";
constexpr std::string_view kKey = "key";
constexpr std::string_view kValue = "value";
constexpr std::string_view kDoc = "doc";
constexpr std::string_view kName = "name";
constexpr std::string_view kId = "id";
constexpr std::string_view kInitialDefault = "initial-default";
constexpr std::string_view kWriteDefault = "write-default";
constexpr std::string_view kElementId = "element-id";
constexpr std::string_view kKeyId = "key-id";
constexpr std::string_view kValueId = "value-id";
constexpr std::string_view kRequired = "required";
constexpr std::string_view kElementRequired = "element-required";
constexpr std::string_view kValueRequired = "value-required";
constexpr std::string_view kSchemaId = "schema-id";
constexpr std::string_view kIdentifierFieldIds = "identifier-field-ids";

// Partition specs and sort orders (PartitionSpecParser, SortOrderParser)
constexpr std::string_view kSpecId = "spec-id";
constexpr std::string_view kSourceId = "source-id";
constexpr std::string_view kSourceIds = "source-ids";
constexpr std::string_view kFieldId = "field-id";
constexpr std::string_view kTransform = "transform";
constexpr std::string_view kOrderId = "order-id";
constexpr std::string_view kDirection = "direction";
constexpr std::string_view kNullOrder = "null-order";

// Snapshots and refs (SnapshotParser, SnapshotRefParser)
constexpr std::string_view kSequenceNumber = "sequence-number";
constexpr std::string_view kSnapshotId = "snapshot-id";
constexpr std::string_view kParentSnapshotId = "parent-snapshot-id";
constexpr std::string_view kTimestampMs = "timestamp-ms";
constexpr std::string_view kSummary = "summary";
constexpr std::string_view kOperation = "operation";
constexpr std::string_view kOverwrite = "overwrite";
constexpr std::string_view kManifestList = "manifest-list";
constexpr std::string_view kManifests = "manifests";
constexpr std::string_view kFirstRowId = "first-row-id";
constexpr std::string_view kAddedRows = "added-rows";
constexpr std::string_view kKeyIdField = "key-id";
constexpr std::string_view kMinSnapshotsToKeep = "min-snapshots-to-keep";
constexpr std::string_view kMaxSnapshotAgeMs = "max-snapshot-age-ms";
constexpr std::string_view kMaxRefAgeMs = "max-ref-age-ms";

// Statistics and encryption keys (StatisticsFileParser, EncryptedKeyParser)
constexpr std::string_view kStatisticsPath = "statistics-path";
constexpr std::string_view kFileSizeInBytes = "file-size-in-bytes";
constexpr std::string_view kFileFooterSizeInBytes = "file-footer-size-in-bytes";
constexpr std::string_view kKeyMetadata = "key-metadata";
constexpr std::string_view kBlobMetadata = "blob-metadata";
constexpr std::string_view kProperties = "properties";
constexpr std::string_view kEncryptedKeyMetadata = "encrypted-key-metadata";
constexpr std::string_view kEncryptedById = "encrypted-by-id";

// Table metadata (TableMetadataParser)
constexpr std::string_view kFormatVersion = "format-version";
constexpr std::string_view kTableUuid = "table-uuid";
constexpr std::string_view kLocation = "location";
constexpr std::string_view kLastSequenceNumber = "last-sequence-number";
constexpr std::string_view kLastUpdatedMs = "last-updated-ms";
constexpr std::string_view kLastColumnId = "last-column-id";
constexpr std::string_view kSchema = "schema";
constexpr std::string_view kSchemas = "schemas";
constexpr std::string_view kCurrentSchemaId = "current-schema-id";
constexpr std::string_view kPartitionSpec = "partition-spec";
constexpr std::string_view kPartitionSpecs = "partition-specs";
constexpr std::string_view kDefaultSpecId = "default-spec-id";
constexpr std::string_view kLastPartitionId = "last-partition-id";
constexpr std::string_view kDefaultSortOrderId = "default-sort-order-id";
constexpr std::string_view kSortOrders = "sort-orders";
constexpr std::string_view kCurrentSnapshotId = "current-snapshot-id";
constexpr std::string_view kNextRowId = "next-row-id";
constexpr std::string_view kEncryptionKeys = "encryption-keys";
constexpr std::string_view kRefs = "refs";
constexpr std::string_view kSnapshots = "snapshots";
constexpr std::string_view kStatistics = "statistics";
constexpr std::string_view kPartitionStatistics = "partition-statistics";
constexpr std::string_view kSnapshotLog = "snapshot-log";
constexpr std::string_view kMetadataLog = "metadata-log";
constexpr std::string_view kMetadataFile = "metadata-file";

/// Opaque default text back to JSON; text that is not JSON (only possible for values
/// built in code) is written as a JSON string rather than dropped.
boost::json::value DefaultToJson(const std::string& text) {
  boost::json::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) return boost::json::value(text);
  return value;
}

std::optional<std::string> DefaultFromJson(const boost::json::object& obj,
                                           std::string_view key) {
  const auto* value = obj.if_contains(key);
  if (value == nullptr) return std::nullopt;
  return boost::json::serialize(*value);
}

// ---- types ----

Result<Type> StructTypeFromJson(const boost::json::object& obj, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(auto parsed,
                        ReadList<NestedField>(obj, kFields, path, NestedFieldFromJson));
  return Type::Struct(std::move(parsed));
}

Result<Type> ListTypeFromJson(const boost::json::object& obj, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(int32_t element_id, ReadInt32(obj, kElementId, path));
  const auto* element = FindNonNull(obj, kElement);
  if (element == nullptr) return MissingField(FieldPath(path, kElement));
  CAIRN_ASSIGN_OR_RAISE(Type element_type,
                        TypeFromJson(*element, FieldPath(path, kElement)));
  CAIRN_ASSIGN_OR_RAISE(bool element_required, ReadBool(obj, kElementRequired, path));
  return Type::List(element_id, element_required, std::move(element_type));
}

Result<Type> MapTypeFromJson(const boost::json::object& obj, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(int32_t key_id, ReadInt32(obj, kKeyId, path));
  const auto* key = FindNonNull(obj, kKey);
  if (key == nullptr) return MissingField(FieldPath(path, kKey));
  CAIRN_ASSIGN_OR_RAISE(Type key_type, TypeFromJson(*key, FieldPath(path, kKey)));
  CAIRN_ASSIGN_OR_RAISE(int32_t value_id, ReadInt32(obj, kValueId, path));
  const auto* value = FindNonNull(obj, kValue);
  if (value == nullptr) return MissingField(FieldPath(path, kValue));
  CAIRN_ASSIGN_OR_RAISE(Type value_type, TypeFromJson(*value, FieldPath(path, kValue)));
  CAIRN_ASSIGN_OR_RAISE(bool value_required, ReadBool(obj, kValueRequired, path));
  return Type::Map(key_id, std::move(key_type), value_id, value_required,
                   std::move(value_type));
}

boost::json::object StructToJson(const std::vector<NestedField>& fields) {
  boost::json::object obj;
  obj[kType] = kStruct;
  obj[kFields] = ListToJson(fields);
  return obj;
}

// ---- partition fields ----

/// A partition field whose `field-id` may be missing (v1).
struct ParsedPartitionField {
  PartitionField field;
  bool has_field_id = false;
};

/// `source-id` / `source-ids` of a partition or sort field.
Status ReadSourceIds(const boost::json::object& obj, std::string_view path,
                     int32_t& source_id, std::vector<int32_t>& source_ids) {
  CAIRN_ASSIGN_OR_RAISE(source_ids, ReadOptionalInt32List(obj, kSourceIds, path));
  if (obj.if_contains(kSourceIds) != nullptr && !obj.at(kSourceIds).is_null() &&
      source_ids.empty()) {
    return InvalidField(FieldPath(path, kSourceIds), "must not be empty");
  }
  CAIRN_ASSIGN_OR_RAISE(auto explicit_id, ReadOptionalInt32(obj, kSourceId, path));
  if (explicit_id) {
    source_id = *explicit_id;
  } else if (!source_ids.empty()) {
    source_id = source_ids.front();
  } else {
    return MissingField(FieldPath(path, kSourceId));
  }
  // Single-source fields are written with `source-id` only.
  if (source_ids.size() == 1) source_ids.clear();
  return Ok();
}

void WriteSourceIds(boost::json::object& obj, int32_t source_id,
                    const std::vector<int32_t>& source_ids) {
  obj[kSourceId] = source_id;
  if (source_ids.size() > 1) obj[kSourceIds] = Int32ListToJson(source_ids);
}

Result<Transform> ReadTransform(const boost::json::object& obj, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(std::string text, ReadString(obj, kTransform, path));
  auto transform = ParseTransform(text);
  if (!transform) return AtPath(transform.error(), FieldPath(path, kTransform));
  return transform;
}

Result<ParsedPartitionField> ParsePartitionField(const boost::json::value& json,
                                                 std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  ParsedPartitionField out;
  CAIRN_ASSIGN_OR_RAISE(out.field.name, ReadString(*obj, kName, path));
  CAIRN_ASSIGN_OR_RAISE(out.field.transform, ReadTransform(*obj, path));
  CAIRN_RETURN_IF_ERROR(
      ReadSourceIds(*obj, path, out.field.source_id, out.field.source_ids));
  CAIRN_ASSIGN_OR_RAISE(auto field_id, ReadOptionalInt32(*obj, kFieldId, path));
  if (field_id) {
    out.field.field_id = *field_id;
    out.has_field_id = true;
  }
  return out;
}

Result<std::vector<PartitionField>> PartitionFieldListFromJson(
    const boost::json::value& json, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* array, AsArray(json, path));
  CAIRN_ASSIGN_OR_RAISE(
      auto parsed, ParseList<ParsedPartitionField>(*array, path, ParsePartitionField));
  size_t with_ids = static_cast<size_t>(
      std::count_if(parsed.begin(), parsed.end(),
                    [](const ParsedPartitionField& p) { return p.has_field_id; }));
  if (with_ids != 0 && with_ids != parsed.size()) {
    return InvalidField(
        path, "Cannot parse spec with missing field IDs: {} missing of {} fields",
        parsed.size() - with_ids, parsed.size());
  }
  std::vector<PartitionField> fields;
  int32_t next_id = kPartitionDataIdStart;
  for (ParsedPartitionField& p : parsed) {
    // v1 specs without ids: the reference implementation numbered fields from 1000.
    if (!p.has_field_id) p.field.field_id = next_id++;
    fields.push_back(std::move(p.field));
  }
  return fields;
}

}  // namespace

// ---- types and schemas ----

boost::json::value ToJson(const Type& type) {
  switch (type.id) {
    case TypeId::kStruct:
      return StructToJson(type.fields);
    case TypeId::kList: {
      boost::json::object obj;
      obj[kType] = kList;
      if (type.fields.size() == 1) {
        const NestedField& element = type.element();
        obj[kElementId] = element.id;
        obj[kElement] = ToJson(element.type);
        obj[kElementRequired] = element.required;
      }
      return obj;
    }
    case TypeId::kMap: {
      boost::json::object obj;
      obj[kType] = kMap;
      if (type.fields.size() == 2) {
        obj[kKeyId] = type.key().id;
        obj[kKey] = ToJson(type.key().type);
        obj[kValueId] = type.value().id;
        obj[kValue] = ToJson(type.value().type);
        obj[kValueRequired] = type.value().required;
      }
      return obj;
    }
    default:
      return boost::json::value(ToString(type));
  }
}

boost::json::value ToJson(const NestedField& field) {
  boost::json::object obj;
  obj[kId] = field.id;
  obj[kName] = field.name;
  obj[kRequired] = field.required;
  obj[kType] = ToJson(field.type);
  if (field.doc) obj[kDoc] = *field.doc;
  if (field.initial_default) obj[kInitialDefault] = DefaultToJson(*field.initial_default);
  if (field.write_default) obj[kWriteDefault] = DefaultToJson(*field.write_default);
  return obj;
}

boost::json::value ToJson(const Schema& schema) {
  boost::json::object obj;
  obj[kType] = kStruct;
  obj[kSchemaId] = schema.schema_id;
  if (!schema.identifier_field_ids.empty()) {
    obj[kIdentifierFieldIds] = Int32ListToJson(schema.identifier_field_ids);
  }
  obj[kFields] = ListToJson(schema.fields);
  return obj;
}

Result<Type> TypeFromJson(const boost::json::value& json, std::string_view path) {
  if (const auto* text = json.if_string()) {
    auto type = ParsePrimitiveType(std::string_view(*text));
    if (!type) return AtPath(type.error(), path);
    return type;
  }
  if (const auto* obj = json.if_object()) {
    CAIRN_ASSIGN_OR_RAISE(std::string kind, ReadString(*obj, kType, path));
    if (kind == kStruct) return StructTypeFromJson(*obj, path);
    if (kind == kList) return ListTypeFromJson(*obj, path);
    if (kind == kMap) return MapTypeFromJson(*obj, path);
    return InvalidField(FieldPath(path, kType), "unknown type '{}'", kind);
  }
  return InvalidField(path, "expected a type string or object, got {}", KindName(json));
}

Result<NestedField> NestedFieldFromJson(const boost::json::value& json,
                                        std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  NestedField field;
  CAIRN_ASSIGN_OR_RAISE(field.id, ReadInt32(*obj, kId, path));
  CAIRN_ASSIGN_OR_RAISE(field.name, ReadString(*obj, kName, path));
  const auto* type = FindNonNull(*obj, kType);
  if (type == nullptr) return MissingField(FieldPath(path, kType));
  CAIRN_ASSIGN_OR_RAISE(field.type, TypeFromJson(*type, FieldPath(path, kType)));
  CAIRN_ASSIGN_OR_RAISE(field.required, ReadBool(*obj, kRequired, path));
  CAIRN_ASSIGN_OR_RAISE(field.doc, ReadOptionalString(*obj, kDoc, path));
  field.initial_default = DefaultFromJson(*obj, kInitialDefault);
  field.write_default = DefaultFromJson(*obj, kWriteDefault);
  return field;
}

Result<Schema> SchemaFromJson(const boost::json::value& json, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(std::string kind, ReadString(*obj, kType, path));
  if (kind != kStruct) {
    return InvalidField(FieldPath(path, kType),
                        "Cannot create schema, not a struct type: {}", kind);
  }
  Schema schema;
  CAIRN_ASSIGN_OR_RAISE(auto schema_id, ReadOptionalInt32(*obj, kSchemaId, path));
  schema.schema_id = schema_id.value_or(Schema::kInitialSchemaId);
  CAIRN_ASSIGN_OR_RAISE(schema.identifier_field_ids,
                        ReadOptionalInt32List(*obj, kIdentifierFieldIds, path));
  CAIRN_ASSIGN_OR_RAISE(Type type, StructTypeFromJson(*obj, path));
  schema.fields = std::move(type.fields);
  CAIRN_RETURN_IF_ERROR(AtPath(schema.Validate(), path));
  return schema;
}

// ---- partition specs ----

boost::json::value ToJson(const PartitionField& field) {
  boost::json::object obj;
  obj[kName] = field.name;
  obj[kTransform] = ToString(field.transform);
  WriteSourceIds(obj, field.source_id, field.source_ids);
  obj[kFieldId] = field.field_id;
  return obj;
}

boost::json::value PartitionFieldsToJson(const PartitionSpec& spec) {
  return ListToJson(spec.fields);
}

boost::json::value ToJson(const PartitionSpec& spec) {
  boost::json::object obj;
  obj[kSpecId] = spec.spec_id;
  obj[kFields] = PartitionFieldsToJson(spec);
  return obj;
}

Result<PartitionField> PartitionFieldFromJson(const boost::json::value& json,
                                              std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(ParsedPartitionField parsed, ParsePartitionField(json, path));
  if (!parsed.has_field_id) return MissingField(FieldPath(path, kFieldId));
  return std::move(parsed.field);
}

Result<PartitionSpec> PartitionFieldsFromJson(const boost::json::value& json,
                                              int32_t spec_id, std::string_view path) {
  PartitionSpec spec;
  spec.spec_id = spec_id;
  CAIRN_ASSIGN_OR_RAISE(spec.fields, PartitionFieldListFromJson(json, path));
  CAIRN_RETURN_IF_ERROR(AtPath(spec.Validate(), path));
  return spec;
}

Result<PartitionSpec> PartitionSpecFromJson(const boost::json::value& json,
                                            std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(int32_t spec_id, ReadInt32(*obj, kSpecId, path));
  const auto* fields = FindNonNull(*obj, kFields);
  if (fields == nullptr) return MissingField(FieldPath(path, kFields));
  return PartitionFieldsFromJson(*fields, spec_id, FieldPath(path, kFields));
}

// ---- sort orders ----

boost::json::value ToJson(const SortField& field) {
  boost::json::object obj;
  obj[kTransform] = ToString(field.transform);
  WriteSourceIds(obj, field.source_id, field.source_ids);
  obj[kDirection] = ToString(field.direction);
  obj[kNullOrder] = ToString(field.null_order);
  return obj;
}

boost::json::value ToJson(const SortOrder& order) {
  boost::json::object obj;
  obj[kOrderId] = order.order_id;
  obj[kFields] = ListToJson(order.fields);
  return obj;
}

Result<SortField> SortFieldFromJson(const boost::json::value& json,
                                    std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  SortField field;
  CAIRN_ASSIGN_OR_RAISE(field.transform, ReadTransform(*obj, path));
  CAIRN_RETURN_IF_ERROR(ReadSourceIds(*obj, path, field.source_id, field.source_ids));
  CAIRN_ASSIGN_OR_RAISE(std::string direction, ReadString(*obj, kDirection, path));
  auto parsed_direction = ParseSortDirection(direction);
  if (!parsed_direction) {
    return AtPath(parsed_direction.error(), FieldPath(path, kDirection));
  }
  field.direction = *parsed_direction;
  CAIRN_ASSIGN_OR_RAISE(std::string null_order, ReadString(*obj, kNullOrder, path));
  auto parsed_null_order = ParseNullOrder(null_order);
  if (!parsed_null_order) {
    return AtPath(parsed_null_order.error(), FieldPath(path, kNullOrder));
  }
  field.null_order = *parsed_null_order;
  return field;
}

Result<SortOrder> SortOrderFromJson(const boost::json::value& json,
                                    std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  SortOrder order;
  CAIRN_ASSIGN_OR_RAISE(order.order_id, ReadInt32(*obj, kOrderId, path));
  CAIRN_ASSIGN_OR_RAISE(order.fields,
                        ReadList<SortField>(*obj, kFields, path, SortFieldFromJson));
  CAIRN_RETURN_IF_ERROR(AtPath(order.Validate(), path));
  return order;
}

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

// ---- table metadata ----

namespace {

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

void AppendMetadataLog(std::string& out, const std::vector<MetadataLogEntry>& log) {
  AppendList(out, kMetadataLog, log, [&](const MetadataLogEntry& entry) {
    fmt::format_to(std::back_inserter(out), R"({{"{}":{},"{}":{}}})", kTimestampMs,
                   entry.timestamp_ms, kMetadataFile,
                   boost::json::serialize(boost::json::string_view(entry.metadata_file)));
  });
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

Result<TableMetadata> TableMetadataFromJson(const boost::json::value& json,
                                            std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  TableMetadata md;
  CAIRN_ASSIGN_OR_RAISE(md.format_version, ReadInt32(*obj, kFormatVersion, path));
  if (md.format_version < 1 ||
      md.format_version > TableMetadata::kSupportedFormatVersion) {
    return InvalidField(FieldPath(path, kFormatVersion),
                        "Cannot read unsupported version {} (supported: 1 to {})",
                        md.format_version, TableMetadata::kSupportedFormatVersion);
  }
  const int version = md.format_version;
  CAIRN_ASSIGN_OR_RAISE(auto uuid, ReadOptionalString(*obj, kTableUuid, path));
  md.table_uuid = uuid.value_or("");
  CAIRN_ASSIGN_OR_RAISE(md.location, ReadString(*obj, kLocation, path));
  if (version > 1) {
    CAIRN_ASSIGN_OR_RAISE(md.last_sequence_number,
                          ReadInt64(*obj, kLastSequenceNumber, path));
  }
  CAIRN_ASSIGN_OR_RAISE(md.last_column_id, ReadInt32(*obj, kLastColumnId, path));

  // Schemas: the list plus current id, or (v1 only) the single `schema`.
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* schemas,
                        ReadOptionalArray(*obj, kSchemas, path));
  if (schemas != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(md.current_schema_id, ReadInt32(*obj, kCurrentSchemaId, path));
    CAIRN_ASSIGN_OR_RAISE(
        md.schemas,
        ParseList<Schema>(*schemas, FieldPath(path, kSchemas), SchemaFromJson));
    if (md.CurrentSchema() == nullptr) {
      return InvalidField(FieldPath(path, kCurrentSchemaId),
                          "Cannot find schema with current-schema-id={} from schemas",
                          md.current_schema_id);
    }
  } else {
    if (version != 1) {
      return InvalidField(FieldPath(path, kSchemas), "schemas must exist in format v{}",
                          version);
    }
    const auto* schema = FindNonNull(*obj, kSchema);
    if (schema == nullptr) return MissingField(FieldPath(path, kSchema));
    CAIRN_ASSIGN_OR_RAISE(Schema parsed,
                          SchemaFromJson(*schema, FieldPath(path, kSchema)));
    md.current_schema_id = parsed.schema_id;
    md.schemas.push_back(std::move(parsed));
  }

  // Partition specs: the list plus default id, or (v1 only) the bare `partition-spec`.
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* specs,
                        ReadOptionalArray(*obj, kPartitionSpecs, path));
  if (specs != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(md.default_spec_id, ReadInt32(*obj, kDefaultSpecId, path));
    CAIRN_ASSIGN_OR_RAISE(
        md.partition_specs,
        ParseList<PartitionSpec>(*specs, FieldPath(path, kPartitionSpecs),
                                 [](const boost::json::value& v, std::string_view p) {
                                   return PartitionSpecFromJson(v, p);
                                 }));
  } else {
    if (version != 1) {
      return InvalidField(FieldPath(path, kPartitionSpecs),
                          "partition-specs must exist in format v{}", version);
    }
    const auto* fields = FindNonNull(*obj, kPartitionSpec);
    if (fields == nullptr) return MissingField(FieldPath(path, kPartitionSpec));
    md.default_spec_id = PartitionSpec::kInitialSpecId;
    CAIRN_ASSIGN_OR_RAISE(PartitionSpec spec,
                          PartitionFieldsFromJson(*fields, PartitionSpec::kInitialSpecId,
                                                  FieldPath(path, kPartitionSpec)));
    md.partition_specs.push_back(std::move(spec));
  }

  CAIRN_ASSIGN_OR_RAISE(auto last_partition_id,
                        ReadOptionalInt32(*obj, kLastPartitionId, path));
  if (last_partition_id) {
    md.last_partition_id = *last_partition_id;
  } else {
    if (version != 1) return MissingField(FieldPath(path, kLastPartitionId));
    md.last_partition_id = kUnpartitionedLastAssignedId;
    for (const PartitionSpec& spec : md.partition_specs) {
      md.last_partition_id = std::max(md.last_partition_id, spec.LastAssignedFieldId());
    }
  }

  // Sort orders: required in v2+; v1 files without them are unsorted.
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* orders,
                        ReadOptionalArray(*obj, kSortOrders, path));
  if (orders != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(md.default_sort_order_id,
                          ReadInt32(*obj, kDefaultSortOrderId, path));
    CAIRN_ASSIGN_OR_RAISE(
        md.sort_orders,
        ParseList<SortOrder>(*orders, FieldPath(path, kSortOrders),
                             [](const boost::json::value& v, std::string_view p) {
                               return SortOrderFromJson(v, p);
                             }));
  } else {
    if (version != 1) {
      return InvalidField(FieldPath(path, kSortOrders),
                          "sort-orders must exist in format v{}", version);
    }
    md.sort_orders.push_back(SortOrder::Unsorted());
    md.default_sort_order_id = SortOrder::kUnsortedOrderId;
  }

  CAIRN_ASSIGN_OR_RAISE(md.properties, ReadOptionalStringMap(*obj, kProperties, path));

  // Missing, null and -1 (any negative id) all mean "no current snapshot".
  CAIRN_ASSIGN_OR_RAISE(auto current_snapshot_id,
                        ReadOptionalInt64(*obj, kCurrentSnapshotId, path));
  if (current_snapshot_id && *current_snapshot_id >= 0) {
    md.current_snapshot_id = current_snapshot_id;
  }
  CAIRN_ASSIGN_OR_RAISE(md.last_updated_ms, ReadInt64(*obj, kLastUpdatedMs, path));

  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* refs,
                        ReadOptionalObject(*obj, kRefs, path));
  if (refs != nullptr) {
    std::string refs_path = FieldPath(path, kRefs);
    for (const auto& member : *refs) {
      std::string name(member.key());
      CAIRN_ASSIGN_OR_RAISE(
          SnapshotRef ref,
          SnapshotRefFromJson(member.value(), FieldPath(refs_path, name)));
      md.refs.emplace(std::move(name), ref);
    }
  } else if (md.current_snapshot_id) {
    // Files written before refs existed: the current snapshot is the main branch.
    md.refs.emplace(SnapshotRef::kMainBranch,
                    SnapshotRef::Branch(*md.current_snapshot_id));
  }

  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* snapshots,
                        ReadOptionalArray(*obj, kSnapshots, path));
  if (snapshots != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(
        md.snapshots,
        ParseList<Snapshot>(*snapshots, FieldPath(path, kSnapshots),
                            [](const boost::json::value& v, std::string_view p) {
                              return SnapshotFromJson(v, p);
                            }));
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* statistics,
                        ReadOptionalArray(*obj, kStatistics, path));
  if (statistics != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(
        md.statistics,
        ParseList<StatisticsFile>(*statistics, FieldPath(path, kStatistics),
                                  [](const boost::json::value& v, std::string_view p) {
                                    return StatisticsFileFromJson(v, p);
                                  }));
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* partition_statistics,
                        ReadOptionalArray(*obj, kPartitionStatistics, path));
  if (partition_statistics != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(
        md.partition_statistics,
        ParseList<PartitionStatisticsFile>(
            *partition_statistics, FieldPath(path, kPartitionStatistics),
            [](const boost::json::value& v, std::string_view p) {
              return PartitionStatisticsFileFromJson(v, p);
            }));
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* snapshot_log,
                        ReadOptionalArray(*obj, kSnapshotLog, path));
  if (snapshot_log != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(
        md.snapshot_log,
        ParseList<SnapshotLogEntry>(*snapshot_log, FieldPath(path, kSnapshotLog),
                                    [](const boost::json::value& v, std::string_view p) {
                                      return SnapshotLogEntryFromJson(v, p);
                                    }));
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* metadata_log,
                        ReadOptionalArray(*obj, kMetadataLog, path));
  if (metadata_log != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(
        md.metadata_log,
        ParseList<MetadataLogEntry>(*metadata_log, FieldPath(path, kMetadataLog),
                                    [](const boost::json::value& v, std::string_view p) {
                                      return MetadataLogEntryFromJson(v, p);
                                    }));
  }

  if (version >= TableMetadata::kMinRowLineageVersion) {
    CAIRN_ASSIGN_OR_RAISE(md.next_row_id, ReadInt64(*obj, kNextRowId, path));
  }
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* keys,
                        ReadOptionalArray(*obj, kEncryptionKeys, path));
  if (keys != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(
        md.encryption_keys,
        ParseList<EncryptedKey>(*keys, FieldPath(path, kEncryptionKeys),
                                [](const boost::json::value& v, std::string_view p) {
                                  return EncryptedKeyFromJson(v, p);
                                }));
  }

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
  AppendMetadataLog(out, metadata.metadata_log);
  out.push_back('}');
  return encoded;
}

Result<TableMetadata> TableMetadataFromJsonString(std::string_view text) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseMetadataText(text, "table metadata"));
  return TableMetadataFromJson(json);
}

}  // namespace cairn::iceberg
