#include "iceberg/type.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <utility>

#include <fmt/format.h>

#include "common/strings.h"

namespace cairn::iceberg {
namespace {

constexpr std::string_view kElementName = "element";
constexpr std::string_view kKeyName = "key";
constexpr std::string_view kValueName = "value";

struct EdgeAlgorithmEntry {
  EdgeAlgorithm algorithm;
  std::string_view name;
};

constexpr std::array<EdgeAlgorithmEntry, 5> kEdgeAlgorithms = {{
    {EdgeAlgorithm::kSpherical, "spherical"},
    {EdgeAlgorithm::kVincenty, "vincenty"},
    {EdgeAlgorithm::kThomas, "thomas"},
    {EdgeAlgorithm::kAndoyer, "andoyer"},
    {EdgeAlgorithm::kKarney, "karney"},
}};

/// Primitive types without parameters, by their spec name.
struct SimpleTypeEntry {
  std::string_view name;
  TypeId id;
};

// geometry / geography (with or without parameters) are parsed separately.
constexpr std::array<SimpleTypeEntry, 16> kSimpleTypes = {{
    {"boolean", TypeId::kBoolean},
    {"int", TypeId::kInt},
    {"long", TypeId::kLong},
    {"float", TypeId::kFloat},
    {"double", TypeId::kDouble},
    {"date", TypeId::kDate},
    {"time", TypeId::kTime},
    {"timestamp", TypeId::kTimestamp},
    {"timestamptz", TypeId::kTimestampTz},
    {"timestamp_ns", TypeId::kTimestampNs},
    {"timestamptz_ns", TypeId::kTimestampTzNs},
    {"string", TypeId::kString},
    {"uuid", TypeId::kUuid},
    {"binary", TypeId::kBinary},
    {"unknown", TypeId::kUnknown},
    {"variant", TypeId::kVariant},
}};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

/// Parses a non-negative decimal int32 made of digits only.
std::optional<int32_t> ParseNonNegativeInt(std::string_view text) {
  text = Trim(text);
  if (text.empty() || !std::all_of(text.begin(), text.end(),
                                   [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int32_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

/// If `text` is `<name>[ ... ]` / `<name>( ... )` (name already lower case), returns the
/// part between the brackets.
std::optional<std::string_view> BracketArgs(std::string_view text, std::string_view name,
                                            char open, char close) {
  if (!StartsWithIgnoreCase(text, name)) return std::nullopt;
  std::string_view rest = Trim(text.substr(name.size()));
  if (rest.size() < 2 || rest.front() != open || rest.back() != close)
    return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

NestedField MakeField(int32_t id, std::string_view name, bool required, Type type) {
  NestedField field;
  field.id = id;
  field.name = std::string(name);
  field.required = required;
  field.type = std::move(type);
  return field;
}

tl::unexpected<Error> UnknownType(std::string_view text) {
  return BadRequest("unknown type '{}'", text);
}

Result<Type> ParseGeometry(std::string_view text) {
  std::string_view rest = Trim(text.substr(std::string_view("geometry").size()));
  if (rest.empty()) return Type::Geometry();
  auto args = BracketArgs(text, "geometry", '(', ')');
  if (!args) return UnknownType(text);
  std::string_view crs = Trim(*args);
  if (crs.empty() || crs.find_first_of(",()") != std::string_view::npos) {
    return BadRequest("invalid geometry type '{}': expected geometry(<crs>)", text);
  }
  return Type::Geometry(std::string(crs));
}

Result<Type> ParseGeography(std::string_view text) {
  std::string_view rest = Trim(text.substr(std::string_view("geography").size()));
  if (rest.empty()) return Type::Geography();
  auto args = BracketArgs(text, "geography", '(', ')');
  if (!args) return UnknownType(text);
  std::string_view crs = *args;
  std::optional<EdgeAlgorithm> algorithm;
  if (auto comma = args->find(','); comma != std::string_view::npos) {
    crs = args->substr(0, comma);
    auto parsed = ParseEdgeAlgorithm(Trim(args->substr(comma + 1)));
    if (!parsed) {
      return BadRequest("invalid geography type '{}': {}", text, parsed.error().message);
    }
    algorithm = *parsed;
  }
  crs = Trim(crs);
  if (crs.empty() || crs.find_first_of(",()") != std::string_view::npos) {
    return BadRequest(
        "invalid geography type '{}': expected geography(<crs>[, <algorithm>])", text);
  }
  return Type::Geography(std::string(crs), algorithm);
}

}  // namespace

std::string_view EdgeAlgorithmName(EdgeAlgorithm algorithm) {
  for (const auto& entry : kEdgeAlgorithms) {
    if (entry.algorithm == algorithm) return entry.name;
  }
  return "spherical";
}

Result<EdgeAlgorithm> ParseEdgeAlgorithm(std::string_view name) {
  std::string lower = AsciiLower(Trim(name));
  for (const auto& entry : kEdgeAlgorithms) {
    if (entry.name == lower) return entry.algorithm;
  }
  return BadRequest("unknown edge algorithm '{}'", name);
}

const NestedField& Type::element() const { return fields.at(0); }
const NestedField& Type::key() const { return fields.at(0); }
const NestedField& Type::value() const { return fields.at(1); }

Type Type::Geometry(std::optional<std::string> crs) {
  Type type = Of(TypeId::kGeometry);
  type.crs = std::move(crs);
  return type;
}

Type Type::Geography(std::optional<std::string> crs,
                     std::optional<EdgeAlgorithm> algorithm) {
  Type type = Of(TypeId::kGeography);
  type.crs = std::move(crs);
  type.algorithm = algorithm;
  return type;
}

Type Type::Struct(std::vector<NestedField> fields) {
  Type type = Of(TypeId::kStruct);
  type.fields = std::move(fields);
  return type;
}

Type Type::List(int32_t element_id, bool element_required, Type element) {
  Type type = Of(TypeId::kList);
  type.fields.push_back(
      MakeField(element_id, kElementName, element_required, std::move(element)));
  return type;
}

Type Type::Map(int32_t key_id, Type key, int32_t value_id, bool value_required,
               Type value) {
  Type type = Of(TypeId::kMap);
  type.fields.push_back(MakeField(key_id, kKeyName, true, std::move(key)));
  type.fields.push_back(
      MakeField(value_id, kValueName, value_required, std::move(value)));
  return type;
}

bool NestedField::HasNonNullInitialDefault() const {
  return initial_default.has_value() && *initial_default != "null";
}

std::string_view TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kInt:
      return "int";
    case TypeId::kLong:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal";
    case TypeId::kDate:
      return "date";
    case TypeId::kTime:
      return "time";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampTz:
      return "timestamptz";
    case TypeId::kTimestampNs:
      return "timestamp_ns";
    case TypeId::kTimestampTzNs:
      return "timestamptz_ns";
    case TypeId::kString:
      return "string";
    case TypeId::kUuid:
      return "uuid";
    case TypeId::kFixed:
      return "fixed";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kUnknown:
      return "unknown";
    case TypeId::kVariant:
      return "variant";
    case TypeId::kGeometry:
      return "geometry";
    case TypeId::kGeography:
      return "geography";
    case TypeId::kStruct:
      return "struct";
    case TypeId::kList:
      return "list";
    case TypeId::kMap:
      return "map";
  }
  return "unknown";
}

std::string ToString(const Type& type) {
  switch (type.id) {
    case TypeId::kDecimal:
      // Java's DecimalType.toString() form; readers accept it with or without the space.
      return fmt::format("decimal({}, {})", type.precision, type.scale);
    case TypeId::kFixed:
      return fmt::format("fixed[{}]", type.length);
    case TypeId::kGeometry:
      if (!type.crs) return "geometry";
      return fmt::format("geometry({})", *type.crs);
    case TypeId::kGeography:
      if (type.algorithm) {
        return fmt::format("geography({}, {})",
                           type.crs.value_or(std::string(Type::kDefaultCrs)),
                           EdgeAlgorithmName(*type.algorithm));
      }
      if (type.crs) return fmt::format("geography({})", *type.crs);
      return "geography";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < type.fields.size(); ++i) {
        const NestedField& field = type.fields[i];
        if (i > 0) out += ", ";
        out +=
            fmt::format("{}: {}: {} {}", field.id, field.name,
                        field.required ? "required" : "optional", ToString(field.type));
      }
      return out + ">";
    }
    case TypeId::kList:
      if (type.fields.size() != 1) return "list<?>";
      return fmt::format("list<{}>", ToString(type.element().type));
    case TypeId::kMap:
      if (type.fields.size() != 2) return "map<?>";
      return fmt::format("map<{}, {}>", ToString(type.key().type),
                         ToString(type.value().type));
    default:
      return std::string(TypeIdName(type.id));
  }
}

Result<Type> ParsePrimitiveType(std::string_view text) {
  std::string_view trimmed = Trim(text);
  std::string lower = AsciiLower(trimmed);
  for (const auto& entry : kSimpleTypes) {
    if (entry.name == lower) return Type::Of(entry.id);
  }
  if (StartsWithIgnoreCase(trimmed, "geometry")) return ParseGeometry(trimmed);
  if (StartsWithIgnoreCase(trimmed, "geography")) return ParseGeography(trimmed);
  if (auto args = BracketArgs(lower, "fixed", '[', ']')) {
    auto length = ParseNonNegativeInt(*args);
    if (!length) return UnknownType(text);
    return Type::Fixed(*length);
  }
  if (auto args = BracketArgs(lower, "decimal", '(', ')')) {
    auto comma = args->find(',');
    if (comma == std::string_view::npos) return UnknownType(text);
    auto precision = ParseNonNegativeInt(args->substr(0, comma));
    auto scale = ParseNonNegativeInt(args->substr(comma + 1));
    if (!precision || !scale) return UnknownType(text);
    if (*precision > Type::kMaxDecimalPrecision) {
      // A precondition of the reference's `DecimalType.of`.
      return InvalidArgument(
          "decimals with precision larger than {} are not supported: {}",
          Type::kMaxDecimalPrecision, *precision);
    }
    return Type::Decimal(*precision, *scale);
  }
  return UnknownType(text);
}

int MinFormatVersion(TypeId id) {
  switch (id) {
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kUnknown:
    case TypeId::kVariant:
    case TypeId::kGeometry:
    case TypeId::kGeography:
      return 3;
    default:
      return 1;
  }
}

int MinFormatVersion(const NestedField& field) {
  int version = MinFormatVersion(field.type);
  if (field.HasNonNullInitialDefault()) version = std::max(version, 3);
  return version;
}

int MinFormatVersion(const Type& type) {
  int version = MinFormatVersion(type.id);
  for (const NestedField& field : type.fields) {
    version = std::max(version, MinFormatVersion(field));
  }
  return version;
}

}  // namespace cairn::iceberg
