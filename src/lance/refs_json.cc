// The JSON of Lance's tag and branch files (see refs_json.h).

#include "lance/refs_json.h"

#include <boost/json.hpp>

#include "common/json_util.h"
#include "common/macros.h"

namespace cairn::lance {
namespace json = boost::json;
namespace {

constexpr std::string_view kBranch = "branch";
constexpr std::string_view kVersion = "version";
constexpr std::string_view kCreatedAt = "createdAt";
constexpr std::string_view kUpdatedAt = "updatedAt";
constexpr std::string_view kManifestSize = "manifestSize";
constexpr std::string_view kMetadata = "metadata";
constexpr std::string_view kParentBranch = "parentBranch";
constexpr std::string_view kParentVersion = "parentVersion";
constexpr std::string_view kCreateAt = "createAt";
constexpr std::string_view kIdentifier = "identifier";
constexpr std::string_view kVersionMapping = "version_mapping";
constexpr std::string_view kStorage = "storage";

/// A non-negative integer (Lance's `u64`/`usize`).
Result<uint64_t> AsUnsigned(const json::value* value, std::string_view key) {
  if (value != nullptr && value->is_uint64()) return value->as_uint64();
  if (value != nullptr && value->is_int64() && value->as_int64() >= 0) {
    return static_cast<uint64_t>(value->as_int64());
  }
  return BadRequest("'{}' must be a non-negative integer", key);
}

Result<uint64_t> GetUnsigned(const json::object& obj, std::string_view key) {
  return AsUnsigned(FindNonNull(obj, key), key);
}

Result<std::vector<std::pair<uint64_t, std::string>>> LineageOf(const json::object& obj) {
  std::vector<std::pair<uint64_t, std::string>> out;
  const json::value* identifier = FindNonNull(obj, kIdentifier);
  if (identifier == nullptr) return out;
  CAIRN_PRECHECK(identifier->is_object(), "'{}' must be an object", kIdentifier);
  const json::value* mapping = FindNonNull(identifier->as_object(), kVersionMapping);
  if (mapping == nullptr) return out;
  CAIRN_PRECHECK(mapping->is_array(), "'{}.{}' must be an array", kIdentifier,
                 kVersionMapping);
  for (const json::value& entry : mapping->as_array()) {
    CAIRN_PRECHECK(entry.is_array() && entry.as_array().size() == 2 &&
                       entry.as_array()[1].is_string(),
                   "Each of '{}.{}' must be a [version, id] pair", kIdentifier,
                   kVersionMapping);
    CAIRN_ASSIGN_OR_RAISE(uint64_t version,
                          AsUnsigned(&entry.as_array()[0], kVersionMapping));
    out.emplace_back(version, std::string(entry.as_array()[1].as_string()));
  }
  return out;
}

}  // namespace

Result<TagContents> ParseTagFile(std::string_view text) {
  CAIRN_ASSIGN_OR_RAISE(const json::object obj, ParseJsonObject(text));
  TagContents tag;
  CAIRN_ASSIGN_OR_RAISE(auto branch, GetOptionalString(obj, kBranch));
  tag.branch = branch.value_or("");
  CAIRN_ASSIGN_OR_RAISE(tag.version, GetUnsigned(obj, kVersion));
  CAIRN_ASSIGN_OR_RAISE(tag.manifest_size, GetUnsigned(obj, kManifestSize));
  CAIRN_ASSIGN_OR_RAISE(tag.created_at, GetOptionalString(obj, kCreatedAt));
  CAIRN_ASSIGN_OR_RAISE(tag.updated_at, GetOptionalString(obj, kUpdatedAt));
  CAIRN_ASSIGN_OR_RAISE(tag.metadata, GetOptionalStringMap(obj, kMetadata));
  return tag;
}

std::string TagFileText(const TagContents& tag) {
  json::object obj;
  if (tag.branch.empty()) {
    obj[kBranch] = nullptr;
  } else {
    obj[kBranch] = tag.branch;
  }
  obj[kVersion] = tag.version;
  if (tag.created_at) obj[kCreatedAt] = *tag.created_at;
  if (tag.updated_at) obj[kUpdatedAt] = *tag.updated_at;
  obj[kManifestSize] = tag.manifest_size;
  json::object metadata;
  for (const auto& [key, value] : tag.metadata) metadata[key] = value;
  obj[kMetadata] = std::move(metadata);
  return json::serialize(obj);
}

Result<std::string> RetargetTagFile(std::string_view existing, std::string_view branch,
                                    uint64_t version, uint64_t manifest_size,
                                    std::string_view updated_at) {
  CAIRN_RETURN_IF_ERROR(ParseTagFile(existing));
  CAIRN_ASSIGN_OR_RAISE(json::object obj, ParseJsonObject(existing));
  if (branch.empty()) {
    obj[kBranch] = nullptr;
  } else {
    obj[kBranch] = branch;
  }
  obj[kVersion] = version;
  obj[kUpdatedAt] = updated_at;
  obj[kManifestSize] = manifest_size;
  return json::serialize(obj);
}

Result<BranchContents> ParseBranchFile(std::string_view text) {
  CAIRN_ASSIGN_OR_RAISE(const json::object obj, ParseJsonObject(text));
  BranchContents branch;
  CAIRN_ASSIGN_OR_RAISE(branch.parent_branch, GetOptionalString(obj, kParentBranch));
  CAIRN_ASSIGN_OR_RAISE(branch.parent_version, GetUnsigned(obj, kParentVersion));
  CAIRN_ASSIGN_OR_RAISE(branch.create_at, GetUnsigned(obj, kCreateAt));
  CAIRN_ASSIGN_OR_RAISE(branch.manifest_size, GetUnsigned(obj, kManifestSize));
  CAIRN_ASSIGN_OR_RAISE(branch.metadata, GetOptionalStringMap(obj, kMetadata));
  CAIRN_ASSIGN_OR_RAISE(branch.lineage, LineageOf(obj));
  branch.names_storage_layout = FindNonNull(obj, kStorage) != nullptr;
  return branch;
}

std::string BranchFileText(const BranchContents& branch) {
  json::object obj;
  if (branch.parent_branch) {
    obj[kParentBranch] = *branch.parent_branch;
  } else {
    obj[kParentBranch] = nullptr;
  }
  json::array mapping;
  for (const auto& [version, id] : branch.lineage) {
    mapping.push_back(json::array{version, json::string(id)});
  }
  obj[kIdentifier] = json::object{{kVersionMapping, std::move(mapping)}};
  obj[kParentVersion] = branch.parent_version;
  obj[kCreateAt] = branch.create_at;
  obj[kManifestSize] = branch.manifest_size;
  json::object metadata;
  for (const auto& [key, value] : branch.metadata) metadata[key] = value;
  obj[kMetadata] = std::move(metadata);
  return json::serialize(obj);
}

}  // namespace cairn::lance
