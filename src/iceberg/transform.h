#pragma once

/// \file
/// \brief Partition / sort transforms (`identity`, `bucket[N]`, `truncate[W]`, `year`,
/// `month`, `day`, `hour`, `void`). Transforms this server does not know are kept as
/// `kUnknown` with their original text so they round-trip (v3 readers must tolerate
/// them).

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"
#include "iceberg/type.h"

namespace cairn::iceberg {

/// \brief The kind of a transform.
enum class TransformKind {
  kIdentity,
  kBucket,    ///< bucket[N]; `param` = N
  kTruncate,  ///< truncate[W]; `param` = W
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  kUnknown,  ///< not understood here; `unknown_text` holds the original string
};

/// \brief A transform value. Build with the factories or `ParseTransform`.
struct Transform {
  /// Which transform.
  TransformKind kind = TransformKind::kIdentity;
  /// bucket count or truncate width; 0 for the others.
  int32_t param = 0;
  /// kUnknown only: the transform string exactly as read.
  std::string unknown_text;

  static Transform Identity() { return Transform{TransformKind::kIdentity, 0, {}}; }
  static Transform Bucket(int32_t num_buckets) {
    return Transform{TransformKind::kBucket, num_buckets, {}};
  }
  static Transform Truncate(int32_t width) {
    return Transform{TransformKind::kTruncate, width, {}};
  }
  static Transform Year() { return Transform{TransformKind::kYear, 0, {}}; }
  static Transform Month() { return Transform{TransformKind::kMonth, 0, {}}; }
  static Transform Day() { return Transform{TransformKind::kDay, 0, {}}; }
  static Transform Hour() { return Transform{TransformKind::kHour, 0, {}}; }
  static Transform Void() { return Transform{TransformKind::kVoid, 0, {}}; }

  bool IsUnknown() const { return kind == TransformKind::kUnknown; }
  bool IsVoid() const { return kind == TransformKind::kVoid; }

  bool operator==(const Transform&) const = default;
};

/// \brief The transform's spec string (`"bucket[16]"`, `"day"`); unknown transforms
/// print their original text.
std::string ToString(const Transform& transform);

/// \brief Parses a transform string like Java `Transforms.fromString`: names are
/// case-insensitive; anything unrecognised becomes a `kUnknown` transform keeping the
/// text. Errors: `kInvalidArgument` for `bucket[N]`/`truncate[W]` with N or W not in
/// 1..2^31-1 (`Invalid truncate width: -3 (must be > 0)`, `Invalid number of buckets: 0
/// (must be > 0)`), negative values included.
Result<Transform> ParseTransform(std::string_view text);

/// \brief Whether `transform` can be applied to a source column of `source_type`
/// (spec "Partition Transforms" table). `void` and unknown transforms accept any type.
bool CanTransform(const Transform& transform, const Type& source_type);

}  // namespace cairn::iceberg
