// Types, struct fields and schemas to and from JSON (Java `SchemaParser`).

#include <optional>
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
}  // namespace

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

}  // namespace cairn::iceberg
