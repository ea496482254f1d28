#pragma once

/// \file
/// \brief Typed values of Iceberg's primitive types, as scan planning compares them:
/// filter literals bound to a column's type (Java's `Literals` conversion rules), and the
/// bounds and partition values of manifests decoded from the single-value binary
/// serialization (spec Appendix D). Also the transforms applied to values (bucket,
/// truncate, year/month/day/hour) for partition projection.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "iceberg/transform.h"
#include "iceberg/type.h"

namespace cairn::iceberg {

/// \brief A 128-bit integer (decimals reach 38 digits). `__extension__`: ISO C++ has no
/// 128-bit type, and -Wpedantic would refuse the compilers' own.
__extension__ typedef __int128 Int128;  // NOLINT(modernize-use-using)

/// \brief A value of a primitive type. Which member holds it depends on `type.id`:
/// `integer` for boolean (0/1), int, long, date (days), time and timestamps (micro- or
/// nanoseconds as the type says) and decimal (the unscaled value); `real` for float and
/// double; `bytes` for string (UTF-8), uuid (16 bytes, big-endian), fixed and binary.
struct Literal {
  Type type;
  Int128 integer = 0;
  double real = 0;
  std::string bytes;

  bool IsNaN() const;
};

/// \brief A literal as a request wrote it, before it is bound to a column's type: what a
/// JSON value can be.
struct UnboundValue {
  enum class Kind { kBoolean, kInteger, kFloat, kString };
  Kind kind = Kind::kInteger;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string text;
  /// How the request wrote it, for messages.
  std::string source;
};

/// \brief `value` converted to `type` as Java's `Literal.to(type)` converts: integers to
/// any numeric type (range-checked), dates (days), times and timestamps (microseconds);
/// floats to float, double or decimal; strings to string, date, time, timestamps (ISO
/// 8601; with zone for timestamptz), uuid, decimal (of the type's scale), fixed and
/// binary (hexadecimal); booleans to boolean.
///
/// Errors: `kBadRequest` "Invalid value for conversion to type <type>: <value>".
Result<Literal> BindValue(const UnboundValue& value, const Type& type);

/// \brief Decodes Appendix D's single-value serialization of `type`.
/// Errors: `kBadRequest` for a length that does not fit the type.
Result<Literal> LiteralFromSingleValue(const Type& type, std::string_view bytes);

/// \brief The single-value serialization of `literal`.
std::string SingleValueOf(const Literal& literal);

/// \brief Orders two literals of the same type: numbers by value (decimals by unscaled
/// value at their common scale), strings and bytes as unsigned bytes (for UTF-8 that is
/// code-point order). Negative, zero or positive.
int Compare(const Literal& a, const Literal& b);

/// \brief Whether `type`'s values may be compared for pruning: every primitive type but
/// uuid (Java and older writers disagree on its order), variant, geo and unknown.
bool IsComparable(const Type& type);

/// \brief The result type of `transform` applied to `source` (spec "Partition
/// Transforms"), or unset for void and unknown transforms.
std::optional<Type> TransformResultType(const Transform& transform, const Type& source);

/// \brief `transform` applied to `value` (of the source type), as a literal of the
/// result type; unset when this server does not apply it (void, unknown, or a
/// nanosecond timestamp's bucket).
std::optional<Literal> ApplyTransform(const Transform& transform, const Literal& value);

/// \brief The literal one step after (`+1`) or before (`-1`) `value` of an integer-like
/// type (int, long, date, time, timestamps, decimal); unset for other types.
std::optional<Literal> Step(const Literal& value, int direction);

/// \brief A proleptic Gregorian calendar date.
struct CivilDate {
  int64_t year = 1970;
  unsigned month = 1;  ///< 1-12
  unsigned day = 1;    ///< 1-31
};

/// \brief The date `days` after 1970-01-01 (negative: before it).
CivilDate CivilDateOf(int64_t days);

/// \brief The Murmur3 (x86, 32-bit, seed 0) hash Iceberg's bucket transform uses.
int32_t Murmur3Hash32(std::string_view bytes);

}  // namespace cairn::iceberg
