#include "iceberg/partition_spec.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

std::string Describe(const PartitionField& field) {
  return fmt::format("{}: {}: {}({})", field.field_id, field.name,
                     ToString(field.transform), fmt::join(field.SourceIds(), ", "));
}

}  // namespace

int32_t PartitionSpec::LastAssignedFieldId() const {
  int32_t last = kUnpartitionedLastAssignedId;
  for (const PartitionField& field : fields) last = std::max(last, field.field_id);
  return last;
}

Status PartitionSpec::Validate() const {
  std::set<std::string_view> names;
  std::set<int32_t> ids;
  for (const PartitionField& field : fields) {
    if (field.name.empty()) {
      return InvalidArgument("Cannot use empty partition name: {}", Describe(field));
    }
    if (!names.insert(field.name).second) {
      return InvalidArgument("Cannot use partition name more than once: {}", field.name);
    }
    if (!ids.insert(field.field_id).second) {
      return InvalidArgument("Cannot use partition field id more than once: {}",
                             field.field_id);
    }
  }
  return Ok();
}

bool CompatibleWith(const PartitionSpec& a, const PartitionSpec& b) {
  if (a.fields.size() != b.fields.size()) return false;
  for (size_t i = 0; i < a.fields.size(); ++i) {
    const PartitionField& x = a.fields[i];
    const PartitionField& y = b.fields[i];
    if (x.SourceIds() != y.SourceIds() ||
        ToString(x.transform) != ToString(y.transform) || x.name != y.name) {
      return false;
    }
  }
  return true;
}

Status CheckCompatibility(const PartitionSpec& spec, const Schema& schema) {
  for (const PartitionField& field : spec.fields) {
    // A void transform replaces dropped fields in v1 specs, so its source may be gone.
    if (field.transform.IsVoid()) continue;
    for (int32_t source_id : field.SourceIds()) {
      const NestedField* source = schema.FindFieldById(source_id);
      if (source == nullptr) {
        return ValidationFailed("Cannot find source column for partition field: {}",
                                Describe(field));
      }
      if (!source->type.IsPrimitive()) {
        return ValidationFailed("Cannot partition by non-primitive source field: {}",
                                ToString(source->type));
      }
      if (!CanTransform(field.transform, source->type)) {
        return ValidationFailed("Invalid source type {} for transform: {}",
                                ToString(source->type), ToString(field.transform));
      }
      for (const NestedField* parent = schema.FindParentById(source_id);
           parent != nullptr; parent = schema.FindParentById(parent->id)) {
        if (parent->type.id != TypeId::kStruct) {
          return ValidationFailed("Invalid partition field parent: {}",
                                  ToString(parent->type));
        }
      }
    }
  }
  return Ok();
}

Status CheckPartitionNames(const PartitionSpec& spec, const Schema& schema) {
  CAIRN_RETURN_IF_ERROR(spec.Validate());
  for (const PartitionField& field : spec.fields) {
    // As the reference: a spec whose source column was dropped may be historical, so
    // its names are not held against the schema (a missing source fails
    // `CheckCompatibility` instead).
    if (schema.FindFieldById(field.source_id) == nullptr) continue;
    const NestedField* column = schema.FindFieldByName(field.name);
    if (column != nullptr && column->id != field.source_id) {
      return InvalidArgument(
          "Cannot create identity partition sourced from different field in schema: {}",
          field.name);
    }
  }
  return Ok();
}

}  // namespace cairn::iceberg
