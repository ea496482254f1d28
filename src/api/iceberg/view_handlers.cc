#include "api/iceberg/view_handlers.h"

#include "api/iceberg/access_rules.h"
#include "api/iceberg/request_util.h"
#include "api/iceberg/table_serde.h"
#include "api/iceberg/view_serde.h"
#include "common/macros.h"
#include "common/url_codec.h"

namespace cairn::iceberg_rest {

Result<Response> ListViews(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto page, PageOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto listing, views.ListViews(catalog, ns, page));
  const Securable container = NamespaceSecurable(views.catalogs(), catalog, ns);
  std::erase_if(listing.names, [&](const std::string& name) {
    return !Listable(request, Privilege::kViewList, container,
                     ViewSecurable(views.catalogs(), catalog, ViewIdent{ns, name}));
  });
  return Response::Json(ListTablesResponseToJson(ns, listing));
}

Result<Response> CreateView(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto input, CreateViewRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(auto created,
                        views.CreateView(catalog, ns, input, request.write_context()));
  return Response::Json(LoadViewResultToJson(created));
}

Result<Response> LoadView(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, ViewOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto loaded, views.LoadView(catalog, ident));
  return Response::Json(LoadViewResultToJson(loaded));
}

Result<Response> ViewExists(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, ViewOf(request));
  CAIRN_RETURN_IF_ERROR(views.ViewExists(catalog, ident));
  return Response::NoContent();
}

Result<Response> ReplaceView(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, ViewOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto commit, CommitViewRequestFromJson(request.body));
  CAIRN_RETURN_IF_ERROR(CheckBodyIdentifier(commit.identifier, ident, "view"));
  CAIRN_ASSIGN_OR_RAISE(auto committed,
                        views.ReplaceView(catalog, ident, commit.requirements,
                                          commit.updates, request.write_context()));
  return Response::Json(LoadViewResultToJson(committed));
}

Result<Response> DropView(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ident, ViewOf(request));
  CAIRN_RETURN_IF_ERROR(views.DropView(catalog, ident, request.write_context()));
  return Response::NoContent();
}

Result<Response> RenameView(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto rename, RenameTableRequestFromJson(request.body));
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kViewDrop,
                ViewSecurable(views.catalogs(), catalog, rename.source)));
  CAIRN_RETURN_IF_ERROR(
      Authorize(request, Privilege::kViewCreate,
                NamespaceSecurable(views.catalogs(), catalog, rename.destination.ns)));
  CAIRN_RETURN_IF_ERROR(views.RenameView(catalog, rename.source, rename.destination,
                                         request.write_context()));
  return Response::NoContent();
}

Result<Response> RegisterView(ViewService& views, const Request& request) {
  CAIRN_ASSIGN_OR_RAISE(auto catalog, CatalogOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(auto body, RegisterViewRequestFromJson(request.body));
  CAIRN_ASSIGN_OR_RAISE(
      auto registered,
      views.RegisterView(catalog, ViewIdent{ns, body.name}, body.metadata_location,
                         request.write_context()));
  return Response::Json(LoadViewResultToJson(registered));
}

}  // namespace cairn::iceberg_rest
