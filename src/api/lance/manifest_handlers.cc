#include "api/lance/manifest_handlers.h"

#include <memory>
#include <optional>
#include <string>

#include "api/lance/access_rules.h"
#include "api/lance/json_serde.h"
#include "api/lance/manifest_serde.h"
#include "api/lance/request_util.h"
#include "catalog/lance_manifests.h"
#include "catalog/lance_refs.h"
#include "catalog/lance_restore.h"
#include "catalog/lance_versions.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace {

constexpr std::string_view kLoadDetailedMetadata = "load_detailed_metadata";

/// Whether to load detailed metadata: the query string's flag, else the body's, else
/// when a version, branch or tag is named.
Result<bool> WantsDetails(const Request& request, const DescribeTableRequest& body) {
  std::optional<bool> load = body.load_detailed_metadata;
  if (request.QueryParam(kLoadDetailedMetadata)) {
    CAIRN_ASSIGN_OR_RAISE(load, QueryFlag(request, kLoadDetailedMetadata, false));
  }
  return load.value_or(body.version.has_value() || body.branch.has_value() ||
                       body.tag.has_value());
}

/// The latest version Cairn recorded of a managed table (the basic answer shows it);
/// none yet (only declared) is not an error. Of the table the request loaded: a
/// request reads its catalog and table once.
Status AddLatestRecorded(LanceService& lance, LanceTableInfo& table) {
  auto latest = lance.versions().DescribeVersion(table, {}, std::nullopt);
  if (latest) table.version = latest->version;
  if (!latest && latest.error().kind != ErrorKind::kNoSuchTableVersion) {
    return tl::unexpected(latest.error());
  }
  return Ok();
}

}  // namespace

Result<Response> DescribeTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, DescribeTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(bool with_uri,
                        QueryFlag(request, "with_table_uri", body.with_table_uri));
  CAIRN_ASSIGN_OR_RAISE(bool check_declared,
                        QueryFlag(request, "check_declared", body.check_declared));
  CAIRN_ASSIGN_OR_RAISE(bool detailed, WantsDetails(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto table, lance.DescribeTable(id));
  std::optional<int64_t> version = body.version;
  std::string branch = body.branch.value_or("");
  if (body.tag) {
    // The tag's own file names the version and its branch (catalog/lance_refs.h).
    CAIRN_ASSIGN_OR_RAISE(auto tag, lance.refs().GetTag(table, *body.tag));
    version = static_cast<int64_t>(tag.version);
    branch = tag.branch;
  }
  std::optional<bool> only_declared;
  std::shared_ptr<const lance::LanceManifest> manifest;
  if (detailed) {
    CAIRN_ASSIGN_OR_RAISE(auto where, lance.manifests().Locate(table, branch, version));
    only_declared = !where.has_value();
    if (where) {
      CAIRN_ASSIGN_OR_RAISE(manifest, lance.manifests().Read(table, *where));
      table.version = where->version;
    }
  } else {
    if (table.managed_versioning) CAIRN_RETURN_IF_ERROR(AddLatestRecorded(lance, table));
    if (check_declared) {
      CAIRN_ASSIGN_OR_RAISE(only_declared, lance.IsOnlyDeclared(table));
    }
  }
  std::optional<std::string> uri;
  if (with_uri) uri = table.location;
  CAIRN_ASSIGN_OR_RAISE(bool vend, QueryFlag(request, "vend_credentials",
                                             body.vend_credentials.value_or(true)));
  CAIRN_ASSIGN_OR_RAISE(
      auto access,
      lance.AccessTo(table, vend, VendedAccess(request, TableSecurable(id))));
  return Response::Json(
      DescribedTableToJson(TableJson(table, uri, only_declared, access), manifest.get()));
}

Result<Response> GetTableStats(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TableStatsRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(auto table, lance.DescribeTable(id));
  CAIRN_ASSIGN_OR_RAISE(
      auto where,
      lance.manifests().Locate(table, BranchOf(request, body.branch), std::nullopt));
  if (!where) return Response::Json(TableStatsToJson(nullptr));
  CAIRN_ASSIGN_OR_RAISE(auto manifest, lance.manifests().Read(table, *where));
  return Response::Json(TableStatsToJson(&manifest->summary));
}

Result<Response> RestoreTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, RestoreTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(int64_t version,
                        RestoreLanceTable(lance, id, BranchOf(request, body.branch),
                                          body.version, request.write_context()));
  return Response::Json(NewVersionToJson(version));
}

}  // namespace cairn::lance_rest
