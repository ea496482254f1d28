#pragma once

/// \file
/// \brief Iceberg schemas: a schema id, the top-level struct fields and the
/// identifier-field-ids, plus the lookups and id assignment the metadata builder needs.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "iceberg/type.h"

namespace cairn::iceberg {

/// \brief A table schema (a struct type with an id and identifier fields).
struct Schema {
  /// Schema id of a new table's first schema.
  static constexpr int32_t kInitialSchemaId = 0;
  /// Field ids above this are reserved for metadata columns (`Integer.MAX_VALUE - 200`).
  static constexpr int32_t kMaxUserFieldId = 2147483447;

  /// `schema-id`; readers default it to 0 when absent (v1).
  int32_t schema_id = kInitialSchemaId;
  /// Top-level columns in order.
  std::vector<NestedField> fields;
  /// `identifier-field-ids` (a set; written only when non-empty).
  std::vector<int32_t> identifier_field_ids;

  /// \brief The schema as a `struct` type.
  Type AsStruct() const { return Type::Struct(fields); }

  /// \brief The highest field id anywhere in the schema (nested fields included), or 0
  /// for an empty schema.
  int32_t HighestFieldId() const;

  /// \brief The field with `id` at any depth (list elements and map keys/values
  /// included), or nullptr. The pointer is into this schema.
  const NestedField* FindFieldById(int32_t id) const;

  /// \brief The field that directly encloses the field with `id` (a struct, list or map
  /// field), or nullptr for top-level columns and unknown ids.
  const NestedField* FindParentById(int32_t id) const;

  /// \brief The field whose full dotted name is `name` (`"a"`, `"a.b"` for a struct
  /// child, `"l.element"`, `"m.key"`, `"m.value.c"`), or nullptr. Case-sensitive.
  const NestedField* FindFieldByName(std::string_view name) const;

  /// \brief The full dotted name of the field with `id`, or nullopt.
  std::optional<std::string> FindColumnName(int32_t id) const;

  /// \brief Checks field ids and full names are unique, `unknown` columns are optional,
  /// `unknown`/`variant`/`geometry`/`geography` columns have only null defaults, and
  /// identifier fields are valid (exist, primitive, required, not float/double, only
  /// nested in required structs).
  /// Errors: `kInvalidArgument` naming the offending field, or `kValidationFailed` for a
  /// duplicate full name (the reference's `IndexByName` throws ValidationException).
  Status Validate() const;

  bool operator==(const Schema&) const = default;
};

/// \brief Same struct (field ids, names, types, requiredness, docs, defaults) and the
/// same identifier-field-ids as a set; `schema_id` is ignored. Java `Schema.sameSchema`.
bool SameSchema(const Schema& a, const Schema& b);

/// \brief Result of `AssignFreshIds`.
struct FreshSchema {
  /// The schema with new ids (its `schema_id` is the input's).
  Schema schema;
  /// The highest id assigned (0 for an empty schema): the new `last-column-id`.
  int32_t last_column_id = 0;
};

/// \brief Renumbers every field from 1, as Java `TypeUtil.assignFreshIds` does for a new
/// table: each struct first numbers its direct fields in order, then descends into them
/// in order; a list numbers its element and a map its key then value when entered.
/// identifier-field-ids are remapped to the new ids.
/// Errors: `kInvalidArgument` if an identifier field id is not in the schema.
Result<FreshSchema> AssignFreshIds(const Schema& schema);

/// \brief Checks that every type and default in `schema` is allowed in
/// `format_version`. Errors: `kBadRequest` (the reference's IllegalStateException) like
/// `Invalid schema for v2:\n- Invalid type for col: variant is not supported until v3`.
Status ValidateForFormatVersion(const Schema& schema, int format_version);

}  // namespace cairn::iceberg
