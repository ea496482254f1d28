#include "api/iceberg/view_serde.h"

#include <boost/json.hpp>

#include "api/iceberg/table_serde.h"
#include "common/json_util.h"
#include "common/macros.h"
#include "iceberg/json_serde.h"
#include "iceberg/view_json_serde.h"
#include "iceberg/view_update_serde.h"

namespace cairn::iceberg_rest {
namespace {

constexpr std::string_view kName = "name";
constexpr std::string_view kLocation = "location";
constexpr std::string_view kSchema = "schema";
constexpr std::string_view kViewVersion = "view-version";
constexpr std::string_view kSchemaId = "schema-id";
constexpr std::string_view kProperties = "properties";
constexpr std::string_view kIdentifier = "identifier";
constexpr std::string_view kRequirements = "requirements";
constexpr std::string_view kUpdates = "updates";
constexpr std::string_view kMetadataLocation = "metadata-location";

/// The create request's version carries a schema id the server replaces anyway; a client
/// may leave it out.
boost::json::value WithDefaultSchemaId(const boost::json::value& value) {
  if (!value.is_object() || value.as_object().contains(kSchemaId)) return value;
  boost::json::object copy = value.as_object();
  copy[kSchemaId] = -1;
  return copy;
}

/// Parses every element of the array member `key` (absent or null = none) with `parse`.
template <typename T, typename Parse>
Result<std::vector<T>> ParseArray(const boost::json::object& json, std::string_view key,
                                  bool required, Parse parse) {
  std::vector<T> out;
  const auto* value = FindNonNull(json, key);
  if (value == nullptr) {
    if (required) return BadRequest("Missing required field '{}'", key);
    return out;
  }
  const auto* array = value->if_array();
  if (array == nullptr) return BadRequest("Invalid field '{}': expected an array", key);
  for (size_t i = 0; i < array->size(); ++i) {
    CAIRN_ASSIGN_OR_RAISE(auto item, parse((*array)[i], fmt::format("{}[{}]", key, i)));
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

Result<CreateViewInput> CreateViewRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  CreateViewInput input;
  CAIRN_ASSIGN_OR_RAISE(input.name, GetString(json, kName));
  CAIRN_ASSIGN_OR_RAISE(input.location, GetOptionalString(json, kLocation));
  const auto* schema = FindNonNull(json, kSchema);
  if (schema == nullptr) return BadRequest("Missing required field 'schema'");
  CAIRN_ASSIGN_OR_RAISE(input.schema, iceberg::SchemaFromJson(*schema, kSchema));
  const auto* version = FindNonNull(json, kViewVersion);
  if (version == nullptr) return BadRequest("Missing required field 'view-version'");
  CAIRN_ASSIGN_OR_RAISE(input.version, iceberg::ViewVersionFromJson(
                                           WithDefaultSchemaId(*version), kViewVersion));
  CAIRN_ASSIGN_OR_RAISE(input.properties, GetOptionalStringMap(json, kProperties));
  return input;
}

Result<CommitViewRequest> CommitViewRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  CommitViewRequest request;
  if (FindNonNull(json, kIdentifier) != nullptr) {
    CAIRN_ASSIGN_OR_RAISE(request.identifier, TableIdentFromJson(json, kIdentifier));
  }
  CAIRN_ASSIGN_OR_RAISE(request.requirements,
                        ParseArray<iceberg::ViewRequirement>(
                            json, kRequirements, /*required=*/false,
                            [](const auto& v, const std::string& path) {
                              return iceberg::ViewRequirementFromJson(v, path);
                            }));
  CAIRN_ASSIGN_OR_RAISE(
      request.updates,
      ParseArray<iceberg::ViewUpdate>(json, kUpdates, /*required=*/true,
                                      [](const auto& v, const std::string& path) {
                                        return iceberg::ViewUpdateFromJson(v, path);
                                      }));
  return request;
}

Result<RegisterViewRequest> RegisterViewRequestFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseJsonObject(body));
  RegisterViewRequest request;
  CAIRN_ASSIGN_OR_RAISE(request.name, GetString(json, kName));
  CAIRN_ASSIGN_OR_RAISE(request.metadata_location, GetString(json, kMetadataLocation));
  return request;
}

std::string LoadViewResultToJson(const LoadedView& view) {
  return LoadTableResultToJson(view);  // a view result has the shape of a table result
}

}  // namespace cairn::iceberg_rest
