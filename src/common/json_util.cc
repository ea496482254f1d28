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

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t plain = 0;  // the start of the run of bytes that need no escape
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte != '"' && byte != '\\') continue;
    out.append(text.substr(plain, i - plain));
    plain = i + 1;
    out.push_back('\\');
    switch (byte) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '\b':
        out.push_back('b');
        break;
      case '\f':
        out.push_back('f');
        break;
      case '\n':
        out.push_back('n');
        break;
      case '\r':
        out.push_back('r');
        break;
      case '\t':
        out.push_back('t');
        break;
      default:
        out.append("u00");
        out.push_back(kHex[byte >> 4U]);
        out.push_back(kHex[byte & 0xFU]);
    }
  }
  out.append(text.substr(plain));
  out.push_back('"');
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

namespace {

void AppendPretty(const boost::json::value& value, int indent, std::string& out) {
  auto newline = [&out](int level) {
    out += '\n';
    out.append(static_cast<size_t>(level) * 2, ' ');
  };
  switch (value.kind()) {
    case boost::json::kind::object: {
      const auto& obj = value.get_object();
      if (obj.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& member : obj) {
        if (!first) out += ',';
        first = false;
        newline(indent + 1);
        out += boost::json::serialize(boost::json::string_view(member.key()));
        out += ": ";
        AppendPretty(member.value(), indent + 1, out);
      }
      newline(indent);
      out += '}';
      return;
    }
    case boost::json::kind::array: {
      const auto& arr = value.get_array();
      if (arr.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& element : arr) {
        if (!first) out += ',';
        first = false;
        newline(indent + 1);
        AppendPretty(element, indent + 1, out);
      }
      newline(indent);
      out += ']';
      return;
    }
    default:
      out += boost::json::serialize(value);
      return;
  }
}

}  // namespace

std::string SerializePretty(const boost::json::value& value) {
  std::string out;
  AppendPretty(value, 0, out);
  return out;
}

}  // namespace cairn
