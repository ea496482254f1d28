// JSON of the Lance tag and branch operations (see ref_serde.h).

#include "api/lance/ref_serde.h"

#include <boost/json.hpp>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace json = boost::json;
namespace {

/// An empty body or `null` reads as `{}`.
Result<json::object> RefBody(std::string_view body) {
  const size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return json::object{};
  const size_t end = body.find_last_not_of(" \t\r\n");
  if (body.substr(start, end - start + 1) == "null") return json::object{};
  return ParseJsonObject(body);
}

Result<std::optional<LanceId>> OptionalId(const json::object& obj) {
  if (FindNonNull(obj, "id") == nullptr) return std::optional<LanceId>{};
  CAIRN_ASSIGN_OR_RAISE(auto id, GetStringArray(obj, "id"));
  return std::optional<LanceId>(std::move(id));
}

/// A non-negative integer that fits `int64` (the spec's `int64`, `minimum: 0`).
Result<std::optional<int64_t>> OptionalCount(const json::object& obj,
                                             std::string_view key) {
  const json::value* value = FindNonNull(obj, key);
  if (value == nullptr) return std::optional<int64_t>{};
  if (value->is_int64() && value->as_int64() >= 0) {
    return std::optional<int64_t>(value->as_int64());
  }
  if (value->is_uint64() && value->as_uint64() <= uint64_t{INT64_MAX}) {
    return std::optional<int64_t>(static_cast<int64_t>(value->as_uint64()));
  }
  return BadRequest("Invalid field '{}': expected a non-negative integer", key);
}

json::object MetadataJson(const Properties& metadata) {
  json::object out;
  for (const auto& [key, value] : metadata) out[key] = value;
  return out;
}

}  // namespace

Result<RefListBody> RefListBodyFromJson(std::string_view body) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, RefBody(body));
  RefListBody out;
  CAIRN_ASSIGN_OR_RAISE(out.id, OptionalId(obj));
  CAIRN_ASSIGN_OR_RAISE(out.page_token, GetOptionalString(obj, "page_token"));
  CAIRN_ASSIGN_OR_RAISE(auto limit, OptionalCount(obj, "limit"));
  if (limit) {
    CAIRN_PRECHECK(*limit >= 1, "Invalid field 'limit': must be at least 1");
    out.limit = static_cast<size_t>(*limit);
  }
  return out;
}

Result<TagBody> TagBodyFromJson(std::string_view body, bool with_version) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, RefBody(body));
  TagBody out;
  CAIRN_ASSIGN_OR_RAISE(out.id, OptionalId(obj));
  CAIRN_ASSIGN_OR_RAISE(out.tag, GetString(obj, "tag"));
  CAIRN_ASSIGN_OR_RAISE(out.target.branch, GetOptionalString(obj, "branch"));
  if (with_version) {
    CAIRN_ASSIGN_OR_RAISE(auto version, OptionalCount(obj, "version"));
    CAIRN_PRECHECK(version.has_value(), "Missing field 'version'");
    out.target.version = *version;
  }
  return out;
}

Result<BranchBody> BranchBodyFromJson(std::string_view body, bool with_source) {
  CAIRN_ASSIGN_OR_RAISE(auto obj, RefBody(body));
  BranchBody out;
  CAIRN_ASSIGN_OR_RAISE(out.id, OptionalId(obj));
  CAIRN_ASSIGN_OR_RAISE(out.name, GetString(obj, "name"));
  if (with_source) {
    CAIRN_ASSIGN_OR_RAISE(out.from.branch, GetOptionalString(obj, "from_branch"));
    CAIRN_ASSIGN_OR_RAISE(out.from.version, OptionalCount(obj, "from_version"));
  }
  return out;
}

std::string TagListingToJson(const LanceTagListing& listing) {
  json::object tags;
  for (const auto& [name, tag] : listing.tags) {
    json::object contents;
    if (!tag.branch.empty()) contents["branch"] = tag.branch;
    contents["version"] = tag.version;
    contents["manifestSize"] = tag.manifest_size;
    tags[name] = std::move(contents);
  }
  json::object out;
  out["tags"] = std::move(tags);
  if (listing.next_page_token) out["page_token"] = *listing.next_page_token;
  return json::serialize(out);
}

std::string TagVersionToJson(const lance::TagContents& tag) {
  json::object out;
  out["version"] = tag.version;
  if (!tag.branch.empty()) out["branch"] = tag.branch;
  return json::serialize(out);
}

std::string BranchListingToJson(const LanceBranchListing& listing) {
  json::object branches;
  for (const auto& [name, branch] : listing.branches) {
    json::object contents;
    if (branch.parent_branch) contents["parentBranch"] = *branch.parent_branch;
    contents["parentVersion"] = branch.parent_version;
    contents["createAt"] = branch.create_at;
    contents["manifestSize"] = branch.manifest_size;
    if (!branch.metadata.empty()) contents["metadata"] = MetadataJson(branch.metadata);
    branches[name] = std::move(contents);
  }
  json::object out;
  out["branches"] = std::move(branches);
  if (listing.next_page_token) out["page_token"] = *listing.next_page_token;
  return json::serialize(out);
}

}  // namespace cairn::lance_rest
