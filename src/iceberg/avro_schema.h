#pragma once

/// \file
/// \brief The writer schema of an Avro object container file (the `avro.schema` header
/// entry), parsed by Cairn itself: Avro C 1.11.1 drops the `field-id` and `element-id`
/// attributes that Iceberg resolves fields by, and trusts a schema's shape (recursion,
/// depth) more than a server reading client-written files may. The model keeps what
/// reading needs: each node's type, record fields with their Iceberg ids, array items,
/// map values, union branches, fixed sizes and enum symbol counts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::iceberg {

enum class AvroType {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// \brief A record field: its name, its Iceberg `field-id` if the schema gives one, and
/// the index of its type in `AvroSchema::nodes`.
struct AvroField {
  std::string name;
  std::optional<int32_t> field_id;
  int type = 0;
};

/// \brief One type of the schema. Which members mean something depends on `type`.
struct AvroNode {
  AvroType type = AvroType::kNull;
  std::string name;                   ///< records, enums and fixed: the full name
  std::vector<AvroField> fields;      ///< records, in order (Avro C indexes them alike)
  int items = -1;                     ///< arrays: the element type; maps: the value type
  std::optional<int32_t> element_id;  ///< arrays: Iceberg's `element-id`
  std::vector<int> branches;          ///< unions, in order
  int64_t size = 0;                   ///< fixed: bytes; enums: number of symbols
};

/// \brief A parsed schema: `nodes[root]` is the top-level type, and the nodes form a tree
/// (no named type is referenced), so every walk from the root ends.
struct AvroSchema {
  std::vector<AvroNode> nodes;
  int root = 0;

  const AvroNode& node(int index) const { return nodes.at(static_cast<size_t>(index)); }
  /// \brief The index of the field with Iceberg id `field_id` in record `record`, or -1.
  int FieldIndexById(const AvroNode& record, int32_t field_id) const;
  /// \brief For `["null", T]` (either order) the index of `T`; for any other node,
  /// itself.
  int NonNullBranch(int index) const;
};

/// \brief Parses the JSON text of an Avro schema. Bounds: at most `kMaxAvroSchemaNodes`
/// nodes and `kMaxAvroSchemaDepth` levels of nesting.
///
/// Errors: `kBadRequest` naming the problem for invalid JSON, an unknown type name, a
/// named type defined twice or referenced by name at all (Iceberg's writers define each
/// where it is used; references are how schemas recurse and multiply), a union directly
/// inside a union, a negative fixed size, an array of items or a top-level record that
/// can take no bytes (a count of those costs nothing to write and much to decode), or a
/// schema past the bounds.
Result<AvroSchema> ParseAvroSchema(std::string_view text);

inline constexpr size_t kMaxAvroSchemaNodes = 10'000;
inline constexpr int kMaxAvroSchemaDepth = 32;

}  // namespace cairn::iceberg
