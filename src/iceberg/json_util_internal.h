#pragma once

/// \file
/// \brief Private helpers for the JSON readers and writers of the models
/// (`iceberg/json_serde*.cc`, `view_json_serde.cc`, the update parsers): typed reads from
/// Boost.JSON values that report errors as `kBadRequest` naming the full field path
/// (`schemas[0].fields[2].type`), exact 64-bit integer handling, and a pretty printer.
/// Include only from .cc files.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>
#include <fmt/format.h>

#include "common/json_util.h"
#include "common/macros.h"
#include "common/result.h"

namespace cairn::iceberg::json_internal {

/// \brief `parent.key`, or `key` when `parent` is empty.
std::string FieldPath(std::string_view parent, std::string_view key);
/// \brief `parent[index]`.
std::string IndexPath(std::string_view parent, size_t index);
/// \brief `a string`, `an array`, ... for messages.
inline std::string_view KindName(const boost::json::value& value) {
  return JsonKindName(value);
}

/// \brief `Invalid field '<path>': <message>`, or just the message when `path` is empty
/// (the value is the root of what the caller parsed).
template <typename... Args>
tl::unexpected<Error> InvalidField(std::string_view path, fmt::format_string<Args...> fmt,
                                   Args&&... args) {
  std::string message = fmt::format(fmt, std::forward<Args>(args)...);
  if (path.empty()) return BadRequest("{}", message);
  return BadRequest("Invalid field '{}': {}", path, message);
}

/// \brief A nested parse error from a helper that does not know the path (e.g. type
/// strings), located at `path` as `Invalid field '<path>': <message>`. The kind is kept:
/// a rule the reference enforces with `IllegalArgumentException` or
/// `ValidationException` stays `kInvalidArgument` / `kValidationFailed`.
inline tl::unexpected<Error> AtPath(const Error& error, std::string_view path) {
  if (path.empty()) return tl::unexpected(error);
  return tl::unexpected(
      Error{error.kind, fmt::format("Invalid field '{}': {}", path, error.message)});
}

/// \brief An error found by a `Validate()` after parsing, located at `path` when there is
/// one (kind kept, as above).
inline Status AtPath(Status status, std::string_view path) {
  if (status || path.empty()) return status;
  return AtPath(status.error(), path);
}

/// \brief Parses every element of `array` with `parse(value, element path)`.
template <class T, class Parse>
Result<std::vector<T>> ParseList(const boost::json::array& array, std::string_view path,
                                 Parse parse) {
  std::vector<T> out;
  out.reserve(array.size());
  for (size_t i = 0; i < array.size(); ++i) {
    auto item = parse(array[i], IndexPath(path, i));
    if (!item) return tl::unexpected(std::move(item).error());
    out.push_back(std::move(*item));
  }
  return out;
}

/// \brief Parses metadata text into a JSON object; `what` names it in messages
/// ("table metadata"). Errors: `kBadRequest`.
Result<boost::json::value> ParseMetadataText(std::string_view text,
                                             std::string_view what);

/// \brief `Missing required field '<path>'`.
tl::unexpected<Error> MissingField(std::string_view path);

// Conversions of a value found at `path`.
Result<const boost::json::object*> AsObject(const boost::json::value& value,
                                            std::string_view path);
Result<const boost::json::array*> AsArray(const boost::json::value& value,
                                          std::string_view path);
/// Integral JSON numbers only (never via double); errors on out-of-range values.
Result<int32_t> AsInt32(const boost::json::value& value, std::string_view path);
Result<int64_t> AsInt64(const boost::json::value& value, std::string_view path);
Result<bool> AsBool(const boost::json::value& value, std::string_view path);
Result<std::string> AsString(const boost::json::value& value, std::string_view path);

/// \brief The member `key`, treating JSON null as absent.
using ::cairn::FindNonNull;

// Member reads. `parent` is the path of `obj`. Required reads fail on missing or null
// members; optional reads return nullopt / empty for them.
Result<int32_t> ReadInt32(const boost::json::object& obj, std::string_view key,
                          std::string_view parent);
Result<std::optional<int32_t>> ReadOptionalInt32(const boost::json::object& obj,
                                                 std::string_view key,
                                                 std::string_view parent);
Result<int64_t> ReadInt64(const boost::json::object& obj, std::string_view key,
                          std::string_view parent);
Result<std::optional<int64_t>> ReadOptionalInt64(const boost::json::object& obj,
                                                 std::string_view key,
                                                 std::string_view parent);
Result<bool> ReadBool(const boost::json::object& obj, std::string_view key,
                      std::string_view parent);
Result<std::string> ReadString(const boost::json::object& obj, std::string_view key,
                               std::string_view parent);
Result<std::optional<std::string>> ReadOptionalString(const boost::json::object& obj,
                                                      std::string_view key,
                                                      std::string_view parent);
Result<const boost::json::array*> ReadArray(const boost::json::object& obj,
                                            std::string_view key,
                                            std::string_view parent);
/// nullptr when absent or null.
Result<const boost::json::array*> ReadOptionalArray(const boost::json::object& obj,
                                                    std::string_view key,
                                                    std::string_view parent);
/// nullptr when absent or null.
Result<const boost::json::object*> ReadOptionalObject(const boost::json::object& obj,
                                                      std::string_view key,
                                                      std::string_view parent);
Result<std::vector<int32_t>> ReadInt32List(const boost::json::object& obj,
                                           std::string_view key, std::string_view parent);
/// Empty when absent or null.
Result<std::vector<int32_t>> ReadOptionalInt32List(const boost::json::object& obj,
                                                   std::string_view key,
                                                   std::string_view parent);
Result<std::vector<std::string>> ReadStringList(const boost::json::object& obj,
                                                std::string_view key,
                                                std::string_view parent);
/// Empty when absent or null.
Result<std::map<std::string, std::string>> ReadOptionalStringMap(
    const boost::json::object& obj, std::string_view key, std::string_view parent);

/// \brief A JSON object of strings.
boost::json::object StringMapToJson(const std::map<std::string, std::string>& map);
/// \brief A JSON array of ints.
boost::json::array Int32ListToJson(const std::vector<int32_t>& values);

/// \brief A required member holding an array of model objects, each parsed by `parse`.
template <class T, class Parse>
Result<std::vector<T>> ReadList(const boost::json::object& obj, std::string_view key,
                                std::string_view path, Parse parse) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* array, ReadArray(obj, key, path));
  return ParseList<T>(*array, FieldPath(path, key), parse);
}

/// \brief As `ReadList`, for a member that may be absent or null: then the list is empty.
template <class T, class Parse>
Result<std::vector<T>> ReadOptionalList(const boost::json::object& obj,
                                        std::string_view key, std::string_view path,
                                        Parse parse) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::array* array,
                        ReadOptionalArray(obj, key, path));
  if (array == nullptr) return std::vector<T>{};
  return ParseList<T>(*array, FieldPath(path, key), parse);
}

/// \brief Model objects to a JSON array, each with the `ToJson` of its type (found by
/// argument-dependent lookup in the model's namespace).
template <class List>
boost::json::array ListToJson(const List& items) {
  boost::json::array out;
  out.reserve(items.size());
  for (const auto& item : items) out.push_back(ToJson(item));
  return out;
}

}  // namespace cairn::iceberg::json_internal
