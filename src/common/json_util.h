#pragma once

/// \file
/// \brief Typed getters over Boost.JSON objects that turn "missing" and "wrong type" into
/// `kBadRequest` errors naming the field. Handler code never calls `at()`/`as_*()`.
///
/// Field names in messages are given as a path (`"updates"`, `"namespace[2]"`) so the
/// client sees exactly which part of its request is wrong.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>

#include "common/result.h"

namespace cairn {

/// \brief "a string", "an integer", ... for messages about a value of the wrong type.
std::string_view JsonKindName(const boost::json::value& value);

/// \brief The member `key` of `obj`, treating JSON null as absent (nullptr).
const boost::json::value* FindNonNull(const boost::json::object& obj,
                                      std::string_view key);

/// \brief Parses `text` as a JSON object. Errors: `kBadRequest` for malformed JSON or a
/// non-object top-level value (the message says which, without echoing the body).
Result<boost::json::object> ParseJsonObject(std::string_view text);

/// \brief Required string field. Errors: `kBadRequest` when missing, null or not a
/// string.
Result<std::string> GetString(const boost::json::object& obj, std::string_view key);

/// \brief Optional string field (absent or null ⇒ nullopt). Errors: `kBadRequest` on a
/// wrong type.
Result<std::optional<std::string>> GetOptionalString(const boost::json::object& obj,
                                                     std::string_view key);

/// \brief Required array of strings. Errors: `kBadRequest` when missing, not an array, or
/// an element is not a string (the message names the index).
Result<std::vector<std::string>> GetStringArray(const boost::json::object& obj,
                                                std::string_view key);

/// \brief Optional boolean field (absent or null ⇒ nullopt). Errors: `kBadRequest` on a
/// wrong type (the message names it).
Result<std::optional<bool>> GetOptionalBool(const boost::json::object& obj,
                                            std::string_view key);

/// \brief Optional array of strings (absent or null ⇒ empty).
Result<std::vector<std::string>> GetOptionalStringArray(const boost::json::object& obj,
                                                        std::string_view key);

/// \brief Optional object whose values are all strings (absent or null ⇒ empty map).
/// Errors: `kBadRequest` when not an object or a value is not a string (names the key).
Result<std::map<std::string, std::string>> GetOptionalStringMap(
    const boost::json::object& obj, std::string_view key);

/// \brief Serializes a JSON value to compact text.
std::string ToJsonText(const boost::json::value& value);

/// \brief Appends `text` to `out` as a JSON string, quoted and escaped exactly as
/// `boost::json::serialize` writes it, without building a JSON value first (the hot path
/// of writing a million file paths).
void AppendJsonString(std::string& out, std::string_view text);

/// \brief Serializes with two-space indentation (`"key": value`), keeping key order.
std::string SerializePretty(const boost::json::value& value);

}  // namespace cairn
