#include "iceberg/json_util_internal.h"

#include <limits>

#include <fmt/format.h>

namespace cairn::iceberg::json_internal {
namespace {

/// Both int64 and (in range) uint64 values; doubles are rejected so ids stay exact.
std::optional<int64_t> IntegralValue(const boost::json::value& value) {
  if (const auto* i = value.if_int64()) return *i;
  if (const auto* u = value.if_uint64()) {
    if (*u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return static_cast<int64_t>(*u);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string FieldPath(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string IndexPath(std::string_view parent, size_t index) {
  return fmt::format("{}[{}]", parent, index);
}

Result<boost::json::value> ParseMetadataText(std::string_view text,
                                             std::string_view what) {
  boost::json::error_code ec;
  boost::json::value json = boost::json::parse(text, ec);
  if (ec) return BadRequest("Malformed {} JSON: {}", what, ec.message());
  if (!json.is_object()) {
    return BadRequest("Cannot parse {} from a non-object: got {}", what, KindName(json));
  }
  return json;
}

tl::unexpected<Error> MissingField(std::string_view path) {
  return BadRequest("Missing required field '{}'", path);
}

Result<const boost::json::object*> AsObject(const boost::json::value& value,
                                            std::string_view path) {
  if (const auto* obj = value.if_object()) return obj;
  return InvalidField(path, "expected an object, got {}", KindName(value));
}

Result<const boost::json::array*> AsArray(const boost::json::value& value,
                                          std::string_view path) {
  if (const auto* arr = value.if_array()) return arr;
  return InvalidField(path, "expected an array, got {}", KindName(value));
}

Result<int64_t> AsInt64(const boost::json::value& value, std::string_view path) {
  if (auto i = IntegralValue(value)) return *i;
  if (value.is_uint64()) {
    return InvalidField(path, "integer {} is out of the 64-bit signed range",
                        value.get_uint64());
  }
  return InvalidField(path, "expected an integer, got {}", KindName(value));
}

Result<int32_t> AsInt32(const boost::json::value& value, std::string_view path) {
  auto i = IntegralValue(value);
  if (!i) {
    if (value.is_uint64()) {
      return InvalidField(path, "integer {} is out of the 32-bit range",
                          value.get_uint64());
    }
    return InvalidField(path, "expected an integer, got {}", KindName(value));
  }
  if (*i < std::numeric_limits<int32_t>::min() ||
      *i > std::numeric_limits<int32_t>::max()) {
    return InvalidField(path, "integer {} is out of the 32-bit range", *i);
  }
  return static_cast<int32_t>(*i);
}

Result<bool> AsBool(const boost::json::value& value, std::string_view path) {
  if (const auto* b = value.if_bool()) return *b;
  return InvalidField(path, "expected a boolean, got {}", KindName(value));
}

Result<std::string> AsString(const boost::json::value& value, std::string_view path) {
  if (const auto* s = value.if_string()) return std::string(*s);
  return InvalidField(path, "expected a string, got {}", KindName(value));
}

namespace {

template <class T, class Convert>
Result<T> ReadRequired(const boost::json::object& obj, std::string_view key,
                       std::string_view parent, Convert convert) {
  std::string path = FieldPath(parent, key);
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return MissingField(path);
  return convert(*value, path);
}

template <class T, class Convert>
Result<std::optional<T>> ReadOptional(const boost::json::object& obj,
                                      std::string_view key, std::string_view parent,
                                      Convert convert) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return std::optional<T>{};
  Result<T> converted = convert(*value, FieldPath(parent, key));
  if (!converted) return tl::unexpected(std::move(converted).error());
  return std::optional<T>(std::move(*converted));
}

Result<std::vector<int32_t>> ToInt32List(const boost::json::value& value,
                                         std::string_view path) {
  auto arr = AsArray(value, path);
  if (!arr) return tl::unexpected(std::move(arr).error());
  std::vector<int32_t> out;
  out.reserve((*arr)->size());
  for (size_t i = 0; i < (*arr)->size(); ++i) {
    auto element = AsInt32((**arr)[i], IndexPath(path, i));
    if (!element) return tl::unexpected(std::move(element).error());
    out.push_back(*element);
  }
  return out;
}

}  // namespace

Result<int32_t> ReadInt32(const boost::json::object& obj, std::string_view key,
                          std::string_view parent) {
  return ReadRequired<int32_t>(obj, key, parent, AsInt32);
}

Result<std::optional<int32_t>> ReadOptionalInt32(const boost::json::object& obj,
                                                 std::string_view key,
                                                 std::string_view parent) {
  return ReadOptional<int32_t>(obj, key, parent, AsInt32);
}

Result<int64_t> ReadInt64(const boost::json::object& obj, std::string_view key,
                          std::string_view parent) {
  return ReadRequired<int64_t>(obj, key, parent, AsInt64);
}

Result<std::optional<int64_t>> ReadOptionalInt64(const boost::json::object& obj,
                                                 std::string_view key,
                                                 std::string_view parent) {
  return ReadOptional<int64_t>(obj, key, parent, AsInt64);
}

Result<bool> ReadBool(const boost::json::object& obj, std::string_view key,
                      std::string_view parent) {
  return ReadRequired<bool>(obj, key, parent, AsBool);
}

Result<std::string> ReadString(const boost::json::object& obj, std::string_view key,
                               std::string_view parent) {
  return ReadRequired<std::string>(obj, key, parent, AsString);
}

Result<std::optional<std::string>> ReadOptionalString(const boost::json::object& obj,
                                                      std::string_view key,
                                                      std::string_view parent) {
  return ReadOptional<std::string>(obj, key, parent, AsString);
}

Result<const boost::json::array*> ReadArray(const boost::json::object& obj,
                                            std::string_view key,
                                            std::string_view parent) {
  return ReadRequired<const boost::json::array*>(obj, key, parent, AsArray);
}

Result<const boost::json::array*> ReadOptionalArray(const boost::json::object& obj,
                                                    std::string_view key,
                                                    std::string_view parent) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return static_cast<const boost::json::array*>(nullptr);
  return AsArray(*value, FieldPath(parent, key));
}

Result<const boost::json::object*> ReadOptionalObject(const boost::json::object& obj,
                                                      std::string_view key,
                                                      std::string_view parent) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return static_cast<const boost::json::object*>(nullptr);
  return AsObject(*value, FieldPath(parent, key));
}

Result<std::vector<int32_t>> ReadInt32List(const boost::json::object& obj,
                                           std::string_view key,
                                           std::string_view parent) {
  return ReadRequired<std::vector<int32_t>>(obj, key, parent, ToInt32List);
}

Result<std::vector<int32_t>> ReadOptionalInt32List(const boost::json::object& obj,
                                                   std::string_view key,
                                                   std::string_view parent) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return std::vector<int32_t>{};
  return ToInt32List(*value, FieldPath(parent, key));
}

Result<std::vector<std::string>> ReadStringList(const boost::json::object& obj,
                                                std::string_view key,
                                                std::string_view parent) {
  std::string path = FieldPath(parent, key);
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return MissingField(path);
  auto arr = AsArray(*value, path);
  if (!arr) return tl::unexpected(std::move(arr).error());
  std::vector<std::string> out;
  for (size_t i = 0; i < (*arr)->size(); ++i) {
    auto element = AsString((**arr)[i], IndexPath(path, i));
    if (!element) return tl::unexpected(std::move(element).error());
    out.push_back(std::move(*element));
  }
  return out;
}

Result<std::map<std::string, std::string>> ReadOptionalStringMap(
    const boost::json::object& obj, std::string_view key, std::string_view parent) {
  std::map<std::string, std::string> out;
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return out;
  std::string path = FieldPath(parent, key);
  auto map = AsObject(*value, path);
  if (!map) return tl::unexpected(std::move(map).error());
  for (const auto& member : **map) {
    auto s = AsString(member.value(), FieldPath(path, member.key()));
    if (!s) return tl::unexpected(std::move(s).error());
    out.emplace(std::string(member.key()), std::move(*s));
  }
  return out;
}

boost::json::object StringMapToJson(const std::map<std::string, std::string>& map) {
  boost::json::object obj;
  for (const auto& [key, value] : map) obj[key] = value;
  return obj;
}

boost::json::array Int32ListToJson(const std::vector<int32_t>& values) {
  boost::json::array arr;
  for (int32_t v : values) arr.emplace_back(v);
  return arr;
}

}  // namespace cairn::iceberg::json_internal
