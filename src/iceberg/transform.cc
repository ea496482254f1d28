#include "iceberg/transform.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "common/strings.h"

namespace cairn::iceberg {
namespace {

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool IsTemporal(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampTz ||
         id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
}

bool IsTimestamp(TypeId id) { return IsTemporal(id) && id != TypeId::kDate; }

}  // namespace

std::string ToString(const Transform& transform) {
  switch (transform.kind) {
    case TransformKind::kIdentity:
      return "identity";
    case TransformKind::kBucket:
      return fmt::format("bucket[{}]", transform.param);
    case TransformKind::kTruncate:
      return fmt::format("truncate[{}]", transform.param);
    case TransformKind::kYear:
      return "year";
    case TransformKind::kMonth:
      return "month";
    case TransformKind::kDay:
      return "day";
    case TransformKind::kHour:
      return "hour";
    case TransformKind::kVoid:
      return "void";
    case TransformKind::kUnknown:
      return transform.unknown_text;
  }
  return transform.unknown_text;
}

Result<Transform> ParseTransform(std::string_view text) {
  // `<word>[<integer>]`. Java's pattern is `(\w+)\[(\d+)\]`, so there `truncate[-3]`
  // falls through to an unknown transform that no engine can apply; a sign is accepted
  // here so that a width or count below 1 is rejected as `truncate[0]` is.
  if (auto open = text.find('['); open != std::string_view::npos && open > 0 &&
                                  text.size() > open + 2 && text.back() == ']') {
    std::string_view name = text.substr(0, open);
    std::string_view number = text.substr(open + 1, text.size() - open - 2);
    const bool negative = number.front() == '-';
    std::string_view digits = negative ? number.substr(1) : number;
    bool name_ok = std::all_of(name.begin(), name.end(), IsWordChar);
    bool digits_ok =
        !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                       [](char c) { return c >= '0' && c <= '9'; });
    bool is_bucket = EqualsIgnoreCase(name, "bucket");
    bool is_truncate = EqualsIgnoreCase(name, "truncate");
    if (name_ok && digits_ok && (is_bucket || is_truncate)) {
      // The reference's messages (`Bucket.get`, `Truncate.get`).
      const std::string_view what =
          is_bucket ? "Invalid number of buckets" : "Invalid truncate width";
      int32_t value = 0;
      auto [ptr, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), value);
      const bool zero = ec == std::errc() && value == 0;
      if (negative || zero) return InvalidArgument("{}: {} (must be > 0)", what, number);
      if (ec != std::errc() || ptr != digits.data() + digits.size()) {
        return InvalidArgument("{}: {} (must be at most 2147483647)", what, number);
      }
      return is_bucket ? Transform::Bucket(value) : Transform::Truncate(value);
    }
  }
  if (EqualsIgnoreCase(text, "identity")) return Transform::Identity();
  if (EqualsIgnoreCase(text, "year")) return Transform::Year();
  if (EqualsIgnoreCase(text, "month")) return Transform::Month();
  if (EqualsIgnoreCase(text, "day")) return Transform::Day();
  if (EqualsIgnoreCase(text, "hour")) return Transform::Hour();
  if (EqualsIgnoreCase(text, "void")) return Transform::Void();
  return Transform{TransformKind::kUnknown, 0, std::string(text)};
}

bool CanTransform(const Transform& transform, const Type& source_type) {
  TypeId id = source_type.id;
  switch (transform.kind) {
    case TransformKind::kIdentity:
      return source_type.IsPrimitive() && id != TypeId::kVariant &&
             id != TypeId::kGeometry && id != TypeId::kGeography;
    case TransformKind::kBucket:
      switch (id) {
        case TypeId::kInt:
        case TypeId::kLong:
        case TypeId::kDecimal:
        case TypeId::kDate:
        case TypeId::kTime:
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
        case TypeId::kTimestampNs:
        case TypeId::kTimestampTzNs:
        case TypeId::kString:
        case TypeId::kUuid:
        case TypeId::kFixed:
        case TypeId::kBinary:
          return true;
        default:
          return false;
      }
    case TransformKind::kTruncate:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDecimal ||
             id == TypeId::kString || id == TypeId::kBinary;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
      return IsTemporal(id);
    case TransformKind::kHour:
      return IsTimestamp(id);
    case TransformKind::kVoid:
    case TransformKind::kUnknown:
      return true;
  }
  return false;
}

}  // namespace cairn::iceberg
