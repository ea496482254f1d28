// JSON of the Lance table-version operations (see version_serde.h).

#include "api/lance/version_serde.h"

#include <boost/json.hpp>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace json = boost::json;
namespace {

constexpr size_t kMaxRanges = 1000;
constexpr size_t kMaxEntries = 100;

/// An empty body or `null` reads as `{}`.
Result<json::object> VersionBody(std::string_view body) {
  const size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return json::object{};
  const size_t end = body.find_last_not_of(" \t\r\n");
  if (body.substr(start, end - start + 1) == "null") return json::object{};
  return ParseJsonObject(body);
}

Result<std::optional<int64_t>> OptionalInt(const json::object& obj, std::string_view key,
                                           int64_t min) {
  const auto* value = FindNonNull(obj, key);
  if (value == nullptr) return std::optional<int64_t>{};
  if (value->is_int64() && value->as_int64() >= min) {
    return std::optional<int64_t>(value->as_int64());
  }
  if (value->is_uint64() && value->as_uint64() <= uint64_t{INT64_MAX}) {
    return std::optional<int64_t>(static_cast<int64_t>(value->as_uint64()));
  }
  return BadRequest("Invalid field '{}': expected an integer of at least {}", key, min);
}

Result<std::optional<LanceId>> OptionalId(const json::object& obj) {
  if (FindNonNull(obj, "id") == nullptr) return std::optional<LanceId>{};
  CAIRN_ASSIGN_OR_RAISE(auto id, GetStringArray(obj, "id"));
  return std::optional<LanceId>(std::move(id));
}

/// The fields of one version to create (`CreateTableVersionRequest` and a batch entry).
Result<LanceVersionRequest> VersionRequestOf(const json::object& obj) {
  LanceVersionRequest request;
  CAIRN_ASSIGN_OR_RAISE(auto version, OptionalInt(obj, "version", 0));
  CAIRN_PRECHECK(version.has_value(), "Missing field 'version'");
  request.version = *version;
  CAIRN_ASSIGN_OR_RAISE(request.manifest_path, GetString(obj, "manifest_path"));
  CAIRN_ASSIGN_OR_RAISE(request.manifest_size, OptionalInt(obj, "manifest_size", 0));
  CAIRN_ASSIGN_OR_RAISE(request.e_tag, GetOptionalString(obj, "e_tag"));
  CAIRN_ASSIGN_OR_RAISE(request.naming_scheme, GetOptionalString(obj, "naming_scheme"));
  CAIRN_ASSIGN_OR_RAISE(request.metadata, GetOptionalStringMap(obj, "metadata"));
  CAIRN_ASSIGN_OR_RAISE(auto branch, GetOptionalString(obj, "branch"));
  request.branch = branch.value_or("");
  return request;
}

json::object VersionJson(const LanceVersionInfo& version) {
  json::object out;
  out["version"] = version.version;
  out["manifest_path"] = version.manifest_path;
  if (version.manifest_size) out["manifest_size"] = *version.manifest_size;
  if (version.e_tag) out["e_tag"] = *version.e_tag;
  if (version.timestamp_ms) out["timestamp_millis"] = *version.timestamp_ms;
  if (!version.metadata.empty()) {
    json::object metadata;
    for (const auto& [key, value] : version.metadata) metadata[key] = value;
    out["metadata"] = std::move(metadata);
  }
  return out;
}

}  // namespace

Result<VersionQuery> VersionQueryFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, VersionBody(body));
  VersionQuery query;
  CAIRN_ASSIGN_OR_RAISE(query.id, OptionalId(obj));
  CAIRN_ASSIGN_OR_RAISE(query.branch, GetOptionalString(obj, "branch"));
  CAIRN_ASSIGN_OR_RAISE(query.version, OptionalInt(obj, "version", 0));
  CAIRN_ASSIGN_OR_RAISE(query.descending, GetOptionalBool(obj, "descending"));
  CAIRN_ASSIGN_OR_RAISE(auto limit, OptionalInt(obj, "limit", 1));
  if (limit) query.limit = static_cast<size_t>(*limit);
  CAIRN_ASSIGN_OR_RAISE(query.page_token, GetOptionalString(obj, "page_token"));
  return query;
}

Result<CreateVersionBody> CreateVersionFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, VersionBody(body));
  return CreateVersionOf(obj);
}

Result<CreateVersionBody> CreateVersionOf(const json::object& obj) {
  CreateVersionBody out;
  CAIRN_ASSIGN_OR_RAISE(out.id, OptionalId(obj));
  CAIRN_ASSIGN_OR_RAISE(out.version, VersionRequestOf(obj));
  return out;
}

Result<DeleteVersionsBody> DeleteVersionsFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, VersionBody(body));
  return DeleteVersionsOf(obj);
}

Result<DeleteVersionsBody> DeleteVersionsOf(const json::object& obj) {
  DeleteVersionsBody out;
  CAIRN_ASSIGN_OR_RAISE(out.id, OptionalId(obj));
  CAIRN_ASSIGN_OR_RAISE(out.branch, GetOptionalString(obj, "branch"));
  const auto* ranges = FindNonNull(obj, "ranges");
  CAIRN_PRECHECK(ranges != nullptr && ranges->is_array(),
                 "Missing field 'ranges': expected an array of version ranges");
  CAIRN_PRECHECK(ranges->as_array().size() <= kMaxRanges, "At most {} ranges at once",
                 kMaxRanges);
  for (const auto& item : ranges->as_array()) {
    CAIRN_PRECHECK(item.is_object(), "Each of 'ranges' must be an object");
    const auto& range = item.as_object();
    CAIRN_ASSIGN_OR_RAISE(auto start, OptionalInt(range, "start_version", 0));
    CAIRN_ASSIGN_OR_RAISE(auto end, OptionalInt(range, "end_version", -1));
    CAIRN_PRECHECK(start && end, "A version range needs start_version and end_version");
    // The spec's -1 end: up to the latest, inclusive.
    out.ranges.push_back(LanceVersionRange{
        *start, *end < 0 ? std::optional<int64_t>() : std::optional<int64_t>(*end)});
  }
  return out;
}

Result<std::vector<LanceVersionRequest>> BatchCreateVersionsFromJson(
    std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, VersionBody(body));
  const auto* entries = FindNonNull(obj, "entries");
  CAIRN_PRECHECK(entries != nullptr && entries->is_array(),
                 "Missing field 'entries': expected an array");
  CAIRN_PRECHECK(entries->as_array().size() <= kMaxEntries, "At most {} entries at once",
                 kMaxEntries);
  std::vector<LanceVersionRequest> out;
  for (const auto& item : entries->as_array()) {
    CAIRN_PRECHECK(item.is_object(), "Each of 'entries' must be an object");
    CAIRN_ASSIGN_OR_RAISE(auto id, OptionalId(item.as_object()));
    CAIRN_PRECHECK(id.has_value(), "Each entry needs its table 'id'");
    CAIRN_ASSIGN_OR_RAISE(LanceVersionRequest request,
                          VersionRequestOf(item.as_object()));
    request.id = std::move(*id);
    out.push_back(std::move(request));
  }
  return out;
}

std::string VersionToJson(const LanceVersionInfo& version) {
  return json::serialize(CreatedVersionJson(version));
}

json::object CreatedVersionJson(const LanceVersionInfo& version) {
  json::object out;
  out["version"] = VersionJson(version);
  return out;
}

std::string VersionListingToJson(const LanceVersionListing& listing) {
  json::array versions;
  for (const auto& version : listing.versions)
    versions.emplace_back(VersionJson(version));
  json::object out;
  out["versions"] = std::move(versions);
  if (listing.next_page_token) out["page_token"] = *listing.next_page_token;
  return json::serialize(out);
}

std::string VersionsToJson(const std::vector<LanceVersionInfo>& versions) {
  json::array list;
  for (const auto& version : versions) list.emplace_back(VersionJson(version));
  json::object out;
  out["versions"] = std::move(list);
  return json::serialize(out);
}

std::string DeletedVersionsToJson(int64_t deleted) {
  return json::serialize(DeletedVersionsJson(deleted));
}

json::object DeletedVersionsJson(int64_t deleted) {
  json::object out;
  out["deleted_count"] = deleted;
  return out;
}

}  // namespace cairn::lance_rest
