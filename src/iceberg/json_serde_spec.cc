// Partition specs and sort orders to and from JSON (Java `PartitionSpecParser`,
// `SortOrderParser`).

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "common/macros.h"
#include "iceberg/json_keys_internal.h"
#include "iceberg/json_serde.h"
#include "iceberg/json_util_internal.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): private helpers

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

}  // namespace cairn::iceberg
