#include "iceberg/view_json_serde.h"

#include <algorithm>
#include <cctype>

#include <boost/json.hpp>

#include "common/macros.h"
#include "common/strings.h"
#include "iceberg/json_keys_internal.h"
#include "iceberg/json_serde.h"
#include "iceberg/json_util_internal.h"

namespace cairn::iceberg {
namespace {

using namespace json_internal;  // NOLINT(google-build-using-namespace): local readers

// The view's own member names; those it shares with table metadata are in
// json_keys_internal.h.
constexpr std::string_view kSql = "sql";
constexpr std::string_view kDialect = "dialect";
constexpr std::string_view kVersionId = "version-id";
constexpr std::string_view kDefaultCatalog = "default-catalog";
constexpr std::string_view kDefaultNamespace = "default-namespace";
constexpr std::string_view kRepresentations = "representations";
constexpr std::string_view kViewUuid = "view-uuid";
constexpr std::string_view kCurrentVersionId = "current-version-id";
constexpr std::string_view kVersions = "versions";
constexpr std::string_view kVersionLog = "version-log";

}  // namespace

boost::json::value ToJson(const SqlViewRepresentation& representation) {
  boost::json::object obj;
  obj[kType] = SqlViewRepresentation::kType;
  obj[kSql] = representation.sql;
  obj[kDialect] = representation.dialect;
  return obj;
}

boost::json::value ToJson(const ViewVersion& version) {
  boost::json::object obj;
  obj[kVersionId] = version.version_id;
  obj[kTimestampMs] = version.timestamp_ms;
  obj[kSchemaId] = version.schema_id;
  obj[kSummary] = StringMapToJson(version.summary);
  if (version.default_catalog) obj[kDefaultCatalog] = *version.default_catalog;
  boost::json::array ns;
  for (const auto& level : version.default_namespace) ns.emplace_back(level);
  obj[kDefaultNamespace] = std::move(ns);
  obj[kRepresentations] = ListToJson(version.representations);
  return obj;
}

boost::json::value ToJson(const ViewHistoryEntry& entry) {
  boost::json::object obj;
  obj[kTimestampMs] = entry.timestamp_ms;
  obj[kVersionId] = entry.version_id;
  return obj;
}

boost::json::value ToJson(const ViewMetadata& metadata) {
  boost::json::object obj;
  obj[kViewUuid] = metadata.view_uuid;
  obj[kFormatVersion] = metadata.format_version;
  obj[kLocation] = metadata.location;
  if (!metadata.properties.empty())
    obj[kProperties] = StringMapToJson(metadata.properties);
  obj[kSchemas] = ListToJson(metadata.schemas);
  obj[kCurrentVersionId] = metadata.current_version_id;
  obj[kVersions] = ListToJson(metadata.versions);
  obj[kVersionLog] = ListToJson(metadata.version_log);
  return obj;
}

Result<SqlViewRepresentation> SqlViewRepresentationFromJson(
    const boost::json::value& json, std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  CAIRN_ASSIGN_OR_RAISE(std::string type, ReadString(*obj, kType, path));
  if (AsciiLower(type) != SqlViewRepresentation::kType) {
    return InvalidField(
        FieldPath(path, kType),
        "unsupported view representation type '{}' (only 'sql' is supported)", type);
  }
  SqlViewRepresentation out;
  CAIRN_ASSIGN_OR_RAISE(out.sql, ReadString(*obj, kSql, path));
  CAIRN_ASSIGN_OR_RAISE(out.dialect, ReadString(*obj, kDialect, path));
  return out;
}

Result<ViewVersion> ViewVersionFromJson(const boost::json::value& json,
                                        std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  ViewVersion out;
  CAIRN_ASSIGN_OR_RAISE(out.version_id, ReadInt32(*obj, kVersionId, path));
  CAIRN_ASSIGN_OR_RAISE(out.timestamp_ms, ReadInt64(*obj, kTimestampMs, path));
  CAIRN_ASSIGN_OR_RAISE(out.schema_id, ReadInt32(*obj, kSchemaId, path));
  if (FindNonNull(*obj, kSummary) == nullptr)
    return MissingField(FieldPath(path, kSummary));
  CAIRN_ASSIGN_OR_RAISE(out.summary, ReadOptionalStringMap(*obj, kSummary, path));
  CAIRN_ASSIGN_OR_RAISE(out.default_catalog,
                        ReadOptionalString(*obj, kDefaultCatalog, path));
  CAIRN_ASSIGN_OR_RAISE(out.default_namespace,
                        ReadStringList(*obj, kDefaultNamespace, path));
  CAIRN_ASSIGN_OR_RAISE(
      out.representations,
      ReadList<SqlViewRepresentation>(*obj, kRepresentations, path,
                                      [](const auto& v, std::string_view p) {
                                        return SqlViewRepresentationFromJson(v, p);
                                      }));
  return out;
}

Result<ViewHistoryEntry> ViewHistoryEntryFromJson(const boost::json::value& json,
                                                  std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  ViewHistoryEntry out;
  CAIRN_ASSIGN_OR_RAISE(out.timestamp_ms, ReadInt64(*obj, kTimestampMs, path));
  CAIRN_ASSIGN_OR_RAISE(out.version_id, ReadInt32(*obj, kVersionId, path));
  return out;
}

Result<ViewMetadata> ViewMetadataFromJson(const boost::json::value& json,
                                          std::string_view path) {
  CAIRN_ASSIGN_OR_RAISE(const boost::json::object* obj, AsObject(json, path));
  ViewMetadata md;
  CAIRN_ASSIGN_OR_RAISE(md.view_uuid, ReadString(*obj, kViewUuid, path));
  CAIRN_ASSIGN_OR_RAISE(md.format_version, ReadInt32(*obj, kFormatVersion, path));
  if (md.format_version < 1 ||
      md.format_version > ViewMetadata::kSupportedFormatVersion) {
    return InvalidField(FieldPath(path, kFormatVersion), "Unsupported format version: {}",
                        md.format_version);
  }
  CAIRN_ASSIGN_OR_RAISE(md.location, ReadString(*obj, kLocation, path));
  CAIRN_ASSIGN_OR_RAISE(md.properties, ReadOptionalStringMap(*obj, kProperties, path));
  CAIRN_ASSIGN_OR_RAISE(
      md.schemas,
      ReadList<Schema>(*obj, kSchemas, path, [](const auto& v, std::string_view p) {
        return SchemaFromJson(v, p);
      }));
  CAIRN_ASSIGN_OR_RAISE(md.current_version_id, ReadInt32(*obj, kCurrentVersionId, path));
  CAIRN_ASSIGN_OR_RAISE(
      md.versions,
      ReadList<ViewVersion>(*obj, kVersions, path, [](const auto& v, std::string_view p) {
        return ViewVersionFromJson(v, p);
      }));
  CAIRN_ASSIGN_OR_RAISE(
      md.version_log, ReadList<ViewHistoryEntry>(*obj, kVersionLog, path,
                                                 [](const auto& v, std::string_view p) {
                                                   return ViewHistoryEntryFromJson(v, p);
                                                 }));
  CAIRN_RETURN_IF_ERROR(AtPath(md.Validate(), path));
  return md;
}

std::string ViewMetadataToJsonString(const ViewMetadata& metadata, bool pretty) {
  boost::json::value json = ToJson(metadata);
  return pretty ? SerializePretty(json) : boost::json::serialize(json);
}

Result<ViewMetadata> ViewMetadataFromJsonString(std::string_view text) {
  CAIRN_ASSIGN_OR_RAISE(auto json, ParseMetadataText(text, "view metadata"));
  return ViewMetadataFromJson(json);
}

}  // namespace cairn::iceberg
