#pragma once

/// \file
/// \brief Partition specs: an id and a list of partition fields (source column(s),
/// partition field id, name, transform).

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "iceberg/schema.h"
#include "iceberg/transform.h"

namespace cairn::iceberg {

/// \brief First partition field id (v1 assigned 1000, 1001, ... implicitly).
inline constexpr int32_t kPartitionDataIdStart = 1000;
/// \brief `last-partition-id` of a table whose specs have no fields.
inline constexpr int32_t kUnpartitionedLastAssignedId = kPartitionDataIdStart - 1;

/// \brief One field of a partition spec.
struct PartitionField {
  /// `source-id`: the source column. For multi-argument transforms, the first source.
  int32_t source_id = 0;
  /// `source-ids` (v3 multi-argument transforms): all sources, or empty for a
  /// single-argument field (readers normalise a one-element list to empty).
  std::vector<int32_t> source_ids;
  /// `field-id`, unique across the table's specs in v2+.
  int32_t field_id = 0;
  /// Partition field name.
  std::string name;
  /// The transform applied to the source(s).
  Transform transform;

  /// \brief All source column ids (`source_ids`, or just `source_id`).
  std::vector<int32_t> SourceIds() const {
    return source_ids.empty() ? std::vector<int32_t>{source_id} : source_ids;
  }

  bool operator==(const PartitionField&) const = default;
};

/// \brief A partition spec.
struct PartitionSpec {
  /// Spec id of a new table's first spec.
  static constexpr int32_t kInitialSpecId = 0;

  /// `spec-id`.
  int32_t spec_id = kInitialSpecId;
  /// Partition fields in order.
  std::vector<PartitionField> fields;

  /// \brief The spec with no fields (spec id 0).
  static PartitionSpec Unpartitioned() { return PartitionSpec{}; }

  /// \brief True if the spec has no fields.
  bool IsUnpartitioned() const { return fields.empty(); }

  /// \brief The highest partition field id, or `kUnpartitionedLastAssignedId` (999) when
  /// the spec has no fields.
  int32_t LastAssignedFieldId() const;

  /// \brief Checks partition field names are non-empty and unique and field ids unique.
  /// Errors: `kInvalidArgument` (the reference's `PartitionSpec.Builder` preconditions).
  Status Validate() const;

  bool operator==(const PartitionSpec&) const = default;
};

/// \brief Java `PartitionSpec.compatibleWith`: same number of fields and, in order, the
/// same source id(s), transform string and name. Field ids and spec ids are ignored.
bool CompatibleWith(const PartitionSpec& a, const PartitionSpec& b);

/// \brief Checks `spec` can be bound to `schema`: each non-void field's source columns
/// exist, are primitive, are nested only in structs, and suit the transform.
/// Errors: `kValidationFailed` (as the reference's `PartitionSpec.checkCompatibility`)
/// like `Invalid source type string for transform: year`.
Status CheckCompatibility(const PartitionSpec& spec, const Schema& schema);

/// \brief The partition-name rules of Java's `PartitionSpec.Builder` when a spec is added
/// against `schema`: names are non-empty and unique, and a name that is also a schema
/// column name (full dotted name) must be sourced from that same column.
/// Errors: `kInvalidArgument` like `Cannot create identity partition sourced from
/// different field in schema: x`.
Status CheckPartitionNames(const PartitionSpec& spec, const Schema& schema);

}  // namespace cairn::iceberg
