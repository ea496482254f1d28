#include "api/iceberg/expression_serde.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::iceberg_rest {
namespace {

namespace json = boost::json;
using iceberg::Expression;
using iceberg::Operation;
using iceberg::UnboundValue;

constexpr std::array<Operation, 19> kOperations{
    Operation::kTrue,          Operation::kFalse,
    Operation::kAnd,           Operation::kOr,
    Operation::kNot,           Operation::kIsNull,
    Operation::kNotNull,       Operation::kIsNan,
    Operation::kNotNan,        Operation::kLt,
    Operation::kLtEq,          Operation::kGt,
    Operation::kGtEq,          Operation::kEq,
    Operation::kNotEq,         Operation::kStartsWith,
    Operation::kNotStartsWith, Operation::kIn,
    Operation::kNotIn};

// Java matches `type` case-insensitively, with `_` for `-`.
std::optional<Operation> OperationNamed(std::string_view text) {
  std::string normal(text);
  for (char& c : normal)
    c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Operation op : kOperations) {
    if (iceberg::OperationName(op) == normal) return op;
  }
  return std::nullopt;
}

bool IsUnary(Operation op) {
  return op == Operation::kIsNull || op == Operation::kNotNull ||
         op == Operation::kIsNan || op == Operation::kNotNan;
}
bool IsSet(Operation op) { return op == Operation::kIn || op == Operation::kNotIn; }

Result<UnboundValue> ValueFromJson(const json::value& value, std::string_view where) {
  const json::value* inner = &value;
  // `{"type":"literal","value":X}` wraps a value in the newer form (and in Java's).
  if (const auto* object = value.if_object()) {
    const json::value* type = object->if_contains("type");
    if (type == nullptr || !type->is_string() || type->as_string() != "literal" ||
        object->if_contains("value") == nullptr) {
      return BadRequest("Invalid {}: expected a literal value, got an object", where);
    }
    inner = object->if_contains("value");
  }
  UnboundValue out;
  out.source = json::serialize(*inner);
  if (inner->is_bool()) {
    out.kind = UnboundValue::Kind::kBoolean;
    out.boolean = inner->as_bool();
  } else if (inner->is_int64()) {
    out.kind = UnboundValue::Kind::kInteger;
    out.integer = inner->as_int64();
  } else if (inner->is_uint64()) {
    return BadRequest("Invalid {}: {} is out of the range of long", where, out.source);
  } else if (inner->is_double()) {
    out.kind = UnboundValue::Kind::kFloat;
    out.real = inner->as_double();
  } else if (inner->is_string()) {
    out.kind = UnboundValue::Kind::kString;
    out.text = std::string(inner->as_string());
  } else {
    return BadRequest("Invalid {}: expected a literal value, got {}", where,
                      JsonKindName(*inner));
  }
  return out;
}

// A column: a name, `{"type":"reference","term"|"name":...}`.
Result<std::string> ColumnFromJson(const json::value& term, std::string_view where) {
  if (term.is_string()) return std::string(term.as_string());
  const auto* object = term.if_object();
  const json::value* type = object == nullptr ? nullptr : object->if_contains("type");
  if (type == nullptr || !type->is_string()) {
    return BadRequest("Invalid {}: expected a column name or reference", where);
  }
  const std::string_view kind = type->as_string();
  if (kind == "reference") {
    for (const char* key : {"name", "term"}) {
      if (const json::value* name = object->if_contains(key);
          name != nullptr && name->is_string()) {
        return std::string(name->as_string());
      }
    }
    if (object->if_contains("id") != nullptr) {
      return BadRequest(
          "Unsupported {}: references by field id are not supported in scan filters; "
          "name the column",
          where);
    }
    return BadRequest("Invalid {}: a reference without a name", where);
  }
  if (kind == "transform") {
    return BadRequest("Unsupported {}: transform terms are not supported in scan filters",
                      where);
  }
  if (kind == "apply") {
    return BadRequest(
        "Unsupported {}: apply (function) expressions are not supported in scan filters",
        where);
  }
  return BadRequest("Invalid {}: expected a column name or reference, got type '{}'",
                    where, kind);
}

bool IsReference(const json::value& value) {
  if (value.is_string()) return false;  // in left/right, a bare string is a literal
  const auto* object = value.if_object();
  const json::value* type = object == nullptr ? nullptr : object->if_contains("type");
  return type != nullptr && type->is_string() &&
         (type->as_string() == "reference" || type->as_string() == "transform" ||
          type->as_string() == "apply");
}

Operation Flipped(Operation op) {
  switch (op) {
    case Operation::kLt:
      return Operation::kGt;
    case Operation::kLtEq:
      return Operation::kGtEq;
    case Operation::kGt:
      return Operation::kLt;
    case Operation::kGtEq:
      return Operation::kLtEq;
    default:
      return op;
  }
}

Result<std::vector<UnboundValue>> ValuesFromJson(const json::value& values) {
  const json::array* array = values.if_array();
  if (const auto* object = values.if_object()) {  // {"type":"literals","values":[...]}
    const json::value* inner = object->if_contains("values");
    array = inner == nullptr ? nullptr : inner->if_array();
  }
  if (array == nullptr)
    return BadRequest("Invalid values: expected an array of literals");
  std::vector<UnboundValue> out;
  for (size_t i = 0; i < array->size(); ++i) {
    CAIRN_ASSIGN_OR_RAISE(auto value,
                          ValueFromJson((*array)[i], fmt::format("values[{}]", i)));
    out.push_back(std::move(value));
  }
  return out;
}

Result<Expression> Parse(const json::value& value, int depth);

Result<Expression> PredicateFromJson(const json::object& object, Operation op) {
  Expression out;
  out.op = op;
  const std::string_view name = iceberg::OperationName(op);
  const json::value* term = object.if_contains("term");
  const json::value* child = object.if_contains("child");
  if (!IsUnary(op) && !IsSet(op) && term == nullptr) {
    const json::value* left = object.if_contains("left");
    const json::value* right = object.if_contains("right");
    if (left == nullptr || right == nullptr) {
      return BadRequest(
          "Invalid {} predicate: needs 'term' and 'value', or 'left' and 'right'", name);
    }
    if (!IsReference(*left) && IsReference(*right)) {
      if (op == Operation::kStartsWith || op == Operation::kNotStartsWith) {
        return BadRequest("Unsupported {} predicate: the column must be on the left",
                          name);
      }
      std::swap(left, right);
      out.op = Flipped(op);
    }
    CAIRN_ASSIGN_OR_RAISE(out.column,
                          ColumnFromJson(*left, fmt::format("{} left", name)));
    CAIRN_ASSIGN_OR_RAISE(auto literal,
                          ValueFromJson(*right, fmt::format("{} right", name)));
    out.values.push_back(std::move(literal));
    return out;
  }
  const json::value* column = term != nullptr ? term : child;
  if (column == nullptr)
    return BadRequest("Invalid {} predicate: needs 'term' (or 'child')", name);
  CAIRN_ASSIGN_OR_RAISE(out.column,
                        ColumnFromJson(*column, fmt::format("{} term", name)));
  if (IsUnary(op)) {
    if (object.if_contains("value") != nullptr ||
        object.if_contains("values") != nullptr) {
      return BadRequest("Invalid {} predicate: it takes no value", name);
    }
    return out;
  }
  if (IsSet(op)) {
    const json::value* values = object.if_contains("values");
    if (values == nullptr)
      return BadRequest("Invalid {} predicate: needs 'values'", name);
    CAIRN_ASSIGN_OR_RAISE(out.values, ValuesFromJson(*values));
    return out;
  }
  const json::value* literal = object.if_contains("value");
  if (literal == nullptr) return BadRequest("Invalid {} predicate: needs 'value'", name);
  CAIRN_ASSIGN_OR_RAISE(auto parsed,
                        ValueFromJson(*literal, fmt::format("{} value", name)));
  out.values.push_back(std::move(parsed));
  return out;
}

Result<Expression> Child(const json::object& object, std::string_view key, int depth,
                         std::string_view op) {
  const json::value* child = object.if_contains(key);
  if (child == nullptr) return BadRequest("Invalid {} expression: needs '{}'", op, key);
  return Parse(*child, depth + 1);
}

Result<Expression> Parse(const json::value& value, int depth) {
  constexpr int kMaxDepth = 100;
  if (depth > kMaxDepth)
    return BadRequest("Invalid filter: nested deeper than {} levels", kMaxDepth);
  if (value.is_bool()) {
    Expression constant;
    constant.op = value.as_bool() ? Operation::kTrue : Operation::kFalse;
    return constant;
  }
  const auto* object = value.if_object();
  if (object == nullptr)
    return BadRequest("Invalid filter: expected an expression, got {}",
                      JsonKindName(value));
  const json::value* type = object->if_contains("type");
  if (type == nullptr || !type->is_string())
    return BadRequest("Invalid filter: an expression without 'type'");
  const std::string_view text = type->as_string();
  if (text == "literal") {  // Java reads a boolean literal as a constant expression
    const json::value* inner = object->if_contains("value");
    if (inner != nullptr && inner->is_bool()) return Parse(*inner, depth + 1);
  }
  if (text == "apply" || text == "transform" || text == "reference") {
    return BadRequest("Unsupported filter: a '{}' is not a predicate", text);
  }
  auto op = OperationNamed(text);
  if (!op) return BadRequest("Unsupported filter: unknown expression type '{}'", text);
  Expression out;
  out.op = *op;
  switch (*op) {
    case Operation::kTrue:
    case Operation::kFalse:
      return out;
    case Operation::kAnd:
    case Operation::kOr: {
      CAIRN_ASSIGN_OR_RAISE(auto left, Child(*object, "left", depth, text));
      CAIRN_ASSIGN_OR_RAISE(auto right, Child(*object, "right", depth, text));
      out.children = {std::move(left), std::move(right)};
      return out;
    }
    case Operation::kNot: {
      CAIRN_ASSIGN_OR_RAISE(auto child, Child(*object, "child", depth, text));
      out.children = {std::move(child)};
      return out;
    }
    default:
      return PredicateFromJson(*object, *op);
  }
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char byte : bytes) {
    const auto b = static_cast<uint8_t>(byte);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

void AppendQuoted(std::string& out, std::string_view text) {
  AppendJsonString(out, text);
}

std::string Int128Text(iceberg::Int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    const int digit = static_cast<int>(value % 10);
    digits.push_back(static_cast<char>('0' + (negative ? -digit : digit)));
    value /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string DecimalText(iceberg::Int128 unscaled, int32_t scale) {
  std::string digits = Int128Text(unscaled < 0 ? -unscaled : unscaled);
  std::string out = unscaled < 0 ? "-" : "";
  if (scale <= 0) return out + digits;
  const auto fraction = static_cast<size_t>(scale);
  if (digits.size() <= fraction) {  // 0.00ddd: pad with zeros (appends only: see below)
    std::string padded(fraction - digits.size() + 1, '0');
    padded += digits;
    digits = std::move(padded);
  }
  // Built by appending: GCC 12 warns (-Wrestrict) on std::string::insert here.
  out.append(digits, 0, digits.size() - fraction);
  out.push_back('.');
  out.append(digits, digits.size() - fraction, fraction);
  return out;
}

std::string DateText(int64_t days) {
  const iceberg::CivilDate date = iceberg::CivilDateOf(days);
  return fmt::format("{:04}-{:02}-{:02}", date.year, date.month, date.day);
}

// HH:MM:SS.ffffff (or 9 fraction digits) of a time of day in 10^-digits seconds.
std::string TimeText(int64_t value, int digits) {
  const int64_t unit = digits == 9 ? 1'000'000'000 : 1'000'000;
  const int64_t seconds = value / unit;
  return fmt::format("{:02}:{:02}:{:02}.{:0{}}", seconds / 3600, seconds / 60 % 60,
                     seconds % 60, value % unit, digits);
}

std::string TimestampText(iceberg::Int128 value, bool nanos, bool zoned) {
  const int64_t per_day = int64_t{86'400} * (nanos ? 1'000'000'000 : 1'000'000);
  const auto v = static_cast<int64_t>(value);
  const int64_t days = v / per_day - (v % per_day < 0 ? 1 : 0);
  const int64_t time = v - days * per_day;
  return DateText(days) + "T" + TimeText(time, nanos ? 9 : 6) + (zoned ? "+00:00" : "");
}

std::string FloatText(double value) {
  if (std::isnan(value)) return "\"NaN\"";
  if (std::isinf(value)) return value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  std::string text = fmt::format("{}", value);
  // Java reads a float only from a JSON number with a fraction or exponent.
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

std::string UuidText(const std::string& bytes) {
  const std::string hex = Hex(bytes);
  if (hex.size() != 32) return Upper(hex);
  std::string out = hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) +
                    "-" + hex.substr(16, 4) + "-" + hex.substr(20);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void AppendPredicate(std::string& out, const iceberg::BoundExpression& predicate) {
  out += R"({"type":")";
  out += iceberg::OperationName(predicate.op);
  out += R"(","term":)";
  AppendQuoted(out, predicate.name);
  if (predicate.op == Operation::kIn || predicate.op == Operation::kNotIn) {
    out += R"(,"values":[)";
    for (size_t i = 0; i < predicate.literals.size(); ++i) {
      if (i > 0) out += ',';
      AppendSingleValueJson(out, predicate.literals[i]);
    }
    out += ']';
  } else if (!predicate.literals.empty()) {
    out += R"(,"value":)";
    AppendSingleValueJson(out, predicate.literals[0]);
  }
  out += '}';
}

void AppendExpression(std::string& out, const iceberg::BoundExpression& expression) {
  switch (expression.op) {
    case Operation::kTrue:
      out += "true";
      return;
    case Operation::kFalse:
      out += "false";
      return;
    case Operation::kAnd:
    case Operation::kOr:
      out += R"({"type":")";
      out += iceberg::OperationName(expression.op);
      out += R"(","left":)";
      AppendExpression(out, expression.children.at(0));
      out += R"(,"right":)";
      AppendExpression(out, expression.children.at(1));
      out += '}';
      return;
    case Operation::kNot:
      out += R"({"type":"not","child":)";
      AppendExpression(out, expression.children.at(0));
      out += '}';
      return;
    default:
      AppendPredicate(out, expression);
  }
}

}  // namespace

Result<iceberg::Expression> ExpressionFromJson(const boost::json::value& json) {
  return Parse(json, 0);
}

std::string ExpressionToJson(const iceberg::BoundExpression& expression) {
  std::string out;
  AppendExpression(out, expression);
  return out;
}

void AppendSingleValueJson(std::string& out, const iceberg::Literal& literal) {
  using iceberg::TypeId;
  switch (literal.type.id) {
    case TypeId::kBoolean:
      out += literal.integer != 0 ? "true" : "false";
      return;
    case TypeId::kInt:
    case TypeId::kLong:
      if (literal.integer >= std::numeric_limits<int64_t>::min() &&
          literal.integer <= std::numeric_limits<int64_t>::max()) {
        fmt::format_to(std::back_inserter(out), "{}",
                       static_cast<int64_t>(literal.integer));
      } else {
        out += Int128Text(literal.integer);
      }
      return;
    case TypeId::kFloat:
    case TypeId::kDouble:
      out += FloatText(literal.real);
      return;
    case TypeId::kDecimal:
      AppendQuoted(out, DecimalText(literal.integer, literal.type.scale));
      return;
    case TypeId::kDate:
      AppendQuoted(out, DateText(static_cast<int64_t>(literal.integer)));
      return;
    case TypeId::kTime:
      AppendQuoted(out, TimeText(static_cast<int64_t>(literal.integer), 6));
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      const bool nanos = literal.type.id == TypeId::kTimestampNs ||
                         literal.type.id == TypeId::kTimestampTzNs;
      const bool zoned = literal.type.id == TypeId::kTimestampTz ||
                         literal.type.id == TypeId::kTimestampTzNs;
      AppendQuoted(out, TimestampText(literal.integer, nanos, zoned));
      return;
    }
    case TypeId::kString:
      AppendQuoted(out, literal.bytes);
      return;
    case TypeId::kUuid:
      AppendQuoted(out, UuidText(literal.bytes));
      return;
    default:  // fixed, binary: upper-case hex
      AppendQuoted(out, Hex(literal.bytes));
      return;
  }
}

}  // namespace cairn::iceberg_rest
