#include "common/json_util.h"

#include <boost/json.hpp>

namespace cairn {
namespace {

Result<std::vector<std::string>> ToStringArray(const boost::json::value& value,
                                               std::string_view key) {
  const auto* array = value.if_array();
  if (array == nullptr) {
    return BadRequest("Invalid field '{}': expected an array of strings, got {}", key,
                      JsonKindName(value));
  }
  std::vector<std::string> out;
  out.reserve(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const auto* s = (*array)[i].if_string();
    if (s == nullptr) {
      return BadRequest("Invalid field '{}[{}]': expected a string, got {}", key, i,
                        JsonKindName((*array)[i]));
    }
    out.emplace_back(*s);
  }
  return out;
}

}  // namespace

std::string_view JsonKindName(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a non-integral number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "unknown";
}

const boost::json::value* FindNonNull(const boost::json::object& obj,
                                      std::string_view key) {
  const auto* value = obj.if_contains(key);
  return (value == nullptr || value->is_null()) ? nullptr : value;
}

Result<boost::json::object> ParseJsonObject(std::string_view text) {
  boost::json::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) {
    return BadRequest("Malformed JSON in request body: {}", ec.message());
  }
  auto* obj = value.if_object();
  if (obj == nullptr) {
    return BadRequest("Invalid request body: expected a JSON object, got {}",
                      JsonKindName(value));
  }
  return std::move(*obj);
}

Result<std::string> GetString(const boost::json::object& obj, std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) {
    return BadRequest("Missing required field '{}'", key);
  }
  const auto* s = value->if_string();
  if (s == nullptr) {
    return BadRequest("Invalid field '{}': expected a string, got {}", key,
                      JsonKindName(*value));
  }
  return std::string(*s);
}

Result<std::optional<std::string>> GetOptionalString(const boost::json::object& obj,
                                                     std::string_view key) {
  if (FindNonNull(obj, key) == nullptr) {
    return std::optional<std::string>{};
  }
  auto value = GetString(obj, key);
  if (!value) {
    return tl::unexpected(value.error());
  }
  return std::optional<std::string>(std::move(*value));
}

Result<std::vector<std::string>> GetStringArray(const boost::json::object& obj,
                                                std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) {
    return BadRequest("Missing required field '{}'", key);
  }
  return ToStringArray(*value, key);
}

Result<std::vector<std::string>> GetOptionalStringArray(const boost::json::object& obj,
                                                        std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) {
    return std::vector<std::string>{};
  }
  return ToStringArray(*value, key);
}

Result<std::map<std::string, std::string>> GetOptionalStringMap(
    const boost::json::object& obj, std::string_view key) {
  std::map<std::string, std::string> out;
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) {
    return out;
  }
  const auto* map = value->if_object();
  if (map == nullptr) {
    return BadRequest("Invalid field '{}': expected an object of string values, got {}",
                      key, JsonKindName(*value));
  }
  for (const auto& entry : *map) {
    const auto* s = entry.value().if_string();
    if (s == nullptr) {
      return BadRequest("Invalid field '{}.{}': expected a string value, got {}", key,
                        std::string_view(entry.key()), JsonKindName(entry.value()));
    }
    out.emplace(std::string(entry.key()), std::string(*s));
  }
  return out;
}

std::string ToJsonText(const boost::json::value& value) {
  return boost::json::serialize(value);
}

Result<std::optional<bool>> GetOptionalBool(const boost::json::object& obj,
                                            std::string_view key) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return std::optional<bool>{};
  if (!value->is_bool()) {
    return BadRequest("Invalid field '{}': expected a boolean, got {}", key,
                      JsonKindName(*value));
  }
  return std::optional<bool>(value->as_bool());
}

}  // namespace cairn
