#include "api/lance/handlers.h"

#include "api/lance/access_rules.h"
#include "api/lance/json_serde.h"
#include "api/lance/request_util.h"
#include "catalog/lance_versions.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn::lance_rest {
namespace {

/// What the path says: the delimiter and the object's id.
struct Target {
  std::string delimiter;
  LanceId id;
};

Result<Target> TargetOf(const Request& request) {
  Target target;
  CAIRN_ASSIGN_OR_RAISE(target.delimiter, DelimiterOf(request));
  CAIRN_ASSIGN_OR_RAISE(target.id, PathIdOf(request, target.delimiter));
  return target;
}

/// The target of a route whose body names its object; the two must agree.
template <class Body>
Result<Target> TargetAgreeingWith(const Request& request, const Body& body) {
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetOf(request));
  CAIRN_RETURN_IF_ERROR(CheckBodyId(target.id, body.id, target.delimiter));
  return target;
}

/// `page_token` / `limit` from the query string, overridden by a (0.0.1) body's values.
Result<PageRequest> PageOf(const Request& request, const ListRequest& body) {
  PageRequest page;
  if (body.page_token) {
    page.token = *body.page_token;
  } else if (auto token = request.QueryParam("page_token")) {
    page.token = std::string(*token);
  }
  if (body.limit) {
    page.page_size = *body.limit;
  } else if (auto limit = request.QueryParam("limit")) {
    CAIRN_ASSIGN_OR_RAISE(page.page_size, ParsePageSize(*limit, "limit"));
  }
  return page;
}

/// A list request: query parameters for GET; a 0.0.1 POST body adds `parent` and paging.
Result<ListRequest> ListBodyOf(const Request& request) {
  if (request.method == "GET") return ListRequest{};
  return ListRequestFromJson(request.body);
}

/// The transaction id in the path; a body id must agree with it.
Result<std::string> TransactionIdOf(const Request& request,
                                    const std::optional<std::string>& body_id) {
  CAIRN_ASSIGN_OR_RAISE(auto id, FormDecodeSegment(request.PathParam("id")));
  CAIRN_PRECHECK(!id.empty(), "Invalid transaction id: must not be empty");
  CAIRN_PRECHECK(!body_id || *body_id == id,
                 "The transaction id in the path ('{}') and in the body ('{}') disagree",
                 id, *body_id);
  return id;
}

}  // namespace

Result<Response> CreateNamespace(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, CreateNamespaceRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_RETURN_IF_ERROR(AuthorizeNamespaceChange(request, target.id, true));
  CAIRN_ASSIGN_OR_RAISE(auto properties,
                        lance.CreateNamespace(target.id, body.mode, body.properties,
                                              request.write_context()));
  return Response::Json(NamespaceToJson(target.id, properties));
}

Result<Response> ListNamespaces(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, ListBodyOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto page, PageOf(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto listing, lance.ListNamespaces(target.id, page));
  const Securable container = NamespaceSecurable(target.id);
  std::erase_if(listing.names, [&](const std::string& name) {
    LanceId child = target.id;
    child.push_back(name);
    return !Listable(request, Privilege::kNamespaceList, container,
                     NamespaceSecurable(child));
  });
  return Response::Json(NamespaceListingToJson(listing));
}

Result<Response> DescribeNamespace(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, NamespaceIdRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto properties, lance.DescribeNamespace(target.id));
  return Response::Json(NamespaceToJson(target.id, properties));
}

Result<Response> DropNamespace(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, DropNamespaceRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_RETURN_IF_ERROR(AuthorizeNamespaceChange(request, target.id, false));
  CAIRN_ASSIGN_OR_RAISE(
      auto outcome,
      lance.DropNamespace(target.id, body.mode, body.behavior, request.write_context()));
  return Response::Json(DropNamespaceToJson(target.id, outcome));
}

Result<Response> NamespaceExists(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, NamespaceIdRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_RETURN_IF_ERROR(lance.NamespaceExists(target.id));
  return Response::Json(ExistsToJson());
}

Result<Response> ListTables(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, ListBodyOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto page, PageOf(request, body));
  CAIRN_ASSIGN_OR_RAISE(bool include_declared,
                        QueryFlag(request, "include_declared", true));
  CAIRN_ASSIGN_OR_RAISE(auto listing,
                        lance.ListTables(target.id, page, include_declared));
  const Securable container = NamespaceSecurable(target.id);
  std::erase_if(listing.names, [&](const std::string& name) {
    LanceId table = target.id;
    table.push_back(name);
    return !Listable(request, Privilege::kTableList, container, TableSecurable(table));
  });
  return Response::Json(TableListingToJson(listing.names, listing.next_page_token));
}

Result<Response> ListAllTables(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto delimiter, DelimiterOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto page, PageOf(request, ListRequest{}));
  CAIRN_ASSIGN_OR_RAISE(auto listing, lance.ListAllTables(page));
  std::vector<std::string> ids;
  ids.reserve(listing.ids.size());
  for (const auto& id : listing.ids) {
    if (Listable(request, Privilege::kTableList, ParentSecurable(id),
                 TableSecurable(id))) {
      ids.push_back(JoinId(id, delimiter));
    }
  }
  return Response::Json(TableListingToJson(ids, listing.next_page_token));
}

Result<Response> RegisterTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, RegisterTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto table,
                        lance.RegisterTable(target.id, body.location, body.mode,
                                            body.properties, request.write_context()));
  return Response::Json(TableToJson(table));
}

Result<Response> DeclareTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, DeclareTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto table,
                        lance.DeclareTable(target.id, body.location, body.properties,
                                           request.write_context()));
  // Unless told not to, a table on a storage that vends gets credentials: LanceDB then
  // needs no keys of its own.
  return Response::Json(DeclaredTableToJson(
      table,
      DeclaredTableAccess(lance, request, table, body.vend_credentials.value_or(true))));
}

Result<Response> TableExists(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TableIdRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_RETURN_IF_ERROR(lance.TableExists(target.id));
  return Response::Json(ExistsToJson());
}

Result<Response> DropTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TableIdRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto outcome,
                        lance.DropTable(target.id, request.write_context()));
  return Response::Json(DropTableToJson(target.id, outcome));
}

Result<Response> DeregisterTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TableIdRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_ASSIGN_OR_RAISE(auto table,
                        lance.DeregisterTable(target.id, request.write_context()));
  return Response::Json(TableToJson(table));
}

Result<Response> RenameTable(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, RenameTableRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto target, TargetAgreeingWith(request, body));
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kTableDrop, TableSecurable(target.id)));
  CAIRN_RETURN_IF_ERROR(Authorize(request, Privilege::kTableCreate,
                                  body.new_namespace_id
                                      ? NamespaceSecurable(*body.new_namespace_id)
                                      : ParentSecurable(target.id)));
  CAIRN_RETURN_IF_ERROR(lance.RenameTable(target.id, body.new_namespace_id,
                                          body.new_table_name, request.write_context()));
  return Response::Json(EmptyObjectJson());
}

Result<Response> DescribeTransaction(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, TransactionRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto id, TransactionIdOf(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(auto transaction, lance.DescribeTransaction(id));
  return Response::Json(TransactionToJson(transaction));
}

Result<Response> AlterTransaction(LanceService& lance, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto body, AlterTransactionRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto id, TransactionIdOf(request, body.id));
  CAIRN_ASSIGN_OR_RAISE(auto transaction, lance.AlterTransaction(
                                              id, body.actions, request.write_context()));
  return Response::Json(TransactionToJson(transaction));
}

}  // namespace cairn::lance_rest
