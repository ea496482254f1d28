#pragma once

/// \file
/// \brief JSON of the Lance tag and branch operations of the current spec
/// (ListTableTags, GetTableTagVersion, CreateTableTag, UpdateTableTag, DeleteTableTag,
/// ListTableBranches, CreateTableBranch, DeleteTableBranch). Bodies may be empty or the
/// JSON `null` (then the path and query string say everything); unknown fields are
/// ignored, as in every Lance body.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/lance_refs.h"
#include "common/result.h"

namespace cairn::lance_rest {

/// \brief The body of a listing: `id`, `page_token`, `limit` (all optional).
struct RefListBody {
  std::optional<LanceId> id;
  std::optional<std::string> page_token;
  std::optional<size_t> limit;
};

/// \brief The body of a tag operation: `tag` (required), `version` (required to create
/// or update), `branch`.
struct TagBody {
  std::optional<LanceId> id;
  std::string tag;
  LanceTagTarget target;
};

/// \brief The body of CreateTableBranch (`name`, required; `from_branch`,
/// `from_version`) or DeleteTableBranch (`name`).
struct BranchBody {
  std::optional<LanceId> id;
  std::string name;
  LanceBranchSource from;
};

/// \brief Errors: `kBadRequest` naming the field.
Result<RefListBody> RefListBodyFromJson(std::string_view body);
/// \brief `with_version`: `version` is required (Create and UpdateTableTag).
Result<TagBody> TagBodyFromJson(std::string_view body, bool with_version);
/// \brief `with_source`: `from_branch` and `from_version` are read (CreateTableBranch).
Result<BranchBody> BranchBodyFromJson(std::string_view body, bool with_source);

/// \brief `{"tags": {name: TagContents}, "page_token"?}`.
std::string TagListingToJson(const LanceTagListing& listing);
/// \brief `{"version": n, "branch"?}` (no branch for the main branch).
std::string TagVersionToJson(const lance::TagContents& tag);
/// \brief `{"branches": {name: BranchContents}, "page_token"?}`.
std::string BranchListingToJson(const LanceBranchListing& listing);

}  // namespace cairn::lance_rest
