#include "iceberg/literal.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/macros.h"

namespace cairn::iceberg {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerHour = 3600 * kMicrosPerSecond;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

bool IsIntegerLike(TypeId id) {
  switch (id) {
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kDecimal:
      return true;
    default:
      return false;
  }
}

bool IsBytesLike(TypeId id) {
  return id == TypeId::kString || id == TypeId::kUuid || id == TypeId::kFixed ||
         id == TypeId::kBinary;
}

bool IsNanos(TypeId id) {
  return id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
}

Literal IntegerLiteral(const Type& type, Int128 value) {
  Literal out;
  out.type = type;
  out.integer = value;
  return out;
}

Int128 FloorDiv(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Int128 FloorMod(Int128 a, Int128 b) { return a - FloorDiv(a, b) * b; }

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// Reads exactly `width` digits at `pos`.
std::optional<int64_t> Digits(std::string_view text, size_t& pos, size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += width;
  return value;
}

bool Expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

std::optional<int64_t> ParseDate(std::string_view text, size_t& pos) {
  auto y = Digits(text, pos, 4);
  if (!y || !Expect(text, pos, '-')) return std::nullopt;
  auto m = Digits(text, pos, 2);
  if (!m || !Expect(text, pos, '-')) return std::nullopt;
  auto d = Digits(text, pos, 2);
  if (!d || *m < 1 || *m > 12 || *d < 1 || *d > 31) return std::nullopt;
  return DaysFromCivil(*y, static_cast<unsigned>(*m), static_cast<unsigned>(*d));
}

// HH:MM[:SS[.fraction]] in units of 10^-digits seconds (digits 6 or 9).
std::optional<int64_t> ParseTime(std::string_view text, size_t& pos, int digits) {
  auto h = Digits(text, pos, 2);
  if (!h || !Expect(text, pos, ':')) return std::nullopt;
  auto m = Digits(text, pos, 2);
  if (!m || *h > 23 || *m > 59) return std::nullopt;
  int64_t seconds = 0;
  int64_t fraction = 0;
  if (Expect(text, pos, ':')) {
    auto s = Digits(text, pos, 2);
    if (!s || *s > 59) return std::nullopt;
    seconds = *s;
    if (Expect(text, pos, '.')) {
      int read = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (read == digits) return std::nullopt;  // finer than the type
        fraction = fraction * 10 + (text[pos++] - '0');
        ++read;
      }
      if (read == 0) return std::nullopt;
      for (; read < digits; ++read) fraction *= 10;
    }
  }
  int64_t unit = 1;
  for (int i = 0; i < digits; ++i) unit *= 10;
  return ((*h * 60 + *m) * 60 + seconds) * unit + fraction;
}

std::optional<int64_t> FitsLong(Int128 value) {
  if (value < std::numeric_limits<int64_t>::min() ||
      value > std::numeric_limits<int64_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

// A timestamp, with a zone offset (`Z` or `±HH:MM`) when `zoned`; in micro- or
// nanoseconds since the epoch (UTC for zoned ones).
std::optional<int64_t> ParseTimestamp(std::string_view text, bool zoned, int digits) {
  size_t pos = 0;
  auto days = ParseDate(text, pos);
  if (!days || !Expect(text, pos, 'T')) return std::nullopt;
  auto time = ParseTime(text, pos, digits);
  if (!time) return std::nullopt;
  const int64_t unit_per_day = kMicrosPerDay * (digits == 9 ? 1000 : 1);
  // Years far from 1970 overflow 64 bits in nanoseconds: computed wide, checked below.
  Int128 value = static_cast<Int128>(*days) * unit_per_day + *time;
  if (zoned) {
    if (Expect(text, pos, 'Z'))
      return pos == text.size() ? std::optional(value) : std::nullopt;
    if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
    const int sign = text[pos++] == '-' ? -1 : 1;
    auto oh = Digits(text, pos, 2);
    if (!oh || !Expect(text, pos, ':')) return std::nullopt;
    auto om = Digits(text, pos, 2);
    if (!om) return std::nullopt;
    value -= static_cast<Int128>(sign) * (*oh * 60 + *om) * 60 * (unit_per_day / 86400);
  }
  return pos == text.size() ? FitsLong(value) : std::nullopt;
}

std::optional<std::string> FromHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data() + i, text.data() + i + 2, value, 16);
    if (ec != std::errc() || end != text.data() + i + 2) return std::nullopt;
    out.push_back(static_cast<char>(value));
  }
  return out;
}

std::optional<std::string> ParseUuid(std::string_view text) {
  if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
      text[23] != '-') {
    return std::nullopt;
  }
  std::string hex;
  for (char c : text) {
    if (c != '-') hex.push_back(c);
  }
  return FromHex(hex);
}

// "[-]digits[.digits]" with exactly `scale` fractional digits, at most `precision` in
// all.
std::optional<Int128> ParseDecimal(std::string_view text, int32_t precision,
                                   int32_t scale) {
  size_t pos = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (negative || (!text.empty() && text[0] == '+')) ++pos;
  Int128 value = 0;
  int digits = 0;
  int fraction = -1;
  for (; pos < text.size(); ++pos) {
    if (text[pos] == '.' && fraction < 0) {
      fraction = 0;
      continue;
    }
    if (text[pos] < '0' || text[pos] > '9' || digits >= 38) return std::nullopt;
    value = value * 10 + (text[pos] - '0');
    ++digits;
    if (fraction >= 0) ++fraction;
  }
  if (digits == 0 || std::max(fraction, 0) != scale || digits > precision + 1)
    return std::nullopt;
  return negative ? -value : value;
}

// Whether `unscaled` fits in `precision` decimal digits.
bool FitsPrecision(Int128 unscaled, int32_t precision) {
  Int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  return unscaled < limit && unscaled > -limit;
}

tl::unexpected<Error> CannotConvert(const UnboundValue& value, const Type& type) {
  return BadRequest("Invalid value for conversion to type {}: {}", ToString(type),
                    value.source);
}

Result<Literal> BindInteger(const UnboundValue& value, const Type& type) {
  const int64_t v = value.integer;
  switch (type.id) {
    case TypeId::kInt:
    case TypeId::kDate:
      if (v < std::numeric_limits<int32_t>::min() ||
          v > std::numeric_limits<int32_t>::max()) {
        return CannotConvert(value, type);
      }
      return IntegerLiteral(type, v);
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return IntegerLiteral(type, v);
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      // Java reads a number for a nanosecond timestamp as microseconds.
      auto nanos = FitsLong(static_cast<Int128>(v) * 1000);
      if (!nanos) return CannotConvert(value, type);
      return IntegerLiteral(type, *nanos);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      Literal out;
      out.type = type;
      out.real =
          type.id == TypeId::kFloat ? static_cast<float>(v) : static_cast<double>(v);
      return out;
    }
    case TypeId::kDecimal: {
      // v * 10^scale must have at most `precision` digits: |v| < 10^(precision - scale),
      // checked before scaling so that nothing overflows.
      if (type.scale < 0 || type.scale > type.precision ||
          !FitsPrecision(v, type.precision - type.scale)) {
        return CannotConvert(value, type);
      }
      Int128 unscaled = v;
      for (int i = 0; i < type.scale; ++i) unscaled *= 10;
      return IntegerLiteral(type, unscaled);
    }
    default:
      return CannotConvert(value, type);
  }
}

Result<Literal> BindFloat(const UnboundValue& value, const Type& type) {
  Literal out;
  out.type = type;
  if (type.id == TypeId::kFloat) {
    out.real = static_cast<float>(value.real);
    return out;
  }
  if (type.id == TypeId::kDouble) {
    out.real = value.real;
    return out;
  }
  if (type.id == TypeId::kDecimal && std::isfinite(value.real) && type.scale >= 0) {
    const long double scaled =
        std::round(static_cast<long double>(value.real) * std::pow(10.0L, type.scale));
    if (std::fabs(scaled) < 1e37L) {
      out.integer = static_cast<Int128>(scaled);
      if (FitsPrecision(out.integer, type.precision)) return out;
    }
  }
  return CannotConvert(value, type);
}

Result<Literal> BindString(const UnboundValue& value, const Type& type) {
  const std::string& text = value.text;
  Literal out;
  out.type = type;
  std::optional<int64_t> number;
  size_t pos = 0;
  switch (type.id) {
    case TypeId::kString:
      out.bytes = text;
      return out;
    case TypeId::kDate:
      number = ParseDate(text, pos);
      if (number && pos != text.size()) number.reset();
      break;
    case TypeId::kTime:
      number = ParseTime(text, pos, 6);
      if (number && pos != text.size()) number.reset();
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      number = ParseTimestamp(text, type.id == TypeId::kTimestampTz, 6);
      break;
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      number = ParseTimestamp(text, type.id == TypeId::kTimestampTzNs, 9);
      break;
    case TypeId::kDecimal: {
      auto unscaled = ParseDecimal(text, type.precision, type.scale);
      if (!unscaled || !FitsPrecision(*unscaled, type.precision))
        return CannotConvert(value, type);
      out.integer = *unscaled;
      return out;
    }
    case TypeId::kUuid: {
      auto bytes = ParseUuid(text);
      if (!bytes) return CannotConvert(value, type);
      out.bytes = std::move(*bytes);
      return out;
    }
    case TypeId::kFixed:
    case TypeId::kBinary: {
      auto bytes = FromHex(text);
      if (!bytes || (type.id == TypeId::kFixed &&
                     bytes->size() != static_cast<size_t>(type.length))) {
        return CannotConvert(value, type);
      }
      out.bytes = std::move(*bytes);
      return out;
    }
    default:
      return CannotConvert(value, type);
  }
  if (!number) return CannotConvert(value, type);
  out.integer = *number;
  return out;
}

template <typename T>
T ReadLittleEndian(std::string_view bytes) {
  T value{};
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

template <typename T>
std::string WriteLittleEndian(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

// The minimal two's-complement big-endian bytes of `value` (Java BigInteger.toByteArray).
std::string MinimalBigEndian(Int128 value) {
  std::string bytes;
  for (int i = 15; i >= 0; --i)
    bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  size_t start = 0;
  while (start + 1 < bytes.size()) {
    const auto first = static_cast<uint8_t>(bytes[start]);
    const auto next = static_cast<uint8_t>(bytes[start + 1]);
    if ((first == 0x00 && (next & 0x80) == 0) || (first == 0xFF && (next & 0x80) != 0)) {
      ++start;
    } else {
      break;
    }
  }
  return bytes.substr(start);
}

std::string HashInputOf(const Literal& value) {
  switch (value.type.id) {
    case TypeId::kDecimal:
      return MinimalBigEndian(value.integer);
    case TypeId::kString:
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      return value.bytes;
    default:
      return WriteLittleEndian(static_cast<int64_t>(value.integer));
  }
}

// Code points of UTF-8 `text`, the first `count` of them.
std::string FirstCodePoints(const std::string& text, int32_t count) {
  size_t pos = 0;
  for (int32_t i = 0; i < count && pos < text.size(); ++i) {
    const auto lead = static_cast<uint8_t>(text[pos]);
    pos += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  }
  return text.substr(0, std::min(pos, text.size()));
}

std::optional<Literal> Truncate(const Literal& value, int32_t width) {
  Literal out = value;
  switch (value.type.id) {
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kDecimal:
      out.integer = value.integer - FloorMod(value.integer, width);
      return out;
    case TypeId::kString:
      out.bytes = FirstCodePoints(value.bytes, width);
      return out;
    case TypeId::kBinary:
      out.bytes = value.bytes.substr(0, static_cast<size_t>(width));
      return out;
    default:
      return std::nullopt;
  }
}

// Microseconds since the epoch of a date or timestamp value.
std::optional<Int128> MicrosOf(const Literal& value) {
  switch (value.type.id) {
    case TypeId::kDate:
      return value.integer * kMicrosPerDay;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return value.integer;
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return FloorDiv(value.integer, 1000);
    default:
      return std::nullopt;
  }
}

std::optional<Literal> TimePart(const Transform& transform, const Literal& value) {
  auto micros = MicrosOf(value);
  if (!micros) return std::nullopt;
  const auto days = static_cast<int64_t>(FloorDiv(*micros, kMicrosPerDay));
  switch (transform.kind) {
    case TransformKind::kDay:
      return IntegerLiteral(Type::Date(), days);
    case TransformKind::kHour:
      return IntegerLiteral(Type::Int(), FloorDiv(*micros, kMicrosPerHour));
    case TransformKind::kMonth: {
      const CivilDate date = CivilDateOf(days);
      return IntegerLiteral(Type::Int(), (date.year - 1970) * 12 + (date.month - 1));
    }
    case TransformKind::kYear:
      return IntegerLiteral(Type::Int(), CivilDateOf(days).year - 1970);
    default:
      return std::nullopt;
  }
}

}  // namespace

bool Literal::IsNaN() const {
  return (type.id == TypeId::kFloat || type.id == TypeId::kDouble) && std::isnan(real);
}

Result<Literal> BindValue(const UnboundValue& value, const Type& type) {
  switch (value.kind) {
    case UnboundValue::Kind::kBoolean:
      if (type.id != TypeId::kBoolean) return CannotConvert(value, type);
      return IntegerLiteral(type, value.boolean ? 1 : 0);
    case UnboundValue::Kind::kInteger:
      return BindInteger(value, type);
    case UnboundValue::Kind::kFloat:
      return BindFloat(value, type);
    case UnboundValue::Kind::kString:
      return BindString(value, type);
  }
  return CannotConvert(value, type);
}

Result<Literal> LiteralFromSingleValue(const Type& type, std::string_view bytes) {
  Literal out;
  out.type = type;
  const auto wrong_size = [&] {
    return BadRequest("A {} value of {} bytes is not a valid bound", ToString(type),
                      bytes.size());
  };
  switch (type.id) {
    case TypeId::kBoolean:
      if (bytes.size() != 1) return wrong_size();
      out.integer = bytes[0] != 0 ? 1 : 0;
      return out;
    case TypeId::kInt:
    case TypeId::kDate:
      if (bytes.size() != 4) return wrong_size();
      out.integer = ReadLittleEndian<int32_t>(bytes);
      return out;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      // Four bytes: an int bound of a column promoted to long, or a date bound of one
      // promoted to a timestamp (v3), which counts days.
      if (bytes.size() == 4) {
        out.integer = ReadLittleEndian<int32_t>(bytes);
        if (type.id == TypeId::kTimestamp || type.id == TypeId::kTimestampTz) {
          out.integer *= kMicrosPerDay;
        } else if (IsNanos(type.id)) {
          out.integer *= kMicrosPerDay * 1000;
        }
        return out;
      }
      if (bytes.size() != 8) return wrong_size();
      out.integer = ReadLittleEndian<int64_t>(bytes);
      return out;
    case TypeId::kFloat:
      if (bytes.size() != 4) return wrong_size();
      out.real = ReadLittleEndian<float>(bytes);
      return out;
    case TypeId::kDouble:
      if (bytes.size() == 4) {  // promoted from float
        out.real = ReadLittleEndian<float>(bytes);
        return out;
      }
      if (bytes.size() != 8) return wrong_size();
      out.real = ReadLittleEndian<double>(bytes);
      return out;
    case TypeId::kDecimal: {
      if (bytes.empty() || bytes.size() > 16) return wrong_size();
      Int128 value = static_cast<int8_t>(bytes[0]) < 0 ? -1 : 0;
      for (char byte : bytes) value = (value << 8) | static_cast<uint8_t>(byte);
      out.integer = value;
      return out;
    }
    case TypeId::kUuid:
      if (bytes.size() != 16) return wrong_size();
      out.bytes = bytes;
      return out;
    case TypeId::kString:
    case TypeId::kFixed:
    case TypeId::kBinary:
      out.bytes = bytes;
      return out;
    default:
      return BadRequest("Values of type {} have no bounds", ToString(type));
  }
}

std::string SingleValueOf(const Literal& literal) {
  switch (literal.type.id) {
    case TypeId::kBoolean:
      return std::string(1, literal.integer != 0 ? '\x01' : '\x00');
    case TypeId::kInt:
    case TypeId::kDate:
      return WriteLittleEndian(static_cast<int32_t>(literal.integer));
    case TypeId::kFloat:
      return WriteLittleEndian(static_cast<float>(literal.real));
    case TypeId::kDouble:
      return WriteLittleEndian(literal.real);
    case TypeId::kDecimal:
      return MinimalBigEndian(literal.integer);
    default:
      if (IsIntegerLike(literal.type.id)) {
        return WriteLittleEndian(static_cast<int64_t>(literal.integer));
      }
      return literal.bytes;
  }
}

int Compare(const Literal& a, const Literal& b) {
  if (IsBytesLike(a.type.id)) {
    const int order = std::memcmp(a.bytes.data(), b.bytes.data(),
                                  std::min(a.bytes.size(), b.bytes.size()));
    if (order != 0) return order < 0 ? -1 : 1;
    return a.bytes.size() < b.bytes.size() ? -1 : a.bytes.size() > b.bytes.size() ? 1 : 0;
  }
  if (a.type.id == TypeId::kFloat || a.type.id == TypeId::kDouble) {
    // Java's Double.compare: a total order, -0.0 before 0.0, NaN after everything.
    const bool a_nan = std::isnan(a.real);
    const bool b_nan = std::isnan(b.real);
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : a_nan ? 1 : -1;
    if (a.real != b.real) return a.real < b.real ? -1 : 1;
    const bool a_negative = std::signbit(a.real);
    const bool b_negative = std::signbit(b.real);
    return a_negative == b_negative ? 0 : a_negative ? -1 : 1;
  }
  Int128 left = a.integer;
  Int128 right = b.integer;
  if (a.type.id == TypeId::kDecimal) {  // a common scale
    for (int32_t s = a.type.scale; s < b.type.scale; ++s) left *= 10;
    for (int32_t s = b.type.scale; s < a.type.scale; ++s) right *= 10;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}

bool IsComparable(const Type& type) {
  return type.IsPrimitive() && type.id != TypeId::kUuid && type.id != TypeId::kVariant &&
         type.id != TypeId::kGeometry && type.id != TypeId::kGeography &&
         type.id != TypeId::kUnknown;
}

std::optional<Type> TransformResultType(const Transform& transform, const Type& source) {
  switch (transform.kind) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
      return source;
    case TransformKind::kBucket:
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kHour:
      return Type::Int();
    case TransformKind::kDay:
      return Type::Date();
    default:
      return std::nullopt;
  }
}

std::optional<Literal> ApplyTransform(const Transform& transform, const Literal& value) {
  switch (transform.kind) {
    case TransformKind::kIdentity:
      return value;
    case TransformKind::kBucket: {
      if (!IsIntegerLike(value.type.id) && !IsBytesLike(value.type.id))
        return std::nullopt;
      if (IsNanos(value.type.id) || transform.param <= 0) return std::nullopt;
      const int32_t hash = Murmur3Hash32(HashInputOf(value));
      return IntegerLiteral(
          Type::Int(), (hash & std::numeric_limits<int32_t>::max()) % transform.param);
    }
    case TransformKind::kTruncate:
      if (transform.param <= 0) return std::nullopt;
      return Truncate(value, transform.param);
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
    case TransformKind::kHour:
      return TimePart(transform, value);
    default:
      return std::nullopt;
  }
}

std::optional<Literal> Step(const Literal& value, int direction) {
  if (!IsIntegerLike(value.type.id)) return std::nullopt;
  Literal out = value;
  out.integer += direction;
  return out;
}

CivilDate CivilDateOf(int64_t days) {
  // H. Hinnant's civil_from_days.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

int32_t Murmur3Hash32(std::string_view bytes) {
  constexpr uint32_t kC1 = 0xcc9e2d51;
  constexpr uint32_t kC2 = 0x1b873593;
  const auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  uint32_t h = 0;
  const size_t blocks = bytes.size() / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k = 0;
    std::memcpy(&k, bytes.data() + i * 4, 4);
    k = rotl(k * kC1, 15) * kC2;
    h = rotl(h ^ k, 13) * 5 + 0xe6546b64;
  }
  uint32_t k = 0;
  const size_t tail = blocks * 4;
  switch (bytes.size() & 3) {
    case 3:
      k ^= static_cast<uint32_t>(static_cast<uint8_t>(bytes[tail + 2])) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(static_cast<uint8_t>(bytes[tail + 1])) << 8;
      [[fallthrough]];
    case 1:
      k ^= static_cast<uint8_t>(bytes[tail]);
      h ^= rotl(k * kC1, 15) * kC2;
      break;
    default:
      break;
  }
  h ^= static_cast<uint32_t>(bytes.size());
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return static_cast<int32_t>(h);
}

}  // namespace cairn::iceberg
