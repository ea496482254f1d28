#include "iceberg/schema.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace cairn::iceberg {
namespace {

/// A field of the schema tree with its full dotted name and its enclosing field.
struct IndexedField {
  const NestedField* field;
  std::string name;
  const NestedField* parent;  ///< nullptr for top-level columns
};

void IndexFields(const std::vector<NestedField>& fields, const std::string& prefix,
                 const NestedField* parent, std::vector<IndexedField>& out) {
  for (const NestedField& field : fields) {
    std::string name = prefix.empty() ? field.name : prefix + "." + field.name;
    out.push_back(IndexedField{&field, name, parent});
    IndexFields(field.type.fields, name, &field, out);
  }
}

/// Pre-order list of every field in the schema (parents before children).
std::vector<IndexedField> IndexSchema(const Schema& schema) {
  std::vector<IndexedField> out;
  IndexFields(schema.fields, "", nullptr, out);
  return out;
}

/// Assigns ids in the order of Java's `AssignFreshIds` visitor.
class FreshIdAssigner {
 public:
  std::vector<NestedField> AssignStruct(const std::vector<NestedField>& fields) {
    std::vector<NestedField> out = fields;
    // A struct numbers all of its direct fields before descending into any of them.
    for (NestedField& field : out) field.id = Next(field.id);
    for (NestedField& field : out) field.type = AssignType(field.type);
    return out;
  }

  int32_t last_id() const { return next_; }
  const std::map<int32_t, int32_t>& old_to_new() const { return old_to_new_; }

 private:
  Type AssignType(const Type& type) {
    Type out = type;
    switch (type.id) {
      case TypeId::kStruct:
        out.fields = AssignStruct(type.fields);
        break;
      case TypeId::kList:
      case TypeId::kMap:
        // A list numbers its element, a map its key then its value, on entry.
        for (NestedField& child : out.fields) child.id = Next(child.id);
        for (NestedField& child : out.fields) child.type = AssignType(child.type);
        break;
      default:
        break;
    }
    return out;
  }

  int32_t Next(int32_t old_id) {
    ++next_;
    old_to_new_.emplace(old_id, next_);
    return next_;
  }

  int32_t next_ = 0;
  std::map<int32_t, int32_t> old_to_new_;
};

/// Spec "Default values": these types only allow null defaults.
bool MustDefaultToNull(TypeId id) {
  return id == TypeId::kUnknown || id == TypeId::kVariant || id == TypeId::kGeometry ||
         id == TypeId::kGeography;
}

bool IsFloatingPoint(TypeId id) { return id == TypeId::kFloat || id == TypeId::kDouble; }

}  // namespace

int32_t Schema::HighestFieldId() const {
  int32_t highest = 0;
  for (const IndexedField& entry : IndexSchema(*this)) {
    highest = std::max(highest, entry.field->id);
  }
  return highest;
}

const NestedField* Schema::FindFieldById(int32_t id) const {
  for (const IndexedField& entry : IndexSchema(*this)) {
    if (entry.field->id == id) return entry.field;
  }
  return nullptr;
}

const NestedField* Schema::FindParentById(int32_t id) const {
  for (const IndexedField& entry : IndexSchema(*this)) {
    if (entry.field->id == id) return entry.parent;
  }
  return nullptr;
}

const NestedField* Schema::FindFieldByName(std::string_view name) const {
  for (const IndexedField& entry : IndexSchema(*this)) {
    if (entry.name == name) return entry.field;
  }
  return nullptr;
}

std::optional<std::string> Schema::FindColumnName(int32_t id) const {
  for (const IndexedField& entry : IndexSchema(*this)) {
    if (entry.field->id == id) return entry.name;
  }
  return std::nullopt;
}

Status Schema::Validate() const {
  std::vector<IndexedField> index = IndexSchema(*this);
  std::map<int32_t, const IndexedField*> by_id;
  std::set<std::string_view> names;
  for (const IndexedField& entry : index) {
    if (!by_id.emplace(entry.field->id, &entry).second) {
      return InvalidArgument("Invalid schema: multiple fields for id {}",
                             entry.field->id);
    }
    if (!names.insert(entry.name).second) {
      return ValidationFailed("Invalid schema: multiple fields for name {}", entry.name);
    }
  }
  for (const IndexedField& entry : index) {
    const NestedField& field = *entry.field;
    if (field.type.id == TypeId::kUnknown && field.required) {
      return InvalidArgument("Cannot create required field with unknown type: {}",
                             entry.name);
    }
    if (MustDefaultToNull(field.type.id)) {
      for (const auto& value : {field.initial_default, field.write_default}) {
        if (value && *value != "null") {
          return InvalidArgument(
              "Invalid default for {}: {} columns must default to null: {}", entry.name,
              TypeIdName(field.type.id), *value);
        }
      }
    }
  }
  for (int32_t id : identifier_field_ids) {
    auto it = by_id.find(id);
    if (it == by_id.end()) {
      return InvalidArgument(
          "Cannot add fieldId {} as an identifier field: field does not exist", id);
    }
    const NestedField& field = *it->second->field;
    if (!field.type.IsPrimitive()) {
      return InvalidArgument(
          "Cannot add field {} as an identifier field: not a primitive type field",
          field.name);
    }
    if (!field.required) {
      return InvalidArgument(
          "Cannot add field {} as an identifier field: not a required field", field.name);
    }
    if (IsFloatingPoint(field.type.id)) {
      return InvalidArgument(
          "Cannot add field {} as an identifier field: must not be float or double field",
          field.name);
    }
    for (const NestedField* parent = it->second->parent; parent != nullptr;
         parent = by_id.at(parent->id)->parent) {
      if (parent->type.id != TypeId::kStruct) {
        return InvalidArgument(
            "Cannot add field {} as an identifier field: must not be nested in {}",
            field.name, ToString(parent->type));
      }
      if (!parent->required) {
        return InvalidArgument(
            "Cannot add field {} as an identifier field: must not be nested in an "
            "optional "
            "field {}",
            field.name, parent->name);
      }
    }
  }
  return Ok();
}

bool SameSchema(const Schema& a, const Schema& b) {
  if (a.fields != b.fields) return false;
  std::set<int32_t> ids_a(a.identifier_field_ids.begin(), a.identifier_field_ids.end());
  std::set<int32_t> ids_b(b.identifier_field_ids.begin(), b.identifier_field_ids.end());
  return ids_a == ids_b;
}

Result<FreshSchema> AssignFreshIds(const Schema& schema) {
  FreshIdAssigner assigner;
  FreshSchema out;
  out.schema.schema_id = schema.schema_id;
  out.schema.fields = assigner.AssignStruct(schema.fields);
  for (int32_t old_id : schema.identifier_field_ids) {
    auto it = assigner.old_to_new().find(old_id);
    if (it == assigner.old_to_new().end()) {
      return InvalidArgument("Cannot find identifier field id {} in schema", old_id);
    }
    out.schema.identifier_field_ids.push_back(it->second);
  }
  out.last_column_id = assigner.last_id();
  return out;
}

Status ValidateForFormatVersion(const Schema& schema, int format_version) {
  std::vector<std::string> problems;
  for (const IndexedField& entry : IndexSchema(schema)) {
    const NestedField& field = *entry.field;
    int type_version = MinFormatVersion(field.type.id);
    if (format_version < type_version) {
      problems.push_back(fmt::format("Invalid type for {}: {} is not supported until v{}",
                                     entry.name, ToString(field.type), type_version));
    }
    if (field.HasNonNullInitialDefault() && format_version < 3) {
      problems.push_back(
          fmt::format("Invalid initial default for {}: non-null default ({}) is not "
                      "supported until v3",
                      entry.name, *field.initial_default));
    }
  }
  if (problems.empty()) return Ok();
  std::string message = fmt::format("Invalid schema for v{}:", format_version);
  for (const std::string& problem : problems) {
    message += "\n- " + problem;
  }
  // The reference throws IllegalStateException (a 500 there): a 400, but not one of the
  // reference's 400 types.
  return tl::unexpected(Error{ErrorKind::kBadRequest, std::move(message)});
}

}  // namespace cairn::iceberg
