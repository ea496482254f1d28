// Handlers of the Lance tag and branch operations (see ref_handlers.h).

#include "api/lance/ref_handlers.h"

#include "api/lance/ref_serde.h"
#include "api/lance/request_util.h"
#include "catalog/lance_refs.h"
#include "common/macros.h"

namespace cairn::lance_rest {
namespace {

/// A listing's table and page: the query string's `page_token` and `limit` (the spec's
/// place for them), else the body's.
Result<std::pair<LanceId, PageRequest>> ListingOf(const Request& request) {
  RefListBody body;
  if (request.method != "GET") {
    CAIRN_ASSIGN_OR_RAISE(body, RefListBodyFromJson(request.body));
  }
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  PageRequest page;
  if (auto token = request.QueryParam("page_token")) {
    page.token = std::string(*token);
  } else {
    page.token = body.page_token.value_or("");
  }
  if (auto limit = request.QueryParam("limit")) {
    CAIRN_ASSIGN_OR_RAISE(page.page_size, ParsePageSize(*limit, "limit"));
  } else {
    page.page_size = body.limit;
  }
  return std::make_pair(std::move(id), std::move(page));
}

/// The answer of an operation that changed something and has nothing to tell.
Response Done() { return Response::Json("{}"); }

}  // namespace

Result<Response> ListTableTags(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto listing, ListingOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto tags, lance.refs().ListTags(listing.first, listing.second));
  return Response::Json(TagListingToJson(tags));
}

Result<Response> GetTableTagVersion(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TagBodyFromJson(request.body, /*with_version=*/false));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(auto tag, lance.refs().GetTag(id, body.tag));
  return Response::Json(TagVersionToJson(tag));
}

Result<Response> CreateTableTag(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TagBodyFromJson(request.body, /*with_version=*/true));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_RETURN_IF_ERROR(lance.refs().CreateTag(id, body.tag, body.target));
  return Done();
}

Result<Response> UpdateTableTag(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TagBodyFromJson(request.body, /*with_version=*/true));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_RETURN_IF_ERROR(lance.refs().UpdateTag(id, body.tag, body.target));
  return Done();
}

Result<Response> DeleteTableTag(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TagBodyFromJson(request.body, /*with_version=*/false));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_RETURN_IF_ERROR(lance.refs().DeleteTag(id, body.tag));
  return Done();
}

Result<Response> ListTableBranches(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto listing, ListingOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto branches,
                        lance.refs().ListBranches(listing.first, listing.second));
  return Response::Json(BranchListingToJson(branches));
}

Result<Response> CreateTableBranch(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body,
                        BranchBodyFromJson(request.body, /*with_source=*/true));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_RETURN_IF_ERROR(
      lance.refs().CreateBranch(id, body.name, body.from, request.write_context()));
  return Done();
}

Result<Response> DeleteTableBranch(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body,
                        BranchBodyFromJson(request.body, /*with_source=*/false));
  CAIRN_ASSIGN_OR_RAISE(LanceId id, PathIdAgreeingWith(request, body.id));
  CAIRN_RETURN_IF_ERROR(
      lance.refs().DeleteBranch(id, body.name, request.write_context()));
  return Done();
}

}  // namespace cairn::lance_rest
