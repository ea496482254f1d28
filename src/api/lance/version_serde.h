#pragma once

/// \file
/// \brief JSON of the Lance table-version operations of the current spec
/// (CreateTableVersion, DescribeTableVersion, ListTableVersions,
/// BatchDeleteTableVersions, BatchCreateTableVersions). Bodies may be empty or the JSON
/// `null` (LanceDB sends ListTableVersions so); unknown fields are ignored, as in every
/// Lance body.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "catalog/lance_versions.h"
#include "common/result.h"

namespace cairn::lance_rest {

/// \brief A body naming a table version: `id`, `branch`, `version` (all optional).
struct VersionQuery {
  std::optional<LanceId> id;
  std::optional<std::string> branch;
  std::optional<int64_t> version;
  std::optional<bool> descending;
  std::optional<size_t> limit;
  std::optional<std::string> page_token;
};

/// \brief `CreateTableVersionRequest` (its `id` may be absent: the path decides).
struct CreateVersionBody {
  std::optional<LanceId> id;
  LanceVersionRequest version;
};

/// \brief `BatchDeleteTableVersionsRequest`.
struct DeleteVersionsBody {
  std::optional<LanceId> id;
  std::optional<std::string> branch;
  std::vector<LanceVersionRange> ranges;
};

/// \brief Errors: `kBadRequest` naming the field.
Result<VersionQuery> VersionQueryFromJson(std::string_view body);
Result<CreateVersionBody> CreateVersionFromJson(std::string_view body);
Result<DeleteVersionsBody> DeleteVersionsFromJson(std::string_view body);
/// \brief `CreateVersionFromJson` and `DeleteVersionsFromJson` of a parsed object (an
/// operation of a batch).
Result<CreateVersionBody> CreateVersionOf(const boost::json::object& obj);
Result<DeleteVersionsBody> DeleteVersionsOf(const boost::json::object& obj);
/// \brief `BatchCreateTableVersionsRequest`: every entry needs its `id`.
Result<std::vector<LanceVersionRequest>> BatchCreateVersionsFromJson(
    std::string_view body);

/// \brief `{"version": TableVersion}` (Create and DescribeTableVersion).
std::string VersionToJson(const LanceVersionInfo& version);
/// \brief `{"versions": [...], "page_token"?}`.
std::string VersionListingToJson(const LanceVersionListing& listing);
/// \brief `{"versions": [...]}` in request order.
std::string VersionsToJson(const std::vector<LanceVersionInfo>& versions);
/// \brief `{"deleted_count": n}`.
std::string DeletedVersionsToJson(int64_t deleted);
/// \brief `VersionToJson` and `DeletedVersionsToJson` as objects (results of a batch).
boost::json::object CreatedVersionJson(const LanceVersionInfo& version);
boost::json::object DeletedVersionsJson(int64_t deleted);

}  // namespace cairn::lance_rest
