#pragma once

/// \file
/// \brief Iceberg data types (table spec "Schemas and Data Types") as plain values.
///
/// One struct, `Type`, models every type: primitives carry their parameters (decimal
/// precision/scale, fixed length, geospatial CRS / edge algorithm) and nested types carry
/// their child fields (`struct`: its fields; `list`: one field named `element`; `map`: a
/// `key` field then a `value` field). Equality is structural and includes field ids,
/// names, docs and defaults. The JSON forms live in `iceberg/json_serde.h`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace cairn::iceberg {

/// \brief The kind of a type. Primitive kinds come first; `kStruct`, `kList` and `kMap`
/// are the nested kinds.
enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,  ///< decimal(P,S)
  kDate,
  kTime,
  kTimestamp,      ///< microseconds, without zone
  kTimestampTz,    ///< microseconds, with zone
  kTimestampNs,    ///< nanoseconds, without zone (v3)
  kTimestampTzNs,  ///< nanoseconds, with zone (v3)
  kString,
  kUuid,
  kFixed,  ///< fixed[L]
  kBinary,
  kUnknown,    ///< v3; always optional, null defaults
  kVariant,    ///< v3 semi-structured type
  kGeometry,   ///< v3; geometry(C)
  kGeography,  ///< v3; geography(C, A)
  kStruct,
  kList,
  kMap,
};

/// \brief Edge-interpolation algorithm of a `geography` type.
enum class EdgeAlgorithm { kSpherical, kVincenty, kThomas, kAndoyer, kKarney };

/// \brief Spec name of an edge algorithm (`"spherical"`, `"karney"`, ...).
std::string_view EdgeAlgorithmName(EdgeAlgorithm algorithm);

/// \brief Parses an edge algorithm name, case-insensitively.
/// Errors: `kBadRequest` for an unknown name.
Result<EdgeAlgorithm> ParseEdgeAlgorithm(std::string_view name);

/// \brief True for every kind except `kStruct`, `kList` and `kMap`. `variant` counts as
/// primitive here (it is a leaf in the schema tree), although Java models it separately.
constexpr bool IsPrimitive(TypeId id) {
  return id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap;
}

struct NestedField;

/// \brief An Iceberg type: a primitive with its parameters, or a nested type with its
/// child fields. Build values with the static factories; they keep the invariants
/// (a list has exactly one child named `element`, a map a required `key` then `value`).
struct Type {
  /// The default CRS of geometry / geography types, used when `crs` is unset.
  static constexpr std::string_view kDefaultCrs = "OGC:CRS84";
  /// Largest decimal precision the spec allows.
  static constexpr int32_t kMaxDecimalPrecision = 38;

  /// Which type this is.
  TypeId id = TypeId::kUnknown;
  /// decimal only: precision P (1..38).
  int32_t precision = 0;
  /// decimal only: scale S.
  int32_t scale = 0;
  /// fixed only: length L in bytes.
  int32_t length = 0;
  /// geometry / geography only: the CRS exactly as written (e.g. `srid:4326`);
  /// unset means the default `OGC:CRS84` and prints as plain `geometry`/`geography`.
  std::optional<std::string> crs;
  /// geography only: the edge algorithm; unset means the default (spherical).
  std::optional<EdgeAlgorithm> algorithm;
  /// struct: its fields in order; list: one field `element`; map: `key` then `value`.
  std::vector<NestedField> fields;

  bool IsPrimitive() const { return iceberg::IsPrimitive(id); }
  bool IsNested() const { return !IsPrimitive(); }

  /// \brief The element field of a list. Precondition: `id == TypeId::kList`.
  const NestedField& element() const;
  /// \brief The key field of a map. Precondition: `id == TypeId::kMap`.
  const NestedField& key() const;
  /// \brief The value field of a map. Precondition: `id == TypeId::kMap`.
  const NestedField& value() const;

  /// \brief A type of kind `id` with default parameters and no fields.
  static Type Of(TypeId id);
  static Type Boolean();
  static Type Int();
  static Type Long();
  static Type Float();
  static Type Double();
  static Type Decimal(int32_t precision, int32_t scale);
  static Type Date();
  static Type Time();
  static Type Timestamp();
  static Type TimestampTz();
  static Type TimestampNs();
  static Type TimestampTzNs();
  static Type String();
  static Type Uuid();
  static Type Fixed(int32_t length);
  static Type Binary();
  static Type Unknown();
  static Type Variant();
  static Type Geometry(std::optional<std::string> crs = std::nullopt);
  static Type Geography(std::optional<std::string> crs = std::nullopt,
                        std::optional<EdgeAlgorithm> algorithm = std::nullopt);
  static Type Struct(std::vector<NestedField> fields);
  static Type List(int32_t element_id, bool element_required, Type element);
  static Type Map(int32_t key_id, Type key, int32_t value_id, bool value_required,
                  Type value);

  bool operator==(const Type&) const = default;
};

/// \brief A named, numbered field of a struct (also used for list elements and map
/// keys/values, which have no doc or defaults).
struct NestedField {
  /// Field id, unique within a schema.
  int32_t id = 0;
  /// Field name (`element`, `key`, `value` for list/map children).
  std::string name;
  /// True if values can never be null.
  bool required = false;
  /// The field's type.
  Type type;
  /// Optional documentation string.
  std::optional<std::string> doc;
  /// `initial-default` as compact JSON text, kept opaque so it round-trips exactly;
  /// unset when absent. An explicit JSON null is kept as the text `null`.
  std::optional<std::string> initial_default;
  /// `write-default` as compact JSON text (same conventions as `initial_default`).
  std::optional<std::string> write_default;

  /// \brief True if `initial_default` is set to something other than JSON null
  /// (which needs format v3).
  bool HasNonNullInitialDefault() const;

  bool operator==(const NestedField&) const = default;
};

// Defined here, where NestedField is complete: clang instantiates the constexpr members
// of std::vector<NestedField> wherever a Type is made, even inside Type itself.
inline Type Type::Of(TypeId id) {
  Type type;
  type.id = id;
  return type;
}
inline Type Type::Boolean() { return Of(TypeId::kBoolean); }
inline Type Type::Int() { return Of(TypeId::kInt); }
inline Type Type::Long() { return Of(TypeId::kLong); }
inline Type Type::Float() { return Of(TypeId::kFloat); }
inline Type Type::Double() { return Of(TypeId::kDouble); }
inline Type Type::Decimal(int32_t precision, int32_t scale) {
  Type type = Of(TypeId::kDecimal);
  type.precision = precision;
  type.scale = scale;
  return type;
}
inline Type Type::Date() { return Of(TypeId::kDate); }
inline Type Type::Time() { return Of(TypeId::kTime); }
inline Type Type::Timestamp() { return Of(TypeId::kTimestamp); }
inline Type Type::TimestampTz() { return Of(TypeId::kTimestampTz); }
inline Type Type::TimestampNs() { return Of(TypeId::kTimestampNs); }
inline Type Type::TimestampTzNs() { return Of(TypeId::kTimestampTzNs); }
inline Type Type::String() { return Of(TypeId::kString); }
inline Type Type::Uuid() { return Of(TypeId::kUuid); }
inline Type Type::Fixed(int32_t length) {
  Type type = Of(TypeId::kFixed);
  type.length = length;
  return type;
}
inline Type Type::Binary() { return Of(TypeId::kBinary); }
inline Type Type::Unknown() { return Of(TypeId::kUnknown); }
inline Type Type::Variant() { return Of(TypeId::kVariant); }

/// \brief Spec name of a type kind without parameters (`"decimal"`, `"struct"`, ...).
std::string_view TypeIdName(TypeId id);

/// \brief The type's spec string: `"long"`, `"decimal(9, 2)"`, `"fixed[16]"`,
/// `"geometry(srid:4326)"`, `"geography(srid:4326, karney)"`. Nested types print in a
/// readable (not parseable) form such as `list<string>` or `map<string, int>`.
std::string ToString(const Type& type);

/// \brief Parses a primitive (or `variant`) type string as written in schema JSON.
/// Matching is case-insensitive and tolerates spaces inside brackets
/// (`"decimal(9,2)"` == `"decimal(9, 2)"`); a CRS keeps its original spelling.
/// Errors: `kBadRequest` with a message like `unknown type 'foo'`; `kInvalidArgument` for
/// a decimal precision above 38 (the reference's `DecimalType.of` precondition).
Result<Type> ParsePrimitiveType(std::string_view text);

/// \brief The lowest table format version that has the type kind `id` (3 for `variant`,
/// `unknown`, `timestamp_ns`, `timestamptz_ns`, `geometry`, `geography`; else 1).
int MinFormatVersion(TypeId id);

/// \brief The lowest table format version that can store `type`, looking through
/// nested fields: 3 for `variant`, `unknown`, `timestamp_ns`, `timestamptz_ns`,
/// `geometry`, `geography` and non-null `initial-default`s; else 1.
int MinFormatVersion(const Type& type);

/// \brief `MinFormatVersion` of a field: its type and its `initial-default`.
int MinFormatVersion(const NestedField& field);

}  // namespace cairn::iceberg
