// Handlers of the Lance table-version operations (see version_handlers.h).

#include "api/lance/version_handlers.h"

#include "api/access/guard.h"
#include "api/lance/access_rules.h"
#include "api/lance/batch_commit_serde.h"
#include "api/lance/request_util.h"
#include "api/lance/version_serde.h"
#include "catalog/lance_batch_commit.h"
#include "catalog/lance_versions.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace {

/// What BatchCommitTables needs for one operation: what its own route needs.
Status AuthorizeOperation(const Request& request, const LanceCommitOperation& operation) {
  if (const auto* declare = std::get_if<LanceDeclareTable>(&operation)) {
    return Authorize(request, Privilege::kTableCreate, ParentSecurable(declare->id));
  }
  if (const auto* deregister = std::get_if<LanceDeregisterTable>(&operation)) {
    return Authorize(request, Privilege::kTableDrop, TableSecurable(deregister->id));
  }
  const LanceId& id =
      std::visit([](const auto& op) -> const LanceId& { return op.id; }, operation);
  return Authorize(request, Privilege::kTableWrite, TableSecurable(id));
}

}  // namespace

Result<Response> CreateTableVersion(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, CreateVersionFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(body.version.id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(auto created, lance.versions().CreateVersion(
                                          body.version, request.write_context()));
  return Response::Json(VersionToJson(created));
}

Result<Response> DescribeTableVersion(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, VersionQueryFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(
      auto version,
      lance.versions().DescribeVersion(id, BranchOf(request, body.branch), body.version));
  return Response::Json(VersionToJson(version));
}

Result<Response> ListTableVersions(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, VersionQueryFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  PageRequest page;
  page.token = body.page_token.value_or("");
  if (auto token = request.QueryParam("page_token"); token && !body.page_token) {
    page.token = std::string(*token);
  }
  page.page_size = body.limit;
  if (auto limit = request.QueryParam("limit"); limit && !body.limit) {
    CAIRN_ASSIGN_OR_RAISE(page.page_size, ParsePageSize(*limit, "limit"));
  }
  CAIRN_ASSIGN_OR_RAISE(
      bool descending, QueryFlag(request, "descending", body.descending.value_or(false)));
  if (body.descending) descending = *body.descending;
  CAIRN_ASSIGN_OR_RAISE(auto listing,
                        lance.versions().ListVersions(id, BranchOf(request, body.branch),
                                                      page, descending));
  return Response::Json(VersionListingToJson(listing));
}

Result<Response> BatchDeleteTableVersions(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, DeleteVersionsFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(int64_t deleted, lance.versions().DeleteVersions(
                                             id, BranchOf(request, body.branch),
                                             body.ranges, request.write_context()));
  return Response::Json(DeletedVersionsToJson(deleted));
}

Result<Response> BatchCreateTableVersions(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto entries, BatchCreateVersionsFromJson(request.body));
  for (const auto& entry : entries) {
    CAIRN_RETURN_IF_ERROR(
        Authorize(request, Privilege::kTableWrite, TableSecurable(entry.id)));
  }
  CAIRN_ASSIGN_OR_RAISE(
      auto created, lance.versions().CreateVersions(entries, request.write_context()));
  return Response::Json(VersionsToJson(created));
}

Result<Response> BatchCommitTables(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, BatchCommitFromJson(request.body));
  // Every operation's rights before anything is read: a denial tells nothing.
  for (const auto& operation : body.operations) {
    CAIRN_RETURN_IF_ERROR(AuthorizeOperation(request, operation));
  }
  CAIRN_ASSIGN_OR_RAISE(auto results, lance.batch_commit().Commit(
                                          body.operations, request.write_context()));
  std::vector<TableAccess> access(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (const auto* declared = std::get_if<LanceTableDeclared>(&results[i])) {
      access[i] = DeclaredTableAccess(lance, request, declared->table,
                                      body.vend_credentials[i].value_or(true));
    }
  }
  return Response::Json(BatchCommitToJson(results, access));
}

}  // namespace cairn::lance_rest
